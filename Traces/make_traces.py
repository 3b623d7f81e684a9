#!/usr/bin/env python3
"""Generates the small demo traces in Traces/ (deterministic; run `make traces`).

Each trace is built frame by frame from the protocol rules (ISO/IEC 14443-3 CRC_A, 106 kbit/s
timing: 1 byte with parity = 9 etu = 1152 carrier cycles; FDT tag ≈ 1236/fc; Type 2 WRITE
programming time ≈ 4.1 ms) and written both as a link-type-264 pcap (ns resolution) and as a
Proxmark3 binary tracelog, so the two importers can be compared.

Scenarios (the meaning of every frame is listed in Traces/README.md):
  t2t-ntag215-write-ok     iPhone-style connect → queryNDEFStatus → readNDEF → writeNDEF of a
                           URI record https://nfctrace.dev/ok on an NTAG215, all ACKed.
  t2t-ntag215-write-torn   the same write, but the tag leaves the field after the second page:
                           the third WRITE gets no answer, the reader gives up (field off).
  t4t-write-ok             Type 4 tag: select NDEF application, CC, NDEF file, read NLEN and
                           message, then NLEN=0 → UPDATE BINARY data → NLEN (the NFC Forum order).
"""
import struct, sys, os

FC = 13_560_000


def crc_a(data):
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b ^= (b << 4) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return bytes([crc & 0xFF, crc >> 8])


def with_crc(data):
    data = bytes(data)
    return data + crc_a(data)


class Trace:
    """Frames as (ticks, direction, bytes, bits, event)."""

    def __init__(self):
        self.t = 0
        self.frames = []

    def duration(self, data, bits):
        if bits:
            return bits * 128 + 96  # REQA/WUPA: 992 ticks, as real readers (pm3 short-frame rule)
        return len(data) * 9 * 128

    def frame(self, direction, data, bits=None, gap=1236):
        self.t += gap
        self.frames.append((self.t, direction, bytes(data), bits, None))
        self.t += self.duration(data, bits)

    def reader(self, data, bits=None, gap=None):
        self.frame("reader", data, bits, gap if gap is not None else 7000)

    def tag(self, data, bits=None, gap=1236):
        self.frame("tag", data, bits, gap)

    def event(self, ev, gap=0):
        self.t += gap
        self.frames.append((self.t, "event", b"", None, ev))

    def wait_us(self, us):
        self.t += int(us * FC / 1_000_000)

    def write_pcap(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 264))
            base = 1_764_500_000  # fixed epoch second: output is deterministic
            for ticks, d, data, bits, ev in self.frames:
                ns = (ticks * 1_000_000_000 + FC // 2) // FC  # nearest ns, like the pm3 importer
                code = {"reader": 0xFE, "tag": 0xFF}.get(d) or {"field-on": 0xFC, "field-off": 0xFD}[ev]
                payload = struct.pack(">BBH", 0, code, len(data)) + data
                f.write(struct.pack("<IIII", base + ns // 10**9, ns % 10**9, len(payload), len(payload)))
                f.write(payload)

    def write_pm3(self, path):
        with open(path, "wb") as f:
            for ticks, d, data, bits, ev in self.frames:
                if d == "event":
                    continue  # the Proxmark3 tracelog has no field events
                dur = self.duration(data, bits)
                n = len(data)
                length = n | (0x8000 if d == "tag" else 0)
                par = bytearray((n - 1) // 8 + 1 if n else 0)
                for i, b in enumerate(data):
                    if bin(b).count("1") % 2 == 0:  # odd parity bit is 1
                        par[i // 8] |= 0x80 >> (i % 8)
                f.write(struct.pack("<IHH", ticks, dur, length) + data + bytes(par))


UID = bytes.fromhex("04 5a 3c 12 8b 6e 80")


def activate_t2(tr, sak=0x00):
    tr.event("field-on")
    tr.reader([0x52], bits=7, gap=5000)            # WUPA
    tr.tag([0x44, 0x00])                            # ATQA 0x0044, double-size UID
    tr.reader([0x93, 0x20])                         # ANTICOLL CL1
    cl1 = bytes([0x88]) + UID[:3]
    bcc1 = cl1[0] ^ cl1[1] ^ cl1[2] ^ cl1[3]
    tr.tag(cl1 + bytes([bcc1]))
    tr.reader(with_crc(bytes([0x93, 0x70]) + cl1 + bytes([bcc1])))
    tr.tag(with_crc([0x04]))                        # SAK: cascade bit
    cl2 = UID[3:]
    bcc2 = cl2[0] ^ cl2[1] ^ cl2[2] ^ cl2[3]
    tr.reader([0x95, 0x20])
    tr.tag(cl2 + bytes([bcc2]))
    tr.reader(with_crc(bytes([0x95, 0x70]) + cl2 + bytes([bcc2])))
    tr.tag(with_crc([sak]))


NTAG215_VERSION = bytes.fromhex("00 04 04 02 01 00 11 03")


def ntag215_memory(ndef):
    mem = bytearray(135 * 4)
    mem[0:3] = UID[:3]
    mem[3] = 0x88 ^ UID[0] ^ UID[1] ^ UID[2]
    mem[4:8] = UID[3:7]
    mem[8] = UID[3] ^ UID[4] ^ UID[5] ^ UID[6]
    mem[9] = 0x48
    mem[12:16] = bytes.fromhex("e1 10 3e 00")
    tlv = bytes([0x03, len(ndef)]) + ndef + b"\xfe"
    mem[16:16 + len(tlv)] = tlv
    return mem


def read(tr, mem, page):
    tr.reader(with_crc([0x30, page]))
    tr.tag(with_crc(bytes(mem[page * 4: page * 4 + 16])))


def uri_record(uri_rest, code=0x04):
    payload = bytes([code]) + uri_rest.encode()
    return bytes([0xD1, 0x01, len(payload), 0x55]) + payload


def t2t_session(torn):
    tr = Trace()
    old = uri_record("nfctrace.dev/old")
    mem = ntag215_memory(old)
    activate_t2(tr)
    tr.reader(with_crc([0x60]))                     # GET_VERSION
    tr.tag(with_crc(NTAG215_VERSION))
    read(tr, mem, 3)                                # queryNDEFStatus: CC + TLV scan
    read(tr, mem, 4)                                # readNDEF
    read(tr, mem, 8)
    new = uri_record("nfctrace.dev/ok")
    tlv = bytes([0x03, len(new)]) + new + b"\xfe"
    tlv += bytes(-len(tlv) % 4)
    pages = [tlv[i:i + 4] for i in range(0, len(tlv), 4)]
    for i, data in enumerate(pages):
        tr.reader(with_crc(bytes([0xA2, 4 + i]) + data))
        if torn and i == 2:
            tr.wait_us(20_000)
            tr.reader(with_crc(bytes([0xA2, 4 + i]) + data))   # retry, no answer either
            tr.wait_us(20_000)
            tr.event("field-off")
            return tr
        tr.tag([0x0A], bits=4, gap=int(4.1e-3 * FC))  # ACK after the EEPROM write time
    read(tr, bytearray(16) + tlv + bytes(64), 4)
    tr.reader(with_crc([0x50, 0x00]))                # HLTA
    tr.wait_us(5000)
    tr.event("field-off")
    return tr


def iblock(pcb, inf):
    return with_crc(bytes([pcb]) + inf)


def t4t_session():
    tr = Trace()
    activate_t2(tr, sak=0x20)
    tr.reader(with_crc([0xE0, 0x80]))                # RATS, FSDI 8 (256), CID 0
    tr.tag(with_crc(bytes.fromhex("05 78 80 70 02")))  # ATS: FSCI 8, TA, TB FWI 7, TC
    cc = bytes.fromhex("000f 20 003b 0034 04 06 e104 0800 00 00")
    msg = uri_record("nfctrace.dev/t4", code=0x04)
    ndef_file = struct.pack(">H", len(msg)) + msg
    exchanges = [
        ("00a4040007d276000085010100", "9000"),
        ("00a4000c02e103", "9000"),
        ("00b000000f", cc.hex() + "9000"),
        ("00a4000c02e104", "9000"),
        ("00b0000002", ndef_file[:2].hex() + "9000"),
        ("00b00002%02x" % len(msg), msg.hex() + "9000"),
    ]
    new = uri_record("nfctrace.dev/t4-new")
    exchanges += [
        ("00d60000020000", "9000"),
        ("00d60002%02x" % len(new) + new.hex(), "9000"),
        ("00d6000002" + struct.pack(">H", len(new)).hex(), "9000"),
    ]
    block = 0
    for cmd, resp in exchanges:
        tr.reader(iblock(0x02 | block, bytes.fromhex(cmd)))
        tr.tag(iblock(0x02 | block, bytes.fromhex(resp)), gap=9000)
        block ^= 1
    tr.reader(with_crc([0xC2]))                      # S(DESELECT)
    tr.tag(with_crc([0xC2]))
    tr.event("field-off", gap=20000)
    return tr


def main(out):
    traces = {
        "t2t-ntag215-write-ok": t2t_session(torn=False),
        "t2t-ntag215-write-torn": t2t_session(torn=True),
        "t4t-write-ok": t4t_session(),
    }
    for name, tr in traces.items():
        tr.write_pcap(os.path.join(out, name + ".pcap"))
        tr.write_pm3(os.path.join(out, name + ".trace"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))

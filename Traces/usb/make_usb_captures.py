# Builds USB captures of PN53x / ACR122 readers from the libnfc log fixtures in ../libnfc:
# every "TX:" line becomes a bulk OUT transfer, every "RX:" line a bulk IN transfer, as the
# Linux usbmon (link types 189 and 220) or Windows USBPcap (249) capture them. Run
# `python3 make_usb_captures.py` in this folder. See README.md.
import os, re, struct

HERE = os.path.dirname(os.path.abspath(__file__))
LIBNFC = os.path.join(HERE, "..", "libnfc")
BASE = 1_700_000_000  # capture date (2023-11-14), fixed so the files do not change


def traffic(log):
    """(is_tx, bytes) for every TX:/RX: line of a libnfc log."""
    out = []
    for line in open(os.path.join(LIBNFC, log)):
        m = re.search(r"\t(TX|RX): ([0-9a-f ]+)", line)
        if m:
            out.append((m.group(1) == "TX", bytes.fromhex(m.group(2))))
    return out


def pcap_header(linktype):
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)


def record(t_us, payload):
    return struct.pack("<IIII", BASE + t_us // 10**6, t_us % 10**6, len(payload), len(payload)) + payload


def usbmon(urb, kind, ep, dev, bus, t_us, data, length, mmapped, xfer=3, status=0):
    """struct usbmon_packet (48 bytes) + the mmapped tail (16 bytes) when `mmapped`."""
    hdr = struct.pack("<QBBBBHbbqiiII", urb, ord(kind), xfer, ep, dev, bus,
                      ord("-"), 0 if data else ord("<" if ep & 0x80 else ">"),
                      BASE + t_us // 10**6, t_us % 10**6, status, length, len(data))
    hdr += bytes(8)  # setup / iso descriptor
    if mmapped:
        hdr += struct.pack("<iiII", 0, 0, 0, 0)
    return hdr + data


def usbpcap(irp, from_device, ep, dev, bus, data, xfer=3):
    """USBPCAP_BUFFER_PACKET_HEADER (27 bytes) + data."""
    return struct.pack("<HQIHBHHBBI", 27, irp, 0, 0x09, 1 if from_device else 0, bus, dev,
                       ep, xfer, len(data)) + data


def usbmon_capture(log, name, mmapped, bus, dev, out_ep, in_ep, noise):
    """Each OUT: submission with data + completion; each IN: submission + completion with
    data. `noise` adds a USB disk (bulk, device 2) and a keyboard (interrupt, device 3)."""
    f = open(os.path.join(HERE, name), "wb")
    f.write(pcap_header(220 if mmapped else 189))
    t, urb = 0, 0xFFFF_8800_0000_0000
    def put(kind, ep, d, data, length, xfer=3, status=0):
        nonlocal t
        f.write(record(t, usbmon(urb, kind, ep, d, bus, t, data, length, mmapped, xfer, status)))
        t += 150
    if noise:
        put("S", 0x02, 2, bytes.fromhex("5553424310000000000200008000061200000024"), 31)
        put("C", 0x81, 3, bytes.fromhex("0000040000000000"), 8, xfer=1)
    for tx, data in traffic(log):
        urb += 0x100
        if tx:
            put("S", out_ep, dev, data, len(data))
            put("C", out_ep, dev, b"", len(data))
        else:
            put("S", in_ep, dev, b"", 265)
            t += 700  # the tag answers
            put("C", in_ep, dev, data, len(data))
        if noise and urb % 0x400 == 0:
            put("C", 0x81, 3, bytes(8), 8, xfer=1)
    put("E", in_ep, dev, b"", 0, status=-19)  # the reader unplugged (ENODEV)
    f.close()


def usbpcap_capture(exchanges, name, bus, dev, out_ep, in_ep, answer_us=700, gap_us=200,
                    slot_change=False):
    """Each OUT: submission with data + completion; each IN: submission + completion with
    data `answer_us` later. `slot_change`: after an IccPowerOff, the reader's slot-change
    notification (interrupt) and a pause before the next card."""
    f = open(os.path.join(HERE, name), "wb")
    f.write(pcap_header(249))
    t, irp = 0, 0xFFFFA001_00000000
    for tx, data in exchanges:
        irp += 0x10
        if tx:
            f.write(record(t, usbpcap(irp, False, out_ep, dev, bus, data)))
            f.write(record(t + 50, usbpcap(irp, True, out_ep, dev, bus, b"")))
        else:
            f.write(record(t, usbpcap(irp, False, in_ep, dev, bus, b"")))
            t += answer_us
            f.write(record(t, usbpcap(irp, True, in_ep, dev, bus, data)))
        if slot_change and data[:1] == b"\x63":
            f.write(record(t + 100, usbpcap(irp + 1, True, 0x81, dev, bus, b"\x50\x02", xfer=1)))
            t += 300_000
        t += gap_us
    f.close()


def ccid_exchanges():
    """A PC/SC application on a CCID contactless reader (ACR1252U-style): each tap is
    IccPowerOn → ATR, GET DATA UID, then storage-card commands (FF B0 / FF D6, PC/SC 2.01
    part 3) or card APDUs (CLA 00), answered in RDR_to_PC_DataBlock messages."""
    seq = [0]
    def msg(kind, body):
        n = len(body)
        m = bytes([kind, n & 0xFF, n >> 8, 0, 0, 0, seq[0] & 0xFF, 0, 0, 0]) + bytes(body)
        return m
    out = []
    def x(cmd, rsp, kind=0x6F):
        out.append((True, msg(kind, cmd)))
        out.append((False, msg(0x80, rsp)))
        seq[0] += 1
    def power_on(atr):
        tck = 0
        for b in atr[1:]:
            tck ^= b
        x([], atr + [tck], kind=0x62)
    def power_off():
        out.append((True, msg(0x63, [])))
        out.append((False, msg(0x81, [])))
        seq[0] += 1
    storage = [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03]
    # Tap 1: NTAG213 (CC E1 10 12 00), read a URI record, write a new one length-first
    # (4 bytes per UPDATE BINARY), read back with Le 4.
    power_on(storage + [0x00, 0x03, 0, 0, 0, 0])
    x([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x04, 0x3C, 0x71, 0x2A, 0x5B, 0x61, 0x80, 0x90, 0x00])
    old = [0x03, 0x0A, 0xD1, 0x01, 0x06, 0x55, 0x04] + list(b"a.com") + [0xFE, 0, 0, 0]
    x([0xFF, 0xB0, 0x00, 0x03, 0x10], [0xE1, 0x10, 0x12, 0x00] + old[:12] + [0x90, 0x00])
    x([0xFF, 0xB0, 0x00, 0x04, 0x10], old[:16] + [0x90, 0x00])
    new = [0x03, 0x0B, 0xD1, 0x01, 0x07, 0x55, 0x04] + list(b"nxp.io") + [0xFE, 0, 0]
    for i in range(4):
        x([0xFF, 0xD6, 0x00, 0x04 + i, 0x04] + new[4 * i:4 * i + 4], [0x90, 0x00])
    x([0xFF, 0xB0, 0x00, 0x04, 0x04], new[:4] + [0x90, 0x00])
    power_off()
    # Tap 2: a Type 4 tag (ATR of an ISO/IEC 14443-4 card): NDEF read, then an UPDATE
    # BINARY refused with 6982 (write access denied).
    power_on([0x3B, 0x81, 0x80, 0x01, 0x80])
    x([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x04, 0x52, 0x6B, 0x1A, 0x2C, 0x5E, 0x80, 0x90, 0x00])
    ndef = [0xD1, 0x01, 0x06, 0x55, 0x04] + list(b"a.com")
    cc = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0x32, 0x00, 0xFF]
    for c, r in [
        ([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], []),
        ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], []),
        ([0x00, 0xB0, 0x00, 0x00, 0x0F], cc),
        ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], []),
        ([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, len(ndef)]),
        ([0x00, 0xB0, 0x00, 0x02, len(ndef)], ndef),
    ]:
        x(c, r + [0x90, 0x00])
    x([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x69, 0x82])
    power_off()
    # Tap 3: MIFARE Classic 1K: LOAD KEYS, GENERAL AUTHENTICATE block 4 with key A, READ
    # BINARY block 4.
    power_on(storage + [0x00, 0x01, 0, 0, 0, 0])
    x([0xFF, 0xCA, 0x00, 0x00, 0x00], [0x5E, 0x1F, 0x7A, 0x33, 0x90, 0x00])
    x([0xFF, 0x82, 0x00, 0x00, 0x06] + [0xD3, 0xF7] * 3, [0x90, 0x00])
    x([0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x00], [0x90, 0x00])
    x([0xFF, 0xB0, 0x00, 0x04, 0x10], old[:16] + [0x90, 0x00])
    power_off()
    return out


usbpcap_capture(ccid_exchanges(), "acr1252u-pcsc-usbpcap.pcap", bus=2, dev=7, out_ep=0x02,
                in_ep=0x83, answer_us=4000, gap_us=400, slot_change=True)
usbmon_capture("pn533_scl3711_t2t_read_write.log", "pn533-t2t-usbmon-mmapped.pcap",
               mmapped=True, bus=1, dev=5, out_ep=0x04, in_ep=0x84, noise=True)
usbmon_capture("pn533_t4t_ndef_read_write.log", "pn533-t4t-usbmon.pcap",
               mmapped=False, bus=1, dev=5, out_ep=0x04, in_ep=0x84, noise=False)
usbpcap_capture(traffic("acr122u_t2t_read_write.log"), "acr122u-t2t-usbpcap.pcap",
                bus=1, dev=4, out_ep=0x02, in_ep=0x82)

# Builds Android NFC snoop log fixtures (the NFCSNOOP section of `adb shell dumpsys nfc`):
# NCI packets of a phone in reader/writer mode, packed the way libnfc-nci's
# debug_nfcsnoop.cc packs them. Run `python3 make_nfcsnoop.py` in this folder. See README.md.
import base64, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1_700_000_000_000_000  # µs since the epoch of the first packet


class Log:
    def __init__(self, full=True):
        self.records, self.t, self.full = [], T0, full

    def put(self, packet, received, gap_us):
        self.t += gap_us
        self.records.append((self.t, received, bytes(packet)))

    def cmd(self, gid, oid, payload, gap=300):
        self.put([0x20 | gid, oid, len(payload)] + payload, False, gap)

    def rsp(self, gid, oid, payload, gap=200):
        self.put([0x40 | gid, oid, len(payload)] + payload, True, gap)

    def ntf(self, gid, oid, payload, gap=200):
        self.put([0x60 | gid, oid, len(payload)] + payload, True, gap)

    def data(self, payload, received, gap, segment=255):
        chunks = [payload[i:i + segment] for i in range(0, len(payload), segment)] or [[]]
        for k, c in enumerate(chunks):
            pbf = 0x10 if k < len(chunks) - 1 else 0
            packet = [pbf, 0x00, len(c)] + (list(c) if self.full else [])
            self.put(packet, received, gap if k == 0 else 100)
        if not received:
            self.ntf(0, 6, [0x01, 0x00, 0x01], gap=150)  # CORE_CONN_CREDITS_NTF

    def exchange(self, command, answer, status=0x00, gap=600, segment=255):
        self.data(list(command), False, 400)
        if answer is not None:
            self.data(list(answer) + ([status] if status is not None else []), True, gap, segment)

    def binary(self):
        raw = b""
        last = T0
        for t, received, packet in self.records:
            raw += struct.pack("<HIB", len(packet), t - last, 1 if received else 0) + packet
            last = t
        preamble = struct.pack("<BQ", 1, self.records[-1][0])
        return preamble + zlib.compress(raw), len(raw)

    def dumpsys(self, path, before="", after=""):
        binary, raw_len = self.binary()
        b64 = base64.b64encode(binary).decode()
        lines = [b64[i:i + 128] for i in range(0, len(b64), 128)]
        vs = base64.b64encode(struct.pack("<BQ", 1, self.records[-1][0])).decode()
        text = (before
                + "--- BEGIN:NFCSNOOP_LOG_SUMMARY (%d bytes in) ---\n" % raw_len
                + "\n".join(lines) + "\n--- END:NFCSNOOP_LOG_SUMMARY ---\n"
                + "--- BEGIN:NFCSNOOP_VS_LOG_SUMMARY (0 bytes in) ---\n" + vs
                + "\n--- END:NFCSNOOP_VS_LOG_SUMMARY ---\n" + after)
        open(os.path.join(HERE, path), "w").write(text)


def activate_t2t(log, uid):
    log.cmd(1, 3, [0x02, 0x00, 0x01, 0x01, 0x01], gap=50_000)  # RF_DISCOVER_CMD A, B
    log.rsp(1, 3, [0x00])
    tech = [0x44, 0x00, len(uid)] + uid + [0x01, 0x00]
    log.ntf(1, 5, [0x01, 0x01, 0x02, 0x00, 0xFF, 0x01, len(tech)] + tech + [0x00, 0x00, 0x00, 0x00],
            gap=180_000)


def activate_t4t(log, uid, ats_without_tl):
    log.cmd(1, 3, [0x02, 0x00, 0x01, 0x01, 0x01], gap=50_000)
    log.rsp(1, 3, [0x00])
    tech = [0x44, 0x03, len(uid)] + uid + [0x01, 0x20]
    # Activation Parameters Length, then RATS Response Length and the ATS without TL.
    act = [1 + len(ats_without_tl), len(ats_without_tl)] + ats_without_tl
    log.ntf(1, 5, [0x01, 0x02, 0x04, 0x00, 0xFF, 0x01, len(tech)] + tech + [0x00, 0x00, 0x00]
            + act, gap=150_000)


def deactivate(log, reason=0x00):
    log.cmd(1, 6, [0x03])
    log.rsp(1, 6, [0x00])
    log.ntf(1, 6, [0x03, reason])


NTAG_UID = [0x04, 0x9C, 0x5E, 0x1A, 0x2B, 0x61, 0x80]
CC = [0xE1, 0x10, 0x12, 0x00]
OLD = [0x03, 0x0A, 0xD1, 0x01, 0x06, 0x55, 0x04] + list(b"a.com") + [0xFE]
NEW = [0x03, 0x10, 0xD1, 0x01, 0x0C, 0x55, 0x04] + list(b"nxp.com/nfc") + [0xFE]


def pages(mem, page):
    return mem[page * 4:page * 4 + 16] + [0] * max(0, 16 - len(mem[page * 4:page * 4 + 16]))


def ntag_session(log, new_message, cut_after=None):
    """Android: NDEF detection (READ 0, READ 4), readNDEF, then writeNDEF of `new_message`
    page by page, with the TLV length 0 first and the real length last (libnfc-nci order).
    `cut_after`: pages written before the tag leaves (RF timeout)."""
    mem = NTAG_UID[:3] + [0x88 ^ 0x04 ^ 0x9C ^ 0x5E] + NTAG_UID[3:] + [0x00] * 4 + CC + OLD
    mem += [0] * (64 - len(mem))
    mem[8] = NTAG_UID[3] ^ NTAG_UID[4] ^ NTAG_UID[5] ^ NTAG_UID[6]
    activate_t2t(log, NTAG_UID)
    log.exchange([0x30, 0x00], pages(mem, 0))
    log.exchange([0x30, 0x04], pages(mem, 4))
    body = list(new_message)
    body[1] = 0x00  # length 0 first
    writes = [body[i:i + 4] + [0] * (4 - len(body[i:i + 4])) for i in range(0, len(body), 4)]
    for k, w in enumerate(writes):
        if cut_after is not None and k == cut_after:
            log.data([0xA2, 4 + k] + w, False, 400)
            log.ntf(0, 8, [0xB2, 0x00], gap=5_000)  # CORE_INTERFACE_ERROR_NTF: RF timeout
            deactivate(log, reason=0x02)
            return
        log.exchange([0xA2, 4 + k] + w, [0x0A], status=0x14, gap=5_200)
    log.exchange([0xA2, 4, new_message[0], new_message[1]] + new_message[2:4], [0x0A], status=0x14,
                 gap=5_200)
    deactivate(log)


def t4t_session(log):
    uid = [0x04, 0x52, 0x6B, 0x1A, 0x2C, 0x5E, 0x80]
    activate_t4t(log, uid, [0x75, 0x77, 0x81, 0x02, 0x80])
    ndef = [0xD1, 0x01, 0x06, 0x55, 0x04] + list(b"a.com") * 20
    ndef[2] = len(ndef) - 4
    cc = [0x00, 0x0F, 0x20, 0x00, 0xFF, 0x00, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00]
    ok = [0x90, 0x00]
    for c, r in [
        ([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], ok),
        ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], ok),
        ([0x00, 0xB0, 0x00, 0x00, 0x0F], cc + ok),
        ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], ok),
        ([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, len(ndef)] + ok),
    ]:
        log.exchange(c, r, status=None)
    # The 105-byte message in one READ BINARY: the answer arrives in 3 NCI segments (PBF).
    log.exchange([0x00, 0xB0, 0x00, 0x02, len(ndef)], ndef + ok, status=None, segment=40)
    deactivate(log)


log = Log()
ntag_session(log, NEW)
t4t_session(log)
ntag_session(log, NEW, cut_after=2)
log.dumpsys("android-dumpsys-nfc.txt",
            before="mState=on\nmIsZeroClickRequested=true\nmScreenState=ON_UNLOCKED\n",
            after="NfcDispatcher:\nmOverrideIntent=null\n")

short = Log(full=False)
ntag_session(short, NEW)
short.dumpsys("android-dumpsys-nfc-filtered.txt", before="mState=on\n")

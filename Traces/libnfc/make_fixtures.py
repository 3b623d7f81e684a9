# Builds the hand-written libnfc log fixtures (checksums and CCID lengths computed here).
import os
HERE = os.path.dirname(os.path.abspath(__file__))

def h(bs): return " ".join("%02x" % b for b in bs) + " "
def pn(tfi_pd):
    n = len(tfi_pd)
    return [0, 0, 0xFF, n, (-n) & 0xFF] + tfi_pd + [(-sum(tfi_pd)) & 0xFF, 0]
ACK = [0, 0, 0xFF, 0, 0xFF, 0]
def line(cat, msg): return "debug\t%s\t%s" % (cat, msg)

READ3 = [0xE1,0x10,0x12,0x00, 0x01,0x03,0xA0,0x0C, 0x34,0x03,0x19,0xD1, 0x01,0x15,0x55,0x04]
READ7 = list(b"youtu.be/dQw4w9W")
UID = [0x04,0xA8,0xCE,0x6A,0x5D,0x2D,0x80]
TARGET = [0x01, 0x01, 0x00, 0x44, 0x00, 0x07] + UID

# (command name, command PD, response PD)
EXCHANGES = [
  ("GetFirmwareVersion", [0x02], [0x03, 0x33, 0x02, 0x07, 0x07]),
  ("SetParameters", [0x12, 0x14], [0x13]),
  ("RFConfiguration", [0x32, 0x01, 0x00], [0x33]),
  ("RFConfiguration", [0x32, 0x01, 0x01], [0x33]),
  ("InListPassiveTarget", [0x4A, 0x01, 0x00], [0x4B] + TARGET),
  ("InDataExchange", [0x40, 0x01, 0x30, 0x03], [0x41, 0x00] + READ3),
  ("InDataExchange", [0x40, 0x01, 0x30, 0x07], [0x41, 0x00] + READ7),
  ("InDataExchange", [0x40, 0x01, 0xA2, 0x0B, 0x67, 0x58, 0x63, 0x51], [0x41, 0x00]),
  ("InCommunicateThru", [0x42, 0x30, 0x0B], [0x43, 0x01]),
  ("InRelease", [0x52, 0x00], [0x53, 0x00]),
  ("RFConfiguration", [0x32, 0x01, 0x00], [0x33]),
]

def pn533_usb(preamble, exchanges):
    """A pn53x_usb log: each command framed, the chip's ACK, then its framed answer."""
    drv = "libnfc.driver.pn53x_usb"
    out = [line(cat, msg) for cat, msg in preamble]
    for name, cmd, rsp in exchanges:
        out.append(line("libnfc.chip.pn53x", name))
        out.append(line(drv, "TX: " + h(pn([0xD4] + cmd))))
        out.append(line(drv, "RX: " + h(ACK)))
        out.append(line(drv, "RX: " + h(pn([0xD5] + rsp))))
    return out

def pn533():
    drv = "libnfc.driver.pn53x_usb"
    return pn533_usb([("libnfc.general", "log_level is set to 3"),
                      ("libnfc.general", "allow_autoscan is set to true"),
                      ("libnfc.general", "0 device(s) defined by user"),
                      (drv, "device found: Bus 001 Device 005 Name SCM Micro / SCL3711-NFC&RW"),
                      (drv, "1 device(s) found using pn53x_usb driver")], EXCHANGES)

def acr122():
    drv = "libnfc.driver.acr122_usb"
    seq = [0]
    def ccid(kind, body, status=0x00, err=0x00):
        s = seq[0]
        n = len(body)
        hdr = [kind, n & 0xFF, (n >> 8) & 0xFF, 0, 0, 0, s]
        hdr += [0, 0, 0] if kind in (0x6F, 0x62) else [status, err, 0]
        return hdr + body
    out = [line("libnfc.general", "log_level is set to 3"),
           line("libnfc.general", "allow_autoscan is set to true"),
           line(drv, "device found: Bus 002 Device 004 Name ACS ACR122"),
           line(drv, "2 element(s) have been decoded from \"acr122_usb:002:004\"")]
    # PC_to_RDR_IccPowerOn and its ATR (placeholder ATR bytes).
    out.append(line(drv, "TX: " + h([0x62, 0, 0, 0, 0, 0, 0, 0x01, 0, 0])))
    out.append(line(drv, "RX: " + h(ccid(0x80, [0x3B, 0x80, 0x80, 0x01, 0x01]))))
    seq[0] += 1
    out.append(line(drv, "ACR122 PICC Operating Parameters"))
    out.append(line(drv, "TX: " + h(ccid(0x6F, [0xFF, 0x00, 0x51, 0x00, 0x00]))))
    out.append(line(drv, "RX: " + h(ccid(0x80, [0x90, 0x00]))))
    seq[0] += 1
    for name, cmd, rsp in EXCHANGES:
        if name == "GetFirmwareVersion":
            rsp = [0x03, 0x32, 0x01, 0x06, 0x07]  # the ACR122U holds a PN532 v1.6
        out.append(line("libnfc.chip.pn53x", name))
        tama = [0xD4] + cmd
        out.append(line(drv, "TX: " + h(ccid(0x6F, [0xFF, 0, 0, 0, len(tama)] + tama))))
        answer = [0xD5] + rsp + [0x90, 0x00]
        if name == "InListPassiveTarget":
            # Touchatag-style: 61 xx, then GET RESPONSE fetches the answer.
            out.append(line(drv, "RX: " + h(ccid(0x80, [0x61, len(answer) - 2]))))
            seq[0] += 1
            out.append(line(drv, "TX: " + h(ccid(0x6F, [0xFF, 0xC0, 0x00, 0x00, len(answer) - 2]))))
        out.append(line(drv, "RX: " + h(ccid(0x80, answer))))
        seq[0] += 1
    return out

# A Type 4 tag (7-byte UID, SAK 20, ATS listed by the chip): the chip frames the APDUs of
# InDataExchange in ISO-DEP blocks itself, so the log shows APDUs. NDEF read, then a write
# of a new URI record, NLEN first set to 0 and written last (NFC Forum T4T 1.0 §5.4.5).
T4_UID = [0x04, 0x52, 0x6B, 0x1A, 0x2C, 0x5E, 0x80]
T4_ATS = [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]
OLD = [0xD1, 0x01, 0x06, 0x55, 0x04] + list(b"a.com")
NEW = [0xD1, 0x01, 0x0B, 0x55, 0x04] + list(b"nxp.com/ok")
CC = [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x00, 0x32, 0x00, 0x00]
def apdu(a, r): return ("InDataExchange", [0x40, 0x01] + a, [0x41, 0x00] + r)
T4_EXCHANGES = [
  ("RFConfiguration", [0x32, 0x01, 0x01], [0x33]),
  ("InListPassiveTarget", [0x4A, 0x01, 0x00],
   [0x4B, 0x01, 0x01, 0x03, 0x44, 0x20, 0x07] + T4_UID + T4_ATS),
  apdu([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00], [0x90, 0x00]),
  apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], [0x90, 0x00]),
  apdu([0x00, 0xB0, 0x00, 0x00, 0x0F], CC + [0x90, 0x00]),
  apdu([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04], [0x90, 0x00]),
  apdu([0x00, 0xB0, 0x00, 0x00, 0x02], [0x00, len(OLD), 0x90, 0x00]),
  apdu([0x00, 0xB0, 0x00, 0x02, len(OLD)], OLD + [0x90, 0x00]),
  apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00], [0x90, 0x00]),
  apdu([0x00, 0xD6, 0x00, 0x02, len(NEW)] + NEW, [0x90, 0x00]),
  apdu([0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, len(NEW)], [0x90, 0x00]),
  ("InRelease", [0x52, 0x00], [0x53, 0x00]),
  ("RFConfiguration", [0x32, 0x01, 0x00], [0x33]),
]

def pn533_t4():
    drv = "libnfc.driver.pn53x_usb"
    return pn533_usb([("libnfc.general", "log_level is set to 3"),
                      (drv, "device found: Bus 001 Device 005 Name SCM Micro / SCL3711-NFC&RW")],
                     T4_EXCHANGES)

def pn532_spi():
    """A pn532_spi log (libnfc drivers/pn532_spi.c over buses/spi.c): each command written
    after the DATAWRITE byte 01; before each read the status is polled (TX 02, RX 01 ready, 00
    not yet); the ACK read after DATAREAD 03; the answer read in chunks: 4 bytes after 03, then
    each further chunk as one byte read alone and the rest after another 03 (a 03 with nothing
    to read is logged as TX only)."""
    drv = "libnfc.bus.spi"
    out = [line("libnfc.general", "log_level is set to 3"),
           line("libnfc.driver.pn532_spi", "Attempt to open: /dev/spidev0.0 at 5000000 Hz.")]
    def status(ready_after=0):
        for _ in range(ready_after):
            out.append(line(drv, "TX: 02 "))
            out.append(line(drv, "RX: 00 "))
        out.append(line(drv, "TX: 02 "))
        out.append(line(drv, "RX: 01 "))
    def chunk(bs):
        out.append(line(drv, "RX: " + h(bs[:1])))
        out.append(line(drv, "TX: 03 "))
        if len(bs) > 1:
            out.append(line(drv, "RX: " + h(bs[1:])))
    for k, (name, cmd, rsp) in enumerate(EXCHANGES):
        out.append(line("libnfc.chip.pn53x", name))
        out.append(line(drv, "TX: " + h([0x01] + pn([0xD4] + cmd))))
        status()
        out.append(line(drv, "TX: 03 "))
        out.append(line(drv, "RX: " + h(ACK)))
        status(ready_after=2 if name == "InListPassiveTarget" else 0)
        frame = pn([0xD5] + rsp)  # 00 00 FF LEN LCS TFI CC PD... DCS 00
        out.append(line(drv, "TX: 03 "))
        out.append(line(drv, "RX: " + h(frame[:4])))  # long preamble: 00 00 FF LEN
        chunk(frame[4:5])                               # LCS
        chunk(frame[5:7])                               # TFI, CC+1
        if len(rsp) > 1:
            chunk(frame[7:-2])                          # the data
        chunk(frame[-2:])                               # DCS, postamble
    return out

# A Type 3 tag (FeliCa Lite-S, NDEF system 12FC) at 212 kbit/s: InListPassiveTarget BrTy 01
# with the polling request 00 12 FC 01 00 as InitiatorData lists the card (Tg, then its
# SENSF_RES from LEN on: 14 01 IDm PMm 12 FC); InDataExchange carries whole NFC-F frames (LEN
# first, the chip adds CRC-F): NDEF detection (CHECK of block 0, the Attribute Information
# Block), then the 16-byte message read with CHECK of block 1 (NFC Forum T3T 1.0 §7.4).
T3_IDM = [0x01, 0x2E, 0x4C, 0xD8, 0xA3, 0x16, 0x52, 0xBA]
T3_PMM = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
T3_MSG = [0xD1, 0x01, 0x0C, 0x55, 0x04] + list(b"example.com")
def t3_aib(ln):
    b = [0x10, 4, 1, 0, 13, 0, 0, 0, 0, 0, 1, 0, 0, ln]
    return b + [sum(b) >> 8, sum(b) & 0xFF]
def t3_check(block, data):
    cmd = [0x06] + T3_IDM + [0x01, 0x0B, 0x00, 0x01, 0x80, block]
    rsp = [0x07] + T3_IDM + [0x00, 0x00, 0x01] + data
    return ("InDataExchange", [0x40, 0x01, len(cmd) + 1] + cmd, [0x41, 0x00, len(rsp) + 1] + rsp)
T3_EXCHANGES = [
  ("RFConfiguration", [0x32, 0x01, 0x01], [0x33]),
  ("InListPassiveTarget", [0x4A, 0x01, 0x01, 0x00, 0x12, 0xFC, 0x01, 0x00],
   [0x4B, 0x01, 0x01, 0x14, 0x01] + T3_IDM + T3_PMM + [0x12, 0xFC]),
  t3_check(0, t3_aib(len(T3_MSG))),
  t3_check(1, T3_MSG),
  ("InRelease", [0x52, 0x00], [0x53, 0x00]),
  ("RFConfiguration", [0x32, 0x01, 0x00], [0x33]),
]

def pn533_t3():
    drv = "libnfc.driver.pn53x_usb"
    return pn533_usb([("libnfc.general", "log_level is set to 3"),
                      (drv, "device found: Bus 001 Device 005 Name SCM Micro / SCL3711-NFC&RW")],
                     T3_EXCHANGES)

open(HERE + "/pn533_t3t_ndef_read.log", "w").write("\n".join(pn533_t3()) + "\n")
open(HERE + "/pn533_t4t_ndef_read_write.log", "w").write("\n".join(pn533_t4()) + "\n")
open(HERE + "/pn533_scl3711_t2t_read_write.log", "w").write("\n".join(pn533()) + "\n")
open(HERE + "/acr122u_t2t_read_write.log", "w").write("\n".join(acr122()) + "\n")
open(HERE + "/pn532_spi_t2t_read_write.log", "w").write("\n".join(pn532_spi()) + "\n")

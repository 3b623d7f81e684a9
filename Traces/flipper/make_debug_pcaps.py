# Builds pcaps laid out as the Flipper Zero firmware's NFC debug pcap (lib/nfc
# helpers/nfc_debug_pcap.c, "Debug" setting on, file nfc/debug.pcap) writes them, for two
# NTAG215 exchanges. Run `python3 make_debug_pcaps.py` in this folder. See README.md.
#
# What makes these captures unlike a sniffer's:
# - link type 264, pseudo-header version 0, but every record's time is the Flipper's RTC in
#   whole seconds (ts_usec is always 0), so many frames share one time;
# - frames are stored as bits / 8 bytes: the 7-bit REQA/WUPA and the 4-bit ACK are empty;
# - the reader chip strips CRC_A from most frames (events 0xFA/0xFB, "CRC dropped"); the
#   anticollision frames, which carry none, use 0xFE/0xFF;
# - in tag emulation the chip answers REQA, anticollision and SELECT itself: the capture
#   starts at the phone's first command to the activated tag.
import os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = 1_700_000_000  # capture date (2023-11-14), fixed so the files do not change
PCD, PICC, PCD_NO_CRC, PICC_NO_CRC = 0xFE, 0xFF, 0xFA, 0xFB


def record(second, event, data):
    body = bytes([0, event]) + struct.pack(">H", len(data)) + bytes(data)
    return struct.pack("<IIII", BASE + second, 0, len(body), len(body)) + body


def write(name, frames):
    """frames: (second, event, hex) triples."""
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(struct.pack("<IHHIIII", 0xA1B2C3D4, 2, 4, 0, 0, 256, 264))
        for second, event, text in frames:
            f.write(record(second, event, bytes.fromhex(text)))


UID = "04 5a 6b 7c 8d 9e af"
PAGE0 = "04 5a 6b bd 7c 8d 9e af c0 48 00 00 e1 10 3e 00"  # BCC0 = 88^04^5a^6b
# "https://flipperzero.one" as a URI record (prefix 04 = https://), then a terminator.
URI = "03 14 d1 01 10 55 04 66 6c 69 70 70 65 72 7a 65 72 6f 2e 6f 6e 65 fe 00"
NEW = "03 0b d1 01 07 54 02 65 6e 4e 46 43 21 fe 00 00"  # Text "NFC!" (en)


def pages(text, start):
    b = text.split()
    return [(start + i // 4, " ".join(b[i:i + 4])) for i in range(0, len(b), 4)]


def reader_session():
    """The Flipper as reader (NFC app, Read, then Write to an NTAG215 from a saved file):
    activation, GET_VERSION, READ of pages 0–7, then WRITE of the new message, length last."""
    s = 0
    f = [(s, PCD, ""), (s, PICC, "44 00"), (s, PCD, "93 20"), (s, PICC, "88 04 5a 6b bd"),
         (s, PCD_NO_CRC, "93 70 88 04 5a 6b bd"), (s, PICC_NO_CRC, "04"),
         (s, PCD, "95 20"), (s, PICC, "7c 8d 9e af c0"),
         (s, PCD_NO_CRC, "95 70 7c 8d 9e af c0"), (s, PICC_NO_CRC, "00"),
         (s, PCD_NO_CRC, "60"), (s, PICC_NO_CRC, "00 04 04 02 01 00 11 03")]
    s = 1
    f += [(s, PCD_NO_CRC, "30 00"), (s, PICC_NO_CRC, PAGE0),
          (s, PCD_NO_CRC, "30 04"), (s, PICC_NO_CRC, " ".join(URI.split()[:16]))]
    s = 2
    writes = pages(NEW, 4)
    first = writes[0]
    blanked = (first[0], "03 00 " + " ".join(first[1].split()[2:]))
    for page, data in [blanked] + writes[1:] + [first]:
        f += [(s, PCD_NO_CRC, f"a2 {page:02x} {data}"), (s, PICC_NO_CRC, "")]
    f += [(s, PCD_NO_CRC, "50 00")]
    return f


def emulation_session():
    """The Flipper emulating an NTAG215 while a phone writes a Text record to it: no
    activation frames, the phone's GET_VERSION, READ of pages 0 and 4, then its WRITEs."""
    s = 0
    f = [(s, PCD_NO_CRC, "60"), (s, PICC_NO_CRC, "00 04 04 02 01 00 11 03"),
         (s, PCD_NO_CRC, "30 00"), (s, PICC_NO_CRC, PAGE0),
         (s, PCD_NO_CRC, "30 04"), (s, PICC_NO_CRC, " ".join(URI.split()[:16]))]
    s = 1
    writes = pages(NEW, 4)
    for page, data in writes[1:] + [writes[0]]:
        f += [(s, PCD_NO_CRC, f"a2 {page:02x} {data}"), (s, PICC_NO_CRC, "")]
    return f


write("flipper-reader-ntag215.pcap", reader_session())
write("flipper-emulation-ntag215.pcap", emulation_session())

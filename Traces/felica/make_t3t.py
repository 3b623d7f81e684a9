#!/usr/bin/env python3
"""Writes NFC-Laboratory JSON exports of an NFC Forum Type 3 Tag (FeliCa Lite-S, NDEF system
12FC) read and written by a phone, as the NFC-F captures of nfc-laboratory record them
(techType 259 = NFC-F, frameType 258 = reader request, 259 = card response, 212 kbit/s):

- t3t-write-ok.json: poll with system code 12FC, NDEF detection (CHECK of block 0, the
  Attribute Information Block: 13 blocks, read/write, Ln 16), read of the 16-byte message, then
  a write of a 25-byte URI record: block 0 with WriteF ON, blocks 1-2, block 0 with WriteF OFF
  and Ln 25; detection and read again.
- t3t-write-torn.json: the same write with the card taken away after block 1: WriteF stays ON.
- t3t-update-refused.json: a tag whose service 0009 refuses writes (status flags FF A8), after a
  detection that says read/write.

Frames: LEN, command code, parameters, CRC-F (CRC-16 poly 1021h, initial value 0000h, high
byte first; JIS X 6319-4). Run from anywhere: files go beside this script.
"""
import json
import os

IDM = bytes.fromhex("012e4cd8a31652ba")
PMM = bytes.fromhex("00f1000000014300")


def crc_f(data: bytes) -> bytes:
    crc = 0
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return bytes([crc >> 8, crc & 0xFF])


def frame(payload: bytes) -> bytes:
    body = bytes([len(payload) + 1]) + payload
    return body + crc_f(body)


def aib(nmaxb: int, write_on: bool, rw: int, ln: int) -> bytes:
    b = bytes([0x10, 4, 1, nmaxb >> 8, nmaxb & 0xFF, 0, 0, 0, 0, 0x0F if write_on else 0x00, rw,
               ln >> 16, (ln >> 8) & 0xFF, ln & 0xFF])
    s = sum(b)
    return b + bytes([s >> 8, s & 0xFF])


def block_list(blocks):
    return bytes([len(blocks)]) + b"".join(bytes([0x80, n]) for n in blocks)


def check(blocks):
    return frame(bytes([0x06]) + IDM + bytes([1, 0x0B, 0x00]) + block_list(blocks))


def check_res(data: bytes):
    return frame(bytes([0x07]) + IDM + bytes([0, 0, len(data) // 16]) + data)


def update(blocks, data: bytes):
    return frame(bytes([0x08]) + IDM + bytes([1, 0x09, 0x00]) + block_list(blocks) + data)


def update_res(sf1=0, sf2=0):
    return frame(bytes([0x09]) + IDM + bytes([sf1, sf2]))


def pad(b: bytes, blocks: int) -> bytes:
    return b + bytes(16 * blocks - len(b))


OLD = bytes.fromhex("d1010c5504") + b"example.com"  # 16 bytes: URI https://example.com
NEW = bytes.fromhex("d101155504") + b"nfctrace.example/t3t"  # 25 bytes


class Capture:
    def __init__(self):
        self.t = 0.010
        self.frames = []

    def add(self, data: bytes, reader: bool, gap=0.0012):
        duration = len(data) * 8 / 211875
        self.frames.append({
            "dateTime": round(self.t, 7), "frameData": ":".join(f"{b:02X}" for b in data),
            "frameFlags": 0, "framePhase": 259 if reader else 258, "frameRate": 211875,
            "frameType": 258 if reader else 259, "sampleEnd": round((self.t + duration) * 1e7),
            "sampleRate": 10000000, "sampleStart": round(self.t * 1e7), "techType": 259,
            "timeEnd": round(self.t + duration, 7), "timeStart": round(self.t, 7),
        })
        self.t += duration + gap

    def exchange(self, request: bytes, response, pause=0.004):
        self.add(request, True)
        if response is not None:
            self.add(response, False, gap=pause)
        else:
            self.t += pause

    def poll(self):
        self.exchange(frame(bytes([0x00, 0x12, 0xFC, 0x01, 0x00])),
                      frame(bytes([0x01]) + IDM + PMM + bytes([0x12, 0xFC])), pause=0.006)

    def detect_and_read(self, ln: int, message: bytes, blocks: int):
        self.exchange(check([0]), check_res(aib(13, False, 1, ln)))
        self.exchange(check(list(range(1, blocks + 1))), check_res(pad(message, blocks)))

    def save(self, path):
        with open(path, "w") as f:
            json.dump({"frames": self.frames}, f, indent=2)
            f.write("\n")


def write(c: Capture, torn=False):
    c.exchange(update([0], aib(13, True, 1, 16)), update_res())
    data = pad(NEW, 2)
    c.exchange(update([1], data[:16]), update_res())
    if torn:
        c.exchange(update([2], data[16:]), None, pause=0.1)
        c.exchange(frame(bytes([0x00, 0x12, 0xFC, 0x01, 0x00])), None)
        return
    c.exchange(update([2], data[16:]), update_res())
    c.exchange(update([0], aib(13, False, 1, len(NEW))), update_res())


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ok = Capture()
    ok.poll()
    ok.detect_and_read(len(OLD), OLD, 1)
    write(ok)
    ok.t += 0.2
    ok.poll()
    ok.detect_and_read(len(NEW), NEW, 2)
    ok.save(os.path.join(here, "t3t-write-ok.json"))

    torn = Capture()
    torn.poll()
    torn.detect_and_read(len(OLD), OLD, 1)
    write(torn, torn=True)
    torn.save(os.path.join(here, "t3t-write-torn.json"))

    refused = Capture()
    refused.poll()
    refused.detect_and_read(len(OLD), OLD, 1)
    refused.exchange(update([0], aib(13, True, 1, 16)), update_res(0xFF, 0xA8))
    refused.save(os.path.join(here, "t3t-update-refused.json"))


if __name__ == "__main__":
    main()

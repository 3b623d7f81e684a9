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


def usbpcap_capture(log, name, bus, dev, out_ep, in_ep):
    f = open(os.path.join(HERE, name), "wb")
    f.write(pcap_header(249))
    t, irp = 0, 0xFFFFA001_00000000
    for tx, data in traffic(log):
        irp += 0x10
        if tx:
            f.write(record(t, usbpcap(irp, False, out_ep, dev, bus, data)))
            f.write(record(t + 50, usbpcap(irp, True, out_ep, dev, bus, b"")))
        else:
            f.write(record(t, usbpcap(irp, False, in_ep, dev, bus, b"")))
            t += 700
            f.write(record(t, usbpcap(irp, True, in_ep, dev, bus, data)))
        t += 200
    f.close()


usbmon_capture("pn533_scl3711_t2t_read_write.log", "pn533-t2t-usbmon-mmapped.pcap",
               mmapped=True, bus=1, dev=5, out_ep=0x04, in_ep=0x84, noise=True)
usbmon_capture("pn533_t4t_ndef_read_write.log", "pn533-t4t-usbmon.pcap",
               mmapped=False, bus=1, dev=5, out_ep=0x04, in_ep=0x84, noise=False)
usbpcap_capture("acr122u_t2t_read_write.log", "acr122u-t2t-usbpcap.pcap",
                bus=1, dev=4, out_ep=0x02, in_ep=0x82)

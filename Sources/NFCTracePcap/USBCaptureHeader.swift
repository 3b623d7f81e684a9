/// The USB transfer a packet of a USB capture describes: Linux usbmon (link types 189 and
/// 220) or Windows USBPcap (249).
///
/// Layouts (usbmon fields in the capturing host's byte order, which libpcap converts to this
/// machine's; read here as little-endian, the order of the machines this tool runs on):
/// - usbmon, `struct usbmon_packet` (Linux `Documentation/usb/usbmon.rst`, libpcap
///   `pcap/usb.h`): id u64 @0, type @8 (`S` submission, `C` completion, `E` error),
///   transfer type @9 (0 isochronous, 1 interrupt, 2 control, 3 bulk), endpoint @10 (bit 7 =
///   IN), device @11, bus u16 @12, status s32 @28, captured data length u32 @36; data after
///   the 48-byte header (LINKTYPE_USB_LINUX, 189) or the 64-byte one
///   (LINKTYPE_USB_LINUX_MMAPPED, 220).
/// - USBPcap (`USBPCAP_BUFFER_PACKET_HEADER`, desowin.org/usbpcap/captureformat.html): header
///   length u16 @0, status u32 @10, info @16, bus u16 @17, device u16 @19, endpoint @21,
///   transfer type @22 (same numbers), data length u32 @23; data after the header length.
struct USBTransfer {
  /// `bus << 16 | device`: the USB device the transfer is with.
  var deviceKey: Int
  /// Transfer type: 0 isochronous, 1 interrupt, 2 control, 3 bulk.
  var transferType: UInt8
  /// True for an OUT endpoint (host → device).
  var toDevice: Bool
  /// The data the packet carries (empty for most submissions of IN transfers and completions
  /// of OUT transfers).
  var data: UnsafeBufferPointer<UInt8>
  /// Bytes of data the transfer had beyond those captured (usbmon's snapshot limit or the
  /// capture's snap length): the data is incomplete.
  var missing = 0
  /// The completion reports an error (usbmon status ≠ 0 on a `C` event, USBPcap USBD status
  /// ≠ 0): the data, if any, is not what the device sent.
  var failedStatus: Int32?

  /// `bus.device`, as Wireshark writes a USB address.
  var address: String { "\(deviceKey >> 16).\(deviceKey & 0xFFFF)" }

  /// The transfer in `bytes` of `linkType`, nil for an error event, or the reason it cannot
  /// be read.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, linkType: Int) -> Result<
    USBTransfer?, USBHeaderProblem
  > {
    linkType == 249
      ? parseUSBPcap(bytes) : parseUsbmon(bytes, headerSize: linkType == 189 ? 48 : 64)
  }

  private static func parseUsbmon(_ bytes: UnsafeBufferPointer<UInt8>, headerSize: Int)
    -> Result<USBTransfer?, USBHeaderProblem>
  {
    guard bytes.count >= headerSize else {
      return .failure(
        USBHeaderProblem("usbmon header needs \(headerSize) bytes, the packet has \(bytes.count)"))
    }
    guard bytes[8] != 0x45 else { return .success(nil) }  // 'E': error event, no data
    let captured = Int(u32(bytes, 36))
    let urbLength = Int(u32(bytes, 32))
    let end = min(bytes.count, headerSize + captured)
    var transfer = USBTransfer(
      deviceKey: Int(u16(bytes, 12)) << 16 | Int(bytes[11]), transferType: bytes[9],
      toDevice: bytes[10] & 0x80 == 0, data: slice(bytes, headerSize, end))
    // flag_data 0: the packet carries the transfer's data, `urbLength` bytes of it.
    if bytes[15] == 0 { transfer.missing = max(0, urbLength - transfer.data.count) }
    let status = Int32(bitPattern: u32(bytes, 28))
    if bytes[8] == 0x43, status != 0 { transfer.failedStatus = status }
    return .success(transfer)
  }

  private static func parseUSBPcap(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<
    USBTransfer?, USBHeaderProblem
  > {
    guard bytes.count >= 27 else {
      return .failure(
        USBHeaderProblem("USBPcap header needs 27 bytes, the packet has \(bytes.count)"))
    }
    let headerLength = Int(u16(bytes, 0))
    guard headerLength >= 27, headerLength <= bytes.count else {
      return .failure(
        USBHeaderProblem(
          "USBPcap header length \(headerLength) is not between 27 and \(bytes.count)"))
    }
    let length = Int(u32(bytes, 23))
    var transfer = USBTransfer(
      deviceKey: Int(u16(bytes, 17)) << 16 | Int(u16(bytes, 19)), transferType: bytes[22],
      toDevice: bytes[21] & 0x80 == 0,
      data: slice(bytes, headerLength, min(bytes.count, headerLength + length)))
    transfer.missing = max(0, length - transfer.data.count)
    let status = Int32(bitPattern: u32(bytes, 10))
    if status != 0 { transfer.failedStatus = status }
    return .success(transfer)
  }

  private static func slice(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int)
    -> UnsafeBufferPointer<UInt8>
  {
    guard end > start, let base = bytes.baseAddress else {
      return UnsafeBufferPointer(start: nil, count: 0)
    }
    return UnsafeBufferPointer(start: base + start, count: end - start)
  }

  private static func u16(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt16 {
    UInt16(b[i]) | UInt16(b[i + 1]) << 8
  }

  private static func u32(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
    UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
  }
}

/// Why a USB capture packet's header cannot be read.
struct USBHeaderProblem: Error {
  var message: String

  init(_ message: String) { self.message = message }
}

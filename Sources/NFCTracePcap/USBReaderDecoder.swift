import NFCTrace

/// Finds the NFC reader in a USB capture and recovers the frames that went over the air from
/// its bulk transfers (`PN53xHostLink`: PN533 host-link frames; CCID messages of the ACR122
/// and of other PC/SC contactless readers).
///
/// Each USB device is judged by its first bulk data: a device whose traffic is neither PN53x
/// frames nor CCID messages (a keyboard, a disk on the same bus) is ignored, with one warning
/// naming it. Interrupt, control and isochronous transfers carry no reader traffic (CCID's
/// slot-change notifications, enumeration) and are skipped.
struct USBReaderDecoder {
  /// What one packet gave.
  struct Output {
    var frames: [ReaderChipFrame] = []
    var warnings: [String] = []
  }

  private enum Device {
    case reader(PN53xHostLink)
    case other
  }

  private var devices: [Int: Device] = [:]
  private var readers = 0

  /// Frames and warnings for one packet's transfer.
  mutating func decode(_ transfer: USBTransfer) -> Output {
    var out = Output()
    guard transfer.transferType == 3, !transfer.data.isEmpty else { return out }
    let bytes = Array(transfer.data)
    let key = transfer.deviceKey
    if devices[key] == nil { devices[key] = judge(transfer, bytes, &out) }
    guard case .reader(var link) = devices[key] else { return out }
    let result = transfer.toDevice ? link.hostToReader(bytes) : link.readerToHost(bytes)
    devices[key] = .reader(link)
    out.frames = result.frames
    out.warnings += result.warnings
    return out
  }

  private mutating func judge(_ transfer: USBTransfer, _ bytes: [UInt8], _ out: inout Output)
    -> Device
  {
    let recognized =
      transfer.toDevice
      ? PN53xHostLink.recognizes(hostBytes: bytes) : PN53xHostLink.recognizes(readerBytes: bytes)
    guard recognized else {
      out.warnings.append(
        "USB device \(transfer.address): its first bulk data (\(Hex.string(bytes.prefix(8), separator: " "))"
          + "\(bytes.count > 8 ? " …" : "")) is neither PN53x frames nor CCID messages; "
          + "its traffic is ignored")
      return .other
    }
    readers += 1
    if readers == 2 {
      out.warnings.append(
        "a second reader (USB device \(transfer.address)) is in the capture; its frames are "
          + "interleaved with the first reader's")
    }
    return .reader(PN53xHostLink())
  }
}

import NFCTrace

/// Finds the NFC reader in a USB capture and recovers the frames that went over the air from
/// its bulk transfers (`PN53xHostLink`: PN533 host-link frames; CCID messages of the ACR122
/// and of other PC/SC contactless readers).
///
/// Each USB device is judged by its bulk data: one whose first `judgement` bulk transfers are
/// neither PN53x frames (with a valid length checksum) nor CCID messages (a known type and a
/// matching length) — a keyboard, a disk, a network adapter on the same bus — is ignored, with
/// one warning naming it. Interrupt, control and isochronous transfers carry no reader traffic
/// (CCID's slot-change notifications, enumeration) and are skipped.
struct USBReaderDecoder {
  /// What one packet gave.
  struct Output {
    var frames: [ReaderChipFrame] = []
    var warnings: [String] = []
  }

  private enum Device {
    case reader(PN53xHostLink)
    /// Not recognised yet after this many bulk transfers.
    case undecided(Int)
    case other
  }

  /// Bulk transfers a device may send before it is judged not to be a reader: the first ones
  /// may be another driver's probing, or the capture may start in the middle of a message.
  static let judgement = 8

  private var devices: [Int: Device] = [:]
  /// Readers found so far.
  private(set) var readers = 0

  /// Frames and warnings for one packet's transfer.
  mutating func decode(_ transfer: USBTransfer) -> Output {
    var out = Output()
    guard transfer.transferType == 3, !transfer.data.isEmpty else { return out }
    let bytes = Array(transfer.data)
    let key = transfer.deviceKey
    switch devices[key] {
    case nil: devices[key] = judge(transfer, bytes, seen: 0, &out)
    case .undecided(let seen)?: devices[key] = judge(transfer, bytes, seen: seen, &out)
    default: break
    }
    guard case .reader(var link) = devices[key] else { return out }
    if let status = transfer.failedStatus {
      out.warnings.append(
        "USB transfer failed (status \(status)): its data is not what the reader sent; ignored")
      return out
    }
    if transfer.missing > 0 {
      out.warnings.append(
        "USB transfer captured without its last \(transfer.missing) bytes (snap length): the "
          + "frame it carries is incomplete")
    }
    let result = transfer.toDevice ? link.hostToReader(bytes) : link.readerToHost(bytes)
    devices[key] = .reader(link)
    out.frames = result.frames
    out.warnings += result.warnings
    return out
  }

  private mutating func judge(
    _ transfer: USBTransfer, _ bytes: [UInt8], seen: Int, _ out: inout Output
  ) -> Device {
    let recognized =
      transfer.toDevice
      ? PN53xHostLink.recognizes(hostBytes: bytes) : PN53xHostLink.recognizes(readerBytes: bytes)
    guard recognized else {
      if seen == 0 {
        out.warnings.append(
          "USB device \(transfer.address): its first bulk data (\(Hex.string(bytes.prefix(8), separator: " "))"
            + "\(bytes.count > 8 ? " …" : "")) is neither PN53x frames nor CCID messages; its "
            + "traffic is ignored unless one of its next \(Self.judgement - 1) bulk transfers is")
      }
      return seen + 1 < Self.judgement ? .undecided(seen + 1) : .other
    }
    if seen > 0 {
      out.warnings.append(
        "USB device \(transfer.address) is a reader after all: its \(seen) bulk transfer(s) "
          + "before this one were not shown")
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

/// Resolution of a type A or B frame's CRC status (ISO/IEC 14443-3 §6.2.4, §7.2; nfc-facts §1.5).
enum FrameCRC {
  /// The resolved status and, for `.bad`, a `bad-crc` finding.
  ///
  /// - `crc`: what the importer said; only `.unchecked` is decided here, anything else is kept.
  /// - `carriesCRC`: whether the protocol puts a CRC on this frame.
  /// - `encrypted`: Crypto1 is on, so the CRC cannot be checked.
  static func resolve(
    _ frame: Frame, carriesCRC: Bool, encrypted: Bool, typeB: Bool = false,
    crcAValid: Bool? = nil
  ) -> (CRCStatus, Finding?) {
    // A reader chip strips every CRC it receives; on a frame the protocol sends without one
    // (REQA, ATQA, anticollision, ACK/NAK) nothing was stripped: absent, not "not captured".
    if frame.crc == .notCaptured, !carriesCRC { return (.absent, nil) }
    guard frame.crc == .unchecked else { return (frame.crc, nil) }
    if encrypted { return (.encrypted, nil) }
    // A partial last byte or fewer than 3 bytes cannot hold payload + CRC.
    let partial = frame.bits.map { $0 > 0 && $0 < 8 } ?? false
    guard carriesCRC, !partial, frame.data.count >= 3 else {
      // One or two whole bytes where a frame with CRC is expected: the sniffer cut the frame
      // (its CRC at least is missing). Its bytes are still decoded as they are, with a warning.
      // (A byte of 0–Fh is a 4-bit ACK/NAK whose bit count the capture did not keep.)
      let cut = frame.data.count == 2 || (frame.data.count == 1 && frame.data[0] > 0x0F)
      if carriesCRC, !partial, cut {
        let name = typeB ? "CRC_B" : "CRC_A"
        let n = frame.data.count
        return (
          .absent,
          Finding(
            "frame-too-short", .warning,
            "\(n)-byte frame where a payload and \(name) are expected: the capture cut it (no "
              + "CRC to check); decoded as it is", frames: [frame.index], offset: n)
        )
      }
      return (.absent, nil)
    }
    if !typeB, crcAValid == true { return (.ok, nil) }
    let data = frame.data
    let body = data[..<(data.count - 2)]
    let crc = typeB ? CRC.crcB(body) : CRC.crcA(body)
    // Compared in place: this runs for every frame, the arrays only for a mismatch.
    if data[data.count - 2] == UInt8(crc & 0xFF) && data[data.count - 1] == UInt8(crc >> 8) {
      return (.ok, nil)
    }
    return (.bad, mismatch(typeB ? "CRC_B" : "CRC_A", crc: crc, frame: frame))
  }

  /// The `bad-crc` finding of `frame`, whose last two bytes are not `crc` (sent low byte
  /// first, as CRC_A, CRC_B and the ISO/IEC 15693-3 CRC are): expected and received bytes.
  /// Built only for a mismatch.
  static func mismatch(_ name: String, crc: UInt16, frame: Frame) -> Finding {
    let data = frame.data
    let expected = [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    return Finding(
      "bad-crc", .warning,
      "\(name) mismatch: expected \(Hex.string(expected, separator: " ")), "
        + "got \(Hex.string(Array(data.suffix(2)), separator: " "))",
      frames: [frame.index], offset: data.count - 2)
  }

  /// The frame's bytes without the CRC when the status says two CRC bytes are there.
  static func payload(_ frame: Frame, status: CRCStatus) -> [UInt8] {
    switch status {
    case .ok, .bad: return Array(frame.data.dropLast(2))
    case .absent, .notCaptured, .encrypted, .unchecked: return frame.data
    }
  }

  /// `parity-error` for the bytes the source marked, unless Crypto1 hides parity.
  static func parityFindings(_ frame: Frame, encrypted: Bool) -> [Finding] {
    guard !encrypted, let first = frame.parityErrors.first else { return [] }
    let where_ =
      frame.parityErrors.count == 1
      ? "byte \(first)" : "bytes " + frame.parityErrors.map(String.init).joined(separator: ", ")
    return [
      Finding(
        "parity-error", .warning, "Parity error in \(where_) (0-based)",
        frames: [frame.index], offset: first)
    ]
  }
}

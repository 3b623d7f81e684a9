/// An ISO/IEC 15693-3 request as the reader (VCD) sent it, without its CRC: flags, command
/// code, the IC manufacturer code of a custom or proprietary command, the UID when addressed,
/// and the parameters (ISO/IEC 15693-3 §7.3, §9, §10).
///
/// The UID is kept as the standard writes it, most significant byte first (`E0 04 …`: E0h,
/// then the IC manufacturer code, ISO/IEC 7816-6); on the air it is sent least significant
/// byte first.
struct ISO15693Request: Sendable, Equatable {
  /// Request flags byte (§7.3.1, Tables 3–5).
  var flags: UInt8
  /// Command code (§10.1, Table 10).
  var command: UInt8
  /// The IC manufacturer code byte of a custom (A0h–DFh) or proprietary (E0h–FFh) command.
  var manufacturer: UInt8?
  /// The addressed tag's UID (8 bytes, most significant first), when the address flag is set.
  var uid: [UInt8]?
  /// The bytes after the command code, IC manufacturer code and UID.
  var parameters: ArraySlice<UInt8>

  /// Flag b3: the request is an INVENTORY (the meaning of b5–b8 changes, Table 5).
  var isInventory: Bool { flags & 0x04 != 0 }
  /// Flag b4: protocol extension (extended commands use 2-byte block numbers).
  var protocolExtension: Bool { flags & 0x08 != 0 }
  /// Flag b7: the option flag (a READ answer then carries each block's security status;
  /// a WRITE or LOCK answer waits for the reader's EOF).
  var option: Bool { flags & 0x40 != 0 }
  /// Flag b6 outside INVENTORY: addressed mode (the request carries the UID).
  var addressed: Bool { !isInventory && flags & 0x20 != 0 }
  /// Flag b5 outside INVENTORY: select mode (only the tag in the Selected state answers).
  var selectMode: Bool { !isInventory && flags & 0x10 != 0 }

  /// Parses `body` (a request without CRC). Throws `ISO15693Error.tooShort` naming the byte
  /// offset where the flags, command code, IC manufacturer code or UID should have been.
  init(parsing body: ArraySlice<UInt8>) throws(ISO15693Error) {
    var cursor = body.startIndex
    guard body.count >= 2 else {
      throw .tooShort(expected: "flags and command code", offset: body.count)
    }
    flags = body[cursor]
    command = body[cursor + 1]
    cursor += 2
    // Custom commands carry the IC manufacturer code (§10.1); proprietary ones (E0h–FFh)
    // are laid out by their maker.
    if (0xA0...0xDF).contains(command) {
      guard cursor < body.endIndex else {
        throw .tooShort(expected: "the IC manufacturer code", offset: cursor - body.startIndex)
      }
      manufacturer = body[cursor]
      cursor += 1
    }
    // EXTENDED GET SYSTEM INFORMATION puts its parameter request field before the UID
    // (ISO/IEC 15693-3:2019 §10.4.18; ST RFAL `rfalNfcvPollerTransceiveReq` prepends it).
    var leading: ArraySlice<UInt8>?
    if command == 0x3B, cursor < body.endIndex {
      leading = body[cursor..<(cursor + 1)]
      cursor += 1
    }
    if flags & 0x04 == 0 && flags & 0x20 != 0 {
      guard body.endIndex - cursor >= 8 else {
        throw .tooShort(
          expected: "the 8-byte UID (address flag set)", offset: cursor - body.startIndex)
      }
      uid = body[cursor..<(cursor + 8)].reversed()
      cursor += 8
    }
    parameters = leading ?? body[cursor...]
    try checkParameters(offset: cursor - body.startIndex)
  }

  /// Block commands must carry their block number (and count; WRITEs their data):
  /// `ISO15693Command.blockLayout`.
  private func checkParameters(offset: Int) throws(ISO15693Error) {
    guard let layout = ISO15693Command.blockLayout(command) else { return }
    let needed = layout.numbersSize + (layout.data ? 1 : 0)
    guard parameters.count < needed else { return }
    let what =
      switch (layout.counted, layout.data) {
      case (false, false): "the block number"
      case (false, true): "the block number and data"
      case (true, false): "the first block and count"
      case (true, true): "the first block, count and data"
      }
    throw .tooShort(expected: what, offset: offset + parameters.count)
  }

}

/// Why an ISO 15693 frame did not parse; `offset` is the byte offset in the frame.
enum ISO15693Error: Error, Equatable {
  /// The frame ends before a field it must hold.
  case tooShort(expected: String, offset: Int)

  /// The reason shown for the raw frame.
  var reason: String {
    switch self {
    case .tooShort(let expected, let offset):
      return "ISO 15693 frame ends at byte \(offset) where \(expected) should be"
    }
  }
}

/// Core NFC / Android NDEF operations on a Type 4 tag, as `ReaderProfile` documents them
/// (reference/nfc-facts.md §6.3 read procedure, §6.4 write procedure).
extension SimulatedReader {
  static let selectNDEFApplication: [UInt8] =
    [0x00, 0xA4, 0x04, 0x00, 0x07] + Type4NDEFApplication.aid + [0x00]

  /// SW1 SW2 of an R-APDU as a 16-bit value.
  private func statusWord(_ r: [UInt8]) -> UInt16 {
    r.count >= 2 ? UInt16(r[r.count - 2]) << 8 | UInt16(r[r.count - 1]) : 0
  }

  private func selectFile(_ id: [UInt8]) throws -> UInt16 {
    statusWord(try exchangeAPDU([0x00, 0xA4, 0x00, 0x0C, 0x02] + id))
  }

  /// READ BINARY `length` bytes at `offset`; returns (data, SW).
  private func readBinary(_ offset: Int, _ length: Int) throws -> ([UInt8], UInt16) {
    let r = try exchangeAPDU([
      0x00, 0xB0, UInt8(offset >> 8 & 0x7F), UInt8(offset & 0xFF), UInt8(length & 0xFF),
    ])
    return (Array(r.dropLast(2)), statusWord(r))
  }

  /// Steps 1–5 of §6.3, cached per connection.
  func detectType4() throws {
    guard !t4.detected else { return }
    t4 = Type4Knowledge()
    t4.detected = true
    guard statusWord(try exchangeAPDU(Self.selectNDEFApplication)) == 0x9000,
      try selectFile(Type4NDEFApplication.ccFileID) == 0x9000
    else { return }
    let (cc, sw) = try readBinary(0, 0x0F)
    guard sw == 0x9000, cc.count >= 15, cc[7] == 0x04, cc[8] == 0x06 else { return }
    t4.mle = Int(cc[3]) << 8 | Int(cc[4])
    t4.mlc = Int(cc[5]) << 8 | Int(cc[6])
    t4.fileID = [cc[9], cc[10]]
    t4.maxSize = Int(cc[11]) << 8 | Int(cc[12])
    t4.writeAccess = cc[14]
    // Read access FFh or RFU (01h–7Fh) fails detection before the NDEF file is selected;
    // proprietary 80h–FEh goes on and meets the tag's refusal (libnfc-nci
    // rw_t4t_validate_cc_file, as Type4Procedure reads it).
    guard cc[13] == 0x00 || cc[13] >= 0x80 && cc[13] != 0xFF,
      try selectFile(t4.fileID) == 0x9000
    else { return }
    let (nlen, sw2) = try readBinary(0, 2)
    guard sw2 == 0x9000, nlen.count == 2 else { return }
    t4.nlen = Int(nlen[0]) << 8 | Int(nlen[1])
    t4.status = t4.writeAccess == 0x00 ? .readWrite : .readOnly
  }

  var type4Capacity: Int { max(t4.maxSize - 2, 0) }

  func type4ReadNDEF() throws -> String? {
    try detectType4()
    guard t4.status != .notSupported else {
      throw OperationFailure(reason: "no readable NDEF application", error: .tagResponseError)
    }
    let (nlenBytes, sw) = try readBinary(0, 2)
    guard sw == 0x9000, nlenBytes.count == 2 else {
      throw OperationFailure(reason: "READ BINARY NLEN: SW \(hexSW(sw))", error: .tagResponseError)
    }
    t4.nlen = Int(nlenBytes[0]) << 8 | Int(nlenBytes[1])
    guard t4.nlen > 0 else {
      throw OperationFailure(reason: "NLEN is 0", error: .zeroLengthMessage)
    }
    var message: [UInt8] = []
    let chunk = max(min(t4.mle, 255), 1)
    while message.count < t4.nlen {
      let (data, sw) = try readBinary(2 + message.count, min(chunk, t4.nlen - message.count))
      guard sw == 0x9000, !data.isEmpty else {
        throw OperationFailure(reason: "READ BINARY: SW \(hexSW(sw))", error: .tagResponseError)
      }
      message += data
    }
    ndefRead = Array(message.prefix(t4.nlen))
    return "\(t4.nlen)-byte message"
  }

  func type4WriteNDEF(_ message: [UInt8]) throws -> String? {
    try detectType4()
    guard t4.status != .notSupported else {
      // notSupported: no source names writeNDEF's error then (nfc-facts §8.4), none claimed.
      throw OperationFailure(reason: "no NDEF application", error: nil)
    }
    guard t4.status == .readWrite else {
      throw OperationFailure(reason: "write access byte is not 00", error: .tagNotWritable)
    }
    guard message.count <= type4Capacity else {
      throw OperationFailure(
        reason: "message of \(message.count) bytes exceeds capacity \(type4Capacity)",
        error: .tagSizeTooSmall)
    }
    if reactivateBeforeWrite { try reactivate() }
    let nlen: [UInt8] = [UInt8(message.count >> 8 & 0xFF), UInt8(message.count & 0xFF)]
    let room = max(min(t4.mlc, 255), 1)
    if message.count + 2 <= room {
      try update(0, nlen + message)
    } else {
      try update(0, [0x00, 0x00])
      var offset = 0
      while offset < message.count {
        let part = Array(message[offset..<min(offset + room, message.count)])
        try update(2 + offset, part)
        offset += part.count
      }
      try update(0, nlen)
    }
    t4.nlen = message.count
    ndefWritten = message
    return "\(message.count)-byte message"
  }

  /// UPDATE BINARY; any SW but 9000 fails the write with 401.
  private func update(_ offset: Int, _ data: [UInt8]) throws {
    let apdu: [UInt8] =
      [0x00, 0xD6, UInt8(offset >> 8 & 0x7F), UInt8(offset & 0xFF), UInt8(data.count)] + data
    let sw = statusWord(try exchangeAPDU(apdu))
    guard sw == 0x9000 else {
      throw OperationFailure(
        reason: "UPDATE BINARY at offset \(offset): SW \(hexSW(sw))", error: .tagUpdateFailure)
    }
  }

  func hexSW(_ sw: UInt16) -> String {
    Hex.word(sw)
  }
}

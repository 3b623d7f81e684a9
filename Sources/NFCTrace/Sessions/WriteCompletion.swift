import NDEF

/// Whether a writeNDEF whose every command the tag acknowledged still stopped before the end
/// of its write procedure, judged from what the tag holds when the operation ends.
///
/// Core NFC's `writeNDEF(_:completionHandler:)` and Android's `Ndef.writeNdefMessage` write
/// every byte of the new message and its length field: the length set to 0 first and the real
/// length last (NFC Forum T2T 1.0 §2.4 and T4T §5.4 NDEF write procedures; nfc-facts §5.5,
/// §6.4), or, in some stacks and apps, the real length first. Two end states show a writer
/// that stopped (its session invalidated or timed out, the sniffer saw the field go off):
/// - the length is 0 but the operation wrote message bytes after it: the final length write
///   never came (the tag holds an empty message);
/// - the length the operation wrote claims bytes at the message's end that no write of the
///   trace put there, after the operation wrote earlier ones: the data stopped short (the tag
///   holds a torn message).
enum WriteCompletion {
  /// Where the stop shows.
  enum Gap: String {
    /// The length is 0 after message data was written: the final length write is missing.
    case finalLength = "final-length"
    /// The written length claims bytes at the end of the message that were never written.
    case messageData = "message-data"
  }

  /// One NDEF length field and the message it announces, in one memory image.
  struct LengthField {
    /// `NDEF TLV length`, `NLEN` or `ENLEN`.
    var name: String
    /// Image offset of the length field (Type 2 byte address; Type 4 file offset).
    var address: Int
    /// Size of the length field in bytes (Type 2: 1 or 3; Type 4: 2 or 4).
    var size: Int
    /// The length field's image offsets (Type 2: reserved bytes inside it skipped).
    var lengthBytes: [Int] {
      Type2TLVArea.addresses(from: address, count: size, skipping: reserved)
    }
    /// Image offset of the message's first byte.
    var valueStart: Int
    /// The length it holds.
    var claimed: Int
    /// Image offset just past the last byte a message may occupy (the end of the Type 2 data
    /// area, of the Type 4 NDEF file), when the CC gives it. A length claiming more is bogus,
    /// not a message stopped short (other rules speak of it).
    var limit: Int?
    /// Type 2 reserved and lock areas the value runs around (T2T 1.0 §2.3).
    var reserved: [Type2ReservedArea] = []

    /// Image offsets of the message bytes the length claims (at most 64 Ki).
    var claimedAddresses: [Int] {
      Type2TLVArea.addresses(from: valueStart, count: claimed, skipping: reserved)
    }
  }

  /// The Type 2 NDEF TLV's length field in `memory` (its first NDEF Message TLV).
  static func type2(_ memory: TagMemory) -> LengthField? {
    guard let area = memory.type2Area, let tlv = area.ndef, let address = area.ndefLengthAddress
    else { return nil }
    let size = memory.type2End.known(12, 4).flatMap(Type2CapabilityContainer.init).map {
      16 + $0.dataAreaSize
    }
    return LengthField(
      name: "NDEF TLV length", address: address, size: tlv.lengthFieldSize,
      valueStart: area.baseAddress + tlv.valueOffset, claimed: tlv.length, limit: size,
      reserved: area.reservedAreas)
  }

  /// The Type 4 NLEN (ENLEN when `size` is 4) at the start of NDEF file `image`, whose
  /// maximum size the CC gives as `fileSize`.
  static func type4(_ image: ByteImage, size: Int, fileSize: Int?) -> LengthField? {
    guard let claimed = image.knownBigEndian(0, size) else { return nil }
    return LengthField(
      name: size == 4 ? "ENLEN" : "NLEN", address: 0, size: size, valueStart: size,
      claimed: claimed, limit: fileSize)
  }

  /// The gap a writeNDEF spanning `frames` left in `image` around `field`, with the reason
  /// the operation gives; nil when the length was not written by it or the message is whole.
  /// `before`: the image as the session found it (bytes a write left as they were are no
  /// message data).
  static func gap(
    _ field: LengthField, in image: ByteImage, before: ByteImage?, frames: ClosedRange<Int>
  ) -> (gap: Gap, reason: String)? {
    func mine(_ i: Int) -> Bool {
      i < image.count && image.provenance[i] == .written && frames.contains(Int(image.frames[i]))
    }
    guard field.lengthBytes.allSatisfy(mine) else { return nil }
    let lengthFrame = Int(image.frames[field.address])
    if field.claimed == 0 {
      // Zeros and a Terminator TLV (FEh) after a zero length are an erase, not a message;
      // bytes past a Terminator or the data area are no data either, nor bytes the length's
      // own write left as they were (a read-modify-write erase). Other writes of the
      // operation are data even when they rewrote the same bytes (the same message again).
      guard field.valueStart < image.count, image.values[field.valueStart] != 0xFE else {
        return nil
      }
      let end = min(image.count, field.limit ?? image.count)
      let data = (field.valueStart..<max(end, field.valueStart)).contains { i in
        mine(i) && image.values[i] != 0 && image.values[i] != 0xFE
          && (Int(image.frames[i]) != lengthFrame || before?.known(i, 1) != [image.values[i]])
      }
      guard data else { return nil }
      return (
        .finalLength,
        "the \(field.name) was set to 0 and message data written after it, but the final "
          + "\(field.name) never was: the tag holds an empty message"
      )
    }
    // A length past the data area is bogus, not a stop (checked before any byte is walked).
    let runs = Type2TLVArea.runs(
      from: field.valueStart, count: field.claimed, skipping: field.reserved)
    if let limit = field.limit, let end = runs.last?.upperBound, end > limit { return nil }
    let claimed = field.claimedAddresses
    // A writer that wrote message bytes straight through a reserved area inside the claimed
    // span did not stop early: readers skip those bytes, so the message reaches past what was
    // written (`t2t-write-into-reserved-area` explains it), not a torn write.
    // Page writes cover reserved bytes a correct writer skips, with their old values: only a
    // reserved byte this write changed (unknown before: made non-zero) is message data put
    // there, as `Type2ReservedAreaRule` judges it.
    let bounds = field.valueStart..<(claimed.last.map { $0 + 1 } ?? field.valueStart)
    func changed(_ a: Int) -> Bool {
      guard mine(a) else { return false }
      return (before ?? ByteImage()).changed(by: image.values[a], at: a)
    }
    if field.reserved.contains(where: { r in
      r.bytes.contains { bounds.contains($0) && changed($0) }
    }) {
      return nil
    }
    // Claimed bytes this operation wrote with a write other than the length's own.
    guard let lastData = claimed.last(where: { mine($0) && Int(image.frames[$0]) != lengthFrame })
    else { return nil }
    // The length written after the data (the length-last order): the writer had sent all the
    // data it meant to before it, so the length is wrong, not the writer stopped short.
    guard Int(image.frames[lastData]) > lengthFrame else { return nil }
    let never = claimed.filter { i in
      i >= image.count
        || (image.provenance[i] != .written && image.provenance[i] != .unacknowledged)
    }
    guard let first = never.first, first > lastData else { return nil }
    let written = claimed.count - never.count
    return (
      .messageData,
      "the \(field.name) this write set (acknowledged at #\(lengthFrame)) claims \(field.claimed) bytes, but only "
        + "\(written) of them were written before the writer stopped: the tag holds a torn "
        + "message"
    )
  }
}

/// Remembers the decodes of one message kind by the bytes (and state) they were made from.
///
/// Many decodes are pure functions of a few bytes: an ATQA, a SAK at a cascade level, the
/// SELECT of a UID part, `READ page 4`. A reader polls the same tag again and again, so a long
/// capture repeats them thousands of times; building their summary text and fields each time
/// was most of the decoding time of an activation. Only the decode is kept: findings name the
/// frame and are made per frame. The table is emptied when it reaches `limit` entries, so its
/// memory stays bounded whatever the trace.
struct DecodeCache<Key: Hashable>: Sendable where Key: Sendable {
  /// Entries kept at most.
  static var limit: Int { 512 }

  private var table: [Key: LayerDecode] = [:]

  init() {}

  /// The decode for `key`, made by `make` the first time.
  mutating func decode(_ key: Key, _ make: () -> LayerDecode) -> LayerDecode {
    if let hit = table[key] { return hit }
    let made = make()
    if table.count >= Self.limit { table.removeAll(keepingCapacity: true) }
    table[key] = made
    return made
  }
}

extension DecodeCache where Key == ShortBytesKey {
  /// The decode for message kind `kind` and its deciding `bytes`, made by `make` the first
  /// time; made every time when the bytes are too many for a key.
  mutating func decode<C: Collection>(kind: UInt32, bytes: C, _ make: () -> LayerDecode)
    -> LayerDecode
  where C.Element == UInt8 {
    guard let key = ShortBytesKey(kind: kind, bytes) else { return make() }
    return decode(key, make)
  }
}

/// A cache key of a message kind and up to 16 bytes, stored inline (no allocation per lookup).
struct ShortBytesKey: Hashable, Sendable {
  private var kind: UInt32
  private var count: UInt8
  private var low: UInt64 = 0
  private var high: UInt64 = 0

  /// A key for `bytes` of kind `kind`; nil when there are more than 16 bytes.
  init?<C: Collection>(kind: UInt32, _ bytes: C) where C.Element == UInt8 {
    guard bytes.count <= 16 else { return nil }
    self.kind = kind
    count = UInt8(bytes.count)
    for (i, b) in bytes.enumerated() {
      if i < 8 {
        low |= UInt64(b) << (8 * UInt64(i))
      } else {
        high |= UInt64(b) << (8 * UInt64(i - 8))
      }
    }
  }
}

/// A decoded Smart Poster (NFC Forum Smart Poster RTD 1.0 §3): a nested message with exactly
/// one URI record, optional Text titles (one per language), action, size, type and icon.
public struct NDEFSmartPoster: Sendable, Equatable {
  /// The nested records, decoded.
  public let records: [NDEFDecodedRecord]

  /// Wraps decoded nested records.
  public init(records: [NDEFDecodedRecord]) { self.records = records }

  /// The URI of the (first) URI record.
  public var uri: String? {
    for r in records { if case .uri(let u) = r.payload { return u.uri } }
    return nil
  }
  /// Titles: the Text records.
  public var titles: [NDEFText] {
    records.compactMap { if case .text(let t) = $0.payload { return t } else { return nil } }
  }
  /// Action (`act`): 0 do the action, 1 save for later, 2 open for editing.
  public var action: UInt8? {
    for r in records { if case .action(let a) = r.payload { return a } }
    return nil
  }
  /// Size (`s`) of the referenced object in bytes.
  public var size: UInt32? {
    for r in records { if case .size(let s) = r.payload { return s } }
    return nil
  }
  /// Type (`t`) of the referenced object.
  public var type: String? {
    for r in records { if case .posterType(let t) = r.payload { return t } }
    return nil
  }
  /// Icons: media records of type image/* or video/* (type, byte count).
  public var icons: [(type: String, bytes: Int)] {
    records.compactMap { r in
      guard r.record.tnf == .media, let t = r.record.typeText?.lowercased(),
        t.hasPrefix("image/") || t.hasPrefix("video/")
      else { return nil }
      return (t, r.record.payload.count)
    }
  }

  /// Name of an action value (Smart Poster RTD 1.0 §3.2.3).
  public static func actionName(_ a: UInt8) -> String {
    switch a {
    case 0: return "do the action"
    case 1: return "save for later"
    case 2: return "open for editing"
    default: return "RFU"
    }
  }

  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext) -> NDEFSmartPoster? {
    guard
      let records = NDEFPayloadDecoder.nested(p, offset: offset, owner: "Smart Poster", ctx: &ctx)
    else { return nil }
    let poster = NDEFSmartPoster(records: records)
    let uriCount = records.filter { $0.record.tnf == .wellKnown && $0.record.type == [0x55] }.count
    if uriCount == 0 {
      ctx.add(
        "sp-uri-missing", .error, offset,
        "Smart Poster has no URI record; it must hold "
          + "exactly one (NFC Forum Smart Poster RTD 1.0 §3.2.1)",
        readers: "Android and iOS "
          + "ignore the poster (no URL to open)",
        fix: "put NFCNDEFPayload.wellKnownTypeURIPayload(url:) inside the Smart Poster message")
    } else if uriCount > 1 {
      ctx.add(
        "sp-uri-multiple", .error, offset,
        "Smart Poster has \(uriCount) URI records; it "
          + "must hold exactly one (NFC Forum Smart Poster RTD 1.0 §3.2.1)",
        readers: "readers use the first URI record")
    }
    var seen = Set<String>()
    for t in poster.titles where !seen.insert(t.language.lowercased()).inserted {
      ctx.add(
        "sp-title-language-repeated", .warning, offset,
        "two Smart Poster titles use "
          + "language \"\(t.language)\"; one title per language (NFC Forum Smart Poster RTD 1.0 "
          + "§3.2.2)")
    }
    return poster
  }
}

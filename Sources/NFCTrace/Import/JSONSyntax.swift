import Foundation

/// Where a JSON text's syntax breaks, for error messages that name a line and a byte offset:
/// JSONDecoder only says "not valid JSON", JSONSerialization gives the character offset
/// ("… around character N."), which is turned into a line. An unexpected end comes without
/// an offset: the place is then the end of the text, on the line holding its last byte (not
/// the empty one after a final newline).
enum JSONSyntax {
  /// The place of `error`, which JSONSerialization threw for `json`: the 1-based line and
  /// the byte offset in `json` (nil when the parser gave none), and the parser's words
  /// (`the file ends before the JSON does` for a text cut off; empty when it gave none).
  static func locate(_ error: NSError, _ json: Data)
    -> (place: (line: Int, offset: Int)?, what: String)
  {
    let detail = error.userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
    if detail.lowercased().contains("end of file") {
      let line = json.dropLast().reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
      return ((line, json.count), "the file ends before the JSON does")
    }
    guard let r = detail.range(of: "around character "),
      let offset = Int(detail[r.upperBound...].prefix { $0.isNumber }), offset <= json.count
    else { return (nil, detail) }
    let line = json.prefix(offset).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    let what = detail[..<r.lowerBound].trimmingCharacters(in: .whitespaces)
    return ((line, offset), what.lowercased())
  }
}

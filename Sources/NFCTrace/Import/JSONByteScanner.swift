import Foundation

/// A structural walker over JSON bytes: finds where values start and end without decoding
/// them, so that an importer can hand one array element at a time to `JSONSerialization` and
/// still name the byte offset of each element (RFC 8259 §2–§7 grammar, tokens only).
///
/// It never allocates per byte and never traps: every index is checked against `bytes.count`.
struct JSONByteScanner {
  /// The input bytes.
  let bytes: [UInt8]

  /// What stopped a scan.
  enum Failure: Error {
    /// The input ended inside a value.
    case endOfInput
    /// A byte that cannot start or continue a value here, at the given offset.
    case unexpected(Int)
  }

  /// The index of the first non-whitespace byte at or after `index` (may be `bytes.count`).
  func skipSpace(from index: Int) -> Int {
    var i = index
    while i < bytes.count {
      switch bytes[i] {
      case 0x20, 0x09, 0x0A, 0x0D: i += 1
      default: return i
      }
    }
    return i
  }

  /// The index just after the string that starts (with `"`) at `index`.
  func endOfString(at index: Int) throws(Failure) -> Int {
    var i = index + 1
    while i < bytes.count {
      switch bytes[i] {
      case 0x5C: i += 2  // backslash escapes the next byte
      case 0x22: return i + 1
      default: i += 1
      }
    }
    throw .endOfInput
  }

  /// The index just after the value (object, array, string or scalar) that starts at `index`.
  func endOfValue(at index: Int) throws(Failure) -> Int {
    guard index < bytes.count else { throw .endOfInput }
    switch bytes[index] {
    case 0x22: return try endOfString(at: index)
    case 0x7B, 0x5B: return try endOfContainer(at: index)
    case 0x7D, 0x5D, 0x2C, 0x3A: throw .unexpected(index)
    default:
      // A number, true, false or null: runs until a delimiter.
      var i = index
      while i < bytes.count {
        switch bytes[i] {
        case 0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D: return i
        default: i += 1
        }
      }
      return i
    }
  }

  /// The index just after the object or array opened at `index`, matching nested brackets.
  private func endOfContainer(at index: Int) throws(Failure) -> Int {
    var depth = 0
    var i = index
    while i < bytes.count {
      switch bytes[i] {
      case 0x22:
        i = try endOfString(at: i)
        continue
      case 0x7B, 0x5B: depth += 1
      case 0x7D, 0x5D:
        depth -= 1
        if depth == 0 { return i + 1 }
      default: break
      }
      i += 1
    }
    throw .endOfInput
  }

  /// Walks the members of the object that opens (with `{`) at `index`, calling `body` with
  /// each key's token (quotes included), the key's text and the offset of its value; returns
  /// what `body` returned, in file order.
  func members<T>(of index: Int, _ body: (Range<Int>, String, Int) throws -> T) throws -> [T] {
    guard index < bytes.count, bytes[index] == 0x7B else { throw Failure.unexpected(index) }
    var out: [T] = []
    var i = skipSpace(from: index + 1)
    while i < bytes.count, bytes[i] != 0x7D {
      guard bytes[i] == 0x22 else { throw Failure.unexpected(i) }
      let keyEnd = try endOfString(at: i)
      let colon = skipSpace(from: keyEnd)
      guard colon < bytes.count, bytes[colon] == 0x3A else { throw Failure.unexpected(colon) }
      let value = skipSpace(from: colon + 1)
      out.append(try body(i..<keyEnd, text(of: i..<keyEnd), value))
      i = skipSpace(from: try endOfValue(at: value))
      if i < bytes.count, bytes[i] == 0x2C { i = skipSpace(from: i + 1) }
    }
    guard i < bytes.count else { throw Failure.endOfInput }
    return out
  }

  /// The text of the string token `range` (quotes included), its escapes decoded.
  func text(of range: Range<Int>) -> String {
    let inner = bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]
    guard inner.contains(0x5C) else { return String(decoding: inner, as: UTF8.self) }
    let decoded = try? JSONSerialization.jsonObject(
      with: Data(bytes[range]), options: .fragmentsAllowed)
    return decoded as? String ?? String(decoding: inner, as: UTF8.self)
  }

  /// True when the string token at `start..<end` (quotes included) equals `key`.
  func string(from start: Int, to end: Int, equals key: [UInt8]) -> Bool {
    guard end - start == key.count + 2 else { return false }
    for (n, b) in key.enumerated() where bytes[start + 1 + n] != b { return false }
    return true
  }
}

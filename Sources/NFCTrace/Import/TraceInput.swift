import Foundation
import NDEF

/// The bytes of one input (a file, or standard input when the path is `-`).
///
/// Files are memory-mapped so that importers can walk them without copying; standard input
/// is read whole. UTF-16 text with a BOM is converted to UTF-8 (`UTF16Text`): a UTF-16 file
/// is read again in pieces for that, its mapping left untouched, so that only the UTF-8 text
/// is held, not the UTF-16 bytes beside it.
public struct TraceInput: Sendable {
  /// The path as the user gave it (`-` for standard input).
  public let path: String
  /// The input's bytes (UTF-8 when the file was UTF-16 text: see `transcodedFrom`).
  public let bytes: Data
  /// `UTF-16LE`/`UTF-16BE` when the file was UTF-16 text with a BOM (Windows PowerShell's
  /// `>`), converted to UTF-8 in `bytes`: byte offsets in messages then count the UTF-8 text.
  public private(set) var transcodedFrom: String?
  /// True when that conversion replaced lone surrogates or an odd last byte with U+FFFD.
  public private(set) var transcodingRepaired = false

  /// Opens `path` (`-` reads standard input).
  /// - Throws: `TraceError.unreadable` for a missing file, a directory or a read error.
  public init(path: String) throws {
    let (raw, mapped) = try Self.read(path)
    self.path = path
    guard let little = UTF16Text.isLittleEndian(head: raw.prefix(UTF16Text.headLength)) else {
      bytes = raw
      return
    }
    let text = try Self.utf8(path, raw, littleEndian: little, mapped: mapped)
    bytes = text.bytes
    transcodedFrom = text.encoding
    transcodingRepaired = text.repaired
  }

  /// The UTF-16 input converted: a mapped file read again in pieces (`UTF16Text`), a stream
  /// from the bytes read.
  private static func utf8(_ path: String, _ raw: Data, littleEndian: Bool, mapped: Bool)
    throws -> UTF16Text.Converted
  {
    guard mapped else { return UTF16Text.utf8(from: raw, littleEndian: littleEndian) }
    do {
      return try UTF16Text.utf8(reading: path, littleEndian: littleEndian, size: raw.count)
    } catch {
      throw TraceError(
        .unreadable, at: .wholeFile(path), "cannot read: \(ReadErrorText.describe(error))")
    }
  }

  /// The most bytes read from a stream (standard input, a pipe, a device: 1 GiB), which is
  /// held in memory; a regular file is mapped and has no limit. An endless stream
  /// (`/dev/zero`, `yes |`) ends the run with an input error instead of exhausting memory.
  public static let streamLimit = 1 << 30

  /// The system's reason for a failed read; for a stream past `streamLimit`, what to do.
  private static func reason(_ error: any Error) -> String {
    let text = ReadErrorText.describe(error)
    return error is BoundedRead.TooLarge
      ? text + " (a stream is held in memory: save it to a file, which is read without a limit)"
      : text
  }

  /// The bytes of `path`, and whether they are a mapped regular file.
  private static func read(_ path: String) throws -> (Data, mapped: Bool) {
    let here = SourceLocation.wholeFile(path)
    if path == "-" {
      // Standard input may be a directory or closed (`< /tmp`, `<&-`): an input error.
      do {
        return (try BoundedRead.readToEnd(FileHandle.standardInput, limit: streamLimit), false)
      } catch {
        throw TraceError(
          .unreadable, at: here, "cannot read standard input: \(reason(error))")
      }
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw TraceError(.unreadable, at: here, "no such file")
    }
    if isDirectory.boolValue {
      throw TraceError(.unreadable, at: here, "is a directory, expected a trace file")
    }
    // A pipe (`<(…)`, a FIFO, /dev/stdin) cannot be mapped: it is read as a stream, opened
    // once (a failed mapping attempt may already have drained it, and a second open of a FIFO
    // whose writer is gone waits for ever).
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let type = (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type]
    if type as? FileAttributeType != .typeRegular {
      guard let handle = FileHandle(forReadingAtPath: path) else {
        throw TraceError(.unreadable, at: here, "cannot read: permission denied or not readable")
      }
      do {
        return (try BoundedRead.readToEnd(handle, limit: streamLimit), false)
      } catch {
        throw TraceError(.unreadable, at: here, "cannot read: \(reason(error))")
      }
    }
    do {
      MappedFileFault.reading(path)
      return (try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped), true)
    } catch {
      throw TraceError(.unreadable, at: here, "cannot read: \(ReadErrorText.describe(error))")
    }
  }

  /// Wraps bytes already in memory; `path` is used in messages.
  public init(path: String, bytes: Data) {
    self.path = path
    self.bytes = bytes
  }

  /// The first `count` bytes, for format detection.
  public func head(_ count: Int = 4096) -> [UInt8] { [UInt8](bytes.prefix(count)) }

  /// A location in this input.
  public func location(unit: String, record: Int, offset: Int) -> SourceLocation {
    SourceLocation(file: path, unit: unit, record: record, offset: offset)
  }
}

import CZlib

/// zlib decompression (RFC 1950 stream) through the system's zlib, with a bound on the output.
enum Inflate {
  /// Why a stream could not be decompressed: zlib's message, how many input bytes were
  /// consumed before the failure, and what was decompressed before it.
  struct Failure: Error {
    var message: String
    var consumed: Int
    var partial: [UInt8] = []
  }

  /// The decompressed bytes of the zlib stream at the start of `input`, at most `limit` bytes,
  /// and how many input bytes the stream took (bytes after it are not part of it).
  /// - Throws: `Failure` when the stream is damaged, cut short or inflates past `limit`.
  static func zlib(_ input: [UInt8], limit: Int) throws(Failure) -> (
    bytes: [UInt8], consumed: Int
  ) {
    var stream = z_stream()
    guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw Failure(message: "zlib could not be initialised", consumed: 0)
    }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var input = input
    let total = input.count
    var status: Int32 = Z_OK
    input.withUnsafeMutableBufferPointer { inBuffer in
      stream.next_in = inBuffer.baseAddress
      stream.avail_in = UInt32(inBuffer.count)
      while status == Z_OK, output.count <= limit {
        chunk.withUnsafeMutableBufferPointer { out in
          stream.next_out = out.baseAddress
          stream.avail_out = UInt32(out.count)
          status = inflate(&stream, Z_NO_FLUSH)
          output += out.prefix(out.count - Int(stream.avail_out))
        }
        if status == Z_OK, stream.avail_in == 0, stream.avail_out != 0 { status = Z_BUF_ERROR }
      }
    }
    let consumed = total - Int(stream.avail_in)
    if output.count > limit {
      throw Failure(
        message: "decompresses to more than \(limit) bytes", consumed: consumed,
        partial: Array(output.prefix(limit)))
    }
    guard status == Z_STREAM_END else {
      let reason =
        status == Z_BUF_ERROR
        ? "the compressed stream is cut short"
        : stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
      throw Failure(message: reason, consumed: consumed, partial: output)
    }
    return (output, consumed)
  }
}

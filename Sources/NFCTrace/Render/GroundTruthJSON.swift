/// The simulator's ground truth as JSON (`nfctrace simulate --truth FILE`; docs/json.md).
public enum GroundTruthJSON {
  /// `{"tag","reader","uid","ndef_status","capacity","expected_error","ndef_read",
  /// "ndef_written","final_memory","sessions":[{"index","uid","first_frame","last_frame",
  /// "operations":[{"kind","outcome","reason","first_frame","last_frame","error"}]}]}`.
  public static func render(_ t: GroundTruth) -> String {
    let out = OutputBuffer(fd: nil)
    out.write("{\"tag\":\"\(t.tagType.rawValue)\",\"reader\":\"\(t.reader.rawValue)\",\"uid\":")
    JSON.value(.hex(t.uid), to: out)
    out.write(",\"ndef_status\":\"\(t.ndefStatus.rawValue)\",\"capacity\":\(t.capacity)")
    out.write(",\"expected_error\":")
    JSON.coreNFCError(t.expectedError, to: out)
    out.write(",\"ndef_read\":")
    optionalHex(t.ndefRead, to: out)
    out.write(",\"ndef_written\":")
    optionalHex(t.ndefWritten, to: out)
    out.write(",\"final_memory\":")
    JSON.value(.hex(t.finalMemory), to: out)
    out.write(",\"sessions\":[")
    JSON.elements(t.sessions, to: out) { s in
      out.write("\n{\"index\":\(s.index),\"uid\":")
      JSON.value(.hex(s.uid), to: out)
      out.write(",\"first_frame\":\(s.firstFrame),\"last_frame\":\(s.lastFrame),\"operations\":[")
      JSON.elements(s.operations, to: out) { op in
        out.write("{\"kind\":")
        JSON.string(op.kind, to: out)
        out.write(",\"outcome\":\"\(op.outcome.rawValue)\",\"reason\":")
        JSON.optionalString(op.reason, to: out)
        out.write(",\"first_frame\":")
        JSON.int(op.firstFrame, to: out)
        out.write(",\"last_frame\":")
        JSON.int(op.lastFrame, to: out)
        out.write(",\"error\":")
        JSON.coreNFCError(op.error, to: out)
        out.write("}")
      }
      out.write("]}")
    }
    out.write("\n]}\n")
    return out.text
  }

  private static func optionalHex(_ b: [UInt8]?, to out: OutputBuffer) {
    if let b { JSON.value(.hex(b), to: out) } else { out.write("null") }
  }
}

import NDEF

/// What the NDEF length field on the tag claims after a write operation, and where each byte
/// of the claimed message came from: written and acknowledged in this operation, written
/// without acknowledgement, older (read before, or written earlier), or never seen.
///
/// Type 2: the first NDEF Message TLV of the data area (NFC Forum T2T 1.0 §2.3, nfc-facts
/// §5.1); Type 4: NLEN/ENLEN at the start of the NDEF file (NFC Forum T4T, nfc-facts §6.2).
struct NDEFWriteState {
  /// What the claimed message is made of.
  enum Shape: Equatable {
    /// Every claimed byte was written and acknowledged by this operation.
    case complete
    /// The length says 0: the tag holds an empty NDEF message.
    case empty
    /// The length was not touched and every claimed byte is older: the old message stands.
    case oldIntact
    /// A mix: the message on the tag is corrupt.
    case torn
  }

  /// `NDEF TLV length` or `NLEN`.
  var lengthName: String
  /// Address (Type 2 byte address; Type 4 file offset) of the length field.
  var lengthAddress: Int
  /// The claimed message length.
  var claimed: Int
  /// First byte of the claimed message.
  var valueStart: Int
  /// True when this operation wrote the length field.
  var lengthWrittenHere: Bool
  /// Frame that set the length field.
  var lengthFrame: Int?
  /// Claimed bytes written and acknowledged in this operation.
  var written: [Int] = []
  /// Claimed bytes written without acknowledgement.
  var unacknowledged: [Int] = []
  /// Claimed bytes with an older value.
  var older: [Int] = []
  /// Claimed bytes never read nor written.
  var unknown: [Int] = []
  /// The message bytes if every claimed byte is known (unacknowledged ones as sent).
  var bytes: [UInt8]?

  var shape: Shape {
    if claimed == 0 { return .empty }
    if written.count == claimed { return .complete }
    if !lengthWrittenHere && older.count == claimed { return .oldIntact }
    return .torn
  }

  /// The state after operation `op` of session `s`, or nil when the length field is unknown.
  static func after(_ op: Operation, in s: SessionAnalysis) -> NDEFWriteState? {
    if s.tag.isISODEP || s.type4CC != nil { return type4(op, s) }
    return type2(op, s)
  }

  private static func type2(_ op: Operation, _ s: SessionAnalysis) -> NDEFWriteState? {
    let image = s.memory.type2End
    let run = image.knownRun(from: 16)
    guard !run.isEmpty, let tlv = Type2TLVArea(parsing: run, baseAddress: 16).ndef else {
      return nil
    }
    let lengthAddress = 16 + tlv.offset + 1
    let valueStart = 16 + tlv.valueOffset
    var st = NDEFWriteState(
      lengthName: "NDEF TLV length", lengthAddress: lengthAddress, claimed: tlv.length,
      valueStart: valueStart,
      lengthWrittenHere: inOp(image, lengthAddress, op) != nil,
      lengthFrame: image.frame(lengthAddress))
    st.classify(image, op)
    return st
  }

  private static func type4(_ op: Operation, _ s: SessionAnalysis) -> NDEFWriteState? {
    let id = s.type4NDEFFile ?? 0xE104
    guard let file = s.memory.filesEnd[id] else { return nil }
    let size = s.type4CC?.ndefFile.lengthFieldSize ?? 2
    guard let prefix = file.known(0, size) else { return nil }
    let nlen = prefix.reduce(0) { $0 << 8 | Int($1) }
    var st = NDEFWriteState(
      lengthName: size == 4 ? "ENLEN" : "NLEN", lengthAddress: 0, claimed: nlen,
      valueStart: size, lengthWrittenHere: inOp(file, 0, op) != nil, lengthFrame: file.frame(0))
    st.classify(file, op)
    return st
  }

  /// The byte's provenance when this operation set it.
  private static func inOp(_ image: ByteImage, _ i: Int, _ op: Operation) -> ByteProvenance? {
    let state = image.state(i)
    guard state == .written || state == .unacknowledged, let f = image.frame(i),
      f >= op.firstFrame && f <= op.lastFrame
    else { return nil }
    return state
  }

  private mutating func classify(_ image: ByteImage, _ op: Operation) {
    // Cap the walk: a damaged length cannot make us allocate beyond the image.
    let end = valueStart + min(claimed, ByteImage.limit)
    var all: [UInt8] = []
    var complete = true
    for i in valueStart..<end {
      switch (Self.inOp(image, i, op), image.state(i)) {
      case (.written?, _): written.append(i)
      case (.unacknowledged?, _): unacknowledged.append(i)
      case (_, .unknown): unknown.append(i); complete = false
      default: older.append(i)
      }
      if i < image.count { all.append(image.values[i]) }
    }
    bytes = complete && all.count == claimed ? all : nil
  }

  /// One sentence on what the claimed message is made of.
  var composition: String {
    var parts: [String] = []
    if !written.isEmpty { parts.append("\(written.count) written and acknowledged now") }
    if !unacknowledged.isEmpty {
      parts.append("\(unacknowledged.count) written without acknowledgement (value uncertain)")
    }
    if !older.isEmpty { parts.append("\(older.count) left from before this write") }
    if !unknown.isEmpty { parts.append("\(unknown.count) never read nor written in the trace") }
    return parts.joined(separator: ", ")
  }
}

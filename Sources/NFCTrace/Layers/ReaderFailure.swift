/// The decode of a tag frame flagged `ReaderChipFlag.readerFailure`: the reader reported that
/// the command failed (PC/SC 63 00, PN53x MIFARE authentication error) without saying whether
/// the tag refused it, did not answer or the key was wrong. Layers decode it as a `NAK` without
/// `nak_code`, so that the command counts as refused, not unanswered.
enum ReaderFailure {
  /// The decode in `protocolID`'s layer, naming the `command` it answers.
  static func decode(_ protocolID: ProtocolID, command: String?) -> LayerDecode {
    let meaning =
      "reported by the reader: a NAK, no answer or a wrong key; the reader does not say which"
    var fields = [LayerField("ack", .bool(false)), LayerField("meaning", .string(meaning))]
    if let command { fields.insert(LayerField("command", .string(command)), at: 0) }
    return LayerDecode(protocolID, "NAK", "failed (\(meaning))", fields)
  }

  /// The decode of an answer the reader received damaged (`ReaderChipFlag.damagedAnswer`),
  /// naming the `command` it answers: the tag answered; the reader gives its bytes as received
  /// (`hasBytes`, not to be trusted) or none.
  static func damaged(_ protocolID: ProtocolID, command: String?, hasBytes: Bool = false)
    -> LayerDecode
  {
    let meaning =
      hasBytes
      ? "the reader received the tag's answer damaged: its bytes as received, not to be trusted"
      : "the reader received the tag's answer damaged and does not give its bytes"
    var fields = [LayerField("meaning", .string(meaning))]
    if let command { fields.insert(LayerField("command", .string(command)), at: 0) }
    let what = command.map { "answer to \($0)" } ?? "answer"
    return LayerDecode(protocolID, "damaged answer", "\(what) damaged (\(meaning))", fields)
  }
}

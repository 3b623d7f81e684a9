/// Pairs each reader frame with the tag frame that answers it, or marks it unanswered.
///
/// Streaming with a one-frame delay: a reader frame is held until the next frame shows whether
/// the tag answered (a tag frame) or not (another reader frame or an event). Commands that get
/// no answer by protocol (HLTA, ISO/IEC 14443-3 §6.4.3) are marked `.noAnswerExpected`.
public struct TransactionPairer: Sendable {
  private var pending: DecodedFrame?

  /// A pairer with nothing pending.
  public init() {}

  /// Takes the next decoded frame and returns the frames now complete, in trace order.
  public mutating func push(_ frame: DecodedFrame) -> [DecodedFrame] {
    var incoming = frame
    switch incoming.frame.direction {
    case .tag:
      guard var request = pending else { return [incoming] }
      pending = nil
      request.response = .answeredBy(incoming.frame.index)
      incoming.response = .answers(request.frame.index)
      return [request, incoming]
    case .reader:
      let done = flush()
      pending = incoming
      return done
    case .event:
      incoming.response = .noAnswerExpected
      return flush() + [incoming]
    }
  }

  /// Releases the held frame (at the end of the trace), marked unanswered if it expected one.
  public mutating func flush() -> [DecodedFrame] {
    guard var request = pending else { return [] }
    pending = nil
    request.response = request.expectsResponse ? .unanswered : .noAnswerExpected
    return [request]
  }
}

/// Pairs each reader frame with the tag frame that answers it, or marks it unanswered.
///
/// Streaming with a one-frame delay: a reader frame is held until the next frame shows whether
/// the tag answered (a tag frame) or not (another reader frame or an event). Commands that get
/// no answer by protocol (HLTA, ISO/IEC 14443-3 §6.4.3) are marked `.noAnswerExpected`. A tag
/// frame that starts an activation (an ATQA whose REQA/WUPA the capture missed) answers no
/// such command: it stays unpaired.
public struct TransactionPairer: Sendable {
  private var pending: DecodedFrame?

  /// A pairer with nothing pending.
  public init() {}

  /// Takes the next decoded frame and returns the frames now complete, in trace order.
  public mutating func push(_ frame: DecodedFrame) -> [DecodedFrame] {
    var out: [DecodedFrame] = []
    push(frame) { out.append($0) }
    return out
  }

  /// Takes the next decoded frame and hands the frames now complete to `emit`, in trace order
  /// (no array per frame: the streaming path).
  public mutating func push(_ frame: consuming DecodedFrame, emit: (DecodedFrame) -> Void) {
    let incoming = frame
    switch incoming.frame.direction {
    case .tag:
      guard let request = pending.take() else { return emit(incoming) }
      if incoming.startsActivation, !request.expectsResponse {
        request.response = .noAnswerExpected
        emit(request)
        return emit(incoming)
      }
      request.response = .answeredBy(incoming.frame.index)
      incoming.response = .answers(request.frame.index)
      emit(request)
      emit(incoming)
    case .reader:
      if let held = flushOne() { emit(held) }
      pending = incoming
    case .event:
      incoming.response = .noAnswerExpected
      if let held = flushOne() { emit(held) }
      emit(incoming)
    }
  }

  private mutating func flushOne() -> DecodedFrame? {
    guard let request = pending.take() else { return nil }
    request.response = request.expectsResponse ? .unanswered : .noAnswerExpected
    return request
  }

  /// Releases the held frame (at the end of the trace), marked unanswered if it expected one.
  public mutating func flush() -> [DecodedFrame] {
    flushOne().map { [$0] } ?? []
  }
}

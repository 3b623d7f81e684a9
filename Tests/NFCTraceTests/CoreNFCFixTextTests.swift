import Testing

@testable import NFCTrace

/// Fix texts in Core NFC terms: after error 100 the tag has left the field, so connect(to:)
/// on the same NFCTag cannot help until polling detects the tag again.
@Test func reconnectAdviceFollowsTheError() {
  let lost = InterruptedWriteRule.keepStill(onError: 100)
  #expect(
    lost.contains(
      "On error 100, the tag has left the field: call session.restartPolling(), connect(to:) the "
        + "tag when readerSession(_:didDetect:) reports it again, write the whole message again"))
  #expect(!lost.contains("(or connect(to:) again)"))
  let update = InterruptedWriteRule.keepStill(onError: 401)
  #expect(update.contains("On error 401, call session.restartPolling() (or connect(to:) again)"))
  #expect(InterruptedWriteRule.lockAgain.contains("connect(to:) the tag when"))
}

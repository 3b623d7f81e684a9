import Testing

@testable import NFCTrace

/// NTAG215 GET_VERSION answer (nfc-facts §4.6).
private let ntag215Version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]

/// A PWD_AUTH refused with NAK 4 is the authentication limit only when ACCESS sets one and the
/// count could reach it (nfc-facts §4.2, §10: NAK 4 "auth-counter/not allowed"; ChameleonMini
/// answers a wrong password with it).
@Suite struct PasswordNAK4Tests {
  /// NTAG215 (CFG0 page 83h), CFG0 with AUTH0 = 4 and ACCESS `access` read (none: not read);
  /// `accepted`: a PWD_AUTH accepted (PACK) first, then `wrong` wrong ones (NAK 0); then the
  /// PWD_AUTH refused with NAK 4, a re-activation and a WRITE of page 4 refused with NAK 4.
  private func refused(access: UInt8?, accepted: Bool = false, wrong: Int = 0) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag215Version)
    if let access { b.read(0x83, [0x04, 0x00, 0x00, 0x04, access]) }
    if accepted {
      b.reader([0x1B, 0x12, 0x34, 0x56, 0x78])
      b.tag([0xAB, 0xCD])
    }
    for _ in 0..<wrong {
      b.reader([0x1B, 0x30, 0x30, 0x30, 0x30])
      b.add4Bit(0x00)
      b.activateType2()
    }
    b.reader([0x1B, 0x30, 0x30, 0x30, 0x30])
    b.add4Bit(0x04)
    b.activateType2()
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(4))
    return b
  }

  /// AUTHLIM 0 read (unlimited): a wrong password, a warning, and the fix is the right
  /// password — not "use another tag".
  @Test func authLimit0IsAWrongPassword() throws {
    let r = try refused(access: 0x00).diagnose()
    let f = try #require(r.finding("authentication-failed"))
    #expect(f.severity == .warning)
    #expect(
      f.cause == "the tag refused the password sent (NAK 4 (auth-counter/not allowed) on PWD_AUTH)")
    #expect(
      f.message.contains(
        "has AUTHLIM 0 (unlimited): no limit of wrong passwords applies, so none was reached "
          + "and the password sent is not the tag's."))
    #expect(
      f.fix
        == "Send the right password: reconnect (restartPolling() or connect(to:): a tag that "
        + "refused PWD_AUTH ignores commands until it is activated again), send the tag's right "
        + "password with sendMiFareCommand(commandPacket: [0x1B] + password), check the 2-byte "
        + "PACK, then read or write the protected pages.")
    let w = try #require(r.finding("t2t-nak-password"))
    #expect(
      w.cause
        == "the page is password protected and the password sent was refused (NAK 4 on WRITE "
        + "page 4 (0x4))")
    #expect(w.fix.hasPrefix("Send the tag's password (the PWD page's 4 bytes)"))
    #expect(!w.fix.contains("another tag"))
    #expect(!w.message.contains("locked for good"))
  }

  /// ACCESS never read: both causes, an error, and a fix that rules out the wrong password
  /// before giving the tag up.
  @Test func accessUnknownNamesBothCauses() throws {
    let r = try refused(access: nil).diagnose()
    let f = try #require(r.finding("authentication-failed"))
    #expect(f.severity == .error)
    #expect(
      f.cause
        == "the tag refused PWD_AUTH with NAK 4 (auth-counter/not allowed): a wrong password, "
        + "or its authentication limit (AUTHLIM) reached")
    #expect(f.message.contains("The trace does not show ACCESS (CFG1, page 132 (0x84))"))
    #expect(f.fix.hasPrefix("First rule out a wrong password: reconnect"))
    #expect(f.fix.contains("If the right password is refused too, AUTHLIM is reached"))
  }

  /// AUTHLIM 3 read and no accepted PWD_AUTH: the limit is the likely cause, not a proven one.
  @Test func authLimitSetIsTheLikelyCause() throws {
    let r = try refused(access: 0x03).diagnose()
    let f = try #require(r.finding("authentication-failed"))
    #expect(f.severity == .error)
    #expect(
      f.cause
        == "the tag refused PWD_AUTH with NAK 4 (auth-counter/not allowed): most likely its "
        + "authentication limit (AUTHLIM 3) is reached")
    #expect(f.message.contains("That is the likely cause here, not a proven one"))
    let w = try #require(r.finding("t2t-nak-password"))
    #expect(
      w.cause
        == "the page is password protected and the tag refused PWD_AUTH with NAK 4 "
        + "(auth-counter/not allowed): most likely its authentication limit (AUTHLIM 3) is "
        + "reached (NAK 4 on WRITE page 4 (0x4))")
    #expect(w.fix.hasPrefix("First rule out a wrong password"))
  }

  /// AUTHLIM 3, but a PWD_AUTH accepted in the trace reset the count and only one wrong
  /// password followed: the limit cannot be reached, so it is a wrong password.
  @Test func authLimitNotReachedAfterAnAcceptedPassword() throws {
    let r = try refused(access: 0x03, accepted: true, wrong: 1).diagnose()
    let f = try #require(
      r.findings.first { $0.code == "authentication-failed" && $0.cause.contains("NAK 4") })
    #expect(f.severity == .warning)
    #expect(f.message.contains("sets AUTHLIM 3, but the tag accepted PWD_AUTH at #"))
    #expect(f.message.contains("and only 1 refused PWD_AUTH followed before this one"))
    #expect(f.fix.hasPrefix("Send the right password"))
  }
}

/// NAK 5 (NXP: EEPROM write error) to a WRITE of a page the trace shows behind AUTH0, with no
/// PWD_AUTH: password protection is the likely cause and authenticating comes first.
@Suite struct NAK5OnProtectedPageTests {
  private func nak5(auth0: UInt8) -> TraceBuilder {
    var b = TraceBuilder()
    b.activateType2(version: ntag215Version)
    b.read(0x83, [0x04, 0x00, 0x00, auth0, 0x00])
    b.write(4, [0x03, 0x00, 0xD1, 0x01], .nak(5))
    return b
  }

  @Test func protectedPageNamesThePassword() throws {
    let r = try nak5(auth0: 0x04).diagnose()
    let f = try #require(r.finding("t2t-nak-password"))
    #expect(
      f.cause
        == "most likely the page is password protected and no password was sent; NAK 5 is "
        + "NXP's EEPROM write error (NAK 5 on WRITE page 4 (0x4))")
    #expect(f.message.hasPrefix("The tag answered NAK 5, which NXP's datasheet names an EEPROM"))
    #expect(
      f.fix.hasPrefix("Authenticate first: sendMiFareCommand(commandPacket: [0x1B] + password)"))
    #expect(f.fix.contains("If the WRITE still gets NAK 5 after an accepted PWD_AUTH"))
    #expect(f.coreNFCError?.code == 401)
    #expect(r.finding("t2t-nak-eeprom-error") == nil)
  }

  /// AUTH0 FFh: nothing protected, NAK 5 stays the EEPROM write error.
  @Test func unprotectedPageStaysAnEEPROMError() throws {
    let r = try nak5(auth0: 0xFF).diagnose()
    #expect(r.finding("t2t-nak-eeprom-error") != nil)
    #expect(r.finding("t2t-nak-password") == nil)
  }
}

/// The authentication sentence added to a fix names the refused operation's own call.
@Suite struct AuthenticationCallTests {
  @Test func callFollowsTheOperation() {
    #expect(Diagnoser.callAfterAuthentication(.writeNDEF) == "writeNDEF")
    #expect(Diagnoser.callAfterAuthentication(.writeLock) == "writeLock")
    #expect(Diagnoser.callAfterAuthentication(.readNDEF) == "readNDEF")
    #expect(
      Diagnoser.callAfterAuthentication(.queryNDEFStatus) == "queryNDEFStatus and then readNDEF")
    #expect(
      Diagnoser.callAfterAuthentication(.transceive)
        == "sendMiFareCommand(commandPacket:completionHandler:) again")
  }

  /// NTAG213 read-protected from page 4 (READ 3 rolls over to page 0, READ 4 refused): the
  /// query's fix says to call queryNDEFStatus and readNDEF after authenticating, not writeNDEF.
  @Test func readProtectedQueryNamesTheRead() throws {
    var b = readProtectedNTAG213()
    b.reader([0x30, 0x04])
    b.add4Bit(0x00)
    let f = try #require(try b.diagnose().finding("read-failed"))
    #expect(f.fix.hasSuffix(Diagnoser.tagSessionText(call: "queryNDEFStatus and then readNDEF")))
    #expect(!f.fix.contains("writeNDEF"))
    #expect(
      f.fix.hasPrefix(
        "Send PWD_AUTH with the tag's password (sendMiFareCommand, 1B + password) before "
          + "reading: Core NFC's queryNDEFStatus and readNDEF cannot send the password "
          + "themselves"))
  }
}

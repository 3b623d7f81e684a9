/// What a MIFARE DESFire or NTAG 424 DNA status (`91xx` wrapped, or the native status byte)
/// refusing a command means, for `Type4StatusRule`. Status codes: NXP MIFARE DESFire EV1
/// datasheet (MF3ICDx21_41_81) §9.4, NTAG 424 DNA datasheet (NT4H2421Gx) §10 Table 23.
extension Type4StatusRule {
  /// The explanation of DESFire status `sw` (`91ae`) refusing `cmd`; nil for codes without
  /// one of their own (the generic refusal then).
  static func desfireExplanation(
    _ cmd: SessionCommandLog.Command, sw: String, _ c: DiagnosisContext
  ) -> (code: String, cause: String, message: String, fix: String)? {
    let step = authenticationStep(cmd, c)
    let sw = sw.uppercased()
    switch sw {
    case "91AE" where cmd.name.hasPrefix("DESFire AUTHENTICATE"):
      // The first step sends only the key number: no proof of the key yet. The tag refuses an
      // authentication command that does not fit the key's type (MIFARE DESFire EV1
      // datasheet, AUTHENTICATION_ERROR; NTAG 424 DNA datasheet §10: its AES keys take
      // AuthenticateEV2First / NonFirst only).
      return (
        "apdu-refused", "the authentication command does not fit the key",
        "The tag answered AUTHENTICATION_ERROR (91AE) to the first step of \(cmd.summary), "
          + "which sends only the key number: no proof of the key was sent yet. The "
          + "authentication command does not fit that key: legacy Authenticate (0A) or "
          + "AuthenticateISO (1A) against an AES key, or a key number whose key type is not the "
          + "one this command authenticates.",
        "Use the authentication command matching the key type: AuthenticateAES (AA) or "
          + "AuthenticateEV2First (71) for AES keys (NTAG 424 DNA and DESFire EV2/EV3 AES "
          + "applications), AuthenticateISO (1A) for 2K3DES and 3K3DES keys, legacy Authenticate "
          + "(0A) for DES and 2K3DES keys; GetKeySettings (45) gives the application's key type."
      )
    case "91AE":
      return (
        "apdu-refused", "authentication failed: the key did not match",
        "The tag answered AUTHENTICATION_ERROR (91AE) to \(step ?? cmd.summary): the reader's "
          + "proof of the key was wrong. The key value, its number or its type (DES, 3DES, AES; "
          + "EV2 or legacy authentication) is not the one the application's or file's access "
          + "rights name.",
        "Use the key, key number and authentication command the tag was personalised with "
          + "(factory keys are all zeros); after repeated failures some tags delay further "
          + "attempts (91AD)."
      )
    case "91AD":
      return (
        "apdu-refused", "authentication delayed after repeated failures",
        "The tag answered AUTHENTICATION_DELAY (91AD) to \(step ?? cmd.summary): after failed "
          + "authentications the tag refuses new attempts for a while (NTAG 424 DNA Table 23; "
          + "DESFire EV2/EV3), whatever the key.",
        "Wait before authenticating again and stop retrying with the same key: find the key the "
          + "tag was personalised with first (the earlier attempts failed with 91AE)."
      )
    case "919D":
      return (
        "apdu-refused", "permission denied: the access rights require authentication",
        "The tag answered PERMISSION_DENIED (919D) to \(cmd.summary): the file's or "
          + "application's access rights do not allow it without an authentication with the key "
          + "they name (or with the one used).",
        "Authenticate with the key the access rights name before this command, or change the "
          + "access rights (ChangeFileSettings) with the tag's master key."
      )
    case "911E":
      return (
        "apdu-refused", "integrity error: a CRC or MAC of the command was wrong",
        "The tag answered INTEGRITY_ERROR (911E) to \(cmd.summary): the command's MAC or "
          + "encrypted CRC did not verify — the session keys or command counter the reader used "
          + "are not the tag's (a secure-messaging error), or the command was padded wrongly.",
        "Compute the MAC and encryption with the session keys of the last authentication and "
          + "the current command counter (NTAG 424 DNA §9.1); authenticate again after an error."
      )
    case "91A0", "91F0":
      let what = sw == "91A0" ? "application" : "file"
      return (
        "apdu-refused", "the \(what) does not exist on this tag",
        "The tag answered \(sw == "91A0" ? "APPLICATION_NOT_FOUND (91A0)" : "FILE_NOT_FOUND (91F0)") "
          + "to \(cmd.summary): the tag has no such \(what) (GetApplicationIDs / GetFileIDs "
          + "list what it has).",
        "Select an \(what) the tag has, or create it first."
      )
    case "91DE" where cmd.name.hasPrefix("DESFire CREATE"):
      // DUPLICATE_ERROR to a Create command: what it creates is there already; a formatter
      // (Android's DESFire NDEF formatting) goes on, so it fails nothing (`Type4Procedure`).
      let what = cmd.name.hasSuffix("APPLICATION") ? "application" : "file"
      return (
        "apdu-refused", "the \(what) already exists (DUPLICATE_ERROR, harmless)",
        "The tag answered DUPLICATE_ERROR (91DE) to \(cmd.summary): the \(what) it creates is "
          + "already on the tag, from an earlier formatting or personalisation. Nothing was "
          + "changed, and nothing is lost: a formatter (Android's NDEF formatting of a DESFire) "
          + "selects the existing \(what) and goes on, so this answer does not stop the "
          + "procedure; a refusal after it does.",
        "Nothing to fix for this answer. To start from scratch, delete the \(what) first "
          + "(DeleteApplication DA / DeleteFile DF, with the key its settings name), or use "
          + "what is there after checking its settings (GetFileSettings)."
      )
    case "91BE", "917E":
      return (
        "apdu-refused",
        sw == "91BE" ? "the access goes past the file's end" : "the command's length is wrong",
        "The tag answered \(sw == "91BE" ? "BOUNDARY_ERROR (91BE)" : "LENGTH_ERROR (917E)") to "
          + "\(cmd.summary): "
          + (sw == "91BE"
            ? "offset and length reach past the file's size (GetFileSettings gives it)."
            : "its parameters do not have the length the command takes."),
        "Keep offset + length inside the file's size, and send each command with the parameter "
          + "lengths of its datasheet."
      )
    default:
      return nil
    }
  }

  /// "the second step of DESFire AUTHENTICATE AES (#30)" when `cmd` is an ADDITIONAL FRAME
  /// that continues an authentication.
  private static func authenticationStep(_ cmd: SessionCommandLog.Command, _ c: DiagnosisContext)
    -> String?
  {
    guard cmd.name == "DESFire ADDITIONAL FRAME",
      let start = c.log.commands.last(where: {
        $0.frame < cmd.frame && $0.name != "DESFire ADDITIONAL FRAME"
      }), start.name.hasPrefix("DESFire AUTHENTICATE")
    else { return nil }
    return "the second step of \(start.name) (#\(start.frame))"
  }
}

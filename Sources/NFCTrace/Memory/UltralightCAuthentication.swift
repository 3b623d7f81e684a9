/// MIFARE Ultralight C's 3DES authentication settings (NXP MF0ICU2 datasheet §7.5.8): AUTH0,
/// page 2Ah byte 0, the first page that needs authentication (valid 03h–30h; 30h and above:
/// none), and AUTH1, page 2Bh byte 0 bit 0: 1 = only writes need it, 0 = reads and writes.
/// The 3DES key (pages 2Ch–2Fh) is write-only: a READ never returns it.
public struct UltralightCAuthentication: Sendable, Equatable {
  /// AUTH0's page.
  public static let auth0Page = 0x2A
  /// AUTH1's page.
  public static let auth1Page = 0x2B
  /// The last page (the key's last).
  public static let lastPage = 0x2F
  /// The byte addresses of the 16-byte 3DES key, pages 2Ch–2Fh (NXP MF0ICU2 datasheet §7.5.7):
  /// write-only (a READ never returns them), a secret wherever a WRITE shows them.
  public static let keyAddresses = (0x2C * 4)..<((lastPage + 1) * 4)

  /// AUTH0 (page 2Ah byte 0), when known.
  public var auth0: UInt8?
  /// AUTH1 (page 2Bh byte 0), when known.
  public var auth1: UInt8?

  /// Settings from the two bytes, each nil when not known.
  public init(auth0: UInt8?, auth1: UInt8?) {
    self.auth0 = auth0
    self.auth1 = auth1
  }

  /// The pages that need authentication (AUTH0 … 2Fh); nil when AUTH0 is 30h or above (none)
  /// or unknown.
  /// AUTH0 below 03h is outside the datasheet's range (behaviour not specified): nil too.
  public var protectedPages: ClosedRange<Int>? {
    guard let auth0, auth0 >= 3, Int(auth0) <= Self.lastPage else { return nil }
    return Int(auth0)...Self.lastPage
  }

  /// True when reads need authentication too (AUTH1 bit 0 = 0); nil when AUTH1 is unknown.
  public var readsProtected: Bool? { auth1.map { $0 & 1 == 0 } }

  /// In words: `no authentication needed (AUTH0 30h or above)`, `3DES authentication needed to
  /// write pages 16–47`, `… to read and write pages 16–47`.
  public var protectionText: String? {
    guard let auth0 else { return nil }
    if auth0 < 3 {
      return "AUTH0 below 03h, outside the valid range 03h–30h: behaviour not specified"
    }
    guard let range = protectedPages else { return "no authentication needed (AUTH0 30h or above)" }
    let pages = "pages \(range.lowerBound)–\(range.upperBound)"
    switch readsProtected {
    case true?: return "3DES authentication needed to read and write \(pages)"
    case false?: return "3DES authentication needed to write \(pages)"
    case nil:
      return "3DES authentication needed to write \(pages) (to read them too if AUTH1 bit 0 is 0; "
        + "AUTH1 unknown)"
    }
  }
}

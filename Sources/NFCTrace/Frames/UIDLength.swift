/// The UID sizes of ISO/IEC 14443-3 §6.5.4: single (4 bytes), double (7) and triple (10).
public enum UIDLength {
  /// Whether a UID of `count` bytes has one of the three sizes.
  public static func isValid(_ count: Int) -> Bool { count == 4 || count == 7 || count == 10 }
}

import Foundation

/// The system's reason for a failed read, for messages: Foundation wraps POSIX errors (`EISDIR`
/// "Is a directory", `EBADF` "Bad file descriptor") in a generic Cocoa error whose own text
/// says nothing; the underlying POSIX error's `strerror` text is what a user needs.
public enum ReadErrorText {
  /// `"Is a directory"`, `"Bad file descriptor"`, or the error's own description.
  public static func describe(_ error: any Error) -> String {
    if let tooLarge = error as? BoundedRead.TooLarge { return tooLarge.description }
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain, let code = Int32(exactly: underlying.code)
    {
      return String(cString: strerror(code))
    }
    if ns.domain == NSPOSIXErrorDomain, let code = Int32(exactly: ns.code) {
      return String(cString: strerror(code))
    }
    // Foundation on Linux reports a missing or forbidden file as a Cocoa error with no POSIX
    // error beneath ("The operation could not be completed. The file doesn’t exist.").
    if ns.domain == NSCocoaErrorDomain {
      switch ns.code {
      case CocoaError.fileReadNoSuchFile.rawValue, CocoaError.fileNoSuchFile.rawValue:
        return String(cString: strerror(ENOENT))
      case CocoaError.fileReadNoPermission.rawValue:
        return String(cString: strerror(EACCES))
      default: break
      }
    }
    return error.localizedDescription
  }
}

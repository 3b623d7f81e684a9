/// Why bytes are not a Type 4 Capability Container; `offset` is 0-based inside the CC file.
public struct CapabilityContainerError: Error, Sendable, Equatable, CustomStringConvertible {
  /// 0-based byte offset inside the CC file.
  public var offset: Int
  /// What was expected.
  public var message: String
  /// True when the bytes are only the start of the CC (fewer than CCLEN) and what is missing
  /// may be in the bytes not read yet: no fault of the tag.
  public var incomplete = false

  /// Creates an error at `offset`.
  public init(offset: Int, _ message: String, incomplete: Bool = false) {
    self.offset = offset
    self.message = message
    self.incomplete = incomplete
  }

  /// `CC byte offset N: message`.
  public var description: String { "CC byte offset \(offset): \(message)" }
}

/// The NFC Forum Type 4 Tag Capability Container (CC file `E103`).
///
/// Layout (NFC Forum T4T 2.0/3.0 §5.1; nfc-facts §6.1): CCLEN (2 bytes, big-endian), mapping
/// version (1), MLe (2), MLc (2), then TLVs: NDEF File Control `04 06` (file id 2, max NDEF
/// file size 2, read access 1, write access 1), Extended NDEF File Control `06 08` (mapping
/// 3.0: file id 2, max size 4, read 1, write 1), Proprietary File Control `05 06`.
public struct CapabilityContainer4: Sendable, Equatable {
  /// One file control TLV.
  public struct FileControl: Sendable, Equatable {
    /// TLV tag: `04` NDEF, `05` proprietary, `06` extended NDEF.
    public var tlvType: UInt8
    /// File identifier (`0xE104`).
    public var fileID: UInt16
    /// Maximum file size in bytes (NLEN/ENLEN included).
    public var maxSize: Int
    /// Read access condition (`00` granted, `FF` none, `80`–`FE` proprietary).
    public var readAccess: UInt8
    /// Write access condition (`00` granted, `FF` none = read-only, `80`–`FE` proprietary).
    public var writeAccess: UInt8

    /// Creates a file control.
    public init(tlvType: UInt8, fileID: UInt16, maxSize: Int, readAccess: UInt8, writeAccess: UInt8)
    {
      self.tlvType = tlvType
      self.fileID = fileID
      self.maxSize = maxSize
      self.readAccess = readAccess
      self.writeAccess = writeAccess
    }

    /// Bytes of the length prefix in the NDEF file: 4 (ENLEN) for TLV `06`, else 2 (NLEN).
    public var lengthFieldSize: Int { tlvType == 0x06 ? 4 : 2 }

    /// Largest NDEF message the file holds: max size − NLEN/ENLEN size (nfc-facts §6.2).
    public var capacity: Int { max(0, maxSize - lengthFieldSize) }
  }

  /// CCLEN, the CC file's size in bytes.
  public var ccLen: Int
  /// Mapping version byte (`0x20` = 2.0).
  public var mappingVersion: UInt8
  /// MLe: most bytes one READ BINARY may return.
  public var mle: Int
  /// MLc: most bytes one UPDATE BINARY may carry.
  public var mlc: Int
  /// The NDEF File Control TLV (`04` or `06`).
  public var ndefFile: FileControl
  /// Proprietary File Control TLVs (`05`), in order.
  public var proprietaryFiles: [FileControl]
  /// True when fewer bytes than CCLEN were given (TLVs after the last complete one unseen).
  public var isTruncated: Bool
  /// 0-based offset of the NDEF File Control TLV's tag byte inside the CC file (7 when it
  /// comes first, as T4T lays it out).
  public var ndefControlOffset: Int
  /// 0-based offset in the CC file of the NDEF file's write access byte: after the TLV's T, L,
  /// file id (2), maximum size (2, or 4 in the Extended TLV 06h) and read access (T4T 2.0
  /// §5.1.2, 3.0 §5.1.2): 14, or 16 with the Extended TLV.
  public var writeAccessOffset: Int { ndefControlOffset + 5 + (ndefFile.tlvType == 0x06 ? 4 : 2) }

  /// The NLEN field size a CC read only in part announces: its first 8 bytes give the
  /// mapping version and the NDEF File Control TLV's type (`06`, the Extended TLV of mapping
  /// 3.0: a 4-byte ENLEN; `04`: 2 bytes; T4T 3.0 §5.1). A reader that reads 15 bytes (an
  /// iPhone's Le 0F) misses a 17-byte CC's access bytes only. Nil before byte 8.
  public static func lengthFieldSize(partial bytes: [UInt8]) -> Int? {
    guard bytes.count >= 8 else { return nil }
    switch bytes[7] {
    case 0x06 where bytes[2] >> 4 >= 3: return 4
    case 0x04: return 2
    default: return nil
    }
  }

  /// `2.0` from the version byte.
  public var versionString: String { "\(mappingVersion >> 4).\(mappingVersion & 0x0F)" }

  /// Parses a CC file read from offset 0.
  ///
  /// - Throws: `CapabilityContainerError` when fewer than 7 bytes are given, CCLEN is below
  ///   15, the major version is not 1–3, a TLV has the wrong length for its type, or no
  ///   complete NDEF File Control TLV is present.
  public init(parsing bytes: [UInt8]) throws(CapabilityContainerError) {
    guard bytes.count >= 7 else {
      throw CapabilityContainerError(
        offset: bytes.count, "CC needs at least 7 bytes (CCLEN, version, MLe, MLc)")
    }
    ccLen = Int(bytes[0]) << 8 | Int(bytes[1])
    guard ccLen >= 15 else {
      throw CapabilityContainerError(offset: 0, "CCLEN \(ccLen) is below the minimum of 15")
    }
    mappingVersion = bytes[2]
    guard (1...3).contains(mappingVersion >> 4) else {
      throw CapabilityContainerError(
        offset: 2, "mapping version \(mappingVersion >> 4).\(mappingVersion & 0xF) is not 1–3")
    }
    mle = Int(bytes[3]) << 8 | Int(bytes[4])
    mlc = Int(bytes[5]) << 8 | Int(bytes[6])
    let end = min(ccLen, bytes.count)
    isTruncated = bytes.count < ccLen
    var found: FileControl?
    var foundAt = 7
    var proprietary: [FileControl] = []
    var i = 7
    while i + 2 <= end {
      let tag = bytes[i]
      let length = Int(bytes[i + 1])
      guard i + 2 + length <= end else {
        if isTruncated { break }
        throw CapabilityContainerError(
          offset: i + 1, "TLV \(Hex.string([tag])) length \(length) runs past CCLEN \(ccLen)")
      }
      let value = Array(bytes[(i + 2)..<(i + 2 + length)])
      switch tag {
      case 0x04, 0x05, 0x06:
        let control = try Self.fileControl(tag, value, at: i)
        if tag == 0x05 {
          proprietary.append(control)
        } else if found == nil {
          found = control
          foundAt = i
        }
      default:
        break  // unknown TLVs are skipped by length (forward compatibility)
      }
      i += 2 + length
    }
    guard let ndef = found else {
      // A READ of part of the CC (Le below CCLEN): the TLV may be in the bytes not read yet.
      if isTruncated {
        throw CapabilityContainerError(
          offset: bytes.count,
          "CC incomplete: \(ccLen - bytes.count) of its \(ccLen) bytes not read yet, and the "
            + "NDEF File Control TLV is not complete in the \(bytes.count) read",
          incomplete: true)
      }
      throw CapabilityContainerError(offset: 7, "no NDEF File Control TLV (04 06 or 06 08)")
    }
    ndefFile = ndef
    ndefControlOffset = foundAt
    proprietaryFiles = proprietary
  }

  private static func fileControl(_ tag: UInt8, _ v: [UInt8], at offset: Int)
    throws(CapabilityContainerError) -> FileControl
  {
    let expected = tag == 0x06 ? 8 : 6
    guard v.count == expected else {
      throw CapabilityContainerError(
        offset: offset + 1,
        "File Control TLV \(Hex.string([tag])) must have length \(expected), has \(v.count)")
    }
    let fileID = UInt16(v[0]) << 8 | UInt16(v[1])
    var size = 0
    for byte in v[2..<(expected - 2)] { size = size << 8 | Int(byte) }
    return FileControl(
      tlvType: tag, fileID: fileID, maxSize: size, readAccess: v[expected - 2],
      writeAccess: v[expected - 1])
  }

  /// Meaning of an access condition byte (nfc-facts §6.1).
  public static func accessMeaning(_ access: UInt8) -> String {
    switch access {
    case 0x00: return "granted"
    case 0xFF: return "denied"
    case 0x80...0xFE: return "proprietary"
    default: return "RFU"
    }
  }
}

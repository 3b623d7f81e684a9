/// A Handover Request / Select / Mediation / Initiate record (NFC Forum Connection Handover
/// 1.2/1.3; facts §7.3): version byte then a nested message of `ac`, `cr`, `err` records.
public struct NDEFHandover: Sendable, Equatable {
  /// Which handover record.
  public enum Kind: String, Sendable {
    case select = "Hs"
    case request = "Hr"
    case mediation = "Hm"
    case initiate = "Hi"
    /// "Handover Select" etc.
    public var name: String {
      switch self {
      case .select: return "Handover Select"
      case .request: return "Handover Request"
      case .mediation: return "Handover Mediation"
      case .initiate: return "Handover Initiate"
      }
    }
  }

  /// Record kind.
  public let kind: Kind
  /// Version byte: major in the high nibble, minor in the low (0x12 = 1.2).
  public let version: UInt8
  /// Nested records (alternative carriers, collision resolution, error), decoded.
  public let records: [NDEFDecodedRecord]

  /// "1.2".
  public var versionString: String { "\(version >> 4).\(version & 0x0F)" }

  static func decode(_ type: String, _ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext)
    -> NDEFHandover?
  {
    guard let kind = Kind(rawValue: type), let version = p.first else {
      ctx.add(
        "payload-length-invalid", .error, offset,
        "\(type) payload is empty: no version "
          + "byte (NFC Forum Connection Handover)")
      return nil
    }
    var records: [NDEFDecodedRecord] = []
    if p.count > 1 {
      guard
        let inner = NDEFPayloadDecoder.nested(
          Array(p[1...]), offset: offset + 1, owner: kind.name, ctx: &ctx)
      else { return nil }
      records = inner
    }
    if kind == .request && version >= 0x12
      && !records.contains(where: { $0.record.type == Array("cr".utf8) })
    {
      ctx.add(
        "handover-cr-missing", .warning, offset,
        "Handover Request \(version >> 4)."
          + "\(version & 0x0F) without a Collision Resolution record (required from version 1.2; "
          + "NFC Forum Connection Handover 1.2)", readers: "ndeflib strict rejects it")
    }
    return NDEFHandover(kind: kind, version: version, records: records)
  }
}

/// A Handover Carrier record `Hc` (NFC Forum Connection Handover): CTF (TNF of the carrier
/// type, low 3 bits), carrier type, carrier data.
public struct NDEFHandoverCarrier: Sendable, Equatable {
  /// CTF byte; `ctf & 7` is a TNF.
  public let ctf: UInt8
  /// Carrier type (e.g. `application/vnd.bluetooth.ep.oob`).
  public let carrierType: [UInt8]
  /// Carrier data.
  public let carrierData: [UInt8]

  /// The TNF name of the CTF's low 3 bits (`Media`, `Well-known`…).
  public var ctfName: String { NDEFTNF(rawValue: ctf & 0x07)?.name ?? "Reserved" }

  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext)
    -> NDEFHandoverCarrier?
  {
    var c = NDEFByteCursor(p, base: offset)
    do {
      let ctf = try c.readByte("CTF")
      let n = Int(try c.readByte("CARRIER_TYPE_LENGTH"))
      let type = try c.readBytes(n, "CARRIER_TYPE")
      if ![1, 2, 3, 4].contains(ctf & 0x07) {
        ctx.add(
          "handover-carrier-ctf", .warning, offset,
          "Handover Carrier CTF \(ctf & 0x07) (\(NDEFTNF(rawValue: ctf & 0x07)?.name ?? "?")) "
            + "is not a carrier type format: it must be 1 (well-known), 2 (media), 3 (absolute "
            + "URI) or 4 (external) (NFC Forum Connection Handover 1.3, Handover Carrier record)")
      }
      return NDEFHandoverCarrier(ctf: ctf, carrierType: type, carrierData: c.readRest())
    } catch {
      ctx.add(
        "handover-carrier-truncated", .error, error.offset,
        "Handover Carrier: "
          + error.message + " (NFC Forum Connection Handover)")
      return nil
    }
  }
}

/// An Alternative Carrier record `ac` (NFC Forum Connection Handover): CPS, carrier data
/// reference, auxiliary data references.
public struct NDEFAlternativeCarrier: Sendable, Equatable {
  /// Carrier power state (low 2 bits): 0 inactive, 1 active, 2 activating, 3 unknown.
  public let cps: UInt8
  /// Carrier data reference (the ID of the carrier configuration record).
  public let dataReference: [UInt8]
  /// Auxiliary data references.
  public let auxiliaryReferences: [[UInt8]]

  /// Name of the CPS value.
  public var cpsName: String { ["inactive", "active", "activating", "unknown"][Int(cps & 3)] }

  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext)
    -> NDEFAlternativeCarrier?
  {
    var c = NDEFByteCursor(p, base: offset)
    do {
      let cps = try c.readByte("CPS") & 0x03
      let ref = try c.readBytes(
        Int(try c.readByte("CARRIER_DATA_REFERENCE_LENGTH")), "CARRIER_DATA_REFERENCE")
      let count = Int(try c.readByte("AUXILIARY_DATA_REFERENCE_COUNT"))
      var aux: [[UInt8]] = []
      for _ in 0..<count {
        aux.append(
          try c.readBytes(
            Int(try c.readByte("AUXILIARY_DATA_REFERENCE_LENGTH")), "AUXILIARY_DATA_REFERENCE"))
      }
      return NDEFAlternativeCarrier(cps: cps, dataReference: ref, auxiliaryReferences: aux)
    } catch {
      ctx.add(
        "alternative-carrier-truncated", .error, error.offset,
        "Alternative Carrier: "
          + error.message + " (NFC Forum Connection Handover)")
      return nil
    }
  }
}

/// A Signature record header (NFC Forum Signature RTD 2.0; layout as ndeflib
/// `signature.py`: version, SUP|signature type, hash type, 2-byte length + signature or URI,
/// CUP|certificate format|count, certificates, certificate URI).
public struct NDEFSignature: Sendable, Equatable {
  /// Version byte (0x20 = 2.0).
  public let version: UInt8
  /// True when the signature field holds a URI instead of the signature.
  public let signatureURIPresent: Bool
  /// Signature type (e.g. 0x0B ECDSA-P256; 0 = no signature, a start marker).
  public let signatureType: UInt8
  /// Hash type (0x02 SHA-256).
  public let hashType: UInt8
  /// Signature bytes or URI bytes.
  public let signature: [UInt8]
  /// Certificate format (0 X.509, 1 M2M), when the certificate field is present.
  public let certificateFormat: UInt8?
  /// Certificates in the chain.
  public let certificates: [[UInt8]]
  /// Certificate URI, when present.
  public let certificateURI: [UInt8]?

  /// Name of the signature type (ndeflib table; nil when unknown).
  public var signatureTypeName: String? {
    let names = [
      "none", "RSASSA-PSS-1024", "RSASSA-PKCS1-v1_5-1024", "DSA-1024", "ECDSA-P192",
      "RSASSA-PSS-2048", "RSASSA-PKCS1-v1_5-2048", "DSA-2048", "ECDSA-P224", "ECDSA-K233",
      "ECDSA-B233", "ECDSA-P256",
    ]
    return Int(signatureType) < names.count ? names[Int(signatureType)] : nil
  }

  static func decode(_ p: [UInt8], offset: Int, ctx: inout NDEFDecodeContext) -> NDEFSignature? {
    var c = NDEFByteCursor(p, base: offset)
    do {
      let version = try c.readByte("Version")
      let sst = try c.readByte("signature URI-present flag and type")
      let hash = try c.readByte("hash type")
      let sigLength = Int(try c.readUInt16("signature/URI length"))
      let sigAt = c.absoluteOffset
      let sig = try c.readBytes(sigLength, "signature or URI")
      if sst & 0x80 != 0 { checkURI(sig, "signature URI", at: sigAt, ctx: &ctx) }
      var format: UInt8?
      var certs: [[UInt8]] = []
      var certURI: [UInt8]?
      // Signature RTD 2.0 §3.3: the Certificate Chain field follows the Signature field in
      // every record, its first byte even with no certificate (ndeflib needs it too); other
      // versions may end after the signature.
      if !c.isAtEnd || version == 0x20 {
        let cert = try c.readByte("certificate chain byte (URI-present flag, format and count)")
        format = (cert >> 4) & 0x07
        for _ in 0..<Int(cert & 0x0F) {
          certs.append(try c.readBytes(Int(try c.readUInt16("certificate length")), "certificate"))
        }
        if cert & 0x80 != 0 {
          let length = Int(try c.readUInt16("certificate URI length"))
          let at = c.absoluteOffset
          let uri = try c.readBytes(length, "certificate URI")
          checkURI(uri, "certificate URI", at: at, ctx: &ctx)
          certURI = uri
        }
      }
      if version != 0x20 {
        ctx.add(
          "signature-version", .warning, offset,
          "Signature record version "
            + "\(version >> 4).\(version & 0x0F); this decoder knows 2.0 (NFC Forum Signature RTD 2.0)"
        )
      }
      return NDEFSignature(
        version: version, signatureURIPresent: sst & 0x80 != 0, signatureType: sst & 0x7F,
        hashType: hash, signature: sig, certificateFormat: format, certificates: certs,
        certificateURI: certURI)
    } catch {
      ctx.add(
        "signature-truncated", .error, error.offset,
        "Signature record: " + error.message
          + " (NFC Forum Signature RTD 2.0)")
      return nil
    }
  }

  /// A signature or certificate URI is a URI (UTF-8, RFC 3986/3987): one that is not UTF-8
  /// is shown as hex, and said.
  private static func checkURI(
    _ bytes: [UInt8], _ what: String, at: Int, ctx: inout NDEFDecodeContext
  ) {
    guard String(validating: bytes, as: UTF8.self) == nil else { return }
    ctx.add(
      "signature-uri-invalid-utf8", .warning, at,
      "Signature record: the \(what) is not valid UTF-8; shown as hex (NFC Forum Signature "
        + "RTD 2.0, RFC 3987)",
      readers: "a verifier cannot fetch it")
  }
}

extension NDEFHandover {
  /// Checks that every Alternative Carrier of the handover records of a top-level message
  /// points at a record of that message: its carrier data reference (and each auxiliary data
  /// reference) is the payload ID of the record that holds the carrier configuration (NFC
  /// Forum Connection Handover 1.3, Alternative Carrier record). A carrier record written
  /// without an ID is the usual cause: a reader finds the Handover Select but no carrier.
  static func checkReferences(_ records: [NDEFDecodedRecord], ctx: inout NDEFDecodeContext) {
    let ids = Set(records.map(\.record.id).filter { !$0.isEmpty })
    for outer in records {
      guard case .handover(let h) = outer.payload else { continue }
      for inner in h.records {
        guard case .alternativeCarrier(let ac) = inner.payload else { continue }
        let refs =
          [(ac.dataReference, "carrier data")]
          + ac.auxiliaryReferences.map { ($0, "auxiliary data") }
        for (ref, what) in refs where !ids.contains(ref) {
          ctx.add(
            "handover-reference-dangling", .warning, inner.record.chunks.first?.offset ?? 0,
            "\(h.kind.name) Alternative Carrier refers to \(what) ID \(Self.show(ref)), but no "
              + "record of the message has that ID (NFC Forum Connection Handover 1.2 and 1.3, "
              + "Alternative Carrier record)",
            readers: what == "carrier data"
              ? "a reader finds no configuration for this carrier" : "a reader finds no such data",
            fix: "give the carrier configuration record the ID the Alternative Carrier names")
        }
      }
    }
  }

  /// Names of the Handover Error reasons with the data length each carries (NFC Forum
  /// Connection Handover 1.2 §6.2.3): 1 temporary memory constraints (1 byte: ms to wait),
  /// 2 permanent memory constraints (4 bytes: the largest message accepted), 3 carrier-specific
  /// constraints (1 byte: ms to wait).
  public static let errorReasons: [UInt8: (name: String, dataLength: Int)] = [
    1: ("temporary memory constraints", 1), 2: ("permanent memory constraints", 4),
    3: ("carrier specific constraints", 1),
  ]

  static func checkError(
    reason: UInt8, dataLength: Int, offset: Int, ctx: inout NDEFDecodeContext
  ) {
    guard let known = errorReasons[reason] else {
      ctx.add(
        "handover-error-reason", .warning, offset,
        "Handover Error reason 0x\(hex2(reason)) is reserved (1–3 are defined; NFC Forum "
          + "Connection Handover 1.2 §6.2.3)")
      return
    }
    if dataLength != known.dataLength {
      ctx.add(
        "handover-error-reason", .warning, offset,
        "Handover Error reason \(reason) (\(known.name)) carries \(known.dataLength) data "
          + "byte(s), this one \(dataLength) (NFC Forum Connection Handover 1.2 §6.2.3)")
    }
  }

  private static func show(_ ref: [UInt8]) -> String {
    if ref.isEmpty { return "(empty)" }
    if ref.allSatisfy({ (0x21...0x7E).contains($0) }) {
      return "\"\(String(decoding: ref, as: UTF8.self))\""
    }
    return ref.map(hex2).joined()
  }
}

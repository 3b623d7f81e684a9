/// Frame sizes and waiting times shared by RATS and ATS.
///
/// FSDI/FSCI → FSD/FSC: 0–8 → 16, 24, 32, 40, 48, 64, 96, 128, 256 bytes; 9–C → 512, 1024,
/// 2048, 4096 (later editions, "extended frame size"); D–F RFU. Times: FWT = 256·16/fc · 2^FWI,
/// SFGT likewise with SFGI, fc = 13.56 MHz. ISO/IEC 14443-4 §5.2.2, §5.2.5; nfc-facts §2.1,
/// §2.3, §10.
public enum ISODEPTiming {
  private static let sizes = [16, 24, 32, 40, 48, 64, 96, 128, 256, 512, 1024, 2048, 4096]

  /// Frame size in bytes for an FSDI/FSCI value, nil for RFU values D–F.
  public static func frameSize(_ index: Int) -> Int? {
    sizes.indices.contains(index) ? sizes[index] : nil
  }

  /// 256·16·2^`index` carrier cycles in nanoseconds (rounded), for FWI/SFGI 0…14; nil for 15.
  public static func waitingTimeNs(_ index: Int) -> Int64? {
    guard (0...14).contains(index) else { return nil }
    let cycles = Int64(4096) << Int64(index)
    // ns = cycles · 10⁹ / 13.56·10⁶ = cycles · 100 000 / 1356
    return (cycles * 100_000 + 678) / 1356
  }

  /// `rfu-fsci`, `rfu-fwi` and `rfu-sfgi` of an ATS or ATQB (`message` names it, `fsciName`
  /// its FSCI field) whose FSCI is D–F, FWI 15 (read as 4) or SFGI 15 (read as 0): RFU values
  /// (ISO/IEC 14443-4 §5.2.2, §5.2.5; 14443-3 §7.9.4 for the ATQB).
  static func rfuFindings(
    _ message: String, fsciName: String, fsci: Int, fwi: Int, sfgi: Int?, frame: Int
  ) -> [Finding] {
    var out: [Finding] = []
    if frameSize(fsci) == nil {
      out.append(
        Finding("rfu-fsci", .warning, "\(message) \(fsciName) \(fsci) is RFU", frames: [frame]))
    }
    if fwi == 15 {
      out.append(
        Finding("rfu-fwi", .warning, "\(message) FWI 15 is RFU (read as 4)", frames: [frame]))
    }
    if sfgi == 15 {
      out.append(
        Finding("rfu-sfgi", .warning, "\(message) SFGI 15 is RFU (read as 0)", frames: [frame]))
    }
    return out
  }

  /// FWT_max: the FWT of FWI 14, about 4949 ms (ISO/IEC 14443-4 §7.2).
  public static let maxFWTNs: Int64 = (Int64(4096 << 14) * 100_000 + 678) / 1356

  /// The temporary FWT after S(WTX) with multiplier `wtxm`: FWT × WTXM, but never more than
  /// FWT_max (ISO/IEC 14443-4 §7.3), in nanoseconds.
  public static func temporaryFWTNs(fwt: Int64, wtxm: Int64) -> Int64 {
    let (product, overflow) = fwt.multipliedReportingOverflow(by: wtxm)
    return overflow ? max(fwt, maxFWTNs) : min(product, max(fwt, maxFWTNs))
  }

  /// Nanoseconds to whole microseconds, rounded.
  static func micros(_ ns: Int64) -> Int { Int((ns + 500) / 1000) }

  /// `77.3 ms` or `604 µs`.
  static func text(_ ns: Int64) -> String {
    if ns >= 1_000_000 {
      let tenths = (ns + 50_000) / 100_000
      return "\(tenths / 10).\(tenths % 10) ms"
    }
    return "\(micros(ns)) µs"
  }
}

/// RATS: `E0` + parameter byte (FSDI high nibble, CID low nibble).
/// ISO/IEC 14443-4 §5.1; nfc-facts §2.1.
public struct RATS: Sendable, Equatable {
  /// The parameter byte.
  public var parameter: UInt8

  /// Reads `E0 pp`; nil for anything else.
  public init?(_ payload: [UInt8]) {
    guard payload.count == 2, payload[0] == 0xE0 else { return nil }
    parameter = payload[1]
  }

  /// FSDI, 0…15.
  public var fsdi: Int { Int(parameter >> 4) }
  /// FSD in bytes, nil for RFU FSDI D–F.
  public var fsd: Int? { ISODEPTiming.frameSize(fsdi) }
  /// CID the reader assigns, 0…15 (15 is RFU).
  public var cid: Int { Int(parameter & 0x0F) }

  /// `RATS FSDI 8 (FSD 256), CID 0`.
  var decode: LayerDecode {
    let size = fsd.map { "FSD \($0)" } ?? "FSD RFU"
    var fields = [LayerField("fsdi", .int(fsdi))]
    if let fsd { fields.append(LayerField("fsd", .int(fsd))) }
    fields.append(LayerField("cid", .int(cid)))
    return LayerDecode(.isoDEP, "RATS", "RATS FSDI \(fsdi) (\(size)), CID \(cid)", fields)
  }

  func findings(frameIndex: Int) -> [Finding] {
    var out: [Finding] = []
    if fsd == nil {
      out.append(
        Finding("rfu-fsdi", .warning, "RATS FSDI \(fsdi) is RFU", frames: [frameIndex], offset: 1))
    } else if fsdi > 8 {
      out.append(
        Finding(
          "extended-frame-size", .info, "RATS FSDI \(fsdi): extended frame size \(fsd ?? 0)",
          frames: [frameIndex], offset: 1))
    }
    if cid == 15 {
      out.append(
        Finding("rfu-cid", .warning, "RATS CID 15 is RFU", frames: [frameIndex], offset: 1))
    }
    return out
  }
}

import Foundation

/// A simulation scenario: one virtual tag, one reader profile, the app's actions and the faults
/// to inject. Loaded from JSON (docs/scenario.md describes every key with examples).
///
/// ```json
/// {"name": "ntag215-read", "seed": 1,
///  "tag": {"type": "ntag215", "uid": "04a1b2c3d4e5f6", "ndef": "d1010c5504…"},
///  "reader": "ios",
///  "actions": [{"op": "connect"}, {"op": "queryNDEFStatus"}, {"op": "readNDEF"}],
///  "faults": [{"kind": "remove-after-writes", "count": 2}]}
/// ```
///
/// Keys:
/// - `name` (string): names the run; frames get the location file `simulated:<name>`.
/// - `seed` (unsigned integer): seeds the SplitMix64 generator behind every random choice
///   (default UID, signature, reader gaps, noise). Same scenario and seed → identical frames.
/// - `tag` (object, `TagSpec`): the virtual tag.
/// - `reader` (`"ios"` | `"android"`): the reader profile (`ReaderKind`).
/// - `actions` (array, `ScenarioAction`): what the app calls, in order; each is an object with
///   an `op` key.
/// - `faults` (array, `ScenarioFault`, optional): injected faults; each has a `kind` key.
public struct Scenario: Codable, Sendable, Hashable {
  /// The run's name (`simulated:<name>` in frame locations).
  public var name: String
  /// Seed of the run's SplitMix64 generator.
  public var seed: UInt64
  /// The virtual tag.
  public var tag: TagSpec
  /// The reader profile.
  public var reader: ReaderKind
  /// The app's actions, in order.
  public var actions: [ScenarioAction]
  /// Injected faults (empty when the key is missing).
  public var faults: [ScenarioFault]

  /// Creates a scenario.
  public init(
    name: String, seed: UInt64, tag: TagSpec, reader: ReaderKind, actions: [ScenarioAction],
    faults: [ScenarioFault] = []
  ) {
    self.name = name
    self.seed = seed
    self.tag = tag
    self.reader = reader
    self.actions = actions
    self.faults = faults
  }

  private enum CodingKeys: String, CodingKey { case name, seed, tag, reader, actions, faults }

  /// Decodes the JSON object described above; `faults` may be missing.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    name = try c.decode(String.self, forKey: .name)
    // Foundation reports a negative or fractional UInt64 as "not valid JSON": say what is.
    if !c.contains(.seed) { _ = try c.decode(UInt64.self, forKey: .seed) }  // "key not found"
    guard let seed = try? c.decode(UInt64.self, forKey: .seed) else {
      throw DecodingError.dataCorruptedError(
        forKey: .seed, in: c, debugDescription: "seed is an unsigned integer 0…2^64−1")
    }
    self.seed = seed
    tag = try c.decode(TagSpec.self, forKey: .tag)
    reader = try c.decode(ReaderKind.self, forKey: .reader)
    actions = try c.decode([ScenarioAction].self, forKey: .actions)
    faults = try c.decodeIfPresent([ScenarioFault].self, forKey: .faults) ?? []
  }

  /// Decodes a scenario from JSON bytes.
  /// - Throws: `SimulationError.invalidScenario` naming the key path and what was expected.
  public static func decode(_ json: Data) throws -> Scenario {
    do {
      return try JSONDecoder().decode(Scenario.self, from: json)
    } catch DecodingError.dataCorrupted(let c) where c.codingPath.isEmpty {
      throw SimulationError.invalidScenario(syntaxError(json))
    } catch let error as DecodingError {
      throw SimulationError.invalidScenario(SimulationError.describe(error))
    }
  }

  /// Where the JSON syntax breaks (`JSONSyntax`), or the number a scenario cannot take.
  static func syntaxError(_ json: Data) -> String {
    do {
      let value = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
      // Valid JSON that JSONDecoder still calls "not valid JSON": a number with a fraction,
      // an exponent or out of 64-bit range where an integer is read.
      if let path = nonInteger(value, path: "") {
        return
          "\(path.value): \(path.number) is not an integer (scenario numbers are whole numbers)"
      }
    } catch {
      let (place, what) = JSONSyntax.locate(error as NSError, json)
      guard let place else { return "not valid JSON" + (what.isEmpty ? "" : ": " + what) }
      return "not valid JSON at line \(place.line), byte offset \(place.offset): \(what)"
    }
    return "not valid JSON"
  }

  /// The key path (`actions.[1].ms`) and text of the first number in `value` that is not a
  /// whole number within ±2^63.
  private static func nonInteger(_ value: Any, path: String) -> (value: String, number: String)? {
    switch value {
    case let d as [String: Any]:
      // The fault rates are fractions by design.
      for key in d.keys.sorted() where !key.hasSuffix("_rate") {
        if let v = d[key], let hit = nonInteger(v, path: path.isEmpty ? key : path + "." + key) {
          return hit
        }
      }
    case let a as [Any]:
      for (i, v) in a.enumerated() {
        if let hit = nonInteger(v, path: path + (path.isEmpty ? "" : ".") + "[\(i)]") { return hit }
      }
    case let n as NSNumber where !(value is Bool):
      let d = n.doubleValue
      if d.rounded() != d || abs(d) >= 9.2e18 { return (path, n.stringValue) }
    default: break
    }
    return nil
  }

  /// Loads a scenario from a JSON file.
  /// - Throws: `SimulationError.invalidScenario`, or the file system error.
  public static func load(path: String) throws -> Scenario {
    try decode(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// The scenario as JSON (sorted keys, hex strings in lower case).
  public func jsonData() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    return try encoder.encode(self)
  }
}

/// Which reader stack drives the tag (see `ReaderProfile` for the procedures each follows).
public enum ReaderKind: String, Codable, Sendable, Hashable, CaseIterable {
  /// iOS Core NFC (`NFCNDEFReaderSession` / `NFCTagReaderSession`).
  case ios
  /// Android `android.nfc.tech.Ndef` / `IsoDep` over libnfc-nci.
  case android
}

/// The virtual tag products (NXP datasheets and NFC Forum tag specs; reference/nfc-facts.md
/// §4.3, §4.6, §4.7, §6).
public enum TagKind: String, Codable, Sendable, Hashable, CaseIterable {
  /// NXP NTAG213: 45 pages, 144 user bytes, CC `E1 10 12 00`.
  case ntag213
  /// NXP NTAG215: 135 pages, 504 user bytes, CC `E1 10 3E 00`.
  case ntag215
  /// NXP NTAG216: 231 pages, 888 user bytes, CC `E1 10 6D 00`.
  case ntag216
  /// NXP MIFARE Ultralight EV1 MF0UL11: 20 pages, 48 user bytes.
  case ultralightEV1 = "ultralight-ev1"
  /// An unformatted MIFARE Ultralight (MF0ICU1): 16 pages, page 3 (CC) all zeros.
  case type2Blank = "type2-blank"
  /// An NFC Forum Type 4 tag (ISO-DEP, NDEF application D2760000850101).
  case type4

  /// True for the NFC Forum Type 2 products.
  public var isType2: Bool { self != .type4 }
}

/// Bytes written in JSON as a hex string (`"04a1b2"`; spaces and colons allowed).
public struct HexBytes: Codable, Sendable, Hashable, ExpressibleByArrayLiteral {
  /// The bytes.
  public var bytes: [UInt8]

  /// Wraps `bytes`.
  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Wraps an array literal.
  public init(arrayLiteral elements: UInt8...) { bytes = elements }

  /// Decodes a hex string.
  /// - Throws: `DecodingError.dataCorrupted` when the string is not hex.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    let text = try c.decode(String.self)
    guard let bytes = Hex.bytes(text) else {
      throw DecodingError.dataCorruptedError(
        in: c,
        debugDescription:
          "expected hex bytes (separators only between whole bytes), got \"\(text)\"")
    }
    self.bytes = bytes
  }

  /// Encodes as a lower-case hex string.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(Hex.string(bytes))
  }
}

/// The `tag` object of a scenario.
///
/// Common keys: `type` (`TagKind` raw value), `uid` (hex, 4, 7 or 10 bytes; default: 7 bytes
/// `04` + 6 bytes from the seed), `ndef` (hex of the NDEF message initially on the tag; default:
/// the factory content of §4.7 / an empty NDEF file with NLEN 0).
///
/// Type 2 keys (NTAG21x / Ultralight EV1): `auth0` (first password-protected page, default
/// `0xFF` = none), `pwd` (4 bytes hex, default `ffffffff`), `pack` (2 bytes hex, default `0000`),
/// `prot` (bool: true = reads from AUTH0 on need the password too; CFG1 ACCESS bit 0x80),
/// `static_lock` (2 bytes hex: LOCK0 LOCK1 of page 2), `dynamic_lock` (up to 3 bytes hex: LOCK2
/// LOCK3 LOCK4 of the dynamic lock page), `cc` (4 bytes hex replacing the factory CC of page 3).
///
/// Type 4 keys: `mle` (MLe, default 255), `mlc` (MLc, default 255), `max_ndef_size` (NDEF file
/// size incl. NLEN, default 2048), `write_access` / `read_access` (CC access bytes, default 0),
/// `fsci` (ATS FSCI, default 5 = 64 bytes), `fwi` (ATS FWI, default 8 = 77 ms), `wtx` (number of
/// S(WTX) requests the tag sends before each UPDATE BINARY answer, default 0).
public struct TagSpec: Codable, Sendable, Hashable {
  /// The product.
  public var type: TagKind
  /// The UID (4, 7 or 10 bytes); nil = derived from the seed.
  public var uid: HexBytes?
  /// The NDEF message initially on the tag; nil = factory content.
  public var ndef: HexBytes?
  /// Type 2: AUTH0, first protected page.
  public var auth0: Int?
  /// Type 2: the 32-bit password.
  public var pwd: HexBytes?
  /// Type 2: the 16-bit password acknowledge.
  public var pack: HexBytes?
  /// Type 2: PROT (true = read and write protected from AUTH0).
  public var prot: Bool?
  /// Type 2: LOCK0, LOCK1.
  public var staticLock: HexBytes?
  /// Type 2: LOCK2, LOCK3, LOCK4.
  public var dynamicLock: HexBytes?
  /// Type 2: CC override (4 bytes).
  public var cc: HexBytes?
  /// Type 4: MLe.
  public var mle: Int?
  /// Type 4: MLc.
  public var mlc: Int?
  /// Type 4: maximum NDEF file size (bytes, NLEN included).
  public var maxNDEFSize: Int?
  /// Type 4: NDEF file write access byte (00 granted, FF none).
  public var writeAccess: Int?
  /// Type 4: NDEF file read access byte.
  public var readAccess: Int?
  /// Type 4: FSCI announced in the ATS.
  public var fsci: Int?
  /// Type 4: FWI announced in the ATS.
  public var fwi: Int?
  /// Type 4: S(WTX) count before each UPDATE BINARY answer.
  public var wtx: Int?

  /// A tag of `type` with every option at its default.
  public init(type: TagKind, uid: [UInt8]? = nil, ndef: [UInt8]? = nil) {
    self.type = type
    self.uid = uid.map(HexBytes.init)
    self.ndef = ndef.map(HexBytes.init)
  }

  private enum CodingKeys: String, CodingKey {
    case type, uid, ndef, auth0, pwd, pack, prot, cc, mle, mlc, fsci, fwi, wtx
    case staticLock = "static_lock"
    case dynamicLock = "dynamic_lock"
    case maxNDEFSize = "max_ndef_size"
    case writeAccess = "write_access"
    case readAccess = "read_access"
  }
}

/// One app action (`op` key). Hex arguments are strings.
///
/// | `op` | extra keys | Core NFC call |
/// |---|---|---|
/// | `connect` | — | `session.connect(to:)` (anticollision + SELECT, RATS for ISO-DEP) |
/// | `queryNDEFStatus` | — | `queryNDEFStatus` |
/// | `readNDEF` | — | `readNDEF` |
/// | `writeNDEF` | `ndef`: hex message | `writeNDEF` |
/// | `writeLock` | — | `writeLock` |
/// | `sendMiFareCommand` | `data`: hex, no CRC | `sendMiFareCommand(commandPacket:)` |
/// | `sendCommand` | `apdu`: hex C-APDU | `sendCommand(apdu:)` |
/// | `authenticate` | `pwd`: hex, 4 bytes | PWD_AUTH through `sendMiFareCommand` |
/// | `disconnect` | — | `invalidate()` (deselect/HLTA, field off) |
/// | `wait` | `ms`: integer | app-side delay |
/// | `restartPolling` | — | `restartPolling()` (field off, new polling round) |
public enum ScenarioAction: Codable, Sendable, Hashable {
  case connect
  case queryNDEFStatus
  case readNDEF
  case writeNDEF(message: [UInt8])
  case writeLock
  case sendMiFareCommand(data: [UInt8])
  case sendCommand(apdu: [UInt8])
  case authenticate(password: [UInt8])
  case disconnect
  case wait(ms: Int)
  case restartPolling

  /// The `op` string (also the operation kind in `GroundTruth`).
  public var op: String {
    switch self {
    case .connect: "connect"
    case .queryNDEFStatus: "queryNDEFStatus"
    case .readNDEF: "readNDEF"
    case .writeNDEF: "writeNDEF"
    case .writeLock: "writeLock"
    case .sendMiFareCommand: "sendMiFareCommand"
    case .sendCommand: "sendCommand"
    case .authenticate: "authenticate"
    case .disconnect: "disconnect"
    case .wait: "wait"
    case .restartPolling: "restartPolling"
    }
  }

  private enum CodingKeys: String, CodingKey { case op, ndef, data, apdu, pwd, ms }

  /// Decodes `{"op": …}` with its extra key.
  /// - Throws: `DecodingError` for an unknown `op` or a missing/invalid argument.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    let op = try c.decode(String.self, forKey: .op)
    switch op {
    case "connect": self = .connect
    case "queryNDEFStatus": self = .queryNDEFStatus
    case "readNDEF": self = .readNDEF
    case "writeNDEF": self = .writeNDEF(message: try c.decode(HexBytes.self, forKey: .ndef).bytes)
    case "writeLock": self = .writeLock
    case "sendMiFareCommand":
      self = .sendMiFareCommand(data: try c.decode(HexBytes.self, forKey: .data).bytes)
    case "sendCommand": self = .sendCommand(apdu: try c.decode(HexBytes.self, forKey: .apdu).bytes)
    case "authenticate":
      self = .authenticate(password: try c.decode(HexBytes.self, forKey: .pwd).bytes)
    case "disconnect": self = .disconnect
    case "wait":
      // Bounded so the wait's ticks (13 560 per ms) and the capture's times stay in range.
      let ms = try c.decode(Int.self, forKey: .ms)
      guard (0...86_400_000).contains(ms) else {
        throw DecodingError.dataCorruptedError(
          forKey: .ms, in: c, debugDescription: "wait ms is 0…86400000 (one day), got \(ms)")
      }
      self = .wait(ms: ms)
    case "restartPolling": self = .restartPolling
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .op, in: c,
        debugDescription: "unknown op \"\(op)\"; expected connect, queryNDEFStatus, readNDEF, "
          + "writeNDEF, writeLock, sendMiFareCommand, sendCommand, authenticate, disconnect, "
          + "wait or restartPolling")
    }
  }

  /// Encodes `{"op": …}` with its extra key.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(op, forKey: .op)
    switch self {
    case .writeNDEF(let m): try c.encode(HexBytes(m), forKey: .ndef)
    case .sendMiFareCommand(let d): try c.encode(HexBytes(d), forKey: .data)
    case .sendCommand(let a): try c.encode(HexBytes(a), forKey: .apdu)
    case .authenticate(let p): try c.encode(HexBytes(p), forKey: .pwd)
    case .wait(let ms): try c.encode(ms, forKey: .ms)
    default: break
    }
  }
}

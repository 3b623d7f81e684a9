/// SAK (SEL_RES), the 1-byte answer to SELECT (plus CRC_A).
///
/// b3 (0x04) cascade bit: the UID is not complete; b6 (0x20) ISO/IEC 14443-4 compliant;
/// b7 (0x40) ISO/IEC 18092 (NFC-DEP) compliant; the other bits are NXP product coding.
/// Sources: ISO/IEC 14443-3 §6.5.3.4; nfc-facts §1.4 (libnfc `target-subr.c`, proxmark3
/// `cmdhf14a.c` after NXP AN10833).
public struct SAK: Sendable, Equatable {
  /// The byte.
  public var value: UInt8

  /// Creates a SAK.
  public init(_ value: UInt8) { self.value = value }

  /// b3: another cascade level follows.
  public var cascade: Bool { value & 0x04 != 0 }
  /// b6: the tag speaks ISO/IEC 14443-4 (RATS may follow). Only a final SAK (b3 = 0) says
  /// so: with the cascade bit set the other bits are not coded (ISO/IEC 14443-3 §6.5.3.4).
  public var iso14443_4: Bool { !cascade && value & 0x20 != 0 }
  /// b7: the tag speaks ISO/IEC 18092 NFC-DEP (final SAK only, as b6).
  public var iso18092: Bool { !cascade && value & 0x40 != 0 }

  /// True for the values that mean a MIFARE Classic (or its emulation) answers plain
  /// MIFARE Classic commands (08, 09, 18, 19, 88, and 28/38 until a RATS).
  public var isMIFAREClassic: Bool {
    switch value {
    case 0x08, 0x09, 0x18, 0x19, 0x88, 0x28, 0x38: return true
    default: return false
    }
  }

  /// The usual product for a final SAK (nfc-facts §1.4), nil when the value is not listed.
  public var product: String? {
    switch value {
    case 0x00: return "Type 2 / MIFARE Ultralight"
    case 0x08: return "MIFARE Classic 1K"
    case 0x09: return "MIFARE Mini"
    case 0x0A: return "Fudan FM11RF005"
    case 0x10: return "MIFARE Plus 2K SL2"
    case 0x11: return "MIFARE Plus 4K SL2"
    case 0x18: return "MIFARE Classic 4K"
    case 0x19: return "MIFARE Classic 2K"
    case 0x20: return "ISO-DEP / Type 4"  // DESFire, Plus SL3, NTAG 424, JCOP/EMV
    case 0x28: return "MIFARE Classic 1K emulation + ISO-DEP"
    case 0x38: return "MIFARE Classic 4K emulation + ISO-DEP"
    case 0x53: return "Fudan FM11RF08SH"
    case 0x88: return "Infineon MIFARE Classic 1K"
    case 0x98: return "Gemplus MPCOS"
    default: return nil
    }
  }

  /// `0x20`.
  public var hexValue: String { "0x" + Hex.string([value]) }

  /// The decode at cascade level `level`:
  /// `SAK 0x00 (UID complete, not ISO 14443-4: Type 2 / MIFARE Ultralight)`.
  public func decode(level: CascadeLevel?) -> LayerDecode {
    var notes = [cascade ? "UID not complete" : "UID complete"]
    if !cascade { notes.append(iso14443_4 ? "ISO 14443-4" : "not ISO 14443-4") }
    if iso18092 { notes.append("ISO 18092") }
    var text = notes.joined(separator: ", ")
    if !cascade, let product { text += ": " + product }
    var fields: [LayerField] = [LayerField("sak", .hex([value]))]
    if let level { fields.append(LayerField("level", .string(level.name))) }
    fields.append(LayerField("uid_complete", .bool(!cascade)))
    if !cascade {
      fields += [
        LayerField("iso14443_4", .bool(iso14443_4)), LayerField("iso18092", .bool(iso18092)),
      ]
    }
    if !cascade, let product { fields.append(LayerField("product", .string(product))) }
    return LayerDecode(.iso14443A, "SAK", "SAK \(hexValue) (\(text))", fields)
  }
}

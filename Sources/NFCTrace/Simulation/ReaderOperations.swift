/// The app-level operations dispatched by tag technology.
extension SimulatedReader {
  func queryNDEFStatus() throws -> String? {
    try requireConnection()
    if tagKind == .type4 {
      try detectType4()
      return "\(t4.status.rawValue), capacity \(t4.status == .notSupported ? 0 : type4Capacity)"
    }
    try detectType2()
    return "\(t2.status.rawValue), capacity \(t2.capacity)"
  }

  func readNDEF() throws -> String? {
    try requireConnection()
    return tagKind == .type4 ? try type4ReadNDEF() : try type2ReadNDEF()
  }

  func writeNDEF(_ message: [UInt8]) throws -> String? {
    try requireConnection()
    return tagKind == .type4 ? try type4WriteNDEF(message) : try type2WriteNDEF(message)
  }

  func writeLock() throws -> String? {
    try requireConnection()
    guard tagKind != .type4 else {
      throw OperationFailure(
        reason: "writeLock is not supported on Type 4 tags by this profile",
        error: .unsupportedFeature)
    }
    return try type2WriteLock()
  }

  /// `sendMiFareCommand`: the app's bytes + CRC_A (with fault `app-appends-crc` the app's own
  /// CRC stays inside the frame and the reader adds another).
  func sendMiFareCommand(_ data: [UInt8]) throws -> String? {
    try requireConnection()
    guard tagKind != .type4, !data.isEmpty else {
      throw OperationFailure(
        reason: "sendMiFareCommand needs a MIFARE Ultralight family tag and data",
        error: .unsupportedFeature)
    }
    let payload = appAppendsCRC ? CRC.appendingCRCA(data) : data
    let timeout = data[0] == 0xA2 ? Self.writeTimeout : Self.commandTimeout
    switch try type2Command(payload, timeout: timeout) {
    case .ack: return "ACK"
    case .data(let d): return "answer \(Hex.string(d))"
    }
  }

  /// PWD_AUTH through `sendMiFareCommand`: PACK on success, NAK → 102.
  func authenticate(_ pwd: [UInt8]) throws -> String? {
    try requireConnection()
    guard tagKind != .type4, pwd.count == 4 else {
      throw OperationFailure(
        reason: "PWD_AUTH needs a Type 2 tag and a 4-byte password", error: .unsupportedFeature)
    }
    guard case .data(let pack) = try type2Command([0x1B] + pwd), pack.count == 2 else {
      throw LinkError.protocolError("PWD_AUTH answer is not a 2-byte PACK")
    }
    return "PACK \(Hex.string(pack))"
  }

  /// `sendCommand(apdu:)`: one APDU over ISO-DEP; any status word is a success for the app.
  func sendCommand(_ apdu: [UInt8]) throws -> String? {
    try requireConnection()
    guard tagKind == .type4 else {
      throw OperationFailure(
        reason: "sendCommand(apdu:) needs an ISO 7816 tag", error: .unsupportedFeature)
    }
    let r = try exchangeAPDU(apdu)
    return "SW \(Hex.string(r.suffix(2)).uppercased())"
  }

  /// Invalidate: S(DESELECT) or HLTA, then field off.
  func disconnect() throws -> String? {
    if connected, channel.fieldIsOn {
      if tagKind == .type4 { _ = try? isoDepBlock([0xC2]) } else { halt() }
    }
    dropConnection()
    return nil
  }
}

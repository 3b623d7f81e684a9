/// A link-level failure seen by the simulated reader.
enum LinkError: Error {
  /// No valid answer, even after the one retry.
  case noAnswer
  /// A Type 2 NAK with its 4-bit code.
  case nak(UInt8)
  /// A malformed or unexpected answer.
  case protocolError(String)
}

/// An operation that ended without success, with what the app sees.
struct OperationFailure: Error {
  var outcome: GroundTruth.Outcome = .failed
  var reason: String
  /// The Core NFC error, nil where no source names the one Core NFC gives.
  var error: CoreNFCError?
}

/// What the reader has learned about a Type 2 tag in the current connection.
struct Type2Knowledge {
  /// Bytes read so far, by address: 16 + 255 × 8 bytes, the largest data area a CC can
  /// announce.
  var image = [UInt8](repeating: 0, count: 2056)
  /// Which bytes of `image` have been read.
  var known = [Bool](repeating: false, count: 2056)
  var detected = false
  var status = NDEFStatus.notSupported
  var capacity = 0
  var tlv: SimulatedTLVArea.NDEFTLV?
  var areaEnd = 16
  /// Last page, from GET_VERSION, nil when unknown.
  var dynamicLockPage: Int?
}

/// What the reader has learned about a Type 4 tag in the current connection.
struct Type4Knowledge {
  var detected = false
  var status = NDEFStatus.notSupported
  var mle = 0
  var mlc = 0
  var maxSize = 0
  var fileID: [UInt8] = [0xE1, 0x04]
  var nlen = 0
  var writeAccess: UInt8 = 0
}

/// ISO-DEP state of the reader (PCD) after RATS.
struct ISODEPLink {
  var fsc = 32
  var fwt: Int64 = 65_536
  var blockNumber: UInt8 = 0
}

/// The simulated reader: runs the scenario's actions with its `ReaderProfile` over an
/// `RFChannel`, and records what each operation did for the `GroundTruth`.
///
/// Operation bookkeeping: an operation belongs to the session it ends in (the current session
/// when it sent nothing); see `placeFrames(of:from:)` for one that crosses a session start. A failed transmission (no answer after the retry)
/// ends the connection: the reader switches the field off, and later operations fail with
/// 104 (tag not connected) until `connect` or `restartPolling` polls again.
final class SimulatedReader {
  let channel: RFChannel
  let profile: ReaderProfile
  let tagKind: TagKind
  let primaryUID: [UInt8]
  var appAppendsCRC = false
  var reactivateBeforeWrite = false
  /// The second tag of fault `second-tag` and the polling rounds it stays for.
  var secondTag: (any VirtualTag)?
  var secondTagPolls = 0
  private var pollRounds = 0

  var connected = false
  /// CL1 answer received while polling; connect continues from it.
  var pendingCL1: [UInt8]?
  var isoDep = ISODEPLink()
  var t2 = Type2Knowledge()
  var t4 = Type4Knowledge()

  private(set) var operations: [(session: Int, op: GroundTruth.Operation)] = []
  var sessionUIDs: [Int: [UInt8]] = [:]
  var ndefRead: [UInt8]?
  var ndefWritten: [UInt8]?

  init(channel: RFChannel, profile: ReaderProfile, tagKind: TagKind, primaryUID: [UInt8]) {
    self.channel = channel
    self.profile = profile
    self.tagKind = tagKind
    self.primaryUID = primaryUID
  }

  /// Runs the implicit first polling round, every action, and switches the field off.
  func run(_ actions: [ScenarioAction]) {
    perform("poll") { try self.pollRound() }
    for action in actions { perform(action) }
    channel.fieldOff()
  }

  private func perform(_ action: ScenarioAction) {
    perform(action.op) {
      switch action {
      case .connect: return try self.connect()
      case .queryNDEFStatus: return try self.queryNDEFStatus()
      case .readNDEF: return try self.readNDEF()
      case .writeNDEF(let message): return try self.writeNDEF(message)
      case .writeLock: return try self.writeLock()
      case .sendMiFareCommand(let data): return try self.sendMiFareCommand(data)
      case .sendCommand(let apdu): return try self.sendCommand(apdu)
      case .authenticate(let pwd): return try self.authenticate(pwd)
      case .disconnect: return try self.disconnect()
      case .wait(let ms):
        self.channel.wait(AirTiming.ticks(ms: Double(ms)))
        return nil
      case .restartPolling:
        self.dropConnection()
        self.channel.wait(AirTiming.ticks(ms: 10))
        return try self.pollRound()
      }
    }
  }

  private func perform(_ kind: String, _ body: () throws -> String?) {
    let first = channel.frames.count
    var op = GroundTruth.Operation(kind: kind, outcome: .ok, reason: nil)
    do {
      op.reason = try body()
    } catch let failure as OperationFailure {
      (op.outcome, op.reason, op.error) = (failure.outcome, failure.reason, failure.error)
    } catch let link as LinkError {
      var f = failure(for: link)
      // A refused write inside writeNDEF/writeLock reaches the app as the NDEF write failure
      // (nfc-facts §8.2: 401 "NDEF write failed"), not as a raw transceive error.
      if case .nak = link, kind == "writeNDEF" || kind == "writeLock" {
        f.error = .tagUpdateFailure
      }
      (op.outcome, op.reason, op.error) = (f.outcome, f.reason, f.error)
    } catch {
      (op.outcome, op.reason, op.error) = (.failed, "\(error)", .tagResponseError)
    }
    placeFrames(of: &op, from: first)
    operations.append((max(channel.sessionIndex, 0), op))
  }

  /// Sets the frames of an operation that started at frame `first` and is listed in the
  /// current session. One that crossed a session start (the HLTA and re-activation of fault
  /// `reactivate-before-write`, restartPolling's field off then on, a polling round halting one
  /// tag to select the next) runs its last commands in the session it ends in: it is listed
  /// there, from that session's first frame, so that the session's range holds it; the frames
  /// it sent before close the previous session.
  private func placeFrames(of op: inout GroundTruth.Operation, from first: Int) {
    guard channel.frames.count > first else { return }
    op.firstFrame = max(first, channel.sessionStarts.last ?? first)
    op.lastFrame = channel.frames.count - 1
  }

  /// Maps a link error to the operation's outcome; a lost tag also ends the connection.
  private func failure(for link: LinkError) -> OperationFailure {
    switch link {
    case .noAnswer:
      let removed = !channel.primaryPresent
      giveUp()
      return OperationFailure(
        outcome: removed ? .interrupted : .failed,
        reason: removed
          ? "tag left the field: no answer after one retry"
          : "no answer after one retry",
        error: .tagConnectionLost)
    case .nak(let code):
      return OperationFailure(reason: "NAK \(code)", error: .tagResponseError)
    case .protocolError(let why):
      return OperationFailure(reason: why, error: .tagResponseError)
    }
  }

  /// Gives up on the tag: field off, connection and cached tag knowledge gone.
  func giveUp() {
    channel.fieldOff()
    dropConnection()
  }

  func dropConnection() {
    channel.fieldOff()
    connected = false
    pendingCL1 = nil
    t2 = Type2Knowledge()
    t4 = Type4Knowledge()
  }

  func requireConnection() throws {
    guard connected else {
      throw OperationFailure(reason: "tag not connected", error: .tagNotConnected)
    }
  }

  /// A polling round: field on, the second tag present for its first `polls` rounds.
  private func pollRound() throws -> String? {
    pollRounds += 1
    channel.secondary = pollRounds <= secondTagPolls ? secondTag : nil
    return try poll()
  }

  /// Reader gap before the next frame (profile base + seeded jitter).
  func gap() -> Int64 {
    max(profile.gapBase + Int64(channel.rng.below(profile.gapJitter)), AirTiming.minimumReaderGap)
  }

  /// The sessions with their operations and UIDs.
  func sessions() -> [GroundTruth.Session] {
    let starts = channel.sessionStarts
    let lastFrame = channel.frames.count - 1
    return starts.enumerated().map { i, start in
      GroundTruth.Session(
        index: i, uid: sessionUIDs[i] ?? [], firstFrame: start,
        lastFrame: i + 1 < starts.count ? starts[i + 1] - 1 : lastFrame,
        operations: operations.filter { $0.session == i }.map(\.op))
    }
  }
}

/// `Frame.sourceFlags` set on frames recovered from a reader's host traffic (libnfc logs, USB
/// captures) rather than captured on the air: they say what the reader did itself, so that the
/// layers read the frames as what they are.
public enum ReaderChipFlag {
  /// ATQA, SAK or ATS the reader reported after activating the tag itself (PN53x
  /// InListPassiveTarget / InAutoPoll); the ATQA frame also carries `uid=<hex>`.
  public static let targetInfo = "pn53x-target-info"
  /// With `targetInfo`: a further target the PN53x listed (InListPassiveTarget /
  /// InAutoPoll NbTg 2) besides the one whose activation the frames show; the frame holds
  /// its target data as the chip reported it, `Tg SENS_RES SEL_RES NFCIDLength NFCID1 [ATS]`
  /// (PN533 user manual §8.4.5). Shown, not an activation.
  public static let listedTarget = "pn53x-listed-target"
  /// With `targetInfo`: the activation of a listed target shown again because an
  /// InDataExchange addressed it by its Tg after another target's (PN533 user manual §8.4.8).
  public static let targetSelected = "pn53x-target-selected"
  /// An APDU, or the card's answer, that the reader carried in ISO-DEP blocks it built and
  /// took apart itself (PN53x InDataExchange to an ISO-DEP target; a PC/SC reader's APDU to
  /// the card): the frame is the blocks' INF, not the blocks.
  public static let isoDEPPayload = "pn53x-iso-dep-payload"
  /// A successful exchange with no data: the reader consumed the tag's 4-bit ACK.
  public static let emptyAnswer = "pn53x-empty-answer"
  /// PN53x status bit MI: more data follows in the next exchange.
  public static let moreInformation = "pn53x-more-information"
  /// Field on/off from the PN53x RFConfiguration command.
  public static let rfConfiguration = "pn53x-rfconfiguration"
  /// A READ and its answer from a PC/SC READ BINARY (`FF B0`): the answer holds only the
  /// `Le` bytes the reader returned of the tag's 16.
  public static let readBinary = "pcsc-read-binary"
  /// The ATR a PC/SC reader built for the card it activated (CCID IccPowerOn answer).
  public static let atr = "pcsc-atr"
  /// The UID a PC/SC reader reported (GET DATA `FF CA 00 00`).
  public static let uid = "pcsc-uid"
  /// An empty tag frame standing for the reader's report that the command failed (PC/SC
  /// status 63 00, PN53x MIFARE authentication error): a NAK, a wrong key or no answer; the
  /// reader does not say which.
  public static let readerFailure = "reader-failure"
  /// An empty tag frame with a bad CRC standing for the reader's report that the tag's answer
  /// arrived damaged (PN53x status 02h CRC, 03h parity, 05h framing, 13h frame format; NCI
  /// status 02h RF frame corrupted, B0h RF transmission error): the tag answered, its bytes
  /// are not known.
  public static let damagedAnswer = "reader-damaged-answer"
  /// On the field-off event that ends an activation: the log recorded data packets of the
  /// activation without their payload (an Android NFC snoop log not in its full mode), so
  /// what the reader sent and the tag answered is not in the trace.
  public static let dataNotLogged = "data-not-logged"
}

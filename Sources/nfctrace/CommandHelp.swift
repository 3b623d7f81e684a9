/// The text `nfctrace COMMAND --help` (and `nfctrace help COMMAND`) prints below the command's
/// usage line: what the command answers, each option, and an example. The README describes
/// the output in full; this is what a user needs at the terminal.
enum CommandHelp {
  /// The help of `command`, nil for a command without one.
  static func text(_ command: String) -> String? { texts[command] }

  private static let inputFormat = """
      --input-format NAME  read the input as NAME instead of detecting its format
                           (nfctrace formats lists the names)
    """

  private static let texts: [String: String] = [
    "timeline": """
    The annotated timeline: a header per session (technology, UID), then one line per frame:
    time since the start, gap to the previous frame, direction (R→T reader to tag, T→R tag
    to reader), bytes, CRC mark (ok, !! bad, nc not captured, enc ciphertext) and every
    layer's meaning, innermost first. Requests without an answer are marked [no answer];
    findings follow the frame they concern; ▸ and ◂ lines open and close the Core NFC
    operations (connect, readNDEF, writeNDEF, …) the frames belong to, with the outcome.

    options:
      --format text|json   text (default) or one JSON document (docs/json.md)
      --no-color           no ANSI colours (also when NO_COLOR is set or stdout is no terminal)
    \(inputFormat)

    example:
      nfctrace timeline capture.pcap --no-color | less
    """,
    "sessions": """
    One line per session (a tag's exchange from its activation until the field drops or
    another activation starts): index, times in seconds, tag product and UID, and the
    operations the exchange amounts to, in Core NFC's terms (connect, queryNDEFStatus,
    readNDEF, writeNDEF, writeLock, authenticate, and transceive for the app's own commands:
    sendMiFareCommand, sendCommand) with their outcomes (ok, failed, interrupted, unknown).
    The index is what --session takes in report, diagnose and diff.

    options:
      --format text|json   text (default) or JSON (docs/json.md)
    \(inputFormat)

    example:
      nfctrace sessions capture.pcap
    """,
    "report": """
    The tag's contents as a session left them (or from a static dump: Flipper .nfc,
    Proxmark3 JSON, a raw Type 2 image): product, UID, CC, lock bits, TLVs, the NDEF message
    record by record, and the memory map with each byte's origin (read, written, unknown).
    Without --session: the last session that touched the tag (read or wrote its memory,
    or ran an operation other than connect).

    options:
      --session N          report session N (the index nfctrace sessions prints)
      --all                report every session, in order
      --format text|json   text (default) or JSON (docs/json.md)
      --show-secrets       print Wi-Fi keys and passwords instead of masking them
    \(inputFormat)

    example:
      nfctrace report capture.pcap --session 2
    """,
    "diagnose": """
    Verdicts on every session's NDEF operations: for a failed or suspicious write, the root
    cause, the evidence frames, the Core NFC error the app saw (e.g. 100 tag connection lost,
    402 size too small) and the fix in Core NFC terms.

    options:
      --session N          diagnose session N only (the index nfctrace sessions prints)
      --expect NDEF        the message the app meant to write, as hex or @FILE (binary):
                           the tag's end contents are compared with it
      --format text|json   text (default) or JSON (docs/json.md)
      --fail-on error|warning
                           exit 1 when a finding of that severity or worse is found (for CI)
    \(inputFormat)

    example:
      nfctrace diagnose field-failure.pcap --expect @message.ndef --fail-on error
    """,
    "diff": """
    Compares a session of A with a session of B (e.g. the phone that works and the one that
    fails): operations and outcomes, the commands each sent, the memory and NDEF they left,
    and timing. The first line says whether they differ; the exit status is 0 either way.

    options:
      --session-a N        the session of A to compare
      --session-b M        the session of B to compare
      --format text|json   text (default) or JSON (docs/json.md)
      --show-secrets       print Wi-Fi keys and passwords instead of masking them
    \(inputFormat)

    example:
      nfctrace diff works.pcap fails.pcap
    """,
    "ndef": """
    Decodes and validates an NDEF message (or, with --tlv, a Type 2 data area or memory dump):
    every record's header flags (MB/ME/CF/SR/IL), TNF, type, ID and payload, decoded for the
    well-known and common MIME types, with findings where the bytes break the NFC Forum
    specifications.

    options:
      --tlv                INPUT is a Type 2 data area (TLVs from page 4) or a whole dump
      --mode strict|relax|ignore
                           as ndeflib: strict stops at the first structural error,
                           relax (default) reports it and goes on, ignore never fails
      --format text|json   text (default) or JSON (docs/json.md)
      --show-secrets       print Wi-Fi keys and passwords instead of masking them

    example:
      nfctrace ndef "d1 01 0c 55 04 65 78 61 6d 70 6c 65 2e 63 6f 6d"
    """,
    "simulate": """
    Runs the reference simulator: a virtual tag, a reader following the iOS or Android NDEF
    procedures, the app's calls and injected faults, all from a scenario (docs/scenario.md;
    - reads it from standard input). Writes what a perfect sniffer would capture.

    options:
      -o, --output OUT     the trace to write
      --format pcap|pcapng|pm3-trace|pm3-text
                           the output format (default: from OUT's extension)
      --truth FILE         also write the ground truth as JSON (operations, Core NFC
                           errors, the tag's final memory)
      --frames N           run the scenarios in turn until the output holds N frames

    example:
      nfctrace simulate Traces/scenarios/t2-removed-mid-write.json -o torn.pcap
    """,
    "convert": """
    Converts any trace nfctrace reads into pcap or pcapng (link type 264, for Wireshark and
    tshark), a Proxmark3 .trace or a trace list table, keeping the frames' times. What the
    output format cannot keep is warned on standard error.

    options:
      -o, --output OUT     the file to write
      --format pcap|pcapng|pm3-trace|pm3-text
                           the output format (default: from OUT's extension)
    \(inputFormat)

    example:
      nfctrace convert hf-14a-sniff.trace -o sniff.pcapng
    """,
    "formats": """
    Lists the input formats nfctrace recognises, with the names --input-format takes.
    """,
  ]
}

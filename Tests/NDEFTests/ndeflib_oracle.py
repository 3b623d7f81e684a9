#!/usr/bin/env python3
"""Oracle for NDEFTests' differential test: decodes every NDEF message of a corpus with
nfcpy/ndeflib (`import ndef`) and prints one JSON object per input line.

Input: a file with one message per line as lower-case hex ("" = empty message).
Output per line: {"strict": R, "relax": R, "ignore": R, "typed": R} where
R = {"ok": bool, "error": str|None, "records": [{"tnf": int, "type": str, "id": hex,
"payload": hex, ...}]}.
"raw" modes decode with known_types={} (every record generic); "typed" decodes strict with
the Text and URI record classes only and adds text/language/encoding or uri.
Exit status 3 when ndef cannot be imported.
"""
import json
import sys

try:
    import ndef
    from ndef.record import Record
except Exception as exc:  # pragma: no cover
    print("ndeflib missing: %s" % exc, file=sys.stderr)
    sys.exit(3)

_captured = []
_orig_decode = Record._decode.__func__


def _patched_decode(cls, stream, errors, known_types):
    # Record the TNF of every record header ndeflib reads (it does not keep the TNF).
    pos = stream.tell()
    result = _orig_decode(cls, stream, errors, known_types)
    if result[0] is not None:
        _captured.append(stream.getvalue()[pos] & 0x07)
    return result


Record._decode = classmethod(_patched_decode)

TYPED = {"urn:nfc:wkt:T": ndef.TextRecord, "urn:nfc:wkt:U": ndef.UriRecord}


def describe(rec, tnf):
    out = {"tnf": tnf, "type": rec.type, "id": rec.name.encode("latin-1").hex(),
           "payload": bytes(rec.data).hex()}
    if isinstance(rec, ndef.TextRecord):
        out.update(text=rec.text, language=rec.language, encoding=rec.encoding)
    if isinstance(rec, ndef.UriRecord):
        out.update(uri=rec.iri)
    return out


def run(octets, errors, known):
    del _captured[:]
    records = []
    try:
        for rec in ndef.message_decoder(octets, errors=errors, known_types=known):
            tnf = _captured[len(records)] if len(records) < len(_captured) else -1
            records.append(describe(rec, tnf))
        return {"ok": True, "error": None, "records": records}
    except Exception as exc:  # ndeflib raises DecodeError, and UnicodeDecodeError for non-ASCII TYPE
        return {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc), "records": records}


def main():
    with open(sys.argv[1]) as corpus:
        for line in corpus:
            octets = bytes.fromhex(line.strip())
            print(json.dumps({
                "strict": run(octets, "strict", {}),
                "relax": run(octets, "relax", {}),
                "ignore": run(octets, "ignore", {}),
                "typed": run(octets, "strict", TYPED),
            }))


if __name__ == "__main__":
    main()

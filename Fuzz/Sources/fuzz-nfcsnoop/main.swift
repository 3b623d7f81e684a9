import FuzzSupport
import NFCTraceAndroid

// Android NFC snoop log (base64 text or its binary), then the whole pipeline.
Fuzz.run { data, size in
  Fuzz.trace(Fuzz.data(data, size), format: NFCSnoopImporter.format)
  return 0
}

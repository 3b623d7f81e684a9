import FuzzSupport
import NFCTrace

// NFC-Laboratory JSON, then the whole pipeline.
Fuzz.run { data, size in
  Fuzz.trace(Fuzz.data(data, size), format: NFCLabImporter.format)
  return 0
}

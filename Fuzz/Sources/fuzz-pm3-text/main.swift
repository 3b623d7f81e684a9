import FuzzSupport
import NFCTrace

// Proxmark3 `trace list` text, then the whole pipeline.
Fuzz.run { data, size in
  Fuzz.trace(Fuzz.data(data, size), format: Proxmark3TextImporter.format)
  return 0
}

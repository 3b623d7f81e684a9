import FuzzSupport
import NFCTrace

// Proxmark3 binary trace log, then the whole pipeline.
Fuzz.run { data, size in
  Fuzz.trace(Fuzz.data(data, size), format: Proxmark3BinaryImporter.format)
  return 0
}

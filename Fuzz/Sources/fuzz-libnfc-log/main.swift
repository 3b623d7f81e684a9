import FuzzSupport
import NFCTrace

// libnfc debug log, then the whole pipeline.
Fuzz.run { data, size in
  Fuzz.trace(Fuzz.data(data, size), format: LibnfcLogImporter.format)
  return 0
}

import FuzzSupport

// a bare NDEF message through the codec, validator and renderers.
Fuzz.run { data, size in
  Fuzz.ndef(Fuzz.bytes(data, size))
  return 0
}

import FuzzSupport

// a Type 2 TLV area through the TLV walk and the NDEF it holds.
Fuzz.run { data, size in
  Fuzz.tlv(Fuzz.bytes(data, size))
  return 0
}

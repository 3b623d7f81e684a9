import FuzzSupport

// Flipper .nfc / Proxmark3 JSON dump / raw Type 2 image, then its TLV area.
Fuzz.run { data, size in
  Fuzz.tagDump(Fuzz.data(data, size))
  return 0
}

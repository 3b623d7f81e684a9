import Foundation
import NFCTrace
import NFCTracePcap
import TestSupport
import Testing

@Test func scratchDump() throws {
  for rel in ["derived/synthetic/synthetic_t2t_ndef_read_write_nak.pcap",
    "derived/synthetic/synthetic_nfcgate_style.pcapng",
    "derived/pcap/hf_14a_reader_7b_rats.text2pcap.pcapng",
    "derived/synthetic/synthetic_llcp_snep_put.pcap",
    "derived/synthetic/synthetic_usbmon_acr122_ccid.pcap"] {
    print("==", rel)
    do {
      var imp = try PcapFormats.pcap.open(TraceInput(path: TestPaths.shared(rel)))
      var n = 0
      while let f = try imp.next() {
        n += 1
        if n < 8 { print(f.index, f.timeNs, f.sourceTime!, f.direction, f.event as Any, Hex.string(f.data, separator: " "), f.crc, f.location) }
      }
      print("count", n)
      for w in imp.warnings { print("W", w) }
    } catch { print("ERR", error) }
  }
}

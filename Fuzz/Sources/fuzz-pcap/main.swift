import FuzzSupport
import NFCTracePcap

// pcap / pcapng through libpcap, then the whole pipeline.
Fuzz.run { data, size in
  Fuzz.trace(Fuzz.data(data, size), format: PcapFormats.pcap)
  return 0
}

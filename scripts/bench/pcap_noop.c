/* The physical limit of reading a pcap here: libpcap's read loop doing nothing per packet. */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv) {
  char err[PCAP_ERRBUF_SIZE];
  if (argc < 2) return 2;
  pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
  if (!p) { fprintf(stderr, "%s\n", err); return 3; }
  struct pcap_pkthdr *h;
  const u_char *d;
  unsigned long n = 0, bytes = 0;
  while (pcap_next_ex(p, &h, &d) == 1) { n++; bytes += h->caplen; }
  printf("%lu packets, %lu bytes\n", n, bytes);
  pcap_close(p);
  return 0;
}

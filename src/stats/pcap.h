/* src/stats/pcap.h
 *
 * pcapng export of the packets a run puts on its links (`fabsim run --pcap`),
 * one interface per captured directed link, named after it (leaf0->spine1).
 * RoCEv2 as Ethernet/IPv4/UDP 4791/BTH (ECN in the IP header, PFC PAUSE as
 * MAC control 0x8808 opcode 0x0101, CNP as BTH opcode 0x81); InfiniBand as
 * ERF records (linktype 197, ERF type 21) holding LRH/BTH, which Debian's
 * Wireshark dissects (it rejects LINKTYPE_INFINIBAND 247). By default
 * only the headers are kept (the model carries no payload bytes: they would
 * be zeros); the original length says how long the packet was, so Wireshark
 * shows it as truncated by the snap length. --pcap-max bounds the file
 * (default PCAP_MAX_PACKETS_DEFAULT). IB credit packets are link-level and
 * not written.
 */
#ifndef FABSIM_STATS_PCAP_H
#define FABSIM_STATS_PCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/file.h"

struct net;
struct diag;

/* Snap lengths: headers only (the default), or the whole packet. */
#define PCAP_SNAP_HEADERS 0u
#define PCAP_SNAP_FULL UINT32_MAX
/* Default --pcap-max: like --trace-max, a bound on the file (about 100 MB of
 * header-only records). */
#define PCAP_MAX_PACKETS_DEFAULT 1000000u

struct pcap_sink {
    FILE *f;           /* out.f */
    struct fs_out out; /* core/file.h */
    bool roce;
    uint32_t snaplen; /* PCAP_SNAP_HEADERS, PCAP_SNAP_FULL or bytes per packet */
    uint32_t *iface;  /* per port: its pcapng interface id, UINT32_MAX = none yet */
    uint32_t nifaces;
    uint64_t dropped;        /* packets not written past max_packets */
    uint32_t port_a, port_b; /* link filter: both directions; UINT32_MAX = all */
    uint32_t flow_qp;        /* QP filter, UINT32_MAX = all */
    uint64_t max_packets, written;
};

/* filter: NULL, "link=NAME" (a link or one direction) or "flow=QP";
 * max_packets 0 = PCAP_MAX_PACKETS_DEFAULT; snaplen as above. Attaches the
 * sink to n (n->trace). 0 or FS_EINVAL with `d`. */
int pcap_sink_open(struct pcap_sink *s, struct net *n, const char *path, const char *filter,
                   uint64_t max_packets, uint32_t snaplen, struct diag *d);
/* Detaches and renames the finished file into place (core/file.h): 0, or -1
 * with errno (a write failed; the previous file, if any, is left). */
int pcap_sink_close(struct pcap_sink *s, struct net *n);
/* Detaches and removes the unfinished file. */
void pcap_sink_abort(struct pcap_sink *s, struct net *n);

#endif /* FABSIM_STATS_PCAP_H */

/* src/stats/pcap.h
 *
 * pcapng export of the packets a run puts on its links (`fabsim run --pcap`),
 * one interface per captured directed link, named after it (leaf0->spine1).
 * RoCEv2 as Ethernet/IPv4/UDP 4791/BTH (ECN in the IP header, PFC PAUSE as
 * MAC control 0x8808 opcode 0x0101, CNP as BTH opcode 0x81); InfiniBand as
 * ERF records (linktype 197, ERF type 21) holding LRH/BTH, which Debian's
 * Wireshark dissects (it rejects LINKTYPE_INFINIBAND 247). By default
 * whole packets are written (payload and CRCs as zeros: the model carries no
 * payload bytes), since Wireshark's InfiniBand dissector marks a data packet
 * whose payload was cut "[Malformed Packet]"; --pcap-snaplen headers keeps
 * the headers only with the original length. A FILE ending in .gz is
 * gzip-compressed (Wireshark reads it as is). --pcap-max and --pcap-max-bytes
 * bound the file (PCAP_MAX_PACKETS_DEFAULT, PCAP_MAX_BYTES_DEFAULT). IB
 * credit packets are link-level and not written.
 */
#ifndef FABSIM_STATS_PCAP_H
#define FABSIM_STATS_PCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/file.h"

struct net;
struct diag;

/* Snap lengths: headers only, or the whole packet (the default). */
#define PCAP_SNAP_HEADERS 0u
#define PCAP_SNAP_FULL UINT32_MAX
/* Default --pcap-max: like --trace-max, a bound on the file (about 100 MB of
 * header-only records). */
#define PCAP_MAX_PACKETS_DEFAULT 1000000u
/* Default --pcap-max-bytes: 128 MiB, the size of about 1 000 000 header-only
 * records, or 31 000 whole 4 KiB packets (a .gz file holds some 58 times
 * more). */
#define PCAP_MAX_BYTES_DEFAULT ((uint64_t)128 << 20)

struct pcap_sink {
    FILE *f;           /* out.f */
    struct fs_out out; /* core/file.h */
    bool roce;
    bool gz;          /* the path ends in .gz: gzip-compressed */
    uint32_t snaplen; /* PCAP_SNAP_HEADERS, PCAP_SNAP_FULL or bytes per packet */
    uint32_t *iface;  /* per port: its pcapng interface id, UINT32_MAX = none yet */
    uint32_t nifaces;
    uint64_t dropped;        /* packets not written past max_packets */
    uint32_t port_a, port_b; /* link filter: both directions; UINT32_MAX = all */
    uint32_t flow_qp;        /* QP filter, UINT32_MAX = all */
    uint64_t max_packets, written;
    uint64_t max_bytes;   /* --pcap-max-bytes */
    uint64_t bytes;       /* the file's bytes so far (compressed: deflate's output) */
    uint64_t over_budget; /* packets not written past max_bytes */
    struct z_stream_s *z; /* a .gz file: zlib's stream (only pcap.c includes zlib.h) */
};

/* filter: NULL, "link=NAME" (a link or one direction) or "flow=QP";
 * max_packets 0 = PCAP_MAX_PACKETS_DEFAULT, max_bytes 0 =
 * PCAP_MAX_BYTES_DEFAULT; snaplen as above; a path ending in ".gz" is
 * gzip-compressed. Attaches the
 * sink to n (n->trace). 0 or FS_EINVAL with `d`. */
int pcap_sink_open(struct pcap_sink *s, struct net *n, const char *path, const char *filter,
                   uint64_t max_packets, uint64_t max_bytes, uint32_t snaplen, struct diag *d);
/* Detaches and renames the finished file into place (core/file.h): 0, or -1
 * with errno (a write failed; the previous file, if any, is left). */
int pcap_sink_close(struct pcap_sink *s, struct net *n);
/* Detaches and removes the unfinished file. */
void pcap_sink_abort(struct pcap_sink *s, struct net *n);

#endif /* FABSIM_STATS_PCAP_H */

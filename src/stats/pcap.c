/* src/stats/pcap.c
 *
 * A streaming pcapng writer behind the trace hook (pcapng: IETF
 * draft-ietf-opsawg-pcapng; little-endian blocks): a Section Header Block,
 * one Interface Description Block per directed link the first time it
 * carries a captured packet (if_name = the link's name, if_tsresol = 9:
 * nanoseconds), then one Enhanced Packet Block per packet. Addresses are made
 * up from node ids: MAC 02:00:00:00:NN:NN, IPv4 10.0.NN.NN, LID = node id + 1.
 * A name ending in ".gz" is gzip-compressed as it is written (zlib; this is
 * the only file that includes zlib.h): Wireshark and tshark open such a file
 * directly, and whole packets, whose payload is zeros, shrink ~58-fold.
 */
#include "stats/pcap.h"

#include "net/params.h"
#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"
#include "net/net.h"
#include "net/packet.h"
#include "stats/results.h"
#include "stats/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define LINKTYPE_ETHERNET 1
#define LINKTYPE_ERF 197
#define ERF_TYPE_INFINIBAND 21
#define ROCE_UDP_PORT 4791
/* QP numbers in the capture are QP id + 2: QP0 and QP1 are the management
 * QPs (SMI, GSI), which Wireshark dissects as MADs. */
#define PCAP_QP_BASE 2

/* pcapng block types and option codes (draft-ietf-opsawg-pcapng 4.1-4.3). */
#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_EPB 0x00000006u
#define PCAPNG_BOM 0x1A2B3C4Du
#define OPT_END 0
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME 2
#define OPT_IF_TSRESOL 9

/* BTH opcodes (IBA vol 1, 9.2): RC RDMA WRITE first/middle/last/only,
 * RC Acknowledge; RoCEv2 CNP (IBA annex A17). */
enum {
    OP_WRITE_FIRST = 0x06,
    OP_WRITE_MIDDLE = 0x07,
    OP_WRITE_LAST = 0x08,
    OP_WRITE_ONLY = 0x0a,
    OP_ACK = 0x11,
    OP_CNP = 0x81
};

static void put16(uint8_t *b, uint32_t v) {
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
}
static void put32(uint8_t *b, uint32_t v) {
    put16(b, v >> 16);
    put16(b + 2, v);
}
static void le32(uint8_t *b, uint32_t v) {
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t opcode(const struct packet *p) {
    switch (p->type) {
    case PKT_DATA: {
        bool first = p->flags & PKT_F_FIRST, last = p->flags & PKT_F_LAST;
        return first && last ? OP_WRITE_ONLY
               : first       ? OP_WRITE_FIRST
               : last        ? OP_WRITE_LAST
                             : OP_WRITE_MIDDLE;
    }
    case PKT_CNP:
        return OP_CNP;
    default:
        return OP_ACK; /* ACK and NAK: an Acknowledge with an AETH syndrome */
    }
}

/* BTH (12 bytes) + AETH/RETH as the opcode needs; returns the length. */
static size_t bth(uint8_t *b, const struct packet *p) {
    uint8_t op = opcode(p);
    b[0] = op;
    b[1] = 0x40;          /* M=0, pad 0, TVer 0; SE=0 ... migreq set as real NICs do */
    put16(b + 2, 0xffff); /* default P_Key */
    put32(b + 4, (p->qp + PCAP_QP_BASE) & 0xffffff);
    put32(b + 8,
          (p->psn & 0xffffff) | ((p->flags & PKT_F_LAST) && p->type == PKT_DATA ? 0x80000000u : 0));
    size_t len = 12;
    if (op == OP_WRITE_FIRST || op == OP_WRITE_ONLY) { /* RETH: va, rkey, length */
        memset(b + len, 0, 16);
        len += 16;
    }
    if (op == OP_ACK) { /* AETH: syndrome (ACK 0x00 / NAK PSN error 0x60), MSN */
        put32(b + len, (p->type == PKT_NAK ? 0x60u << 24 : 0x1fu << 24) | (p->aux & 0xffffff));
        len += 4;
    }
    if (op == OP_CNP) { /* CNP: 16 reserved bytes */
        memset(b + len, 0, 16);
        len += 16;
    }
    return len;
}

static void mac(uint8_t *b, uint32_t node) {
    b[0] = 0x02, b[1] = 0, b[2] = 0, b[3] = 0;
    put16(b + 4, node);
}

static uint16_t ip_csum(const uint8_t *h) {
    uint32_t s = 0;
    for (int i = 0; i < 20; i += 2)
        s += (uint32_t)(h[i] << 8 | h[i + 1]);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* Every byte of the file goes through here: straight to the stream, or
 * through deflate when the file is compressed. A deflate error is a write
 * error of the stream's own (fwrite), reported by the close. */
static void put(struct pcap_sink *s, const void *v, size_t len) {
    if (!s->z) {
        fwrite(v, 1, len, s->f);
        s->bytes += len;
        return;
    }
    z_stream *z = s->z;
    uint8_t buf[16384];
    z->next_in = (Bytef *)(uintptr_t)v;
    z->avail_in = (uInt)len;
    while (z->avail_in) {
        z->next_out = buf;
        z->avail_out = sizeof buf;
        int rc = deflate(z, Z_NO_FLUSH);
        FS_ASSERT(rc == Z_OK || rc == Z_BUF_ERROR, "deflate: %d", rc);
        fwrite(buf, 1, sizeof buf - z->avail_out, s->f);
    }
    s->bytes = z->total_out;
}

static void put_le32(struct pcap_sink *s, uint32_t v) {
    uint8_t b[4];
    le32(b, v);
    put(s, b, 4);
}

/* One option: code, length, value padded to 4 bytes. Returns its size. */
static size_t opt_size(size_t len) {
    return 4 + ((len + 3) & ~(size_t)3);
}

static void put_opt(struct pcap_sink *f, uint16_t code, const void *v, size_t len) {
    static const uint8_t pad[4];
    uint8_t h[4] = {(uint8_t)code, (uint8_t)(code >> 8), (uint8_t)len, (uint8_t)(len >> 8)};
    put(f, h, 4);
    put(f, v, len);
    put(f, pad, ((len + 3) & ~(size_t)3) - len);
}

static void section_header(struct pcap_sink *f) {
    static const char app[] = "fabsim " FABSIM_VERSION;
    size_t len = 28 + opt_size(sizeof app - 1) + 4;
    put_le32(f, PCAPNG_SHB);
    put_le32(f, (uint32_t)len);
    put_le32(f, PCAPNG_BOM);
    put_le32(f, 1);          /* major 1, minor 0 */
    put_le32(f, UINT32_MAX); /* section length: unknown (-1) */
    put_le32(f, UINT32_MAX);
    put_opt(f, OPT_SHB_USERAPPL, app, sizeof app - 1);
    put_le32(f, OPT_END);
    put_le32(f, (uint32_t)len);
}

/* The interface of `port`, described the first time it is used. */
static uint32_t iface_of(struct pcap_sink *s, const struct net *n, uint32_t port) {
    if (s->iface[port] != UINT32_MAX) return s->iface[port];
    char name[64];
    net_port_name(n, port, name, sizeof name);
    size_t nl = strlen(name);
    uint8_t res = 9; /* 10^-9 s */
    size_t len = 20 + opt_size(nl) + opt_size(1) + 4;
    put_le32(s, PCAPNG_IDB);
    put_le32(s, (uint32_t)len);
    put_le32(s, s->roce ? LINKTYPE_ETHERNET : LINKTYPE_ERF); /* link type, reserved 0 */
    /* The interface's snap length: 0 (none) for whole packets; the longest
     * header (ERF + LRH + BTH + RETH, or Ethernet to RETH, 78 bytes) when
     * only headers are kept. */
    put_le32(s, s->snaplen == PCAP_SNAP_FULL      ? 0
                : s->snaplen == PCAP_SNAP_HEADERS ? 128
                                                  : s->snaplen);
    put_opt(s, OPT_IF_NAME, name, nl);
    put_opt(s, OPT_IF_TSRESOL, &res, 1);
    put_le32(s, OPT_END);
    put_le32(s, (uint32_t)len);
    s->iface[port] = s->nifaces++;
    return s->iface[port];
}

/* Writes one packet: headers `b` (`hdr` bytes) then `zeros` zero bytes
 * (payload and CRCs), cut at the snap length. A record that would take the
 * file past max_bytes (a compressed file: once it has reached max_bytes) is
 * not written, nor is any after it, so the capture has no holes. */
static void record(struct pcap_sink *s, const struct net *n, uint32_t port, uint64_t now_ps,
                   const uint8_t *b, size_t hdr, uint32_t zeros) {
    static const uint8_t zero[4096 + 64];
    uint32_t wirelen = (uint32_t)(hdr + zeros);
    uint32_t caplen = s->snaplen == PCAP_SNAP_HEADERS ? (uint32_t)hdr
                      : wirelen < s->snaplen          ? wirelen
                                                      : s->snaplen;
    uint32_t padded = (caplen + 3) & ~3u;
    if (s->over_budget || s->bytes + (s->z ? 0 : 32 + padded) > s->max_bytes) {
        s->over_budget++;
        return;
    }
    uint32_t iface = iface_of(s, n, port);
    uint64_t ns = now_ps / 1000;
    put_le32(s, PCAPNG_EPB);
    put_le32(s, 32 + padded);
    put_le32(s, iface);
    put_le32(s, (uint32_t)(ns >> 32));
    put_le32(s, (uint32_t)ns);
    put_le32(s, caplen);
    put_le32(s, wirelen);
    size_t h = hdr < caplen ? hdr : caplen;
    put(s, b, h);
    uint32_t z = caplen - (uint32_t)h + (padded - caplen);
    while (z) {
        uint32_t k = z < sizeof zero ? z : (uint32_t)sizeof zero;
        put(s, zero, k);
        z -= k;
    }
    put_le32(s, 32 + padded);
    s->written++;
}

static void roce_pkt(struct pcap_sink *s, const struct net *n, uint32_t port,
                     const struct packet *p, uint64_t now_ps) {
    uint8_t b[128];
    size_t len = 0;
    const struct port *pt = &n->ports[port];
    if (p->type == PKT_PAUSE) { /* 802.1Qbb: MAC control, per-priority pause */
        static const uint8_t pause_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
        memcpy(b, pause_mac, 6);
        mac(b + 6, pt->node);
        put16(b + 12, 0x8808);
        put16(b + 14, 0x0101);
        put16(b + 16, 1u << (p->prio & 7)); /* class-enable vector */
        memset(b + 18, 0, 16);
        put16(b + 18 + 2 * (p->prio & 7), p->aux & 0xffff); /* quanta of that class */
        memset(b + 34, 0, 26);                              /* pad to 60 bytes */
        record(s, n, port, now_ps, b, 60, 0);
        return;
    }
    if (p->type == PKT_CREDIT) {
        /* A CBFC credit update (flowctl/cbfc.c) as a private encapsulation
         * (docs/outputs.md "pcap"): IEEE 802 Local Experimental EtherType
         * 0x88B5, then "CBFC", the class, 3 reserved bytes and the credits
         * returned (32 bits, network order), padded to 60 bytes. Wireshark
         * shows it as "Local Experimental Ethertype 1" with that payload. The
         * InfiniBand credit packets of a RoCE run with flow_control: credit
         * (an IB idealisation) stay unwritten, as before. */
        if (n->sc->fabric.flow_control != FLOWCTL_CBFC) return;
        mac(b, n->ports[pt->peer].node);
        mac(b + 6, pt->node);
        put16(b + 12, 0x88b5);
        memcpy(b + 14, "CBFC", 4);
        b[18] = p->prio;
        memset(b + 19, 0, 3);
        put32(b + 22, p->aux);
        memset(b + 26, 0, 34);
        record(s, n, port, now_ps, b, 60, 0);
        return;
    }
    mac(b, n->ports[pt->peer].node);
    mac(b + 6, pt->node);
    put16(b + 12, 0x0800);
    len = 14;
    uint8_t *ip = b + len, *udp = ip + 20, *ib = udp + 8;
    size_t ibl = bth(ib, p);
    uint32_t payload = p->type == PKT_DATA ? p->payload_bytes : 0;
    uint32_t ip_total = (uint32_t)(20 + 8 + ibl + payload + 4); /* + ICRC */
    uint8_t ecn = (p->flags & PKT_F_ECN_CE) ? 3 : (p->flags & PKT_F_ECT) ? 2 : 0;
    ip[0] = 0x45;
    /* DSCP = priority x 8, ECN bits; CNPs in their own class carry cnp_dscp (48). */
    uint32_t dscp =
        (p->flags & PKT_F_CNP_CLASS) ? n->sc->fabric.dcqcn.cnp_dscp & 63u : (p->prio & 7u) << 3;
    ip[1] = (uint8_t)((dscp << 2) | ecn);
    put16(ip + 2, ip_total > 0xffff ? 0xffff : ip_total);
    put16(ip + 4, p->psn & 0xffff);
    put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = 17;
    put16(ip + 10, 0);
    put32(ip + 12, 0x0a000000u | (p->src & 0xffff));
    put32(ip + 16, 0x0a000000u | (p->dst & 0xffff));
    put16(ip + 10, ip_csum(ip));
    uint16_t sport = p->qp < n->nqps ? n->qps[p->qp].entropy : 0;
    put16(udp, sport ? sport : 49152);
    put16(udp + 2, ROCE_UDP_PORT);
    put16(udp + 4, (ip_total - 20) > 0xffff ? 0xffff : ip_total - 20);
    put16(udp + 6, 0); /* no UDP checksum (allowed for RoCEv2 over IPv4) */
    len += 20 + 8 + ibl;
    record(s, n, port, now_ps, b, len, payload + 4);
}

static void ib_pkt(struct pcap_sink *s, const struct net *n, uint32_t port, const struct packet *p,
                   uint64_t now_ps) {
    if (p->type == PKT_CREDIT || p->type == PKT_PAUSE) return;
    uint8_t b[128];
    uint8_t *erf = b, *lrh = b + 16, *ib = lrh + 8;
    size_t ibl = bth(ib, p);
    uint32_t payload = p->type == PKT_DATA ? p->payload_bytes : 0;
    uint32_t pktlen = (uint32_t)(8 + ibl + payload + 4 + 2); /* + ICRC + VCRC */
    lrh[0] = (uint8_t)((p->prio & 0xf) << 4);                /* VL, LVer 0 */
    lrh[1] = (uint8_t)(((p->prio & 0xf) << 4) | 0x2);        /* SL, LNH = IBA local (BTH next) */
    put16(lrh + 2, p->dst + 1);                              /* DLID */
    put16(lrh + 4, (pktlen / 4) & 0x7ff);
    put16(lrh + 6, p->src + 1); /* SLID */
    /* rlen: the record as stored (ERF header and the captured part), wlen:
     * the packet on the wire; a header-only record has rlen < 16 + wlen,
     * which Wireshark shows as a packet cut by the snap length. */
    uint32_t hdr = (uint32_t)(16 + 8 + ibl);
    uint32_t caplen = s->snaplen == PCAP_SNAP_HEADERS ? hdr
                      : 16 + pktlen < s->snaplen      ? 16 + pktlen
                                                      : s->snaplen;
    /* ERF header: timestamp (little-endian 32.32 fixed point seconds), type, flags, rlen,
     * lctr, wlen (big-endian). */
    uint64_t ns = now_ps / 1000;
    uint64_t ts = ((ns / 1000000000u) << 32) | (((ns % 1000000000u) << 32) / 1000000000u);
    for (int i = 0; i < 8; i++)
        erf[i] = (uint8_t)(ts >> (8 * i));
    erf[8] = ERF_TYPE_INFINIBAND;
    erf[9] = 0x04; /* varying record length */
    put16(erf + 10, caplen);
    put16(erf + 12, 0);
    put16(erf + 14, pktlen);
    record(s, n, port, now_ps, b, hdr, payload + 6);
}

static void on_tx(void *ctx, const struct net *n, uint32_t port, const struct packet *p,
                  uint64_t now_ps) {
    struct pcap_sink *s = ctx;
    if (s->port_a != UINT32_MAX && port != s->port_a && port != s->port_b) return;
    if (s->flow_qp != UINT32_MAX &&
        (p->type == PKT_PAUSE || p->type == PKT_CREDIT || p->qp != s->flow_qp))
        return;
    if (s->written >= s->max_packets) {
        s->dropped +=
            (p->type != PKT_CREDIT || (s->roce && n->sc->fabric.flow_control == FLOWCTL_CBFC)) &&
            (s->roce || p->type != PKT_PAUSE);
        return;
    }
    if (s->roce)
        roce_pkt(s, n, port, p, now_ps);
    else
        ib_pkt(s, n, port, p, now_ps);
}

static const struct trace_sink_ops pcap_ops = {.on_tx = on_tx};

static bool ends_with(const char *s, const char *tail) {
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && !strcmp(s + a - b, tail);
}

/* Ends the gzip stream (when there is one): the rest of deflate's output and
 * the gzip trailer. */
static void finish_z(struct pcap_sink *s) {
    if (!s->z) return;
    uint8_t buf[16384];
    int rc;
    do {
        s->z->next_out = buf;
        s->z->avail_out = sizeof buf;
        rc = deflate(s->z, Z_FINISH);
        FS_ASSERT(rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR, "deflate: %d", rc);
        if (s->f) fwrite(buf, 1, sizeof buf - s->z->avail_out, s->f);
    } while (rc != Z_STREAM_END);
    deflateEnd(s->z);
    free(s->z);
    s->z = NULL;
}

int pcap_sink_open(struct pcap_sink *s, struct net *n, const char *path, const char *filter,
                   uint64_t max_packets, uint64_t max_bytes, uint32_t snaplen, struct diag *d) {
    memset(s, 0, sizeof *s);
    s->max_bytes = max_bytes ? max_bytes : PCAP_MAX_BYTES_DEFAULT;
    s->roce = n->sc->fabric.kind != FABRIC_INFINIBAND; /* UET: as RoCEv2 (docs/outputs.md) */
    s->port_a = s->port_b = s->flow_qp = UINT32_MAX;
    s->max_packets = max_packets ? max_packets : PCAP_MAX_PACKETS_DEFAULT;
    s->snaplen = snaplen;
    if (filter && !strncmp(filter, "link=", 5)) {
        bool directed = false;
        uint32_t pt = net_link_by_name(n, filter + 5, &directed);
        if (pt == NET_NONE)
            return diag_set(d, "--pcap-filter", (struct srcpos){0, 0}, FS_EINVAL,
                            "no link '%s' (names like leaf0-spine1 or leaf0->spine1)", filter + 5);
        s->port_a = pt;
        s->port_b = directed ? pt : n->ports[pt].peer;
    } else if (filter && !strncmp(filter, "flow=", 5)) {
        char *end;
        unsigned long q = strtoul(filter + 5, &end, 10);
        if (!filter[5] || *end)
            return diag_set(d, "--pcap-filter", (struct srcpos){0, 0}, FS_EINVAL,
                            "flow=ID needs a number (the QP id), not '%s'", filter + 5);
        s->flow_qp = (uint32_t)q;
    } else if (filter) {
        return diag_set(d, "--pcap-filter", (struct srcpos){0, 0}, FS_EINVAL,
                        "'%s': use link=NAME or flow=ID", filter);
    }
    if (fs_out_open(&s->out, path)) /* core/file.h: atomic, write errors checked */
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINTERNAL, "cannot write: %s",
                        strerror(errno));
    s->f = s->out.f;
    s->gz = ends_with(path, ".gz");
    if (s->gz) {
        /* gzip (windowBits 15 + 16), level 1: zeros compress as well as at 6
         * (the headers are what is left) at a fraction of the time. The
         * header zlib writes has no name and mtime 0: the same run gives the
         * same bytes. */
        s->z = fs_xcalloc(1, sizeof *s->z);
        FS_ASSERT(deflateInit2(s->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK,
                  "deflateInit2");
    }
    s->iface = fs_xmalloc(((size_t)n->nports + 1) * sizeof *s->iface);
    memset(s->iface, 0xff, ((size_t)n->nports + 1) * sizeof *s->iface);
    section_header(s);
    trace_attach(n, &pcap_ops, s);
    return 0;
}

int pcap_sink_close(struct pcap_sink *s, struct net *n) {
    trace_detach(n, s);
    finish_z(s);
    int rc = s->f ? fs_out_commit(&s->out) : 0; /* core/file.h: checked, renamed */
    s->f = NULL;
    free(s->iface);
    s->iface = NULL;
    return rc;
}

void pcap_sink_abort(struct pcap_sink *s, struct net *n) {
    trace_detach(n, s);
    if (s->z) {
        deflateEnd(s->z);
        free(s->z);
        s->z = NULL;
    }
    fs_out_abort(&s->out);
    s->f = NULL;
    free(s->iface);
    s->iface = NULL;
}

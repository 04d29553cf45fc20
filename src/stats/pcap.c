/* src/stats/pcap.c
 *
 * A streaming pcap writer (nanosecond magic 0xa1b23c4d; STYLE.md
 * dependencies table) behind the trace hook. Addresses are made up from
 * node ids: MAC 02:00:00:00:NN:NN, IPv4 10.0.NN.NN, LID = node id + 1.
 */
#include "stats/pcap.h"

#include "config/scenario.h"
#include "core/diag.h"
#include "core/file.h"
#include "net/net.h"
#include "net/packet.h"
#include "stats/trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LINKTYPE_ETHERNET 1
#define LINKTYPE_ERF 197
#define ERF_TYPE_INFINIBAND 21
#define ROCE_UDP_PORT 4791
/* QP numbers in the capture are QP id + 2: QP0 and QP1 are the management
 * QPs (SMI, GSI), which Wireshark dissects as MADs. */
#define PCAP_QP_BASE 2

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

/* Writes headers `b` followed by `zeros` zero bytes (payload and CRCs). */
static void record(struct pcap_sink *s, uint64_t now_ps, const uint8_t *b, size_t hdr,
                   uint32_t zeros) {
    static const uint8_t zero[4096 + 64];
    uint8_t h[16];
    size_t caplen = hdr + zeros;
    uint32_t wirelen = (uint32_t)caplen;
    uint64_t ns = now_ps / 1000;
    le32(h, (uint32_t)(ns / 1000000000u));
    le32(h + 4, (uint32_t)(ns % 1000000000u));
    le32(h + 8, (uint32_t)caplen);
    le32(h + 12, wirelen < caplen ? (uint32_t)caplen : wirelen);
    fwrite(h, 1, 16, s->f);
    fwrite(b, 1, hdr, s->f);
    while (zeros) {
        uint32_t k = zeros < sizeof zero ? zeros : (uint32_t)sizeof zero;
        fwrite(zero, 1, k, s->f);
        zeros -= k;
    }
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
        record(s, now_ps, b, 60, 0);
        return;
    }
    if (p->type == PKT_CREDIT) return;
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
    ip[1] = (uint8_t)(((p->prio & 7) << 5) | ecn); /* DSCP = priority x 8, ECN bits */
    put16(ip + 2, ip_total > 0xffff ? 0xffff : ip_total);
    put16(ip + 4, p->psn & 0xffff);
    put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = 17;
    put16(ip + 10, 0);
    put32(ip + 12, 0x0a000000u | (p->src & 0xffff));
    put32(ip + 16, 0x0a000000u | (p->dst & 0xffff));
    put16(ip + 10, ip_csum(ip));
    put16(udp, p->entropy ? p->entropy : 49152);
    put16(udp + 2, ROCE_UDP_PORT);
    put16(udp + 4, (ip_total - 20) > 0xffff ? 0xffff : ip_total - 20);
    put16(udp + 6, 0); /* no UDP checksum (allowed for RoCEv2 over IPv4) */
    len += 20 + 8 + ibl;
    record(s, now_ps, b, len, payload + 4);
}

static void ib_pkt(struct pcap_sink *s, const struct net *n, uint32_t port, const struct packet *p,
                   uint64_t now_ps) {
    (void)n, (void)port;
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
    size_t caplen = 16 + pktlen;
    /* ERF header: timestamp (little-endian 32.32 fixed point seconds), type, flags, rlen,
     * lctr, wlen (big-endian). */
    uint64_t ns = now_ps / 1000;
    uint64_t ts = ((ns / 1000000000u) << 32) | (((ns % 1000000000u) << 32) / 1000000000u);
    for (int i = 0; i < 8; i++)
        erf[i] = (uint8_t)(ts >> (8 * i));
    erf[8] = ERF_TYPE_INFINIBAND;
    erf[9] = 0x04; /* varying record length */
    put16(erf + 10, (uint32_t)caplen);
    put16(erf + 12, 0);
    put16(erf + 14, pktlen);
    record(s, now_ps, b, 16 + 8 + ibl, payload + 6);
}

static void on_tx(void *ctx, const struct net *n, uint32_t port, const struct packet *p,
                  uint64_t now_ps) {
    struct pcap_sink *s = ctx;
    if (s->written >= s->max_packets) return;
    if (s->port_a != UINT32_MAX && port != s->port_a && port != s->port_b) return;
    if (s->flow_qp != UINT32_MAX &&
        (p->type == PKT_PAUSE || p->type == PKT_CREDIT || p->qp != s->flow_qp))
        return;
    if (s->roce)
        roce_pkt(s, n, port, p, now_ps);
    else
        ib_pkt(s, n, port, p, now_ps);
}

static const struct trace_sink_ops pcap_ops = {.on_tx = on_tx};

int pcap_sink_open(struct pcap_sink *s, struct net *n, const char *path, const char *filter,
                   uint64_t max_packets, struct diag *d) {
    memset(s, 0, sizeof *s);
    s->roce = n->sc->fabric.kind == FABRIC_ROCE;
    s->port_a = s->port_b = s->flow_qp = UINT32_MAX;
    s->max_packets = max_packets ? max_packets : UINT64_MAX;
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
    uint8_t h[24];
    le32(h, 0xa1b23c4d); /* nanosecond timestamps */
    h[4] = 2, h[5] = 0, h[6] = 4, h[7] = 0;
    memset(h + 8, 0, 8);
    le32(h + 16, 65535);
    le32(h + 20, s->roce ? LINKTYPE_ETHERNET : LINKTYPE_ERF);
    fwrite(h, 1, 24, s->f);
    trace_attach(n, &pcap_ops, s);
    return 0;
}

int pcap_sink_close(struct pcap_sink *s, struct net *n) {
    trace_detach(n, s);
    int rc = s->f ? fs_out_commit(&s->out) : 0;
    s->f = NULL;
    return rc;
}

void pcap_sink_abort(struct pcap_sink *s, struct net *n) {
    trace_detach(n, s);
    fs_out_abort(&s->out);
    s->f = NULL;
}

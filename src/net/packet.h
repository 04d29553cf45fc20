/* src/net/packet.h
 *
 * The packet: one 64-byte cache line, payload never stored (DESIGN.md rule 2).
 * Packets live in a pool and are named by 32-bit index; the `next` field
 * links a packet into whichever single list holds it (an egress queue, a
 * link's in-flight FIFO, or the free list). Pointers returned by pkt() stay
 * valid while the pool grows: its address range is reserved once and never
 * moves.
 */
#ifndef FABSIM_NET_PACKET_H
#define FABSIM_NET_PACKET_H

#include <stdint.h>

#define PKT_NONE UINT32_MAX
#define PKT_DT_FAR UINT32_MAX

enum pkt_type {
    PKT_DATA,   /* RDMA WRITE segment */
    PKT_ACK,    /* cumulative ACK: aux = next expected PSN */
    PKT_NAK,    /* sequence-error NAK: aux = expected PSN */
    PKT_CNP,    /* RoCEv2 congestion notification */
    PKT_CREDIT, /* IB flow-control packet: aux = credits, prio = VL */
    PKT_PAUSE,  /* 802.1Qbb PFC frame: aux = quanta, prio = class */
    PKT_INNET,  /* in-network aggregation: what it means is registered (net_type_ops) */
    PKT_PULL,   /* UET RCCC credit grant, receiver -> sender: aux = bytes granted (cc/nscc.c) */
    PKT_NTYPES
};

enum {
    PKT_F_ECN_CE = 1 << 0, /* congestion experienced (IP ECN = 11) */
    PKT_F_LAST = 1 << 1,   /* last packet of a message */
    PKT_F_FIRST = 1 << 2,  /* first packet of a message (carries RETH) */
    PKT_F_RETX = 1 << 3,   /* a retransmission */
    PKT_F_ECT = 1 << 4,    /* ECN-capable transport */
    /* A CNP in its own strict-priority class (802.1p 6 / DSCP 48, docs/sources.md
     * A12): `prio` is that priority, not an egress class; every hop serves
     * it first and no PFC pause or lossless accounting applies to it. */
    PKT_F_CNP_CLASS = 1 << 5,
    /* Cut to its header by a trimming switch (net/trim.c): it serialises as
     * headers only and, like a CNP, travels in the strict-priority class of
     * every later hop. A NAK carrying it was caused by a trim. */
    PKT_F_TRIMMED = 1 << 6,
    /* DATA: the sender has more to send and asks the receiver for credit
     * (UET RCCC, cc/nscc.c). */
    PKT_F_PULL_REQ = 1 << 7,
    /* ACK: ECN-echo, a CE-marked data packet since the last ACK (DCTCP). */
    PKT_F_ECE = 1 << 8,
    /* DATA: trimmed by the last switch before its receiver; the NAK for it
     * carries PKT_F_LAST: the receiver's own link was full (UET RCCC's
     * concern, not the sender's window: cc/nscc.c). */
    PKT_F_TRIM_LAST = 1 << 9,
    /* Protected by link-level retry on the hop it is crossing (link/llr.c sets
     * it when the frame starts on an LLR link and clears it on delivery). */
    PKT_F_LLR = 1 << 10,
    /* ...and its copy replaces it in a replay: discarded when it arrives. */
    PKT_F_LLR_STALE = 1 << 11,
};
/* Packets that bypass the data classes and buffer admission at every hop. */
#define PKT_F_STRICT (PKT_F_CNP_CLASS | PKT_F_TRIMMED)

/* A UET ACK (transport per-packet SACK, net/nic.c ack_arrival) reuses fields
 * a control packet leaves free: psn = the data PSN it acknowledges, sent_ps =
 * that packet's send time echoed (RTT sample), payload_bytes = the data
 * packet's entropy << 16 | its wire bytes, PKT_F_ECN_CE = its CE mark echoed. */
#define PKT_ACK_ECHO(entropy, wire) (((uint32_t)(entropy) << 16) | ((wire)&0xffffu))
#define PKT_ACK_ENTROPY(payload) ((uint16_t)((payload) >> 16))
#define PKT_ACK_WIRE(payload) ((payload)&0xffffu)

struct packet {
    uint32_t next;          /* list link: queue, link FIFO or free list */
    uint32_t qp;            /* connection (queue pair) */
    uint32_t src, dst;      /* node ids of the sending and receiving NIC */
    uint32_t psn;           /* packet sequence number in the QP */
    uint32_t payload_bytes; /* application bytes carried */
    uint32_t wire_bytes;    /* what serialises: payload + headers + wire gaps */
    uint32_t in_port;       /* port it entered the current switch through */
    uint64_t t_ps;          /* in flight: arrival time; queued: ready time */
    uint64_t sent_ps;       /* when the NIC put it on the wire */
    uint32_t aux;           /* type-specific (see enum pkt_type); DATA: message id */
    uint32_t flow_hash;     /* digest of the 5-tuple with the QP's UDP source port (flow_digest):
                               what ECMP mixes with each switch's seed */
    uint8_t type;           /* enum pkt_type */
    uint8_t prio;           /* VL (InfiniBand) or priority (Ethernet) */
    uint16_t flags;         /* PKT_F_* */
    uint32_t next_dt_ps;    /* on a link: the next packet's arrival - this one's (PKT_DT_FAR: read
                               it there); the arrival schedules the next without touching it */
};

_Static_assert(sizeof(struct packet) == 64, "a packet is one cache line");

/* 64-bit finaliser of MurmurHash3 (Appleby, public domain): a bijection whose
 * output bits each depend on every input bit. */
static inline uint64_t flow_fmix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Digest of a RoCEv2 packet's 5-tuple: source and destination IP (node ids),
 * UDP source port (the QP's entropy), UDP destination port 4791 and protocol
 * 17 (the last two constant, so left out). Computed once per QP and
 * direction (net_qp_set_entropy); ECMP mixes it with each switch's seed
 * (route/ecmp.c). */
static inline uint32_t flow_digest(uint32_t src, uint32_t dst, uint16_t sport) {
    uint64_t h = flow_fmix64((((uint64_t)src << 32) | dst) ^
                             flow_fmix64((uint64_t)sport + 0x9e3779b97f4a7c15ull));
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

#define PKT_POOL_CHUNK_SHIFT 15 /* 2 MiB: one huge page (core/mem.h) */
#define PKT_POOL_CHUNK (1u << PKT_POOL_CHUNK_SHIFT)

/* One address range reserved for the pool at its first use (PROT_NONE: no
 * memory and no commit charge until used), made usable PKT_POOL_CHUNK
 * packets at a time and never moved: a packet is base[id] (a shift and an
 * add on the hot path, where the chunk table cost a load and four more), and
 * pointers stay valid while the pool grows. */
struct pkt_pool {
    struct packet *base;
    uint32_t len, cap; /* packets usable, and reserved */
    uint32_t free_head;
    uint64_t in_use, peak;
};

void pkt_pool_init(struct pkt_pool *pp);
void pkt_pool_fini(struct pkt_pool *pp);
uint32_t pkt_pool_grow(struct pkt_pool *pp); /* slow path of pkt_alloc */

static inline struct packet *pkt(struct pkt_pool *pp, uint32_t id) {
    return &pp->base[id];
}

static inline uint32_t pkt_alloc(struct pkt_pool *pp) {
    uint32_t id = pp->free_head;
    if (id == PKT_NONE) id = pkt_pool_grow(pp);
    pp->free_head = pkt(pp, id)->next;
    if (++pp->in_use > pp->peak) pp->peak = pp->in_use;
    return id;
}

static inline void pkt_free(struct pkt_pool *pp, uint32_t id) {
    pkt(pp, id)->next = pp->free_head;
    pp->free_head = id;
    pp->in_use--;
}

#endif /* FABSIM_NET_PACKET_H */

/* src/xport/xport.h
 *
 * Transport extensions of the NIC as a policy table: what a fabric's
 * transport adds to the RC-like queue pair of net/nic.c. Ultra Ethernet's
 * (xport/uet.c) chooses each data packet's entropy value and moves it off a
 * path that an ECN mark or a NAK showed congested. net/ calls the table
 * (NULL: no extension, IB and RoCE) and never names UET.
 */
#ifndef FABSIM_XPORT_XPORT_H
#define FABSIM_XPORT_XPORT_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct packet;
struct diag;

/* RUD: reliable unordered delivery, packets sprayed and placed out of order,
 * selective NAKs; ROD: reliable ordered delivery, one entropy per QP and
 * go-back-N (UEC 1.0 PDS, docs/sources.md U1). */
enum uet_delivery { UET_RUD, UET_ROD };

/* Parameters: config/ fills them (docs/scenario.md "fabric.uet"). */
struct uet_params {
    enum uet_delivery delivery;
    uint32_t entropies;    /* entropy values a QP sprays over (a power of 2) */
    bool trimming;         /* switches trim instead of dropping */
    uint64_t trim_bytes;   /* an egress class beyond this trims; 0 = `buffer` */
    uint32_t ecn_penalty;  /* skips of an entropy after an ECN echo */
    uint32_t nack_penalty; /* ...after a NAK */
};

struct xport_ops {
    const char *name;
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* Sender: data packet `p` of `qp` is about to leave (stamp its entropy). */
    void (*on_tx_data)(struct net *n, uint32_t qp, struct packet *p);
    /* Sender: an ACK or NAK of `qp` arrived (path feedback). */
    void (*on_feedback)(struct net *n, uint32_t qp, const struct packet *p);
    /* Sender: `qp`'s retransmission timer fired (its oldest packet is lost). */
    void (*on_timeout)(struct net *n, uint32_t qp);
    /* Sender, optional (selective repeat): the transport keeps the PSNs its
     * NAKs named itself, per packet, and gives the next one to resend (the
     * lowest not yet resent nor acknowledged), NET_NONE if none; the NIC's
     * own ring of NAKed ranges is then not used. NULL: the NIC's ring. */
    uint32_t (*next_resend)(struct net *n, uint32_t qp);
};

/* The table for the scenario's fabric, or NULL when it adds nothing. */
const struct xport_ops *xport_select(const struct net *n);

extern const struct xport_ops xport_uet_ops;

#endif /* FABSIM_XPORT_XPORT_H */

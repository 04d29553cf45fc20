/* src/cc/cc.h
 *
 * End-to-end congestion control at the NIC as a policy table: `none` (line
 * rate) and `dcqcn`. Keeps its own per-QP state in net->cc_state.
 */
#ifndef FABSIM_CC_CC_H
#define FABSIM_CC_CC_H

#include <stdint.h>

#include "core/time.h"

struct net;
struct packet;
struct diag;

struct cc_ops {
    const char *name;
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* Earliest time QP `qp` may put its next packet on the wire. */
    sim_time_ps (*send_time)(struct net *n, uint32_t qp);
    /* QP `qp` sent a data packet (rate limiter accounting). */
    void (*on_sent)(struct net *n, uint32_t qp, const struct packet *p);
    /* Receiver side: a data packet of `qp` arrived (ECN echo, CNP generation). */
    void (*on_rx_data)(struct net *n, uint32_t qp, const struct packet *p);
    /* Sender side: a CNP for `qp` arrived. */
    void (*on_cnp)(struct net *n, uint32_t qp);
};

const struct cc_ops *cc_select(const struct net *n, struct diag *d);

extern const struct cc_ops cc_none_ops;

#endif /* FABSIM_CC_CC_H */

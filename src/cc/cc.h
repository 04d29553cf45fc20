/* src/cc/cc.h
 *
 * End-to-end congestion control at the NIC as a policy table: `none` (line
 * rate), `dcqcn` (RoCE) and `ibcc` (InfiniBand FECN/BECN). Keeps its own per-QP state in
 * net->cc_state.
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
    /* Switch `sw` queues `p` on egress `out_port` (ECN marking; may be NULL). */
    void (*on_enqueue)(struct net *n, uint32_t sw, uint32_t out_port, struct packet *p);
};

const struct cc_ops *cc_select(const struct net *n, struct diag *d);

extern const struct cc_ops cc_none_ops;
extern const struct cc_ops cc_dcqcn_ops;
extern const struct cc_ops cc_ibcc_ops;

struct dcqcn_params;
struct ecn_params;
/* The DCQCN paper's parameters (Zhu et al. SIGCOMM'15, 40 G; domain.md A5,
 * A6, V3) for `dcqcn: {preset: paper}`; defaults are ConnectX values. */
void dcqcn_preset_paper(struct dcqcn_params *dp, struct ecn_params *ep);
/* The ConnectX firmware defaults (domain.md A6, A12): what `dcqcn: {}` gives. */
void dcqcn_preset_connectx(struct dcqcn_params *dp);
/* DCQCN's current rate R_C of `qp` (tests, reports). */
double dcqcn_rate_bps(struct net *n, uint32_t qp);
/* InfiniBand CC: the CCTI of `qp` (tests, traces). */
uint32_t ibcc_ccti(struct net *n, uint32_t qp);
/* DCQCN's target rate R_T of `qp` (tests). */
double dcqcn_target_bps(struct net *n, uint32_t qp);

#endif /* FABSIM_CC_CC_H */

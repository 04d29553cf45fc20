/* src/cc/none.c
 *
 * No end-to-end congestion control: every QP sends at line rate, and the NIC
 * port's round robin shares the link (as InfiniBand fabrics without CC do).
 */
#include "cc/cc.h"

#include "net/params.h"
#include "net/net.h"

static sim_time_ps none_send_time(struct net *n, uint32_t qp) {
    (void)qp;
    return n->sim->now_ps;
}

const struct cc_ops cc_none_ops = {
    .name = "none",
    .send_time = none_send_time,
};

const struct cc_ops *cc_select(const struct net *n, struct diag *d) {
    switch (n->sc->fabric.congestion_control) {
    case CC_NONE:
        return &cc_none_ops;
    case CC_DCQCN:
        (void)d;
        return &cc_dcqcn_ops;
    case CC_IBCC:
        return &cc_ibcc_ops;
    case CC_HPCC:
        return &cc_hpcc_ops;
    case CC_DCTCP:
        return &cc_dctcp_ops;
    case CC_TIMELY:
        return &cc_timely_ops;
    case CC_NSCC:
    case CC_RCCC:
    case CC_NSCC_RCCC:
        return &cc_nscc_ops;
    }
    return NULL;
}

/* src/ctrl/ctrl.c
 *
 * Chooses the control plane. Until the subnet manager (InfiniBand) and the
 * BGP model (RoCEv2) land, there is none: forwarding is the shortest-path
 * default and a failed link stays a black hole (its control_plane row has
 * rerouted_at_ns = null).
 */
#include "ctrl/ctrl.h"

#include "config/scenario.h"
#include "net/net.h"

const struct ctrl_ops *ctrl_select(const struct net *n, struct diag *d) {
    (void)d;
    switch (n->sc->fabric.control_plane.kind) {
    case CP_SM: /* a subnet manager belongs to an InfiniBand subnet */
        return n->sc->fabric.kind == FABRIC_INFINIBAND ? &ctrl_sm_ops : NULL;
    case CP_BGP:
        break;
    }
    return NULL;
}

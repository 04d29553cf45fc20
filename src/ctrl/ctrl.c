/* src/ctrl/ctrl.c
 *
 * Chooses the control plane: the subnet manager on InfiniBand (ctrl/sm.c),
 * the BGP model on Ethernet with ECMP or spray (ctrl/bgp.c). Without one,
 * forwarding never changes and a failed link stays a black hole (its
 * control_plane row has rerouted_at_ns = null).
 */
#include "ctrl/ctrl.h"

#include "net/params.h"
#include "net/net.h"

const struct ctrl_ops *ctrl_select(const struct net *n, struct diag *d) {
    (void)d;
    const struct fabric_params *f = &n->sc->fabric;
    switch (f->control_plane.kind) {
    case CP_SM: /* a subnet manager belongs to an InfiniBand subnet */
        return f->kind == FABRIC_INFINIBAND ? &ctrl_sm_ops : NULL;
    case CP_BGP:
        /* BGP acts through the per-switch views of ecmp and spray (route/live.c);
         * with static forwarding there is nothing for it to update. */
        if (f->routing == ROUTING_ECMP || f->routing == ROUTING_SPRAY) return &ctrl_bgp_ops;
        break;
    }
    return NULL;
}

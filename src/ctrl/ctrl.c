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
    const struct fabric_params *f = &n->sc->fabric;
    /* BGP acts through the per-switch views of ecmp and spray (route/live.c);
     * with static forwarding there is nothing for it to update. */
    if (f->control_plane.kind == CP_BGP &&
        (f->routing == ROUTING_ECMP || f->routing == ROUTING_SPRAY))
        return &ctrl_bgp_ops;
    return NULL;
}

/* src/ctrl/ctrl.h
 *
 * The control plane as a policy table: what computes forwarding state at the
 * start and after a link changes state. InfiniBand: the subnet manager (sweep,
 * routing engine, LFT push); RoCEv2: a BGP-style distributed model. Without
 * one (ctrl_select returns NULL) forwarding never changes after a failure.
 */
#ifndef FABSIM_CTRL_CTRL_H
#define FABSIM_CTRL_CTRL_H

#include "ctrl/ctrl_params.h"

#include <stdbool.h>
#include <stdint.h>

struct net;
struct diag;
struct jw;

struct ctrl_ops {
    const char *name;
    /* Computes the initial forwarding state (after route_fib_build). */
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* Link `port` (one direction; called for each) changed state at now. The
     * control plane schedules its own detection, computation and pushes, and
     * fills n->cp_rows[].rerouted_ps when forwarding has converged. */
    void (*on_link_change)(struct net *n, uint32_t port, bool up);
    /* Optional: the control plane's own top-level results.json members. */
    void (*write_results)(const struct net *n, struct jw *w);
};

/* The scenario's control plane, or NULL for none (static forwarding). */
const struct ctrl_ops *ctrl_select(const struct net *n, struct diag *d);

extern const struct ctrl_ops ctrl_sm_ops; /* InfiniBand subnet manager (ctrl/sm.c) */
extern const struct ctrl_ops ctrl_bgp_ops;

#endif /* FABSIM_CTRL_CTRL_H */

/* src/ctrl/ctrl_params.h
 *
 * The control plane's parameters, plain data: what net/params.h embeds in
 * the fabric's parameters. Kept apart from the control plane's interface
 * (ctrl/ctrl.h) so the packet layer can carry them without including it.
 */
#ifndef FABSIM_CTRL_CTRL_PARAMS_H
#define FABSIM_CTRL_CTRL_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum cp_kind { CP_SM, CP_BGP };

struct control_plane_params {
    enum cp_kind kind;
    uint64_t detect_ps;
    /* subnet manager (ctrl/sm.c); 0 = default (docs/scenario.md, docs/sources.md A10b) */
    uint64_t smp_ps;          /* time per SMP of a sweep or LFT push */
    uint64_t sweep_fixed_ps;  /* fixed cost of a heavy sweep (phase barriers) */
    bool shield;              /* SHIELD/FLFR switch-local fast reroute */
    uint64_t shield_delay_ps; /* port-down to local reroute */
    /* bgp: per-hop route processing and advertisement interval (MRAI) */
    uint64_t proc_ps, mrai_ps;
    /* bgp: a down port leaves its switch's ECMP groups this long after the
     * link dropped (hardware); fast-external-fallover withdraws at once */
    uint64_t port_down_ps;
    bool fast_fallover;
    /* sm: periodic light sweep (finds gray links no trap reports) */
    uint64_t sweep_interval_ps;
    /* sm: an SMP is resent this often, each after this long (OpenSM
     * transaction_retries, transaction_timeout) before the SM gives up on
     * the port it probes */
    uint32_t smp_retries;
    uint64_t smp_timeout_ps;
    /* sm: the switch's fast recovery from unhealthy links takes a port that
     * counts errors down this long after they begin; 0 = off */
    uint64_t unhealthy_ps;
    /* bgp: `detect` is this many probe intervals (BFD detect multiplier;
     * hold time / keepalive) lost in a row */
    uint32_t detect_mult;
};

#endif /* FABSIM_CTRL_CTRL_PARAMS_H */

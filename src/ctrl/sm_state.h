/* src/ctrl/sm_state.h
 *
 * The subnet manager's state (struct sm): owned and run by ctrl/sm.c, filled
 * by the routing engines (ctrl/sm_route.c), written and read as OpenSM's
 * dump (ctrl/sm_dump.c).
 *
 * LIDs as OpenSM hands them out on these fabrics: host i has LID i + 1,
 * switch s has LID nhosts + 1 + s. A switch's LFT maps every LID to an
 * output port, stored as IB stores it: one byte, the port number (index in
 * the node + 1), 0 = the switch itself, 255 = no route (OpenSM's
 * OSM_NO_PATH); IB port numbers are 8-bit, so a switch the SM manages has at
 * most 254 ports (issue 34: 4 B entries took 703 MB for the two tables at
 * k = 48). It is pushed in blocks of 64 LIDs.
 */
#ifndef FABSIM_CTRL_SM_STATE_H
#define FABSIM_CTRL_SM_STATE_H

#include "core/time.h"

#include <stdbool.h>
#include <stdint.h>

#define SM_LFT_BLOCK 64
#define SM_PORT_SELF 0xfffffffeu /* sm_lft_port: the switch's own LID */
#define SM_LFT_SELF 0            /* LFT byte: the switch's own LID */
#define SM_LFT_NONE 255          /* LFT byte: no route */
#define SM_MAX_PORTS 254

struct sm {
    uint32_t S, H, nlids; /* nlids = max LID + 1 */
    uint32_t nblocks;     /* per switch */
    uint32_t *sw_node;    /* switch index -> node id */
    uint32_t *sw_port0;   /* switch index -> its first port id */
    /* The current LFTs (port number, SM_LFT_SELF, _NONE; sm_lft_current):
     * [S * nlids] when SHIELD, which moves the data plane's entries itself,
     * needs the SM's own copy; else NULL, and they are the data plane's
     * (n->lft: the host LIDs, what lft_publish wrote) with swtab (LID 0 and
     * the switch LIDs), for the switches this process keeps: on several
     * ranks its own (docs/parallel.md "Memory"). */
    uint8_t *tab;
    uint8_t *swtab;   /* [kept switches * (S + 1)]: LID 0, then LIDs H+1..H+S */
    uint32_t *sw_row; /* switch index -> row of swtab, UINT32_MAX: not kept; NULL: row s */
    uint8_t *next;    /* [S * nlids]: computed, being pushed; NULL between sweeps */
    int engine;       /* enum routing_engine in use now */
    /* results */
    uint64_t smps_discovery, smps_total, lft_blocks;
    sim_time_ps compute_ps; /* modelled routing computation of the last run */
    bool cdg_acyclic;
    uint32_t *cdg_cycle, ncdg_cycle; /* ports of one cycle when cyclic */
    uint32_t sweeps;                 /* heavy sweeps after traps */
    uint64_t resweep_smps, blocks_pushed, last_blocks_changed;
    sim_time_ps last_sweep_start_ps, last_done_ps;
    /* failure handling */
    bool busy, dirty, trap_pending;
    uint32_t pushes_left;
    bool work_held; /* counted in n->work_pending while reacting */
};

struct net;
/* Switch index s's current LFT byte for `lid` (a switch this process keeps). */
uint8_t sm_lft_current(const struct net *n, const struct sm *sm, uint32_t s, uint32_t lid);

static inline uint32_t sm_host_lid(uint32_t h) {
    return h + 1;
}

/* An LFT byte of switch index s as a port id (UINT32_MAX = none, or
 * SM_PORT_SELF), and back. */
static inline uint32_t sm_lft_port(const struct sm *sm, uint32_t s, uint8_t e) {
    return e == SM_LFT_NONE   ? UINT32_MAX
           : e == SM_LFT_SELF ? SM_PORT_SELF
                              : sm->sw_port0[s] + e - 1;
}
static inline uint8_t sm_lft_byte(const struct sm *sm, uint32_t s, uint32_t port) {
    return port == UINT32_MAX     ? SM_LFT_NONE
           : port == SM_PORT_SELF ? SM_LFT_SELF
                                  : (uint8_t)(port - sm->sw_port0[s] + 1);
}

#endif /* FABSIM_CTRL_SM_STATE_H */

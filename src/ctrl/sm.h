/* src/ctrl/sm.h
 *
 * The InfiniBand subnet manager (sm.c: sweeps, SMP accounting, LFT pushes
 * after failures; sm_route.c: routing engines and the channel dependency
 * graph; sm_dump.c: OpenSM's opensm-lfts.dump format, written and read).
 *
 * LIDs as OpenSM hands them out on these fabrics: host i has LID i + 1,
 * switch s has LID nhosts + 1 + s. A switch's LFT maps every LID to an
 * output port (a port id here; IB port number = index in the node + 1,
 * 0 = the switch itself). It is pushed in blocks of 64 LIDs.
 */
#ifndef FABSIM_CTRL_SM_H
#define FABSIM_CTRL_SM_H

#include "core/time.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct net;
struct diag;

#define SM_LFT_BLOCK 64
#define SM_PORT_SELF 0xfffffffeu /* LFT entry: the switch's own LID */

struct sm {
    uint32_t S, H, nlids; /* nlids = max LID + 1 */
    uint32_t nblocks;     /* per switch */
    uint32_t *sw_node;    /* switch index -> node id */
    uint32_t *tab;        /* [S * nlids]: current LFT (port id, SM_PORT_SELF, NET_NONE) */
    uint32_t *next;       /* [S * nlids]: computed, being pushed */
    int engine;           /* enum routing_engine in use now */
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

static inline uint32_t sm_host_lid(uint32_t h) {
    return h + 1;
}

/* Routing: fills sm->next for `engine` over the live links; 0 or FS_E*. */
int sm_route_compute(struct net *n, struct sm *sm, int engine, struct diag *d);
/* Channel dependency graph of sm->tab over host-to-host routes: acyclic? */
bool sm_cdg_check(struct net *n, struct sm *sm);

/* opensm-lfts.dump of sm->tab. */
void sm_dump_write(const struct net *n, const struct sm *sm, FILE *f);
/* The fabric as an ibsim net file (hosts first: the SM runs on h0), node
 * descriptions = fabsim names, so OpenSM's dump of it reads back by name. */
void sm_ibsim_write(const struct net *n, FILE *f);
/* Reads an opensm-lfts.dump into sm->next; errors with file:line:col. */
int sm_dump_read(struct net *n, struct sm *sm, const char *path, struct diag *d);

/* The running SM of a built model (NULL if none). */
struct sm *sm_of(struct net *n);

#endif /* FABSIM_CTRL_SM_H */

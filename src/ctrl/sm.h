/* src/ctrl/sm.h
 *
 * The InfiniBand subnet manager (sm.c: sweeps, SMP accounting, LFT pushes
 * after failures; sm_route.c: routing engines and the channel dependency
 * graph; sm_dump.c: OpenSM's opensm-lfts.dump format, written and read).
 *
 * LIDs as OpenSM hands them out on these fabrics: host i has LID i + 1,
 * switch s has LID nhosts + 1 + s. A switch's LFT maps every LID to an
 * output port, stored as IB stores it: one byte, the port number (index in
 * the node + 1), 0 = the switch itself, 255 = no route (OpenSM's
 * OSM_NO_PATH); IB port numbers are 8-bit, so a switch the SM manages has at
 * most 254 ports (issue 34: 4 B entries took 703 MB for the two tables at
 * k = 48). It is pushed in blocks of 64 LIDs.
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
#define SM_PORT_SELF 0xfffffffeu /* sm_lft_port: the switch's own LID */
#define SM_LFT_SELF 0            /* LFT byte: the switch's own LID */
#define SM_LFT_NONE 255          /* LFT byte: no route */
#define SM_MAX_PORTS 254

struct sm {
    uint32_t S, H, nlids; /* nlids = max LID + 1 */
    uint32_t nblocks;     /* per switch */
    uint32_t *sw_node;    /* switch index -> node id */
    uint32_t *sw_port0;   /* switch index -> its first port id */
    uint8_t *tab;         /* [S * nlids]: current LFT (port number, SM_LFT_SELF, _NONE) */
    uint8_t *next;        /* [S * nlids]: computed, being pushed */
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

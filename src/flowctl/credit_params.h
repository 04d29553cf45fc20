/* src/flowctl/credit_params.h
 *
 * InfiniBand link-layer parameters, plain data: what net/params.h embeds in
 * the run's parameters. Kept apart from the credit module (flowctl/credit.h)
 * so the packet layer carries them without depending on the module that
 * calls its ports back (docs/architecture.md).
 */
#ifndef FABSIM_FLOWCTL_CREDIT_PARAMS_H
#define FABSIM_FLOWCTL_CREDIT_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
/* InfiniBand link layer (flowctl/credit.c); 0 = default (docs/scenario.md). */
struct ib_vlarb_entry {
    uint8_t vl, weight; /* weight in 64-byte units (IBA VLArb table entry) */
};

struct ib_params {
    uint32_t vls;                /* data VLs in use, 1..4 */
    uint64_t vl_buffer_bytes;    /* input buffer per VL per switch port */
    uint64_t nic_buffer_bytes;   /* NIC receive buffer per VL */
    uint64_t credit_interval_ps; /* an FCP per VL no sooner than this after the last */
    uint64_t credit_refresh_ps;  /* ...and at least this often; 0 = 65,536 symbol times */
    uint8_t sl2vl[16];
    bool sl2vl_set; /* false: SL mod vls */
    struct ib_vlarb_entry vlarb_high[16], vlarb_low[16];
    uint8_t nvlarb_high, nvlarb_low; /* 0 entries in low: every VL weight 255 */
    uint32_t high_limit;             /* LimitOfHighPriority, 4 KB units; 255 = unlimited */
};

#endif /* FABSIM_FLOWCTL_CREDIT_PARAMS_H */

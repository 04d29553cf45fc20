/* src/flowctl/credit.h
 *
 * InfiniBand credit flow control (credit.c): what tests may inspect.
 */
#ifndef FABSIM_FLOWCTL_CREDIT_H
#define FABSIM_FLOWCTL_CREDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
/* InfiniBand link layer (flowctl/credit.c); 0 = default (docs/scenario.md). */
struct ib_vlarb_entry {
    uint8_t vl, weight; /* weight in 64-byte units (IBA VLArb table entry) */
};

struct ib_params {
    uint32_t vls;                 /* data VLs in use, 1..4 */
    uint64_t vl_buffer_bytes;     /* input buffer per VL per switch port */
    uint64_t nic_buffer_bytes;    /* NIC receive buffer per VL */
    uint32_t credit_batch_blocks; /* return credits once this many 64 B blocks are free */
    uint64_t credit_flush_ps;     /* ...or at the latest this long after the first */
    uint8_t sl2vl[16];
    bool sl2vl_set; /* false: SL mod vls */
    struct ib_vlarb_entry vlarb_high[16], vlarb_low[16];
    uint8_t nvlarb_high, nvlarb_low; /* 0 entries in low: every VL weight 255 */
    uint32_t high_limit;             /* LimitOfHighPriority, 4 KB units; 255 = unlimited */
};

/* Walks every live link and VL: credits held + data blocks on the wire +
 * receiver buffer + freed-not-returned + credits returning == buffer size.
 * Returns the number of violations (0 when the fabric is not credit-based);
 * the first is described in `why`. */
int credit_check_invariant(struct net *n, char *why, size_t len);

/* Tests only: makes the transmitter on `port` lose `blocks` credits of `vl`,
 * as a model bug would, to show the invariant check catches it. */
void credit_debug_take(struct net *n, unsigned port, unsigned vl, long blocks);

#endif /* FABSIM_FLOWCTL_CREDIT_H */

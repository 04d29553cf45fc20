/* src/flowctl/credit.h
 *
 * InfiniBand credit flow control (credit.c): what tests may inspect.
 */
#ifndef FABSIM_FLOWCTL_CREDIT_H
#define FABSIM_FLOWCTL_CREDIT_H

#include "flowctl/credit_params.h" /* struct ib_params */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net;

/* Walks every live link and VL: credits held + data blocks on the wire +
 * receiver buffer + freed-not-returned + credits returning == buffer size.
 * Returns the number of violations (0 when the fabric is not credit-based);
 * the first is described in `why`. */
int credit_check_invariant(struct net *n, char *why, size_t len);

/* Tests only: makes the transmitter on `port` lose `blocks` credits of `vl`,
 * as a model bug would, to show the invariant check catches it. */
void credit_debug_take(struct net *n, unsigned port, unsigned vl, long blocks);

/* Tests only: the next flow-control packet of `vl` arriving at the
 * transmitter `port` is lost on the wire (InfiniBand). */
void credit_debug_lose_next(struct net *n, unsigned port, unsigned vl);

/* InfiniBand flow-control packets the receiver at `port` sent for `vl`, and
 * the run's totals sent on a change and as refreshes (0 for other fabrics). */
uint64_t credit_fcp_count(const struct net *n, uint32_t port, uint32_t vl);
/* Wire bytes of those FCPs (all VLs): part of the port's tx_bytes. */
uint64_t credit_fcp_bytes(const struct net *n, uint32_t port);
void credit_fcp_totals(const struct net *n, uint64_t *change, uint64_t *refresh);
/* Credits of `vl` the transmitter `port` holds now, in blocks. */
int64_t credit_held(struct net *n, uint32_t port, uint32_t vl);

#endif /* FABSIM_FLOWCTL_CREDIT_H */

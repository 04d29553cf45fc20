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

#endif /* FABSIM_FLOWCTL_CREDIT_H */

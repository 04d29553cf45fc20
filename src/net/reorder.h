/* src/net/reorder.h
 *
 * The receiving NIC's reorder buffer (fabric.reorder_buffer bytes per NIC),
 * for fabrics that spread one QP's packets over several paths (routing:
 * spray). The core receiver accepts only the next expected PSN; with the
 * buffer, a packet that arrives early is held while it fits, and released in
 * order once the gap before it fills. Called from net/nic.c's rx path only.
 */
#ifndef FABSIM_NET_REORDER_H
#define FABSIM_NET_REORDER_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct packet;

/* Sets the buffer up when the scenario needs one (no-op otherwise). */
void nic_reorder_init(struct net *n);
void nic_reorder_fini(struct net *n);
/* `p` (DATA, psn beyond the expected one) arrived at NIC `node`: true if it
 * was held; false if it does not fit (counted as a reorder drop). */
bool nic_reorder_hold(struct net *n, uint32_t node, const struct packet *p);
/* The expected PSN of `qp` advanced: deliver held packets that are now next. */
void nic_reorder_release(struct net *n, uint32_t node, uint32_t qp);

#endif /* FABSIM_NET_REORDER_H */

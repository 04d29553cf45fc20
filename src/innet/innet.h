/* src/innet/innet.h
 *
 * In-network reduction: an aggregation tree of switches over a set of member
 * endpoints. Members send their data once, chunk by chunk (one MTU packet per
 * chunk, PKT_INNET through the normal ports, so queues and link-level flow
 * control apply); a tree switch holds the partial sum of a chunk until every
 * child contributed, then sends one reduced chunk to its parent; the root
 * sends the result down, switches replicate it to their children, and every
 * member receives it once. SHARP (sharp.c) builds the tree over the fabric's
 * switches, NVLS (nvls.c) uses a host's NVSwitch as the only tree node.
 */
#ifndef FABSIM_INNET_INNET_H
#define FABSIM_INNET_INNET_H

#include <stdbool.h>
#include <stdint.h>

struct net;

/* A SHARP aggregation tree for the member nodes (hosts), as the aggregation
 * manager would build it: rooted at a top-tier switch, every switch on the
 * way holding one streaming tree. Returns a session id, or NET_NONE when a
 * switch on it has no streaming tree left (the caller falls back to ring). */
uint32_t innet_sharp_open(struct net *n, const uint32_t *members, uint32_t m, uint32_t job);
/* NVLS over the NVSwitch of the members' host (all members on one host). */
uint32_t innet_nvls_open(struct net *n, const uint32_t *members, uint32_t m);
/* Releases the session's switch resources. */
void innet_close(struct net *n, uint32_t sess);

/* Member `i` joins reduction `op` of `bytes` (coll call op, transfer xfer),
 * returns the run; innet_send then starts streaming its chunks;
 * coll_innet_done(op, xfer) once it holds the whole result. The join is
 * state every rank of a parallel run holds (par/pcoll.c); the send is the
 * member's rank's. */
uint32_t innet_join(struct net *n, uint32_t sess, uint32_t i, uint64_t bytes, uint32_t op,
                    uint32_t xfer);
void innet_send(struct net *n, uint32_t sess, uint32_t run, uint32_t i);
/* The node of member i; member i of `run` received the whole result. */
uint32_t innet_member_node(const struct net *n, uint32_t sess, uint32_t i);
void innet_member_done(struct net *n, uint32_t sess, uint32_t run, uint32_t i);

/* Who hears that a member holds the whole result of transfer `xfer` of
 * reduction `op` (innet_join): the collectives register it before they open
 * a session, so innet/ never names them. */
typedef void (*innet_done_fn)(struct net *n, uint32_t op, uint32_t xfer);
void innet_on_done(struct net *n, innet_done_fn done);

/* A run split over ranks (par/pcoll.c registers it; none on one process):
 * an aggregation timer is its rank's pending work until it fires; a member's
 * completion is recorded on its rank and applied on every rank
 * (innet_member_done) at the window's end. */
struct innet_dist_ops {
    void (*local_add)(struct net *n);
    void (*record_done)(struct net *n, uint32_t sess, uint32_t run, uint32_t i);
};
void innet_set_dist(struct net *n, const struct innet_dist_ops *ops);

/* Per-packet hooks: a PKT_INNET packet reached switch `sw` / endpoint `node`. */
void innet_switch_rx(struct net *n, uint32_t sw, uint32_t in_port, uint32_t id);
void innet_host_rx(struct net *n, uint32_t node, uint32_t port, uint32_t id);

/* A tree switch finished aggregating a chunk (sharp_latency later): the
 * timer rides on the collectives' event kind (NET_EV_COLL, whose timing a
 * split run already handles) with this aux; their handler calls
 * innet_on_timer. */
enum { INNET_EV_TIMER = 2 };
void innet_on_timer(struct net *n, uint32_t pending);

void innet_fini(struct net *n);

#endif /* FABSIM_INNET_INNET_H */

/* src/flowctl/credit_core.h
 *
 * The credit loop shared by InfiniBand's link-level credits (credit.c) and
 * Ultra Ethernet CBFC (cbfc.c): one receiver buffer per class counted in
 * credit units, credits returned in PKT_CREDIT frames as space frees. Only
 * flowctl/ includes this; the two ops tables differ in their init (profile).
 */
#ifndef FABSIM_FLOWCTL_CREDIT_CORE_H
#define FABSIM_FLOWCTL_CREDIT_CORE_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct packet;
struct diag;

/* What differs between the link layers that use the credit loop. */
struct credit_profile {
    uint32_t classes;             /* classes (VLs, CBFC classes) with a buffer, 1..NET_NCLASS */
    uint32_t block_bytes;         /* bytes per credit */
    int32_t adjust_bytes;         /* buffer bytes of a packet minus its wire bytes (IB: 0) */
    uint64_t switch_buffer_bytes; /* receive buffer per class of a switch port */
    uint64_t nic_buffer_bytes;    /* ...of a NIC port */
    uint32_t batch_blocks;        /* return credits once this many are free (1 = per packet) */
    uint64_t flush_ps;            /* ...or this long after the first, when batch_blocks > 1 */
    /* IBA flow-control packets (IB, credit.c): when refresh_ps != 0 the
     * receiver sends per class its absolute limit (FCCL) when it changes, no
     * sooner than interval_ps after the last, and every refresh_ps at least;
     * batch_blocks and flush_ps are then unused. refresh_ps == UINT64_MAX:
     * 65,536 symbol times at each link's rate. */
    uint64_t interval_ps;
    uint64_t refresh_ps;
    const char *class_word; /* "VL" or "class", for messages */
    const char *raise_hint; /* the keys that grow the buffer, for messages */
};

/* Allocates n->fc_state and gives every transmitter the receiver's buffer
 * as credits; round-robin arbitration over the classes, SL -> class mod
 * classes. 0, or FS_ERANGE with `d` set when a buffer holds no MTU packet. */
int credit_setup(struct net *n, struct diag *d, const struct credit_profile *pr);

void credit_fini(struct net *n);
bool credit_admit(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p);
bool credit_admit_max(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p);
bool credit_can_send(struct net *n, uint32_t port, uint32_t cls, uint32_t wire_bytes);
void credit_on_send(struct net *n, uint32_t port, struct packet *p);
void credit_on_release(struct net *n, uint32_t in_port, const struct packet *p);
void credit_on_ctrl(struct net *n, uint32_t port, const struct packet *p);
void credit_on_discard(struct net *n, uint32_t in_port, const struct packet *p);
uint32_t credit_arbitrate(struct net *n, uint32_t port);
uint64_t credit_ongoing_ps(const struct net *n, uint32_t port);

/* Tests: the most credits' worth class `cls` ever held in the receive buffer
 * of `port`, and the buffer's size, in credits of `unit_bytes` each (0 when
 * the fabric is not credit-based). */
int64_t credit_occupancy_max(const struct net *n, uint32_t port, uint32_t cls);
uint32_t credit_capacity(const struct net *n, uint32_t port, uint32_t *unit_bytes);

#endif /* FABSIM_FLOWCTL_CREDIT_CORE_H */

/* src/net/nic.h
 *
 * The NIC and its reliable transport (an RDMA RC-like queue pair): messages
 * are cut into MTU packets with sequence numbers, the receiver ACKs in order
 * (every `ack_every` packets and on a message's last), NAKs a gap once, and
 * the sender goes back N on a NAK or a retransmission timeout. The timeout is
 * the IBA local ACK timeout: after retry_cnt timeouts without progress the QP
 * goes to error (transport.rto: iba), or, as NIC firmware fast retransmission
 * does, it retries for ever (transport.rto: fixed). Active QPs of
 * a NIC share its port in round robin; congestion control may delay a QP.
 */
#ifndef FABSIM_NET_NIC_H
#define FABSIM_NET_NIC_H

#include "net/net.h"

#include <stdint.h>

struct sim;
struct event;

void nic_init(struct net *n); /* after the topology: one struct nic per host */
/* The NIC's port is free: the next data packet to send, or PKT_NONE. */
uint32_t nic_pull(struct net *n, uint32_t node, uint32_t port);
/* A packet arrived at NIC `node` through `port`; p = pkt(id), which the
 * link arrival has. */
void nic_rx(struct net *n, uint32_t node, uint32_t port, uint32_t id, struct packet *p);
/* Makes QP `qp` eligible to send and kicks its port. */
void nic_activate(struct net *n, uint32_t qp);
/* Sends a transport control packet (ACK/NAK/CNP) for `qp` from `node`. */
void nic_send_ctrl(struct net *n, uint32_t node, uint32_t qp, uint8_t type, uint32_t aux);
/* ...on the path of flow digest `flow_hash` instead of the QP's own (a
 * sprayed control packet: UET's credit grants). */
void nic_send_ctrl_via(struct net *n, uint32_t node, uint32_t qp, uint8_t type, uint32_t aux,
                       uint32_t flow_hash);
/* Receiver: the next expected packet of `qp` (payload, PKT_F_* flags, its
 * message) is delivered in order: count it, complete its message, ACK. */
void nic_deliver(struct net *n, uint32_t node, uint32_t qp, uint32_t payload_bytes, uint16_t flags,
                 uint32_t msg);
/* Does NIC `node` have QPs with data to send? (Inline: a host port's
 * transmission start asks it to decide on its wake.) */
static inline int nic_has_work(const struct net *n, uint32_t node) {
    return n->nics[n->nodes[node].index].rr_head != NET_NONE;
}
/* The port a NIC node sends on. */
uint32_t nic_port(const struct net *n, uint32_t node);
/* The port NIC `node` uses towards node `dst` (NVLink or network on GPUs). */
uint32_t nic_port_to(const struct net *n, uint32_t node, uint32_t dst);

/* The QP exhausted its retries: it goes to error, its messages fail
 * (results.json qp_errors; the job that owns it aborts). */
void nic_qp_error(struct net *n, uint32_t qp);
/* A message that can never complete (its QP is in error). */
void nic_msg_failed(struct net *n, uint32_t msg);

/* A host stall ended: deliver what a lossless NIC held, then resume sending. */
void nic_unstall(struct net *n, uint32_t node);

void nic_on_msg_post(struct sim *s, const struct event *e);
void nic_on_qp_timer(struct sim *s, const struct event *e);
void nic_on_wake(struct sim *s, const struct event *e);

#endif /* FABSIM_NET_NIC_H */

/* src/flowctl/none.c
 *
 * No link-level flow control: an output-queued switch port holds at most
 * `fabric.buffer` waiting bytes and drops what does not fit (tail drop), as a
 * lossy Ethernet switch does. NICs always have room.
 */
#include "flowctl/flowctl.h"

#include "config/scenario.h"
#include "net/net.h"

static bool none_admit(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p) {
    (void)in_port;
    if (out_port == NET_NONE) return true;
    return n->ports[out_port].q_bytes + p->wire_bytes <= n->buffer_bytes;
}

static bool none_can_send(struct net *n, uint32_t port, uint32_t cls, uint32_t wire_bytes) {
    (void)n, (void)port, (void)cls, (void)wire_bytes;
    return true;
}

const struct flowctl_ops flowctl_none_ops = {
    .name = "none",
    .admit = none_admit,
    .can_send = none_can_send,
};

const struct flowctl_ops *flowctl_select(const struct net *n, struct diag *d) {
    (void)d;
    switch (n->sc->fabric.flow_control) {
    case FLOWCTL_NONE:
        return &flowctl_none_ops;
    case FLOWCTL_CREDIT:
        return &flowctl_credit_ops;
    case FLOWCTL_PFC:
        return &flowctl_pfc_ops;
    }
    return NULL;
}

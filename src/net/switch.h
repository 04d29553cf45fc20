/* src/net/switch.h
 *
 * An output-queued switch: a packet that arrives is routed (route_ops),
 * admitted into the egress buffer (flowctl_ops) or dropped, and queued on its
 * output port. The port-to-port pipeline latency is part of the link's
 * delivery delay (port.deliver_ps), so it costs no event.
 */
#ifndef FABSIM_NET_SWITCH_H
#define FABSIM_NET_SWITCH_H

#include <stdint.h>

struct net;

void switch_rx(struct net *n, uint32_t sw, uint32_t in_port, uint32_t id);

#endif /* FABSIM_NET_SWITCH_H */

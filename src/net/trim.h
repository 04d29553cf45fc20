/* src/net/trim.h
 *
 * Packet trimming (UEC 1.0; NDP, SIGCOMM'17): a switch whose egress class
 * holds more than n->trim_bytes cuts an arriving data packet to its header
 * and forwards the header in the strict-priority class, so that the receiver
 * learns of the loss one path delay later and NAKs it (net/nic.c). Called by
 * the switch's receive path (net/switch.h) only.
 */
#ifndef FABSIM_NET_TRIM_H
#define FABSIM_NET_TRIM_H

#include <stdint.h>

struct net;

/* Trims packet `id` (a data packet routed to `out_port`) and queues its header. */
void trim_packet(struct net *n, uint32_t out_port, uint32_t id);

#endif /* FABSIM_NET_TRIM_H */

/* src/net/port.h
 *
 * A port's transmitter and the link it drives: egress queues per class, exact
 * serialisation at the link rate, propagation, and one pending arrival event
 * per link (packets on a link arrive in the order they left, all after the
 * same delay, so only the head needs an event: DESIGN.md "Speed").
 */
#ifndef FABSIM_NET_PORT_H
#define FABSIM_NET_PORT_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct sim;
struct event;
struct packet;

/* Appends packet `id` to `port`'s egress queue of class `cls` and kicks it. */
void port_enqueue(struct net *n, uint32_t port, uint32_t cls, uint32_t id);
/* Link-level frame (credit, pause): goes out before any waiting packet. */
void port_enqueue_ctrl(struct net *n, uint32_t port, uint32_t id);
/* Starts the next transmission if the transmitter is free and something may go. */
void port_kick(struct net *n, uint32_t port);
/* Cuts or restores one direction of a link. Cutting loses what is queued for
 * and in flight on it (counted as drops on that link). */
void port_set_up(struct net *n, uint32_t port, bool up);
/* Drops every packet waiting in `port`'s class `cls` (PFC watchdog). */
void port_flush_class(struct net *n, uint32_t port, uint32_t cls);
/* Does link `port` lose `p` (bit errors, gray failure)? Draws from the link's
 * loss stream and counts a corruption, as an arrival over it would; for link
 * layers that decide a frame's fate when it starts (link/llr.c). */
bool port_link_loses(struct net *n, uint32_t port, const struct packet *p);
/* The link loses frames without the receiver seeing them (a gray link that
 * does not count CRC errors), rather than with a bad FCS. */
bool port_link_loss_unseen(const struct net *n, uint32_t port);
/* Counts a lost packet on `port` and frees it. */
void port_drop(struct net *n, uint32_t port, uint32_t id);

void port_on_wake(struct sim *s, const struct event *e);
void port_on_arrive(struct sim *s, const struct event *e);

#endif /* FABSIM_NET_PORT_H */

/* src/net/trim.c
 *
 * Packet trimming at a switch (net/trim.h). The header keeps the packet's
 * identity (QP, PSN, message, sizes) and loses its payload on the wire: it
 * serialises as the fabric's per-packet overhead alone (UET headers, the
 * reference simulator's 64-byte trimmed packet plus preamble and gap:
 * docs/sources.md U3 main_uec.cpp trimsize). Trimmed headers skip buffer
 * admission and ECN marking, as CNPs in their own class do.
 */
#include "net/trim.h"

#include "net/net.h"
#include "net/packet.h"
#include "net/port.h"

void trim_packet(struct net *n, uint32_t out_port, uint32_t id) {
    struct packet *p = pkt(&n->pool, id);
    p->flags |= PKT_F_TRIMMED;
    p->flags &= (uint16_t)~PKT_F_ECN_CE;
    p->wire_bytes = n->overhead_bytes;
    if (!n->ports[out_port].peer_is_switch) p->flags |= PKT_F_TRIM_LAST;
    n->c.trimmed++;
    port_enqueue_ctrl(n, out_port, id);
}

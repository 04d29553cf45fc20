/* src/flowctl/flowctl.h
 *
 * Link-level flow control as a policy table (DESIGN.md): `none` (tail drop),
 * `credit` (InfiniBand), `pfc` (802.1Qbb) and `cbfc` (Ultra Ethernet
 * credit-based flow control on Ethernet links). Chosen once per scenario by
 * flowctl_select; called by net/port.c and net/switch.h on the forwarding path.
 * Header-only: net/ calls the policies through this table alone.
 */
#ifndef FABSIM_FLOWCTL_FLOWCTL_H
#define FABSIM_FLOWCTL_FLOWCTL_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct packet;
struct diag;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum flowctl_kind { FLOWCTL_CREDIT, FLOWCTL_PFC, FLOWCTL_NONE, FLOWCTL_CBFC };

/* Ultra Ethernet CBFC (cbfc.c); 0 = default (docs/scenario.md, docs/sources.md A15). */
struct cbfc_params {
    uint32_t credit_unit_bytes;    /* bytes per credit (the receiver's cell size) */
    int32_t packet_overhead_bytes; /* buffer bytes beyond its length (-4: FCS stripped) */
    bool packet_overhead_set;      /* false: the default */
    uint64_t class_buffer_bytes; /* receive buffer per class of a switch port; 0 = buffer/classes */
    uint64_t nic_buffer_bytes;   /* ...of a NIC; 0 = class_buffer */
    uint32_t update_credits;     /* update once this many credits are free; 0 = an MTU frame's */
    uint64_t update_interval_ps; /* ...or this long after the first, when update_credits > 1 */
};

struct pfc_params {
    uint64_t xoff_bytes, xon_bytes;
    uint64_t headroom_bytes; /* valid when !headroom_auto */
    bool headroom_auto;      /* docs/sources.md A4 formula */
    uint64_t watchdog_ps;    /* 0 = off */
    /* Shared-buffer dynamic threshold (docs/sources.md A3) instead of static xoff/xon:
     * XOFF when an ingress queue holds more than (B - headroom - shared used) >>
     * alpha_shift, XON when resume_offset below that again. */
    bool dynamic;
    uint32_t alpha_shift;         /* 3 = alpha 1/8 (ConWeave, docs/sources.md A3) */
    uint64_t resume_offset_bytes; /* 3 KB (HPCC switch-mmu.cc, docs/sources.md A3) */
};

struct flowctl_ops {
    const char *name;
    /* Sets up per-port state once the topology is built. */
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* A packet arrived at a switch (or NIC) through in_port, headed for
     * out_port (NET_NONE at a NIC). false = no room: the caller drops it. */
    bool (*admit)(struct net *n, uint32_t in_port, uint32_t out_port, struct packet *p);
    /* May `port` start sending a packet of class `cls` now (credits, pause)? */
    bool (*can_send)(struct net *n, uint32_t port, uint32_t cls, uint32_t wire_bytes);
    /* `p` starts serialising on `port` (consume credits). */
    void (*on_send)(struct net *n, uint32_t port, struct packet *p);
    /* `p`, which entered this node through in_port, left the node's buffer
     * (switch: started on its egress link; NIC: consumed): free its space. */
    void (*on_release)(struct net *n, uint32_t in_port, const struct packet *p);
    /* A link-level frame (PKT_CREDIT, PKT_PAUSE) arrived at `port`. */
    void (*on_ctrl)(struct net *n, uint32_t port, const struct packet *p);
    /* Optional: `p` arrived through in_port and was discarded before admit
     * (no route, dead output): its input-buffer space is free again. */
    void (*on_discard)(struct net *n, uint32_t in_port, const struct packet *p);
    /* Optional: `port` came up again (port_set_up), before it is kicked: a
     * link re-initialisation, done by every rank on its replica at the same
     * instant; state kept across the link only from each end's own rank. */
    void (*on_link_up)(struct net *n, uint32_t port);
    /* Optional: the class `port` should try first (VL arbitration). */
    uint32_t (*arbitrate)(struct net *n, uint32_t port);
    /* Optional, read-only: blocked time of `port` (pauses summed over its
     * classes, or a credit stall) that is running now and not yet added to
     * paused_ps / credit_stall_ps (those grow when a pause ends or is
     * refreshed). The sampler adds it so each interval gets its share; it must
     * not change the model (IB CC and the stuck check read the counters).
     * Called only while port.fc_hold is not 0: 0 otherwise (PFC holds a
     * class exactly while it is paused; credits hold every class). */
    uint64_t (*ongoing_ps)(const struct net *n, uint32_t port);
    /* Lossless: a stalled host holds what it receives instead of dropping it. */
    bool lossless;
    /* FLOWCTL_FAST_*: the inline paths net/ may take instead of this table
     * (model/model.c copies it to net.fc_fast), 0 = none. */
    uint8_t fast;
};

/* flowctl_ops.fast: fc_state is a struct pfc_state and flowctl/pfc-inl.h's
 * admit and release paths give the table's results (flowctl_pfc_ops). A
 * capability, not the table's address, so that net/ names no policy. */
#define FLOWCTL_FAST_PFC 1u

/* The table for the scenario's fabric.flow_control, or NULL with `d` set
 * ("not implemented yet"). */
const struct flowctl_ops *flowctl_select(const struct net *n, struct diag *d);

extern const struct flowctl_ops flowctl_none_ops;
extern const struct flowctl_ops flowctl_credit_ops;
extern const struct flowctl_ops flowctl_pfc_ops;
extern const struct flowctl_ops flowctl_cbfc_ops;

/* PFC headroom per ingress queue from docs/sources.md A4's formula: link rate,
 * propagation (cable), switch pipeline latency and the MTU on the wire. */
uint64_t pfc_headroom_auto(uint64_t rate_bps, uint64_t prop_ps, uint64_t switch_latency_ps,
                           uint32_t mtu_wire_bytes);
/* The XOFF threshold an ingress priority group of `port` pauses at now: the
 * static xoff, or with a shared buffer alpha x the switch's free pool
 * (shrinks as the pool fills). 0 without PFC. */
uint64_t pfc_xoff_bytes(const struct net *n, uint32_t port);
/* The headroom in use (after `headroom: auto`), 0 without PFC. */
uint64_t pfc_headroom_bytes(const struct net *n);

#endif /* FABSIM_FLOWCTL_FLOWCTL_H */

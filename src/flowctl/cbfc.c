/* src/flowctl/cbfc.c
 *
 * Ultra Ethernet credit-based flow control (UEC 1.0 link layer, "CBFC";
 * docs/sources.md A15) on Ethernet links, beside PFC: each receiving port
 * advertises a buffer per traffic class in credits; the transmitter starts a
 * frame of a class only when it holds credits for all of the frame's wire
 * bytes; the receiver returns credits in credit-update frames as it frees
 * buffer. Lossless by construction, with no pause frames and no headroom:
 * the buffer a class may fill is the one the receiver advertised.
 *
 * The loop itself is the InfiniBand one (credit.c, credit_core.h): the same
 * conservation law, resynchronisation after a cut link, batching with a
 * flush timer. What is Ethernet here: the credit unit (fabric.cbfc.credit_unit),
 * the classes (the 802.1p priorities the model carries, NET_NCLASS), the
 * buffer per class (fabric.cbfc.class_buffer, default fabric.buffer split over
 * the classes), the update cadence (fabric.cbfc.update_credits and
 * update_interval), and the update on the wire: a minimum-size Ethernet frame,
 * 64 B + 8 B preamble + 12 B gap = 84 B (net_ctrl_wire_bytes), served ahead of
 * data like PFC's MAC-control frames. Updates carry the credits freed since
 * the last one (UEC's cumulative counters make a lost update harmless; the
 * model never loses link-level frames, docs/model.md "Failures").
 */
#include "flowctl/credit_core.h"
#include "flowctl/flowctl.h"

#include "core/diag.h"
#include "core/time.h"
#include "net/net.h"
#include "net/params.h"

/* Defaults (docs/sources.md A15; (C) = a choice, not published). */
#define CBFC_UNIT_DEFAULT 64       /* cell size: UE spec 1.0.3 Table 5-14 via the OTG model */
#define CBFC_OVERHEAD_DEFAULT (-4) /* per-packet buffer overhead: the same (FCS stripped) */
#define CBFC_PREAMBLE_IFG 20       /* wire bytes never stored: 8 B preamble + 12 B gap */

static int cbfc_init(struct net *n, struct diag *d) {
    const struct fabric_params *f = &n->sc->fabric;
    const struct cbfc_params *cb = &f->cbfc;
    if (f->kind == FABRIC_INFINIBAND)
        return diag_set(d, n->sc->file, (struct srcpos){0, 0}, FS_EINVAL,
                        "fabric.flow_control: cbfc is Ethernet credit-based flow control; "
                        "InfiniBand uses credit");
    uint64_t cls = cb->class_buffer_bytes ? cb->class_buffer_bytes : n->buffer_bytes / NET_NCLASS;
    uint32_t unit = cb->credit_unit_bytes ? cb->credit_unit_bytes : CBFC_UNIT_DEFAULT;
    int32_t adjust = -CBFC_PREAMBLE_IFG +
                     (cb->packet_overhead_set ? cb->packet_overhead_bytes : CBFC_OVERHEAD_DEFAULT);
    uint32_t mtu_credits =
        (uint32_t)(((int64_t)net_data_wire_bytes(n, n->mtu_bytes, true) + adjust + unit - 1) /
                   unit);
    struct credit_profile pr = {
        .classes = NET_NCLASS,
        .block_bytes = unit,
        /* A frame takes its length (wire bytes without preamble and gap)
         * plus the packet overhead in the receiver's buffer. */
        .adjust_bytes = adjust,
        .switch_buffer_bytes = cls,
        .nic_buffer_bytes = cb->nic_buffer_bytes ? cb->nic_buffer_bytes : cls,
        /* auto: an update once an MTU frame's worth of credits is free, or
         * update_interval after the first (C): per-release updates of 84 B
         * would take 2 % of a link that carries one ACK per data packet
         * back, while the receiver's class buffer dwarfs a 1 us delay. */
        .batch_blocks = cb->update_credits ? cb->update_credits : mtu_credits,
        .flush_ps = cb->update_interval_ps ? cb->update_interval_ps : PS_PER_US,
        .class_word = "class",
        .raise_hint = "fabric.cbfc.class_buffer or fabric.buffer",
    };
    return credit_setup(n, d, &pr);
}

const struct flowctl_ops flowctl_cbfc_ops = {
    .name = "cbfc",
    .init = cbfc_init,
    .fini = credit_fini,
    .admit = credit_admit_max,
    .can_send = credit_can_send,
    .on_send = credit_on_send,
    .on_release = credit_on_release,
    .on_ctrl = credit_on_ctrl,
    .on_discard = credit_on_discard,
    .arbitrate = credit_arbitrate,
    .ongoing_ps = credit_ongoing_ps,
    .lossless = true,
};

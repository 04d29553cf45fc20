/* src/link/retry.h
 *
 * Link-level retry as a policy table: `none`, or `llr` (Ultra Ethernet /
 * IEEE 802.3dj Link Level Retry, link/llr.c): a per-link replay buffer that
 * resends corrupted frames at the hop where they were corrupted. Chosen once
 * per scenario (link_retry_select); net/port.c calls it on the packet path
 * (arrival over a lossy link, the transmitter's next pick, each data send).
 */
#ifndef FABSIM_LINK_RETRY_H
#define FABSIM_LINK_RETRY_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct packet;
struct diag;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum link_retry_kind { LINK_RETRY_NONE, LINK_RETRY_LLR };

/* 0 = default (docs/scenario.md, docs/sources.md A16). */
struct llr_params {
    uint64_t replay_buffer_bytes; /* outstanding (unacknowledged) bytes per link; 0 = auto */
    uint32_t replay_frames;       /* outstanding frames per link */
    uint64_t replay_timer_ps;     /* no ACK for this long: replay (a frame lost unseen) */
    uint32_t max_replays;         /* replays of one frame before LLR gives up on it */
    uint64_t ack_spacing_bytes;   /* the receiver ACKs once this many bytes arrived */
};

/* What the port engine asks. `port` is always the transmitting port of the
 * link (the receiver is its peer). */
struct link_retry_ops {
    const char *name;
    int (*init)(struct net *n, struct diag *d);
    void (*fini)(struct net *n);
    /* Packet `id` arrives over link `port`. A frame the retry layer protects
     * (PKT_F_LLR) had its fate drawn when it started; for others `lost` says
     * whether the receiver's FCS check failed (or a gray link swallowed it).
     * true: the retry layer took the frame (parked for a replay, discarded,
     * or dropped); false: deliver it (or, lost, drop it) as usual. */
    bool (*on_arrive)(struct net *n, uint32_t port, uint32_t id, bool lost);
    /* The transmitter of `port` is free: a frame to replay (its id, started
     * without flow control: its original took the credits), or PKT_NONE. */
    uint32_t (*pull)(struct net *n, uint32_t port);
    /* A new frame `p` starts on `port` (sequence number, replay buffer). */
    void (*on_send)(struct net *n, uint32_t port, struct packet *p);
    /* Optional: link `port` was cut; what the retry layer holds for it is
     * lost with it (a restored link starts over, as after LLR re-init). */
    void (*on_down)(struct net *n, uint32_t port);
};

/* The table for fabric.link_retry, NULL for none. */
const struct link_retry_ops *link_retry_select(const struct net *n);

extern const struct link_retry_ops link_retry_llr_ops;

/* The replay buffer per link in use (after `replay_buffer: auto`), 0 without LLR. */
uint64_t llr_replay_buffer_bytes(const struct net *n);

#endif /* FABSIM_LINK_RETRY_H */

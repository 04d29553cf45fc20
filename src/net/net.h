/* src/net/net.h
 *
 * The network model's state: nodes (NICs and switches), ports (each port is
 * also the directed link it transmits on), queue pairs, messages, and the
 * policy tables chosen for the scenario (flow control, routing, congestion
 * control). Entities refer to each other by integer id only. Built by
 * model/model.c and topo/, driven by events on core/'s clock.
 */
#ifndef FABSIM_NET_NET_H
#define FABSIM_NET_NET_H

#include "core/rng.h"
#include "core/sim.h"
#include "net/packet.h"

#include <stdbool.h>
#include <stdint.h>

struct net;
struct model_params;
struct flowctl_ops;
struct route_ops;
struct cc_ops;
struct xport_ops;
struct link_retry_ops;
struct ctrl_ops;
struct route_fib;
struct par;
struct net_dist_ops;

/* What switches and NICs do with a packet type the packet layer carries but
 * does not interpret (in-network reduction's PKT_INNET): the layer that
 * makes such packets registers its handlers (net_register_type). At a
 * switch the packet is the handler's to free or forward; at a NIC the NIC
 * frees it after the handler returns. */
struct net_type_ops {
    void (*switch_rx)(struct net *n, uint32_t sw, uint32_t in_port, uint32_t id);
    void (*host_rx)(struct net *n, uint32_t node, uint32_t port, uint32_t id);
};

#define NET_NONE UINT32_MAX
#define NET_NCLASS 4 /* egress classes per port: IB VLs / Ethernet priorities modelled */
/* port.cls_mask: the bits of the classes, and the control queue's bit */
#define PORT_MASK_CLS ((1u << NET_NCLASS) - 1)
#define PORT_MASK_CTRL (1u << 7)
_Static_assert(NET_NCLASS < 8, "the classes' bits below the control queue's");
/* NIC out-of-order window when fabric.reorder_window is not given: ConnectX
 * does not publish its out-of-order tracking depth (docs/sources.md A10, C); 1024
 * PSNs = 4 MiB at MTU 4096, far deeper than the queue differences between
 * parallel minimal paths. */
#define NET_OOO_WINDOW_DEFAULT 1024

/* The event loop's cache warm-up (net/warm.h, model/model.c): AUTO picks by
 * the fabric's size; tests force the others and compare (tests/net/test_warm.c). */
enum net_warm_mode { NET_WARM_AUTO, NET_WARM_OFF, NET_WARM_PORTS, NET_WARM_ROUTED };

/* Event kinds of the whole model (core/sim dispatches on them). */
enum net_ev {
    NET_EV_LINK_ARRIVE, /* arg = port whose link delivers its head packet */
    NET_EV_PORT_WAKE,   /* arg = port: transmitter free or head packet ready */
    NET_EV_MSG_POST,    /* arg = message id: the application posts it */
    NET_EV_QP_TIMER,    /* arg = node: retransmission timeouts of that NIC's QPs */
    NET_EV_NIC_WAKE,    /* arg = node: a rate-limited QP may send */
    NET_EV_SAMPLE,      /* periodic statistics sample */
    NET_EV_SCENARIO,    /* arg = index into scenario events */
    NET_EV_GEN,         /* arg = generator id (open-loop workloads) */
    NET_EV_DEADLOCK,    /* periodic deadlock check */
    NET_EV_STUCK,       /* periodic no-progress check (net/stuck.c) */
    NET_EV_HOQ,         /* IB head-of-queue lifetime scan (net/hoq.c) */
    NET_EV_FIRST_FREE,  /* modules (ctrl, coll, flowctl, cc) take kinds from here */
    NET_EV_CTRL = NET_EV_FIRST_FREE,
    NET_EV_FLOWCTL,
    NET_EV_CC,
    NET_EV_COLL,
    NET_EV_LINK, /* link-layer retry (link/llr.c) */
    NET_EV_NKINDS
};

enum node_kind { NODE_HOST, NODE_SWITCH };

/* Roles name nodes and tiers (SPEC.md names: leaf0, spine1, edge2, ...). */
enum node_role {
    ROLE_HOST,
    ROLE_SW,
    ROLE_LEAF,
    ROLE_SPINE,
    ROLE_EDGE,
    ROLE_AGG,
    ROLE_CORE,
    ROLE_NVSWITCH
};

struct node {
    uint8_t kind;  /* enum node_kind */
    uint8_t role;  /* enum node_role */
    uint8_t level; /* 0 host, 1 first switch tier, ... (up/down routing, tier names) */
    uint8_t stalled;
    uint32_t index; /* among nodes of the same kind: host index or switch index */
    uint32_t first_port, nports;
    uint32_t pad;
};

struct pq { /* one FIFO of packets (intrusive list) */
    uint32_t head, tail;
    uint64_t bytes;
};

/* One port, 256 bytes laid out by use (issue 13): line 0 holds what every
 * hop reads (the arrival at the far end and the transmitter), line 1 the
 * egress queues, line 2 the control queue, queue integral and transmit
 * counters, line 3 what is cold (a hop touches lines 0-2 only). net_finish_ports
 * allocates the array 64-byte aligned. */
struct port {
    /* line 0 */
    uint32_t node;               /* owner */
    uint32_t peer;               /* the port at the other end of the link */
    uint32_t peer_node;          /* ports[peer].node: the arrival needs no second port */
    uint32_t fly_head, fly_tail; /* packets on the wire, in arrival order */
    uint32_t ps_per_byte;        /* serialisation per byte when a whole number of ps, else 0 */
    uint16_t fly_gen;            /* bumped when the link is cut: stale arrival events are ignored */
    uint8_t rr;                  /* round-robin pointer over classes */
    /* bit c set when cls[c] is not empty, PORT_MASK_CTRL when ctrl is: zero
     * when nothing waits, one test for an enqueue's fast path */
    uint8_t cls_mask;
    /* bit c set: ask flowctl_ops.can_send before class c sends; clear: it
     * would say yes (flow control `none`: never set; credits: always; PFC:
     * while a pause of that class is in force, flowctl/pfc.c) */
    uint8_t fc_hold;
    uint8_t up : 1;
    uint8_t is_host : 1;        /* the owner is a NIC (pulls data from its QPs) */
    uint8_t cut_through : 1;    /* the far end is a cut-through switch: it sees the header, not
                                   the tail (deliver_ps counts from the first bit) */
    uint8_t peer_is_switch : 1; /* peer_node is a switch */
    uint8_t remote : 1;         /* parallel runs: the far end is on another rank (par/par.h) */
    uint8_t pad0[2];
    sim_time_ps busy_until_ps; /* transmitter serialising until then */
    sim_time_ps wake_at_ps;    /* latest PORT_WAKE scheduled */
    uint64_t deliver_ps;       /* prop_ps + the receiving switch's pipeline latency: a packet
                                  enters the far node's queues this long after its last bit left */
    uint64_t q_bytes;          /* waiting bytes in all classes (not the one in service) */
    /* line 1 */
    struct pq cls[NET_NCLASS]; /* egress queues per class */
    /* line 2 */
    struct pq ctrl; /* link-level frames (credits, pause), served first */
    /* The integral of q_bytes over time (byte·ps, exact) is port_q_area():
     * q_bytes·now − q_area_sub, mod 2^128, where q_area_sub sums each change
     * of q_bytes times when it happened. A change costs one multiply-add and
     * no clock of the last change (issue 34 item 5). */
    unsigned __int128 q_area_sub;
    uint64_t pad2;
    uint64_t q_max;
    uint64_t tx_bytes, tx_packets;
    /* line 3 */
    /* Time spent serialising is port_busy_ps(): tx_bytes x ps_per_byte when
     * that is a whole number, else this sum (start_tx keeps off this line). */
    uint64_t busy_frac_ps;
    uint64_t rate_bps; /* link rate */
    uint64_t prop_ps;  /* propagation delay */
    uint64_t drops, paused_ps, credit_stall_ps;
    uint16_t parallel; /* index among parallel links between the same nodes (#1, ...) */
    uint8_t pad8[2];
    uint32_t buffer_bytes; /* the link's own egress buffer (topology file), 0 = fabric.buffer;
                              read only when n->link_buffers */
    sim_time_ps down_ps;   /* when the link last went down (NEVER while up): ECMP pruning */
};

/* The integral of `pt`'s waiting bytes over [0, now], byte·ps (exact). */
static inline unsigned __int128 port_q_area(const struct port *pt, sim_time_ps now_ps) {
    return (unsigned __int128)pt->q_bytes * now_ps - pt->q_area_sub;
}

/* Time port `pt` has spent serialising. */
static inline uint64_t port_busy_ps(const struct port *pt) {
    return pt->ps_per_byte ? pt->tx_bytes * pt->ps_per_byte : pt->busy_frac_ps;
}

/* Per-port failure counters (docs/model.md "Failures"), off the port's lines. */
struct port_fail {
    uint64_t corrupted;    /* packets lost to bit errors at the receiver */
    uint64_t hoq_discards; /* IB head-of-queue lifetime and VL-stall discards (net/hoq.c) */
    uint64_t llr_nacks;    /* link-level retry (link/llr.c): NACKs for frames on this link */
    uint64_t llr_replays;  /* ...and frames this port resent from its replay buffer */
};
_Static_assert(sizeof(struct port) == 256, "a port is four cache lines");
_Static_assert(__builtin_offsetof(struct port, cls) == 64 &&
                   __builtin_offsetof(struct port, busy_frac_ps) == 192,
               "a hop touches a port's lines 0-2 only");

struct msg {
    uint32_t qp;
    uint32_t first_psn, npkts;
    int32_t flow; /* row in flows[], or -1 (collectives report their own rows) */
    uint64_t size_bytes;
    sim_time_ps post_ps, recv_ps, acked_ps; /* recv: last byte at the receiver */
    uint32_t owner; /* opaque id for the poster (collective op), NET_NONE if none */
    uint32_t next;  /* next message of the same QP, in PSN order */
    uint8_t failed; /* its QP went to error before it was acknowledged */
    uint8_t freed;  /* the slot is on the free list (net_msg_release) */
};

struct flow_row {
    uint32_t src, dst; /* host indices */
    uint64_t size_bytes;
    sim_time_ps start_ps, end_ps;
    uint32_t msgs_left;
    uint32_t failed; /* messages lost to a QP error (the flow never completes) */
};

/* One queue pair, two cache lines (net_qp_new allocates the array 128-byte
 * aligned): line 0 holds what the sender reads for every data packet it
 * pulls (nic_pull: the PSNs, the current message's PSN range and last
 * packet's payload, so that the message's own line is read once per
 * message, not per packet), line 1 what an ACK advances (ack_upto) and the
 * receiver's state. Both lines are read by an arrival (net/warm.h fetches
 * both). */
struct qp {
    /* line 0: the sender, per data packet */
    uint32_t src, dst;    /* node ids */
    uint32_t posted_pkts; /* PSNs [0, posted_pkts) belong to posted messages */
    uint32_t next_psn, una, max_sent_psn;
    uint32_t cur_msg; /* message that next_psn falls in (set with net_qp_set_cur) */
    /* cur_msg's first PSN, its end (first + npkts) and its last packet's
     * payload: copies of the message's fields, valid while cur_msg is not NET_NONE */
    uint32_t cur_first_psn, cur_end_psn, cur_last_bytes;
    uint32_t rr_next; /* link in the host's active ring */
    /* flow_digest of the 5-tuple, once per QP: [0] src -> dst (data), [1]
     * dst -> src (ACK, NAK, CNP); packets carry it for ECMP */
    uint32_t flow_hash[2];
    uint8_t active; /* in the host's active ring */
    uint8_t prio;
    /* RC retry state (docs/sources.md A12): timeouts since the last forward progress;
     * the QP errors after retry_cnt of them */
    uint8_t retries;
    uint8_t error;
    sim_time_ps rto_deadline_ps; /* SIM_TIME_NEVER when nothing is outstanding */
    /* line 1: acknowledgements, the receiver, what is cold */
    sim_time_ps progress_ps;   /* last forward progress (first send or an ACK advancing) */
    sim_time_ps stall_max_ps;  /* longest span without progress that needed a timeout */
    sim_time_ps stall_from_ps; /* ...and when it began */
    uint32_t una_msg;          /* oldest message not fully acknowledged (net_qp_set_una) */
    uint32_t una_end_psn;      /* its end (first + npkts), valid while una_msg is not NET_NONE */
    uint32_t msg_tail;         /* last posted message */
    uint32_t nic_next;         /* next QP sending from the same NIC */
    uint32_t retries_total;    /* every timeout-driven resend */
    /* receiver */
    uint32_t expect_psn;
    uint32_t since_ack; /* in-order packets since the last ACK */
    uint32_t recv_msg;  /* message being received */
    uint16_t entropy;   /* UDP source port (RoCEv2) / flow label: set with net_qp_set_entropy */
    uint8_t nak_sent;
    uint8_t pad8;
    /* rto: adaptive (net/nic.c): the current timeout is time_base x 2^rto_exp;
     * rto_uses counts timeouts at the range's entry value, QP_RTO_IN_RANGE
     * set once the first timeout has left the random initial value */
    uint8_t rto_exp;
    uint8_t rto_uses;
    uint16_t pad16;
};
#define QP_RTO_IN_RANGE 0x80u
_Static_assert(sizeof(struct qp) == 128 && __builtin_offsetof(struct qp, progress_ps) == 64,
               "a QP is two cache lines, the sender's per-packet fields in the first");

struct nic {
    uint32_t node;
    uint32_t rr_head, rr_tail; /* ring of active QPs (qp.rr_next) */
    uint32_t qp_head;          /* every QP sending from this NIC (qp.nic_next) */
    uint32_t pad;
    sim_time_ps wake_at_ps;
    sim_time_ps timer_at_ps;       /* the NIC's one pending retransmission-timer event */
    uint32_t held_head, held_tail; /* lossless fabric, stalled host: packets held, not dropped */
};

struct net_counters {
    uint64_t packets_sent, packets_delivered, packets_dropped;
    uint64_t bytes_delivered, retransmitted_packets;
    uint64_t pause_frames, ecn_marked, cnps;
    uint64_t reorder_max_bytes;
    uint64_t corrupted, gray_dropped, timeouts, hoq_discards; /* failures (docs/model.md) */
    sim_time_ps first_hoq_ps;                                 /* first HOQ discard (0 = none) */
    /* When the first PAUSE frame was sent / the first CE mark set (0 = not
     * yet; neither can happen at time 0): which of PFC and ECN acts first. */
    sim_time_ps first_pause_ps, first_mark_ps;
    /* Ultra Ethernet (docs/model.md "Ultra Ethernet"): data packets trimmed
     * by switches, NAKs the receivers sent for them, entropy values moved off
     * a path after an ECN echo or a NAK, RCCC credit grants and their bytes. */
    uint64_t trimmed, trim_naks, entropy_changes, credit_grants, credit_bytes;
    /* NAKs an out-of-order receiver sent for a hole its timer found open
     * (fabric.reorder_timeout, net/nic.c rx_hole_timer) */
    uint64_t ooo_naks;
    /* Link layer: credit-update frames sent (credit.c, cbfc.c); link-level
     * retry (link/llr.c): frames replayed and their wire bytes, NACKs and
     * ACKs (control ordered sets), frames it could not recover. */
    uint64_t credit_frames;
    uint64_t llr_replays, llr_replay_bytes, llr_nacks, llr_acks, llr_unrecovered;
    uint64_t llr_ineligible; /* sent unprotected: the replay buffer was full */
};

/* One row of results.json "collectives" (written by coll/). */
struct coll_row {
    uint32_t job;
    uint8_t op;        /* enum wl_kind */
    uint8_t algorithm; /* enum coll_algo actually used */
    uint8_t fallback;  /* SHARP requested but resources exhausted: ran as ring */
    uint8_t proto;     /* enum coll_proto of the call's point-to-point steps */
    uint32_t ranks;
    uint64_t size_bytes;
    sim_time_ps start_ps, end_ps;
};

/* One row of results.json "qp_errors": a QP that exhausted its retries. */
struct qp_err_row {
    uint32_t qp, src, dst; /* QP id, node ids */
    uint32_t psn;          /* oldest unacknowledged */
    uint32_t retries;
    uint32_t msgs_failed;
    sim_time_ps at_ps;
};

/* One row of results.json "control_plane". */
/* What noticed a gray failure (results.json control_plane[].detected_by). */
enum cp_detect { CP_DET_NONE, CP_DET_LIVENESS, CP_DET_SWEEP, CP_DET_UNHEALTHY };

struct cp_row {
    uint8_t event;       /* enum ev_kind */
    uint8_t converged;   /* every switch of the control plane converged (or nothing to do) */
    uint8_t detected_by; /* enum cp_detect: what noticed a gray failure */
    uint8_t pad;
    uint32_t port;                 /* link (port on the named side) */
    sim_time_ps at_ps;             /* the event */
    sim_time_ps rerouted_ps;       /* new forwarding state everywhere, or SIM_TIME_NEVER */
    sim_time_ps local_rerouted_ps; /* switch-local fast reroute (SHIELD) done, or NEVER */
    uint64_t drops_at_start;       /* link drops when it went down */
    uint64_t packets_lost;
    sim_time_ps up_ps;       /* link_up / end of a flap's down phase, or NEVER */
    sim_time_ps detected_ps; /* gray failure: when the control plane noticed, or NEVER */
};

/* Per-link loss (bit errors, gray failure), allocated when any link has one. */
struct link_loss {
    struct rng rng; /* per-link stream: results do not depend on other links */
    double ber;     /* bit error rate */
    double drop;    /* gray failure: fraction of packets dropped */
    bool errors;    /* ...counted as CRC errors (corrupted), not vanished */
};

/* A run that cannot finish, as net/stuck.c diagnoses it (results.json
 * summary.stuck). Here, not in net/stuck.h, so that the state's header
 * depends on no module of the packet path. */
#define STUCK_MAX_LISTED 16 /* flows named in results.json */

struct stuck_flow {
    uint32_t qp;
    char on[160]; /* "link down: leaf1->h3", "no route at spine0", ... */
};

struct stuck_info {
    bool detected;
    sim_time_ps at_ps, since_ps; /* when diagnosed; the last delivery */
    char reason[160];            /* the first waiting flow's state */
    uint32_t nwaiting;           /* QPs with unacknowledged data */
    struct stuck_flow flows[STUCK_MAX_LISTED];
    uint32_t nlisted;
};

struct deadlock_info {
    bool detected;
    sim_time_ps at_ps;
    uint32_t *cycle; /* ports */
    uint32_t ncycle;
};

struct sampler;
struct trace_sink_ops;

struct net {
    struct sim *sim;
    const struct model_params *sc; /* what the run reads (net/params.h) */
    struct pkt_pool pool;

    struct node *nodes;
    uint32_t nnodes;
    size_t nodes_cap, names_cap;
    char (*names)[24]; /* node names */
    uint32_t nhosts, nswitches;
    uint32_t *host_node; /* host index -> node id */

    struct port *ports;
    uint32_t nports;
    size_t ports_cap;

    struct nic *nics; /* by host index */

    struct qp *qps;
    uint32_t nqps;
    size_t qps_cap;
    /* Messages by id. A slot returns to a free list (linked by msg.next)
     * once its message is acknowledged (net_msg_release), so nmsgs is the
     * most messages alive at once, not every message of the run (issue 13);
     * msg_keep keeps every record to the end instead (a Chrome trace lists
     * every transfer, a parallel run merges them, tests compare them). */
    struct msg *msgs;
    uint32_t nmsgs; /* slots in use or free: [0, nmsgs) */
    size_t msgs_cap;
    uint32_t msg_free; /* first free slot, NET_NONE if none */
    bool msg_keep;     /* never recycle: ids are unique over the run */
    /* Windowed runs with collectives (par/pcoll.c): a release is recorded
     * and every rank frees the slot at the window's end, in the records'
     * order, so free lists, and the ids the collectives' messages get, agree
     * on every rank and with the replay's order. NULL: freed at once. */
    void (*on_msg_release)(struct net *n, uint32_t msg);
    uint8_t warm;        /* enum net_warm_mode: the event loop's cache warm-up (net/warm.h) */
    uint64_t msgs_total; /* messages created */
    struct flow_row *flows;
    uint32_t nflows;
    size_t flows_cap;

    /* policies */
    const struct flowctl_ops *fc;
    const struct route_ops *route;
    const struct cc_ops *cc;
    const struct xport_ops *xp; /* transport extension (xport/xport.h); NULL: none */
    void *xp_state;
    /* Switches trim a data packet to its header instead of queueing it when
     * its egress class holds more than this (net/trim.c); 0 = never. */
    uint64_t trim_bytes;
    /* Some port has its own egress buffer (topology file `buffer`, struct
     * port buffer_bytes): tail drop and trimming then read it. */
    bool link_buffers;
    /* The receiver acknowledges every data arrival with its PSN, send time
     * and size echoed (per-packet SACK, UET); control packets then travel in
     * the strict-priority class. */
    bool sack;
    const struct link_retry_ops *lr; /* link-level retry, NULL = none (link/retry.h) */
    /* Some policy watches each transmission (fc->on_send, cc->on_tx, lr):
     * one test per hop instead of three (set when the policies are chosen). */
    bool tx_hooks;
    /* Some link loses frames (loss) or retries them (lr): the link arrival
     * tests one byte instead of two pointers (set with lr, and when the loss
     * state is first allocated, model/model.c). */
    bool rx_hooks;
    /* The policies' inline paths (flowctl_ops.fast, route_ops.fast: PFC's
     * admission and release, ECMP's choice), copied when they are chosen so
     * that a hop tests one byte of the net, not an ops table's address. */
    uint8_t fc_fast, route_fast;
    /* Something watches each packet a switch queues (trim_bytes, cc's
     * on_enqueue: ECN marking): one test per switch hop instead of two. */
    bool sw_hooks;
    void *lr_state;
    void *fc_state, *route_state, *cc_state, *ctrl_state, *coll_state, *wl_state, *ev_state;

    /* per-switch forwarding: the minimal output ports per (switch, destination
     * host), stored by destination group (route/fib.h, route_fib_get); route/
     * builds it, model/model.c frees it (net/ only carries it) */
    struct route_fib *fib;
    /* static routing: one port per (switch, host) as its index in the switch
     * + 1, 0 if none (2 B: 4 B took 318 MB at k = 48, issue 34);
     * net_lft_get / net_lft_set */
    uint16_t *lft;
    /* A run split over ranks keeps the rows of its own switches only (the
     * subnet manager's, ctrl/sm.c): switch index -> row of lft, NET_NONE for
     * another rank's switch; NULL: row s is switch s (every row held). */
    uint32_t *lft_row;
    /* A run split over ranks (par/): every node's rank, from the build on
     * (model/part.c), and this process's; NULL / 0 / 1 on one process. */
    uint16_t *part_owner;
    uint32_t part_rank, part_ranks;

    /* fabric constants, resolved from the scenario */
    uint32_t mtu_bytes, overhead_bytes, ack_every;
    uint64_t switch_latency_ps, buffer_bytes, rto_ps;
    bool go_back_0;
    uint8_t sl2vl[16]; /* QP service level -> egress class (VL); identity mod NET_NCLASS */
    /* Out-of-order acceptance (adaptive routing): 0 = in-order receiver
     * (go-back-N on any gap); else a per-QP bitmap of this many PSNs. */
    uint32_t ooo_window;
    uint64_t *ooo_bits; /* nqps * ooo_window/64 words, grown lazily */
    size_t ooo_cap;

    struct net_counters c;
    uint64_t work_pending; /* messages not yet acknowledged + open generators */
    uint64_t work_total;
    uint64_t bytes_posted; /* payload of every message created (progress lines) */
    /* Progress of collectives and training (coll/coll.c): the wire bytes
     * their schedules will post, as known so far (a call's whole graph when
     * it starts, later calls of the job estimated by size), and how many of
     * those were posted. Progress lines only: never in results. */
    uint64_t bytes_planned, bytes_planned_posted;
    sim_time_ps done_ps; /* when work_pending last reached 0: the workload finished */
    /* the latest time work_pending fell (net_work_done): done_ps is that
     * when it reaches 0. One process: now. Several ranks: the collectives'
     * replay releases a job at its record's time, which may lie before this
     * rank's own last acknowledgement of the window (par/pcoll.c). */
    sim_time_ps work_last_ps;
    /* Control-plane activity (an SM re-sweep, BGP convergence) keeps the run
     * going but is not workload: it never delays done_ps or `completed`. */
    uint32_t ctrl_pending;
    bool ctrl_held;           /* the control plane acted at least once */
    sim_time_ps ctrl_done_ps; /* when ctrl_pending last reached 0 */
    /* A control plane that reacts on timers without holding the run (BGP):
     * the last reaction it has scheduled (net/stuck.c waits for it). */
    sim_time_ps ctrl_busy_until_ps;
    uint64_t pkts_in_flight;

    struct sampler *sampler;
    /* Packet trace sink (net/trace.h; sinks attach through stats/trace.h); NULL = off. */
    const struct trace_sink_ops *trace;
    void *trace_ctx;
    struct coll_row *coll_rows;
    uint32_t ncoll_rows;
    struct cp_row *cp_rows;
    uint32_t ncp_rows;
    struct deadlock_info deadlock;
    void *deadlock_state;
    /* A run split over processes (net/dist.h): the runner's table and its
     * own state (the partition, the cut links), opaque here; NULL on one
     * process. */
    const struct net_dist_ops *dist;
    /* Handlers of the packet types net/ does not interpret; NULL = none. */
    const struct net_type_ops *type_ops[PKT_NTYPES];
    struct par *par;
    struct stuck_info stuck; /* net/stuck.c: a run that cannot finish */
    void *stuck_state;
    uint32_t sc_events_left; /* scenario events not yet run (a link may come back) */
    void *reorder_state;     /* net/reorder.c: NIC reorder buffers (spray) */
    void *innet_state;       /* in-network reduction's own (it registers PKT_INNET) */
    void *hoq_state;         /* net/hoq.c: IB head-of-queue lifetimes */
    /* route_fib_build keeps to valley-free (up*-down*) paths: BGP in a Clos
     * (RFC 7938 AS-path loop prevention; ctrl/bgp.c sets it) */
    bool fib_updown;
    const struct ctrl_ops *ctrl;
    /* Why the control plane is told of a link change: the port went down
     * (physical), or a gray link was detected (BFD, hold timer, SM sweep). */
    uint8_t ctrl_cause;
    uint32_t retry_cnt; /* transport.retry_cnt */
    bool rto_fixed;     /* transport.rto: fixed (retries without limit) */
    bool rto_adaptive;  /* transport.rto: adaptive (per-QP timeouts, net/nic.c) */
    bool selective;     /* transport.retransmit: selective_repeat */
    void *sr_state;     /* net/nic.c: selective repeat's per-QP holes to resend */
    size_t sr_cap;
    struct link_loss *loss;      /* [nports], or NULL while no link has bit errors or is gray */
    struct port_fail *port_fail; /* [nports], allocated by model_build */
    struct qp_err_row *qp_errs;
    uint32_t nqp_errs;
    size_t qp_errs_cap;
    char (*warnings)[160]; /* for the summary and results.json */
    uint32_t nwarnings;

    /* hook: a message finished (delivered and acknowledged) */
    void (*on_msg_done)(struct net *n, uint32_t msg);
    void (*on_msg_recv)(struct net *n, uint32_t msg);
    /* hook: a message's QP went to error (IBV_WC_RETRY_EXC_ERR / flush) */
    void (*on_msg_failed)(struct net *n, uint32_t msg);
};

enum ctrl_cause { CTRL_CAUSE_PORT, CTRL_CAUSE_GRAY };

/* Building */
void net_init(struct net *n, struct sim *s);
void net_fini(struct net *n);
uint32_t net_add_node(struct net *n, enum node_kind kind, enum node_role role, const char *name,
                      uint8_t level);
/* Adds a bidirectional link a<->b: two ports, returns the port id on a's side
 * (the one on b's side is its `peer`). Nodes' ports must be added in order:
 * all of a node's ports are contiguous, so add links node by node or call
 * net_finish_ports once at the end (topo builders do). */
uint32_t net_add_link(struct net *n, uint32_t a, uint32_t b, uint64_t rate_bps, uint64_t prop_ps);
/* Sorts ports by owner so that every node's ports are contiguous; fixes peers. */
void net_finish_ports(struct net *n);
/* Each port's parallel-link index: it is the k-th link between the same two
 * nodes, in port order (net_finish_ports; again after ports are reordered). */
void net_number_parallel(struct net *n);
/* Registers the handlers of packet type `type` (net_type_ops); once per run,
 * the same table again is a no-op. */
void net_register_type(struct net *n, enum pkt_type type, const struct net_type_ops *ops);

/* A node by name; on multi-GPU hosts the NIC name h3.n5 gives the GPU node
 * h3.g5 (its NIC is part of it: SPEC.md Names). NET_NONE if none. */
uint32_t net_node_by_name(const struct net *n, const char *name);
/* Has node `v` a live link (both directions up)? A QP whose host has none
 * reaches nothing, whatever the routes. */
bool net_node_attached(const struct net *n, uint32_t v);
/* "leaf0->spine1", with "#k" for the k-th parallel link. */
void net_port_name(const struct net *n, uint32_t port, char *buf, size_t len);
/* "host-leaf", "leaf-spine", ...: lower role first. */
const char *net_role_name(enum node_role r);
void net_port_tier(const struct net *n, uint32_t port, char *buf, size_t len);
/* Finds the port (from a's side) of a link named "a-b", "a->b", "a-b#k"; NET_NONE if
 * none. A NIC name (h3.n5) names the GPU node's fabric link, never its NVLink. */
uint32_t net_link_by_name(const struct net *n, const char *name, bool *directed);

/* Queue pairs and messages */
uint32_t net_qp_new(struct net *n, uint32_t src_node, uint32_t dst_node, uint8_t prio);
/* Port `pt`'s egress buffer: its link's own (topology file `buffer`) or
 * fabric.buffer. Its trim threshold: the fabric's (fabric.uet.trim_threshold, else
 * the buffer), never above the port's own buffer. */
static inline uint64_t net_port_buffer(const struct net *n, uint32_t pt) {
    return n->link_buffers && n->ports[pt].buffer_bytes ? n->ports[pt].buffer_bytes
                                                        : n->buffer_bytes;
}
static inline uint64_t net_trim_bytes(const struct net *n, uint32_t pt) {
    uint64_t b = n->link_buffers ? n->ports[pt].buffer_bytes : 0;
    return b && b < n->trim_bytes ? b : n->trim_bytes;
}

/* The message the QP sends next (cur_msg) and the oldest one not fully
 * acknowledged (una_msg), with the copies of their PSN range the per-packet
 * paths read instead of the message (NET_NONE: none). */
static inline void net_qp_set_cur(struct net *n, struct qp *q, uint32_t mid) {
    q->cur_msg = mid;
    if (mid == NET_NONE) return;
    const struct msg *m = &n->msgs[mid];
    q->cur_first_psn = m->first_psn;
    q->cur_end_psn = m->first_psn + m->npkts;
    q->cur_last_bytes = (uint32_t)(m->size_bytes - (uint64_t)(m->npkts - 1) * n->mtu_bytes);
}
static inline void net_qp_set_una(struct net *n, struct qp *q, uint32_t mid) {
    q->una_msg = mid;
    if (mid != NET_NONE) q->una_end_psn = n->msgs[mid].first_psn + n->msgs[mid].npkts;
}
/* Sets the QP's UDP source port and its flow digests (qp.flow_hash). */
void net_qp_set_entropy(struct net *n, uint32_t qp, uint16_t entropy);
/* Creates a message of `size_bytes` on `qp`, posted at `at_ps` (an event), or
 * at once when at_ps <= now and `now_ok`. flow: row in flows[] or -1. */
uint32_t net_msg_new(struct net *n, uint32_t qp, uint64_t size_bytes, sim_time_ps at_ps,
                     int32_t flow, uint32_t owner);
void net_msg_post_now(struct net *n, uint32_t msg);
/* net_msg_new in two halves: the record alone (an id, its size and QP; no
 * work, no flow count), and later the accounting that makes it the run's
 * work. Several ranks reserve a Poisson source's messages before the run,
 * alike on every rank, and its sender's rank activates each when the source
 * makes it (workload_pregen). */
uint32_t net_msg_reserve(struct net *n, uint32_t qp, uint64_t size_bytes, int32_t flow,
                         uint32_t owner);
void net_msg_activate(struct net *n, uint32_t msg);
/* The posting's numbering alone: the message's PSN range (first_psn) and its
 * link after the QP's last message (msg.next), what an out-of-order receiver
 * reads to find where messages end. net_msg_post_now does it; a parallel
 * run's receiving rank does it alone for a message another rank posts
 * (coll.c launch). */
void net_msg_number(struct net *n, uint32_t msg);
/* The message is acknowledged and its completion consumed: its slot may be
 * reused (kept as it is while n->msg_keep). Its record stays readable until
 * the next net_msg_new. */
void net_msg_release(struct net *n, uint32_t msg);
/* Puts the slot on the free list now (net_msg_release without the hook). */
void net_msg_free(struct net *n, uint32_t msg);
uint32_t net_flow_new(struct net *n, uint32_t src_host, uint32_t dst_host);

/* Schedules the arrival of a link's head packet. Its key is the sending
 * node's (entity node + 1), with the port id in place of that node's own
 * counter, top bit set: a link delivers one packet at a time, so (time, node,
 * port) is unique, and whichever side schedules the arrival (the sender when
 * the wire was empty, the receiver for the next in line) the key is the same.
 * That lets a partitioned run (par/) schedule the arrivals of a cut link on
 * the receiving rank and order ties exactly as one process does. */
static inline void net_arrive_at(struct net *n, uint32_t port, sim_time_ps at_ps) {
    const struct port *pt = &n->ports[port];
    calq_push_fields(&n->sim->q, at_ps, ((uint64_t)(pt->node + 1) << 32) | 0x80000000u | port, port,
                     NET_EV_LINK_ARRIVE, pt->fly_gen);
}

/* The static LFT entry of switch index s for host index h: a port id, or
 * NET_NONE; and setting one (port of that switch, or NET_NONE). */
static inline uint16_t *net_lft_entry(const struct net *n, uint32_t s, uint32_t h) {
    /* another rank's switch (NET_NONE): far outside the table, a fault */
    uint32_t r = n->lft_row ? n->lft_row[s] : s;
    return &n->lft[(size_t)r * n->nhosts + h];
}
static inline uint32_t net_lft_get(const struct net *n, uint32_t s, uint32_t sw_node, uint32_t h) {
    uint16_t e = *net_lft_entry(n, s, h);
    return e ? n->nodes[sw_node].first_port + e - 1u : NET_NONE;
}
static inline void net_lft_set(struct net *n, uint32_t s, uint32_t sw_node, uint32_t h,
                               uint32_t port) {
    *net_lft_entry(n, s, h) =
        port == NET_NONE ? 0 : (uint16_t)(port - n->nodes[sw_node].first_port + 1);
}

/* Accounting of outstanding work (messages, generators). */
static inline void net_work_add(struct net *n) {
    n->work_pending++;
    n->work_total++;
}
void net_work_done(struct net *n);
/* Stops the run once all work is done and nothing is left in flight: what
 * remains on the queue then (cancelled timers, samples) changes nothing. */
static inline void net_check_idle(struct net *n) {
    if (n->work_pending == 0 && n->ctrl_pending == 0 && n->pkts_in_flight == 0) sim_stop(n->sim);
}
/* The control plane holds the run open while it reacts (net/msg.c). */
static inline void net_ctrl_hold(struct net *n) {
    n->ctrl_pending++;
    n->ctrl_held = true;
}
void net_ctrl_release(struct net *n);

/* Adds a line to the run's warnings (e.g. "routes can deadlock"). */
void net_warn(struct net *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Wire size of a data packet with `payload` bytes (first: carries RETH);
 * inline, as the ACK's below: each is on the NIC's path once a packet. */
static inline uint32_t net_data_wire_bytes(const struct net *n, uint32_t payload, bool first) {
    /* RETH (16 B) rides on the first packet of an RDMA WRITE (docs/sources.md A1). */
    return payload + n->overhead_bytes + (first ? 16u : 0u);
}
/* An ACK or NAK: BTH + AETH (4 B, docs/sources.md A1). */
static inline uint32_t net_ack_wire_bytes(const struct net *n) {
    return n->overhead_bytes + 4;
}
uint32_t net_ctrl_wire_bytes(const struct net *n, enum pkt_type t);
/* One RNG per switch (by switch index), seeded from the run's seed, the
 * switch's node id and `stream`: the per-entity streams a switch-side
 * policy draws from (ECN marking). Owned by the caller (free). */
struct rng *net_switch_rngs(const struct net *n, uint64_t stream);

#endif /* FABSIM_NET_NET_H */

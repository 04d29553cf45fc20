/* src/coll/coll_int.h
 *
 * Internals shared by coll/ and innet/: the schedule graph of one collective
 * call, jobs (communicators), and the module state behind n->coll_state.
 */
#ifndef FABSIM_COLL_COLL_INT_H
#define FABSIM_COLL_COLL_INT_H

#include "net/params.h"
#include "workload/wl_params.h"
#include "core/rng.h"
#include "core/time.h"

#include <stdbool.h>
#include <stdint.h>

struct net;

enum xfer_kind {
    XF_MSG,     /* a message on a queue pair */
    XF_VIRTUAL, /* a join point: done as soon as its dependencies are */
    XF_INNET,   /* one member's part of an in-network reduction */
    XF_DELAY,   /* a fixed time (compute), then done */
};

/* xfer.stamp: what a transfer marks besides its own work. */
enum xfer_stamp {
    XS_NONE,
    XS_ROW_START,  /* XF_VIRTUAL: a Chakra collective started on a rank (row in qp) */
    XS_ROW_END,    /* XF_VIRTUAL: ...ended on a rank */
    XS_COMPUTE,    /* XF_DELAY: compute shown in the Chrome trace (coll_compute_rows):
                    * qp = the rank in the job (Chakra: the node's index over the
                    * entry's ranks), proto = enum coll_compute_label */
    XS_MARK_FIRST, /* XF_VIRTUAL: sets time mark qp (coll_marks_new) unless set */
    XS_MARK_LAST,  /* XF_VIRTUAL: sets time mark qp (the last of several wins) */
};

struct xfer {
    uint8_t kind;
    uint8_t reduce;         /* XF_MSG: the receiver reduces it (host_rate) before it counts */
    uint8_t stamp;          /* enum xfer_stamp */
    uint8_t proto;          /* XF_MSG: enum coll_proto (wire bytes, post cost); XS_COMPUTE: label */
    uint32_t qp;            /* XF_MSG: queue pair; XF_INNET: member index */
    uint32_t ndeps;         /* dependencies not yet done */
    uint32_t out_off, nout; /* dependents: op->out[out_off ..) */
    uint64_t bytes;         /* XF_DELAY: picoseconds */
};

/* Ring transfers are not stored: a ring segment (ring_steps in algos.c)
 * describes nsteps x ns x m of them, and each one's dependencies and
 * dependents are computed when a neighbour completes (issue 13: schedules
 * generated as they run). A ring transfer's id is XF_RING_BIT | (vbase +
 * (seq * m + i)), seq = step * ns + slice, i the sending member. The
 * schedule, and so the run, is the one the stored graph gave (same launch
 * order: tests/coll/test_sched.c compares them). */
#define XF_RING_BIT 0x80000000u
#define NCCL_STEPS 8u /* slots per connection (docs/sources.md B) */
/* NCCL's ring loop (src/device/all_reduce.h runRing; collectives.h
 * ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2, ALLREDUCE_SLICESTEPS = NCCL_STEPS / 4,
 * the same for AllGather and ReduceScatter): with the Simple protocol a loop
 * moves a chunk of 4 slots per rank and step, every step of the loop before
 * the next loop's first, each chunk in 2 slices of 2 slots (prims_simple.h
 * SlicePerChunk, StepPerSlice); the proxy sends a slice as one message
 * (enqueue.cc sliceSize). So a connection has NCCL_STEPS / 2 slices in
 * flight. LL and LL128 move one slot per slice and chunk. A ring segment's
 * transfers go in loop order: seq runs over loops, then steps, then the
 * loop's slices (coll.c ring_seq). */
#define RING_CHUNK_STEPS (NCCL_STEPS / 2)
#define RING_SLICE_STEPS (NCCL_STEPS / 4)
/* NCCL's MAXCHANNELS (src/include/device.h: 64): auto channels stop there
 * (2 per NIC would be 144 on an NVL72 rack's 72 NICs) */
#define COLL_MAX_CHANNELS 64u

struct ring_seg {
    uint32_t pos;   /* explicit transfers created before it (root order) */
    uint32_t vbase; /* its first id, without XF_RING_BIT */
    uint32_t m, ns, nsteps, nreduce;
    uint8_t proto;
    uint64_t seg;      /* bytes per member and step */
    uint32_t *qp;      /* [m]: member i sends to member i + 1 */
    uint32_t *post;    /* [m]: join point of member i (its receives) */
    uint8_t *pre_wait; /* [m]: 1 while member i's `pre` is not done */
    uint64_t *done;    /* one bit per transfer: arrived */
    /* NCCL's flow control: transfer (seq, i) waits for the receiver to have
     * consumed (seq - NCCL_STEPS, i) (forwarded it or, at the last step,
     * received it): used[] has one bit per transfer. `chunk` slices per loop
     * (RING_CHUNK_SLICES). Tests only (coll_test_ring_on_arrival): chunk = ns
     * (step-major order) and the slot freed on arrival, consume = 0. */
    uint64_t *used;
    uint64_t *went; /* launched (one bit per transfer) */
    uint32_t chunk; /* slices per step in one loop */
    uint32_t win;   /* slices of a connection in flight: NCCL_STEPS / slots a slice takes */
    uint8_t consume;
    /* PXN (op_ring_relay): NULL, or [m] the network QP member i's sends
     * are relayed on (NET_NONE: sent directly on qp[i]). A relayed send
     * crosses NVLink on qp[i] to the GPU whose NIC is on the receiver's
     * rail, then leaves on relay[i]; hop[] has one bit per transfer: its
     * NVLink hop has arrived, the network hop is on its way. */
    uint32_t *relay;
    uint64_t *hop;
};

struct op { /* one collective call (or one training iteration) */
    uint32_t job;
    uint32_t row; /* coll_row, NET_NONE for training iterations */
    struct xfer *x;
    uint32_t nx, capx;
    uint32_t *ef, *et; /* edges before the CSR: from -> to (XF_RING_BIT | pe index) */
    uint32_t ne, cape;
    uint32_t *out;
    uint32_t left; /* transfers not done */
    bool done;
    struct ring_seg *segs;
    uint32_t nsegs, capsegs;
    uint32_t nvx; /* ring transfers (ids XF_RING_BIT | [0, nvx)) */
    struct {
        uint32_t seg, member;
    } * pe; /* edges from a member's `pre` into a ring segment */
    uint32_t npe, cappe;
};

struct job {
    const struct wl_entry *w;
    size_t widx;
    uint32_t id;             /* job number in results.json */
    uint32_t *ranks;         /* node ids */
    uint32_t nranks, nnodes; /* ranks, distinct hosts */
    uint32_t gpus;           /* GPUs per host among the ranks (hierarchical) */
    enum coll_algo algo;     /* resolved */
    bool fallback;
    uint32_t sess; /* innet session (sharp / nvls) or NET_NONE */
    /* sharp on multi-GPU hosts (NCCL CollNet): one SHARP session per rail
     * (GPU index g), NULL otherwise; XF_INNET qp = g << 16 | member */
    uint32_t *rail_sess;
    uint32_t channels;
    uint64_t slice_bytes, overhead_ps;
    /* NCCL's per-step costs (tuning.cc hwLat by protocol and hop, baseLat
     * per call; algos.c coll_step_ps): on unless the scenario sets
     * step_overhead, or the algorithm models MPI (halving_doubling) */
    bool nccl_costs;
    uint64_t host_rate_bps; /* host reduce/copy rate, 0 = not modelled */
    uint32_t size_i, rep;   /* progress through sizes x repeat */
    /* progress lines: wire bytes of the calls started (exact) and this job's
     * share of n->bytes_planned (those plus the calls to come, estimated) */
    uint64_t plan_started, plan_share;
    uint32_t cur_op;
    struct rng ent;
    /* qp map: open addressing on key (channel, src rank, dst rank) */
    uint64_t *qkey;
    uint32_t *qval;
    uint32_t qcap, qused;
    /* failure: NCCL aborts the communicator when one of its QPs errors */
    sim_time_ps aborted_ps; /* NEVER unless aborted */
    bool released;          /* the job's hold on the run (coll_add) is given back */
    /* training */
    uint32_t iter;
    uint64_t comm_exposed_ps; /* per iteration, summed */
    uint64_t iter_start_ps;
};

struct train_row {
    uint32_t job, iteration;
    uint64_t start_ps, end_ps;
    uint64_t compute_ps, comm_ps, exposed_ps;
};

struct innet_state;
struct chakra_state;
struct moe_state;
struct infer_state;

struct coll_state {
    const struct coll_dist_ops *dist; /* coll_set_dist; NULL on one process */
    struct job *jobs;
    uint32_t njobs;
    struct op *ops;
    uint32_t nops, capops;
    uint32_t *msg_x; /* message id -> transfer of its op (NET_NONE: not ours) */
    size_t msg_x_cap;
    uint32_t *qp_rr; /* first QP of a connection -> messages posted (round robin) */
    size_t qp_rr_cap;
    /* several ranks, out-of-order delivery: per QP the latest post time
     * scheduled (coll.c launch checks that posting keeps launch order) */
    sim_time_ps *qp_post;
    size_t qp_post_cap;
    struct {
        uint32_t op, x;
        uint32_t run;   /* in-network start: the member's run (innet_join) */
        uint32_t cause; /* done timers: the message whose receive led to it (or NET_NONE) */
        bool done;      /* the timer ends the transfer (host reduce / copy out) */
    } * timers;
    uint32_t ntimers, captimers;
    uint32_t timer_free; /* 1 + first free timer slot (linked by .op), 0 if none */
    uint32_t *stack;
    size_t stack_cap;
    uint64_t *rstack;          /* coll.c ring_try: (seq << 32 | member) to try */
    sim_time_ps relay_from_ps; /* coll.c: the relayed NVLink hop's post, for launch */
    size_t rstack_cap;
    struct train_row *train;
    uint32_t ntrain, captrain;
    void (*prev_recv)(struct net *n, uint32_t msg);
    void (*prev_failed)(struct net *n, uint32_t msg);
    struct chakra_state *chakra; /* chakra.c */
    bool stored_rings;           /* tests only: ring transfers stored (the pre-issue-13 schedule) */
    bool ring_on_arrival;        /* tests only: step-major rings, slots freed on arrival */
    bool ring_nccl_slices;       /* tests only: Simple rings in NCCL's 2-slot slices */
    uint64_t xfers_stored;       /* transfers held in ops' graphs, summed over the calls */
    uint32_t seq;                /* key counter of the events the engine schedules (coll.c) */
    /* With a trace sink attached (n->trace): per message, the message whose
     * receive made the engine post it (NET_NONE: none), and the compute
     * delays run (XS_COMPUTE), for the Chrome trace's arrows and slices. */
    uint32_t cause; /* the receive being applied now, NET_NONE outside one */
    uint32_t *msg_cause;
    size_t msg_cause_cap;
    struct coll_compute *comp;
    size_t ncomp, capcomp;
    sim_time_ps *marks; /* coll_marks_new: times workloads read back (moe.c, infer.c) */
    size_t nmarks, capmarks;
    struct moe_state *moe;     /* moe.c */
    struct infer_state *infer; /* infer.c */
    uint32_t held;             /* jobs holding the run (coll_add until coll_job_release) */
};

/* Tests only: build rings as stored transfers again (before the run starts). */
void coll_test_stored_rings(struct net *n, bool on);
/* Tests only: rings in step-major order, a slot freed when its slice arrives
 * (fabsim before issue 28; the stored rings' schedule). */
void coll_test_ring_on_arrival(struct net *n, bool on);
/* Tests only: Simple rings send NCCL's slices of 2 slots (a chunk of 4 slots
 * in 2 messages, 4 in flight) instead of a message per slot. */
void coll_test_ring_nccl_slices(struct net *n, bool on);

/* Schedule building (coll.c) */
uint32_t op_xfer(struct op *o, uint8_t kind, uint32_t qp, uint64_t bytes);
void op_dep(struct op *o, uint32_t before, uint32_t after);
/* A ring segment (see struct ring_seg); qp, post, pre are [m], copied;
 * pre may be NULL or hold NET_NONE. Fills post. */
void op_ring(struct op *o, uint32_t m, uint32_t ns, uint32_t nsteps, uint32_t nreduce, uint64_t seg,
             const uint32_t *qp, const uint32_t *pre, uint32_t *post);
/* The last ring segment's sends of member i go through PXN's relay: over
 * NVLink on the segment's qp[i], then on relay[i] (NET_NONE: direct);
 * relay is [m], copied. */
void op_ring_relay(struct op *o, const uint32_t *relay);
/* The post delay, from now, of a relayed send's network hop whose NVLink
 * hop was posted at first_post_ps and has arrived (coll.c launch). */
uint64_t coll_relay_ps(const struct job *j, int proto, sim_time_ps now_ps,
                       sim_time_ps first_post_ps);
void op_free(struct op *o);
/* Progress lines: op `o` of job j starts; `later` calls like it follow (in
 * units of this call: later sizes over this size, iterations to come). */
void coll_plan(struct net *n, struct job *j, const struct op *o, double later);
uint32_t job_qp(struct net *n, struct job *j, uint32_t ch, uint32_t src_rank, uint32_t dst_rank);

/* Algorithms (algos.c): fill op `o` for job `j`. pre[i]/post[i]: per rank,
 * the transfer the rank's first send waits for (NET_NONE: none) and, out, a
 * transfer done when the rank holds its result. */
/* The job holds every GPU of several multi-GPU hosts: it runs NCCL's
 * node-aware ring and tree (algos.c). */
bool algo_node_aware(const struct job *j);
void algo_build(struct net *n, struct job *j, struct op *o, int opkind, enum coll_algo a,
                uint64_t bytes, const uint32_t *pre, uint32_t *post);

/* The collective an entry calls: nccl_tests entries name it in `op`. */
static inline int coll_kind(const struct wl_entry *w) {
    return w->kind == WL_NCCL_TESTS ? (int)w->nccl_op : (int)w->kind;
}
/* algo_build, or for WL_ALLTOALL a2a_build (a2a.c: every rank sends bytes/m
 * to every other rank at once, as NCCL's alltoall of grouped send/recv). */
void coll_build(struct net *n, struct job *j, struct op *o, int opkind, enum coll_algo a,
                uint64_t bytes, const uint32_t *pre, uint32_t *post);
void a2a_build(struct net *n, struct job *j, struct op *o, uint64_t bytes, const uint32_t *pre,
               uint32_t *post);
/* The same with mat[s * m + d] bytes from rank s to rank d (an alltoallv:
 * MoE's token dispatch); the diagonal stays local. */
void a2av_build(struct net *n, struct job *j, struct op *o, const uint64_t *mat,
                const uint32_t *pre, uint32_t *post);

/* Time marks a workload reads back after its op: `count` marks, unset
 * (SIM_TIME_NEVER); the first's index is returned. A XF_VIRTUAL transfer
 * with stamp XS_MARK_FIRST / XS_MARK_LAST and qp = index sets one when done
 * (coll_mark_xfer makes one). */
uint32_t coll_marks_new(struct net *n, uint32_t count);
sim_time_ps coll_mark(const struct net *n, uint32_t id);
/* results.json: key `k` = to - from in ns, or null when either mark was not
 * reached (SIM_TIME_NEVER) or they are out of order (moe.c, infer.c). */
void coll_jw_span(struct jw *w, const char *k, sim_time_ps from, sim_time_ps to);
uint32_t coll_mark_xfer(struct op *o, uint8_t stamp, uint32_t id);
/* A communicator over `m` of job j's ranks (ranks[]: node ids): j's
 * settings, its own queue pairs (stream: the seed's stream for its
 * entropy), hosts and GPUs per host counted again. Free with coll_job_sub_free. */
void coll_job_sub(struct net *n, const struct job *j, struct job *sub, const uint32_t *ranks,
                  uint32_t m, uint32_t stream);
void coll_job_sub_free(struct job *sub);

/* moe.c: kind moe */
int moe_add(struct net *n, struct job *j, struct diag *d);
void moe_start(struct net *n, struct job *j);
void moe_op_done(struct net *n, struct job *j, struct op *o);
void moe_fini(struct net *n);
/* infer.c: kind inference */
int infer_add(struct net *n, struct job *j, struct diag *d);
void infer_start(struct net *n, struct job *j);
void infer_op_done(struct net *n, struct job *j, struct op *o);
void infer_fini(struct net *n);

/* chakra.c (workload/chakra.c reads the files): Chakra execution traces */
int chakra_add(struct net *n, struct job *j, struct diag *d);
void chakra_start(struct net *n, struct job *j);
void chakra_op_done(struct net *n, struct job *j, struct op *o);
/* A Chakra row marker completed (xfer.stamp): the collective of coll_row
 * `row` started on one of its ranks (1) or ended on one (2). */
void chakra_stamp(struct net *n, uint32_t row, uint8_t what);
void chakra_fini(struct net *n);
/* The trace rank's endpoint node and the name of Chakra node `v` (the index
 * over the entry's ranks that XS_COMPUTE carries) of job j. */
void chakra_compute_label(struct net *n, const struct job *j, uint32_t v, uint32_t *node,
                          const char **name);
/* A compute delay of rank `rank` of job j (label: enum coll_compute_label)
 * shown in the Chrome trace: an XF_DELAY transfer marked XS_COMPUTE. */
uint32_t coll_compute_xfer(struct op *o, uint32_t rank, uint8_t label, uint64_t ps);
/* coll.c: the in-network session and member index of an XF_INNET transfer;
 * closes the job's sessions */
uint32_t coll_xfer_sess(const struct job *j, uint32_t qp, uint32_t *member);
void coll_job_close_innet(struct net *n, struct job *j);

/* algos.c: the protocol a call uses, and what a protocol costs */
uint8_t algo_proto(const struct net *n, const struct job *j, int opkind, enum coll_algo a,
                   uint64_t bytes);
uint64_t coll_proto_wire_bytes(int proto, uint64_t bytes);
uint64_t coll_proto_overhead_ps(int proto, uint64_t simple_ps);
/* What posting one step of protocol `proto` costs job j: NCCL's hwLat of the
 * job's algorithm for an NVLink hop (nvlink) or a network hop, or, without
 * nccl_costs, step_overhead scaled by coll_proto_overhead_ps. */
uint64_t coll_step_ps(const struct job *j, int proto, bool nvlink);
/* NCCL's baseLat of the job's algorithm and protocol (0 without nccl_costs):
 * paid once per call before the ranks' first steps. */
uint64_t coll_base_ps(const struct job *j, int proto);

/* coll.c: message mid of a collective was received (on_recv's work; par/pcoll.c
 * calls it at the window's end on every rank) */
void coll_recv_apply(struct net *n, uint32_t mid);
/* coll.c: message mid's QP went to error: the job aborts (on_failed's work) */
void coll_failed_apply(struct net *n, uint32_t mid);
/* coll.c: the job's hold on the run ends (finished or aborted), once */
void coll_job_release(struct net *n, struct job *j);

/* training.c */
int training_add(struct net *n, struct job *j, struct diag *d);
void training_op_done(struct net *n, struct job *j, struct op *o);
void training_start(struct net *n, struct job *j);

/* coll.c: starts op building with `build` done by the caller; launches roots */
uint32_t coll_op_new(struct net *n, uint32_t job);
void coll_op_launch(struct net *n, uint32_t opi);

#endif /* FABSIM_COLL_COLL_INT_H */

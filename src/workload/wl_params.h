/* src/workload/wl_params.h
 *
 * The workload's parameters, plain data: the entries config/ fills and the
 * run's parameters (net/params.h) point to. Kept apart from the generators
 * (workload/workload.h) so the collectives can read an entry without
 * including what calls them.
 */
#ifndef FABSIM_WORKLOAD_WL_PARAMS_H
#define FABSIM_WORKLOAD_WL_PARAMS_H

#include "coll/coll_params.h"
#include "core/diag.h"
#include "core/time.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum wl_kind {
    WL_FLOWS,
    WL_PERMUTATION,
    WL_INCAST,
    WL_ALLTOALL,
    WL_POISSON,
    WL_ALLREDUCE,
    WL_ALLGATHER,
    WL_REDUCESCATTER,
    WL_BROADCAST,
    WL_TRAINING,   /* data-parallel training steps (coll/training.c) */
    WL_NCCL_TESTS, /* an nccl-tests size sweep of one collective (coll/table.c) */
    WL_CHAKRA,     /* Chakra execution traces, one file per rank (workload/chakra.c) */
    WL_MOE,        /* mixture-of-experts training steps (coll/moe.c) */
    WL_INFERENCE,  /* disaggregated LLM inference: prefill, KV cache, decode (coll/infer.c) */
};
enum wl_arrival { ARRIVAL_POISSON, ARRIVAL_FIXED };
enum perm_pattern { PERM_SHIFT, PERM_RANDOM };

struct wl_flow {
    uint32_t src, dst; /* host indices */
    uint64_t size_bytes;
    uint64_t start_ps;
};

struct wl_entry {
    enum wl_kind kind;
    struct srcpos pos; /* of the entry, for errors found later */
    uint64_t start_ps;
    uint64_t size_bytes; /* permutation, incast, alltoall, collectives (first of sizes) */
    /* flows */
    struct wl_flow *flows;
    size_t nflows;
    /* permutation */
    enum perm_pattern pattern;
    uint32_t shift;
    /* incast and poisson: explicit senders, or a count (first hosts other than receiver) */
    uint32_t *senders;
    size_t nsenders;
    uint32_t receiver;
    /* poisson */
    double load;           /* fraction of the receiver link */
    uint64_t packet_bytes; /* fixed size, or the mean when exponential */
    bool exponential;
    uint64_t duration_ps;
    /* collectives */
    uint64_t *sizes; /* `size: [..]` sweeps; nsizes >= 1 */
    size_t nsizes;
    uint32_t *ranks; /* host indices; NULL with ranks_all */
    size_t nranks;
    bool ranks_all, ranks_gpus;
    /* ranks[] holds GPU ids (host * gpus_per_host + gpu, written hN.gM) instead
     * of host indices; only when topo.gpus_per_host > 1. */
    bool ranks_are_gpu_ids;
    enum coll_algo algorithm;
    uint32_t jobs, repeat;
    uint32_t priority;         /* Ethernet priority / IB SL of the entry's QPs, 0..NET_NCLASS-1 */
    bool pxn;                  /* alltoall: NCCL's PXN relay over NVLink (coll/a2a.c) */
    uint32_t channels;         /* NCCL channels (rings / tree pairs); 0 = 2 */
    enum coll_proto protocol;  /* 0 = simple (hand-filled scenarios); files: auto */
    uint64_t slice_bytes;      /* pipelining unit; 0 = NCCL_BUFFSIZE / NCCL_STEPS = 512 KiB */
    uint64_t step_overhead_ps; /* cost to post any step; 0 = auto: NCCL's (coll/algos.c) */
    uint64_t host_rate_bps;    /* host reduce/copy rate of the payload; 0 = not modelled */
    /* training (kind: training): `size` is the gradient bytes per iteration */
    uint32_t iterations; /* 0 = 3 */
    uint64_t forward_ps, backward_ps;
    uint64_t bucket_bytes; /* 0 = 25 MiB (PyTorch DDP bucket_cap_mb) */
    /* nccl_tests: the collective and the nccl-tests flags -b -e -f -i -n -w.
     * Config expands them into sizes[] (warmup calls at max_bytes, then per
     * size `iters` out-of-place and `iters` in-place calls), repeat 1. */
    enum wl_kind nccl_op; /* WL_ALLREDUCE, WL_ALLGATHER, WL_REDUCESCATTER, WL_BROADCAST */
    uint64_t min_bytes, max_bytes, step_bytes;
    uint32_t step_factor, iters, warmup;
    /* chakra: the trace folder (resolved against the scenario's folder) */
    char *path;
    /* moe and inference: the model (docs/scenario.md; defaults docs/sources.md M) */
    uint32_t layers;      /* transformer layers */
    uint32_t hidden;      /* hidden size (elements per token) */
    uint32_t dtype_bytes; /* bytes per element (bf16: 2) */
    /* moe: size_bytes is the dense gradient bytes per iteration (0: none) */
    uint32_t experts, top_k;
    uint32_t ep, tp;       /* expert- and tensor-parallel group sizes (0: ep = every rank) */
    uint64_t tokens;       /* tokens per rank per iteration */
    double imbalance;      /* the busiest expert's tokens over the mean, >= 1 */
    uint64_t attention_ps; /* per layer, forward: attention and dense part */
    uint64_t expert_ps;    /* per layer, forward: the experts at balanced load */
    /* inference: ranks' first prefill_hosts are prefill, the rest decode */
    uint32_t prefill_hosts; /* 0: half */
    uint32_t kv_heads, head_dim;
    uint32_t prompt_tokens, output_tokens, requests;
    enum wl_arrival arrival;
    uint64_t interval_ps;  /* mean time between requests (poisson) or exact (fixed) */
    uint64_t prefill_ps;   /* prefill compute per request */
    uint64_t decode_ps;    /* one decode step's compute */
    uint64_t decode_bytes; /* per decode step, decode host -> the request's prefill host */
};

#endif /* FABSIM_WORKLOAD_WL_PARAMS_H */

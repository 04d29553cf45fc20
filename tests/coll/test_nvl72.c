/* tests/coll/test_nvl72.c
 *
 * NVLink racks (topology kind nvl72, docs/sources.md A13): 72 GPUs in one
 * NVLink domain, one NIC per GPU on 4 rails. Inside the rack a collective
 * runs on NVLink alone (no byte on a NIC) and its busbw is bounded by
 * NVLink 5 (7200 Gb/s x nvlink_efficiency per GPU each way); across two
 * racks NCCL's node-aware ring treats the rack as the node: each channel
 * crosses between racks once per rack, GPU g to GPU g, on rail g mod 4, so
 * no byte climbs to a spine.
 */
#include "testutil.h"

#include "flowctl/credit.h"
#include "net/net.h"
#include "workload/wl_params.h"

#include <stdio.h>

struct nvl_run {
    double busbw_gbs;          /* nccl-tests busbw, GB/s */
    uint64_t nic, leaf, spine; /* bytes sent by the GPUs' NICs, the rail leaves, the spines */
    uint32_t nodes;
};

static struct nvl_run run_nvl(const char *yaml) {
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    const struct coll_row *r = &n->coll_rows[0];
    double t_ns = (double)(r->end_ps - r->start_ps) / 1e3;
    uint32_t k = t.sc.workload[0].nranks ? (uint32_t)t.sc.workload[0].nranks : n->nhosts;
    struct nvl_run o = {(double)r->size_bytes / t_ns * 2.0 * (k - 1) / k, 0, 0, 0, n->nnodes};
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct port *pt = &n->ports[p];
        const struct node *v = &n->nodes[pt->node];
        /* data bytes: InfiniBand's flow-control packets come and go with
         * timing (one per interval, refreshes: flowctl/credit.c) */
        uint64_t tx = pt->tx_bytes - credit_fcp_bytes(n, p);
        if (v->kind == NODE_HOST && p == v->first_port) o.nic += tx;
        if (v->kind == NODE_SWITCH && v->role == ROLE_LEAF) o.leaf += tx;
        if (v->kind == NODE_SWITCH && v->role == ROLE_SPINE) o.spine += tx;
    }
    trun_end(&t);
    return o;
}

/* The rack's shape: 72 GPU endpoints, an NVLink switch, 4 rail leaves. */
static void rack_shape(void **state) {
    (void)state;
    struct trun t;
    trun_build(&t, "topology: {kind: nvl72, racks: 2, spines: 2}\n", NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    assert_int_equal(t.sc.topo.gpus_per_host, 72);
    assert_int_equal(t.sc.topo.rails, 4);
    assert_int_equal(n->nhosts, 144);
    assert_int_equal(n->nnodes, 144 + 4 + 2 + 2); /* GPUs, rail leaves, spines, NVLink switches */
    /* GPU 37 is GPU 1 of compute tray 9: rail 1 */
    assert_int_equal(n->ports[tlink(&t, "h1.g37->leaf1")].rate_bps, 400000000000ull);
    assert_int_equal(n->ports[tlink(&t, "h1.g37->h1.nvs")].rate_bps,
                     (uint64_t)(7200e9 * 0.83 + 0.5)); /* NVLink 5 x nvlink_efficiency */
    trun_end(&t);
}

/* 8 GPUs (two compute trays) of a rack, ring, 1 GiB: NVLink-bound. The
 * bound is 7200 Gb/s x 0.83 / 8 = 747 GB/s; with NVLink 4's 3600 Gb/s it
 * would be 373.5, over the 400 G NICs 50. NVLS on the same GPUs moves
 * S(1 + 1/n) each way at nvls_efficiency 0.705: busbw bound 987 GB/s. */
#define NVL8(algo)                                                                                 \
    "fabric: {kind: infiniband, link: 400Gbps}\n"                                                  \
    "topology: {kind: nvl72, spines: 1}\n"                                                         \
    "workload:\n"                                                                                  \
    "  - {kind: allreduce, size: 1GiB, algorithm: " algo ",\n"                                     \
    "     ranks: [h0.g0, h0.g1, h0.g2, h0.g3, h0.g4, h0.g5, h0.g6, h0.g7]}\n"

static void rack_nvlink_bound(void **state) {
    (void)state;
    struct nvl_run ring = run_nvl(NVL8("ring")), nvls = run_nvl(NVL8("nvls"));
    double bound = 7200.0 * 0.83 / 8, nvls_bound = 7200.0 * 0.705 / 8 * 8 / 9 * 2 * 7 / 8;
    print_message("NVL72, 8 GPUs, 1 GiB: ring %.1f GB/s busbw (NVLink bound %.1f), NVLS %.1f "
                  "(bound %.1f); NIC bytes %llu\n",
                  ring.busbw_gbs, bound, nvls.busbw_gbs, nvls_bound,
                  (unsigned long long)(ring.nic + nvls.nic));
    /* NCCL's loop (issue 28): each loop of a channel ends with its final
     * receive before the next loop's first send, a bubble of one step's
     * latency per loop: 0.939 of the bound (0.95+ with slots freed on
     * arrival and no program order) */
    assert_true(ring.busbw_gbs <= bound && ring.busbw_gbs > 0.92 * bound);
    assert_true(nvls.busbw_gbs <= nvls_bound && nvls.busbw_gbs > 0.9 * nvls_bound);
    assert_int_equal(ring.nic + nvls.nic, 0); /* inside the domain: NVLink only */
    /* NVLS across the whole rack: one NVLink domain of 72 */
    struct nvl_run all =
        run_nvl("topology: {kind: nvl72, spines: 1}\n"
                "workload:\n  - {kind: allreduce, size: 64MiB, algorithm: nvls}\n");
    print_message("NVL72, 72 GPUs, NVLS 64 MiB: %.1f GB/s busbw\n", all.busbw_gbs);
    assert_int_equal(all.nic, 0);
    assert_true(all.busbw_gbs > bound); /* NVLS beats the ring's bound on 72 */
}

/* Two racks, 144 GPUs, node-aware ring: the rack is the node. 64 channels
 * (NCCL's MAXCHANNELS; 2 per NIC would be 144) each cross between the racks
 * twice, carrying 2(n-1)/n x S / 64 each time: 4(n-1)/n x S in all over the
 * NICs (Simple protocol: the data alone), every byte from a rail leaf
 * straight to the other rack's GPU. */
static void two_racks(void **state) {
    (void)state;
    const char *y = "fabric: {kind: infiniband, link: 400Gbps, routing: adaptive}\n"
                    "topology: {kind: nvl72, racks: 2, spines: 4}\n"
                    "workload:\n"
                    "  - {kind: allreduce, size: 16MiB, algorithm: ring, protocol: simple}\n";
    struct nvl_run r = run_nvl(y);
    double S = 16.0 * 1048576, want = 4.0 * 143 / 144 * S;
    print_message("NVL72 x 2 racks, ring 16 MiB: %.1f GB/s busbw; NIC bytes %.0f (payload "
                  "4(n-1)/n S = %.0f), leaf %llu, spine %llu\n",
                  r.busbw_gbs, (double)r.nic, want, (unsigned long long)r.leaf,
                  (unsigned long long)r.spine);
    /* + headers: a step's transfer is S / 144 / 64 = 1,820 B, one packet */
    assert_true((double)r.nic >= want && (double)r.nic < 1.05 * want);
    assert_int_equal(r.leaf, r.nic);
    assert_int_equal(r.spine, 0);
    assert_true(r.busbw_gbs < 7200.0 * 0.83 / 8);
}

/* Two racks, alltoall in NCCL's p2p schedule (coll/a2a.c a2a_order, NCCL
 * 2.28's ncclP2pSchedule): groups of 8 GPUs, group deltas 0, 1, 3, 6, ..
 * (quadratic mod 32, 18 groups). GPU 0's first 16 peers at once (32 p2p
 * channels, 2 per peer) are its own group's 7, group 1's 8 and group 3's
 * first: h0.g1-h0.g15 and h0.g24, where rank + d for d = 1 .. 16 would be
 * h0.g1-h0.g16. Node by node, each round's cross-rack sends spread over the
 * rack's NICs by PXN: 58.6 GB/s busbw at 16 MiB where rank + d gave 22.8
 * (2026-12-08), and no byte climbs to a spine. */
static void two_racks_alltoall(void **state) {
    (void)state;
    struct trun t;
    trun_build(&t,
               "fabric: {kind: infiniband, link: 400Gbps, routing: adaptive}\n"
               "topology: {kind: nvl72, racks: 2, spines: 4}\n"
               "workload:\n"
               "  - {kind: nccl_tests, op: alltoall, min: 16MiB, max: 16MiB, iters: 1,\n"
               "     warmup: 0, ranks: gpus}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    t.m.net.msg_keep = true;
    model_run(&t.m, NULL, NULL);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    const struct coll_row *r = &n->coll_rows[0];
    double busbw = (double)r->size_bytes / ((double)(r->end_ps - r->start_ps) / 1e3) * 143 / 144;
    uint32_t g0 = net_node_by_name(n, "h0.g0");
    sim_time_ps first = SIM_TIME_NEVER;
    for (uint32_t i = 0; i < n->nmsgs; i++)
        if (n->qps[n->msgs[i].qp].src == g0 && n->msgs[i].post_ps < first)
            first = n->msgs[i].post_ps;
    bool peer[144] = {false};
    uint32_t nfirst = 0;
    for (uint32_t i = 0; i < n->nmsgs; i++) {
        const struct qp *q = &n->qps[n->msgs[i].qp];
        if (q->src != g0 || n->msgs[i].post_ps != first) continue;
        nfirst++;
        for (uint32_t k = 0; k < 144; k++) {
            char name[32];
            snprintf(name, sizeof name, "h%u.g%u", k / 72, k % 72);
            if (net_node_by_name(n, name) == q->dst) peer[k] = true;
        }
    }
    uint64_t spine = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct node *v = &n->nodes[n->ports[p].node];
        if (v->kind == NODE_SWITCH && v->role == ROLE_SPINE) spine += n->ports[p].tx_bytes;
    }
    print_message("NVL72 x 2 racks, alltoall 16 MiB: %.1f GB/s busbw; GPU 0's first %u "
                  "messages; spines %llu B\n",
                  busbw, nfirst, (unsigned long long)spine);
    assert_int_equal(nfirst, 2 * 16); /* 16 peers x 2 channels, one chunk each */
    for (uint32_t k = 1; k < 144; k++)
        assert_true(peer[k] == (k < 16 || k == 24));
    assert_int_equal(spine, 0);
    assert_true(busbw > 50 && busbw < 2 * 400.0 / 8); /* 22.8 with rank + d */
    trun_end(&t);
}

/* kind nvl72 is 72 GPUs: another gpus_per_host is an error at its line. */
static void nvl72_gpus_fixed(void **state) {
    (void)state;
    struct scenario sc;
    struct diag d = {0};
    int rc = scenario_load_string(&sc, "topology:\n  kind: nvl72\n  gpus_per_host: 8\n", "t.yaml",
                                  NULL, 0, &d);
    char msg[600];
    diag_format(&d, msg, sizeof msg);
    if (!rc) scenario_fini(&sc);
    assert_true(rc != 0);
    assert_non_null(strstr(msg, "t.yaml:3:18: error: topology: an nvl72 rack has 72 GPUs"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rack_shape),       cmocka_unit_test(rack_nvlink_bound),
        cmocka_unit_test(two_racks),        cmocka_unit_test(two_racks_alltoall),
        cmocka_unit_test(nvl72_gpus_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

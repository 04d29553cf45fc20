/* tests/coll/test_pxn_ring.c
 *
 * NCCL's node-aware ring with PXN (coll/algos.c node_ring_order, coll.c
 * op_ring_relay) on 2 hosts x 4 GPUs, one NIC per GPU on its rail, one
 * channel: the ring enters each host at GPU 0 from rail 0, visits GPUs 1, 2,
 * 3 over NVLink, and GPU 3's send leaves through GPU 0's NIC after an NVLink
 * hop to GPU 0 ("NET n -> GPU a -> .. -> GPU x -> NET n", NCCL's
 * graph/search.cc). So only rail 0's NICs send, and a host's GPUs send 4
 * NVLink hops a step where the ring without PXN (pxn: false: it leaves from
 * the GPU on the next host's entry rail, rails 0 and 1 alternating) sends 3.
 * The relay's network hop is posted one network step (NCCL's hwLat NET
 * Simple, 14 us) after its NVLink hop began, i.e. 14 - 3.4 us after the
 * NVLink hop's post, or one post overhead (1 us) after the NVLink hop
 * arrived when that is later (algos.c coll_relay_ps).
 */
#include "testutil.h"

#include "coll/coll_int.h"
#include "net/net.h"

#include <stdio.h>

#define PXN_YAML(pxn)                                                                              \
    "name: pxn-ring\nseed: 1\n"                                                                    \
    "fabric: {kind: infiniband, flow_control: credit, routing: adaptive}\n"                        \
    "topology: {kind: rail_optimized, rail_optimized: {hosts: 2, gpus_per_host: 4, spines: 2}}\n"  \
    "workload:\n"                                                                                  \
    "  - {kind: allreduce, size: 4MiB, ranks: gpus, algorithm: ring, channels: 1,\n"               \
    "     protocol: simple, pxn: " pxn "}\n"

struct pxn_run {
    uint64_t nic[2][4]; /* bytes each GPU's NIC sent, [host][gpu] */
    uint64_t nvlink;    /* bytes the GPUs sent on NVLink */
    double time_us;
    uint32_t relayed, at_step, at_arrival; /* relayed sends; posted by which bound */
};

static uint32_t node(const struct trun *t, const char *name) {
    uint32_t v = net_node_by_name(&t->m.net, name);
    if (v == NET_NONE) fail_msg("no node %s", name);
    return v;
}

static struct pxn_run run_pxn(const char *yaml) {
    struct trun t;
    trun_build(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    t.m.net.msg_keep = true;
    model_run(&t.m, NULL, NULL);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    struct pxn_run o = {0};
    o.time_us = (double)(n->coll_rows[0].end_ps - n->coll_rows[0].start_ps) / 1e6;
    char name[64];
    for (uint32_t h = 0; h < 2; h++)
        for (uint32_t g = 0; g < 4; g++) {
            snprintf(name, sizeof name, "h%u.g%u->leaf%u", h, g, g);
            o.nic[h][g] = n->ports[tlink(&t, name)].tx_bytes;
            snprintf(name, sizeof name, "h%u.g%u->h%u.nvs", h, g, h);
            o.nvlink += n->ports[tlink(&t, name)].tx_bytes;
        }
    /* host 0's relay: NVLink hops g3 -> g0, network hops g0 -> h1.g0, in order */
    uint32_t g3 = node(&t, "h0.g3"), g0 = node(&t, "h0.g0"), r0 = node(&t, "h1.g0");
    uint32_t k1 = 0, k2 = 0, first[64], second[64];
    for (uint32_t i = 0; i < n->nmsgs; i++) {
        const struct qp *q = &n->qps[n->msgs[i].qp];
        if (q->src == g3 && q->dst == g0 && k1 < 64) first[k1++] = i;
        if (q->src == g0 && q->dst == r0 && k2 < 64) second[k2++] = i;
    }
    if (k1 && k1 == k2) {
        const sim_time_ps net = 14000000, nvl = 3400000, post = 1000000; /* tuning.cc hwLat */
        for (uint32_t k = 0; k < k1; k++) {
            const struct msg *a = &n->msgs[first[k]], *b = &n->msgs[second[k]];
            sim_time_ps by_step = a->post_ps + (net - nvl), by_arrival = a->recv_ps + post;
            assert_true(b->post_ps == (by_step > by_arrival ? by_step : by_arrival));
            o.at_step += by_step >= by_arrival;
            o.at_arrival += by_step < by_arrival;
        }
        o.relayed = k1;
    }
    trun_end(&t);
    return o;
}

static void pxn_ring(void **state) {
    (void)state;
    struct pxn_run on = run_pxn(PXN_YAML("true")), off = run_pxn(PXN_YAML("false"));
    print_message("2 x 4 GPUs, 4 MiB ring, 1 channel: PXN %.2f us, NVLink %llu B, %u relayed "
                  "sends (%u posted a network step after they began, %u after their NVLink hop "
                  "arrived); without PXN %.2f us, NVLink %llu B\n",
                  on.time_us, (unsigned long long)on.nvlink, on.relayed, on.at_step, on.at_arrival,
                  off.time_us, (unsigned long long)off.nvlink);
    for (uint32_t h = 0; h < 2; h++)
        print_message("host %u NICs: PXN %llu %llu %llu %llu, without %llu %llu %llu %llu\n", h,
                      (unsigned long long)on.nic[h][0], (unsigned long long)on.nic[h][1],
                      (unsigned long long)on.nic[h][2], (unsigned long long)on.nic[h][3],
                      (unsigned long long)off.nic[h][0], (unsigned long long)off.nic[h][1],
                      (unsigned long long)off.nic[h][2], (unsigned long long)off.nic[h][3]);
    /* in and out on rail 0: GPU 0's NIC sends every network byte (its data
     * and the ACKs of what it received), the other NICs only ACKs */
    for (uint32_t h = 0; h < 2; h++) {
        for (uint32_t g = 1; g < 4; g++)
            assert_true(on.nic[h][g] * 50 < on.nic[h][0]);
        assert_true(on.nic[h][0] >= (uint64_t)(4u << 20) * 2 * 7 / 8); /* 2(n-1)/n x S, n = 8 */
    }
    /* without PXN host 0 leaves on rail 1, host 1 on rail 0 */
    assert_true(off.nic[0][1] > (4u << 20) / 2 && off.nic[0][0] * 50 < off.nic[0][1]);
    assert_true(off.nic[1][0] > (4u << 20) / 2 && off.nic[1][1] * 50 < off.nic[1][0]);
    /* 4 NVLink hops a host where 3 were: 4/3 of the NVLink bytes */
    double r = (double)on.nvlink / (double)off.nvlink;
    assert_true(r > 4.0 / 3 * 0.99 && r < 4.0 / 3 * 1.01);
    /* every relayed send posted as coll_relay_ps says (asserted per message
     * in run_pxn), 2 (n - 1) steps x 1 slice; the NVLink hop of a 256 KiB
     * step (~1.4 us at 1.5 Tb/s per GPU) is hidden in the network step */
    assert_int_equal(on.relayed, 2 * 7);
    assert_int_equal(off.relayed, 0);
    assert_int_equal(on.at_step, on.relayed);
    /* so PXN costs the ring no time here: the same network steps */
    assert_true(on.time_us < off.time_us * 1.02 && on.time_us > off.time_us * 0.95);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pxn_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/roce/test_spray.c
 *
 * Per-packet spraying (Spectrum-X style, docs/sources.md A11): a random
 * permutation on a non-blocking leaf-spine reaches near-full bisection where
 * ECMP loses to collisions, and the receivers place or hold early packets
 * (reorder_max_bytes > 0) without loss.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include <stdio.h>

#define STOP_PS (100 * PS_PER_US)
#define REORDER (1024 * KIB)
#define WARM_PS (30 * PS_PER_US) /* throughput measured after this */

struct res {
    double tput;
    uint64_t reorder_max, drops;
};

static struct res permutation(enum routing_kind r, uint64_t seed, uint64_t reorder) {
    struct scenario sc;
    roce_scenario(&sc);
    /* a reorder buffer when one is given, else out-of-order placement */
    sc.fabric.out_of_order = reorder ? OOO_BUFFER : OOO_PLACEMENT;
    sc.seed = seed;
    sc.stop_ps = WARM_PS + STOP_PS;
    sc.fabric.link_bps = 100 * GBPS;
    sc.fabric.routing = r;
    sc.fabric.reorder_buffer_bytes = reorder;
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 4;
    sc.topo.spines = 4;
    sc.topo.hosts_per_leaf = 4;
    sc.topo.uplinks_per_spine = 1;
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_RANDOM, 0, 4096 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    m.sim.stop_ps = WARM_PS;
    sim_run(&m.sim, NULL, NULL, 1u << 20);
    uint64_t warm = n->c.bytes_delivered;
    m.sim.stop_ps = WARM_PS + STOP_PS;
    sim_run(&m.sim, NULL, NULL, 1u << 20);
    double cap = 16.0 * 100e9 / 8 * 4096 / (4096 + 82) * STOP_PS / 1e12;
    struct res x = {(double)(n->c.bytes_delivered - warm) / cap, n->c.reorder_max_bytes,
                    n->c.packets_dropped};
    model_fini(&m);
    return x;
}

static void test_spray_full_bisection(void **state) {
    (void)state;
    double spray = 0, ecmp = 0;
    uint64_t rmax = 0, drops = 0;
    const uint32_t seeds = 6;
    for (uint64_t s = 1; s <= seeds; s++) {
        struct res a = permutation(ROUTING_SPRAY, s, REORDER);
        struct res b = permutation(ROUTING_ECMP, s, REORDER);
        spray += a.tput;
        ecmp += b.tput;
        if (a.reorder_max > rmax) rmax = a.reorder_max;
        drops += a.drops;
    }
    spray /= seeds;
    ecmp /= seeds;
    printf("  permutation, 16 hosts, 4 spines: spray %.3f, ecmp %.3f of full bisection; "
           "reorder max %llu B, drops %llu\n",
           spray, ecmp, (unsigned long long)rmax, (unsigned long long)drops);
    assert_true(spray > 0.9); /* ACKs take ~2 % of each host link */
    assert_true(spray > ecmp + 0.1);
    assert_true(rmax > 0);
    assert_int_equal(drops, 0);
}

/* A buffer too small for the skew between paths overflows: drops counted,
 * the transfer still completes by go-back-N. */
static void test_small_reorder_buffer_drops(void **state) {
    (void)state;
    struct res a = permutation(ROUTING_SPRAY, 1, 4096);
    printf("  reorder buffer 4 KiB: throughput %.3f, drops %llu\n", a.tput,
           (unsigned long long)a.drops);
    assert_true(a.drops > 0);
}

/* The NIC side of spraying (issue 27), a 256-host scaled copy of the
 * 8,192-host leaf-spine of docs/validation.md (16 hosts per leaf, 16 spines,
 * 400 G, 1 us links, 1 MB random permutation, PFC, DCQCN): with
 * out-of-order placement (ConnectX-5+ / BlueField-3, the default) no packet
 * is lost and the tail FCT is within 2x of InfiniBand adaptive routing on
 * the same fabric; a plain RC receiver (NAK-sequence and discard) loses
 * every early packet and goes back N each time; the old 256 KiB on-NIC
 * buffer drops what does not fit. */
struct spray_run {
    uint64_t tail_ps, drops, retx;
    bool completed;
};

static struct spray_run spray_ls(enum fabric_kind kind, enum routing_kind r, enum ooo_mode ooo) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.fabric.kind = kind;
    if (kind == FABRIC_INFINIBAND) {
        sc.fabric.flow_control = FLOWCTL_CREDIT;
        sc.fabric.overhead_bytes = 26;
        sc.fabric.transport.rto = RTO_IBA;
        sc.fabric.transport.timeout_ps = 4096000ULL << 20;
        sc.fabric.transport.retry_cnt = 7;
    } else {
        sc.fabric.congestion_control = CC_DCQCN;
    }
    sc.fabric.routing = r;
    sc.fabric.out_of_order = ooo;
    sc.fabric.propagation_ps = 1000 * PS_PER_NS;
    sc.topo.kind = TOPO_LEAF_SPINE;
    sc.topo.leaves = 16;
    sc.topo.spines = 16;
    sc.topo.hosts_per_leaf = 16;
    sc.topo.uplinks_per_spine = 1;
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_RANDOM, 0, 1000 * 1000);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    struct spray_run x = {0, n->c.packets_dropped, n->c.retransmitted_packets, m.completed};
    for (uint32_t f = 0; f < n->nflows; f++)
        if (n->flows[f].end_ps - n->flows[f].start_ps > x.tail_ps)
            x.tail_ps = n->flows[f].end_ps - n->flows[f].start_ps;
    model_fini(&m);
    return x;
}

static void test_spray_nic_modes_scaled(void **state) {
    (void)state;
    struct spray_run ar = spray_ls(FABRIC_INFINIBAND, ROUTING_ADAPTIVE, OOO_PLACEMENT);
    struct spray_run pl = spray_ls(FABRIC_ROCE, ROUTING_SPRAY, OOO_PLACEMENT);
    struct spray_run di = spray_ls(FABRIC_ROCE, ROUTING_SPRAY, OOO_DISCARD);
    struct spray_run bu = spray_ls(FABRIC_ROCE, ROUTING_SPRAY, OOO_BUFFER);
    struct spray_run ec = spray_ls(FABRIC_ROCE, ROUTING_ECMP, OOO_PLACEMENT);
    const struct spray_run *all[] = {&ar, &pl, &di, &bu, &ec};
    const char *names[] = {"IB adaptive", "spray, placement", "spray, discard",
                           "spray, 256 KiB buffer", "ECMP"};
    for (int i = 0; i < 5; i++)
        printf("  %-22s tail FCT %7.2f us, drops %6llu, retransmitted %6llu, completed %d\n",
               names[i], all[i]->tail_ps / 1e6, (unsigned long long)all[i]->drops,
               (unsigned long long)all[i]->retx, all[i]->completed);
    for (int i = 0; i < 5; i++)
        assert_true(all[i]->completed);
    assert_int_equal(pl.drops, 0);
    assert_int_equal(pl.retx, 0);
    assert_true(pl.tail_ps < 2 * ar.tail_ps);
    assert_true(pl.tail_ps < ec.tail_ps);
    assert_true(di.retx > 1000); /* every early packet discarded and resent */
    assert_true(di.tail_ps > pl.tail_ps);
    assert_true(bu.drops > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spray_full_bisection),
        cmocka_unit_test(test_small_reorder_buffer_drops),
        cmocka_unit_test(test_spray_nic_modes_scaled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

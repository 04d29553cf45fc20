/* tests/roce/test_ecmp.c
 *
 * ECMP collisions (claim 4, Ethernet side; docs/sources.md A11/V10): k equal flows
 * hashed onto n equal paths fill (non-empty paths)/n of the bisection, which
 * averages 1 - (1 - 1/n)^k over seeds. With one hash seed on every switch a
 * 3-tier fat tree polarises: the second hashing tier repeats the first's
 * choice and half the core links stay idle.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "route/route.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define STOP_PS (100 * PS_PER_US)

/* Delivered payload by STOP over what `nflows` flows at line rate carry. */
static double norm_tput(const struct net *n, uint32_t nflows) {
    double eff = 4096.0 / (4096 + 82);
    double cap = (double)nflows * (double)n->sc->fabric.link_bps / 8 * eff * STOP_PS / 1e12;
    return (double)n->c.bytes_delivered / cap;
}

/* leaf0's hosts h0..h(k-1) each send `size` to h(k+i) on leaf1 over k
 * spines (k = paths <= 8), one flow per QP; the caller runs it. */
struct cross {
    struct scenario sc;
    struct wl_entry w;
    struct wl_flow fl[8];
};

static void cross_leaf(struct cross *x, uint32_t paths, uint64_t seed, uint64_t size,
                       enum routing_kind r, sim_time_ps stop) {
    roce_scenario(&x->sc);
    x->sc.seed = seed;
    x->sc.stop_ps = stop;
    x->sc.fabric.link_bps = 100 * GBPS;
    x->sc.fabric.routing = r;
    x->sc.topo.kind = TOPO_LEAF_SPINE;
    x->sc.topo.leaves = 2;
    x->sc.topo.spines = paths;
    x->sc.topo.hosts_per_leaf = paths;
    x->sc.topo.uplinks_per_spine = 1;
    for (uint32_t i = 0; i < paths; i++)
        x->fl[i] = (struct wl_flow){i, paths + i, size, 0};
    memset(&x->w, 0, sizeof x->w);
    x->w.kind = WL_FLOWS;
    x->w.flows = x->fl;
    x->w.nflows = paths;
    x->sc.workload = &x->w;
    x->sc.nworkload = 1;
}

/* leaf0's uplinks that carried something (busy) or nothing (idle). */
static uint32_t uplinks(const struct net *n, bool busy) {
    const struct node *nd = &n->nodes[net_node_by_name(n, "leaf0")];
    uint32_t c = 0;
    for (uint32_t i = 0; i < nd->nports; i++) {
        const struct port *pt = &n->ports[nd->first_port + i];
        if (n->nodes[n->ports[pt->peer].node].kind == NODE_SWITCH && (pt->tx_bytes > 0) == busy)
            c++;
    }
    return c;
}

/* leaf0's hosts h0..h(k-1) each send to h(k+i) on leaf1 over n spines. */
static void balls_into_bins(uint32_t paths, uint32_t seeds, double *mean_tput,
                            double *mean_nonempty, double *max_err) {
    double sum_t = 0, sum_ne = 0;
    *max_err = 0;
    for (uint32_t seed = 1; seed <= seeds; seed++) {
        struct cross x;
        cross_leaf(&x, paths, seed, 4096 * KIB, ROUTING_ECMP, STOP_PS);
        struct model m;
        struct diag d = {0};
        assert_int_equal(model_build(&m, &x.sc, &d), 0);
        model_run(&m, NULL, NULL);
        struct net *n = &m.net;
        assert_int_equal(n->c.packets_dropped, 0);
        uint32_t used = uplinks(n, true); /* paths used */
        double t = norm_tput(n, paths);
        double ne = (double)used / paths;
        /* Each run fills exactly the paths its hash chose (within the start). */
        if (fabs(t - ne) > *max_err) *max_err = fabs(t - ne);
        sum_t += t;
        sum_ne += ne;
        model_fini(&m);
    }
    *mean_tput = sum_t / seeds;
    *mean_nonempty = sum_ne / seeds;
}

static void check_paths(uint32_t paths, uint32_t seeds) {
    double t, ne, err;
    balls_into_bins(paths, seeds, &t, &ne, &err);
    double expect = 1.0 - pow(1.0 - 1.0 / paths, paths);
    printf("  n = k = %u, %u seeds: throughput %.3f, non-empty paths %.3f, "
           "balls-into-bins %.3f; worst run |throughput - non-empty| %.3f\n",
           paths, seeds, t, ne, expect, err);
    assert_true(err < 0.03);
    assert_true(fabs(ne - expect) < 0.04);
    assert_true(fabs(t - expect) < 0.05);
}

/* The hash alone over many seeds (no run): the paths k QPs' 5-tuples pick at
 * leaf0 average the balls-into-bins value within 1.5 %. */
static void test_hash_is_balls_into_bins(void **state) {
    (void)state;
    const uint32_t paths = 8, seeds = 500;
    double sum = 0;
    for (uint32_t seed = 1; seed <= seeds; seed++) {
        struct scenario sc;
        roce_scenario(&sc);
        sc.seed = seed;
        sc.fabric.routing = ROUTING_ECMP;
        sc.topo.kind = TOPO_LEAF_SPINE;
        sc.topo.leaves = 2;
        sc.topo.spines = paths;
        sc.topo.hosts_per_leaf = paths;
        sc.topo.uplinks_per_spine = 1;
        struct wl_flow fl[8];
        for (uint32_t i = 0; i < paths; i++)
            fl[i] = (struct wl_flow){i, paths + i, 4096, 0};
        struct wl_entry w;
        memset(&w, 0, sizeof w);
        w.kind = WL_FLOWS;
        w.flows = fl;
        w.nflows = paths;
        sc.workload = &w;
        sc.nworkload = 1;
        struct model m;
        struct diag d = {0};
        assert_int_equal(model_build(&m, &sc, &d), 0);
        struct net *n = &m.net;
        uint32_t leaf0 = net_node_by_name(n, "leaf0");
        uint32_t used[64] = {0}, c = 0;
        for (uint32_t q = 0; q < n->nqps; q++) {
            struct packet p;
            memset(&p, 0, sizeof p);
            p.src = n->qps[q].src;
            p.dst = n->qps[q].dst;
            p.flow_hash = n->qps[q].flow_hash[0];
            uint32_t port = n->route->select(n, leaf0, &p) - n->nodes[leaf0].first_port;
            c += !used[port];
            used[port] = 1;
        }
        sum += (double)c / paths;
        model_fini(&m);
    }
    double expect = 1.0 - pow(1.0 - 1.0 / paths, paths);
    printf("  hash only, n = k = 8, %u seeds: non-empty %.4f, balls-into-bins %.4f\n", seeds,
           sum / seeds, expect);
    assert_true(fabs(sum / seeds - expect) < 0.015);
}

/* Upper (z > 0) or lower (z < 0) quantile of chi-square with k degrees of
 * freedom, Wilson-Hilferty: k (1 - 2/(9k) + z sqrt(2/(9k)))^3. */
static double chi2_q(double k, double z) {
    double a = 2.0 / (9.0 * k);
    return k * pow(1.0 - a + z * sqrt(a), 3);
}

#define MIX_FLOWS 8192u
#define MIX_BUCKETS 8u

/* The per-QP digest mixed with each switch's seed (issue 13): over every
 * switch of a k = 8 fat tree (80 seeds), 8 192 flows fall into 8 ECMP
 * buckets uniformly (chi-square per switch and summed over switches) and
 * independently at two switches (64-cell joint chi-square over disjoint
 * pairs of switches). Two flow sets: all-pairs traffic with random UDP
 * source ports, and one host pair whose QPs differ only in consecutive
 * source ports (the structured input a weak mix would betray). With one seed
 * on every switch the choice is the same at every switch (polarisation). */
static void mixed_hash_check(bool same_seed, uint32_t set) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.seed = 7;
    sc.fabric.routing = ROUTING_ECMP;
    sc.fabric.ecmp_same_seed = same_seed;
    sc.topo.kind = TOPO_FAT_TREE;
    sc.topo.k = 8;
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_SHIFT, 64, 4096);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    static uint8_t bucket[128][MIX_FLOWS];
    struct packet *fl = calloc(MIX_FLOWS, sizeof *fl);
    assert_non_null(fl);
    struct rng r;
    rng_seed(&r, 11, set, 0);
    for (uint32_t i = 0; i < MIX_FLOWS; i++) {
        uint32_t a = i % n->nhosts, b = (a + 1 + (i / n->nhosts) % (n->nhosts - 1)) % n->nhosts;
        uint16_t sport = (uint16_t)(49152 + rng_below(&r, 16384));
        if (set == 1) a = 0, b = 1, sport = (uint16_t)(49152 + i);
        fl[i].flow_hash = flow_digest(n->host_node[a], n->host_node[b], sport);
    }
    uint32_t ns = 0;
    double sum = 0, worst = 0;
    for (uint32_t sw = 0; sw < n->nnodes; sw++) {
        if (n->nodes[sw].kind != NODE_SWITCH) continue;
        assert_true(ns < 128);
        uint32_t cnt[MIX_BUCKETS] = {0};
        for (uint32_t i = 0; i < MIX_FLOWS; i++) {
            uint32_t b = (uint32_t)(((uint64_t)ecmp_hash(n, sw, &fl[i]) * MIX_BUCKETS) >> 32);
            bucket[ns][i] = (uint8_t)b;
            cnt[b]++;
        }
        double e = (double)MIX_FLOWS / MIX_BUCKETS, x = 0;
        for (uint32_t b = 0; b < MIX_BUCKETS; b++)
            x += ((double)cnt[b] - e) * ((double)cnt[b] - e) / e;
        sum += x;
        if (x > worst) worst = x;
        ns++;
    }
    assert_int_equal(ns, 80);
    if (same_seed) {
        for (uint32_t s = 1; s < ns; s++)
            assert_memory_equal(bucket[s], bucket[0], MIX_FLOWS);
    } else {
        /* disjoint pairs of switches: joint buckets against 1/64 each */
        double joint = 0;
        for (uint32_t s = 0; s + 1 < ns; s += 2) {
            uint32_t c2[MIX_BUCKETS * MIX_BUCKETS] = {0};
            for (uint32_t i = 0; i < MIX_FLOWS; i++)
                c2[bucket[s][i] * MIX_BUCKETS + bucket[s + 1][i]]++;
            double e = (double)MIX_FLOWS / (MIX_BUCKETS * MIX_BUCKETS);
            for (uint32_t c = 0; c < MIX_BUCKETS * MIX_BUCKETS; c++)
                joint += ((double)c2[c] - e) * ((double)c2[c] - e) / e;
        }
        double k2 = (double)(ns / 2) * (MIX_BUCKETS * MIX_BUCKETS - 1);
        printf("  set %u, %u switches: joint chi-square over %u pairs %.0f (dof %.0f, "
               "0.1%%..99.9%%: %.0f..%.0f)\n",
               set, ns, ns / 2, joint, k2, chi2_q(k2, -3.09), chi2_q(k2, 3.09));
        assert_true(joint > chi2_q(k2, -3.09) && joint < chi2_q(k2, 3.09));
    }
    double k1 = (double)(MIX_BUCKETS - 1), kall = k1 * ns;
    printf("  set %u%s: chi-square summed over %u switches %.0f (dof %.0f, 0.1%%..99.9%%: "
           "%.0f..%.0f), worst switch %.1f (1e-5 level %.1f)\n",
           set, same_seed ? ", one seed" : "", ns, sum, kall, chi2_q(kall, -3.09),
           chi2_q(kall, 3.09), worst, chi2_q(k1, 4.265));
    assert_true(worst < chi2_q(k1, 4.265));
    if (!same_seed) assert_true(sum > chi2_q(kall, -3.09) && sum < chi2_q(kall, 3.09));
    free(fl);
    model_fini(&m);
}

static void test_mixed_hash_uniform(void **state) {
    (void)state;
    mixed_hash_check(false, 0);
    mixed_hash_check(false, 1);
    mixed_hash_check(true, 0);
}

static void test_balls_into_bins_4(void **state) {
    (void)state;
    check_paths(4, 150);
}

static void test_balls_into_bins_8(void **state) {
    (void)state;
    check_paths(8, 150);
}

/* The same n = k = 8 scenario with 1 MiB flows run to completion: idle
 * leaf0 uplinks and the finish time, under ECMP, spray and adaptive. */
static sim_time_ps finish(enum routing_kind r, uint64_t seed, uint32_t *idle) {
    struct cross x;
    cross_leaf(&x, 8, seed, 1024 * KIB, r, 10 * PS_PER_MS);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &x.sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    assert_true(m.completed);
    *idle = uplinks(n, false);
    sim_time_ps done = n->done_ps;
    model_fini(&m);
    return done;
}

/* Spray and adaptive routing leave no uplink idle and finish sooner than
 * ECMP, which loses (1 - 1/n)^k of the uplinks to collisions. */
static void test_spray_adaptive_none_idle(void **state) {
    (void)state;
    const uint32_t seeds = 6;
    double e_done = 0, s_done = 0, a_done = 0, e_idle = 0;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        uint32_t ie, is, ia;
        sim_time_ps te = finish(ROUTING_ECMP, seed, &ie);
        sim_time_ps ts = finish(ROUTING_SPRAY, seed, &is);
        sim_time_ps ta = finish(ROUTING_ADAPTIVE, seed, &ia);
        assert_int_equal(is, 0);
        assert_int_equal(ia, 0);
        /* A collision makes two flows share an uplink: ECMP takes ~2x. */
        if (ie > 0) assert_true(ts * 3 < te * 2 && ta * 3 < te * 2);
        e_done += (double)te, s_done += (double)ts, a_done += (double)ta, e_idle += ie;
    }
    printf("  n = k = 8, 1 MiB flows, %u seeds: idle uplinks ECMP %.2f of 8 (expect %.2f), "
           "spray 0, adaptive 0; finish ECMP %.1f us, spray %.1f us, adaptive %.1f us\n",
           seeds, e_idle / seeds, 8 * pow(1 - 1.0 / 8, 8), e_done / seeds / 1e6,
           s_done / seeds / 1e6, a_done / seeds / 1e6);
    assert_true(e_idle > 0);
    assert_true(s_done < e_done && a_done < e_done);
}

/* k = 4 fat tree, every host to the host 8 further (the other half of the
 * pods): all 16 flows cross the cores. */
static double fat_tree(bool same_seed, uint64_t seed, uint32_t *cores_used) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.seed = seed;
    sc.stop_ps = STOP_PS;
    sc.fabric.link_bps = 100 * GBPS;
    sc.fabric.routing = ROUTING_ECMP;
    sc.fabric.ecmp_same_seed = same_seed;
    sc.topo.kind = TOPO_FAT_TREE;
    sc.topo.k = 4;
    struct wl_entry w;
    roce_permutation(&sc, &w, PERM_SHIFT, 8, 4096 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct net *n = &m.net;
    *cores_used = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct port *pt = &n->ports[p];
        if (n->nodes[pt->node].role == ROLE_AGG &&
            n->nodes[n->ports[pt->peer].node].role == ROLE_CORE && pt->tx_bytes > 0)
            (*cores_used)++;
    }
    double t = norm_tput(n, 16);
    model_fini(&m);
    return t;
}

static void test_polarisation(void **state) {
    (void)state;
    double ind = 0, same = 0;
    uint32_t ui = 0, us = 0;
    const uint32_t seeds = 12;
    for (uint64_t s = 1; s <= seeds; s++) {
        uint32_t a, b;
        ind += fat_tree(false, s, &a);
        same += fat_tree(true, s, &b);
        ui += a;
        us += b;
        /* With one key, agg i sends every flow that edge hashed to bucket i to
         * its own bucket i again: one core uplink of two per agg. */
        assert_true(b <= 8);
    }
    printf("  fat tree k=4: per-switch keys %.3f (%.1f of 16 agg->core links), same key "
           "%.3f (%.1f)\n",
           ind / seeds, (double)ui / seeds, same / seeds, (double)us / seeds);
    assert_true(same / seeds < 0.85 * ind / seeds);
    assert_true((double)ui / seeds > 11.0);
}

/* QP scaling (docs/sources.md A11, V13): striping each flow over 4 QPs gives ECMP
 * 4x the entropy; k = n = 4 flows then fill more of the paths on average. */
static double qp_scaled(uint32_t qps, uint32_t seeds) {
    double sum = 0;
    for (uint32_t seed = 1; seed <= seeds; seed++) {
        struct scenario sc;
        roce_scenario(&sc);
        sc.seed = seed;
        sc.stop_ps = STOP_PS;
        sc.fabric.link_bps = 100 * GBPS;
        sc.fabric.routing = ROUTING_ECMP;
        sc.fabric.transport.qps_per_connection = qps;
        sc.topo.kind = TOPO_LEAF_SPINE;
        sc.topo.leaves = 2;
        sc.topo.spines = 4;
        sc.topo.hosts_per_leaf = 4;
        sc.topo.uplinks_per_spine = 1;
        struct wl_flow fl[4];
        for (uint32_t i = 0; i < 4; i++)
            fl[i] = (struct wl_flow){i, 4 + i, 4096 * KIB, 0};
        struct wl_entry w;
        memset(&w, 0, sizeof w);
        w.kind = WL_FLOWS;
        w.flows = fl;
        w.nflows = 4;
        sc.workload = &w;
        sc.nworkload = 1;
        struct model m;
        struct diag d = {0};
        assert_int_equal(model_build(&m, &sc, &d), 0);
        assert_int_equal(m.net.nqps, 4 * qps);
        model_run(&m, NULL, NULL);
        sum += norm_tput(&m.net, 4);
        model_fini(&m);
    }
    return sum / seeds;
}

static void test_qp_scaling(void **state) {
    (void)state;
    double one = qp_scaled(1, 40), four = qp_scaled(4, 40);
    printf("  k = n = 4: 1 QP per connection %.3f, 4 QPs %.3f\n", one, four);
    assert_true(four > one + 0.1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_is_balls_into_bins),
        cmocka_unit_test(test_mixed_hash_uniform),
        cmocka_unit_test(test_balls_into_bins_4),
        cmocka_unit_test(test_balls_into_bins_8),
        cmocka_unit_test(test_spray_adaptive_none_idle),
        cmocka_unit_test(test_polarisation),
        cmocka_unit_test(test_qp_scaling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

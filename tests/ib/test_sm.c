/* tests/ib/test_sm.c
 *
 * The subnet manager (ctrl/sm*.c): SMP counts against OpenSM (docs/sources.md
 * A10b), routing engines and the channel dependency graph, shift-permutation
 * contention, credit deadlock on a ring, reroute time after a link failure,
 * SHIELD, and the opensm-lfts.dump round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ib_common.h"

#include "ctrl/sm.h"
#include "ctrl/sm_dump.h"
#include "ctrl/sm_state.h"
#include "workload/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double rel(double got, double want) {
    return fabs(got - want) / want;
}

/* A10b: leaf-spine 8x8 (64 hosts, 16 switches): 2,050 SMPs to SUBNET UP,
 * 1,074 in discovery, 32 LFT blocks; fat tree k=8 (128 hosts, 80 switches):
 * 6,434 / 3,314 / 320. */
static void test_smp_counts(void **state) {
    (void)state;
    struct scenario sc;
    struct model m;
    struct diag d = {0};
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 8, 8, 8);
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct sm *sm = sm_of(&m.net);
    printf("ls64: smps %llu discovery %llu blocks %llu\n", (unsigned long long)sm->smps_total,
           (unsigned long long)sm->smps_discovery, (unsigned long long)sm->lft_blocks);
    assert_true(rel((double)sm->smps_total, 2050) < 0.15);
    assert_true(rel((double)sm->smps_discovery, 1074) < 0.15);
    assert_int_equal(sm->lft_blocks, 32);
    model_fini(&m);
    ib_scenario(&sc);
    ib_fat_tree(&sc, 8);
    assert_int_equal(model_build(&m, &sc, &d), 0);
    sm = sm_of(&m.net);
    printf("ft8: smps %llu discovery %llu blocks %llu\n", (unsigned long long)sm->smps_total,
           (unsigned long long)sm->smps_discovery, (unsigned long long)sm->lft_blocks);
    assert_true(rel((double)sm->smps_total, 6434) < 0.15);
    assert_true(rel((double)sm->smps_discovery, 3314) < 0.15);
    assert_int_equal(sm->lft_blocks, 320);
    model_fini(&m);
}

static bool cdg_of(struct scenario *sc, uint32_t *nwarn) {
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, sc, &d), 0);
    bool a = sm_of(&m.net)->cdg_acyclic;
    *nwarn = m.net.nwarnings;
    if (m.net.nwarnings) printf("warning: %s\n", m.net.warnings[0]);
    model_fini(&m);
    return a;
}

static void test_cdg(void **state) {
    (void)state;
    struct scenario sc;
    uint32_t w;
    int engines[] = {ENGINE_MINHOP, ENGINE_UPDN, ENGINE_FTREE};
    for (int i = 0; i < 3; i++) {
        ib_scenario(&sc);
        ib_fat_tree(&sc, 8);
        sc.fabric.routing_engine = engines[i];
        assert_true(cdg_of(&sc, &w));
        assert_int_equal(w, 0);
    }
    ib_scenario(&sc);
    ib_ring(&sc, 5, 2);
    assert_false(cdg_of(&sc, &w)); /* minhop on a ring: cyclic */
    assert_int_equal(w, 1);
    sc.fabric.routing_engine = ENGINE_UPDN;
    assert_true(cdg_of(&sc, &w));
    assert_int_equal(w, 0);
}

/* Largest number of flows sharing one directed link for shift s, tracing
 * the LFTs (n->lft). */
static uint32_t shift_max_load(struct net *n, uint32_t s, uint32_t *load) {
    memset(load, 0, n->nports * sizeof *load);
    uint32_t H = n->nhosts, mx = 0;
    for (uint32_t a = 0; a < H; a++) {
        uint32_t b = (a + s) % H, v = n->host_node[a];
        uint32_t p = n->nodes[v].first_port;
        for (int hop = 0; hop < 16; hop++) {
            if (++load[p] > mx) mx = load[p];
            v = n->ports[n->ports[p].peer].node;
            if (n->nodes[v].kind == NODE_HOST) break;
            p = net_lft_get(n, n->nodes[v].index, v, b);
        }
        assert_int_equal(v, n->host_node[b]);
    }
    return mx;
}

/* ftree: every shift permutation is contention-free on the k=8 fat tree and
 * on leaf-spine; minhop's balancing does not guarantee it. */
static void test_shift_contention(void **state) {
    (void)state;
    struct scenario sc;
    struct model m;
    struct diag d = {0};
    uint32_t worst[3] = {0};
    int engines[] = {ENGINE_FTREE, ENGINE_MINHOP, ENGINE_UPDN};
    for (int e = 0; e < 3; e++) {
        ib_scenario(&sc);
        ib_fat_tree(&sc, 8);
        sc.fabric.routing_engine = engines[e];
        assert_int_equal(model_build(&m, &sc, &d), 0);
        uint32_t *load = calloc(m.net.nports, sizeof *load);
        for (uint32_t s = 1; s < m.net.nhosts; s++) {
            uint32_t x = shift_max_load(&m.net, s, load);
            worst[e] = x > worst[e] ? x : worst[e];
        }
        free(load);
        model_fini(&m);
    }
    printf("shift permutations, most flows on one link: ftree %u minhop %u updn %u\n", worst[0],
           worst[1], worst[2]);
    assert_int_equal(worst[0], 1);
    assert_true(worst[1] >= 2);
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 8, 8, 8);
    sc.fabric.routing_engine = ENGINE_FTREE;
    assert_int_equal(model_build(&m, &sc, &d), 0);
    uint32_t *load = calloc(m.net.nports, sizeof *load);
    for (uint32_t s = 1; s < m.net.nhosts; s++)
        assert_int_equal(shift_max_load(&m.net, s, load), 1);
    free(load);
    model_fini(&m);
}

static uint64_t run_perm(int routing, int engine, enum perm_pattern pat, uint32_t shift,
                         uint64_t *drops) {
    struct scenario sc;
    struct wl_entry w;
    ib_scenario(&sc);
    ib_fat_tree(&sc, 8);
    sc.fabric.routing = routing;
    sc.fabric.routing_engine = engine;
    memset(&w, 0, sizeof w);
    w.kind = WL_PERMUTATION;
    w.pattern = pat;
    w.shift = shift;
    w.size_bytes = 512 * 1024;
    sc.workload = &w;
    sc.nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    model_run(&m, NULL, NULL);
    assert_true(m.completed);
    uint64_t worst = 0;
    for (uint32_t f = 0; f < m.net.nflows; f++)
        if (m.net.flows[f].end_ps - m.net.flows[f].start_ps > worst)
            worst = m.net.flows[f].end_ps - m.net.flows[f].start_ps;
    *drops = m.net.c.packets_dropped;
    model_fini(&m);
    return worst;
}

/* Adaptive routing spreads a permutation at least as well as ftree: equal on
 * a shift (ftree is already contention-free), better on a random one. */
static void test_adaptive_vs_ftree(void **state) {
    (void)state;
    uint64_t dr;
    uint64_t ft_shift = run_perm(ROUTING_STATIC, ENGINE_FTREE, PERM_SHIFT, 20, &dr);
    uint64_t ar_shift = run_perm(ROUTING_ADAPTIVE, ENGINE_FTREE, PERM_SHIFT, 20, &dr);
    assert_int_equal(dr, 0);
    uint64_t mh_shift = run_perm(ROUTING_STATIC, ENGINE_MINHOP, PERM_SHIFT, 20, &dr);
    uint64_t ft_rand = run_perm(ROUTING_STATIC, ENGINE_FTREE, PERM_RANDOM, 0, &dr);
    uint64_t ar_rand = run_perm(ROUTING_ADAPTIVE, ENGINE_FTREE, PERM_RANDOM, 0, &dr);
    assert_int_equal(dr, 0);
    printf("slowest flow (us): shift ftree %.1f minhop %.1f adaptive %.1f; random ftree %.1f "
           "adaptive %.1f\n",
           ft_shift / 1e6, mh_shift / 1e6, ar_shift / 1e6, ft_rand / 1e6, ar_rand / 1e6);
    /* greedy per-hop choices are not contention-free on a shift, but close */
    assert_true((double)ar_shift <= (double)ft_shift * 1.25);
    assert_true((double)ar_rand <= (double)ft_rand);
    assert_true((double)mh_shift > (double)ft_shift * 1.5);
}

/* A credit loop: minhop on a 5-switch ring, every host sending two switches
 * clockwise, small buffers: the detector finds the cycle of ring links. The
 * same load with updn routing completes. */
static void test_ring_deadlock(void **state) {
    (void)state;
    struct scenario sc;
    struct wl_entry w;
    for (int e = 0; e < 2; e++) {
        ib_scenario(&sc);
        ib_ring(&sc, 5, 2);
        sc.fabric.routing_engine = e ? ENGINE_UPDN : ENGINE_MINHOP;
        sc.fabric.ib.vl_buffer_bytes = 2 * 4160;
        sc.fabric.deadlock_timeout_ps = 50 * PS_PER_US;
        memset(&w, 0, sizeof w);
        w.kind = WL_PERMUTATION;
        w.pattern = PERM_SHIFT;
        w.shift = 4;
        w.size_bytes = 1 << 20;
        sc.workload = &w;
        sc.nworkload = 1;
        struct model m;
        struct diag d = {0};
        assert_int_equal(model_build(&m, &sc, &d), 0);
        model_run(&m, NULL, NULL);
        struct net *n = &m.net;
        if (e == 0) {
            assert_true(n->deadlock.detected);
            assert_false(m.completed);
            char name[48], buf[256] = "";
            for (uint32_t i = 0; i < n->deadlock.ncycle; i++) {
                net_port_name(n, n->deadlock.cycle[i], name, sizeof name);
                strcat(buf, name);
                strcat(buf, " ");
                assert_non_null(strstr(name, "sw"));
                assert_null(strstr(name, "h"));
            }
            printf("minhop ring: deadlock at %.1f us: %s\n", n->deadlock.at_ps / 1e6, buf);
            assert_int_equal(n->deadlock.ncycle, 5);
            assert_int_equal(n->c.packets_dropped, 0);
        } else {
            assert_false(n->deadlock.detected);
            assert_true(m.completed);
            assert_int_equal(n->c.packets_dropped, 0);
        }
        model_fini(&m);
    }
}

static sim_time_ps reroute_after(struct scenario *sc, const char *link, uint64_t *blocks,
                                 uint64_t *smps) {
    struct sc_event ev = {.at_ps = 1 * PS_PER_US, .kind = EV_LINK_DOWN, .target = (char *)link};
    sc->events = &ev;
    sc->nevents = 1;
    struct wl_entry w;
    memset(&w, 0, sizeof w);
    w.kind = WL_PERMUTATION;
    w.pattern = PERM_SHIFT;
    w.shift = 1;
    w.size_bytes = 256 * 1024;
    sc->workload = &w;
    sc->nworkload = 1;
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, sc, &d), 0);
    model_run(&m, NULL, NULL);
    struct sm *sm = sm_of(&m.net);
    assert_int_equal(m.net.ncp_rows, 1);
    sim_time_ps t = m.net.cp_rows[0].rerouted_ps;
    assert_true(t != SIM_TIME_NEVER);
    *blocks = sm->last_blocks_changed;
    *smps = sm->resweep_smps;
    model_fini(&m);
    sc->events = NULL;
    sc->nevents = 0;
    return t - ev.at_ps;
}

/* A10b: new LFTs in place 40-45 ms (16 switches) and 89-95 ms (80 switches)
 * after the drop; ~956 / ~2,800 SMPs in the re-sweep. */
static void test_reroute_time(void **state) {
    (void)state;
    struct scenario sc;
    uint64_t blocks, smps;
    ib_scenario(&sc);
    ib_leaf_spine(&sc, 8, 8, 8);
    sim_time_ps t = reroute_after(&sc, "leaf0-spine0", &blocks, &smps);
    printf("ls64 minhop: rerouted %.2f ms after the drop, %llu SMPs, %llu blocks\n", t / 1e9,
           (unsigned long long)smps, (unsigned long long)blocks);
    assert_true(t >= 40 * PS_PER_MS && t <= 45 * PS_PER_MS);
    assert_true(rel((double)smps, 956) < 0.15);
    ib_scenario(&sc);
    ib_fat_tree(&sc, 8);
    t = reroute_after(&sc, "edge0-agg0", &blocks, &smps);
    printf("ft8 minhop: rerouted %.2f ms after the drop, %llu SMPs, %llu blocks\n", t / 1e9,
           (unsigned long long)smps, (unsigned long long)blocks);
    assert_true(t >= 89 * PS_PER_MS && t <= 95 * PS_PER_MS);
    assert_true(rel((double)smps, 2800) < 0.15);
}

/* One flow across a failing uplink: without SHIELD it waits for the SM (and
 * its retransmission timer); with SHIELD the leaf moves it to another spine
 * within microseconds. */
static void test_shield(void **state) {
    (void)state;
    sim_time_ps fct[2];
    uint64_t lost[2];
    for (int shield = 0; shield < 2; shield++) {
        struct scenario sc;
        ib_scenario(&sc);
        ib_leaf_spine(&sc, 2, 4, 2);
        sc.fabric.control_plane.shield = shield;
        sc.fabric.transport.timeout_ps = 10 * PS_PER_MS;
        struct wl_flow fl = {0, 2, 16 << 20, 0};
        struct wl_entry w;
        memset(&w, 0, sizeof w);
        w.kind = WL_FLOWS;
        w.flows = &fl;
        w.nflows = 1;
        sc.workload = &w;
        sc.nworkload = 1;
        struct model m;
        struct diag d = {0};
        assert_int_equal(model_build(&m, &sc, &d), 0);
        uint32_t leaf0 = m.net.nhosts;
        uint32_t up = net_lft_get(&m.net, m.net.nodes[leaf0].index, leaf0, 2);
        char name[48], link[64];
        net_port_name(&m.net, up, name, sizeof name);
        snprintf(link, sizeof link, "%s", name);
        char *arrow = strstr(link, "->");
        memmove(arrow + 1, arrow + 2, strlen(arrow + 2) + 1);
        model_fini(&m);
        struct sc_event ev = {.at_ps = 100 * PS_PER_US, .kind = EV_LINK_DOWN, .target = link};
        sc.events = &ev;
        sc.nevents = 1;
        assert_int_equal(model_build(&m, &sc, &d), 0);
        model_run(&m, NULL, NULL);
        assert_true(m.completed);
        fct[shield] = m.net.flows[0].end_ps - m.net.flows[0].start_ps;
        lost[shield] = m.net.c.packets_dropped;
        model_fini(&m);
    }
    printf("flow across a failed uplink: FCT %.1f us without SHIELD (%llu lost), %.1f us with "
           "(%llu lost)\n",
           fct[0] / 1e6, (unsigned long long)lost[0], fct[1] / 1e6, (unsigned long long)lost[1]);
    assert_true(fct[1] < 2 * PS_PER_MS);
    assert_true(fct[0] > 10 * PS_PER_MS);
    assert_true(lost[1] < lost[0]);
}

/* fabsim routes / routing_engine: file: dump, load, identical LFTs and a
 * byte-identical second dump; malformed dumps are refused with line:col. */
static void test_dump_round_trip(void **state) {
    (void)state;
    struct scenario sc;
    struct model m, m2;
    struct diag d = {0};
    char path[] = "/tmp/fabsim-lfts-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    ib_scenario(&sc);
    ib_fat_tree(&sc, 4);
    sc.fabric.routing_engine = ENGINE_FTREE;
    assert_int_equal(model_build(&m, &sc, &d), 0);
    sm_dump_write(&m.net, sm_of(&m.net), f);
    fclose(f);
    struct scenario sc2 = sc;
    sc2.fabric.routing_engine = ENGINE_FILE;
    sc2.fabric.lft_file = path;
    assert_int_equal(model_build(&m2, &sc2, &d), 0);
    struct sm *a = sm_of(&m.net), *b = sm_of(&m2.net);
    for (uint32_t s = 0; s < a->S; s++) /* the SM's current tables */
        for (uint32_t lid = 0; lid < a->nlids; lid++)
            assert_int_equal(sm_lft_current(&m.net, a, s, lid), sm_lft_current(&m2.net, b, s, lid));
    assert_memory_equal(m.net.lft, m2.net.lft,
                        (size_t)m.net.nswitches * m.net.nhosts * sizeof *m.net.lft);
    char *t1 = NULL, *t2 = NULL;
    size_t l1 = 0, l2 = 0;
    FILE *s1 = open_memstream(&t1, &l1), *s2 = open_memstream(&t2, &l2);
    sm_dump_write(&m.net, a, s1);
    sm_dump_write(&m2.net, b, s2);
    fclose(s1);
    fclose(s2);
    assert_int_equal(l1, l2);
    assert_memory_equal(t1, t2, l1);
    assert_non_null(
        strstr(t1, "Unicast lids [0-36] of switch Lid 17 guid 0x0001000000000000 ('edge0'):\n"
                   "0x0001 001 # Channel Adapter portguid 0x0002000000000001: 'h0'\n"));
    free(t1);
    free(t2);
    model_fini(&m2);
    model_fini(&m);
    /* malformed: a port that does not exist */
    f = fopen(path, "w");
    fputs("Unicast lids [0-36] of switch Lid 17 guid 0x0001000000000000 ('edge0'):\n"
          "0x0001 001 # ok\n"
          "0x0002 042 # no such port\n",
          f);
    fclose(f);
    memset(&d, 0, sizeof d);
    assert_int_not_equal(model_build(&m2, &sc2, &d), 0);
    printf("malformed dump: %s:%u:%u: %s\n", d.file, d.line, d.col, d.msg);
    assert_int_equal(d.line, 3);
    assert_int_equal(d.col, 8);
    assert_non_null(strstr(d.msg, "port 42"));
    model_fini(&m2);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smp_counts),       cmocka_unit_test(test_cdg),
        cmocka_unit_test(test_shift_contention), cmocka_unit_test(test_adaptive_vs_ftree),
        cmocka_unit_test(test_ring_deadlock),    cmocka_unit_test(test_reroute_time),
        cmocka_unit_test(test_shield),           cmocka_unit_test(test_dump_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

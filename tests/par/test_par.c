/* tests/par/test_par.c
 *
 * The parallel engine without MPI: the partition keeps a fat tree's pods and
 * a host with its switch on one rank and cuts only the top tier; the engine on
 * one rank (par_comm_self) gives exactly the sequential run (counters, every
 * link's counters, flow times); the keys of link arrivals are the sending
 * node's with the port in the low bits. The N = 2..4 runs against the
 * sequential one are tests/par/check_mpi.sh (mpirun).
 */
#include "coll/coll_int.h"
#include "config/scenario.h"
#include "core/diag.h"
#include "model/model.h"
#include "net/net.h"
#include "par/comm.h"
#include "par/par.h"
#include "model/part.h"
#include "par/pevents.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static const char *FT =
    "name: t\nseed: 7\n"
    "fabric: {kind: roce, flow_control: pfc, routing: ecmp, buffer: 64KiB}\n"
    "topology: {kind: fat_tree, fat_tree: {k: 4}}\n"
    "workload:\n"
    "  - {kind: permutation, pattern: random, size: 128KiB}\n"
    "  - {kind: incast, senders: [h4, h5, h8, h9, h12, h13], receiver: h0, size: 512KiB}\n";

static void load(struct scenario *sc, struct model *m, const char *text) {
    struct diag d = {0};
    assert_int_equal(scenario_load_string(sc, text, "test", NULL, 0, &d), 0);
    assert_int_equal(model_build(m, sc, &d), 0);
}

/* `text` run in one process (a), and built again as one rank of the
 * parallel engine (b: par_comm_self, windows of `window_ps`, 0 = the
 * lookahead), not yet run. */
static void seq_and_one_rank(struct scenario *sc, struct model *a, struct model *b,
                             const char *text, sim_time_ps window_ps) {
    load(sc, a, text);
    model_run(a, NULL, NULL);
    struct diag d = {0};
    assert_int_equal(model_build(b, sc, &d), 0);
    struct comm c; /* par_setup keeps a copy */
    par_comm_self(&c);
    assert_int_equal(par_setup(b, &c, window_ps, &d), 0);
}

static void fini_both(struct scenario *sc, struct model *a, struct model *b) {
    model_fini(a);
    model_fini(b);
    scenario_fini(sc);
}

static void test_partition_fat_tree(void **state) {
    (void)state;
    struct scenario sc;
    struct model m;
    load(&sc, &m, FT);
    const struct net *n = &m.net;
    for (uint32_t R = 2; R <= 4; R++) {
        uint16_t *own = calloc(n->nnodes, sizeof *own);
        part_build(n, R, own);
        uint32_t per[4] = {0}, cut = 0;
        for (uint32_t v = 0; v < n->nnodes; v++) {
            assert_true(own[v] < R);
            per[own[v]]++;
        }
        for (uint32_t p = 0; p < n->nports; p++) {
            const struct port *pt = &n->ports[p];
            if (own[pt->node] == own[pt->peer_node]) continue;
            cut++;
            /* Only links to the core tier are cut: hosts stay with their
             * edge switch, edges with their pod's aggregations. */
            const struct node *a = &n->nodes[pt->node], *b = &n->nodes[pt->peer_node];
            assert_true(a->role == ROLE_CORE || b->role == ROLE_CORE);
        }
        assert_true(cut > 0);
        /* 36 nodes (16 hosts, 8 edge, 8 aggregation, 4 core) in 4 pods of
         * 8 and the cores: every rank has some; pods split evenly on 2 and
         * 4 ranks (9 or 18 nodes each). */
        for (uint32_t r = 0; r < R; r++) {
            assert_true(per[r] > 0);
            if (R != 3) assert_int_equal(per[r], 36 / R);
        }
        free(own);
    }
    model_fini(&m);
    scenario_fini(&sc);
}

static void test_one_rank_is_sequential(void **state) {
    (void)state;
    struct scenario sc;
    struct model a, b;
    seq_and_one_rank(&sc, &a, &b, FT, 0);
    assert_int_equal(par_run(&b), 0);
    assert_true(a.completed && b.completed);
    assert_int_equal(a.sim.now_ps, b.sim.now_ps);
    assert_int_equal(a.sim.events_run, b.sim.events_run);
    assert_int_equal(a.net.done_ps, b.net.done_ps);
    assert_memory_equal(&a.net.c, &b.net.c, sizeof a.net.c);
    assert_true(a.net.c.pause_frames > 0); /* the incast pauses */
    for (uint32_t p = 0; p < a.net.nports; p++) {
        assert_int_equal(a.net.ports[p].tx_packets, b.net.ports[p].tx_packets);
        assert_int_equal(a.net.ports[p].paused_ps, b.net.ports[p].paused_ps);
        assert_true(port_q_area(&a.net.ports[p], a.sim.now_ps) ==
                    port_q_area(&b.net.ports[p], b.sim.now_ps));
    }
    for (uint32_t f = 0; f < a.net.nflows; f++)
        assert_int_equal(a.net.flows[f].end_ps, b.net.flows[f].end_ps);
    assert_int_equal(b.net.par->ncut, 0);
    assert_true(b.net.par->windows >= 1);
    fini_both(&sc, &a, &b);
}

/* A lookahead-free run on one rank: whatever the window, the same results
 * (the windows only bound when ranks talk). */
static void test_one_rank_windows(void **state) {
    (void)state;
    struct scenario sc;
    struct model a, b;
    seq_and_one_rank(&sc, &a, &b, FT, 100000); /* 100 ns windows */
    assert_int_equal(par_run(&b), 0);
    assert_int_equal(a.sim.now_ps, b.sim.now_ps);
    assert_int_equal(a.sim.events_run, b.sim.events_run);
    assert_memory_equal(&a.net.c, &b.net.c, sizeof a.net.c);
    assert_true(b.net.par->windows > 100);
    fini_both(&sc, &a, &b);
}

/* Scenario events' times, a window boundary each, come out in order
 * whatever order they are scheduled in (par/pevents.c). */
static void test_scenario_times(void **state) {
    (void)state;
    struct par P;
    memset(&P, 0, sizeof P);
    assert_true(pev_next(&P) == SIM_TIME_NEVER);
    pev_add(&P, 500);
    pev_add(&P, 100);
    pev_add(&P, 300);
    pev_add(&P, 300);
    assert_int_equal(pev_next(&P), 100);
    pev_pop(&P, 100);
    pev_add(&P, 200); /* scheduled at run time, before the pending ones */
    assert_int_equal(pev_next(&P), 200);
    pev_pop(&P, 200);
    pev_pop(&P, 300);
    pev_pop(&P, 300);
    assert_int_equal(pev_next(&P), 500);
    pev_pop(&P, 500);
    assert_true(pev_next(&P) == SIM_TIME_NEVER);
    free(P.sc.t);
}

/* One rank, no cut link, so no lookahead bounds the windows: the stuck
 * check that starts a window must bound it by its next look (it once ran
 * this run to its 200 ms stop instead of ending it stuck at 11 ms). */
static void test_one_rank_stuck(void **state) {
    (void)state;
    static const char *ST =
        "name: t\nseed: 1\n"
        "fabric: {kind: roce, link: 10Gbps, flow_control: pfc, routing: ecmp, "
        "transport: {timeout: 50us, rto: fixed}}\n"
        "topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 2}\n"
        "stop: 200ms\n"
        "workload:\n  - {kind: permutation, pattern: shift, shift: 3, size: 1MiB}\n"
        "events:\n  - {at: 100us, link_down: h0-leaf0}\n  - {at: 100us, link_down: h5-leaf2}\n";
    struct scenario sc;
    struct model a, b;
    seq_and_one_rank(&sc, &a, &b, ST, 0);
    assert_int_equal(par_run(&b), 0);
    assert_true(a.net.stuck.detected && b.net.stuck.detected);
    assert_int_equal(a.net.stuck.at_ps, 11 * PS_PER_MS);
    assert_int_equal(b.net.stuck.at_ps, a.net.stuck.at_ps);
    assert_int_equal(b.net.stuck.nwaiting, 3);
    assert_int_equal(a.sim.events_run, b.sim.events_run);
    fini_both(&sc, &a, &b);
}

/* Collectives through the parallel engine on one rank (par/pcoll.c: the
 * engine's transitions replayed at every window's end, its posts at least the
 * post overhead later): the same calls, messages and times as one process.
 * SHARP (the tree's runs and aggregation timers), ring with a host reduce
 * rate (the engine's own timers), and a training job (compute timers). */
static const char *COLL =
    "name: c\nseed: 9\n"
    "fabric: {kind: infiniband, flow_control: credit, sharp: true, sharp_latency: 300ns}\n"
    "topology: {kind: fat_tree, fat_tree: {k: 4}}\n"
    "workload:\n"
    "  - {kind: allreduce, size: [64KiB, 512KiB], ranks: [h0, h3, h5, h8, h12, h15], "
    "algorithm: sharp}\n"
    "  - {kind: allreduce, size: 1MiB, ranks: [h1, h2, h6, h9, h13], algorithm: ring, "
    "host_rate: 100Gbps}\n"
    "  - {kind: training, size: 2MiB, iterations: 2, forward: 10us, backward: 30us, "
    "bucket: 1MiB, ranks: [h4, h7, h10, h11, h14]}\n";

static void test_one_rank_collectives(void **state) {
    (void)state;
    struct scenario sc;
    struct model a, b;
    seq_and_one_rank(&sc, &a, &b, COLL, 0);
    /* the least post overhead: LL's 2.7/14 of 1 us */
    assert_int_equal(b.net.par->lookahead_ps, 1000000ull * 27 / 140);
    assert_int_equal(par_run(&b), 0);
    assert_true(a.completed && b.completed);
    assert_int_equal(a.sim.now_ps, b.sim.now_ps);
    assert_int_equal(a.sim.events_run, b.sim.events_run);
    assert_int_equal(a.net.done_ps, b.net.done_ps);
    assert_memory_equal(&a.net.c, &b.net.c, sizeof a.net.c);
    assert_int_equal(a.net.ncoll_rows, 3); /* training iterations are not calls' rows */
    assert_int_equal(a.net.ncoll_rows, b.net.ncoll_rows);
    for (uint32_t i = 0; i < a.net.ncoll_rows; i++) {
        assert_int_equal(a.net.coll_rows[i].start_ps, b.net.coll_rows[i].start_ps);
        assert_int_equal(a.net.coll_rows[i].end_ps, b.net.coll_rows[i].end_ps);
        assert_true(a.net.coll_rows[i].end_ps > a.net.coll_rows[i].start_ps);
    }
    const struct coll_state *ca = a.net.coll_state, *cb = b.net.coll_state;
    assert_int_equal(ca->ntrain, 2);
    assert_int_equal(ca->ntrain, cb->ntrain);
    for (uint32_t i = 0; i < ca->ntrain; i++) {
        assert_int_equal(ca->train[i].end_ps, cb->train[i].end_ps);
        assert_int_equal(ca->train[i].exposed_ps, cb->train[i].exposed_ps);
    }
    /* (message slots are recycled once acknowledged on one rank, issue 13:
     * the calls' and iterations' times above are what their messages gave) */
    for (uint32_t p = 0; p < a.net.nports; p++)
        assert_int_equal(a.net.ports[p].tx_packets, b.net.ports[p].tx_packets);
    assert_true(b.net.par->windows > 10);
    fini_both(&sc, &a, &b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_fat_tree), cmocka_unit_test(test_one_rank_is_sequential),
        cmocka_unit_test(test_one_rank_windows),   cmocka_unit_test(test_scenario_times),
        cmocka_unit_test(test_one_rank_stuck),     cmocka_unit_test(test_one_rank_collectives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Workload generators: M/D/1 queue against the analytic mean (docs/sources.md
 * "Queueing sanity checks"), permutations, determinism. */
#include "testutil.h"

/* Mean number of packets waiting at sw0 -> h0 under Poisson arrivals of
 * fixed-size packets from `senders` hosts at `load` of the link. */
static double md1_ratio(double load, int senders, uint64_t seed) {
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: md1\nseed: %llu\n"
             "fabric: {flow_control: none, buffer: 64MiB, link: 400Gbps}\n"
             "topology: {kind: single_switch, hosts: %d}\n"
             "workload:\n"
             "  - {kind: poisson, load: %g, packet: 4096B, senders: %d, receiver: h0,"
             " duration: 40ms}\n",
             (unsigned long long)seed, senders + 1, load, senders);
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct port *p = &t.m.net.ports[tlink(&t, "sw0->h0")];
    double T = (double)t.m.sim.now_ps;
    double rho = (double)port_busy_ps(p) / T;
    double lq = (double)port_q_area(p, t.m.sim.now_ps) / T /
                4122.0; /* waiting packets: 4096 + 26 B on the wire */
    double md1 = load * load / (2 * (1 - load));
    /* the offered load is what we asked for */
    assert_true(rho > load * 0.97 && rho < load * 1.03);
    trun_end(&t);
    return lq / md1;
}

static void test_md1_64_senders(void **state) {
    (void)state;
    double r5 = md1_ratio(0.5, 64, 1), r8 = md1_ratio(0.8, 64, 1);
    print_message("M/D/1, 64 senders: Lq/analytic = %.3f at 0.5, %.3f at 0.8\n", r5, r8);
    assert_true(r5 > 0.9 && r5 < 1.1);
    assert_true(r8 > 0.9 && r8 < 1.1);
}

/* With 8 senders each NIC's serialisation spaces its own packets, so the
 * superposition is smoother than Poisson and the queue sits below M/D/1. */
static void test_md1_few_senders_below(void **state) {
    (void)state;
    double r = md1_ratio(0.5, 8, 1);
    print_message("M/D/1, 8 senders: Lq/analytic = %.3f at 0.5\n", r);
    assert_true(r > 0.88 && r < 0.985);
}

static const char *PERM = "name: perm\n"
                          "fabric: {flow_control: none, buffer: 16MiB}\n"
                          "topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}\n"
                          "workload:\n"
                          "  - {kind: permutation, pattern: random, size: 256KiB}\n";

static void test_permutation_random_is_derangement(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t, PERM, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    assert_int_equal(n->nflows, 16);
    uint32_t seen[16] = {0};
    for (uint32_t i = 0; i < n->nflows; i++) {
        assert_int_not_equal(n->flows[i].src, n->flows[i].dst);
        seen[n->flows[i].dst]++;
    }
    for (int h = 0; h < 16; h++)
        assert_int_equal(seen[h], 1);
    trun_end(&t);
}

static void test_shift_permutation(void **state) {
    (void)state;
    const char *set[] = {"workload.0.pattern=shift", "workload.0.shift=4"};
    struct trun t;
    trun_start(&t, PERM, set, 2);
    assert_int_equal(t.rc, 0);
    for (uint32_t i = 0; i < t.m.net.nflows; i++)
        assert_int_equal(t.m.net.flows[i].dst, (t.m.net.flows[i].src + 4) % 16);
    trun_end(&t);
}

/* Same seed: byte-identical results.json but wall time. Another seed: a
 * different random permutation. */
static void test_determinism(void **state) {
    (void)state;
    const char *s2[] = {"seed=2"};
    struct trun a, b, c;
    trun_start(&a, PERM, NULL, 0);
    trun_start(&b, PERM, NULL, 0);
    trun_start(&c, PERM, s2, 1);
    char *ja = tresults_json(&a), *jb = tresults_json(&b), *jc = tresults_json(&c);
    assert_string_equal(ja, jb);
    assert_true(strcmp(ja, jc) != 0);
    int differ = 0;
    for (uint32_t i = 0; i < a.m.net.nflows; i++)
        differ += a.m.net.flows[i].dst != c.m.net.flows[i].dst;
    assert_true(differ > 0);
    free(ja);
    free(jb);
    free(jc);
    trun_end(&a);
    trun_end(&b);
    trun_end(&c);
}

static void test_incast_alltoall_counts(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: a2a\nfabric: {flow_control: none, buffer: 16MiB}\n"
               "topology: {kind: single_switch, hosts: 6}\n"
               "workload:\n"
               "  - {kind: alltoall, size: 64KiB}\n"
               "  - {kind: incast, senders: [h1, h2], receiver: h0, size: 128KiB, start: 10us}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    assert_int_equal(n->nflows, 30 + 2);
    assert_int_equal(n->c.bytes_delivered, 30ull * 65536 + 2ull * 131072);
    assert_int_equal(n->flows[30].start_ps, 10000000);
    assert_true(t.m.completed);
    /* the all-to-all is also a collectives row: nccl-tests' per-rank size */
    assert_int_equal(n->ncoll_rows, 1);
    assert_int_equal(n->coll_rows[0].size_bytes, 6 * 65536);
    assert_int_equal(n->coll_rows[0].ranks, 6);
    sim_time_ps last = 0;
    for (uint32_t f = 0; f < 30; f++)
        last = n->flows[f].end_ps > last ? n->flows[f].end_ps : last;
    assert_int_equal(n->coll_rows[0].end_ps, last);
    trun_end(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md1_64_senders),
        cmocka_unit_test(test_md1_few_senders_below),
        cmocka_unit_test(test_permutation_random_is_derangement),
        cmocka_unit_test(test_shift_permutation),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_incast_alltoall_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/workload/test_priority.c
 *
 * The workload entry's `priority:` (Ethernet priority / IB SL) reaches the
 * QPs, and separates tenants: tenant B's incast into a host that stalls at
 * 10 us for 1 ms backs up its traffic class (PFC pauses per priority, credits
 * per VL). Tenant A (h6->h1, h7->h2, 2 MiB each, crossing the same spine ->
 * leaf0 links) is stuck behind it for the whole stall when both share a
 * class, and finishes in about 2 MiB / (400G / 2) ~ 84-100 us (its two flows
 * collide on a spine) when B is on another class.
 */
#include "testutil.h"

#define PS_US 1000000.0

static const char YAML[] =
    "seed: 3\n" /* ECMP puts A and B on the same spines (seed 1 before issue 13's hash) */
    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
    "workload:\n"
    "  - {kind: flows, flows: [{src: h6, dst: h1, size: 2MiB}, {src: h7, dst: h2, size: 2MiB}]}\n"
    "  - {kind: incast, senders: [h3, h4, h5], receiver: h0, size: 4MiB}\n"
    "events: [{at: 10us, host_stall: h0, for: 1ms}]\n";

static const char *const ROCE[] = {"fabric={kind: roce, flow_control: pfc, congestion_control: "
                                   "none, pfc: {watchdog: 0s}}"};
static const char *const IB[] = {"fabric={kind: infiniband, routing: static}"};

/* Tenant A's slower flow FCT in us, with tenant B on priority `pb`. */
static double tenant_a_us(const char *const *fabric, unsigned pb) {
    char prio[40];
    snprintf(prio, sizeof prio, "workload.1.priority=%u", pb);
    const char *sets[] = {fabric[0], prio};
    struct trun t;
    trun_start(&t, YAML, sets, 2);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    /* QPs carry their entry's priority: tenant A's first, then B's */
    uint32_t pb_seen = 0;
    for (uint32_t q = 0; q < n->nqps; q++) {
        bool b = n->qps[q].dst == n->host_node[0] || n->qps[q].src == n->host_node[0];
        assert_int_equal(n->qps[q].prio, b ? pb : 0);
        pb_seen += b;
    }
    assert_int_equal(pb_seen, 3);
    double worst = 0;
    for (uint32_t f = 0; f < 2; f++) {
        assert_int_equal(n->flows[f].src, 6 + f);
        double fct = (double)(n->flows[f].end_ps - n->flows[f].start_ps) / PS_US;
        if (fct > worst) worst = fct;
    }
    trun_end(&t);
    return worst;
}

static void pfc_separates_priorities(void **state) {
    (void)state;
    double shared = tenant_a_us(ROCE, 0), separate = tenant_a_us(ROCE, 1);
    print_message("RoCE/PFC: tenant A %.1f us sharing B's priority, %.1f us on its own\n", shared,
                  separate);
    assert_true(shared > 1000);  /* paused until h0 resumes at 1010 us */
    assert_true(separate < 150); /* ~2 MiB at 200 Gb/s, not paused */
}

static void credits_separate_vls(void **state) {
    (void)state;
    double shared = tenant_a_us(IB, 0), separate = tenant_a_us(IB, 1);
    print_message("IB/credits: tenant A %.1f us sharing B's VL, %.1f us on its own\n", shared,
                  separate);
    assert_true(shared > 1000);
    assert_true(separate < 150);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pfc_separates_priorities),
        cmocka_unit_test(credits_separate_vls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/link/test_link_layer.c
 *
 * The Ultra Ethernet link layer (docs/model.md "Ethernet link layer: CBFC and
 * LLR"): link-level retry hides a bit-error rate from the transport, with as
 * many NACKs as the binomial model of corrupted frames predicts and an FCT of
 * line rate plus the replayed bytes; without it the same run retransmits end
 * to end. CBFC keeps a 16:1 incast lossless with no pause frame, no receive
 * buffer ever above what it advertised, and the bottleneck's rate.
 */
#include "testutil.h"

#include "flowctl/credit.h"
#include "flowctl/credit_core.h"
#include "link/retry.h"
#include "net/net.h"

#include <math.h>

/* One 64 MiB flow h0 -> h1 over leaf0 - spine0 - leaf1 at 400 G; the link
 * leaf0-spine0 has BER 1e-6 in both directions from the start. */
static const char *LOSSY =
    "name: llr\nseed: %u\n"
    "fabric: {kind: roce, link: 400Gbps, mtu: 4096, flow_control: pfc,\n"
    "         congestion_control: none, link_retry: %s}\n"
    "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 1}\n"
    "workload:\n  - kind: flows\n    flows: [{src: h0, dst: h1, size: 64MiB}]\n"
    "events:\n  - {at: 0ns, link_ber: leaf0-spine0, ber: %s}\n";

static void run_lossy(struct trun *t, unsigned seed, const char *retry, const char *ber) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml, LOSSY, seed, retry, ber);
    trun_start(t, yaml, NULL, 0);
    assert_int_equal(t->rc, 0);
    assert_true(t->m.completed);
}

/* The lossy run (seed 1, LLR, BER 1e-6) with one --set override. */
static void run_lossy_set(struct trun *t, const char *set) {
    char yaml[1024];
    snprintf(yaml, sizeof yaml, LOSSY, 1u, "llr", "1e-6");
    const char *sets[] = {set};
    trun_start(t, yaml, sets, 1);
    assert_int_equal(t->rc, 0);
    assert_true(t->m.completed);
}

/* P(a frame of `bytes` on the wire has a bit error) at `ber`. */
static double p_bad(double ber, double bytes) {
    return -expm1(8.0 * bytes * log1p(-ber));
}

static void test_llr_hides_ber(void **state) {
    (void)state;
    struct trun clean, clean_plain, llr, plain;
    run_lossy(&clean, 1, "llr", "0");
    run_lossy(&clean_plain, 1, "none", "0");
    run_lossy(&llr, 1, "llr", "1e-6");
    run_lossy(&plain, 1, "none", "1e-6");
    const struct net_counters *c = &llr.m.net.c;
    const struct net *n = &llr.m.net;
    /* End to end: nothing lost, nothing resent, and LLR never gave up. */
    assert_int_equal(c->retransmitted_packets, 0);
    assert_int_equal(c->packets_dropped, 0);
    assert_int_equal(c->timeouts, 0);
    assert_int_equal(c->llr_unrecovered, 0);
    assert_int_equal(c->llr_ineligible, 0);
    assert_true(c->corrupted > 0);
    /* NACKs = frames found bad while the receiver was not already
     * discarding: each accepted frame came through k >= 0 bad tries first,
     * so NACKs ~ accepted x p / (1 - p) (a geometric count per frame).
     * Data frames: 16384 of 4096 + 82 bytes (the first + 16 B RETH); ACKs
     * back over the same link: 86 bytes each. Bound: 4 standard deviations. */
    uint64_t data = 16384, acks = c->packets_sent - data;
    double pd = p_bad(1e-6, 4178), pa = p_bad(1e-6, 86);
    double expect = data * pd / (1 - pd) + acks * pa / (1 - pa);
    double sd = sqrt(expect);
    printf("  corrupted %llu, NACKs %llu (binomial mean %.1f +- %.1f), replays %llu "
           "(%.2f per NACK), replay bytes %llu\n",
           (unsigned long long)c->corrupted, (unsigned long long)c->llr_nacks, expect, sd,
           (unsigned long long)c->llr_replays, (double)c->llr_replays / (double)c->llr_nacks,
           (unsigned long long)c->llr_replay_bytes);
    assert_true(fabs((double)c->llr_nacks - expect) < 4 * sd);
    /* Per link: only the lossy hop (both directions) NACKs and replays. */
    uint64_t nacks = 0, replays = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        nacks += n->port_fail[p].llr_nacks;
        replays += n->port_fail[p].llr_replays;
    }
    uint32_t fwd = tlink(&llr, "leaf0->spine0"), rev = tlink(&llr, "spine0->leaf0");
    assert_int_equal(nacks, c->llr_nacks);
    assert_int_equal(replays, c->llr_replays);
    assert_int_equal(n->port_fail[fwd].llr_nacks + n->port_fail[rev].llr_nacks, nacks);
    assert_true(n->port_fail[fwd].llr_replays > n->port_fail[rev].llr_replays);
    /* Replays per NACK: the frames the transmitter started between the bad
     * frame's start and the NACK's arrival (its serialisation, the
     * propagation to the receiver's FCS check and back, one 66-bit CtlOS
     * block), the bad one included. */
    uint32_t lp = tlink(&llr, "leaf0->spine0");
    const struct port *pt = &n->ports[lp];
    double ser_ps = 4178.0 * 8 * 1e12 / (double)pt->rate_bps;
    double block_ps = 64.0 * 1e12 / (double)pt->rate_bps;
    double window = (ser_ps + 2.0 * (double)pt->prop_ps + block_ps) / ser_ps;
    double per = (double)c->llr_replays / (double)c->llr_nacks;
    printf("  NACK round trip %.2f frames: %.2f replays per NACK\n", window, per);
    assert_true(per >= ceil(window) - 0.1 && per <= ceil(window) + 0.1);
    /* FCT: the clean run's plus the replayed bytes at line rate (the lossy
     * hop is the bottleneck while it replays), within 1 %. */
    double fct_clean = tflow_fct_ns(&clean, 0), fct = tflow_fct_ns(&llr, 0);
    /* Without errors LLR only acknowledges: the same FCT as without it. */
    assert_true(fct_clean == tflow_fct_ns(&clean_plain, 0));
    double replay_ns = (double)c->llr_replay_bytes * 8 / ((double)pt->rate_bps / 1e9);
    printf("  FCT clean %.1f us, with LLR %.1f us, clean + replays %.1f us; without LLR "
           "%.1f us, %llu end-to-end retransmissions\n",
           fct_clean / 1e3, fct / 1e3, (fct_clean + replay_ns) / 1e3, tflow_fct_ns(&plain, 0) / 1e3,
           (unsigned long long)plain.m.net.c.retransmitted_packets);
    assert_true(fabs(fct - (fct_clean + replay_ns)) < 0.01 * fct);
    /* Without LLR the same losses cost end-to-end retransmissions. */
    assert_true(plain.m.net.c.retransmitted_packets > 0);
    assert_int_equal(plain.m.net.c.llr_replays, 0);
    trun_end(&clean);
    trun_end(&clean_plain);
    trun_end(&llr);
    trun_end(&plain);
}

/* The replay cost scales with the link's round trip: over 100 m (500 ns
 * each way) a NACK comes back after ceil((ser + 2 prop + block) / ser) = 13
 * frames at 400 G, and the FCT grows by about E[NACKs] x 13 frame times
 * (analytic, from the binomial mean: within 10 %). */
static void test_llr_long_cable(void **state) {
    (void)state;
    struct trun clean, llr;
    run_lossy_set(&llr, "fabric.cable=100m");
    char yaml[1024];
    snprintf(yaml, sizeof yaml, LOSSY, 1u, "llr", "0");
    const char *sets[] = {"fabric.cable=100m"};
    trun_start(&clean, yaml, sets, 1);
    assert_int_equal(clean.rc, 0);
    const struct net_counters *c = &llr.m.net.c;
    const struct port *pt = &llr.m.net.ports[tlink(&llr, "leaf0->spine0")];
    double ser_ps = 4178.0 * 8 * 1e12 / (double)pt->rate_bps;
    double window =
        (ser_ps + 2.0 * (double)pt->prop_ps + 64.0 * 1e12 / (double)pt->rate_bps) / ser_ps;
    double per = (double)c->llr_replays / (double)c->llr_nacks;
    double pd = p_bad(1e-6, 4178), nacks = 16384 * pd / (1 - pd);
    double extra_ns = tflow_fct_ns(&llr, 0) - tflow_fct_ns(&clean, 0);
    double expect_ns = nacks * ceil(window) * ser_ps / 1e3;
    printf("  100 m: %.2f replays per NACK (window %.2f frames), FCT +%.1f us (analytic %.1f "
           "us), retransmissions %llu\n",
           per, window, extra_ns / 1e3, expect_ns / 1e3,
           (unsigned long long)c->retransmitted_packets);
    assert_int_equal(c->retransmitted_packets, 0);
    assert_int_equal(c->llr_ineligible + c->llr_unrecovered, 0);
    assert_true(per >= ceil(window) - 0.15 && per <= ceil(window) + 0.15);
    assert_true(fabs(extra_ns - expect_ns) < 0.10 * expect_ns);
    trun_end(&clean);
    trun_end(&llr);
}

/* Same seed, same bytes; another seed, other losses. */
static void test_llr_deterministic(void **state) {
    (void)state;
    struct trun a, b, c;
    run_lossy(&a, 7, "llr", "1e-6");
    run_lossy(&b, 7, "llr", "1e-6");
    run_lossy(&c, 8, "llr", "1e-6");
    char *ja = tresults_json(&a), *jb = tresults_json(&b), *jc = tresults_json(&c);
    assert_string_equal(ja, jb);
    assert_true(strcmp(ja, jc) != 0);
    assert_non_null(strstr(ja, "\"llr_replays\""));
    free(ja);
    free(jb);
    free(jc);
    trun_end(&a);
    trun_end(&b);
    trun_end(&c);
}

/* A replay buffer too small for the link's round trip sends frames
 * unprotected; those that are corrupted are lost end to end (and counted). */
static void test_llr_small_buffer_unprotected(void **state) {
    (void)state;
    struct trun t;
    run_lossy_set(&t, "fabric.llr.replay_buffer=8KiB");
    const struct net_counters *c = &t.m.net.c;
    printf("  unprotected %llu, unrecovered %llu, end-to-end retransmissions %llu\n",
           (unsigned long long)c->llr_ineligible, (unsigned long long)c->llr_unrecovered,
           (unsigned long long)c->retransmitted_packets);
    assert_true(c->llr_ineligible > 0);
    assert_true(c->llr_unrecovered > 0);
    assert_true(c->retransmitted_packets > 0);
    assert_true(t.m.completed);
    trun_end(&t);
}

/* LLR's own limit: with max_replays 1 a frame bad twice in a row is given
 * up (p^2 x 16384 ~ 18 of them at BER 1e-6) and the transport resends it. */
static void test_llr_gives_up(void **state) {
    (void)state;
    struct trun t;
    run_lossy_set(&t, "fabric.llr.max_replays=1");
    const struct net_counters *c = &t.m.net.c;
    double p = p_bad(1e-6, 4178), expect = 16384 * p * p;
    printf("  unrecovered %llu (expected ~%.1f), end-to-end retransmissions %llu\n",
           (unsigned long long)c->llr_unrecovered, expect,
           (unsigned long long)c->retransmitted_packets);
    assert_true(c->llr_unrecovered > 0 && c->llr_unrecovered < 4 * expect);
    assert_true(c->retransmitted_packets > 0);
    assert_true(t.m.completed);
    trun_end(&t);
}

/* A link cut is beyond LLR: what it held for the link is lost with what was
 * on the wire (drops), the transport resends it, the link starts over when
 * it comes back and the run ends with nothing in flight. */
static void test_llr_link_down(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: down\nseed: 1\n"
               "fabric: {kind: roce, flow_control: pfc, congestion_control: none, link_retry: llr, "
               "ber: 1e-6}\n"
               "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
               "stop: 1s\n"
               "workload:\n  - kind: flows\n"
               "    flows: [{src: h0, dst: h2, size: 16MiB}, {src: h1, dst: h3, size: 16MiB}]\n"
               "events:\n  - {at: 50us, link_down: leaf0-spine1}\n"
               "  - {at: 100us, link_up: leaf0-spine1}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net_counters *c = &t.m.net.c;
    printf("  dropped %llu, retransmitted %llu, NACKs %llu, in flight at the end %llu\n",
           (unsigned long long)c->packets_dropped, (unsigned long long)c->retransmitted_packets,
           (unsigned long long)c->llr_nacks, (unsigned long long)t.m.net.pkts_in_flight);
    assert_true(t.m.completed);
    assert_true(c->packets_dropped > 0 && c->retransmitted_packets > 0);
    assert_int_equal(t.m.net.pkts_in_flight, 0);
    assert_int_equal(c->llr_unrecovered, 0);
    trun_end(&t);
}

/* 16 senders on 4 leaves to one receiver, 4 MiB each, CBFC, no CC. */
static const char *INCAST =
    "name: cbfc\nseed: 1\n"
    "fabric: {kind: roce, link: 400Gbps, mtu: 4096, flow_control: %s, "
    "congestion_control: none}\n"
    "topology: {kind: leaf_spine, leaves: 5, spines: 4, hosts_per_leaf: 4}\n"
    "workload:\n  - {kind: incast, senders: 16, receiver: h0, size: 4MiB}\n";

static void test_cbfc_incast_lossless(void **state) {
    (void)state;
    struct trun t;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, INCAST, "cbfc");
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    assert_int_equal(n->c.packets_dropped, 0);
    assert_int_equal(n->c.pause_frames, 0);
    assert_int_equal(n->c.retransmitted_packets, 0);
    assert_true(n->c.credit_frames > 0);
    /* No receive buffer ever held more than it advertised, and the credit
     * conservation law holds at the end. */
    uint64_t worst = 0;
    for (uint32_t p = 0; p < n->nports; p++) {
        uint32_t unit = 0, cap = credit_capacity(n, p, &unit);
        assert_true(cap > 0);
        for (uint32_t c = 0; c < NET_NCLASS; c++) {
            int64_t m = credit_occupancy_max(n, p, c);
            assert_true(m <= (int64_t)cap);
            if ((uint64_t)m * unit > worst) worst = (uint64_t)m * unit;
        }
    }
    char why[256];
    assert_int_equal(credit_check_invariant(&t.m.net, why, sizeof why), 0);
    /* Throughput: 64 MiB of payload through the receiver's 400 G link, whose
     * payload rate is 400 G x 4096 / 4178 (wire overhead 82 B). */
    sim_time_ps first = SIM_TIME_NEVER, last = 0;
    for (uint32_t f = 0; f < n->nflows; f++) {
        if (n->flows[f].start_ps < first) first = n->flows[f].start_ps;
        if (n->flows[f].end_ps > last) last = n->flows[f].end_ps;
    }
    double gbps = 16.0 * 4 * 1048576 * 8 / ((double)(last - first) / 1e3);
    double line = 400.0 * 4096 / 4178;
    printf("  credit updates %llu, worst receive buffer %llu B, incast %.1f Gb/s of %.1f "
           "payload line rate\n",
           (unsigned long long)n->c.credit_frames, (unsigned long long)worst, gbps, line);
    assert_true(gbps > 0.98 * line && gbps <= 1.001 * line);
    trun_end(&t);
}

/* Credits close a loop of buffers as PFC's pauses do: on a 5-switch ring
 * with shortest paths, every host sending 2 hops clockwise, each switch's
 * clockwise egress waits for credits from the next one (lab lossless/11
 * with CBFC). The detector finds the 5-link cycle; nothing pauses. */
static void test_cbfc_ring_deadlocks(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t,
               "name: ring\nseed: 1\n"
               "fabric: {kind: roce, flow_control: cbfc, congestion_control: none, routing: ecmp, "
               "buffer: 128KiB}\n"
               "topology: {kind: ring, ring: {switches: 5, hosts_per_switch: 1}}\n"
               "stop: 2s\n"
               "workload:\n  - {kind: permutation, pattern: shift, shift: 2, size: 2MiB}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    printf("  deadlock %d at %.0f ns, cycle of %u links, pause frames %llu\n", n->deadlock.detected,
           n->deadlock.at_ps / 1e3, n->deadlock.ncycle, (unsigned long long)n->c.pause_frames);
    assert_true(n->deadlock.detected);
    assert_int_equal(n->deadlock.ncycle, 5);
    assert_int_equal(n->c.pause_frames, 0);
    assert_false(t.m.completed);
    trun_end(&t);
}

/* Bad input: CBFC and LLR are Ethernet options; cbfc: settings need cbfc. */
static void expect_error(const char *yaml, const char *needle, unsigned line) {
    struct scenario sc;
    struct diag d = {0};
    int rc = scenario_load_string(&sc, yaml, "bad.yaml", NULL, 0, &d);
    assert_true(rc != 0);
    printf("  bad.yaml:%u:%u: %s\n", d.line, d.col, d.msg);
    assert_non_null(strstr(d.msg, needle));
    assert_int_equal(d.line, line);
    assert_true(d.col > 0);
}

static void test_bad_input(void **state) {
    (void)state;
    expect_error("name: x\nfabric:\n  kind: infiniband\n  flow_control: cbfc\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "use credit", 4);
    /* IB's credits on an Ethernet kind: refused, not silently run (the
     * three-fabric compare of one file with --set fabric.kind) */
    expect_error("name: x\nfabric:\n  kind: roce\n  flow_control: credit\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "InfiniBand's link-level flow control", 4);
    expect_error("name: x\nfabric:\n  kind: infiniband\n  flow_control: pfc\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "allows credit or none", 4);
    /* a retired key names its replacement */
    expect_error("name: x\nfabric:\n  kind: infiniband\n  credit_batch: 4\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "use credit_interval", 4);
    expect_error("name: x\nfabric:\n  kind: infiniband\n  link_retry: llr\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "link_retry: none", 4);
    expect_error("name: x\nfabric:\n  kind: roce\n  flow_control: cbfc\n"
                 "  cbfc: {class_buffer: 2KiB}\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "cannot hold one frame", 5);
    expect_error("name: x\nfabric:\n  kind: roce\n  link_retry: lrr\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "llr", 4);
    expect_error("name: x\nfabric:\n  kind: roce\n  llr: {max_replays: 0}\n  link_retry: llr\n"
                 "topology: {kind: leaf_spine, leaves: 1, spines: 1, hosts_per_leaf: 2}\n"
                 "workload:\n  - {kind: incast, senders: 1, receiver: h0, size: 1MiB}\n",
                 "max_replays", 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llr_hides_ber),
        cmocka_unit_test(test_llr_long_cable),
        cmocka_unit_test(test_llr_deterministic),
        cmocka_unit_test(test_llr_small_buffer_unprotected),
        cmocka_unit_test(test_llr_gives_up),
        cmocka_unit_test(test_llr_link_down),
        cmocka_unit_test(test_cbfc_incast_lossless),
        cmocka_unit_test(test_cbfc_ring_deadlocks),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/uet/test_uet.c
 *
 * Ultra Ethernet (fabric.kind uet): trimming with a NAK and a fast
 * retransmission (no timeout, FCT at the analytic value), NSCC's four cases
 * driven by crafted ACKs and the window moving as the law says (cc/nscc.c),
 * RCCC capping a 16:1 incast's last-hop queue, a sprayed permutation on a
 * fat tree at line rate, determinism, and bad input.
 */
#include "testutil.h"

#include "cc/cc.h"
#include "core/time.h"
#include "net/net.h"
#include "net/packet.h"

#include <math.h>

/* Payload plus wire overhead of `bytes` in MTU packets (RETH on each
 * message's first), serialised at `bps`: the analytic transfer time. */
static double wire_ns(uint64_t bytes, uint32_t mtu, uint64_t bps) {
    uint64_t pkts = (bytes + mtu - 1) / mtu;
    return (double)(bytes + pkts * 82 + 16) * 8e9 / (double)bps;
}

static uint64_t max_queue(const struct trun *t, const char *link) {
    return t->m.net.ports[tlink(t, link)].q_max;
}

/* 1. Trimming: a 2:1 incast through a switch whose queue trims beyond
 * 8 packets. Every trim is NAKed and resent once; no timeout fires; the
 * receiver's link stays busy, so the last byte arrives at the analytic
 * time of both flows' bytes (+ one RTT of slack). */
static void test_trim_nak_fast_retransmit(void **state) {
    (void)state;
    const char *y = "name: trim\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 64KiB,\n"
                    "         congestion_control: none, uet: {trim_threshold: 32KiB}}\n"
                    "topology: {kind: single_switch, hosts: 3}\n"
                    "workload:\n  - {kind: incast, senders: [h1, h2], receiver: h0, size: 1MiB}\n";
    struct trun t;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    assert_true(t.m.completed);
    print_message("trims %llu naks %llu retx %llu timeouts %llu drops %llu\n",
                  (unsigned long long)n->c.trimmed, (unsigned long long)n->c.trim_naks,
                  (unsigned long long)n->c.retransmitted_packets, (unsigned long long)n->c.timeouts,
                  (unsigned long long)n->c.packets_dropped);
    assert_true(n->c.trimmed > 10);
    assert_int_equal(n->c.timeouts, 0);
    assert_int_equal(n->c.packets_dropped, 0);
    assert_int_equal(n->c.trim_naks, n->c.trimmed);
    assert_int_equal(n->c.retransmitted_packets, n->c.trimmed);
    double ideal = wire_ns(2u << 20, 4096, 400000000000ull);
    double fct = fmax(tflow_fct_ns(&t, 0), tflow_fct_ns(&t, 1));
    print_message("last FCT %.0f ns, analytic %.0f ns\n", fct, ideal);
    assert_true(fct >= ideal);
    assert_true(fct < ideal * 1.05); /* trimmed headers and NAKs cost ~2 % */
    trun_end(&t);
}

/* Sprayed packets are trimmed at different hops (leaf uplinks, spine
 * downlinks) and their NAKs come back in any PSN order, up to a window's
 * worth per QP while NSCC holds the resends: a 4:1 oversubscribed
 * leaf-spine, a 1 MiB permutation with a 64 KiB buffer. Every NAKed PSN is
 * resent once and nothing else is (the reference simulator's _rtx_queue,
 * uec.cpp processNack: docs/sources.md U4), so no timer fires. The NIC's
 * ring of 64 NAKed ranges, merged into its newest when full, lost the NAKs
 * below that range: 28 timeouts, 6,072 resends beyond the NAKs (go back N
 * from the oldest), the last flow done at 222 us instead of 120 us. */
static void test_sprayed_naks_each_resent_once(void **state) {
    (void)state;
    const char *y =
        "name: nakorder\nseed: 1\n"
        "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 64KiB, propagation: 1us}\n"
        "topology: {kind: leaf_spine, leaves: 8, spines: 4, hosts_per_leaf: 16}\n"
        "workload:\n  - {kind: permutation, pattern: random, size: 1MiB}\n";
    struct trun t;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    print_message("trims %llu naks %llu resends %llu timeouts %llu done %.0f ns\n",
                  (unsigned long long)n->c.trimmed, (unsigned long long)n->c.trim_naks,
                  (unsigned long long)n->c.retransmitted_packets, (unsigned long long)n->c.timeouts,
                  (double)n->done_ps / 1000.0);
    assert_true(n->c.trimmed > 10000);
    assert_int_equal(n->c.trim_naks, n->c.trimmed);
    assert_int_equal(n->c.timeouts, 0);
    assert_int_equal(n->c.retransmitted_packets, n->c.trim_naks);
    assert_true(n->done_ps < 150000000ull); /* 4:1: 7/8 x 16 MiB over 4 uplinks is 73 us */
    trun_end(&t);
}

/* RCCC alone on a 16:1 leaf-spine: the receivers grant at their line rate,
 * the one uplink of each leaf trims, and a packet is trimmed 8 times on
 * average, each time NAKed and resent. The retransmission timer waits for
 * the oldest packet from its last sending (per-packet timers: htsim
 * startRTO from the oldest outstanding send time), so it never fires: no
 * packet is lost. A QP timer kept from the last cumulative ACK fired 135
 * times on packets still being resent and went back N (282,050 resends for
 * 269,423 NAKs, done at 761 us instead of 419 us). */
static void test_repeated_trims_no_timeout(void **state) {
    (void)state;
    const char *y =
        "name: rtxtimer\nseed: 1\n"
        "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 64KiB, propagation: 1us,\n"
        "         congestion_control: rccc}\n"
        "topology: {kind: leaf_spine, leaves: 4, spines: 1, hosts_per_leaf: 16}\n"
        "workload:\n  - {kind: permutation, pattern: random, size: 1MiB}\n";
    struct trun t;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    uint64_t pkts = 64 * 256; /* 64 flows of 256 packets */
    print_message(
        "trims %llu (%.1f per packet) naks %llu resends %llu timeouts %llu done %.0f ns\n",
        (unsigned long long)n->c.trimmed, (double)n->c.trimmed / (double)pkts,
        (unsigned long long)n->c.trim_naks, (unsigned long long)n->c.retransmitted_packets,
        (unsigned long long)n->c.timeouts, (double)n->done_ps / 1000.0);
    assert_true(n->c.trimmed > 4 * pkts);
    assert_int_equal(n->c.trim_naks, n->c.trimmed);
    assert_int_equal(n->c.timeouts, 0);
    assert_int_equal(n->c.retransmitted_packets, n->c.trim_naks);
    trun_end(&t);
}

/* Without trimming the same incast tail-drops and waits for the 100 us
 * retransmission timer: what trimming is for. */
static void test_no_trim_needs_timeouts(void **state) {
    (void)state;
    const char *y = "name: notrim\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 32KiB,\n"
                    "         congestion_control: none, uet: {trimming: false}}\n"
                    "topology: {kind: single_switch, hosts: 3}\n"
                    "workload:\n  - {kind: incast, senders: [h1, h2], receiver: h0, size: 1MiB}\n";
    struct trun t;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    assert_int_equal(t.m.net.c.trimmed, 0);
    assert_true(t.m.net.c.packets_dropped > 0);
    assert_true(t.m.net.c.timeouts > 0);
    trun_end(&t);
}

/* 2. NSCC's law, one crafted ACK at a time on a QP of a built (not run)
 * model: base RTT 12 us and target 10 us given, so that the constants are
 * the reference's scaled by a = BDP / 150 kB. */
struct law {
    struct trun t;
    struct net *n;
    uint32_t qp;
    double maxwnd, mss, wire, a, b, target, rtt, eta;
};

static void law_init(struct law *L) {
    const char *y = "name: law\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096,\n"
                    "         nscc: {base_rtt: 12us, target_qdelay: 10us, quick_adapt: false}}\n"
                    "topology: {kind: single_switch, hosts: 2}\n"
                    "workload:\n  - {kind: flows, flows: [{src: h0, dst: h1, size: 4KiB}]}\n";
    trun_build(&L->t, y, NULL, 0);
    assert_int_equal(L->t.rc, 0);
    L->n = &L->t.m.net;
    L->qp = net_qp_new(L->n, L->n->host_node[0], L->n->host_node[1], 0);
    uint64_t rtt, target;
    nscc_derived(L->n, &rtt, &target, &L->maxwnd);
    assert_int_equal(rtt, 12000000);
    assert_int_equal(target, 10000000);
    L->rtt = (double)rtt;
    L->target = (double)target;
    L->mss = 4096;
    L->wire = 4096 + 82;
    L->a = (L->maxwnd / 1.5) / 150000.0; /* 400 Gb/s x 12 us = 600 kB: a = 4 */
    L->b = L->target / 12e6;
    L->eta = 0.15 * L->mss * L->a;
    assert_true(fabs(L->a - 4.0) < 1e-9);
    assert_true(fabs(nscc_cwnd_bytes(L->n, L->qp) - L->maxwnd) < 1e-6); /* starts at MaxWnd */
}

/* An ACK of one full packet whose RTT is base + delay_ps, at time now_ps. */
static void law_ack(struct law *L, uint64_t now_ps, uint64_t delay_ps, bool ce) {
    struct packet p;
    memset(&p, 0, sizeof p);
    p.type = PKT_ACK;
    p.qp = L->qp;
    p.aux = 0;
    p.psn = 0;
    p.sent_ps = now_ps - (uint64_t)L->rtt - delay_ps;
    p.payload_bytes = PKT_ACK_ECHO(0, (uint32_t)L->wire);
    p.flags = ce ? PKT_F_ECN_CE : 0;
    L->n->sim->now_ps = now_ps;
    L->n->cc->on_feedback(L->n, L->qp, &p);
}

static void test_nscc_four_cases(void **state) {
    (void)state;
    struct law L;
    law_init(&L);
    struct net *n = L.n;
    uint32_t qp = L.qp;
    /* Case 3, multiplicative decrease: CE and a delay of 100 x target. One
     * sample moves avg_delay to 0.0125 x 100 x target = 1.25 x target, so
     * cwnd x= 1 - 0.8 x 0.25 / 1.25 = 0.84; the first RTT has passed, so
     * the fulfilment adds eta. */
    uint64_t t0 = 13000000; /* past one base RTT */
    law_ack(&L, t0, 1000000000ull, true);
    double w = nscc_cwnd_bytes(n, qp), want = L.maxwnd * 0.84 + L.eta;
    print_message("MD: %.1f -> %.1f (law %.1f)\n", L.maxwnd, w, want);
    assert_int_equal(nscc_cases(n, qp, NSCC_MD), 1);
    assert_true(fabs(w - want) < 1e-6 * want);
    /* Case 4, CE at a low delay: the window stays (the path moves). */
    law_ack(&L, t0 + 1000, 2000000, true);
    assert_int_equal(nscc_cases(n, qp, NSCC_SWITCH), 1);
    assert_true(fabs(nscc_cwnd_bytes(n, qp) - w) < 1e-9);
    /* Case 2, proportional increase: no CE, delay 2 us < target (>= 1 us,
     * no fast increase): inc += alpha x wire x (target - 2 us), alpha = 4 x
     * mss x a x b / target. The increases are applied (cwnd += inc / cwnd)
     * once more than 8 MTUs were acknowledged since the last application:
     * the case-4 ACK and 8 of these; the 9th waits. Still within one RTT of
     * the last eta: none now. */
    double alpha = 4.0 * L.mss * L.a * L.b / L.target, pi = alpha * L.wire * (L.target - 2e6);
    for (int i = 0; i < 9; i++)
        law_ack(&L, t0 + 2000 + (uint64_t)i, 2000000, false);
    double w2 = nscc_cwnd_bytes(n, qp);
    print_message("PI: %.3f -> %.3f (law %.3f)\n", w, w2, w + 8 * pi / w);
    assert_int_equal(nscc_cases(n, qp, NSCC_PROP), 9);
    assert_true(fabs(w2 - (w + 8 * pi / w)) < 1e-6 * w2);
    assert_true(w2 > w);
    /* Case 1, fair increase: no CE, delay 20 us >= target: inc += fi x
     * wire, fi = 5 x mss x a; applied with the 9th PI's term after 8 of them. */
    double fi = 5.0 * L.mss * L.a;
    for (int i = 0; i < 9; i++)
        law_ack(&L, t0 + 3000 + (uint64_t)i, 20000000, false);
    double w3 = nscc_cwnd_bytes(n, qp), want3 = w2 + (pi + 8 * fi * L.wire) / w2;
    print_message("FI: %.3f -> %.3f (law %.3f)\n", w2, w3, want3);
    assert_int_equal(nscc_cases(n, qp, NSCC_FAIR), 9);
    assert_true(fabs(w3 - want3) < 1e-6 * w3);
    /* A NAK of a trimmed packet takes its bytes off the window. */
    struct packet k;
    memset(&k, 0, sizeof k);
    k.type = PKT_NAK;
    k.flags = PKT_F_TRIMMED;
    k.psn = 1;
    k.payload_bytes = PKT_ACK_ECHO(0, (uint32_t)L.wire);
    n->cc->on_feedback(n, qp, &k);
    assert_true(fabs(nscc_cwnd_bytes(n, qp) - (w3 - L.wire)) < 1e-6 * w3);
    trun_end(&L.t);
}

/* ...and the cases occur in a run: an incast sees ECN with delay (MD), the
 * trims' NAKs, and the increases while queues are short. */
static void test_nscc_cases_in_incast(void **state) {
    (void)state;
    const char *y = "name: ncases\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 512KiB}\n"
                    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
                    "workload:\n  - {kind: incast, senders: 6, receiver: h0, size: 2MiB}\n";
    struct trun t;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    uint64_t c[NSCC_NCASES] = {0};
    for (uint32_t q = 0; q < t.m.net.nqps; q++)
        for (int k = 0; k < NSCC_NCASES; k++)
            c[k] += nscc_cases(&t.m.net, q, k);
    print_message("fair %llu prop %llu md %llu switch %llu fast %llu qa %llu nak %llu\n",
                  (unsigned long long)c[0], (unsigned long long)c[1], (unsigned long long)c[2],
                  (unsigned long long)c[3], (unsigned long long)c[4], (unsigned long long)c[5],
                  (unsigned long long)c[6]);
    assert_true(c[NSCC_MD] > 0);
    assert_true(c[NSCC_PROP] + c[NSCC_FAIR] > 0);
    assert_int_equal(t.m.net.c.timeouts, 0);
    trun_end(&t);
}

/* 3. RCCC: a 16:1 incast of 2 MiB each, no trimming and a deep buffer, so
 * that the last-hop queue shows what the senders put in flight. Without CC
 * it holds nearly all 32 MiB less what drained; with RCCC the receiver's
 * grants, paced at its link rate, cap it at the speculative first windows
 * (16 x MaxWnd at most). */
static void test_rccc_caps_incast(void **state) {
    (void)state;
    const char *y = "name: rccc\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 64MiB,\n"
                    "         uet: {trimming: false}}\n"
                    "topology: {kind: single_switch, hosts: 17}\n"
                    "workload:\n  - {kind: incast, senders: 16, receiver: h0, size: 2MiB}\n";
    const char *none[] = {"fabric.congestion_control=none"};
    const char *rccc[] = {"fabric.congestion_control=rccc"};
    struct trun a, b;
    trun_start(&a, y, none, 1);
    trun_start(&b, y, rccc, 1);
    assert_int_equal(a.rc, 0);
    assert_int_equal(b.rc, 0);
    assert_true(a.m.completed && b.m.completed);
    uint64_t qa = max_queue(&a, "sw0->h0"), qb = max_queue(&b, "sw0->h0");
    double maxwnd;
    nscc_derived(&b.m.net, NULL, NULL, &maxwnd);
    print_message("16:1 peak queue: none %llu B, rccc %llu B (16 x MaxWnd = %.0f B), grants %llu\n",
                  (unsigned long long)qa, (unsigned long long)qb, 16 * maxwnd,
                  (unsigned long long)b.m.net.c.credit_grants);
    assert_true(qa > 25u << 20);
    assert_true((double)qb <= 16 * maxwnd);
    assert_true(qb * 5 < qa);
    assert_true(b.m.net.c.credit_grants > 0);
    /* and the receiver's link stays full: RCCC finishes as fast */
    double ideal = wire_ns(32u << 20, 4096, 400000000000ull);
    double end = (double)b.m.net.done_ps / 1000.0;
    print_message("rccc done %.0f ns, analytic %.0f ns\n", end, ideal);
    assert_true(end < ideal * 1.05);
    trun_end(&a);
    trun_end(&b);
}

/* 4. A random permutation of 1 MiB flows on a k = 4 fat tree: sprayed
 * (RUD, per-packet entropy) every flow finishes within 20 % of the line-rate
 * time plus the unloaded RTT (per-packet hashing still collides for a
 * moment at the aggregation and core: queues, not persistent imbalance);
 * with one path per flow (ROD, as ECMP) collisions last the whole flow. */
static void test_spray_permutation_line_rate(void **state) {
    (void)state;
    const char *y = "name: perm\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 512KiB}\n"
                    "topology: {kind: fat_tree, k: 4}\n"
                    "workload:\n  - {kind: permutation, pattern: random, size: 1MiB}\n";
    const char *rod[] = {"fabric.uet.delivery=rod"};
    struct trun t, r;
    trun_start(&t, y, NULL, 0);
    trun_start(&r, y, rod, 1);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed && r.m.completed);
    uint64_t rtt;
    nscc_derived(&t.m.net, &rtt, NULL, NULL);
    double ideal = wire_ns(1u << 20, 4096, 400000000000ull) + (double)rtt / 1000.0;
    double worst = 0, worst_rod = 0;
    for (uint32_t f = 0; f < t.m.net.nflows; f++) {
        worst = fmax(worst, tflow_fct_ns(&t, f));
        worst_rod = fmax(worst_rod, tflow_fct_ns(&r, f));
    }
    print_message("permutation max FCT: spray %.0f ns, rod %.0f ns, line rate %.0f ns; entropy "
                  "changes %llu\n",
                  worst, worst_rod, ideal, (unsigned long long)t.m.net.c.entropy_changes);
    assert_true(worst < 1.2 * ideal);
    assert_true(worst_rod > 1.5 * ideal);
    assert_true(worst_rod > worst);
    trun_end(&t);
    trun_end(&r);
}

/* A leaf-spine link down from the start: other leaves keep hashing packets
 * for leaf0 onto spine0, which has no route to it, until BGP withdraws
 * (2.1 ms here). The senders' timers fire once; every unSACKed packet's EV
 * gets the largest penalty (both directions: replies take their data's EV),
 * and the flows finish within about one timeout instead of waiting for BGP. */
static void test_failed_link_moves_entropy(void **state) {
    (void)state;
    const char *y = "name: fail\nseed: 1\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 512KiB}\n"
                    "topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 8}\n"
                    "workload:\n  - {kind: permutation, pattern: random, size: 1MiB}\n"
                    "events:\n  - {at: 0ns, link_down: leaf0-spine0}\n";
    struct trun t;
    trun_start(&t, y, NULL, 0);
    assert_int_equal(t.rc, 0);
    assert_true(t.m.completed);
    const struct net *n = &t.m.net;
    double worst = 0;
    for (uint32_t f = 0; f < n->nflows; f++)
        worst = fmax(worst, tflow_fct_ns(&t, f));
    print_message(
        "failed link: max FCT %.0f ns, timeouts %llu, drops %llu, entropy changes %llu, "
        "BGP rerouted at %.0f ns\n",
        worst, (unsigned long long)n->c.timeouts, (unsigned long long)n->c.packets_dropped,
        (unsigned long long)n->c.entropy_changes, (double)n->cp_rows[0].rerouted_ps / 1000.0);
    assert_true(n->c.packets_dropped > 0);
    assert_true(n->c.timeouts > 0);
    assert_true(worst < 250000.0); /* ~ line rate + one 100 us timeout */
    assert_true((double)n->cp_rows[0].rerouted_ps / 1000.0 > 4 * worst); /* not BGP's doing */
    trun_end(&t);
}

/* 5. Same seed, same results.json. */
static void test_deterministic(void **state) {
    (void)state;
    const char *y = "name: det\nseed: 7\n"
                    "fabric: {kind: uet, link: 400Gbps, mtu: 4096, buffer: 256KiB,\n"
                    "         congestion_control: nscc+rccc}\n"
                    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
                    "workload:\n  - {kind: incast, senders: 6, receiver: h0, size: 1MiB}\n"
                    "  - {kind: permutation, pattern: random, size: 256KiB}\n";
    struct trun a, b;
    trun_start(&a, y, NULL, 0);
    trun_start(&b, y, NULL, 0);
    char *ja = tresults_json(&a), *jb = tresults_json(&b);
    assert_string_equal(ja, jb);
    assert_non_null(strstr(ja, "\"fabric\": \"uet\""));
    assert_non_null(strstr(ja, "\"trims\""));
    free(ja);
    free(jb);
    trun_end(&a);
    trun_end(&b);
}

/* 6. Bad input: file:line:col and what is allowed. */
static void expect_error(const char *y, unsigned line, const char *what) {
    struct scenario sc;
    struct diag d = {0};
    memset(&sc, 0, sizeof sc);
    int rc = scenario_load_string(&sc, y, "bad.yaml", NULL, 0, &d);
    print_message("%u:%u %s\n", d.line, d.col, d.msg);
    assert_true(rc < 0);
    assert_int_equal(d.line, line);
    assert_true(d.col > 0);
    assert_non_null(strstr(d.msg, what));
    scenario_fini(&sc);
}

static void test_bad_input(void **state) {
    (void)state;
    expect_error("name: b\nfabric:\n  kind: roce\n  congestion_control: nscc\n", 4,
                 "needs fabric.kind: uet");
    expect_error("name: b\nfabric:\n  kind: uet\n  uet: {entropies: 3}\n", 4, "power of 2");
    expect_error("name: b\nfabric:\n  kind: uet\n  uet: {delivery: fast}\n", 4, "rud");
    expect_error("name: b\nfabric:\n  kind: roce\n  uet: {trimming: true}\n", 4, "uet");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trim_nak_fast_retransmit),
        cmocka_unit_test(test_sprayed_naks_each_resent_once),
        cmocka_unit_test(test_repeated_trims_no_timeout),
        cmocka_unit_test(test_no_trim_needs_timeouts),
        cmocka_unit_test(test_nscc_four_cases),
        cmocka_unit_test(test_nscc_cases_in_incast),
        cmocka_unit_test(test_rccc_caps_incast),
        cmocka_unit_test(test_spray_permutation_line_rate),
        cmocka_unit_test(test_failed_link_moves_entropy),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* tests/roce/test_shared_buffer.c
 *
 * Shared-buffer switches (docs/sources.md A3, docs/model.md "Switch buffers"): one
 * pool per switch, each ingress priority group pausing at alpha x the pool's
 * free bytes (alpha 1/8), headroom reserved per port. An incast fills the
 * pool further before the first PAUSE than static per-port thresholds with
 * the same total, and the threshold shrinks as the pool fills.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "roce_common.h"

#include "flowctl/flowctl.h"
#include "net/nic.h"

#include <stdio.h>

struct absorb {
    uint64_t at_pause_bytes; /* bytes waiting in the switch when the first PAUSE left */
    uint64_t thr_start, thr_at_pause, thr_min;
    uint64_t pauses, drops;
    sim_time_ps first_pause_ps, done_ps;
};

/* One switch, 8 hosts, 1 MiB per port (8 MiB in all); h1..h7 send 4 MiB each
 * to h0 with PFC and no end-to-end CC. */
static struct absorb incast(enum buffer_sharing sharing, enum flowctl_kind fc) {
    struct scenario sc;
    roce_scenario(&sc);
    sc.topo.hosts = 8;
    sc.fabric.buffer_sharing = sharing;
    sc.fabric.flow_control = fc;
    sc.stop_ps = 20 * PS_PER_MS;
    struct wl_entry w;
    uint32_t senders[7];
    roce_incast(&sc, &w, senders, 7, 4 * 1024 * KIB);
    struct model m;
    struct diag d = {0};
    assert_int_equal(model_build(&m, &sc, &d), 0);
    struct net *n = &m.net;
    uint32_t sw = net_node_by_name(n, "sw0");
    uint32_t in1 = n->ports[nic_port(n, n->host_node[1])].peer; /* sw0's port from h1 */
    struct absorb a = {0};
    a.thr_start = a.thr_min = pfc_xoff_bytes(n, in1);
    for (sim_time_ps t = 100 * PS_PER_NS; t <= sc.stop_ps; t += 100 * PS_PER_NS) {
        m.sim.stop_ps = t;
        sim_run(&m.sim, NULL, NULL, 1u << 24);
        uint64_t thr = pfc_xoff_bytes(n, in1);
        if (thr < a.thr_min) a.thr_min = thr;
        if (!a.first_pause_ps && n->c.first_pause_ps) {
            a.first_pause_ps = n->c.first_pause_ps;
            a.thr_at_pause = thr;
            for (uint32_t i = 0; i < n->nodes[sw].nports; i++)
                a.at_pause_bytes += n->ports[n->nodes[sw].first_port + i].q_bytes;
        }
        if (n->work_pending == 0) break;
    }
    a.pauses = n->c.pause_frames;
    a.drops = n->c.packets_dropped;
    a.done_ps = n->done_ps;
    printf("  %s buffer: first PAUSE at %.2f us with %.0f KB queued; XOFF %.0f KB at start, "
           "%.0f KB at the pause, min %.0f KB; pauses %llu, drops %llu, done %.1f us\n",
           sharing == BUFFER_SHARED ? "shared" : "static", a.first_pause_ps / 1e6,
           a.at_pause_bytes / 1e3, a.thr_start / 1e3, a.thr_at_pause / 1e3, a.thr_min / 1e3,
           (unsigned long long)a.pauses, (unsigned long long)a.drops, a.done_ps / 1e6);
    model_fini(&m);
    return a;
}

static void test_shared_absorbs_more(void **state) {
    (void)state;
    struct absorb st = incast(BUFFER_STATIC, FLOWCTL_PFC);
    struct absorb sh = incast(BUFFER_SHARED, FLOWCTL_PFC);
    assert_true(st.first_pause_ps > 0 && sh.first_pause_ps > 0);
    /* Static: each of the 7 ingress groups pauses at XOFF 200 KiB, so the
     * first PAUSE goes out with about 7 x 200 KiB queued. Shared: the pool
     * (8 MiB less 8 headrooms) is split by alpha 1/8 among 7 groups growing
     * together, x = pool / (8 + 7) each: about twice as much. */
    assert_true(st.at_pause_bytes < 7 * 230 * KIB);
    assert_true(sh.at_pause_bytes > 2 * st.at_pause_bytes);
    assert_true(sh.first_pause_ps > st.first_pause_ps);
    /* The static threshold is constant; the shared one starts at alpha x
     * the whole pool and shrinks as the pool fills. */
    assert_true(st.thr_start == st.thr_at_pause && st.thr_min == st.thr_start);
    assert_true(sh.thr_at_pause < sh.thr_start * 6 / 10);
    assert_true(sh.thr_start > 800 * KIB);
    assert_int_equal(st.drops, 0);
    assert_int_equal(sh.drops, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_absorbs_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* links.csv written by hand-formatting (model/sampler.c) is byte for byte
 * what the printf it replaced wrote: every busy time 0..span over spans that
 * make exact ties for "%.4f" (1/32 = 0.03125 prints 0.0312, ties to even),
 * u clamped at 1, integers at 0 and UINT32_MAX, a partial last interval. */
#include "testutil.h"

#include "core/mem.h"
#include "model/sampler.h"

#include <stdlib.h>
#include <string.h>

static char *reference(const struct sampler *sp, const struct net *n, size_t *len) {
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    fprintf(f, "time_ns,link,bytes,utilization,queue_bytes,paused_ns\n");
    char name[64];
    double iv_ns = (double)sp->interval_ps / 1000.0;
    for (uint32_t i = 0; i < sp->n; i++) {
        const struct sample *row = &sp->rows[(size_t)i * sp->nports];
        double t_ns = iv_ns * (i + 1), span_ns = iv_ns;
        if (i + 1 == sp->n && sp->last_ps < sp->interval_ps * (uint64_t)(i + 1)) {
            t_ns = (double)sp->last_ps / 1000.0;
            span_ns = t_ns - iv_ns * i;
        }
        for (uint32_t p = 0; p < sp->nports; p++) {
            net_port_name(n, p, name, sizeof name);
            double u = span_ns > 0 ? row[p].busy_ns / span_ns : 0.0;
            if (u > 1.0) u = 1.0;
            fprintf(f, "%.0f,%s,%u,%.4f,%u,%u\n", t_ns, name, row[p].bytes, u, row[p].q_bytes,
                    row[p].paused_ns);
        }
    }
    fclose(f);
    return out;
}

static void check_interval(struct trun *t, sim_time_ps interval_ps, uint32_t nrows,
                           sim_time_ps last_ps) {
    struct net *n = &t->m.net;
    struct sampler sp;
    sampler_init(&sp, n, interval_ps);
    uint32_t P = sp.nports;
    free(sp.rows);
    sp.rows = fs_xcalloc((size_t)nrows * P, sizeof *sp.rows);
    sp.n = sp.cap = nrows;
    sp.last_ps = last_ps;
    uint32_t busy = 0, span_ns = (uint32_t)(interval_ps / 1000);
    for (uint32_t i = 0; i < nrows * P; i++) {
        struct sample *s = &sp.rows[i];
        s->busy_ns = busy;
        busy = busy >= span_ns + 3 ? 0 : busy + 1; /* 0 .. past the span (clamped) */
        s->bytes = i % 7 == 0 ? UINT32_MAX : i * 2654435761u;
        s->q_bytes = i % 5 == 0 ? 0 : i * 40503u;
        s->paused_ns = i % 3 == 0 ? 0 : i;
    }
    char *got = NULL;
    size_t got_len = 0, want_len = 0;
    FILE *f = open_memstream(&got, &got_len);
    assert_int_equal(sampler_write_csv(&sp, n, f), 0);
    fclose(f);
    char *want = reference(&sp, n, &want_len);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got, want, want_len);
    free(got);
    free(want);
    sampler_fini(&sp);
}

static void test_links_csv_matches_printf(void **state) {
    (void)state;
    struct trun t;
    trun_start(&t, "name: csv\nfabric: {flow_control: none}\ntopology: {kind: fat_tree, k: 4}\n",
               NULL, 0);
    assert_int_equal(t.rc, 0);
    /* 32 ns spans: busy 1 ns = 0.03125 (a tie), 3 ns = 0.09375 (a tie) */
    check_interval(&t, 32000, 40, 40 * 32000);
    check_interval(&t, 32000, 5, 4 * 32000 + 17000); /* partial last interval */
    check_interval(&t, 1000000, 8, 8 * 1000000);     /* 1 us: every u = k/1000 */
    check_interval(&t, 3000, 600, 600 * 3000);       /* thirds: non-terminating */
    trun_end(&t);
}

/* paused_ns per row is the blocked time inside that interval: a pause or
 * credit stall that spans many samples is spread over them (before, the whole
 * pause landed in the interval where it ended or was refreshed: 45.8 us in a
 * 32 us row on the RoCE incast), and a link's rows sum to its results.json
 * paused_ns + credit_stall_ns. One class is paused here, so a row can hold at
 * most its interval. */
static void check_paused_rows(const char *fabric) {
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: paused\nfabric: {%s, link: 100Gbps}\n"
             "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
             "output: {sample: 1us}\n"
             "workload:\n  - {kind: incast, senders: 7, receiver: h0, size: 1MiB}\n",
             fabric);
    struct trun t;
    trun_start(&t, yaml, NULL, 0);
    assert_int_equal(t.rc, 0);
    const struct net *n = &t.m.net;
    const struct sampler *sp = n->sampler;
    assert_int_equal(sp->interval_ps, 1000000);
    uint64_t blocked_ns = 0, rows_busy = 0;
    for (uint32_t p = 0; p < sp->nports; p++) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < sp->n; i++) {
            uint32_t v = sp->rows[(size_t)i * sp->nports + p].paused_ns;
            assert_true(v <= 1000); /* at most the 1 us interval */
            rows_busy += v > 0;
            sum += v;
        }
        const struct port *pt = &n->ports[p];
        assert_int_equal(sum, (pt->paused_ps + pt->credit_stall_ps) / 1000);
        blocked_ns += sum;
    }
    assert_true(blocked_ns > 100000); /* the incast does block: > 100 us in all */
    assert_true(rows_busy > 100);
    trun_end(&t);
}

static void test_paused_rows_within_interval(void **state) {
    (void)state;
    check_paused_rows("kind: roce, congestion_control: none");
    check_paused_rows("kind: infiniband");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links_csv_matches_printf),
        cmocka_unit_test(test_paused_rows_within_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

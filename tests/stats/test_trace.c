/* tests/stats/test_trace.c
 *
 * The Chrome trace sink on a small RoCEv2 run with an incast (PFC pauses), a
 * link failure and BGP reconvergence, with the pcap sink attached at the same
 * time (fan-out). The file must be one valid JSON document (python3's json
 * module reads it) whose events match the model: the link_down instant at the
 * scenario's `at`, the reconvergence span ending when BGP converged, one
 * flow slice per flow lasting its results.json FCT, and per port the PFC
 * pause slices adding up to the port's paused time. Same run twice: the same
 * bytes; a cap of 10 events: still valid JSON, 10 events, the rest counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "config/scenario.h"
#include "core/diag.h"
#include "model/model.h"
#include "net/net.h"
#include "stats/ctrace.h"
#include "stats/pcap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const SCENARIO =
    "name: trace-test\n"
    "seed: 1\n"
    "fabric: {kind: roce, flow_control: pfc, routing: ecmp,\n"
    "         control_plane: {kind: bgp, detect: 20us},\n"
    /* the failure's losses recover by a fixed fast RTO (docs/model.md) */
    "         transport: {timeout: 100us, rto: fixed}}\n"
    "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
    "workload:\n"
    "  - {kind: incast, senders: 6, receiver: h0, size: 512KiB}\n"
    "events:\n"
    "  - {at: 3us, link_down: leaf1-spine0}\n";

#define AT_PS 3000000ULL

/* Flattens a trace to "ph cat pid tid ts_ps dur_ps id name|link" lines
 * after a line "events-but-arrows dropped arrows" (flow arrows "s"/"f" are
 * counted, not listed: tests/stats/check_trace_flows.sh checks them);
 * exits non-zero when the file is not one JSON document. */
static const char *const FLATTEN =
    "import json,sys\n"
    "d=json.load(open(sys.argv[1]))\n"
    "o=open(sys.argv[2],'w')\n"
    "a=sum(1 for e in d['traceEvents'] if e['ph'] in 'sf')\n"
    "o.write('%d %d %d\\n'%(d['otherData']['events']-a,d['otherData']['dropped_events'],a))\n"
    "for e in d['traceEvents']:\n"
    "  if e['ph'] not in 'XiC': continue\n"
    "  a=e.get('args',{})\n"
    "  ps=lambda v: int(round(float(v)*1e6))\n"
    "  o.write('%s %s %d %d %d %d %d %s\\n'%(e['ph'],e.get('cat','-'),e['pid'],e['tid'],"
    "ps(e['ts']),ps(e.get('dur',0)),a.get('id',-1),a.get('link',e['name']).replace(' ','_')))\n";

struct fixture {
    struct scenario sc;
    char dir[64];
};

static int setup(void **state) {
    struct fixture *fx = calloc(1, sizeof *fx);
    struct diag d = {0};
    if (scenario_load_string(&fx->sc, SCENARIO, "trace.yaml", NULL, 0, &d)) {
        diag_print(&d, stderr);
        free(fx);
        return -1;
    }
    snprintf(fx->dir, sizeof fx->dir, "/tmp/fabsim-trace-XXXXXX");
    if (!mkdtemp(fx->dir)) return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state) {
    struct fixture *fx = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", fx->dir);
    scenario_fini(&fx->sc);
    free(fx);
    return 0;
}

/* Runs the scenario with the trace (and a pcap) into `path`. */
static void run(struct fixture *fx, struct model *m, const char *path, uint64_t max_events,
                uint64_t *pcap_packets) {
    struct diag d = {0};
    assert_int_equal(model_build(m, &fx->sc, &d), 0);
    char pp[128];
    snprintf(pp, sizeof pp, "%s/run.pcap", fx->dir);
    struct pcap_sink pc;
    struct ctrace_sink ct;
    assert_int_equal(pcap_sink_open(&pc, &m->net, pp, NULL, 0, 0, PCAP_SNAP_HEADERS, &d), 0);
    assert_int_equal(ctrace_sink_open(&ct, &m->net, path, max_events, &d), 0);
    model_run(m, NULL, NULL);
    assert_int_equal(ctrace_sink_close(&ct, &m->net), 0);
    pcap_sink_close(&pc, &m->net);
    assert_null(m->net.trace);
    if (pcap_packets) *pcap_packets = pc.written;
}

/* Validates `path` as JSON and flattens it into `flat`. */
static void flatten(const struct fixture *fx, const char *path, char *flat, size_t len) {
    char py[128], cmd[512];
    snprintf(py, sizeof py, "%s/flatten.py", fx->dir);
    snprintf(flat, len, "%s.txt", path);
    FILE *f = fopen(py, "w");
    assert_non_null(f);
    fputs(FLATTEN, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 '%s' '%s' '%s'", py, path, flat);
    assert_int_equal(system(cmd), 0);
}

struct line {
    char ph[4], cat[32], name[64];
    unsigned pid, tid;
    unsigned long long ts, dur;
    long long id;
};

static int next_line(FILE *f, struct line *l) {
    return fscanf(f, "%3s %31s %u %u %llu %llu %lld %63s", l->ph, l->cat, &l->pid, &l->tid, &l->ts,
                  &l->dur, &l->id, l->name) == 8;
}

static void test_trace_events(void **state) {
    struct fixture *fx = *state;
    if (system("python3 -c 'import json' 2>/dev/null")) skip();
    struct model m;
    char path[128], flat[160];
    snprintf(path, sizeof path, "%s/trace.json", fx->dir);
    uint64_t pkts = 0;
    run(fx, &m, path, 0, &pkts);
    const struct net *n = &m.net;
    assert_true(pkts > 1000); /* the pcap sink saw the packets too */
    assert_true(n->c.pause_frames > 0);
    assert_int_equal(n->ncp_rows, 1);
    assert_true(n->cp_rows[0].rerouted_ps != SIM_TIME_NEVER);
    flatten(fx, path, flat, sizeof flat);

    FILE *f = fopen(flat, "r");
    assert_non_null(f);
    unsigned long long events, dropped, arrows;
    assert_int_equal(fscanf(f, "%llu %llu %llu", &events, &dropped, &arrows), 3);
    assert_int_equal(dropped, 0);
    assert_true(arrows > 0 && arrows % 2 == 0); /* a send->receive arrow per message */
    uint64_t *paused = calloc(n->nports, sizeof *paused);
    uint32_t *flow_seen = calloc(n->nflows, sizeof *flow_seen);
    uint32_t link_down = 0, reconv = 0, pauses = 0, counters = 0, total = 0;
    struct line l;
    while (next_line(f, &l)) {
        total++;
        if (!strcmp(l.ph, "i") && !strcmp(l.cat, "link")) {
            /* both directions of leaf1-spine0, at the scenario's `at` */
            assert_int_equal(l.ts, AT_PS);
            assert_true(!strcmp(l.name, "leaf1->spine0") || !strcmp(l.name, "spine0->leaf1"));
            link_down++;
        } else if (!strcmp(l.cat, "control_plane")) {
            assert_int_equal(l.ts, AT_PS);
            assert_int_equal(l.ts + l.dur, n->cp_rows[0].rerouted_ps);
            reconv++;
        } else if (!strcmp(l.cat, "flow")) {
            assert_true(l.id >= 0 && (uint64_t)l.id < n->nflows);
            const struct flow_row *fr = &n->flows[l.id];
            assert_int_equal(fr->msgs_left, 0);
            assert_int_equal(l.ts, fr->start_ps);
            assert_int_equal(l.dur, fr->end_ps - fr->start_ps); /* results.json fct_ns */
            assert_int_equal(l.pid, n->host_node[fr->src] + 1);
            flow_seen[l.id]++;
        } else if (!strcmp(l.cat, "pfc")) {
            /* tid = 1 + port x (classes + 1) + class; pid = the port's node + 1 */
            uint32_t port = (l.tid - 1) / (NET_NCLASS + 1);
            assert_true(port < n->nports);
            assert_int_equal(l.pid, n->ports[port].node + 1);
            paused[port] += l.dur;
            pauses++;
        } else if (!strcmp(l.ph, "C")) {
            counters++;
        }
    }
    fclose(f);
    assert_int_equal(total, events);
    assert_int_equal(link_down, 2);
    assert_int_equal(reconv, 1);
    assert_true(pauses > 0);
    assert_true(counters > 0);
    for (uint32_t i = 0; i < n->nflows; i++)
        assert_int_equal(flow_seen[i], 1);
    /* every pause slice, summed per port, is the port's paused time */
    for (uint32_t p = 0; p < n->nports; p++)
        assert_int_equal(paused[p], n->ports[p].paused_ps);
    printf("trace: %llu events, %u PFC pauses, %u flows, reconvergence %.3f us\n", events, pauses,
           n->nflows, (double)(n->cp_rows[0].rerouted_ps - AT_PS) / 1e6);
    free(paused);
    free(flow_seen);
    model_fini(&m);
}

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)sz + 1);
    assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
    fclose(f);
    *len = (size_t)sz;
    return b;
}

static void test_trace_deterministic(void **state) {
    struct fixture *fx = *state;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/a.json", fx->dir);
    snprintf(b, sizeof b, "%s/b.json", fx->dir);
    struct model m;
    run(fx, &m, a, 0, NULL);
    model_fini(&m);
    run(fx, &m, b, 0, NULL);
    model_fini(&m);
    size_t la, lb;
    char *x = slurp(a, &la), *y = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

static void test_trace_cap(void **state) {
    struct fixture *fx = *state;
    if (system("python3 -c 'import json' 2>/dev/null")) skip();
    char path[128], flat[160];
    snprintf(path, sizeof path, "%s/cap.json", fx->dir);
    struct model m;
    run(fx, &m, path, 10, NULL);
    model_fini(&m);
    flatten(fx, path, flat, sizeof flat);
    FILE *f = fopen(flat, "r");
    assert_non_null(f);
    unsigned long long events, dropped, arrows;
    assert_int_equal(fscanf(f, "%llu %llu %llu", &events, &dropped, &arrows), 3);
    assert_int_equal(arrows, 0); /* the cap is reached before the end's arrows */
    struct line l;
    uint32_t total = 0;
    while (next_line(f, &l))
        total++;
    fclose(f);
    assert_int_equal(events, 10);
    assert_int_equal(total, 10);
    assert_true(dropped > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trace_events, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_cap, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

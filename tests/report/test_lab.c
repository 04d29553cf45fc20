/* tests/report/test_lab.c
 *
 * lab.yaml (report/lab.c) and its expressions (report/expr.c): a lab written
 * in a temporary folder is parsed and evaluated over hand-made results; its
 * findings quote the numbers, its verdict follows the rule (holds, holds with
 * a nuance, does not hold here, not decided when a run is missing); every
 * malformed lab.yaml is an error with file:line:col naming what is wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/diag.h"
#include "report/expr.h"
#include "report/jread.h"
#include "report/lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[256];

static void write_lab(const char *text) {
    snprintf(path, sizeof path, "/tmp/fabsim-test-lab-%d.yaml", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Two fake runs: "a" (lossless: 0 drops, done at 100 us, flow h1->h2 in
 * 50 us) and "b" (lossy: 7 drops, done at 300 us, a flow never finished). */
static const char *res_a =
    "{\"summary\":{\"completed\":true,\"done_ns\":100000,\"sim_time_ns\":120000,"
    "\"packets_dropped\":0,\"deadlock\":{\"detected\":false}},"
    "\"links\":[{\"name\":\"h0->leaf0\",\"from\":\"h0\",\"to\":\"leaf0\",\"tier\":\"host-leaf\","
    "\"bytes\":1000},{\"name\":\"h1->leaf1\",\"from\":\"h1\",\"to\":\"leaf1\",\"tier\":"
    "\"host-leaf\",\"bytes\":1000},{\"name\":\"leaf0->spine0\",\"from\":\"leaf0\",\"to\":"
    "\"spine0\",\"tier\":\"leaf-spine\",\"bytes\":2000},{\"name\":\"leaf0->spine1\",\"from\":"
    "\"leaf0\",\"to\":\"spine1\",\"tier\":\"leaf-spine\",\"bytes\":0}],"
    "\"flows\":[{\"src\":\"h1\",\"dst\":\"h2\",\"fct_ns\":50000}],"
    "\"control_plane\":[{\"at_ns\":1000,\"rerouted_at_ns\":null,\"packets_lost\":4}]}";
static const char *res_b =
    "{\"summary\":{\"completed\":false,\"done_ns\":-1,\"sim_time_ns\":300000,"
    "\"packets_dropped\":7,\"deadlock\":{\"detected\":true}},\"links\":[],"
    "\"flows\":[{\"src\":\"h1\",\"dst\":\"h2\",\"fct_ns\":null}]}";

struct runs {
    struct jv *a, *b;
    bool b_missing;
};

static const struct jv *find(void *ctx, const char *id, const char **status) {
    struct runs *r = ctx;
    *status = "ok";
    if (!strcmp(id, "a")) return r->a;
    if (!strcmp(id, "b") && !r->b_missing) return r->b;
    *status = !strcmp(id, "b") ? "not_available" : NULL;
    return NULL;
}

static const char *lab_text =
    "title: A lab written in a test\n"
    "claim: \"Drops are architecturally impossible.\"\n"
    "metrics:\n"
    "  a_drops: {run: a, value: summary.packets_dropped, unit: drops}\n"
    "  b_drops: {run: b, value: summary.packets_dropped, unit: drops}\n"
    "  a_us: {run: a, value: done_us(), unit: us}\n"
    "  b_us: {run: b, value: done_us(), unit: us, missing: not finished}\n"
    "  fct: {run: a, value: 'fct_us(\"h1\", \"h2\")', unit: us}\n"
    "  fct_b: {run: b, value: 'fct_us(\"h2\")', unit: us, inf: never}\n"
    "  dead: {run: b, value: summary.deadlock.detected, yes: deadlock, no: fine}\n"
    "  lost: {run: a, value: cp(\"packets_lost\")}\n"
    "  offered: {run: a, value: offered_max_pct(), unit: \"%\"}\n"
    "  unused: {run: a, value: spine_unused_pct(), unit: \"%\"}\n"
    "  ratio: {value: (b_drops + 1) / (a_drops + 1), unit: x}\n"
    "findings:\n"
    "  - {title: Drops, text: \"a {a_drops} in {a_us}; b {b_drops}, {b_us}; {dead}\"}\n"
    "verdict:\n"
    "  holds: \"a_drops == 0 && b_drops > a_drops\"\n"
    "  nuance: \"ratio > 100\"\n"
    "  says: {holds: \"a {a_drops}\", nuance: \"x{ratio}\", not: \"a dropped {a_drops}\"}\n"
    "charts:\n"
    "  - {type: counters, runs: [\"*\"], metrics: {drops: summary.packets_dropped}}\n";

static void test_lab_evaluates_from_numbers(void **state) {
    (void)state;
    write_lab(lab_text);
    struct lab_def L;
    struct diag d = {0};
    int rc = lab_load(&L, path, &d);
    if (rc) diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    char err[128];
    struct runs r = {jread_parse(res_a, err, sizeof err), jread_parse(res_b, err, sizeof err),
                     false};
    assert_non_null(r.a);
    assert_non_null(r.b);
    char *ids[] = {"a", "b"};
    assert_int_equal(lab_check_runs(&L, ids, 2, &d), 0);
    assert_int_not_equal(lab_check_runs(&L, ids, 1, &d), 0);

    struct lab_eval ev;
    lab_eval(&L, find, &r, &ev);
    assert_true(ev.values[0] == 0 && ev.values[1] == 7);
    assert_true(fabs(ev.values[2] - 100) < 1e-9);
    assert_true(isnan(ev.values[3])); /* not completed */
    assert_true(fabs(ev.values[4] - 50) < 1e-9);
    assert_true(isinf(ev.values[5])); /* null fct: never finished */
    assert_true(ev.values[6] == 1);
    assert_true(ev.values[7] == 4);
    assert_true(ev.values[8] == 200); /* 2000 B on a link of 1000 B flows */
    assert_true(ev.values[9] == 50);  /* one of two spine links empty */
    assert_true(ev.values[10] == 8);
    assert_string_equal(ev.findings[0], "a 0 drops in 100 us; b 7 drops, not finished; deadlock");
    assert_false(ev.available[0]); /* b_us has no value */
    assert_int_equal(ev.verdict, LAB_HOLDS);
    assert_string_equal(ev.verdict_text, "a 0 drops");
    lab_eval_fini(&L, &ev);

    /* The same rule over other numbers: a drops too -> does not hold. */
    jread_free(r.a);
    char *a2 = strdup(res_a);
    memcpy(strstr(a2, "\"packets_dropped\":0") + 18, "9", 1);
    r.a = jread_parse(a2, err, sizeof err);
    free(a2);
    lab_eval(&L, find, &r, &ev);
    assert_int_equal(ev.verdict, LAB_NOT);
    assert_string_equal(ev.verdict_text, "a dropped 9 drops");
    lab_eval_fini(&L, &ev);

    /* b not available: not decided, and the rule's missing metric is named;
     * but a rule already false without b's numbers is decided (false && x). */
    r.b_missing = true;
    lab_eval(&L, find, &r, &ev);
    assert_int_equal(ev.verdict, LAB_NOT);
    lab_eval_fini(&L, &ev);
    jread_free(r.a);
    r.a = jread_parse(res_a, err, sizeof err);
    lab_eval(&L, find, &r, &ev);
    assert_int_equal(ev.verdict, LAB_UNDECIDED);
    assert_non_null(strstr(ev.verdict_text, "b_drops (not yet available)"));
    assert_non_null(strstr(ev.findings[0], "b not yet available"));
    lab_eval_fini(&L, &ev);

    jread_free(r.a);
    jread_free(r.b);
    lab_fini(&L);
    unlink(path);
}

/* Each broken lab.yaml: the error's line:col and a phrase of its message. */
static void test_lab_errors(void **state) {
    (void)state;
    static const struct {
        const char *text;
        unsigned line, col;
        const char *msg;
    } cases[] = {
        {"title: t\nclaim: c\nmetrics: {}\nfindings: []\nverdict: {holds: \"1\", says: {holds: h, "
         "not: n}}\ncolour: red\n",
         6, 1, "unknown key 'colour'"},
        {"title: t\nclaim: c\nmetrics:\n  x: {run: a, value: \"summary.drops +\"}\n", 4, 38,
         "expression ends too early"},
        {"title: t\nclaim: c\nmetrics:\n  x: {run: a, value: \"nosuch(1)\"}\n", 4, 23,
         "unknown function 'nosuch'"},
        {"title: t\nclaim: c\nmetrics:\n  x: {value: \"y + 1\"}\n", 4, 15, "'y' is not a metric"},
        {"title: t\nclaim: c\nmetrics: {x: {run: a, value: \"1\"}}\nfindings:\n  - {title: f, "
         "text: \"{z}\"}\nverdict: {holds: \"x\", says: {holds: h, not: n}}\n",
         5, 23, "{z} is not a metric"},
        {"title: t\nclaim: c\nmetrics: {x: {run: a, value: \"1\"}}\nfindings: []\nverdict: "
         "{holds: \"x > \", says: {holds: h, not: n}}\n",
         5, 23, "verdict: holds"},
        {"title: t\nclaim: c\nmetrics: {x: {run: a, value: \"1\"}}\nfindings: []\nverdict: "
         "{holds: \"x\", says: {holds: h, not: n}}\ncharts:\n  - {type: pie}\n",
         7, 12, "unknown type 'pie'"},
        {"title: t\nmetrics: {}\n", 1, 1, "needs `claim:`"},
        {"title: t\nclaim: c\nmetrics: {}\nfindings: []\nverdict: {holds: \"1\", says: {holds: h, "
         "not: n}}\nreadings:\n  - {id: a, set: [fabric.buffer=1MiB]}\n",
         7, 5, "needs `id:`, `set:`"},
        {"title: t\nclaim: c\nmetrics: {}\nfindings: []\nverdict: {holds: \"1\", says: {holds: h, "
         "not: n}}\nreadings:\n  - {id: a, set: [fabric.buffer], why: w}\n",
         7, 19, "is not KEY=VALUE"},
        {"title: t\nclaim: c\nmetrics: {}\nfindings: []\nverdict: {holds: \"1\", says: {holds: h, "
         "not: n}}\nreadings:\n  - {id: ../x, set: [a=1], why: w}\n",
         7, 10, "names a folder"},
        {"title: t\nclaim: c\nmetrics: {}\nfindings: []\nverdict: {holds: \"1\", says: {holds: h, "
         "not: n}}\nreadings:\n  - {id: a, set: [a=1], why: w}\n  - {id: a, set: [b=2], why: w}\n",
         8, 10, "given twice"},
        {"title: [t\n", 0, 0, "YAML"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_lab(cases[i].text);
        struct lab_def L;
        struct diag d = {0};
        int rc = lab_load(&L, path, &d);
        lab_fini(&L);
        char buf[1200];
        diag_format(&d, buf, sizeof buf);
        if (rc == 0 || !strstr(buf, cases[i].msg) ||
            (cases[i].line && (d.line != cases[i].line || d.col != cases[i].col)))
            fail_msg("case %zu: rc %d, got '%s' (want %u:%u '%s')", i, rc, buf, cases[i].line,
                     cases[i].col, cases[i].msg);
        assert_non_null(strstr(buf, path));
    }
    unlink(path);
}

static void test_expr_rules(void **state) {
    (void)state;
    struct expr e;
    char err[256];
    unsigned col;
    double m[3] = {2, NAN, 0};
    assert_int_equal(expr_parse(&e, "a * 3 >= 6 && !(c) || b", EXPR_CTX_LAB, &col, err, sizeof err),
                     0);
    e.n[0].metric = 0; /* a */
    for (size_t i = 0; i < e.len; i++)
        if (e.n[i].op == EXPR_NAME) e.n[i].metric = e.n[i].text[0] - 'a';
    /* true || NaN is true; true && NaN is NaN. */
    assert_true(expr_eval_lab(&e, m) == 1);
    expr_fini(&e);
    assert_int_equal(expr_parse(&e, "a && b", EXPR_CTX_LAB, &col, err, sizeof err), 0);
    for (size_t i = 0; i < e.len; i++)
        if (e.n[i].op == EXPR_NAME) e.n[i].metric = e.n[i].text[0] - 'a';
    assert_true(isnan(expr_eval_lab(&e, m)));
    expr_fini(&e);
    assert_int_equal(expr_parse(&e, "(1 + 2", EXPR_CTX_LAB, &col, err, sizeof err), FS_EINVAL);
    assert_int_equal(col, 6);
    assert_int_equal(expr_parse(&e, "done_us()", EXPR_CTX_LAB, &col, err, sizeof err), FS_EINVAL);
    assert_non_null(strstr(err, "min(A, B)")); /* lab context lists its own functions */
    assert_int_equal(expr_parse(&e, "fct_us()", EXPR_CTX_RUN, &col, err, sizeof err), FS_EINVAL);
    assert_non_null(strstr(err, "wrong number of arguments"));
}

/* Sub-claims (lab.yaml `claims:`): the subnet_manager lab's four failure
 * classes, each rule fed numbers on both sides of it. The lab's verdict is
 * derived from the claims' (all hold: holds; none: does not hold; else a
 * nuance); rules that are both true are "not decided", never one of them. */
static struct lab_eval ev;
static void set_m(const struct lab_def *L, const char *name, double v) {
    for (size_t i = 0; i < L->nm; i++)
        if (!strcmp(L->m[i].name, name)) {
            ev.values[i] = v;
            return;
        }
    fail_msg("no metric %s", name);
}
/* The four seeds' runs of one metric of the ultra_ethernet lab (NAME_1..4). */
static void seeds_m(const struct lab_def *L, const char *name, double a, double b, double c,
                    double e) {
    const double v[4] = {a, b, c, e};
    char n[64];
    for (int k = 0; k < 4; k++) {
        snprintf(n, sizeof n, "%s_%d", name, k + 1);
        set_m(L, n, v[k]);
    }
}
static enum lab_sub decide(const struct lab_def *L, const char *id) {
    for (size_t i = 0; i < L->nm; i++) /* derived metrics, in order, as lab_eval does */
        if (!L->m[i].run) ev.values[i] = expr_eval_lab(&L->m[i].e, ev.values);
    lab_decide(L, &ev);
    for (size_t i = 0; i < L->nclaims; i++)
        if (!strcmp(L->claims[i].id, id)) return ev.sub[i];
    fail_msg("no claim %s", id);
    return LAB_SUB_UNDECIDED;
}

static void test_claims_per_class(void **state) {
    (void)state;
    struct lab_def L;
    struct diag d = {0};
    char buf[600];
    int rc = lab_load(&L, "scenarios/labs/subnet_manager/lab.yaml", &d);
    diag_format(&d, buf, sizeof buf);
    if (rc) fail_msg("%s", buf);
    assert_int_equal(L.nclaims, 4);
    memset(&ev, 0, sizeof ev);
    ev.values = calloc(L.nm + 1, sizeof *ev.values);
    ev.why = calloc(L.nm + 1, sizeof *ev.why);
    for (size_t i = 0; i < L.nm; i++)
        ev.values[i] = NAN;
    assert_int_equal(decide(&L, "port-down"), LAB_SUB_UNDECIDED); /* no numbers yet */
    assert_int_equal(ev.verdict, LAB_UNDECIDED);
    /* port-down as measured: SM 41.9 ms, SHIELD 10 us, prune 100 us */
    set_m(&L, "pd_ib_sm_re", 41900), set_m(&L, "pd_ib_shield_re", 10);
    set_m(&L, "pd_ib_ar_re", 10), set_m(&L, "pd_roce_re", 100);
    set_m(&L, "pd_ib_sm_stall", 4.3), set_m(&L, "pd_ib_shield_stall", 0);
    set_m(&L, "pd_ib_ar_stall", 4.3), set_m(&L, "pd_roce_stall", 0);
    assert_int_equal(decide(&L, "port-down"), LAB_SUB_CONDITIONS);
    set_m(&L, "pd_roce_re", 5); /* a prune faster than SHIELD */
    assert_int_equal(decide(&L, "port-down"), LAB_SUB_NOT);
    set_m(&L, "pd_ib_sm_re", 5), set_m(&L, "pd_roce_re", 2e6), set_m(&L, "pd_ib_sm_stall", 0);
    assert_int_equal(decide(&L, "port-down"), LAB_SUB_HOLDS);
    /* gray: sweep 10.75 s, BFD 152 ms, hold 9 s */
    set_m(&L, "gray_ib_re", 10.75e6), set_m(&L, "gray_bfd_re", 152e3),
        set_m(&L, "gray_hold_re", 9e6);
    set_m(&L, "gray_ib_stall", 12.88), set_m(&L, "gray_bfd_stall", 4.29);
    set_m(&L, "gray_hold_stall", 12.88);
    assert_int_equal(decide(&L, "gray"), LAB_SUB_NOT);
    set_m(&L, "gray_ib_re", 5e6), set_m(&L, "gray_ib_stall", 4.3); /* beats the hold timer only */
    assert_int_equal(decide(&L, "gray"), LAB_SUB_CONDITIONS);
    set_m(&L, "gray_ib_re", 100), set_m(&L, "gray_bfd_re", 2e6), set_m(&L, "gray_ib_stall", 0);
    assert_int_equal(decide(&L, "gray"), LAB_SUB_HOLDS);
    /* half-gray: no conditions rule */
    set_m(&L, "half_ib_re", INFINITY), set_m(&L, "half_bfd_re", 3e5);
    set_m(&L, "half_ib_stall", 19.9), set_m(&L, "half_bfd_stall", 4.29);
    assert_int_equal(decide(&L, "half-gray"), LAB_SUB_NOT);
    set_m(&L, "half_ib_re", 100), set_m(&L, "half_bfd_re", 3e6), set_m(&L, "half_ib_stall", 0);
    assert_int_equal(decide(&L, "half-gray"), LAB_SUB_HOLDS);
    /* corrupting: the monitor at 1 s against BFD's 152 ms, then at 50 ms */
    set_m(&L, "cor_ib_re", 10.75e6), set_m(&L, "cor_bfd_re", 152e3), set_m(&L, "cor_mon_re", 1e6);
    set_m(&L, "cor_ib_stall", 12.88), set_m(&L, "cor_bfd_stall", 4.29);
    set_m(&L, "cor_mon_stall", 4.3);
    assert_int_equal(decide(&L, "corrupting"), LAB_SUB_NOT);
    set_m(&L, "cor_mon_re", 5e4), set_m(&L, "cor_mon_stall", 4.29);
    assert_int_equal(decide(&L, "corrupting"), LAB_SUB_CONDITIONS);
    /* the lab's verdict follows the claims: every one holds -> holds */
    set_m(&L, "cor_ib_re", 10), set_m(&L, "cor_bfd_re", 2e6), set_m(&L, "cor_ib_stall", 0);
    assert_int_equal(decide(&L, "corrupting"), LAB_SUB_HOLDS);
    assert_int_equal(ev.verdict, LAB_HOLDS);
    set_m(&L, "half_ib_re", INFINITY);
    decide(&L, "half-gray");
    assert_int_equal(ev.verdict, LAB_NUANCE);
    assert_non_null(strstr(ev.verdict_text, "half-gray: does not hold here."));
    lab_eval_fini(&L, &ev);
    lab_fini(&L);

    (void)d;
}

/* Loads a course lab for the per-claim tests below; every metric starts with
 * no value. */
static void load_course_lab(struct lab_def *L, const char *name) {
    char file[128], buf[600];
    struct diag d = {0};
    snprintf(file, sizeof file, "scenarios/labs/%s/lab.yaml", name);
    int rc = lab_load(L, file, &d);
    diag_format(&d, buf, sizeof buf);
    if (rc) fail_msg("%s", buf);
    memset(&ev, 0, sizeof ev);
    ev.values = calloc(L->nm + 1, sizeof *ev.values);
    ev.why = calloc(L->nm + 1, sizeof *ev.why);
    for (size_t i = 0; i < L->nm; i++)
        ev.values[i] = NAN;
}

/* The other course labs' sub-claims (issue 29), each rule fed numbers on
 * both sides: today's runs first, then a change that flips the verdict. */
static void test_claims_course_labs(void **state) {
    (void)state;
    struct lab_def L;
    /* lossless */
    load_course_lab(&L, "lossless");
    assert_int_equal(L.nclaims, 4);
    const char *ib[] = {"ib_incast_drops", "ib_a2a_drops", "ibcc_incast_drops", "v_ib_drops",
                        "v_ibcc_drops"};
    for (size_t i = 0; i < 5; i++)
        set_m(&L, ib[i], 0);
    set_m(&L, "dl_ib_drops", 30);
    assert_int_equal(decide(&L, "credits-never-drop"), LAB_SUB_CONDITIONS);
    set_m(&L, "dl_ib_drops", 0);
    assert_int_equal(decide(&L, "credits-never-drop"), LAB_SUB_HOLDS);
    set_m(&L, "v_ib_drops", 3);
    assert_int_equal(decide(&L, "credits-never-drop"), LAB_SUB_NOT);
    set_m(&L, "pfc_incast_drops", 0), set_m(&L, "pfc_a2a_drops", 0),
        set_m(&L, "small_hr_drops", 1531);
    assert_int_equal(decide(&L, "roce-by-configuration"), LAB_SUB_HOLDS);
    set_m(&L, "small_hr_drops", 0);
    assert_int_equal(decide(&L, "roce-by-configuration"), LAB_SUB_NOT);
    set_m(&L, "dl_pfc", 1), set_m(&L, "dl_ib", 1);
    assert_int_equal(decide(&L, "deadlock-is-pfcs"), LAB_SUB_NOT);
    set_m(&L, "dl_ib", 0);
    assert_int_equal(decide(&L, "deadlock-is-pfcs"), LAB_SUB_HOLDS);
    set_m(&L, "v_fair", 86.8), set_m(&L, "v_ib", 174), set_m(&L, "v_pfc", 171);
    set_m(&L, "v_ibcc", 91.6), set_m(&L, "v_dcqcn", 156);
    assert_int_equal(decide(&L, "hol-is-pfcs"), LAB_SUB_CONDITIONS);
    set_m(&L, "v_dcqcn", 95); /* DCQCN frees the victim too: nothing sets IB apart */
    assert_int_equal(decide(&L, "hol-is-pfcs"), LAB_SUB_NOT);
    set_m(&L, "v_ib", 95); /* credits alone spare the victim, PFC does not */
    assert_int_equal(decide(&L, "hol-is-pfcs"), LAB_SUB_HOLDS);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);

    /* ecn_dcqcn */
    load_course_lab(&L, "ecn_dcqcn");
    assert_int_equal(L.nclaims, 5);
    set_m(&L, "dcqcn_first_mark", 2.9), set_m(&L, "dcqcn_first_pause", 5.9);
    set_m(&L, "dcqcn_pauses", 326), set_m(&L, "pfc_pauses", 368);
    set_m(&L, "dcqcn_us", 301), set_m(&L, "pfc_us", 301);
    /* the byte counter read in 64-byte units: the claim must hold under both */
    set_m(&L, "b64_first_mark", 2.9), set_m(&L, "b64_first_pause", 5.9);
    set_m(&L, "b64_pauses", 198), set_m(&L, "b64_us", 301);
    assert_int_equal(decide(&L, "works-when-configured"), LAB_SUB_HOLDS);
    set_m(&L, "b64_us", 536); /* 1.78 x under one reading: it depends on it */
    assert_int_equal(decide(&L, "works-when-configured"), LAB_SUB_CONDITIONS);
    set_m(&L, "b64_us", 301), set_m(&L, "dcqcn_us", 450);
    assert_int_equal(decide(&L, "works-when-configured"), LAB_SUB_CONDITIONS);
    set_m(&L, "b64_pauses", 400); /* PFC does the work under the 64-byte reading */
    assert_int_equal(decide(&L, "works-when-configured"), LAB_SUB_NOT);
    set_m(&L, "b64_pauses", 198), set_m(&L, "dcqcn_first_mark", 9);
    assert_int_equal(decide(&L, "works-when-configured"), LAB_SUB_NOT);
    /* the shared buffer with the shipped ECN profiles */
    set_m(&L, "pfcsh_us", 301), set_m(&L, "sh_us", 571), set_m(&L, "sonic_us", 586);
    assert_int_equal(decide(&L, "shared-buffer"), LAB_SUB_CONDITIONS);
    set_m(&L, "sh_us", 310), set_m(&L, "sonic_us", 305);
    assert_int_equal(decide(&L, "shared-buffer"), LAB_SUB_HOLDS);
    set_m(&L, "sh_us", 33780); /* the 112 x of a stale 1 Mb/s gap */
    assert_int_equal(decide(&L, "shared-buffer"), LAB_SUB_NOT);
    set_m(&L, "mis_pauses", 368), set_m(&L, "mis_marks", 18), set_m(&L, "dcqcn_marks", 347);
    set_m(&L, "mis_first_pause", 5.9), set_m(&L, "mis_first_mark", 34);
    assert_int_equal(decide(&L, "ecn-misconfiguration"), LAB_SUB_HOLDS);
    set_m(&L, "mis_marks", 200);
    assert_int_equal(decide(&L, "ecn-misconfiguration"), LAB_SUB_NOT);
    set_m(&L, "storm_done", 0), set_m(&L, "storm_flows", 6);
    set_m(&L, "ib_storm_done", 3), set_m(&L, "ib_storm_flows", 6);
    assert_int_equal(decide(&L, "pfc-spreads"), LAB_SUB_HOLDS);
    assert_int_equal(decide(&L, "credits-spared"), LAB_SUB_NOT);
    set_m(&L, "ib_storm_done", 6);
    assert_int_equal(decide(&L, "credits-spared"), LAB_SUB_HOLDS);
    set_m(&L, "storm_done", 6);
    assert_int_equal(decide(&L, "pfc-spreads"), LAB_SUB_NOT);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);

    /* sharp: busbw in Gb/s */
    load_course_lab(&L, "sharp");
    assert_int_equal(L.nclaims, 3);
    set_m(&L, "ring8", 359), set_m(&L, "sharp8", 679), set_m(&L, "ring16", 340);
    set_m(&L, "sharp16", 700), set_m(&L, "dgx_ring", 1569), set_m(&L, "dgx_sharp", 1647);
    set_m(&L, "roce_ring8", 348), set_m(&L, "nvlink_ring", 2736), set_m(&L, "nvls", 3774);
    assert_int_equal(decide(&L, "up-to-50"), LAB_SUB_CONDITIONS);
    set_m(&L, "dgx_sharp", 2600);
    assert_int_equal(decide(&L, "up-to-50"), LAB_SUB_HOLDS);
    set_m(&L, "sharp8", 400);
    assert_int_equal(decide(&L, "up-to-50"), LAB_SUB_NOT);
    assert_int_equal(decide(&L, "ethernet-cannot"), LAB_SUB_NOT);
    set_m(&L, "sharp8", 679);
    assert_int_equal(decide(&L, "ethernet-cannot"), LAB_SUB_HOLDS);
    assert_int_equal(decide(&L, "nvswitch-inside"), LAB_SUB_HOLDS);
    set_m(&L, "nvls", 2800);
    assert_int_equal(decide(&L, "nvswitch-inside"), LAB_SUB_NOT);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);

    /* load_balancing: completion in us, offered load in % */
    load_course_lab(&L, "load_balancing");
    assert_int_equal(L.nclaims, 3);
    set_m(&L, "ecmp_offered", 296), set_m(&L, "adaptive_offered", 100);
    set_m(&L, "ecmp_us", 779), set_m(&L, "adaptive_us", 259), set_m(&L, "static_us", 259);
    set_m(&L, "ecmp_r_us", 551), set_m(&L, "adaptive_r_us", 272), set_m(&L, "static_r_us", 514);
    assert_int_equal(decide(&L, "ecmp-hot-idle"), LAB_SUB_HOLDS);
    assert_int_equal(decide(&L, "ib-balances"), LAB_SUB_CONDITIONS);
    set_m(&L, "static_r_us", 280); /* static routes as good as adaptive on both placements */
    assert_int_equal(decide(&L, "ib-balances"), LAB_SUB_HOLDS);
    set_m(&L, "ecmp_r_us", 290); /* ECMP collides on the aligned placement only */
    assert_int_equal(decide(&L, "ecmp-hot-idle"), LAB_SUB_CONDITIONS);
    set_m(&L, "ecmp_us", 300), set_m(&L, "ecmp_offered", 100);
    assert_int_equal(decide(&L, "ecmp-hot-idle"), LAB_SUB_NOT);
    set_m(&L, "adaptive_offered", 200);
    assert_int_equal(decide(&L, "ib-balances"), LAB_SUB_NOT);
    set_m(&L, "ecmp_unused", 33.5), set_m(&L, "k2_used", 0.47);
    assert_int_equal(decide(&L, "sixty-percent"), LAB_SUB_CONDITIONS);
    set_m(&L, "k2_used", 0.9);
    assert_int_equal(decide(&L, "sixty-percent"), LAB_SUB_NOT);
    set_m(&L, "ecmp_unused", 58);
    assert_int_equal(decide(&L, "sixty-percent"), LAB_SUB_HOLDS);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);

    /* counterarguments: tenant A's completion in us */
    load_course_lab(&L, "counterarguments");
    assert_int_equal(L.nclaims, 2);
    set_m(&L, "ib_us", 43.1), set_m(&L, "nocc_us", 44.6);
    assert_int_equal(decide(&L, "performance"), LAB_SUB_HOLDS);
    set_m(&L, "nocc_us", 60);
    assert_int_equal(decide(&L, "performance"), LAB_SUB_NOT);
    set_m(&L, "a_alone", 86.8), set_m(&L, "a_shared", 1150), set_m(&L, "a_separate", 98.5);
    set_m(&L, "a_ib_alone", 43.2), set_m(&L, "a_ib_shared", 1161), set_m(&L, "a_ib_separate", 58.4);
    assert_int_equal(decide(&L, "multi-tenancy"), LAB_SUB_CONDITIONS);
    set_m(&L, "a_ib_separate", 900); /* VLs would not isolate: RoCE's argument */
    assert_int_equal(decide(&L, "multi-tenancy"), LAB_SUB_HOLDS);
    set_m(&L, "a_separate", 900);
    assert_int_equal(decide(&L, "multi-tenancy"), LAB_SUB_NOT);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);

    /* ultra_ethernet (issue 30): "InfiniBand ahead" = the Ethernet's number
     * > 1.2 x InfiniBand's at the same tier (shipped, tuned), four pairings */
    load_course_lab(&L, "ultra_ethernet");
    assert_int_equal(L.nclaims, 4);
    /* lossless: incast completion in us, as measured */
    set_m(&L, "i_ib_d", 0), set_m(&L, "i_ib_t_d", 0);
    set_m(&L, "i_ib", 149.1), set_m(&L, "i_roce", 151.2), set_m(&L, "i_uet", 153.1);
    set_m(&L, "i_ib_t", 149.1), set_m(&L, "i_spray", 151.2), set_m(&L, "i_uet_t", 151.1);
    set_m(&L, "i_nopfc", 551.9), set_m(&L, "i_notrim", 440.7);
    assert_int_equal(decide(&L, "lossless"), LAB_SUB_CONDITIONS);
    set_m(&L, "i_nopfc", 160), set_m(&L, "i_notrim", 160); /* losing costs nothing */
    assert_int_equal(decide(&L, "lossless"), LAB_SUB_NOT);
    set_m(&L, "i_roce", 300), set_m(&L, "i_uet", 300), set_m(&L, "i_spray", 300),
        set_m(&L, "i_uet_t", 300); /* both Ethernets pay even with their mechanism */
    assert_int_equal(decide(&L, "lossless"), LAB_SUB_HOLDS);
    set_m(&L, "i_ib_d", 3); /* credits that drop */
    assert_int_equal(decide(&L, "lossless"), LAB_SUB_NOT);
    /* congestion: the victim's FCT in us, as measured */
    set_m(&L, "v_ib", 174.2), set_m(&L, "v_roce", 156.2), set_m(&L, "v_uet", 56.2);
    set_m(&L, "v_ib_t", 91.6), set_m(&L, "v_spray", 156.2), set_m(&L, "v_uet_t", 54.3);
    assert_int_equal(decide(&L, "congestion"), LAB_SUB_CONDITIONS);
    set_m(&L, "v_ib_t", 150); /* IB CC no better than DCQCN */
    assert_int_equal(decide(&L, "congestion"), LAB_SUB_NOT);
    set_m(&L, "v_ib", 40), set_m(&L, "v_ib_t", 40);
    assert_int_equal(decide(&L, "congestion"), LAB_SUB_HOLDS);
    /* reroute: completion in us (4.29 s = the IBA ACK timeout) */
    set_m(&L, "f_ib", 4.295e6), set_m(&L, "f_roce", 263.7), set_m(&L, "f_uet", 134.5);
    set_m(&L, "f_ib_t", 4.295e6), set_m(&L, "f_spray", 2199.8), set_m(&L, "f_uet_t", 134.0);
    set_m(&L, "f_shield", 45.6);
    assert_int_equal(decide(&L, "reroute"), LAB_SUB_CONDITIONS);
    set_m(&L, "f_shield", 150); /* SHIELD behind UET's timer */
    assert_int_equal(decide(&L, "reroute"), LAB_SUB_NOT);
    set_m(&L, "f_ib", 45), set_m(&L, "f_ib_t", 45);
    assert_int_equal(decide(&L, "reroute"), LAB_SUB_HOLDS);
    /* load balancing: permutation and jobs, completion in us, each fabric's
     * mean over seeds 1-4 (seeds_m sets one fabric's four runs) */
    seeds_m(&L, "p_ib", 44.4, 61.0, 57.5, 56.3), seeds_m(&L, "p_roce", 67.3, 63.0, 70.0, 71.0);
    seeds_m(&L, "p_uet", 28.7, 30, 30, 30), seeds_m(&L, "p_ib_t", 107, 107, 107, 107);
    seeds_m(&L, "p_spray", 32.1, 33, 33, 33), seeds_m(&L, "p_uet_t", 28.8, 30, 30, 30);
    seeds_m(&L, "j_ib", 565, 565, 565, 565), seeds_m(&L, "j_roce", 696, 1515, 650, 975);
    seeds_m(&L, "j_uet", 306, 314, 318, 318), seeds_m(&L, "j_ib_t", 454, 465, 470, 471);
    seeds_m(&L, "j_spray", 319, 316, 315, 314), seeds_m(&L, "j_uet_t", 306, 317, 322, 323);
    assert_int_equal(decide(&L, "load-balancing"), LAB_SUB_CONDITIONS);
    /* one lucky seed decides nothing: seed 1 alone would have ECMP at 1.52 x */
    seeds_m(&L, "p_roce", 67.3, 55, 55, 55); /* mean 58.1: ECMP ahead on the jobs only */
    assert_int_equal(decide(&L, "load-balancing"), LAB_SUB_NOT);
    seeds_m(&L, "p_roce", 67.3, 63.0, 70.0, 71.0);
    seeds_m(&L, "p_ib", 20, 20, 20, 20), seeds_m(&L, "p_ib_t", 20, 20, 20, 20);
    seeds_m(&L, "j_ib", 200, 200, 200, 200), seeds_m(&L, "j_ib_t", 200, 200, 200, 200);
    assert_int_equal(decide(&L, "load-balancing"), LAB_SUB_HOLDS);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);
}

static void test_claims_overlap(void **state) {
    (void)state;
    struct lab_def L;
    struct diag d = {0};
    char buf[600];
    /* Overlapping rules: "not decided", and said so. */
    write_lab("title: t\nclaim: c\nmetrics: {x: {run: a, value: \"1\"}}\nfindings: []\n"
              "claims:\n  - {id: k, claim: c, holds: \"x > 0\", conditions: \"x > -1\", "
              "says: {holds: h, conditions: co, not: n}}\n");
    assert_int_equal(lab_load(&L, path, &d), 0);
    memset(&ev, 0, sizeof ev);
    ev.values = calloc(2, sizeof *ev.values);
    ev.why = calloc(2, sizeof *ev.why);
    ev.values[0] = 1;
    assert_int_equal(decide(&L, "k"), LAB_SUB_UNDECIDED);
    assert_non_null(strstr(ev.sub_text[0], "the rules overlap"));
    ev.values[0] = -0.5;
    assert_int_equal(decide(&L, "k"), LAB_SUB_CONDITIONS);
    lab_eval_fini(&L, &ev);
    lab_fini(&L);
    /* claims and a hand-written verdict together: refused */
    write_lab("title: t\nclaim: c\nmetrics: {x: {run: a, value: \"1\"}}\nfindings: []\n"
              "claims:\n  - {id: k, claim: c, holds: \"x\", says: {holds: h, not: n}}\n"
              "verdict: {holds: \"x\", says: {holds: h, not: n}}\n");
    d = (struct diag){0};
    assert_int_not_equal(lab_load(&L, path, &d), 0);
    diag_format(&d, buf, sizeof buf);
    assert_non_null(strstr(buf, "derived from the claims"));
    lab_fini(&L);
    unlink(path);
}

/* The course labs that declare readings name a source for each. */
static void test_readings_course_labs(void **state) {
    (void)state;
    static const char *const labs[] = {"lossless", "ecn_dcqcn", "ultra_ethernet"};
    for (size_t i = 0; i < 3; i++) {
        char file[200];
        snprintf(file, sizeof file, "scenarios/labs/%s/lab.yaml", labs[i]);
        struct lab_def L;
        struct diag d = {0};
        assert_int_equal(lab_load(&L, file, &d), 0);
        assert_true(L.nreadings >= 2);
        for (size_t r = 0; r < L.nreadings; r++) {
            assert_true(L.readings[r].nsets >= 1);
            if (!strstr(L.readings[r].why, "docs/sources.md"))
                fail_msg("%s: reading %s names no source", file, L.readings[r].id);
        }
        lab_fini(&L);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claims_per_class),
        cmocka_unit_test(test_claims_course_labs),
        cmocka_unit_test(test_claims_overlap),
        cmocka_unit_test(test_lab_evaluates_from_numbers),
        cmocka_unit_test(test_lab_errors),
        cmocka_unit_test(test_expr_rules),
        cmocka_unit_test(test_readings_course_labs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

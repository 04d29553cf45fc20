/* tests/workload/test_inputs.c
 *
 * A user's own workload (docs/inputs.md): Chakra execution traces and
 * nccl-tests sweeps. The traces are written here byte by byte in the Chakra
 * wire format (varint-length-prefixed GlobalMetadata then Nodes, proto3
 * field numbers of et_def.proto), independently of the reader's protobuf-c
 * code, and their timings are checked against the built-in workload that
 * does the same thing.
 */
#include "testutil.h"

#include "coll/coll.h"
#include "net/net.h"

#include <dirent.h>
#include <math.h>
#include <unistd.h>

/* ---- a tiny protobuf writer ---- */

struct pb {
    uint8_t b[4096];
    size_t n;
};

static void pb_varint(struct pb *p, uint64_t v) {
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        p->b[p->n++] = (uint8_t)(c | (v ? 0x80 : 0));
    } while (v);
}
static void pb_key(struct pb *p, unsigned field, unsigned wire) {
    pb_varint(p, (uint64_t)field << 3 | wire);
}
static void pb_u64(struct pb *p, unsigned field, uint64_t v) {
    pb_key(p, field, 0);
    pb_varint(p, v);
}
static void pb_bytes(struct pb *p, unsigned field, const void *s, size_t len) {
    pb_key(p, field, 2);
    pb_varint(p, len);
    memcpy(p->b + p->n, s, len);
    p->n += len;
}
static void pb_str(struct pb *p, unsigned field, const char *s) {
    pb_bytes(p, field, s, strlen(s));
}
/* AttributeProto {name = 1; int64_val = 9 | string_val = 29} inside Node.attr (10) */
static void attr_int(struct pb *node, const char *name, int64_t v) {
    struct pb a = {.n = 0};
    pb_str(&a, 1, name);
    pb_u64(&a, 9, (uint64_t)v);
    pb_bytes(node, 10, a.b, a.n);
}
static void attr_str(struct pb *node, const char *name, const char *v) {
    struct pb a = {.n = 0};
    pb_str(&a, 1, name);
    pb_str(&a, 29, v);
    pb_bytes(node, 10, a.b, a.n);
}

enum { COMP = 4, SEND = 5, RECV = 6, COLL = 7 };
enum { ALL_REDUCE = 0, ALL_GATHER = 2, ALL_TO_ALL = 6, GATHER = 3 };

struct tnode {
    uint64_t id;
    int type;
    uint64_t dur_us;
    int64_t comm_type, size, peer;
    const char *pg;
    uint64_t deps[4];
    int ndeps; /* data_deps, written packed */
};

/* Writes DIR/t.RANK.et: GlobalMetadata{version "0.0.4"} then the nodes. */
static void write_rank(const char *dir, int rank, const struct tnode *nodes, int nn) {
    char path[512];
    snprintf(path, sizeof path, "%s/t.%d.et", dir, rank);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    struct pb meta = {.n = 0}, out = {.n = 0};
    pb_str(&meta, 1, "0.0.4");
    pb_varint(&out, meta.n);
    memcpy(out.b + out.n, meta.b, meta.n);
    out.n += meta.n;
    for (int i = 0; i < nn; i++) {
        const struct tnode *t = &nodes[i];
        struct pb m = {.n = 0};
        if (t->id) pb_u64(&m, 1, t->id);
        pb_str(&m, 2, t->type == COMP ? "compute" : "comm");
        pb_u64(&m, 3, (uint64_t)t->type);
        if (t->ndeps) {
            struct pb packed = {.n = 0};
            for (int k = 0; k < t->ndeps; k++)
                pb_varint(&packed, t->deps[k]);
            pb_bytes(&m, 5, packed.b, packed.n);
        }
        if (t->dur_us) pb_u64(&m, 7, t->dur_us);
        if (t->type == COLL) attr_int(&m, "comm_type", t->comm_type);
        if (t->type != COMP) attr_int(&m, "comm_size", t->size);
        if (t->type == SEND) attr_int(&m, "comm_dst", t->peer);
        if (t->type == RECV) attr_int(&m, "comm_src", t->peer);
        if (t->pg) attr_str(&m, "pg_name", t->pg);
        pb_varint(&out, m.n);
        memcpy(out.b + out.n, m.b, m.n);
        out.n += m.n;
    }
    assert_int_equal(fwrite(out.b, 1, out.n, f), out.n);
    fclose(f);
}

static char *tmpdir(void) {
    char tmpl[] = "/tmp/fabsim-chakra-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void rmdir_all(char *dir) {
    DIR *D = opendir(dir);
    struct dirent *de;
    char p[600];
    while (D && (de = readdir(D)))
        if (de->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
    if (D) closedir(D);
    rmdir(dir);
    free(dir);
}

static const char *BASE = "name: t\n"
                          "fabric: {kind: infiniband}\n"
                          "topology: {kind: single_switch, hosts: 8}\n";

/* Time of the only (or first) collective row of a run of `workload`. */
static void run_yaml(struct trun *t, const char *workload) {
    char y[2048];
    snprintf(y, sizeof y, "%sworkload:\n%s", BASE, workload);
    trun_start(t, y, NULL, 0);
    assert_int_equal(t->rc, 0);
    assert_int_equal(t->m.net.work_pending, 0);
}

static double row_ns(const struct trun *t, uint32_t i) {
    assert_true(i < t->m.net.ncoll_rows);
    const struct coll_row *r = &t->m.net.coll_rows[i];
    assert_true(r->end_ps != SIM_TIME_NEVER);
    return (double)(r->end_ps - r->start_ps) / 1000.0;
}

static void chakra_yaml(char *buf, size_t len, const char *dir, const char *extra) {
    snprintf(buf, len, "  - {kind: chakra, path: %s%s}\n", dir, extra);
}

/* One AllReduce (ALL_GATHER, ALL_TO_ALL) of 1 MiB on 8 ranks takes exactly
 * as long as the built-in collective of the same size. */
static void test_chakra_single_collectives(void **state) {
    (void)state;
    static const struct {
        int ct;
        const char *builtin;
    } cases[] = {
        {ALL_REDUCE, "  - {kind: allreduce, size: 1MiB}\n"},
        {ALL_GATHER, "  - {kind: allgather, size: 1MiB}\n"},
        {ALL_TO_ALL, "  - {kind: nccl_tests, op: alltoall, min: 1MiB, max: 1MiB}\n"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *dir = tmpdir();
        for (int r = 0; r < 8; r++) {
            struct tnode n[] = {
                {.id = (uint64_t)r, .type = COLL, .comm_type = cases[c].ct, .size = 1 << 20}};
            write_rank(dir, r, n, 1);
        }
        char w[700];
        chakra_yaml(w, sizeof w, dir, "");
        struct trun a, b;
        run_yaml(&a, w);
        run_yaml(&b, cases[c].builtin);
        double ta = row_ns(&a, 0), tb = row_ns(&b, 0);
        assert_true(ta > 10000.0); /* 1 MiB at 400 Gb/s: > 20 us for every rank */
        if (ta != tb) fail_msg("case %zu: chakra %.3f ns, built-in %.3f ns", c, ta, tb);
        assert_true(a.m.net.done_ps >= a.m.net.coll_rows[0].end_ps);
        trun_end(&a);
        trun_end(&b);
        rmdir_all(dir);
    }
}

/* compute 10 us -> AllReduce 4 MiB -> compute 5 us, data dependencies; the
 * iteration takes 15 us plus the AllReduce, which starts at 10 us; two
 * iterations back to back. */
static void test_chakra_compute_deps(void **state) {
    (void)state;
    char *dir = tmpdir();
    for (int r = 0; r < 8; r++) {
        struct tnode n[] = {
            {.id = 1, .type = COMP, .dur_us = 10},
            {.id = 2,
             .type = COLL,
             .comm_type = ALL_REDUCE,
             .size = 4 << 20,
             .deps = {1},
             .ndeps = 1},
            {.id = 3, .type = COMP, .dur_us = 5, .deps = {2}, .ndeps = 1},
        };
        write_rank(dir, r, n, 3);
    }
    char w[700];
    chakra_yaml(w, sizeof w, dir, ", iterations: 2");
    struct trun a, b;
    run_yaml(&a, w);
    run_yaml(&b, "  - {kind: allreduce, size: 4MiB}\n");
    double ar = row_ns(&b, 0);
    assert_int_equal(a.m.net.ncoll_rows, 2);
    assert_int_equal(a.m.net.coll_rows[0].start_ps, 10 * PS_PER_US);
    assert_true(row_ns(&a, 0) == ar);
    assert_true(row_ns(&a, 1) == ar);
    double iter_ns = 15000.0 + ar;
    /* second iteration starts when the first ends */
    assert_int_equal(a.m.net.coll_rows[1].start_ps,
                     (uint64_t)(iter_ns * 1000.0 + 0.5) + 10 * PS_PER_US);
    assert_int_equal(a.m.net.done_ps, (uint64_t)(2 * iter_ns * 1000.0 + 0.5));
    char *js = tresults_json(&a);
    assert_non_null(strstr(js, "\"chakra\""));
    assert_non_null(strstr(js, "\"iteration\": 1"));
    free(js);
    trun_end(&a);
    trun_end(&b);
    rmdir_all(dir);
}

/* Two process groups of 4 ranks each run their AllReduce at the same time,
 * each as long as the built-in AllReduce over those 4 hosts. */
static void test_chakra_process_groups(void **state) {
    (void)state;
    char *dir = tmpdir();
    for (int r = 0; r < 8; r++) {
        struct tnode n[] = {{.id = 7,
                             .type = COLL,
                             .comm_type = ALL_REDUCE,
                             .size = 2 << 20,
                             .pg = r < 4 ? "tp0" : "tp1"}};
        write_rank(dir, r, n, 1);
    }
    char w[700];
    chakra_yaml(w, sizeof w, dir, "");
    struct trun a, b;
    run_yaml(&a, w);
    run_yaml(&b, "  - {kind: allreduce, size: 2MiB, ranks: [h4, h5, h6, h7]}\n");
    assert_int_equal(a.m.net.ncoll_rows, 2);
    assert_int_equal(a.m.net.coll_rows[0].ranks, 4);
    assert_true(row_ns(&a, 0) == row_ns(&b, 0));
    assert_true(row_ns(&a, 1) == row_ns(&b, 0));
    trun_end(&a);
    trun_end(&b);
    rmdir_all(dir);
}

/* A ring of sends and receives (rank r sends 1 MiB to r+1, then receives
 * from r-1): one message per rank, all at once; the iteration ends when the
 * last arrives. Each takes the serialisation of 1 MiB at 400 Gb/s plus
 * NCCL's per-step cost of a network Simple step (tuning.cc hwLat 14 us,
 * coll/algos.c; 1 us before issue 28) and a few packet times of latency. */
static void test_chakra_send_recv(void **state) {
    (void)state;
    char *dir = tmpdir();
    for (int r = 0; r < 4; r++) {
        struct tnode n[] = {
            {.id = 1, .type = SEND, .size = 1 << 20, .peer = (r + 1) % 4},
            {.id = 2, .type = RECV, .size = 1 << 20, .peer = (r + 3) % 4, .deps = {1}, .ndeps = 1},
        };
        write_rank(dir, r, n, 2);
    }
    char w[700];
    chakra_yaml(w, sizeof w, dir, "");
    struct trun a;
    run_yaml(&a, w);
    double t_us = (double)a.m.net.done_ps / 1e6;
    double wire_us = (1 << 20) * 8.0 / 400e9 * 1e6 * (4096.0 + 26 + 16) / 4096.0;
    if (t_us < wire_us + 14.0 || t_us > wire_us + 16.0)
        fail_msg("send/recv ring took %.3f us; 1 MiB on the wire is %.3f us", t_us, wire_us);
    assert_int_equal(a.m.net.c.bytes_delivered, 4u << 20);
    trun_end(&a);
    rmdir_all(dir);
}

/* Bad traces: exit-2 errors that name the file and what is wrong. */
static void expect_error(const char *dir, const char *needle) {
    char y[2048], w[700];
    chakra_yaml(w, sizeof w, dir, "");
    snprintf(y, sizeof y, "%sworkload:\n%s", BASE, w);
    struct scenario sc;
    struct diag d = {0};
    assert_int_equal(scenario_load_string(&sc, y, "test.yaml", NULL, 0, &d), 0);
    struct model m;
    int rc = model_build(&m, &sc, &d);
    char msg[1200];
    diag_format(&d, msg, sizeof msg);
    if (rc == 0 || !strstr(msg, needle))
        fail_msg("expected an error with '%s', got rc %d: %s", needle, rc, msg);
    model_fini(&m);
    scenario_fini(&sc);
}

static void test_chakra_errors(void **state) {
    (void)state;
    char *dir = tmpdir();
    struct tnode ok[] = {{.id = 1, .type = COLL, .comm_type = ALL_REDUCE, .size = 4096}};
    for (int r = 0; r < 2; r++)
        write_rank(dir, r, ok, 1);
    /* truncated: cut rank 1's file in its Node message */
    char p[600];
    snprintf(p, sizeof p, "%s/t.1.et", dir);
    assert_int_equal(truncate(p, 12), 0);
    expect_error(dir, "t.1.et: error: byte 8: truncated");
    /* a rank missing */
    write_rank(dir, 1, ok, 1);
    write_rank(dir, 3, ok, 1);
    expect_error(dir, "every rank 0..3 needs its file");
    snprintf(p, sizeof p, "%s/t.3.et", dir);
    unlink(p);
    /* a dependency on a node that is not there */
    struct tnode dep[] = {{.id = 1, .type = COMP, .dur_us = 1, .deps = {9}, .ndeps = 1}};
    write_rank(dir, 1, dep, 1);
    expect_error(dir, "depends on node 9, which is not in this file");
    /* a cycle */
    struct tnode cyc[] = {{.id = 1, .type = COMP, .dur_us = 1, .deps = {2}, .ndeps = 1},
                          {.id = 2, .type = COMP, .dur_us = 1, .deps = {1}, .ndeps = 1}};
    write_rank(dir, 1, cyc, 2);
    expect_error(dir, "dependency cycle");
    /* the ranks disagree on the collective */
    struct tnode big[] = {{.id = 1, .type = COLL, .comm_type = ALL_REDUCE, .size = 8192}};
    write_rank(dir, 1, big, 1);
    expect_error(dir, "ranks must call the same collectives in the same order");
    /* a collective fabsim does not run */
    struct tnode ga[] = {{.id = 1, .type = COLL, .comm_type = GATHER, .size = 8192}};
    write_rank(dir, 0, ga, 1);
    write_rank(dir, 1, ga, 1);
    expect_error(dir, "GATHER is not yet supported");
    /* a send nobody receives */
    struct tnode s[] = {{.id = 1, .type = SEND, .size = 64, .peer = 1}};
    write_rank(dir, 0, s, 1);
    write_rank(dir, 1, dep, 0);
    expect_error(dir, "has no matching recv on rank 1");
    /* not a trace at all */
    snprintf(p, sizeof p, "%s/t.1.et", dir);
    FILE *f = fopen(p, "wb");
    fputs("\xff\xff\xff\xff\xff\xff", f);
    fclose(f);
    expect_error(dir, "bad length prefix");
    rmdir_all(dir);
}

/* nccl_tests: each size of the sweep takes as long as the built-in
 * collective of that size, out-of-place and in-place; the sizes follow
 * nccl-tests' -b -e -f loop (K = 1024), and all_gather rounds to whole
 * floats per rank. */
static void test_nccl_tests_sweep(void **state) {
    (void)state;
    struct trun a, b;
    run_yaml(&a, "  - {kind: nccl_tests, op: all_reduce, min: 1K, max: 1M, step: 32, iters: 2, "
                 "warmup: 1}\n");
    run_yaml(&b, "  - {kind: allreduce, size: [1KiB, 32KiB, 1MiB]}\n");
    /* warmup at 1 MiB, then per size 2 out-of-place + 2 in-place */
    assert_int_equal(a.m.net.ncoll_rows, 1 + 3 * 4);
    assert_int_equal(a.m.net.coll_rows[0].size_bytes, 1 << 20);
    static const uint64_t sizes[] = {1024, 32768, 1 << 20};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 4; k++) {
            const struct coll_row *r = &a.m.net.coll_rows[1 + 4 * s + k];
            assert_int_equal(r->size_bytes, sizes[s]);
            /* the first call of a size follows the same call as in the built-in
             * sweep: equal to the ps; the repeats follow a call of their own size
             * (its last ACKs still on the wire): within 0.1% */
            double ta = row_ns(&a, 1 + 4 * s + (uint32_t)k), tb = row_ns(&b, (uint32_t)s);
            if (k == 0 ? ta != tb : fabs(ta - tb) > 1e-3 * tb)
                fail_msg("size %llu call %d: %.3f ns vs built-in %.3f ns",
                         (unsigned long long)sizes[s], k, row_ns(&a, 1 + 4 * s + (uint32_t)k),
                         row_ns(&b, (uint32_t)s));
        }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    coll_print_table(&a.m.net, f);
    fclose(f);
    assert_non_null(strstr(buf, "out-of-place                       in-place"));
    assert_non_null(strstr(buf, "        1024           256     float     sum      -1"));
    free(buf);
    char *js = tresults_json(&a);
    assert_non_null(strstr(js, "\"nccl_tests\""));
    assert_non_null(strstr(js, "\"in_place\""));
    free(js);
    trun_end(&a);
    trun_end(&b);
    /* all_gather of 1000 B on 8 ranks: 31 floats per rank -> 992 B */
    run_yaml(&a, "  - {kind: nccl_tests, op: all_gather, min: 1000, max: 1000}\n");
    assert_int_equal(a.m.net.coll_rows[0].size_bytes, 992);
    trun_end(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chakra_single_collectives),
        cmocka_unit_test(test_chakra_compute_deps),
        cmocka_unit_test(test_chakra_process_groups),
        cmocka_unit_test(test_chakra_send_recv),
        cmocka_unit_test(test_chakra_errors),
        cmocka_unit_test(test_nccl_tests_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

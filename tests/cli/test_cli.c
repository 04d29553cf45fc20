/* CLI tests: run the fabsim binary ($FABSIM_BIN, set by tests/run.sh) on good
 * and malformed scenarios; check exit codes and that every error names its
 * place (file:line:col) — and, under `make check`, that nothing crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];
static char out[65536];

static const char *bin(void) {
    const char *b = getenv("FABSIM_BIN");
    return b ? b : "build/fabsim";
}

static void write_file(const char *name, const char *text, size_t len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
}

/* Runs `fabsim ARGS` (with @ replaced by the temp dir); stderr+stdout in out. */
static int run(const char *args) {
    char cmd[2048], a[1024];
    size_t j = 0;
    for (size_t i = 0; args[i] && j + 300 < sizeof a; i++) {
        if (args[i] == '@')
            j += (size_t)snprintf(a + j, sizeof a - j, "%s", dir);
        else
            a[j++] = args[i];
    }
    a[j] = 0;
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin(), a);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

static const char *GOOD = "name: good\n"
                          "fabric: {flow_control: none}\n"
                          "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
                          "workload:\n"
                          "  - kind: flows\n"
                          "    flows: [{src: h0, dst: h3, size: 64KiB}]\n";

struct bad {
    const char *what, *text;
    const char *place;  /* expected "s.yaml:L:C" prefix piece, or NULL */
    const char *needle; /* expected in the message */
};

/* Each differs from GOOD in one mistake. */
static const struct bad BAD[] = {
    {"syntax", "name: x\ntopology: {kind: leaf_spine\n", "bad.yaml:", NULL},
    {"unknown key", "name: x\ntopolgy: {kind: ring}\n", "bad.yaml:2:1", "topology"},
    {"unknown nested key", "fabric:\n  linkk: 400Gbps\n", "bad.yaml:2:3", "link"},
    {"wrong type", "topology: {kind: leaf_spine, leaves: [1, 2]}\n", "bad.yaml:1:", "leaves"},
    {"negative", "topology: {kind: leaf_spine, leaves: -3}\n", "bad.yaml:1:", NULL},
    {"overflow", "topology: {kind: leaf_spine, leaves: 99999999999999999999}\n",
     "bad.yaml:1:", NULL},
    {"bad unit", "fabric: {link: 400Gbit}\n", "bad.yaml:1:", "Gbps"},
    {"unknown host",
     "topology: {kind: single_switch, hosts: 4}\nworkload:\n  - kind: flows\n"
     "    flows: [{src: h0, dst: h99, size: 1KiB}]\n",
     "bad.yaml:4:", "h99"},
    {"odd fat tree", "topology: {kind: fat_tree, k: 3}\n", "bad.yaml:1:", NULL},
    {"empty", "", "bad.yaml", NULL},
    {"binary",
     "\x7f"
     "ELF\x02\x01\x01\x00\x00\x00\xff\xfe\x00\x01",
     "bad.yaml", NULL},
    {"duplicate key", "name: a\nname: b\n", "bad.yaml:2:", NULL},
    {"bad enum", "fabric: {routing: magic}\n", "bad.yaml:1:", "ecmp"},
    {"unknown link in event",
     "topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n"
     "fabric: {flow_control: none}\n"
     "events:\n  - {at: 1us, link_down: leaf9-spine0}\n",
     "bad.yaml:4:", "leaf9-spine0"},
    {"xon above xoff", "fabric: {pfc: {xoff: 100KiB, xon: 200KiB}}\n", "bad.yaml:1:", NULL},
    {"pmax above 1", "fabric: {ecn: {pmax: 2}}\n", "bad.yaml:1:", NULL},
    {"load above 1",
     "topology: {kind: single_switch, hosts: 4}\nworkload:\n"
     "  - {kind: poisson, load: 1.5, packet: 4KiB, senders: 2, receiver: h0, duration: 1ms}\n",
     "bad.yaml:3:", NULL},
    {"mtu not an IB path MTU", "fabric: {mtu: 3000}\n", "bad.yaml:1:", "4096"},
    {"seed not a number", "seed: lots\n", "bad.yaml:1:", NULL},
    {"top level not a mapping", "- a\n- b\n", "bad.yaml:1:", NULL},
};

static void test_bad_inputs(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const struct bad *b = &BAD[i];
        size_t len = strlen(b->text);
        if (!strcmp(b->what, "binary")) len = 15;
        write_file("bad.yaml", b->text, len);
        int rc = run("validate @/bad.yaml");
        if (rc != 2 || !strstr(out, b->place) || (b->needle && !strstr(out, b->needle)))
            fail_msg("%s: exit %d, expected 2 with '%s'%s%s; got:\n%s", b->what, rc, b->place,
                     b->needle ? " and " : "", b->needle ? b->needle : "", out);
        /* exactly one message line */
        int lines = 0;
        for (const char *c = out; *c; c++)
            lines += *c == '\n';
        if (lines != 1) fail_msg("%s: expected one line on stderr, got:\n%s", b->what, out);
        rc = run("run @/bad.yaml -o @/o --quiet");
        if (rc != 2) fail_msg("%s: run exits %d, expected 2", b->what, rc);
    }
}

static void test_usage_errors(void **state) {
    (void)state;
    assert_int_equal(run("run @/missing.yaml"), 2);
    assert_non_null(strstr(out, "missing.yaml"));
    assert_int_equal(run("frobnicate"), 2);
    assert_int_equal(run("run"), 2);
    write_file("good.yaml", GOOD, strlen(GOOD));
    assert_int_equal(run("run @/good.yaml --bogus"), 2);
    assert_int_equal(run("run @/good.yaml --seed -1"), 2);
    assert_int_equal(run("run @/good.yaml --set fabric.lnk=1Gbps"), 2);
    assert_non_null(strstr(out, "link"));
    assert_int_equal(run("--help"), 0);
    assert_non_null(strstr(out, "validate"));
    assert_int_equal(run("--version"), 0);
}

static void test_run_writes_results(void **state) {
    (void)state;
    write_file("good.yaml", GOOD, strlen(GOOD));
    assert_int_equal(run("run @/good.yaml -o @/out --set workload.0.flows.0.size=128KiB"), 0);
    assert_non_null(strstr(out, "completed"));
    char path[512];
    snprintf(path, sizeof path, "%s/out/results.json", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_non_null(strstr(buf, "\"bytes_delivered\": 131072"));
    snprintf(path, sizeof path, "%s/out/links.csv", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    assert_string_equal(buf, "time_ns,link,bytes,utilization,queue_bytes,paused_ns\n");
    fclose(f);
    assert_int_equal(run("validate @/good.yaml --explain"), 0);
    assert_non_null(strstr(out, "hosts_per_leaf"));
}

/* getopt_long: every command has -h/--help with usage, options and an
 * example; --opt=value and --opt value; short forms; did-you-mean. */
static void test_options(void **state) {
    (void)state;
    static const char *const cmds[] = {"run",    "validate", "compare", "sweep", "labs",
                                       "report", "routes",   "schema",  "help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char a[64];
        snprintf(a, sizeof a, "%s --help", cmds[i]);
        if (run(a) != 0 || !strstr(out, "usage: fabsim ") || !strstr(out, "options:") ||
            !strstr(out, "-h, --help") || !strstr(out, "example"))
            fail_msg("%s: no help:\n%s", a, out);
        snprintf(a, sizeof a, "help %s", cmds[i]);
        assert_int_equal(run(a), 0);
        assert_non_null(strstr(out, "usage: fabsim "));
        snprintf(a, sizeof a, "%s -h", cmds[i]);
        assert_int_equal(run(a), 0);
    }
    write_file("good.yaml", GOOD, strlen(GOOD));
    /* --seed=N and --seed N, -s and --set=, -o and --out= give the same run */
    assert_int_equal(run("run @/good.yaml --seed=7 --out=@/o1 -q -s workload.0.flows.0.size=8KiB"),
                     0);
    assert_int_equal(
        run("run @/good.yaml --seed 7 -o @/o2 --quiet --set=workload.0.flows.0.size=8KiB"), 0);
    char path[512], buf[2][65536];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/o%d/results.json", dir, k + 1);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        size_t n = fread(buf[k], 1, sizeof buf[k] - 1, f);
        buf[k][n] = 0;
        fclose(f);
        assert_non_null(strstr(buf[k], "\"seed\": 7"));
        assert_non_null(strstr(buf[k], "\"bytes_delivered\": 8192"));
    }
    /* options after or before the file */
    assert_int_equal(run("validate -s fabric.link=200Gbps @/good.yaml"), 0);
    /* did-you-mean for commands and options; exit 2 */
    assert_int_equal(run("valdate @/good.yaml"), 2);
    assert_non_null(strstr(out, "did you mean 'validate'"));
    assert_int_equal(run("rnu @/good.yaml"), 2); /* a swap of two letters is one edit */
    assert_non_null(strstr(out, "did you mean 'run'"));
    assert_int_equal(run("run @/good.yaml --trace-mx 5"), 2);
    assert_non_null(strstr(out, "did you mean '--trace-max'"));
    assert_int_equal(run("run @/good.yaml --pcap-"), 2);
    assert_non_null(strstr(out, "ambiguous"));
    assert_int_equal(run("run @/good.yaml --quiet=yes"), 2);
    assert_int_equal(run("run @/good.yaml --out"), 2);
    assert_non_null(strstr(out, "needs a value"));
    assert_int_equal(run("run @/good.yaml @/good.yaml"), 2);
    assert_int_equal(run("labs -j 0"), 2);
    assert_int_equal(run("--versoin"), 2);
    assert_non_null(strstr(out, "--version"));
    assert_int_equal(run("--version"), 0);
    assert_non_null(strstr(out, "fabsim 0."));
    /* the man page comes from the same tables: every command and option */
    assert_int_equal(run("help --man"), 0);
    assert_non_null(strstr(out, ".TH FABSIM 1"));
    assert_non_null(strstr(out, ".SS routes"));
    assert_non_null(strstr(out, "\\-\\-trace\\-max"));
}

/* --progress: plain lines naming each phase even when stderr is a pipe;
 * --quiet: nothing at all; neither: nothing on a pipe. */
static void test_progress(void **state) {
    (void)state;
    write_file("good.yaml", GOOD, strlen(GOOD));
    assert_int_equal(run("run @/good.yaml -o @/p1 --progress=1"), 0);
    static const char *const phases[] = {"] loading ", "] building the model (4 hosts)",
                                         "] running", "] writing", "running took"};
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++)
        if (!strstr(out, phases[i])) fail_msg("no '%s' in:\n%s", phases[i], out);
    assert_int_equal(run("run @/good.yaml -o @/p1 --progress --quiet"), 0);
    assert_string_equal(out, "");
    assert_int_equal(run("run @/good.yaml -o @/p1"), 0);
    assert_null(strstr(out, "running"));
    assert_null(strstr(out, "\033"));
    assert_int_equal(run("run @/good.yaml -o @/p1 --progress=0"), 2);
    /* labs --progress: one line per finished scenario */
    assert_int_equal(run("labs --labs-dir tests/report/fixture --only basics -o @/labs --progress"),
                     0);
    assert_non_null(strstr(out, "2/2 basics/"));
    assert_non_null(strstr(out, ": ok ("));
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/fabsim-cli-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_inputs),         cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_run_writes_results), cmocka_unit_test(test_options),
        cmocka_unit_test(test_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

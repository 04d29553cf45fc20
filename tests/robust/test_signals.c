/* robust/: issue 32's signal and limit cases that a script cannot time
 * exactly. Each signal case runs in a forked child (the handler exits the
 * process): a signal outside the event loop exits at once with 128 + the
 * signal and removes the temporary file of the output being written; in the
 * event loop the first only sets the flag and the second exits, removing it
 * too; the lab-rule parser refuses nesting and length beyond its limits
 * without overflowing the stack. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/diag.h"
#include "core/file.h"
#include "core/sig.h"
#include "report/expr.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* A fresh folder under TMPDIR for one case. */
static void tmp_dir(char *buf, size_t len) {
    const char *t = getenv("TMPDIR");
    snprintf(buf, len, "%s/fabsim-sig-XXXXXX", t && *t ? t : "/tmp");
    assert_non_null(mkdtemp(buf));
}

/* Entries of `dir` other than . and .. */
static int entries(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

static void rm_dir(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* In the child: an output half written, then `nsig` signals in `mode`. */
static void child(const char *dir, enum sig_mode mode, int signo, int nsig) {
    char path[600];
    snprintf(path, sizeof path, "%s/results.json", dir);
    sig_install();
    struct fs_out o;
    if (fs_out_open(&o, path)) _exit(99);
    fputs("{\"partial\":", o.f);
    fflush(o.f);
    sig_set_mode(mode);
    for (int i = 0; i < nsig; i++)
        raise(signo);
    _exit(sig_pending() == signo ? 98 : 97); /* the flag set and returned */
}

static int run_child(const char *dir, enum sig_mode mode, int signo, int nsig) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) child(dir, mode, signo, nsig);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    return WEXITSTATUS(ws);
}

/* hostile_sig_exit_phase: outside the event loop, exit 130/143 at once, no
 * temporary file left, nothing at the destination. */
static void test_sig_outside_loop(void **state) {
    (void)state;
    char dir[512];
    tmp_dir(dir, sizeof dir);
    assert_int_equal(run_child(dir, SIG_MODE_EXIT, SIGINT, 1), 130);
    assert_int_equal(entries(dir), 0);
    assert_int_equal(run_child(dir, SIG_MODE_EXIT, SIGTERM, 1), 143);
    assert_int_equal(entries(dir), 0);
    rm_dir(dir);
}

/* hostile_sig_second_removes_tmp: in the event loop the first signal only
 * sets the flag (the child goes on: 98); a second exits and removes the
 * temporary file (was: the default action, leaving it). */
static void test_sig_second_removes_tmp(void **state) {
    (void)state;
    char dir[512];
    tmp_dir(dir, sizeof dir);
    assert_int_equal(run_child(dir, SIG_MODE_FLAG, SIGTERM, 1), 98);
    assert_int_equal(entries(dir), 1); /* the first left it to the writer */
    rm_dir(dir);
    tmp_dir(dir, sizeof dir);
    assert_int_equal(run_child(dir, SIG_MODE_FLAG, SIGTERM, 2), 143);
    assert_int_equal(entries(dir), 0);
    rm_dir(dir);
}

/* A committed output is no longer the handler's to remove. */
static void test_sig_committed_kept(void **state) {
    (void)state;
    char dir[512], path[600];
    tmp_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sig_install();
        struct fs_out o;
        if (fs_out_open(&o, path)) _exit(99);
        fputs("done\n", o.f);
        if (fs_out_commit(&o)) _exit(99);
        raise(SIGTERM);
        _exit(97);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 143);
    assert_int_equal(entries(dir), 1);
    assert_int_equal(access(path, F_OK), 0);
    rm_dir(dir);
}

/* hostile_expr_limits: 200,000 nested parentheses, unary operators and
 * chained terms are refused with a message (no stack overflow); the limits
 * themselves are accepted. */
static void test_expr_limits(void **state) {
    (void)state;
    size_t n = 200000;
    char *s = malloc(2 * n + 8);
    assert_non_null(s);
    static const char *const open[] = {"(", "-", "!", "+1"};
    for (size_t k = 0; k < 4; k++) {
        size_t l = 0;
        if (k == 3) s[l++] = '1';
        for (size_t i = 0; i < n; i++)
            l += (size_t)sprintf(s + l, "%s", open[k]);
        if (k != 3) s[l++] = '1';
        for (size_t i = 0; k == 0 && i < n; i++)
            s[l++] = ')';
        s[l] = 0;
        struct expr e;
        unsigned col = 0;
        char err[256] = "";
        assert_int_equal(expr_parse(&e, s, EXPR_CTX_LAB, &col, err, sizeof err), FS_EINVAL);
        assert_non_null(strstr(err, "allowed: at most"));
    }
    /* EXPR_MAX_DEPTH levels parse; one more is refused at its column. */
    for (int depth = EXPR_MAX_DEPTH; depth <= EXPR_MAX_DEPTH + 1; depth++) {
        size_t l = 0;
        for (int i = 0; i < depth; i++)
            s[l++] = '(';
        s[l++] = '2';
        for (int i = 0; i < depth; i++)
            s[l++] = ')';
        s[l] = 0;
        struct expr e;
        unsigned col = 0;
        char err[256] = "";
        int rc = expr_parse(&e, s, EXPR_CTX_LAB, &col, err, sizeof err);
        if (depth == EXPR_MAX_DEPTH) {
            assert_int_equal(rc, 0);
            assert_true(expr_eval_lab(&e, NULL) == 2);
            expr_fini(&e);
        } else {
            assert_int_equal(rc, FS_EINVAL);
            assert_non_null(strstr(err, "nested too deeply"));
            assert_int_equal(col, EXPR_MAX_DEPTH);
        }
    }
    /* A chain as long as allowed evaluates (its depth is the evaluator's). */
    size_t l = 0;
    s[l++] = '1';
    while (l + 2 <= EXPR_MAX_LEN)
        s[l++] = '+', s[l++] = '1';
    s[l] = 0;
    struct expr e;
    unsigned col = 0;
    char err[256] = "";
    assert_int_equal(expr_parse(&e, s, EXPR_CTX_LAB, &col, err, sizeof err), 0);
    assert_true(expr_eval_lab(&e, NULL) == (double)(l + 1) / 2);
    expr_fini(&e);
    free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sig_outside_loop),
        cmocka_unit_test(test_sig_second_removes_tmp),
        cmocka_unit_test(test_sig_committed_kept),
        cmocka_unit_test(test_expr_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

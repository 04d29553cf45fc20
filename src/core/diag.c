#include "core/diag.h"

#include "core/file.h"

#include <stdarg.h>
#include <string.h>

int diag_set(struct diag *d, const char *file, struct srcpos pos, int code, const char *fmt, ...) {
    if (!d || d->msg[0]) return code;
    snprintf(d->file, sizeof d->file, "%s", file ? file : "");
    d->line = pos.line;
    d->col = pos.col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return code;
}

/* The message echoes input (names, values, paths): its control characters
 * are escaped so that it stays one line and cannot drive the terminal. */
void diag_format(const struct diag *d, char *buf, size_t len) {
    char raw[sizeof d->file + sizeof d->msg + 64];
    if (d->file[0] && d->line && d->col)
        snprintf(raw, sizeof raw, "%s:%u:%u: error: %s", d->file, d->line, d->col, d->msg);
    else if (d->file[0] && d->line) /* a line-oriented file (topology, dump): no column */
        snprintf(raw, sizeof raw, "%s:%u: error: %s", d->file, d->line, d->msg);
    else if (d->file[0])
        snprintf(raw, sizeof raw, "%s: error: %s", d->file, d->msg);
    else
        snprintf(raw, sizeof raw, "error: %s", d->msg);
    fs_escape_ctl(raw, buf, len);
}

void diag_print(const struct diag *d, FILE *f) {
    char buf[4096];
    diag_format(d, buf, sizeof buf);
    fprintf(f, "fabsim: %s\n", buf);
}

void fs_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...) {
    fprintf(stderr, "fabsim: internal error at %s:%d: assertion '%s' failed: ", file, line, expr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

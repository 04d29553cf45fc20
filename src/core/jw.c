#include "core/jw.h"

#include "core/diag.h"

#include <math.h>
#include <stdint.h>

/* The writer is the only user of its stream: no per-character locking (the
 * output is the same bytes). */
static void put_s(FILE *f, const char *s) {
    while (*s)
        putc_unlocked(*s++, f);
}

/* Decimal digits of v, as "%llu" prints them. */
static void put_u64(FILE *f, uint64_t v) {
    char buf[20], *end = jw_fmt_u64(buf, v);
    for (const char *c = buf; c < end; c++)
        putc_unlocked(*c, f);
}

void jw_init(struct jw *w, FILE *f) {
    w->f = f;
    w->depth = 0;
    w->first[0] = true;
    w->compact[0] = false;
    w->after_key = false;
}

static bool in_compact(const struct jw *w) {
    for (int i = 1; i <= w->depth; i++)
        if (w->compact[i]) return true;
    return false;
}

static void indent(struct jw *w) {
    if (in_compact(w)) {
        putc_unlocked(' ', w->f);
        return;
    }
    putc_unlocked('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        put_s(w->f, "  ");
}

/* Comma and newline before a value (or key) in the current container. */
static void pre(struct jw *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0) return;
    if (!w->first[w->depth]) putc_unlocked(',', w->f);
    w->first[w->depth] = false;
    indent(w);
}

static void open(struct jw *w, char c, bool compact) {
    pre(w);
    putc_unlocked(c, w->f);
    FS_ASSERT(w->depth + 1 < JW_MAX_DEPTH, "JSON nesting too deep");
    w->depth++;
    w->first[w->depth] = true;
    w->compact[w->depth] = compact;
}

static void close(struct jw *w, char c) {
    bool empty = w->first[w->depth];
    bool compact = w->compact[w->depth];
    w->depth--;
    if (!empty) {
        if (compact)
            putc_unlocked(' ', w->f);
        else
            indent(w);
    }
    putc_unlocked(c, w->f);
}

void jw_obj(struct jw *w) {
    open(w, '{', false);
}
void jw_obj_compact(struct jw *w) {
    open(w, '{', true);
}
void jw_obj_end(struct jw *w) {
    close(w, '}');
}
void jw_arr(struct jw *w) {
    open(w, '[', false);
}
void jw_arr_compact(struct jw *w) {
    open(w, '[', true);
}
void jw_arr_end(struct jw *w) {
    close(w, ']');
}

static void raw_str(FILE *f, const char *s) {
    putc_unlocked('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            putc_unlocked(*p, f);
    }
    putc_unlocked('"', f);
}

void jw_key(struct jw *w, const char *k) {
    pre(w);
    raw_str(w->f, k);
    put_s(w->f, ": ");
    w->after_key = true;
}

void jw_str(struct jw *w, const char *s) {
    pre(w);
    raw_str(w->f, s);
}
void jw_u64(struct jw *w, uint64_t v) {
    pre(w);
    put_u64(w->f, v);
}
void jw_i64(struct jw *w, int64_t v) {
    pre(w);
    fprintf(w->f, "%lld", (long long)v);
}
void jw_num(struct jw *w, double v) {
    pre(w);
    if (!isfinite(v))
        put_s(w->f, "null");
    else if (v == floor(v) && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
        /* an integer below 2^53: "%.0f" prints exactly its digits */
        if (v < 0) putc_unlocked('-', w->f);
        put_u64(w->f, (uint64_t)fabs(v));
    } else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(w->f, "%.0f", v); /* -0 */
    else
        fprintf(w->f, "%.12g", v);
}
void jw_bool(struct jw *w, bool v) {
    pre(w);
    put_s(w->f, v ? "true" : "false");
}
void jw_raw(struct jw *w, const char *json) {
    pre(w);
    put_s(w->f, json);
}

void jw_null(struct jw *w) {
    pre(w);
    put_s(w->f, "null");
}
void jw_kstr(struct jw *w, const char *k, const char *s) {
    jw_key(w, k);
    jw_str(w, s);
}
void jw_ku64(struct jw *w, const char *k, uint64_t v) {
    jw_key(w, k);
    jw_u64(w, v);
}
void jw_knum(struct jw *w, const char *k, double v) {
    jw_key(w, k);
    jw_num(w, v);
}
void jw_kbool(struct jw *w, const char *k, bool v) {
    jw_key(w, k);
    jw_bool(w, v);
}
void jw_end(struct jw *w) {
    putc_unlocked('\n', w->f);
}

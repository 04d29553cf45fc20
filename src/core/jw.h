/* src/core/jw.h
 *
 * A streaming JSON writer (no tree in memory): results are written once and
 * never parsed back by the simulator. Keeps a small nesting stack for commas
 * and indentation. Used by stats/results.c and report/.
 */
#ifndef FABSIM_CORE_JW_H
#define FABSIM_CORE_JW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

struct jw {
    FILE *f;
    int depth;
    bool first[JW_MAX_DEPTH];
    bool after_key;
    bool compact[JW_MAX_DEPTH]; /* one line for this container */
};

void jw_init(struct jw *w, FILE *f);
void jw_obj(struct jw *w);         /* { */
void jw_obj_compact(struct jw *w); /* { on one line */
void jw_obj_end(struct jw *w);     /* } */
void jw_arr(struct jw *w);
void jw_arr_compact(struct jw *w);
void jw_arr_end(struct jw *w);
void jw_key(struct jw *w, const char *k);
void jw_str(struct jw *w, const char *s);
void jw_u64(struct jw *w, uint64_t v);
void jw_i64(struct jw *w, int64_t v);
void jw_num(struct jw *w, double v); /* %.12g; non-finite as null */
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* A value that is already JSON text (e.g. a results.json read back). */
void jw_raw(struct jw *w, const char *json);
/* key + value shorthands */
void jw_kstr(struct jw *w, const char *k, const char *s);
void jw_ku64(struct jw *w, const char *k, uint64_t v);
void jw_knum(struct jw *w, const char *k, double v);
void jw_kbool(struct jw *w, const char *k, bool v);
void jw_end(struct jw *w); /* final newline */

/* The decimal digits of v at o, as "%llu" prints them; returns the end (at
 * most 20 characters, no terminator). The outputs' hand-formatted integers
 * (results.json here, links.csv in model/sampler.c). */
static inline char *jw_fmt_u64(char *o, uint64_t v) {
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        *o++ = tmp[--k];
    return o;
}

#endif /* FABSIM_CORE_JW_H */

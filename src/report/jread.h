/* src/report/jread.h
 *
 * A small JSON reader for the report: results.json and status files are read
 * back into a tree (the simulator itself never parses its outputs). Not for
 * the hot path; every node is malloc'd and freed with jread_free.
 */
#ifndef FABSIM_REPORT_JREAD_H
#define FABSIM_REPORT_JREAD_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
    enum jv_type type;
    bool b;
    double num;
    char *str;         /* JV_STR */
    size_t n;          /* items in JV_ARR / JV_OBJ */
    struct jv **items; /* values */
    char **keys;       /* JV_OBJ keys, parallel to items */
};

/* Parses `text` (NUL-terminated). NULL on a syntax error, with a message. */
struct jv *jread_parse(const char *text, char *err, size_t errlen);
/* Reads and parses a file; NULL when missing or malformed. */
struct jv *jread_file(const char *path, char *err, size_t errlen);
void jread_free(struct jv *v);

/* Member of an object (NULL when absent or `o` is not an object). */
const struct jv *jv_get(const struct jv *o, const char *key);
/* Dotted path through objects and, by decimal index, arrays, e.g.
 * "summary.packets_dropped", "jobs.0.stalled_ns". */
const struct jv *jv_path(const struct jv *o, const char *path);
/* Number at a dotted path, or `dflt` when absent / not a number. */
double jv_num_at(const struct jv *o, const char *path, double dflt);
const char *jv_str_at(const struct jv *o, const char *path, const char *dflt);
bool jv_bool_at(const struct jv *o, const char *path, bool dflt);

#endif /* FABSIM_REPORT_JREAD_H */

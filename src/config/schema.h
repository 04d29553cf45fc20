/* src/config/schema.h
 *
 * The scenario schema as data: one table per YAML mapping, one row per key
 * (name, type, field, defaults, where the default comes from). Private to
 * config/: schema.c walks YAML trees through the tables, scenario*.c hold the
 * tables themselves (one file per section), explain.c prints a scenario back
 * through them.
 */
#ifndef FABSIM_CONFIG_SCHEMA_H
#define FABSIM_CONFIG_SCHEMA_H

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct scenario;
struct topo_params;
struct yaml_node;
struct schema_table;

enum schema_type {
    SCHEMA_SIZE,         /* uint64_t bytes (B KiB MiB ...) */
    SCHEMA_TIME,         /* uint64_t picoseconds */
    SCHEMA_RATE,         /* uint64_t bit/s */
    SCHEMA_LENGTH,       /* uint64_t millimetres */
    SCHEMA_U32,          /* uint32_t, plain decimal */
    SCHEMA_U64,          /* uint64_t, plain decimal */
    SCHEMA_FRACTION,     /* double in [0, 1] */
    SCHEMA_FRACTION_POS, /* double in (0, 1] */
    SCHEMA_BOOL,
    SCHEMA_ENUM,   /* an enum field; `names` lists the spellings by value */
    SCHEMA_HOST,   /* uint32_t host index, from a name hN below the host count */
    SCHEMA_STRING, /* char *, owned by the scenario */
    SCHEMA_MAP,    /* the struct at `off`, described by `sub` */
    SCHEMA_LIST,   /* array pointer at `off`, size_t count at `off_n`, items described by `sub` */
    SCHEMA_CUSTOM, /* `parse` reads it, `print` writes it */
};

enum {
    SCHEMA_REQUIRED = 1, /* no default: absence is an error (in the modes of `only`) */
    SCHEMA_SELECTOR = 2, /* read first; its value is the table's mode (fabric.kind ...) */
    SCHEMA_ALIAS = 4,    /* another spelling of keys printed elsewhere: explain skips it */
};

struct schema_ctx;

struct schema_key {
    const char *name;
    enum schema_type type;
    size_t off;          /* offsetof the field in the table's struct */
    const char *def;     /* default, spelled as in a scenario file; NULL = none */
    const char *def_alt; /* default in the table's `alt_modes` (RoCE, rail_optimized, bgp) */
    const char *source;  /* where the default comes from (docs/sources.md section, SPEC.md) */
    unsigned flags;
    unsigned only;                  /* modes (1 << mode) the key belongs to; 0 = every mode */
    uint64_t min, max;              /* numeric range; max 0 = the type's maximum */
    const char *const *names;       /* SCHEMA_ENUM, NULL-terminated */
    const struct schema_table *sub; /* SCHEMA_MAP, SCHEMA_LIST */
    size_t off_n, elem_size;        /* SCHEMA_LIST */
    int (*parse)(struct schema_ctx *c, const struct yaml_node *n, void *obj);
    /* SCHEMA_CUSTOM: writes the value in flow style; `sc` is the whole scenario */
    void (*print)(FILE *f, const void *obj, const struct scenario *sc);
    bool (*show)(const void *obj); /* explain prints the key only if true */
};

struct schema_table {
    const char *what; /* "fabric", "workload entry": used in messages */
    const struct schema_key *keys;
    size_t nkeys;
    /* Modes: the value of the selector key (or of `infer`). Keys with `only`
     * belong to some modes; `alt_modes` pick the def_alt column. A table
     * without mode_of inherits the default column of its parent. */
    int (*mode_of)(const void *obj);
    const char *mode_what;         /* "topology kind", for "not used by" messages */
    const char *const *mode_names; /* by mode value */
    unsigned alt_modes;
    /* Called when the selector key is absent (or there is none) to work the
     * mode out from the other keys: 1 if it set the mode, 0 if not, or an
     * error. `map` may be NULL; `here` is the position to blame then. */
    int (*infer)(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                 void *obj);
    /* Cross-key validation after every key is read; same arguments. */
    int (*check)(struct schema_ctx *c, const struct yaml_node *map, const struct yaml_node *here,
                 void *obj);
    bool no_defaults; /* an alias block: only what it spells out */
    bool flow;        /* explain prints each item on one line */
    bool has_pos;     /* items of a list record their position at `pos_off` */
    size_t pos_off;
};

/* List items read in one load, all lists together, aliases expanded (one of
 * the limits of config/limits.h, docs/outputs.md "Limits"; checked as they
 * are read, before allocating). */
#define SC_MAX_LIST_ITEMS (1ull << 24)

/* State of one load: where errors go, the scenario being filled (its
 * topology is final before workload and events are read) and the dotted
 * path of the key being read, which prefixes messages. */
struct schema_ctx {
    struct diag *d;
    struct scenario *sc;
    const struct topo_params *topo; /* sc's topology, which schema_host checks names against */
    const char *file;
    char path[256];
    uint64_t items_read; /* list items so far, aliases expanded (SC_MAX_LIST_ITEMS) */
};

/* Reads `map` (NULL or null = all defaults) into `obj` through table `t`.
 * `alt` selects def_alt for tables that inherit their mode; `where` stands in
 * for the position when `map` is absent. Returns 0 or a negative FS_E*. */
int schema_read(struct schema_ctx *c, const struct schema_table *t, const struct yaml_node *map,
                void *obj, bool alt, const struct yaml_node *where);

/* Records an error at node `n` (its file:line:col), prefixed with the path. */
int schema_fail(struct schema_ctx *c, const struct yaml_node *n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Requires a non-null scalar; on success *text is its content. `expected`
 * completes "expected %s, got a list". */
int schema_text(struct schema_ctx *c, const struct yaml_node *n, const char *expected,
                const char **text);
/* Reads a scalar of a numeric type (SIZE, TIME, RATE, LENGTH, U32, U64) and
 * checks it against [min, max] (max 0 = the type's maximum). */
int schema_number(struct schema_ctx *c, enum schema_type type, const struct yaml_node *n,
                  uint64_t min, uint64_t max, uint64_t *out);
/* Reads a host name hN (N below the topology's host count) or, when gpu_ok,
 * a GPU name hN.gM, returned as the GPU id N * gpus_per_host + M. */
int schema_host(struct schema_ctx *c, const struct yaml_node *n, bool gpu_ok, uint32_t *out,
                bool *is_gpu);
/* Appends "; did you mean 'x'?" when one of `cands` is close to `word`. */
void schema_suggest(char *buf, size_t len, const char *word, const char *const *cands,
                    size_t ncands);

/* Exact text for a value of a numeric type, re-readable by schema_number:
 * the largest unit that divides it ("4MiB", "25ns", "400Gbps", "5m"). */
void schema_fmt(enum schema_type type, uint64_t v, char *buf, size_t len);
/* The shortest decimal that reads back as exactly `v`. */
void schema_fmt_double(double v, char *buf, size_t len);

extern const struct schema_table SCHEMA_SCENARIO;

/* A key's `source` as the repository names it: the schema's sources say
 * "docs/sources.md A4" and "SPEC.md", whose copies in the repository are
 * docs/sources.md and docs/spec.md (explain.c; used by explain and schema). */
void schema_source_text(const char *src, char *buf, size_t len);

#endif /* FABSIM_CONFIG_SCHEMA_H */

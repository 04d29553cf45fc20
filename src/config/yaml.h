/* src/config/yaml.h
 *
 * A YAML document as a small tree of scalars, mappings and sequences in which
 * every node remembers the file:line:column it came from. This wrapper is the
 * only includer of <libfyaml.h> (STYLE.md §15); config/schema.c walks the
 * tree and applies the schema. It also applies --set overrides (SPEC.md).
 */
#ifndef FABSIM_CONFIG_YAML_H
#define FABSIM_CONFIG_YAML_H

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum yaml_type { YAML_SCALAR, YAML_MAP, YAML_SEQ };

struct yaml_pair {
    struct yaml_node *key, *val;
};

struct yaml_node {
    enum yaml_type type;
    const char *file; /* for diagnostics: the scenario path, or "--set" */
    struct srcpos pos;
    /* YAML_SCALAR: the content, NUL-terminated (input with NUL bytes is rejected) */
    char *text;
    size_t len;
    bool quoted; /* quoted or block style: never null by form */
    /* YAML_MAP: pairs in document order (duplicates are kept; the schema reports them) */
    struct yaml_pair *pairs;
    size_t npairs;
    /* YAML_SEQ */
    struct yaml_node **items;
    size_t nitems;
    size_t cap;
    uint64_t expanded; /* nodes with every alias expanded (capped), for the limit */
};

/* The tree owns every node; aliases share nodes, so free only via the doc. */
struct yaml_doc {
    struct yaml_node *root; /* NULL when the file holds no document */
    char *file;
    struct yaml_node **nodes;
    size_t nnodes, cap;
};

/* Largest scenario file accepted, and the deepest nesting. Scenarios are a few
 * levels deep and at most a few MB; the limits keep hostile input cheap. */
#define YAML_MAX_FILE_BYTES (64u << 20)
#define YAML_MAX_DEPTH 64
/* Nodes a document may stand for once aliases are expanded (16.8M, about
 * 2M flows), when that is more than twice what the file holds. */
#define YAML_MAX_EXPANDED_NODES (1ull << 24)

/* Reads and parses `path` (one UTF-8 YAML document). Returns 0, FS_ENOENT when
 * the file cannot be opened, or FS_EINVAL with file:line:col in `d` for text
 * that is not UTF-8 or not YAML. On error the doc is left empty. */
int yaml_load_file(struct yaml_doc *doc, const char *path, struct diag *d);
/* Same for text in memory; `name` stands in for the file name in errors. */
int yaml_load_string(struct yaml_doc *doc, const char *text, size_t len, const char *name,
                     struct diag *d);
/* Applies one override "dotted.path=value" (SPEC.md --set). The value is
 * parsed as YAML; mapping keys missing along the path are created, sequence
 * items are addressed by index and must exist. Nodes made here report file
 * "--set", line = `index` (1-based number of the override) and the column in
 * `arg`. Whether a key belongs to the schema is checked later, by the caller. */
int yaml_set(struct yaml_doc *doc, const char *arg, unsigned index, struct diag *d);
void yaml_doc_fini(struct yaml_doc *doc);

/* A plain scalar spelled as YAML null ("", ~, null). */
bool yaml_is_null(const struct yaml_node *n);
/* The value stored under `key` in a mapping (the first one), or NULL. */
const struct yaml_node *yaml_map_get(const struct yaml_node *map, const char *key);
/* "a mapping", "a list", "nothing" or "a value", for "expected X, got Y". */
const char *yaml_describe(const struct yaml_node *n);

#endif /* FABSIM_CONFIG_YAML_H */

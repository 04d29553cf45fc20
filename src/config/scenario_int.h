/* src/config/scenario_int.h
 *
 * Private to config/scenario*.c, which hold the scenario schema of SPEC.md as
 * tables, one file per section: scenario_fabric.c, scenario_congestion.c,
 * scenario_topology.c, scenario_workload.c, scenario_events.c; the top level,
 * `output:` and the loader in scenario.c. What they share is here.
 */
#ifndef FABSIM_CONFIG_SCENARIO_INT_H
#define FABSIM_CONFIG_SCENARIO_INT_H

#include "config/schema.h"
#include "config/yaml.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define M(x) (1u << (x))
#define TABLE(w, k) .what = w, .keys = k, .nkeys = N(k)
#define KEY(n, t, o, d, alt, src)                                                                  \
    .name = n, .type = t, .off = o, .def = d, .def_alt = alt, .source = src

/* Largest fabric fabsim builds: hosts, and links between two switch tiers. */
#define MAX_HOSTS (1u << 20)
#define MAX_TIER_LINKS (1ull << 24)

/* The sections' tables (SCHEMA_SCENARIO in schema.h is the root). */
extern const struct schema_table SCHEMA_FABRIC, SCHEMA_PFC, SCHEMA_ECN, SCHEMA_DCQCN, SCHEMA_IBCC,
    SCHEMA_HPCC, SCHEMA_DCTCP, SCHEMA_TIMELY;
extern const struct schema_table SCHEMA_TOPOLOGY, SCHEMA_WORKLOAD, SCHEMA_EVENTS;
extern const struct schema_table SCHEMA_UET, SCHEMA_NSCC, SCHEMA_RCCC; /* scenario_uet.c */
struct fabric_params;
/* fabric.kind uet: its defaults for keys shared with RoCE (scenario_uet.c). */
int scenario_uet_defaults(struct schema_ctx *c, const struct yaml_node *map,
                          const struct yaml_node *here, struct fabric_params *f);
extern const struct schema_table SCHEMA_CBFC, SCHEMA_LLR; /* scenario_link.c */

/* A size, or `auto` (0); printed back the same way (scenario_fabric.c). */
int scenario_auto_size(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out);
void scenario_auto_size_print(FILE *f, uint64_t v);
/* A time, or `auto` (0: the model derives it); printed back the same way
 * (scenario_congestion.c). */
int scenario_auto_time(struct schema_ctx *c, const struct yaml_node *n, uint64_t *out);
void scenario_auto_time_print(FILE *f, uint64_t v);

/* A path in the scenario is relative to the scenario file's folder; kept
 * absolute when it exists, so that `validate --explain` prints a path that
 * reads back from anywhere. Returns a malloc'd string. */
char *scenario_path_near(const char *scenario_file, const char *p);

/* The value under `key`, or the mapping itself (or `here`) to blame. */
static inline const struct yaml_node *at(const struct yaml_node *map, const struct yaml_node *here,
                                         const char *key) {
    const struct yaml_node *v = yaml_map_get(map, key);
    return v ? v : map ? map : here;
}

static inline const struct yaml_node *key_node(const struct yaml_node *map, const char *key) {
    for (size_t i = 0; map && map->type == YAML_MAP && i < map->npairs; i++)
        if (map->pairs[i].key->type == YAML_SCALAR && !strcmp(map->pairs[i].key->text, key))
            return map->pairs[i].key;
    return NULL;
}

static inline void print_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static inline void print_size(FILE *f, uint64_t v) {
    char buf[48];
    schema_fmt(SCHEMA_SIZE, v, buf, sizeof buf);
    fputs(buf, f);
}

#endif /* FABSIM_CONFIG_SCENARIO_INT_H */

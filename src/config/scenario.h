/* src/config/scenario.h
 *
 * The validated scenario: plain structs with every unit converted (bytes, ps,
 * bit/s), every default resolved from fabric.kind (docs/sources.md), and every name
 * that the topology can check already checked. Built by config/scenario*.c
 * from a YAML file (one file per section). It embeds the model's own parameter
 * structs (net/params.h and the modules' headers); the model reads them
 * through struct model_params, which config/scenario_model.c fills (config ->
 * model, never the reverse). Strings kept here are only those the model
 * resolves against the built topology (link names in events).
 */
#ifndef FABSIM_CONFIG_SCENARIO_H
#define FABSIM_CONFIG_SCENARIO_H

#include "core/diag.h"
#include "net/params.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scenario {
    char *file; /* path it was read from, for errors */
    char *name;
    uint64_t seed;
    uint64_t stop_ps; /* 0 = until the workload completes */
    struct fabric_params fabric;
    struct topo_params topo;
    struct wl_entry *workload;
    size_t nworkload;
    struct sc_event *events;
    size_t nevents;
    struct output_params output;
};

/* Default stop cap when `stop` is not given (SPEC.md). */
#define SCENARIO_STOP_CAP_PS MODEL_STOP_CAP_PS

/* Number of hosts the topology parameters describe. */
uint32_t scenario_host_count(const struct topo_params *t);

/* Loads and validates `path`, applying `nsets` overrides "dotted.key=value"
 * (SPEC.md --set) before validation. Returns 0, or a negative FS_E* with `d`
 * filled. On success the caller owns `sc` and frees it with scenario_fini. */
int scenario_load(struct scenario *sc, const char *path, const char *const *sets, size_t nsets,
                  struct diag *d);
/* Same from a string (tests); `name_for_errors` stands in for the file name. */
int scenario_load_string(struct scenario *sc, const char *text, const char *name_for_errors,
                         const char *const *sets, size_t nsets, struct diag *d);
void scenario_fini(struct scenario *sc);

/* Writes the resolved scenario with every default as YAML (validate --explain). */
void scenario_explain(const struct scenario *sc, FILE *f);
/* The scenario language as a JSON Schema (draft-07) from the same tables
 * (`fabsim schema`; config/jsonschema.c). */
void scenario_json_schema(FILE *f);

/* config -> model (config/scenario_model.c): the parameters the model reads,
 * from `sc` (which must outlive whatever uses them). */
void scenario_model_params(const struct scenario *sc, struct model_params *p);
/* Builds the model of `sc`: scenario_model_params, then model/model.h
 * model_build_params. 0, or a negative FS_E* with `d` filled. */
struct model;
int model_build(struct model *m, const struct scenario *sc, struct diag *d);
/* The build for rank `rank` of `nranks` (model/model.h model_build_part). */
int model_build_rank(struct model *m, const struct scenario *sc, uint32_t rank, uint32_t nranks,
                     struct diag *d);
/* model/estimate.h model_check_memory for `sc`. */
int scenario_check_memory(const struct scenario *sc, uint64_t limit_bytes, struct diag *d);

#endif /* FABSIM_CONFIG_SCENARIO_H */

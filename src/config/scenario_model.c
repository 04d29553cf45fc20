/* src/config/scenario_model.c
 *
 * config -> model: the parameters the model reads (net/params.h struct
 * model_params), taken from a loaded scenario. The model's modules own their
 * parameter structs and never include config/; this file is where the two
 * meet (docs/model.md "Layout").
 */
#include "config/scenario.h"

#include "model/estimate.h"
#include "model/model.h"

void scenario_model_params(const struct scenario *sc, struct model_params *p) {
    *p = (struct model_params){
        .file = sc->file,
        .name = sc->name,
        .seed = sc->seed,
        .stop_ps = sc->stop_ps,
        .fabric = sc->fabric,
        .topo = sc->topo,
        .workload = sc->workload,
        .nworkload = sc->nworkload,
        .events = sc->events,
        .nevents = sc->nevents,
        .output = sc->output,
    };
}

int model_build(struct model *m, const struct scenario *sc, struct diag *d) {
    struct model_params p;
    scenario_model_params(sc, &p);
    return model_build_params(m, &p, d);
}

int model_build_rank(struct model *m, const struct scenario *sc, uint32_t rank, uint32_t nranks,
                     struct diag *d) {
    struct model_params p;
    scenario_model_params(sc, &p);
    return model_build_part(m, &p, rank, nranks, d);
}

int scenario_check_memory(const struct scenario *sc, uint64_t limit_bytes, struct diag *d) {
    struct model_params p;
    scenario_model_params(sc, &p);
    return model_check_memory(&p, limit_bytes, d);
}

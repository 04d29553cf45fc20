/* src/topo/topo.h
 *
 * Topology builders: single_switch, leaf_spine (with parallel uplinks),
 * fat_tree (3-tier k-ary, Al-Fares 2008) and ring, with the names of SPEC.md.
 * Hosts are created first, so host i is node i. Called once by net/model.c.
 */
#ifndef FABSIM_TOPO_TOPO_H
#define FABSIM_TOPO_TOPO_H

#include <stdbool.h>
#include <stdint.h>

struct net;
struct topo_file;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum topo_kind {
    TOPO_SINGLE_SWITCH,
    TOPO_LEAF_SPINE,
    TOPO_FAT_TREE,
    TOPO_RING,
    TOPO_RAIL_OPTIMIZED,
    TOPO_FILE /* a user's own fabric from a file (topo/tfile.h, docs/inputs.md) */
};

struct topo_params {
    enum topo_kind kind;
    /* leaf_spine */
    uint32_t leaves, spines, hosts_per_leaf, uplinks_per_spine;
    /* fat_tree */
    uint32_t k;
    /* ring */
    uint32_t ring_switches, ring_hosts_per_switch;
    /* single_switch */
    uint32_t hosts;
    /* rail_optimized: hosts, gpus_per_host (= leaves), spines */
    uint32_t gpus_per_host;
    uint64_t nvlink_bps;
    /* file: the path (resolved against the scenario's folder), its format
     * (enum tfile_format), link rates from the file (or all fabric.link),
     * and the fabric read from it when the scenario was loaded */
    char *file_path;
    int file_format;
    bool file_rates;
    struct topo_file *file;
    /* NVLink calibration (docs/validation.md): the share of the NVLink rate
     * NCCL's kernels get, and the NVSwitch's NVLS reduction throughput */
    double nvlink_efficiency; /* (0, 1] */
    double nvls_efficiency;   /* (0, 1]: share of `nvlink` NVLS's multimem traffic gets */
    uint64_t nvls_rate_bps;   /* reduced bytes per second per NVSwitch; 0 = unlimited */
};

struct model_params;
struct diag;

/* Number of hosts the topology parameters describe (saturates at UINT32_MAX). */
uint32_t topo_host_count(const struct topo_params *t);

int topo_build(struct net *n, const struct model_params *sc, struct diag *d);

#endif /* FABSIM_TOPO_TOPO_H */

/* src/topo/topo_params.h
 *
 * The topology's parameters, plain data: what net/params.h embeds in the
 * run's parameters. Kept apart from the builders (topo/topo.h) so the
 * packet layer can carry them without including what builds on it.
 */
#ifndef FABSIM_TOPO_TOPO_PARAMS_H
#define FABSIM_TOPO_TOPO_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

struct topo_file;

/* Parameters: config/ fills them from the scenario (docs/scenario.md); the
 * module reads them and never includes config/. */
enum topo_kind {
    TOPO_SINGLE_SWITCH,
    TOPO_LEAF_SPINE,
    TOPO_FAT_TREE,
    TOPO_RING,
    TOPO_RAIL_OPTIMIZED,
    TOPO_FILE, /* a user's own fabric from a file (topo/tfile.h, docs/inputs.md) */
    TOPO_NVL72 /* NVLink racks (GB200/GB300 NVL72): rail_optimized with a host = a rack */
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
    /* rail_optimized: hosts, gpus_per_host, spines, rails (rail leaves; GPU
     * g's NIC on rail g mod rails; 0 = one rail per GPU). nvl72: hosts =
     * racks, gpus_per_host = 72 (the NVLink domain), rails = GPUs per tray */
    uint32_t gpus_per_host;
    uint32_t rails;
    uint64_t nvlink_bps;
    /* file: the path (resolved against the scenario's folder), its format
     * (enum tfile_format), link rates from the file (or all fabric.link),
     * and the fabric read from it when the scenario was loaded */
    char *file_path;
    int file_format;
    int file_group; /* enum tfile_group: a host is a server or an HCA */
    bool file_rates;
    struct topo_file *file;
    /* NVLink calibration (docs/validation.md): the share of the NVLink rate
     * NCCL's kernels get, and the NVSwitch's NVLS reduction throughput */
    double nvlink_efficiency; /* (0, 1] */
    double nvls_efficiency;   /* (0, 1]: share of `nvlink` NVLS's multimem traffic gets */
    uint64_t nvls_rate_bps;   /* reduced bytes per second per NVSwitch; 0 = unlimited */
};

#endif /* FABSIM_TOPO_TOPO_PARAMS_H */

/* src/topo/topo.h
 *
 * Topology builders: single_switch, leaf_spine (with parallel uplinks),
 * fat_tree (3-tier k-ary, Al-Fares 2008) and ring, with the names of SPEC.md.
 * Hosts are created first, so host i is node i. Called once by model/model.c.
 */
#ifndef FABSIM_TOPO_TOPO_H
#define FABSIM_TOPO_TOPO_H

#include "topo/topo_params.h"

#include <stdbool.h>
#include <stdint.h>

struct net;
struct topo_file;

struct model_params;
struct diag;

/* rail_optimized: groups of hosts_per_leaf hosts (scalable units), each
 * with its own rail leaves; 1 for every other kind. */
uint32_t topo_rail_groups(const struct topo_params *t);

/* Number of hosts the topology parameters describe (saturates at UINT32_MAX). */
uint32_t topo_host_count(const struct topo_params *t);

int topo_build(struct net *n, const struct model_params *sc, struct diag *d);

#endif /* FABSIM_TOPO_TOPO_H */

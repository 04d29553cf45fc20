/* src/topo/topo.h
 *
 * Topology builders: single_switch, leaf_spine (with parallel uplinks),
 * fat_tree (3-tier k-ary, Al-Fares 2008) and ring, with the names of SPEC.md.
 * Hosts are created first, so host i is node i. Called once by net/model.c.
 */
#ifndef FABSIM_TOPO_TOPO_H
#define FABSIM_TOPO_TOPO_H

struct net;
struct scenario;
struct diag;

int topo_build(struct net *n, const struct scenario *sc, struct diag *d);

#endif /* FABSIM_TOPO_TOPO_H */

/* src/topo/tfile.h
 *
 * A user's own fabric (topology kind: file, docs/inputs.md): the node table
 * config/tfile_yaml.c read and checked (from fabsim's YAML form, from
 * `ibnetdiscover` output or an ibsim net file), built into the net like the
 * generators' fabrics. Built by topo/topo.c.
 */
#ifndef FABSIM_TOPO_TFILE_H
#define FABSIM_TOPO_TFILE_H

#include "topo/tfile_node.h"

#include <stdint.h>

struct net;

/* Builds the nodes and links into `n` (hosts first, in host order, as the
 * generators do). `rates_from_file` false: every link at link_bps. */
void tfile_build(struct net *n, const struct topo_file *tf, uint64_t link_bps, uint64_t prop_ps,
                 uint64_t nvlink_bps, int rates_from_file);

/* After net_finish_ports: each node's ports in the file's port order. */
void tfile_order_ports(struct net *n, const struct topo_file *tf);

#endif /* FABSIM_TOPO_TFILE_H */

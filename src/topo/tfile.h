/* src/topo/tfile.h
 *
 * A user's own fabric (topology kind: file, docs/inputs.md): nodes and
 * cables read from fabsim's YAML form, from `ibnetdiscover` output
 * (infiniband-diags) or from an ibsim net file, checked (unknown port, a
 * port used twice, a link to nowhere, a disconnected fabric: file:line
 * errors), then built into the net like the generators' fabrics. Read by
 * config/ when the scenario is loaded (the host count is needed there),
 * built by topo/topo.c; written back by `fabsim topology` (cli/).
 */
#ifndef FABSIM_TOPO_TFILE_H
#define FABSIM_TOPO_TFILE_H

#include "topo/tfile_node.h"

#include <stdint.h>
#include <stdio.h>

struct net;
struct diag;
struct scenario;

/* Reads and checks `path`. 0, or a negative FS_E* with `d` at file:line. */
int tfile_read(struct topo_file *tf, const char *path, enum tfile_format fmt, struct diag *d);

/* The parsers (tfile.c: yaml; tfile_ib.c: ibnetdiscover and ibsim,
 * topo/tfile_ib.h) fill nodes and links; tfile_read then checks and orders
 * them. */
int tfile_parse_yaml(struct topo_file *tf, const char *path, struct diag *d);

/* Builds the nodes and links into `n` (hosts first, in host order, as the
 * generators do). `rates_from_file` false: every link at link_bps. */
void tfile_build(struct net *n, const struct topo_file *tf, uint64_t link_bps, uint64_t prop_ps,
                 uint64_t nvlink_bps, int rates_from_file);

/* After net_finish_ports: each node's ports in the file's port order. */
void tfile_order_ports(struct net *n, const struct topo_file *tf);

/* Writes the built fabric `n` in fabsim's YAML form (docs/inputs.md). */
void tfile_write_yaml(const struct net *n, const struct scenario *sc, FILE *f);

#endif /* FABSIM_TOPO_TFILE_H */

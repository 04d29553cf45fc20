/* src/config/tfile_yaml.h
 *
 * A user's topology file (topology kind: file, docs/inputs.md) as input:
 * nodes and cables read from fabsim's YAML form, from `ibnetdiscover` output
 * (infiniband-diags) or from an ibsim net file, checked (unknown port, a
 * port used twice, a link to nowhere, a disconnected fabric: file:line
 * errors). Read when the scenario is loaded (the host count is needed
 * there); topo/tfile.c builds it. Written back by `fabsim topology` (cli/).
 */
#ifndef FABSIM_CONFIG_TFILE_YAML_H
#define FABSIM_CONFIG_TFILE_YAML_H

#include "topo/tfile_node.h"

#include <stdio.h>

struct net;
struct diag;
struct scenario;

/* Reads and checks `path`; `group` says what one host of ibnetdiscover or
 * ibsim text is. 0, or a negative FS_E* with `d` at file:line. */
int tfile_read(struct topo_file *tf, const char *path, enum tfile_format fmt,
               enum tfile_group group, struct diag *d);

/* The parsers (here: yaml; topo/tfile_ib.c: ibnetdiscover and ibsim) fill
 * nodes and links; tfile_read then checks and orders them. */
int tfile_parse_yaml(struct topo_file *tf, const char *path, struct diag *d);

/* Writes the built fabric `n` in fabsim's YAML form (docs/inputs.md). */
void tfile_write_yaml(const struct net *n, const struct scenario *sc, FILE *f);

#endif /* FABSIM_CONFIG_TFILE_YAML_H */

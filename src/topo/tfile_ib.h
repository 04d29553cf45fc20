/* src/topo/tfile_ib.h
 *
 * The InfiniBand text forms of a topology file (topo/tfile_ib.c):
 * `ibnetdiscover` output and ibsim net files. Called by tfile_read
 * (topo/tfile.c) only.
 */
#ifndef FABSIM_TOPO_TFILE_IB_H
#define FABSIM_TOPO_TFILE_IB_H

#include "topo/tfile_node.h"

struct diag;

int tfile_parse_ib(struct topo_file *tf, const char *path, const char *text, enum tfile_format fmt,
                   enum tfile_group group, struct diag *d);

#endif /* FABSIM_TOPO_TFILE_IB_H */

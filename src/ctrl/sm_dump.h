/* src/ctrl/sm_dump.h
 *
 * OpenSM's opensm-lfts.dump of the subnet manager's LFTs, written and read
 * (ctrl/sm_dump.c), and the fabric as an ibsim net file. Called by the
 * `file` routing engine (ctrl/sm_route.c) and `fabsim routes` (cli/).
 */
#ifndef FABSIM_CTRL_SM_DUMP_H
#define FABSIM_CTRL_SM_DUMP_H

#include <stdio.h>

struct net;
struct sm;
struct diag;

/* opensm-lfts.dump of sm->tab. */
void sm_dump_write(const struct net *n, const struct sm *sm, FILE *f);
/* The fabric as an ibsim net file (hosts first: the SM runs on h0), node
 * descriptions = fabsim names, so OpenSM's dump of it reads back by name. */
void sm_ibsim_write(const struct net *n, FILE *f);
/* Reads an opensm-lfts.dump into sm->next; errors with file:line:col. */
int sm_dump_read(struct net *n, struct sm *sm, const char *path, struct diag *d);

#endif /* FABSIM_CTRL_SM_DUMP_H */

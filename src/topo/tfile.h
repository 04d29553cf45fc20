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

#include <stdint.h>
#include <stdio.h>

struct net;
struct diag;
struct scenario;

enum tfile_format { TFILE_AUTO, TFILE_YAML, TFILE_IBNETDISCOVER, TFILE_IBSIM };
enum tfile_kind { TFILE_HOST, TFILE_SWITCH };

#define TFILE_NONE UINT32_MAX

struct tfile_node {
    char name[24];
    uint8_t kind; /* enum tfile_kind */
    uint8_t role; /* enum node_role, or 0xff: from the level */
    uint16_t pad;
    uint32_t gpus;  /* hosts: GPU endpoints, each with its own NIC (1 = the host is one) */
    uint32_t ports; /* switches: port count, 0 = not given (any number) */
    uint32_t line;
};

struct tfile_link {
    uint32_t a, b;         /* node indices */
    uint32_t nic_a, nic_b; /* on a multi-GPU host: the NIC (GPU) index, else 0 */
    uint32_t pa, pb;       /* port numbers (1-based), 0 = not given */
    uint64_t rate_bps;     /* 0 = fabric.link */
    uint64_t length_mm;    /* cable length; UINT64_MAX = not given (fabric.cable) */
    uint32_t line;
};

struct topo_file {
    char *path;
    struct tfile_node *nodes;
    uint32_t nnodes;
    struct tfile_link *links;
    uint32_t nlinks;
    uint32_t nhosts; /* host nodes */
    uint32_t gpus;   /* GPU endpoints per host (every host has the same) */
};

/* Reads and checks `path`. 0, or a negative FS_E* with `d` at file:line. */
int tfile_read(struct topo_file *tf, const char *path, enum tfile_format fmt, struct diag *d);
void tfile_free(struct topo_file *tf);

/* The parsers (tfile.c: yaml; tfile_ib.c: ibnetdiscover and ibsim) fill
 * nodes and links; tfile_read then checks and orders them. */
int tfile_parse_yaml(struct topo_file *tf, const char *path, struct diag *d);
int tfile_parse_ib(struct topo_file *tf, const char *path, const char *text, enum tfile_format fmt,
                   struct diag *d);
/* Shared by the parsers: a node by name, or TFILE_NONE; adding nodes and
 * links (checks ports: unknown, used twice). */
uint32_t tfile_node_find(const struct topo_file *tf, const char *name);
uint32_t tfile_node_add(struct topo_file *tf, const char *name, enum tfile_kind kind,
                        uint32_t line);

/* Builds the nodes and links into `n` (hosts first, in host order, as the
 * generators do). `rates_from_file` false: every link at link_bps. */
void tfile_build(struct net *n, const struct topo_file *tf, uint64_t link_bps, uint64_t prop_ps,
                 uint64_t nvlink_bps, int rates_from_file);

/* After net_finish_ports: each node's ports in the file's port order. */
void tfile_order_ports(struct net *n, const struct topo_file *tf);

/* Writes the built fabric `n` in fabsim's YAML form (docs/inputs.md). */
void tfile_write_yaml(const struct net *n, const struct scenario *sc, FILE *f);

#endif /* FABSIM_TOPO_TFILE_H */

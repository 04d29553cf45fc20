/* src/topo/tfile_node.h
 *
 * A topology file as read (topo/tfile.h): its node table and its links.
 * The parsers (tfile.c: YAML; tfile_ib.c: ibnetdiscover and ibsim) fill it
 * through tfile_node_add and tfile_node_find (topo/tfile_node.c), so that
 * neither parser needs the other's file.
 */
#ifndef FABSIM_TOPO_TFILE_NODE_H
#define FABSIM_TOPO_TFILE_NODE_H

#include <stdint.h>

enum tfile_format { TFILE_AUTO, TFILE_YAML, TFILE_IBNETDISCOVER, TFILE_IBSIM };
enum tfile_kind { TFILE_HOST, TFILE_SWITCH };
/* ibnetdiscover / ibsim: what one host is (topology.group, docs/inputs.md):
 * a server (its HCAs by node description or system image GUID) or an HCA */
enum tfile_group { TFILE_GROUP_SERVER, TFILE_GROUP_HCA };

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
    uint32_t buffer_bytes; /* each end's egress buffer; 0 = fabric.buffer (YAML `buffer`) */
    uint32_t line;
    uint32_t buffer_col; /* where `buffer` was given, for the flow-control check */
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

/* Frees what tfile_read (or a parser) filled; tf is zeroed. */
void tfile_free(struct topo_file *tf);

/* Shared by the parsers: a node by name, or TFILE_NONE; adding nodes and
 * links (checks ports: unknown, used twice). */
uint32_t tfile_node_find(const struct topo_file *tf, const char *name);
uint32_t tfile_node_add(struct topo_file *tf, const char *name, enum tfile_kind kind,
                        uint32_t line);

#endif /* FABSIM_TOPO_TFILE_NODE_H */

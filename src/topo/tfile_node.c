/* src/topo/tfile_node.c
 *
 * The node table of a topology file (topo/tfile_node.h), shared by the
 * parsers.
 */
#include "topo/tfile_node.h"

#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t tfile_node_find(const struct topo_file *tf, const char *name) {
    for (uint32_t i = 0; i < tf->nnodes; i++)
        if (!strcmp(tf->nodes[i].name, name)) return i;
    return TFILE_NONE;
}

uint32_t tfile_node_add(struct topo_file *tf, const char *name, enum tfile_kind kind,
                        uint32_t line) {
    tf->nodes = fs_xrealloc(tf->nodes, (tf->nnodes + 1) * sizeof *tf->nodes);
    struct tfile_node *nd = &tf->nodes[tf->nnodes];
    memset(nd, 0, sizeof *nd);
    snprintf(nd->name, sizeof nd->name, "%s", name);
    nd->kind = (uint8_t)kind;
    nd->role = 0xff;
    nd->gpus = 1;
    nd->line = line;
    return tf->nnodes++;
}

void tfile_free(struct topo_file *tf) {
    free(tf->path);
    free(tf->nodes);
    free(tf->links);
    memset(tf, 0, sizeof *tf);
}

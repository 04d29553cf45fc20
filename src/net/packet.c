#include "net/packet.h"

#include "core/mem.h"

#include <stdlib.h>

void pkt_pool_init(struct pkt_pool *pp) {
    pp->chunks = NULL;
    pp->nchunks = pp->chunks_cap = 0;
    pp->free_head = PKT_NONE;
    pp->in_use = pp->peak = 0;
}

void pkt_pool_fini(struct pkt_pool *pp) {
    for (uint32_t i = 0; i < pp->nchunks; i++)
        free(pp->chunks[i]);
    free(pp->chunks);
    pkt_pool_init(pp);
}

/* Adds one chunk and threads it onto the free list; returns the first id. */
uint32_t pkt_pool_grow(struct pkt_pool *pp) {
    if (pp->nchunks == pp->chunks_cap) {
        pp->chunks_cap = pp->chunks_cap ? pp->chunks_cap * 2 : 16;
        pp->chunks = fs_xrealloc(pp->chunks, pp->chunks_cap * sizeof *pp->chunks);
    }
    struct packet *c = fs_xcalloc(PKT_POOL_CHUNK, sizeof *c);
    uint32_t base = pp->nchunks << PKT_POOL_CHUNK_SHIFT;
    pp->chunks[pp->nchunks++] = c;
    for (uint32_t i = 0; i < PKT_POOL_CHUNK; i++)
        c[i].next = i + 1 < PKT_POOL_CHUNK ? base + i + 1 : pp->free_head;
    pp->free_head = base;
    return base;
}

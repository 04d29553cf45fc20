/* src/core/intern.c
 *
 * Interning of uint32 lists (core/intern.h). The hash index is rebuilt at
 * twice the size when half full, so a probe stays short.
 */
#include "core/intern.h"

#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

uint64_t intern_hash(const uint32_t *p, uint32_t c) {
    uint64_t h = 0xcbf29ce484222325ull ^ c;
    for (uint32_t i = 0; i < c; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

static void intern_rehash(struct intern *in, size_t nslots) {
    free(in->slot);
    in->slot = fs_xcalloc(nslots, sizeof *in->slot);
    in->nslots = nslots;
    const uint32_t *off = *in->off, *items = *in->items;
    for (uint32_t id = 0; id < *in->n; id++) {
        size_t i = intern_hash(items + off[id], off[id + 1] - off[id]) & (nslots - 1);
        while (in->slot[i])
            i = (i + 1) & (nslots - 1);
        in->slot[i] = id + 1;
    }
}

void intern_init(struct intern *in, uint32_t *n, uint32_t **off, uint32_t **items) {
    memset(in, 0, sizeof *in);
    in->n = n;
    in->off = off;
    in->items = items;
    *n = 0;
    *off = NULL;
    *items = NULL;
    fs_grow((void **)off, &in->off_cap, 1, sizeof **off);
    (*off)[0] = 0;
    fs_grow((void **)items, &in->items_cap, 1, sizeof **items);
    intern_rehash(in, 64);
}

uint32_t intern_add(struct intern *in, const uint32_t *p, uint32_t c) {
    size_t i = intern_hash(p, c) & (in->nslots - 1);
    for (; in->slot[i]; i = (i + 1) & (in->nslots - 1)) {
        uint32_t id = in->slot[i] - 1;
        const uint32_t *off = *in->off;
        if (off[id + 1] - off[id] == c && (!c || !memcmp(*in->items + off[id], p, c * sizeof *p)))
            return id;
    }
    uint32_t id = (*in->n)++;
    fs_grow((void **)in->off, &in->off_cap, (size_t)*in->n + 1, sizeof **in->off);
    uint32_t *off = *in->off;
    fs_grow((void **)in->items, &in->items_cap, (size_t)off[id] + c + 1, sizeof **in->items);
    if (c) memcpy(*in->items + off[id], p, c * sizeof *p);
    off[id + 1] = off[id] + c;
    in->slot[i] = id + 1;
    if ((size_t)*in->n * 2 > in->nslots) intern_rehash(in, in->nslots * 2);
    return id;
}

void intern_fini(struct intern *in) {
    free(in->slot);
    in->slot = NULL;
    in->nslots = 0;
}

/* src/core/intern.h
 *
 * Interning of uint32 lists (candidate port sets): each distinct list is
 * stored once in the caller's arrays, list `id` being items[off[id] ..
 * off[id + 1]), and named by its id, in order of first appearance. Open
 * addressing on a hash of the list. Used by the FIB (route/fib.c) and the
 * subnet manager's routing engines (ctrl/sm_route.c).
 */
#ifndef FABSIM_CORE_INTERN_H
#define FABSIM_CORE_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
    uint32_t *n;             /* the caller's list count */
    uint32_t **off, **items; /* the caller's arrays, grown here */
    size_t off_cap, items_cap;
    uint32_t *slot; /* list id + 1, 0 = empty */
    size_t nslots;
};

/* The hash of the list p[0..c) (FNV-1a over the items, folded), for
 * callers that keep their own open-addressing table of lists. */
uint64_t intern_hash(const uint32_t *p, uint32_t c);

/* Starts interning into *n, *off and *items (the caller frees *off and
 * *items; *n = 0 and both arrays are allocated here, *items non-NULL). */
void intern_init(struct intern *in, uint32_t *n, uint32_t **off, uint32_t **items);
/* The id of the list p[0..c) (c may be 0), added when new. */
uint32_t intern_add(struct intern *in, const uint32_t *p, uint32_t c);
/* Frees the hash index only: the lists stay in the caller's arrays. */
void intern_fini(struct intern *in);

#endif /* FABSIM_CORE_INTERN_H */

/* src/core/mem.h
 *
 * Allocation that exits 1 with a message on exhaustion (Redis zmalloc, ROSS
 * tw_calloc), so callers need no NULL checks. Never used on the hot path.
 */
#ifndef FABSIM_CORE_MEM_H
#define FABSIM_CORE_MEM_H

#include <stddef.h>

void *fs_xmalloc(size_t n);
void *fs_xcalloc(size_t count, size_t size);
void *fs_xrealloc(void *p, size_t n);
char *fs_xstrdup(const char *s);
/* `n` bytes aligned to `align` (a power of two, n a multiple of it); free() frees it. */
void *fs_xaligned(size_t align, size_t n);

/* Grows *p (element size `size`) so that it holds at least `need` elements. */
void fs_grow(void **p, size_t *cap, size_t need, size_t size);

#endif /* FABSIM_CORE_MEM_H */

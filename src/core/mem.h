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

/* Transparent huge pages (2 MiB) for a large array read at random on the
 * hot path (ports, packets): one TLB entry covers 2 MiB instead of 4 KiB,
 * so a random access at 8,192 hosts no longer walks the page tables
 * (docs/performance.md "Huge pages"). Debian's default THP mode is
 * `madvise`: the kernel backs only ranges that ask. A hint: where the
 * system refuses, nothing changes but the speed. */
#define FS_HUGE_PAGE ((size_t)2 << 20)
/* madvise(MADV_HUGEPAGE) over the whole 2 MiB pages inside [p, p + n). */
void fs_advise_huge(void *p, size_t n);
/* fs_xaligned(64, n) for arrays below FS_HUGE_PAGE; above, aligned to and
 * rounded up to FS_HUGE_PAGE and advised. free() frees it. */
void *fs_xaligned_huge(size_t n);

/* Grows *p (element size `size`) so that it holds at least `need` elements. */
void fs_grow(void **p, size_t *cap, size_t need, size_t size);

#endif /* FABSIM_CORE_MEM_H */

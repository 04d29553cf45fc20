#include "core/mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Out of memory is the machine's limit, not a bug: exit 1 with one line
 * (SPEC.md exit codes), not abort()'s 134 and core dump. */
static void oom(size_t n) {
    fprintf(stderr,
            "fabsim: out of memory allocating %zu bytes (see --max-memory, "
            "docs/outputs.md \"Limits\")\n",
            n);
    exit(1);
}

void *fs_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *fs_xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) oom(count * size);
    return p;
}

void *fs_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

void *fs_xaligned(size_t align, size_t n) {
    void *p = aligned_alloc(align, n ? n : align);
    if (!p) oom(n);
    return p;
}

void fs_advise_huge(void *p, size_t n) {
    uintptr_t a = ((uintptr_t)p + FS_HUGE_PAGE - 1) & ~(uintptr_t)(FS_HUGE_PAGE - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)(FS_HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
    if (b > a) (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
    (void)a;
    (void)b;
#endif
}

void *fs_xaligned_huge(size_t n) {
    if (n < FS_HUGE_PAGE) return fs_xaligned(64, (n + 63) & ~(size_t)63);
    n = (n + FS_HUGE_PAGE - 1) & ~(FS_HUGE_PAGE - 1);
    void *p = fs_xaligned(FS_HUGE_PAGE, n);
    fs_advise_huge(p, n);
    return p;
}

char *fs_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = fs_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void fs_grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    *p = fs_xrealloc(*p, c * size);
    memset((char *)*p + *cap * size, 0, (c - *cap) * size);
    *cap = c;
}

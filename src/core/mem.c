#include "core/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

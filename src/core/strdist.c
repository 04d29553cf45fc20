/* src/core/strdist.c: the optimal string alignment distance (strdist.h). */
#include "core/strdist.h"

#include <ctype.h>
#include <string.h>

static int same(char x, char y, bool fold) {
    return fold ? tolower((unsigned char)x) == tolower((unsigned char)y) : x == y;
}

size_t str_osa_distance(const char *a, const char *b, bool fold) {
    size_t la = strnlen(a, 63), lb = strnlen(b, 63);
    /* three rows of the dynamic programme: i - 2, i - 1, i */
    size_t r0[64], r1[64], r2[64];
    size_t *pp = r0, *p = r1, *c = r2;
    for (size_t j = 0; j <= lb; j++)
        p[j] = j;
    for (size_t i = 1; i <= la; i++) {
        c[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = p[j - 1] + !same(a[i - 1], b[j - 1], fold);
            size_t del = p[j] + 1, ins = c[j - 1] + 1;
            size_t v = sub < del ? sub : del;
            v = v < ins ? v : ins;
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2], fold) &&
                same(a[i - 2], b[j - 1], fold) && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1; /* the two neighbours swapped */
            c[j] = v;
        }
        size_t *t = pp;
        pp = p, p = c, c = t;
    }
    return p[lb];
}

/* src/core/diag.h
 *
 * Errors in user input: a negative FS_E* code plus a struct diag that says
 * where (file:line:column) and what is wrong and what is allowed. The CLI
 * prints it and exits 2. Internal invariants use FS_ASSERT instead.
 */
#ifndef FABSIM_CORE_DIAG_H
#define FABSIM_CORE_DIAG_H

#include <stdio.h>
#include <stdlib.h>

enum {
    FS_OK = 0,
    FS_EINVAL = -1,  /* bad user input */
    FS_ENOENT = -2,  /* missing file */
    FS_ERANGE = -3,  /* number out of range */
    FS_ENOTSUP = -4, /* accepted key whose mechanism is not built yet */
    FS_EEMPTY = -5,
    FS_EINTERNAL = -6,
};

struct srcpos {
    unsigned line, col; /* 1-based; 0 = no position */
};

struct diag {
    char file[256];
    unsigned line, col;
    char msg[768];
};

/* Records the first error only: later errors are usually consequences. */
int diag_set(struct diag *d, const char *file, struct srcpos pos, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "file:line:col: error: msg" (omits what is unknown) into buf. */
void diag_format(const struct diag *d, char *buf, size_t len);
void diag_print(const struct diag *d, FILE *f);

/* Invariants: always on (cheap checks only on the hot path). */
#define FS_ASSERT(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) fs_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                       \
    } while (0)

#ifdef FABSIM_DEBUG
#define FS_DASSERT(cond, ...) FS_ASSERT(cond, __VA_ARGS__)
#else
#define FS_DASSERT(cond, ...) ((void)0)
#endif

_Noreturn void fs_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* FABSIM_CORE_DIAG_H */

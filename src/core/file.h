/* src/core/file.h
 *
 * Whole-file reads for the tools around the model (report, labs runner):
 * never on the simulation path.
 */
#ifndef FABSIM_CORE_FILE_H
#define FABSIM_CORE_FILE_H

#include <stddef.h>

/* The file's bytes plus a terminating NUL (caller frees), or NULL with errno
 * set when it cannot be opened. `len` (may be NULL) receives the length. */
char *fs_read_file(const char *path, size_t *len);

#endif /* FABSIM_CORE_FILE_H */

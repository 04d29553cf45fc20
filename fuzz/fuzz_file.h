/* fuzz/fuzz_file.h
 *
 * For the targets whose reader takes a path (topology files, Chakra traces,
 * lab.yaml): the input written to one temporary file per process, rewritten
 * for every input. Only the fuzz targets include it.
 */
#ifndef FABSIM_FUZZ_FILE_H
#define FABSIM_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path holding `data` (a name ending in `suffix`), or NULL. */
static char fuzz_path[64];

static inline void fuzz_file_remove(void) {
    unlink(fuzz_path);
}

static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix) {
    const char *tmp = getenv("TMPDIR");
    if (!fuzz_path[0]) {
        snprintf(fuzz_path, sizeof fuzz_path, "%.30s/fabsim-fuzz-%ld%s", tmp && *tmp ? tmp : "/tmp",
                 (long)getpid(), suffix);
        atexit(fuzz_file_remove);
    }
    const char *path = fuzz_path;
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return NULL;
    }
    return fclose(f) ? NULL : path;
}

#endif /* FABSIM_FUZZ_FILE_H */

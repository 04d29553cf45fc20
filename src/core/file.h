/* src/core/file.h
 *
 * Files around the model (docs/outputs.md "Atomic outputs and limits"):
 * bounded whole-file reads, bounded line reads, outputs written atomically
 * (a unique temporary file created exclusively beside the destination, never
 * through a symlink, renamed into place once every write and the close
 * succeeded), and the standard-output check. Never on the simulation path.
 */
#ifndef FABSIM_CORE_FILE_H
#define FABSIM_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The largest file fs_read_file reads (report inputs, labs' results.json,
 * lab Markdown): 256 MiB, far above any results.json fabsim writes. */
#define FS_READ_MAX_BYTES ((size_t)256 << 20)

/* The file's bytes plus a terminating NUL (caller frees), or NULL with errno
 * set: it cannot be opened, is not a regular file (EINVAL: a folder, a device
 * such as /dev/zero, a FIFO), or is larger than FS_READ_MAX_BYTES (EFBIG).
 * `len` (may be NULL) receives the length. */
char *fs_read_file(const char *path, size_t *len);

/* Opens `path` for a bounded reader: NULL with errno set when it cannot be
 * opened or is not a regular file (EINVAL) or is a folder (EISDIR). */
FILE *fs_open_regular(const char *path);

/* Reads one line of at most `cap` - 1 bytes (without the newline) into buf.
 * 1 read, 0 end of file, -1 the line is longer (the rest is not consumed) or
 * holds a NUL byte, -2 a read error. */
int fs_read_line(FILE *f, char *buf, size_t cap);

/* `rel` resolved against the folder of `base` (a scenario file): rel itself
 * when it is absolute or base has no folder. Caller frees. */
char *fs_path_beside(const char *base, const char *rel);

/* An output being written. `f` is the stream to write to. */
struct fs_out {
    FILE *f;
    bool closed;  /* fs_out_close succeeded: fs_out_commit only renames */
    char *path;   /* the destination */
    char *tmp;    /* the temporary file, NULL when written in place */
    int sig_slot; /* core/sig.h: the handler removes tmp on exit; -1 none */
};

/* Opens `path` for writing: a new temporary file ".NAME.XXXXXX.tmp" in the
 * same folder, created with O_EXCL|O_NOFOLLOW (so a planted symlink or file
 * is never followed or truncated). A destination that exists and is a device
 * or a FIFO (/dev/null, /dev/stdout, /dev/full) is written in place; a folder
 * is refused (EISDIR). 0, or -1 with errno set and nothing created. */
int fs_out_open(struct fs_out *o, const char *path);
/* Flushes, checks every write and closes, keeping the temporary file for
 * fs_out_commit (several outputs checked before any is renamed). 0, or -1
 * with errno set and the temporary file removed. */
int fs_out_close(struct fs_out *o);
/* Flushes, checks every write and the close (unless fs_out_close did), then renames the temporary
 * file over the destination. 0, or -1 with errno set: the temporary file is removed and the
 * previous destination (if any) is left as it was. */
int fs_out_commit(struct fs_out *o);
/* Abandons the output: closes and removes the temporary file. */
void fs_out_abort(struct fs_out *o);

/* Clean-up of an old run folder inside an output folder (sweep, labs), never
 * following a link: a symlink at `dir` is removed itself (its target is left
 * alone); a real folder holding a regular status.json (written by a run) has
 * its files and links removed and then the folder itself; anything else is
 * left. 0 when nothing remains at `dir`, 1 when it was left, -1 with errno
 * on an error. */
int fs_remove_run_dir(const char *dir);
/* A symlink at `path` (a folder that fabsim creates inside an output folder)
 * is removed, so that what is written there next goes into a real folder
 * inside -o rather than through the link. 0, or -1 with errno. */
int fs_unlink_symlink(const char *path);

/* Flushes and checks standard output (fabsim validate --explain > /dev/full):
 * `rc` when it is good, else prints one line and returns 1. */
int fs_stdout_check(int rc);

/* Copies `in` into `out` (capacity cap), escaping control characters (C0,
 * DEL and the C1 range, also as UTF-8) as \n, \t, \r, \xNN or \u0085, so
 * that echoed input can neither forge a line nor drive the terminal. Always
 * NUL-terminates; truncates. */
void fs_escape_ctl(const char *in, char *out, size_t cap);

#endif /* FABSIM_CORE_FILE_H */

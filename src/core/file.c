#include "core/file.h"

#include "core/mem.h"
#include "core/sig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *fs_open_regular(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    int bad = fstat(fd, &st)         ? errno
              : S_ISDIR(st.st_mode)  ? EISDIR
              : !S_ISREG(st.st_mode) ? EINVAL
                                     : 0;
    if (bad) {
        int e = bad;
        close(fd);
        errno = e;
        return NULL;
    }
    /* O_NONBLOCK only kept a FIFO from blocking the open; a regular file
     * ignores it, but clear it for clarity. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) close(fd);
    return f;
}

char *fs_read_file(const char *path, size_t *len_out) {
    FILE *f = fs_open_regular(path);
    if (!f) return NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (uintmax_t)st.st_size > FS_READ_MAX_BYTES) {
        fclose(f);
        errno = EFBIG;
        return NULL;
    }
    size_t cap = 1 << 14, len = 0, got;
    char *buf = fs_xmalloc(cap);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len > FS_READ_MAX_BYTES) { /* grew while being read */
            free(buf);
            fclose(f);
            errno = EFBIG;
            return NULL;
        }
        if (cap - len < 2) {
            cap *= 2;
            buf = fs_xrealloc(buf, cap);
        }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    buf[len] = 0;
    if (len_out) *len_out = len;
    return buf;
}

int fs_read_line(FILE *f, char *buf, size_t cap) {
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c == '\n') break;
        if (c == 0 || n + 1 >= cap) {
            buf[n] = 0;
            return -1;
        }
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    if (c == EOF) {
        if (ferror(f)) return -2;
        if (n == 0) return 0;
    }
    return 1;
}

char *fs_path_beside(const char *base, const char *rel) {
    const char *slash = base ? strrchr(base, '/') : NULL;
    if (!rel[0] || rel[0] == '/' || !slash) return fs_xstrdup(rel);
    size_t dl = (size_t)(slash - base) + 1, rl = strlen(rel);
    char *p = fs_xmalloc(dl + rl + 1);
    memcpy(p, base, dl);
    memcpy(p + dl, rel, rl + 1);
    return p;
}

/* A temporary name beside `path`: "DIR/.BASE.XXXXXX.tmp" (dot-file, so a
 * glob over the folder does not pick it up). */
static char *tmp_name(const char *path, unsigned tag) {
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dl;
    size_t n = dl + strlen(base) + 32;
    char *t = fs_xmalloc(n);
    snprintf(t, n, "%.*s.%s.%06x.tmp", (int)dl, path, base, tag & 0xffffffu);
    return t;
}

int fs_out_open(struct fs_out *o, const char *path) {
    memset(o, 0, sizeof *o);
    o->sig_slot = -1;
    struct stat st;
    bool exists = lstat(path, &st) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
        /* A link to a device (/dev/stdout -> /proc/self/fd/1) is written
         * through; a link to anything else is replaced, never followed. */
        struct stat t;
        if (stat(path, &t) == 0 && (S_ISCHR(t.st_mode) || S_ISFIFO(t.st_mode))) st = t;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) return -1;
        o->f = fdopen(fd, "wb");
        if (!o->f) {
            close(fd);
            return -1;
        }
        o->path = fs_xstrdup(path);
        return 0;
    }
    /* Unique per process and call; a clash (another writer, a planted file)
     * just moves on to the next name. */
    unsigned tag = (unsigned)getpid() * 2654435761u ^ (unsigned)(uintptr_t)o;
    for (int tries = 0; tries < 64; tries++, tag += 0x9e3779b9u) {
        char *t = tmp_name(path, tag);
        int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            int e = errno;
            free(t);
            if (e == EEXIST) continue;
            errno = e;
            return -1;
        }
        o->f = fdopen(fd, "wb");
        if (!o->f) {
            int e = errno;
            close(fd);
            unlink(t);
            free(t);
            errno = e;
            return -1;
        }
        o->tmp = t;
        o->path = fs_xstrdup(path);
        o->sig_slot = sig_tmp_add(t); /* a signal that exits removes it */
        return 0;
    }
    errno = EEXIST;
    return -1;
}

static void out_free(struct fs_out *o) {
    if (o->tmp) sig_tmp_del(o->sig_slot); /* (a zeroed, never opened fs_out has no slot) */
    o->sig_slot = -1;
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    o->f = NULL;
    o->closed = false;
}

int fs_out_close(struct fs_out *o) {
    if (!o->f) {
        errno = EBADF;
        return -1;
    }
    int err = 0;
    if (fflush(o->f)) err = errno;
    if (!err && ferror(o->f)) err = EIO;
    if (fclose(o->f) && !err) err = errno;
    o->f = NULL;
    if (err) {
        if (o->tmp) unlink(o->tmp);
        out_free(o);
        errno = err;
        return -1;
    }
    o->closed = true;
    return 0;
}

int fs_out_commit(struct fs_out *o) {
    if (!o->closed && fs_out_close(o)) return -1;
    int err = 0;
    if (o->tmp && rename(o->tmp, o->path)) err = errno;
    if (err) unlink(o->tmp);
    out_free(o);
    errno = err;
    return err ? -1 : 0;
}

void fs_out_abort(struct fs_out *o) {
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    out_free(o);
}

int fs_unlink_symlink(const char *path) {
    struct stat st;
    if (lstat(path, &st) || !S_ISLNK(st.st_mode)) return 0;
    return unlink(path);
}

int fs_remove_run_dir(const char *dir) {
    struct stat st;
    if (lstat(dir, &st)) return errno == ENOENT ? 0 : -1;
    if (S_ISLNK(st.st_mode)) return unlink(dir);
    if (!S_ISDIR(st.st_mode)) return 1;
    /* O_NOFOLLOW: a folder swapped for a link since the lstat is refused. */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    if (fstatat(fd, "status.json", &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
        close(fd);
        return 1;
    }
    DIR *dp = fdopendir(fd);
    if (!dp) {
        close(fd);
        return -1;
    }
    struct dirent *e;
    bool left = false;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        /* unlinkat removes a link itself, never its target; a sub-folder
         * (fabsim writes none) stays, and so does the folder. */
        if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || S_ISDIR(st.st_mode) ||
            unlinkat(dirfd(dp), e->d_name, 0))
            left = true;
    }
    closedir(dp);
    if (left) return 1;
    return rmdir(dir) ? -1 : 0;
}

int fs_stdout_check(int rc) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    int e = errno ? errno : EIO;
    fprintf(stderr, "fabsim: standard output: write error: %s\n", strerror(e));
    clearerr(stdout);
    return 1;
}

void fs_escape_ctl(const char *in, char *out, size_t cap) {
    size_t n = 0;
    if (!cap) return;
    for (const unsigned char *s = (const unsigned char *)in; *s; s++) {
        char esc[8] = {0};
        unsigned c = *s;
        if (c == '\n')
            memcpy(esc, "\\n", 3);
        else if (c == '\t')
            memcpy(esc, "\\t", 3);
        else if (c == '\r')
            memcpy(esc, "\\r", 3);
        else if (c < 0x20 || c == 0x7f)
            snprintf(esc, sizeof esc, "\\x%02x", c);
        else if (c == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) /* C1 as UTF-8 */
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)*++s);
        else if (c == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) { /* U+2028/9 */
            snprintf(esc, sizeof esc, "\\u%04x", 0x2000u + (s[2] & 0x3f));
            s += 2;
        }
        size_t k = esc[0] ? strlen(esc) : 1;
        if (n + k + 1 > cap) break;
        if (esc[0])
            memcpy(out + n, esc, k);
        else
            out[n] = (char)c;
        n += k;
    }
    out[n] = 0;
}

/* src/report/jread.c
 *
 * Recursive-descent JSON parser (RFC 8259, with \u escapes decoded to UTF-8).
 */
#include "report/jread.h"

#include "core/file.h"
#include "core/mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
    const char *s;
    const char *p;
    char *err;
    size_t errlen;
    int depth;
};

static void fail(struct jp *j, const char *what) {
    if (j->err && !j->err[0])
        snprintf(j->err, j->errlen, "JSON: %s at byte %ld", what, (long)(j->p - j->s));
}

static void ws(struct jp *j) {
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
        j->p++;
}

static struct jv *node(enum jv_type t) {
    struct jv *v = fs_xcalloc(1, sizeof *v);
    v->type = t;
    return v;
}

static void put_utf8(char **o, unsigned c) {
    char *q = *o;
    if (c < 0x80) {
        *q++ = (char)c;
    } else if (c < 0x800) {
        *q++ = (char)(0xc0 | (c >> 6));
        *q++ = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        *q++ = (char)(0xe0 | (c >> 12));
        *q++ = (char)(0x80 | ((c >> 6) & 0x3f));
        *q++ = (char)(0x80 | (c & 0x3f));
    } else {
        *q++ = (char)(0xf0 | (c >> 18));
        *q++ = (char)(0x80 | ((c >> 12) & 0x3f));
        *q++ = (char)(0x80 | ((c >> 6) & 0x3f));
        *q++ = (char)(0x80 | (c & 0x3f));
    }
    *o = q;
}

static int hex4(const char *p, unsigned *out) {
    unsigned c = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        c <<= 4;
        if (h >= '0' && h <= '9')
            c |= (unsigned)(h - '0');
        else if (h >= 'a' && h <= 'f')
            c |= (unsigned)(h - 'a' + 10);
        else if (h >= 'A' && h <= 'F')
            c |= (unsigned)(h - 'A' + 10);
        else
            return -1;
    }
    *out = c;
    return 0;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p) {
    if (p[0] < 0x80) return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) return (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (p[0] >= 0xe0 && p[0] <= 0xef) {
        unsigned lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
    }
    if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        unsigned lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* At the opening quote; returns a malloc'd decoded string or NULL. Strict to
 * RFC 8259 section 7: no raw control characters, only the escapes \" \\ \/
 * \b \f \n \r \t \uXXXX (surrogates in pairs), and UTF-8 (section 8.1). */
static char *string(struct jp *j) {
    const char *p = ++j->p;
    size_t len = 0;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) p++;
        p++;
        len++;
    }
    if (*p != '"') {
        fail(j, "unterminated string");
        return NULL;
    }
    char *out = fs_xmalloc(len * 4 + 1), *o = out;
    p = j->p;
    const char *why = NULL;
    while (*p != '"' && !why) {
        if ((unsigned char)*p < 0x20) {
            why = "control character in a string (escape it)";
            break;
        }
        if (*p != '\\') {
            size_t k = utf8_len((const unsigned char *)p);
            if (!k) {
                why = "invalid UTF-8 in a string";
                break;
            }
            memcpy(o, p, k);
            o += k;
            p += k;
            continue;
        }
        p++;
        switch (*p) {
        case 'n':
            *o++ = '\n';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case '"':
        case '\\':
        case '/':
            *o++ = *p;
            break;
        case 'u': {
            unsigned c;
            if (hex4(p + 1, &c)) {
                why = "bad \\u escape";
                break;
            }
            p += 4;
            if (c >= 0xd800 && c < 0xdc00) {
                unsigned lo;
                if (p[1] != '\\' || p[2] != 'u' || hex4(p + 3, &lo) || lo < 0xdc00 ||
                    lo >= 0xe000) {
                    why = "unpaired surrogate in a \\u escape";
                    break;
                }
                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            } else if (c >= 0xdc00 && c < 0xe000) {
                why = "unpaired surrogate in a \\u escape";
                break;
            }
            put_utf8(&o, c);
            break;
        }
        default:
            why = "bad escape (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)";
            break;
        }
        if (!why) p++;
    }
    if (why) {
        free(out);
        j->p = p;
        fail(j, why);
        return NULL;
    }
    *o = 0;
    j->p = p + 1;
    return out;
}

/* RFC 8259 section 6: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, finite.
 * The end of the number, or NULL. */
static const char *number_end(const char *p) {
    if (*p == '-') p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return NULL;
    if (*p == '.') {
        if (!(*++p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return p;
}

static struct jv *value(struct jp *j);

static struct jv *container(struct jp *j, bool obj) {
    struct jv *v = node(obj ? JV_OBJ : JV_ARR);
    size_t cap = 0;
    j->p++;
    ws(j);
    char close = obj ? '}' : ']';
    if (*j->p == close) {
        j->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        if (obj) {
            ws(j);
            if (*j->p != '"') {
                fail(j, "expected a key");
                jread_free(v);
                return NULL;
            }
            key = string(j);
            ws(j);
            if (!key || *j->p != ':') {
                free(key);
                fail(j, "expected ':'");
                jread_free(v);
                return NULL;
            }
            j->p++;
        }
        struct jv *item = value(j);
        if (!item) {
            free(key);
            jread_free(v);
            return NULL;
        }
        if (v->n == cap) {
            cap = cap ? cap * 2 : 8;
            v->items = fs_xrealloc(v->items, cap * sizeof *v->items);
            if (obj) v->keys = fs_xrealloc(v->keys, cap * sizeof *v->keys);
        }
        if (obj) v->keys[v->n] = key;
        v->items[v->n++] = item;
        ws(j);
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p == close) {
            j->p++;
            return v;
        }
        fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        jread_free(v);
        return NULL;
    }
}

static struct jv *value(struct jp *j) {
    ws(j);
    if (++j->depth > 200) {
        fail(j, "nested too deeply");
        return NULL;
    }
    struct jv *v = NULL;
    char c = *j->p;
    if (c == '{' || c == '[') {
        v = container(j, c == '{');
    } else if (c == '"') {
        char *s = string(j);
        if (s) {
            v = node(JV_STR);
            v->str = s;
        }
    } else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
        v = node(JV_BOOL);
        v->b = c == 't';
        j->p += v->b ? 4 : 5;
    } else if (!strncmp(j->p, "null", 4)) {
        v = node(JV_NULL);
        j->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        const char *e = number_end(j->p);
        char *end = NULL;
        double d = e ? strtod(j->p, &end) : 0;
        if (!e || end != e) {
            fail(j, "bad number (RFC 8259: -?(0|[1-9]\\d*)(.\\d+)?([eE][+-]?\\d+)?)");
        } else if (!isfinite(d)) {
            fail(j, "number out of range");
        } else {
            v = node(JV_NUM);
            v->num = d;
            j->p = end;
        }
    } else {
        fail(j, "unexpected character");
    }
    j->depth--;
    return v;
}

struct jv *jread_parse(const char *text, char *err, size_t errlen) {
    struct jp j = {text, text, err, errlen, 0};
    if (err && errlen) err[0] = 0;
    struct jv *v = value(&j);
    if (!v) return NULL;
    ws(&j);
    if (*j.p) {
        fail(&j, "trailing characters");
        jread_free(v);
        return NULL;
    }
    return v;
}

struct jv *jread_file(const char *path, char *err, size_t errlen) {
    char *buf = fs_read_file(path, NULL);
    if (!buf) {
        if (err) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct jv *v = jread_parse(buf, err, errlen);
    free(buf);
    return v;
}

void jread_free(struct jv *v) {
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        jread_free(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

const struct jv *jv_get(const struct jv *o, const char *key) {
    if (!o || o->type != JV_OBJ) return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return o->items[i];
    return NULL;
}

const struct jv *jv_path(const struct jv *o, const char *path) {
    char part[128];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        if (len >= sizeof part) return NULL;
        memcpy(part, path, len);
        part[len] = 0;
        if (o->type == JV_ARR) { /* a decimal index: "jobs.0.stalled_ns" */
            char *end;
            unsigned long i = strtoul(part, &end, 10);
            o = len && !*end && i < o->n ? o->items[i] : NULL;
        } else
            o = jv_get(o, part);
        path += len + (dot ? 1 : 0);
    }
    return o;
}

double jv_num_at(const struct jv *o, const char *path, double dflt) {
    const struct jv *v = jv_path(o, path);
    return v && v->type == JV_NUM ? v->num : dflt;
}

const char *jv_str_at(const struct jv *o, const char *path, const char *dflt) {
    const struct jv *v = jv_path(o, path);
    return v && v->type == JV_STR ? v->str : dflt;
}

bool jv_bool_at(const struct jv *o, const char *path, bool dflt) {
    const struct jv *v = jv_path(o, path);
    return v && v->type == JV_BOOL ? v->b : dflt;
}

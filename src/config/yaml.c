/* src/config/yaml.c
 *
 * Builds struct yaml_node trees from libfyaml's event stream. The event API
 * is used rather than libfyaml's document tree because its start marks give a
 * position for every node (mappings and sequences included) through public
 * API, which the diagnostics need. libfyaml's own messages are collected in a
 * struct fy_diag instead of being printed, and the first error is copied into
 * our struct diag with its line and column.
 */
#include "config/yaml.h"

#include "core/mem.h"

#include <errno.h>
#include <libfyaml.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SET_FILE "--set"

/* How event marks map to positions: a file counts lines and columns from 1;
 * the value of a --set is placed on "line" `line` (the override's number),
 * shifted by `col0`, the column where the value starts in the argument. */
struct origin {
    const char *file;
    bool is_set;
    unsigned line, col0;
    unsigned end_col; /* --set on one line: where libfyaml's "end of input" lands */
};

static struct srcpos origin_pos(const struct origin *o, int line, int col) {
    struct srcpos p = {0, 0};
    if (line < 0 || col < 0) return p;
    if (o->is_set) {
        p.line = o->line;
        p.col = (unsigned)col + 1 + (line == 0 ? o->col0 : 0);
        if (line > 0 && o->end_col) p.col = o->end_col;
    } else {
        p.line = (unsigned)line + 1;
        p.col = (unsigned)col + 1;
    }
    return p;
}

static struct yaml_node *node_new(struct yaml_doc *doc, enum yaml_type type, const char *file,
                                  struct srcpos pos) {
    struct yaml_node *n = fs_xcalloc(1, sizeof *n);
    n->type = type;
    n->file = file;
    n->pos = pos;
    n->expanded = 1;
    fs_grow((void **)&doc->nodes, &doc->cap, doc->nnodes + 1, sizeof *doc->nodes);
    doc->nodes[doc->nnodes++] = n;
    return n;
}

static struct yaml_node *scalar_new(struct yaml_doc *doc, const char *file, struct srcpos pos,
                                    const char *text, size_t len, bool quoted) {
    struct yaml_node *n = node_new(doc, YAML_SCALAR, file, pos);
    n->text = fs_xmalloc(len + 1);
    memcpy(n->text, text, len);
    n->text[len] = 0;
    n->len = len;
    n->quoted = quoted;
    return n;
}

static void map_append(struct yaml_node *map, struct yaml_node *key, struct yaml_node *val) {
    fs_grow((void **)&map->pairs, &map->cap, map->npairs + 1, sizeof *map->pairs);
    map->pairs[map->npairs].key = key;
    map->pairs[map->npairs].val = val;
    map->npairs++;
}

static void seq_append(struct yaml_node *seq, struct yaml_node *item) {
    fs_grow((void **)&seq->items, &seq->cap, seq->nitems + 1, sizeof *seq->items);
    seq->items[seq->nitems++] = item;
}

void yaml_doc_fini(struct yaml_doc *doc) {
    for (size_t i = 0; i < doc->nnodes; i++) {
        free(doc->nodes[i]->text);
        free(doc->nodes[i]->pairs);
        free(doc->nodes[i]->items);
        free(doc->nodes[i]);
    }
    free(doc->nodes);
    free(doc->file);
    memset(doc, 0, sizeof *doc);
}

bool yaml_is_null(const struct yaml_node *n) {
    if (!n || n->type != YAML_SCALAR || n->quoted) return false;
    return n->len == 0 || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
           strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0;
}

const struct yaml_node *yaml_map_get(const struct yaml_node *map, const char *key) {
    if (!map || map->type != YAML_MAP) return NULL;
    for (size_t i = 0; i < map->npairs; i++) {
        const struct yaml_node *k = map->pairs[i].key;
        if (k->type == YAML_SCALAR && strcmp(k->text, key) == 0) return map->pairs[i].val;
    }
    return NULL;
}

const char *yaml_describe(const struct yaml_node *n) {
    if (!n || yaml_is_null(n)) return "nothing";
    switch (n->type) {
    case YAML_MAP:
        return "a mapping";
    case YAML_SEQ:
        return "a list";
    default:
        return "a value";
    }
}

/* Checks that the input is UTF-8 text as YAML 1.2 allows it (c-printable:
 * tab, newlines and printable characters), so that binary files get one clear
 * message instead of whatever the scanner makes of them. The position counts
 * characters, as libfyaml's columns do. */
static int check_text(const unsigned char *s, size_t len, const char *file, struct diag *d) {
    unsigned line = 1, col = 1;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n = 1;
        uint32_t cp = c;
        if (c >= 0x80) {
            uint32_t min;
            if ((c & 0xe0) == 0xc0)
                n = 2, cp = c & 0x1f, min = 0x80;
            else if ((c & 0xf0) == 0xe0)
                n = 3, cp = c & 0x0f, min = 0x800;
            else if ((c & 0xf8) == 0xf0)
                n = 4, cp = c & 0x07, min = 0x10000;
            else
                n = 0, min = 0;
            bool ok = n != 0 && i + n <= len;
            for (size_t k = 1; ok && k < n; k++) {
                if ((s[i + k] & 0xc0) != 0x80)
                    ok = false;
                else
                    cp = (cp << 6) | (s[i + k] & 0x3f);
            }
            if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return diag_set(d, file, (struct srcpos){line, col}, FS_EINVAL,
                                "not a text file: invalid UTF-8 byte 0x%02x; a scenario must be "
                                "UTF-8 YAML text",
                                c);
        } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
            return diag_set(d, file, (struct srcpos){line, col}, FS_EINVAL,
                            "not a text file: control byte 0x%02x; a scenario must be UTF-8 "
                            "YAML text",
                            c);
        }
        if (c == '\n')
            line++, col = 1;
        else
            col++;
        i += n;
    }
    return 0;
}

static void discard_output(struct fy_diag *diag, void *user, const char *buf, size_t len) {
    (void)diag, (void)user, (void)buf, (void)len;
}

static const char *token_text(struct fy_token *t, size_t *len) {
    const char *s = t ? fy_token_get_text(t, len) : NULL;
    if (!s) {
        *len = 0;
        return "";
    }
    return s;
}

struct anchor {
    char *name;
    struct yaml_node *node;
};

struct frame {
    struct yaml_node *node;
    struct yaml_node *key; /* a mapping's key waiting for its value */
    char *anchor;          /* copied: the event's token dies with the event */
};

struct builder {
    struct yaml_doc *doc;
    const struct origin *o;
    struct diag *d;
    struct frame stack[YAML_MAX_DEPTH + 1];
    int depth;
    struct anchor *anchors;
    size_t nanchors, anchors_cap;
    struct yaml_node *root;
    bool have_root;
    int documents;
    struct srcpos last; /* position of the latest event that had one */
};

static int fail(struct builder *b, struct srcpos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct builder *b, struct srcpos pos, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_set(b->d, b->o->file, pos, FS_EINVAL, "%s", msg);
}

static char *anchor_name(struct fy_token *t) {
    if (!t) return NULL;
    size_t len;
    const char *s = token_text(t, &len);
    char *name = fs_xmalloc(len + 1);
    memcpy(name, s, len);
    name[len] = 0;
    return name;
}

/* Registers `name` (taking ownership) for node n. */
static void anchor_add(struct builder *b, char *name, struct yaml_node *n) {
    if (!name) return;
    fs_grow((void **)&b->anchors, &b->anchors_cap, b->nanchors + 1, sizeof *b->anchors);
    b->anchors[b->nanchors].name = name;
    b->anchors[b->nanchors].node = n;
    b->nanchors++;
}

/* Places a finished (or just opened) node under the innermost open collection. */
static int attach(struct builder *b, struct yaml_node *n) {
    if (b->depth == 0) {
        b->root = n;
        b->have_root = true;
        return 0;
    }
    struct frame *f = &b->stack[b->depth - 1];
    if (f->node->type == YAML_SEQ) {
        seq_append(f->node, n);
    } else if (!f->key) {
        f->key = n;
    } else {
        map_append(f->node, f->key, n);
        f->key = NULL;
    }
    return 0;
}

/* The size of a closed collection with every alias expanded, as the schema
 * will walk it. Aliases share nodes, so a small file can stand for a huge
 * tree ("billion laughs"); past YAML_MAX_EXPANDED_NODES, and more than twice
 * the nodes really written, the file is refused before anything walks it. */
static int check_expansion(struct builder *b, struct yaml_node *n) {
    uint64_t w = 1;
    for (size_t i = 0; i < n->nitems; i++)
        w += n->items[i]->expanded;
    for (size_t i = 0; i < n->npairs; i++)
        w += n->pairs[i].key->expanded + n->pairs[i].val->expanded;
    n->expanded = w > YAML_MAX_EXPANDED_NODES ? YAML_MAX_EXPANDED_NODES + 1 : w;
    if (n->expanded > YAML_MAX_EXPANDED_NODES && n->expanded > 2 * (uint64_t)b->doc->nnodes)
        return fail(b, n->pos,
                    "YAML aliases expand this %s to more than %llu nodes (the file holds %zu); "
                    "limit YAML_MAX_EXPANDED_NODES, docs/outputs.md \"Limits\"",
                    n->type == YAML_MAP ? "mapping" : "list",
                    (unsigned long long)YAML_MAX_EXPANDED_NODES, b->doc->nnodes);
    return 0;
}

static int on_event(struct builder *b, struct fy_event *e) {
    const struct fy_mark *m = fy_event_start_mark(e);
    struct srcpos pos = m ? origin_pos(b->o, m->line, m->column) : (struct srcpos){0, 0};
    if (pos.line)
        b->last = pos;
    else
        pos = b->last; /* empty scalars carry no mark: use the key or dash before them */

    switch (e->type) {
    case FYET_DOCUMENT_START:
        if (++b->documents > 1)
            return fail(b, pos,
                        "a second YAML document ('---'); a scenario file holds exactly one");
        return 0;
    case FYET_SCALAR: {
        size_t len;
        const char *s = token_text(e->scalar.value, &len);
        if (memchr(s, 0, len))
            return fail(b, pos, "a NUL character inside a string is not allowed");
        bool quoted = fy_token_scalar_style(e->scalar.value) != FYSS_PLAIN;
        struct yaml_node *n = scalar_new(b->doc, b->o->file, pos, s, len, quoted);
        anchor_add(b, anchor_name(e->scalar.anchor), n);
        return attach(b, n);
    }
    case FYET_ALIAS: {
        /* the mark is on the anchor's name; point at the '*' before it */
        if (pos.col > 1 && m && m->line >= 0) pos.col--;
        size_t len;
        const char *s = token_text(e->alias.anchor, &len);
        for (size_t i = b->nanchors; i-- > 0;)
            if (strlen(b->anchors[i].name) == len && memcmp(b->anchors[i].name, s, len) == 0)
                return attach(b, b->anchors[i].node);
        /* Anchors of collections are registered when they close, so an alias
         * inside its own anchor (a cycle) lands here too. */
        return fail(b, pos, "alias '*%.*s' refers to no earlier complete anchor", (int)len, s);
    }
    case FYET_MAPPING_START:
    case FYET_SEQUENCE_START: {
        if (b->depth >= YAML_MAX_DEPTH)
            return fail(b, pos, "nesting deeper than %d levels", YAML_MAX_DEPTH);
        bool map = e->type == FYET_MAPPING_START;
        struct yaml_node *n = node_new(b->doc, map ? YAML_MAP : YAML_SEQ, b->o->file, pos);
        attach(b, n);
        b->stack[b->depth].node = n;
        b->stack[b->depth].key = NULL;
        b->stack[b->depth].anchor =
            anchor_name(map ? e->mapping_start.anchor : e->sequence_start.anchor);
        b->depth++;
        return 0;
    }
    case FYET_MAPPING_END:
    case FYET_SEQUENCE_END:
        if (b->depth > 0) {
            b->depth--;
            int rc = check_expansion(b, b->stack[b->depth].node);
            if (rc) return rc;
            anchor_add(b, b->stack[b->depth].anchor, b->stack[b->depth].node);
            b->stack[b->depth].anchor = NULL;
        }
        return 0;
    default:
        return 0;
    }
}

/* Copies libfyaml's first collected error (1-based line and column) into d. */
static int syntax_error(struct builder *b, struct fy_diag *fd) {
    void *it = NULL;
    struct fy_diag_error *err;
    while ((err = fy_diag_errors_iterate(fd, &it)) != NULL) {
        if (err->type < FYET_ERROR) continue;
        struct srcpos pos = b->last;
        if (err->line > 0 && err->column > 0)
            pos = origin_pos(b->o, err->line - 1, err->column - 1);
        return fail(b, pos, "YAML syntax: %s", err->msg ? err->msg : "error");
    }
    return fail(b, b->last, "YAML syntax error");
}

/* Parses one document from `text` into *root (NULL when there is none). The
 * text must stay alive while parsing only: scalars are copied. */
static int build(struct yaml_doc *doc, const char *text, size_t len, const struct origin *o,
                 struct yaml_node **root, struct diag *d) {
    *root = NULL;
    struct fy_diag_cfg dcfg;
    fy_diag_cfg_default(&dcfg);
    dcfg.fp = NULL;
    dcfg.output_fn = discard_output;
    dcfg.colorize = false;
    struct fy_diag *fd = fy_diag_create(&dcfg);
    if (!fd)
        return diag_set(d, o->file, (struct srcpos){0, 0}, FS_EINTERNAL,
                        "cannot create the YAML diagnostics object");
    fy_diag_set_collect_errors(fd, true);

    struct fy_parse_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2;
    cfg.diag = fd;
    struct fy_parser *p = fy_parser_create(&cfg);
    if (!p) {
        fy_diag_destroy(fd);
        return diag_set(d, o->file, (struct srcpos){0, 0}, FS_EINTERNAL,
                        "cannot create the YAML parser");
    }

    struct builder b;
    memset(&b, 0, sizeof b);
    b.doc = doc;
    b.o = o;
    b.d = d;
    b.last = origin_pos(o, 0, 0);

    int rc = 0;
    if (fy_parser_set_string(p, text, len) != 0) {
        rc = fail(&b, b.last, "cannot read the YAML input");
    } else {
        struct fy_event *e;
        while ((e = fy_parser_parse(p)) != NULL) {
            rc = on_event(&b, e);
            fy_parser_event_free(p, e);
            if (rc) break;
        }
        if (!rc && fy_parser_get_stream_error(p)) rc = syntax_error(&b, fd);
    }
    for (int i = 0; i < b.depth; i++)
        free(b.stack[i].anchor);
    for (size_t i = 0; i < b.nanchors; i++)
        free(b.anchors[i].name);
    free(b.anchors);
    fy_parser_destroy(p);
    fy_diag_destroy(fd);
    if (!rc) *root = b.root;
    return rc;
}

int yaml_load_string(struct yaml_doc *doc, const char *text, size_t len, const char *name,
                     struct diag *d) {
    memset(doc, 0, sizeof *doc);
    doc->file = fs_xstrdup(name ? name : "<string>");
    struct origin o = {doc->file, false, 0, 0, 0};
    int rc = check_text((const unsigned char *)text, len, doc->file, d);
    if (!rc) rc = build(doc, text, len, &o, &doc->root, d);
    if (rc) {
        /* keep nothing half-built; the caller's diag holds the message */
        yaml_doc_fini(doc);
    }
    return rc;
}

int yaml_load_file(struct yaml_doc *doc, const char *path, struct diag *d) {
    memset(doc, 0, sizeof *doc);
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_set(d, path, (struct srcpos){0, 0}, errno == ENOENT ? FS_ENOENT : FS_EINVAL,
                        "cannot open scenario file '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                        "'%s' is a directory, not a scenario file", path);
    }
    size_t cap = 4096, len = 0;
    char *buf = fs_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap >= YAML_MAX_FILE_BYTES) {
                free(buf);
                fclose(f);
                return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                                "scenario file '%s' is larger than %u MiB", path,
                                YAML_MAX_FILE_BYTES >> 20);
            }
            cap *= 2;
            buf = fs_xrealloc(buf, cap);
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL, "cannot read scenario file '%s'",
                        path);
    }
    int rc = yaml_load_string(doc, buf, len, path, d);
    free(buf);
    return rc;
}

/* --set ------------------------------------------------------------------ */

static int set_fail(struct diag *d, unsigned index, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int set_fail(struct diag *d, unsigned index, size_t off, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return diag_set(d, SET_FILE, (struct srcpos){index, (unsigned)off + 1}, FS_EINVAL, "%s", msg);
}

static struct yaml_pair *map_find(struct yaml_node *map, const char *key, size_t klen) {
    for (size_t i = 0; i < map->npairs; i++) {
        const struct yaml_node *k = map->pairs[i].key;
        if (k->type == YAML_SCALAR && k->len == klen && memcmp(k->text, key, klen) == 0)
            return &map->pairs[i];
    }
    return NULL;
}

int yaml_set(struct yaml_doc *doc, const char *arg, unsigned index, struct diag *d) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return set_fail(d, index, 0, "expected KEY=VALUE such as fabric.routing=ecmp, got '%s'",
                        arg);
    size_t vstart = (size_t)(eq - arg) + 1;
    const char *value = eq + 1;
    size_t vlen = strlen(value);
    int rc = check_text((const unsigned char *)value, vlen, SET_FILE, d);
    if (rc) return rc;
    struct origin o = {SET_FILE, true, index, (unsigned)vstart,
                       memchr(value, '\n', vlen) ? 0 : (unsigned)(vstart + vlen + 1)};
    struct yaml_node *val;
    rc = build(doc, value, vlen, &o, &val, d);
    if (rc) return rc;
    if (!val)
        val = scalar_new(doc, SET_FILE, (struct srcpos){index, (unsigned)vstart + 1}, "", 0, false);
    if (!doc->root) doc->root = node_new(doc, YAML_MAP, SET_FILE, (struct srcpos){index, 1});

    /* Walk the path; `slot` is where the current node hangs so it can be
     * replaced (by the value, or by a fresh mapping in place of a null). */
    struct yaml_node **slot = &doc->root;
    const char *p = arg;
    for (;;) {
        const char *end = p;
        while (end < eq && *end != '.')
            end++;
        size_t klen = (size_t)(end - p), off = (size_t)(p - arg);
        bool last = end == eq;
        if (klen == 0) return set_fail(d, index, off, "empty key in '%.*s'", (int)(eq - arg), arg);
        struct yaml_node *cur = *slot;
        if (yaml_is_null(cur)) {
            cur = node_new(doc, YAML_MAP, SET_FILE, (struct srcpos){index, (unsigned)off + 1});
            *slot = cur;
        }
        if (cur->type == YAML_MAP) {
            struct yaml_pair *pr = map_find(cur, p, klen);
            if (!pr) {
                struct yaml_node *k = scalar_new(
                    doc, SET_FILE, (struct srcpos){index, (unsigned)off + 1}, p, klen, false);
                struct yaml_node *v = last ? val
                                           : node_new(doc, YAML_MAP, SET_FILE,
                                                      (struct srcpos){index, (unsigned)off + 1});
                map_append(cur, k, v);
                pr = &cur->pairs[cur->npairs - 1];
            } else if (last) {
                pr->val = val;
            }
            slot = &pr->val;
        } else if (cur->type == YAML_SEQ) {
            size_t idx = 0;
            for (size_t i = 0; i < klen; i++) {
                if (p[i] < '0' || p[i] > '9' || idx > SIZE_MAX / 10 - 1)
                    return set_fail(d, index, off,
                                    "'%.*s' is a list; expected an index such as %.*s0, got '%.*s'",
                                    (int)(off ? off - 1 : 0), arg, (int)off, arg, (int)klen, p);
                idx = idx * 10 + (size_t)(p[i] - '0');
            }
            if (idx >= cur->nitems)
                return set_fail(d, index, off, "index %zu is past the end of '%.*s' (%zu %s)", idx,
                                (int)(off ? off - 1 : 0), arg, cur->nitems,
                                cur->nitems == 1 ? "entry" : "entries");
            if (last) cur->items[idx] = val;
            slot = &cur->items[idx];
        } else {
            return set_fail(d, index, off,
                            "cannot set '%.*s': '%.*s' is a single value, not a "
                            "mapping or a list",
                            (int)(eq - arg), arg, (int)(off ? off - 1 : 0), arg);
        }
        if (last) return 0;
        p = end + 1;
    }
}

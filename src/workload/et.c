/* src/workload/et.c
 *
 * Chakra ET reader: the varint-delimited message stream (Chakra
 * src/third_party/utils/protoio.cc: WriteVarint32(size) then the message)
 * decoded with protobuf-c from the schema in et_def.proto. Attributes are
 * read by name whatever integer type carries them (traces from different
 * converters use int32, int64 or uint64 for the same attribute).
 */
#include "workload/et.h"

#include "core/diag.h"
#include "core/file.h"
#include "core/mem.h"

#include "workload/et_def.pb-c.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A trace file larger than this is refused (a bound on memory, not a format
 * limit: 1 GiB holds tens of millions of nodes). */
#define ET_MAX_FILE_BYTES (1ull << 30)

static int slurp(const char *path, uint8_t **buf, size_t *len, struct diag *d) {
    FILE *f = fs_open_regular(path); /* core/file.h: no folder, device or FIFO */
    if (!f)
        return diag_set(d, path, (struct srcpos){0, 0}, FS_ENOENT, "cannot open: %s",
                        strerror(errno));
    size_t cap = 4096, n = 0;
    uint8_t *b = fs_xmalloc(cap);
    size_t got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n > ET_MAX_FILE_BYTES) {
            fclose(f);
            free(b);
            return diag_set(d, path, (struct srcpos){0, 0}, FS_ERANGE,
                            "larger than %llu bytes; fabsim reads trace files up to 1 GiB",
                            (unsigned long long)ET_MAX_FILE_BYTES);
        }
        if (n == cap) {
            cap *= 2;
            b = fs_xrealloc(b, cap);
        }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(b);
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL, "read error");
    }
    *buf = b;
    *len = n;
    return 0;
}

/* Base-128 varint of at most 5 bytes (a uint32 length); 0 when incomplete. */
static size_t varint32(const uint8_t *p, size_t left, uint32_t *out) {
    uint64_t v = 0;
    for (size_t i = 0; i < left && i < 5; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            if (v > UINT32_MAX) return 0;
            *out = (uint32_t)v;
            return i + 1;
        }
    }
    return 0;
}

static bool attr_int(const ChakraProtoMsg__AttributeProto *a, int64_t *out) {
    switch (a->value_case) {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
        *out = a->int32_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
        *out = a->int64_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
        *out = a->uint32_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
        *out = a->uint64_val > INT64_MAX ? INT64_MAX : (int64_t)a->uint64_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
        *out = a->sint32_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
        *out = a->sint64_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL:
        *out = a->fixed32_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
        *out = a->fixed64_val > INT64_MAX ? INT64_MAX : (int64_t)a->fixed64_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL:
        *out = a->sfixed32_val;
        return true;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL:
        *out = a->sfixed64_val;
        return true;
    default:
        return false;
    }
}

/* Copies what fabsim uses from a decoded Node; an attribute of the wrong
 * type is an error (named). */
static int take_node(const char *path, size_t off, const ChakraProtoMsg__Node *m, struct et_node *e,
                     struct diag *d) {
    memset(e, 0, sizeof *e);
    e->id = m->id;
    e->type = (uint32_t)m->type;
    e->comm_type = e->comm_src = e->comm_dst = -1;
    e->duration_us = m->duration_micros;
    e->offset = (uint32_t)off;
    snprintf(e->name, sizeof e->name, "%s", m->name ? m->name : "");
    size_t nd = m->n_ctrl_deps + m->n_data_deps;
    e->deps = fs_xmalloc((nd ? nd : 1) * sizeof *e->deps);
    for (size_t i = 0; i < m->n_ctrl_deps; i++)
        e->deps[e->ndeps++] = m->ctrl_deps[i];
    for (size_t i = 0; i < m->n_data_deps; i++)
        e->deps[e->ndeps++] = m->data_deps[i];
    for (size_t i = 0; i < m->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = m->attr[i];
        if (!a->name) continue;
        int64_t v = 0;
        int64_t *slot = !strcmp(a->name, "comm_type")  ? &e->comm_type
                        : !strcmp(a->name, "comm_src") ? &e->comm_src
                        : !strcmp(a->name, "comm_dst") ? &e->comm_dst
                        : !strcmp(a->name, "comm_tag") ? &e->comm_tag
                                                       : NULL;
        bool size = !strcmp(a->name, "comm_size");
        if (slot || size) {
            if (!attr_int(a, &v) || v < 0)
                return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                                "byte %zu: node %llu ('%.40s'): attribute %s must be a "
                                "non-negative integer",
                                off, (unsigned long long)e->id, e->name, a->name);
            if (size)
                e->comm_size = (uint64_t)v;
            else
                *slot = v;
        } else if (!strcmp(a->name, "pg_name")) {
            if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
                return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                                "byte %zu: node %llu ('%.40s'): attribute pg_name must be a "
                                "string",
                                off, (unsigned long long)e->id, e->name);
            snprintf(e->pg_name, sizeof e->pg_name, "%s", a->string_val ? a->string_val : "");
        }
    }
    return 0;
}

/* The rank's totals so far with node `e` added: dependencies at most
 * ET_MAX_DEPS, compute time at most ET_MAX_COMPUTE_US. */
static int check_totals(const char *path, const struct et_node *e, uint64_t *ndeps,
                        uint64_t *compute_us, struct diag *d) {
    *ndeps += e->ndeps;
    if (*ndeps > ET_MAX_DEPS)
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                        "byte %u: node %llu ('%.40s'): more than %u dependencies in the "
                        "trace; allowed: at most %u per rank (limit ET_MAX_DEPS, "
                        "docs/outputs.md \"Limits\")",
                        e->offset, (unsigned long long)e->id, e->name, ET_MAX_DEPS, ET_MAX_DEPS);
    if (e->type != ET_COMP) return 0;
    if (e->duration_us > ET_MAX_COMPUTE_US - *compute_us)
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                        "byte %u: node %llu ('%.40s'): duration_micros %llu takes the rank's "
                        "compute past %llu us (24 h); allowed: at most that in all per rank "
                        "(limit ET_MAX_COMPUTE_US, docs/outputs.md \"Limits\")",
                        e->offset, (unsigned long long)e->id, e->name,
                        (unsigned long long)e->duration_us, ET_MAX_COMPUTE_US);
    *compute_us += e->duration_us;
    return 0;
}

int et_read(const char *path, struct et_trace *t, struct diag *d) {
    memset(t, 0, sizeof *t);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = slurp(path, &buf, &len, d);
    if (rc) return rc;
    if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
        free(buf);
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                        "gzip-compressed; fabsim reads plain Chakra ET files (gunzip it first)");
    }
    if (len == 0) {
        free(buf);
        return diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                        "empty file; a Chakra ET file starts with a GlobalMetadata message");
    }
    size_t off = 0, cap = 0;
    uint64_t ndeps = 0, compute_us = 0;
    bool meta = true;
    while (off < len) {
        uint32_t mlen;
        size_t h = varint32(buf + off, len - off, &mlen);
        if (!h || mlen > len - off - h) {
            rc =
                diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                         "byte %zu: truncated or not a Chakra ET file: %s (%zu bytes left); "
                         "an ET file is a stream of varint-length-prefixed protobuf messages",
                         off, !h ? "bad length prefix" : "message longer than the rest of the file",
                         len - off);
            break;
        }
        const uint8_t *p = buf + off + h;
        if (meta) {
            ChakraProtoMsg__GlobalMetadata *g =
                chakra_proto_msg__global_metadata__unpack(NULL, mlen, p);
            if (!g) {
                rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %zu: the first message (%u bytes) is not a Chakra "
                              "GlobalMetadata",
                              off, mlen);
                break;
            }
            snprintf(t->version, sizeof t->version, "%s", g->version ? g->version : "");
            chakra_proto_msg__global_metadata__free_unpacked(g, NULL);
            meta = false;
        } else {
            ChakraProtoMsg__Node *m = chakra_proto_msg__node__unpack(NULL, mlen, p);
            if (!m) {
                rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %zu: message %u (%u bytes) is not a Chakra Node", off,
                              t->nnodes + 1, mlen);
                break;
            }
            if (t->nnodes == ET_MAX_NODES) {
                chakra_proto_msg__node__free_unpacked(m, NULL);
                rc = diag_set(d, path, (struct srcpos){0, 0}, FS_EINVAL,
                              "byte %zu: more than %u nodes; allowed: at most %u per rank's "
                              "trace (limit ET_MAX_NODES, docs/outputs.md \"Limits\")",
                              off, ET_MAX_NODES, ET_MAX_NODES);
                break;
            }
            fs_grow((void **)&t->nodes, &cap, t->nnodes + 1, sizeof *t->nodes);
            rc = take_node(path, off, m, &t->nodes[t->nnodes], d);
            chakra_proto_msg__node__free_unpacked(m, NULL);
            t->nnodes++;
            if (!rc) rc = check_totals(path, &t->nodes[t->nnodes - 1], &ndeps, &compute_us, d);
            if (rc) break;
        }
        off += h + mlen;
    }
    free(buf);
    if (rc) et_free(t);
    return rc;
}

void et_free(struct et_trace *t) {
    for (uint32_t i = 0; i < t->nnodes; i++)
        free(t->nodes[i].deps);
    free(t->nodes);
    memset(t, 0, sizeof *t);
}

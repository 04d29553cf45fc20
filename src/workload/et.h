/* src/workload/et.h
 *
 * MLCommons Chakra execution traces (ET): one file per rank, a stream of
 * messages each preceded by its length as a base-128 varint, the first a
 * GlobalMetadata, every other a Node (Chakra's protoio: WriteVarint32 then
 * the message). Read into plain structs with what fabsim's collective
 * engine needs; the only user of protobuf-c (et.c). Called by coll/chakra.c.
 */
#ifndef FABSIM_WORKLOAD_ET_H
#define FABSIM_WORKLOAD_ET_H

#include <stdbool.h>
#include <stdint.h>

struct diag;

/* Chakra NodeType and CollectiveCommType values (et_def.proto). */
enum et_node_type {
    ET_INVALID = 0,
    ET_METADATA = 1,
    ET_MEM_LOAD = 2,
    ET_MEM_STORE = 3,
    ET_COMP = 4,
    ET_SEND = 5,
    ET_RECV = 6,
    ET_COLL = 7,
};
enum et_comm_type {
    ET_ALL_REDUCE = 0,
    ET_REDUCE = 1,
    ET_ALL_GATHER = 2,
    ET_GATHER = 3,
    ET_SCATTER = 4,
    ET_BROADCAST = 5,
    ET_ALL_TO_ALL = 6,
    ET_REDUCE_SCATTER = 7,
    ET_REDUCE_SCATTER_BLOCK = 8,
    ET_BARRIER = 9,
};

struct et_node {
    uint64_t id;
    uint32_t type;        /* enum et_node_type (other values kept as they are) */
    int64_t comm_type;    /* attr comm_type; -1 when absent */
    uint64_t comm_size;   /* attr comm_size, bytes */
    int64_t comm_src;     /* attr comm_src (recv), -1 when absent */
    int64_t comm_dst;     /* attr comm_dst (send), -1 when absent */
    int64_t comm_tag;     /* attr comm_tag, 0 when absent */
    uint64_t duration_us; /* duration_micros */
    uint64_t *deps;       /* ctrl_deps then data_deps */
    uint32_t ndeps;
    uint32_t offset; /* byte offset of the node's message in the file (errors) */
    char name[64];
    char pg_name[64]; /* attr pg_name (process group); "" = every rank */
};

/* Limits of one rank's trace (docs/outputs.md "Limits"): a node costs
 * about 200 bytes here whatever its size in the file (an empty Node is one
 * byte there), so the node count bounds memory, not the file size; a
 * rank's compute adds up to at most ET_MAX_COMPUTE_US (24 h simulated), so
 * that picoseconds never overflow. */
#define ET_MAX_NODES (1u << 20)
#define ET_MAX_DEPS (1u << 24)
#define ET_MAX_COMPUTE_US 86400000000ull

struct et_trace {
    char version[32]; /* GlobalMetadata.version */
    struct et_node *nodes;
    uint32_t nnodes;
};

/* Reads one rank's ET file. 0, or a negative FS_E* with `d` naming the file
 * and the byte offset of what is wrong (truncated, not an ET stream, gzip). */
int et_read(const char *path, struct et_trace *t, struct diag *d);
void et_free(struct et_trace *t);

#endif /* FABSIM_WORKLOAD_ET_H */

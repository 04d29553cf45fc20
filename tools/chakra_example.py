#!/usr/bin/env python3
"""tools/chakra_example.py OUT_DIR [RANKS]

Writes a small Chakra execution trace (one file per rank, OUT_DIR/step.<r>.et)
in the MLCommons Chakra wire format: a varint-length-prefixed GlobalMetadata
then Node messages (et_def.proto field numbers), encoded by hand so that no
protobuf package is needed. It is the trace of scenarios/examples/chakra.yaml
(docs/inputs.md): one training step of a model split 2-way tensor-parallel
(pg "tp<i>": ranks 2i, 2i+1) and data-parallel across the pairs (pg "dp<j>"):
  forward   3 x (compute 150 us -> AllGather 4 MiB in tp)
  backward  3 x (compute 300 us -> AllReduce 32 MiB gradients in dp)
  optimizer compute 100 us after every gradient AllReduce
"""
import os
import sys


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def u64(field, v):
    return key(field, 0) + varint(v)


def blob(field, b):
    return key(field, 2) + varint(len(b)) + b


def s(field, text):
    return blob(field, text.encode())


def attr_int(name, v):  # AttributeProto{name=1, int64_val=9}
    return blob(10, s(1, name) + u64(9, v))


def attr_str(name, v):  # AttributeProto{name=1, string_val=29}
    return blob(10, s(1, name) + s(29, v))


COMP, COLL = 4, 7
ALL_REDUCE, ALL_GATHER = 0, 2


def node(nid, name, typ, deps=(), dur_us=0, comm=None, size=0, pg=None):
    m = u64(1, nid) + s(2, name) + u64(3, typ)
    if deps:
        m += blob(5, b"".join(varint(d) for d in deps))  # data_deps, packed
    if dur_us:
        m += u64(7, dur_us)
    if typ == COLL:
        m += attr_int("comm_type", comm) + attr_int("comm_size", size)
        m += attr_str("pg_name", pg)
    return m


def rank_nodes(r, ranks):
    tp, dp = "tp%d" % (r // 2), "dp%d" % (r % 2)
    out, last, nid = [], None, 1
    for layer in range(3):
        c = node(nid, "fwd%d" % layer, COMP, [last] if last else [], dur_us=150)
        out.append(c)
        g = node(nid + 1, "ag%d" % layer, COLL, [nid], comm=ALL_GATHER, size=4 << 20, pg=tp)
        out.append(g)
        last, nid = nid + 1, nid + 2
    grads = []
    for layer in reversed(range(3)):
        out.append(node(nid, "bwd%d" % layer, COMP, [last], dur_us=300))
        out.append(node(nid + 1, "ar%d" % layer, COLL, [nid], comm=ALL_REDUCE, size=32 << 20,
                        pg=dp))
        grads.append(nid + 1)
        last, nid = nid, nid + 2
    out.append(node(nid, "optimizer", COMP, grads, dur_us=100))
    return out


def main():
    d = sys.argv[1]
    ranks = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    os.makedirs(d, exist_ok=True)
    meta = s(1, "0.0.4")
    for r in range(ranks):
        with open(os.path.join(d, "step.%d.et" % r), "wb") as f:
            f.write(varint(len(meta)) + meta)
            for m in rank_nodes(r, ranks):
                f.write(varint(len(m)) + m)


main()

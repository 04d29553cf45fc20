#!/bin/sh
# tests/stats/check_trace_flows.sh BUILD_DIR
#
# `run --trace`: the Chrome trace's flow arrows and compute slices, as the
# Trace Event Format defines them for Perfetto UI and chrome://tracing
# (docs/outputs.md "Chrome trace"), read with Python's json module:
#  - collectives (nccl_tests ring): every "s" has one "f" of the same cat and
#    id, ids unique over the file; a "msg" arrow runs from the sender's xfer
#    slice (the "s" inside it) to the receiver's recv slice (the "f", "bp":
#    "e", inside it) on the host the xfer names as dst; a "dep" arrow from
#    the recv slice of the message whose receive posted a transfer to that
#    transfer's xfer slice (ring steps), forward in time;
#  - flows (incast): an arrow from each flow's slice to a recv slice per
#    message on the receiver;
#  - Chakra (scenarios/examples/chakra.yaml): each COMP_NODE of each rank's
#    trace file is a slice named as the node, on that rank's host, with the
#    node's duration_micros, once per iteration;
#  - tids fit in 32 bits (Perfetto reads them as int32); a rerun gives the
#    same bytes. Then, when the `perfetto` Python package is installed, its
#    trace_processor loads the file and counts the flows (skipped otherwise).
# Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-trace-flows"
rm -rf "$OUT"
mkdir -p "$OUT"
fail() { echo "FAIL: $1"; echo "0 passed, 1 failed"; exit 1; }
"$FAB" run scenarios/examples/nccl_tests_ring16.yaml --set workload.0.max=64K \
    --set workload.0.step=8 -o "$OUT/run" --trace "$OUT/t.json" >"$OUT/run.txt" 2>&1 ||
    fail "run --trace (nccl_tests)"
"$FAB" run scenarios/examples/incast.yaml --set workload.0.size=256KiB -o "$OUT/inc" \
    --trace "$OUT/inc.json" >"$OUT/inc.txt" 2>&1 || fail "run --trace (incast)"
"$FAB" run scenarios/examples/chakra.yaml --set topology.spines=1 -o "$OUT/ck" \
    --trace "$OUT/ck.json" >"$OUT/ck.txt" 2>&1 || fail "run --trace (chakra)"
python3 - "$OUT" scenarios/examples/inputs/chakra_step >"$OUT/py.txt" <<'PY'
import collections, glob, json, os, sys
out, ckdir = sys.argv[1], sys.argv[2]
P = F = 0
def check(ok, what):
    global P, F
    print(("ok: " if ok else "FAIL: ") + what)
    P += bool(ok)
    F += not ok

def load(name):
    ev = json.load(open(os.path.join(out, name)))["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in ev
             if e["ph"] == "M" and e["name"] == "process_name"}
    slices = {}
    for e in ev:
        if e["ph"] == "X":
            slices.setdefault((e["pid"], e["tid"]), []).append(e)
    return ev, names, slices

def inside(slices, e, name):
    for x in slices.get((e["pid"], e["tid"]), []):
        if (name is None or x["name"] == name) and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]:
            return x
    return None

def arrows(ev, what):
    s, f = {}, {}
    for e in ev:
        if e["ph"] in "sf":
            d = s if e["ph"] == "s" else f
            check_unique.append((e["ph"], e["id"]))
            d[e["id"]] = e
    return s, f

# --- collectives ---
ev, names, slices = load("t.json")
check_unique = []
s, f = arrows(ev, "coll")
check(len(check_unique) == len(set(check_unique)), "flow ids are unique over the file")
check(set(s) == set(f) and all(s[i]["cat"] == f[i]["cat"] for i in s),
      f"every 's' has its 'f' (same cat, id): {len(s)} arrows")
check(all(f[i].get("bp") == "e" for i in f), "every 'f' binds to its enclosing slice (bp e)")
msg = [i for i in s if s[i]["cat"] == "msg"]
dep = [i for i in s if s[i]["cat"] == "dep"]
xfers = [e for e in ev if e["ph"] == "X" and e["name"] == "xfer"]
check(len(msg) > 1000 and len(msg) == len(xfers),
      f"{len(msg)} send->receive arrows, one per transfer ({len(xfers)})")
bad = 0
for i in msg:
    x, r = inside(slices, s[i], "xfer"), inside(slices, f[i], "recv")
    if not x or not r or x["args"]["msg"] != i or r["args"]["msg"] != i or \
       names[r["pid"]] != x["args"]["dst"] or names[x["pid"]] != r["args"]["src"]:
        bad += 1
check(bad == 0, f"each send->receive arrow runs from its xfer slice (sender) to its recv "
      f"slice (the xfer's dst): {bad} wrong")
# a ring's steps: every transfer but the first slots of each call depends on a receive
check(len(dep) > len(msg) // 2, f"{len(dep)} step-dependency arrows (receive -> dependent send)")
bad = 0
for i in dep:
    r, x = inside(slices, s[i], "recv"), inside(slices, f[i], "xfer")
    if not r or not x or r["args"]["msg"] != s[i]["args"]["msg"] or \
       x["args"]["msg"] != f[i]["args"]["msg"] or x["ts"] < r["ts"] + r["dur"] - 1e-6:
        bad += 1
check(bad == 0, f"each dependency arrow runs from a recv slice to an xfer slice posted after "
      f"that receive: {bad} wrong")
same = sum(1 for i in dep if s[i]["pid"] == f[i]["pid"])
check(same * 10 >= len(dep) * 9, f"ring steps: the receiver sends the next step "
      f"({same} of {len(dep)} dependency arrows stay on one host)")
check(all(f[i]["ts"] >= s[i]["ts"] for i in s), "each arrow goes forward in time")
check(all(e.get("tid", 0) < 2**31 for e in ev), "tids fit in int32")

# --- flows ---
ev, names, slices = load("inc.json")
check_unique = []
s, f = arrows(ev, "flows")
flows = [e for e in ev if e["ph"] == "X" and e["cat"] == "flow"]
bad = 0
for i in s:
    x, r = inside(slices, s[i], None), inside(slices, f[i], "recv")
    if not x or x["cat"] != "flow" or not r or r["args"].get("flow") != x["args"]["id"] or \
       names[r["pid"]] != x["args"]["dst"]:
        bad += 1
check(len(flows) == 8 and len(s) >= 8 and set(s) == set(f) and bad == 0,
      f"incast: {len(s)} arrows from the {len(flows)} flows' slices to recv slices on the "
      f"receiver ({bad} wrong)")

# --- Chakra compute ---
def varint(b, i):
    v = sh = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7F) << sh; sh += 7
        if c < 0x80:
            return v, i

def fields(m):
    i, out = 0, {}
    while i < len(m):
        k, i = varint(m, i)
        if k & 7 == 0:
            v, i = varint(m, i)
        elif k & 7 == 2:
            n, i = varint(m, i); v = m[i:i + n]; i += n
        elif k & 7 == 1:
            v = m[i:i + 8]; i += 8
        else:
            v = m[i:i + 4]; i += 4
        out.setdefault(k >> 3, v)
    return out

def comp_nodes(path):  # (name, duration us) of COMP_NODE (type 4) nodes
    b, i, first, got = open(path, "rb").read(), 0, True, []
    while i < len(b):
        n, i = varint(b, i)
        m, i = b[i:i + n], i + n
        if first:
            first = False  # GlobalMetadata
            continue
        fl = fields(m)
        if fl.get(3) == 4:
            got.append((fl[2].decode(), fl.get(7, 0)))
    return got

ev, names, slices = load("ck.json")
iters = 2  # scenarios/examples/chakra.yaml
comp = collections.defaultdict(list)
for e in ev:
    if e["ph"] == "X" and e["cat"] == "compute":
        comp[names[e["pid"]]].append((e["name"], e["dur"]))
files = sorted(glob.glob(os.path.join(ckdir, "step.*.et")),
               key=lambda p: int(p.split(".")[-2]))
bad = 0
for r, p in enumerate(files):
    want = sorted(comp_nodes(p) * iters)
    got = sorted((n, round(d)) for n, d in comp.get("h%d" % r, []))
    if not want or want != got:
        bad += 1
        print(f"  rank {r}: trace {want[:3]}... slices {got[:3]}...")
check(len(files) == 8 and bad == 0,
      f"Chakra: each rank's COMP_NODEs are slices on its host with the trace's names and "
      f"durations ({sum(len(v) for v in comp.values())} slices, {bad} ranks wrong)")
tids = {e["tid"] for e in ev if e["ph"] == "X" and e["cat"] == "compute"}
tn = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
      if e["ph"] == "M" and e["name"] == "thread_name"}
check(all(tn.get((e["pid"], e["tid"]), "").startswith("compute") for e in ev
          if e["ph"] == "X" and e["cat"] == "compute"), "compute slices are on 'compute k' tracks")
print(f"{P} passed, {F} failed")
PY
cat "$OUT/py.txt"
last=$(tail -1 "$OUT/py.txt")
P=$(echo "$last" | cut -d' ' -f1)
F=$(echo "$last" | cut -d' ' -f3)
case "$last" in *passed*) ;; *) P=0 F=1 ;; esac
"$FAB" run scenarios/examples/nccl_tests_ring16.yaml --set workload.0.max=64K \
    --set workload.0.step=8 -o "$OUT/run2" --trace "$OUT/t2.json" >/dev/null 2>&1
if cmp -s "$OUT/t.json" "$OUT/t2.json"; then
    echo "ok: the trace is byte-identical on a rerun"
    P=$((P + 1))
else
    echo "FAIL: the trace differs on a rerun"
    F=$((F + 1))
fi
# Perfetto's own importer, when installed (pip install perfetto): optional.
if python3 -c "import perfetto.trace_processor" 2>/dev/null; then
    if python3 - "$OUT/ck.json" >"$OUT/tp.txt" 2>&1 <<'PY'
import sys
from perfetto.trace_processor import TraceProcessor
tp = TraceProcessor(trace=sys.argv[1])
n = next(iter(tp.query("select count(*) as c from flow"))).c
c = next(iter(tp.query("select count(*) as c from slice where category = 'compute'"))).c
print(n, c)
sys.exit(0 if n > 0 and c > 0 else 1)
PY
    then
        echo "ok: Perfetto's trace_processor loads the Chakra trace: $(cat "$OUT/tp.txt") flows, compute slices"
        P=$((P + 1))
    else
        echo "FAIL: trace_processor: $(tail -3 "$OUT/tp.txt")"
        F=$((F + 1))
    fi
else
    echo "skip: Perfetto's trace_processor (python3 package perfetto not installed)"
fi
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

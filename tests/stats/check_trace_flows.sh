#!/bin/sh
# tests/stats/check_trace_flows.sh BUILD_DIR
#
# `run --trace`: flow arrows from each collective transfer to its receive, as
# the Trace Event Format defines them for Perfetto UI and chrome://tracing
# (docs/outputs.md "Chrome trace"): every "s" has one "f" of the same cat and
# id; the "s" lies inside the sender's xfer slice on its thread, the "f"
# ("bp": "e") inside the receiver's recv slice on its thread; the recv slice
# is on the host the xfer names as dst; tids fit in 32 bits (Perfetto reads
# them as int32). Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-trace-flows"
rm -rf "$OUT"
mkdir -p "$OUT"
"$FAB" run scenarios/examples/nccl_tests_ring16.yaml --set workload.0.max=64K \
    --set workload.0.step=8 -o "$OUT/run" --trace "$OUT/t.json" >"$OUT/run.txt" 2>&1 ||
    { echo "FAIL: run --trace"; echo "0 passed, 1 failed"; exit 1; }
python3 - "$OUT/t.json" >"$OUT/py.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
P = F = 0
def check(ok, what):
    global P, F
    print(("ok: " if ok else "FAIL: ") + what)
    P += ok
    F += not ok
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
slices = {}
for e in ev:
    if e["ph"] == "X":
        slices.setdefault((e["pid"], e["tid"]), []).append(e)
def inside(e, name):
    for x in slices.get((e["pid"], e["tid"]), []):
        if x["name"] == name and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]:
            return x
    return None
s = {e["id"]: e for e in ev if e["ph"] == "s"}
f = {e["id"]: e for e in ev if e["ph"] == "f"}
xfers = [e for e in ev if e["ph"] == "X" and e["name"] == "xfer"]
check(len(s) > 1000 and len(s) == len(f) == len(xfers), f"{len(s)} arrows, one per transfer ({len(xfers)})")
check(set(s) == set(f) and all(s[i]["cat"] == f[i]["cat"] == "msg" for i in s), "every 's' has its 'f' (same cat, id)")
check(all(f[i].get("bp") == "e" for i in f), "'f' binds to its enclosing slice (bp e)")
bad = 0
for i in s:
    x, r = inside(s[i], "xfer"), inside(f[i], "recv")
    if not x or not r or x["args"]["msg"] != i or r["args"]["msg"] != i or \
       names[r["pid"]] != x["args"]["dst"] or names[x["pid"]] != r["args"]["src"]:
        bad += 1
check(bad == 0, f"each arrow runs from its xfer slice (sender) to its recv slice (the xfer's dst): {bad} wrong")
check(all(f[i]["ts"] > s[i]["ts"] for i in s), "each arrow goes forward in time")
check(all(e.get("tid", 0) < 2**31 for e in ev), "tids fit in int32")
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
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

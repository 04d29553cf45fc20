#!/bin/sh
# tests/coll/check_moe_inference.sh BUILD_DIR
#
# kind: moe and kind: inference (docs/scenario.md), through the binary, each
# check one the model fails if it is wrong:
#  - MoE all-to-all bytes per rank = tokens x top_k x bytes/token x
#    (experts - local) / experts, with one and with two experts per rank;
#  - imbalance f makes the busiest expert's rank receive f x the mean, and
#    its dispatch take longer than the balanced one;
#  - with tp 2 the same per-rank bytes, TP AllReduces on the wire besides;
#  - inference: a lone request's KV-cache transfer takes bytes / link rate
#    (within 10 %) on an idle fabric; TTFT grows with the offered load;
#  - Chrome trace of the MoE run: expert FFN slices on every rank; the
#    report's MoE and inference charts render (headless Chromium);
#  - same seed, same results.json; bad input: file:line:col and exit 2.
# Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-moe-inference"
rm -rf "$OUT"
mkdir -p "$OUT"
P=0
F=0
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }
MOE=scenarios/examples/moe.yaml
INF=scenarios/examples/inference.yaml
run() { # out-dir scenario args...
    o=$1
    shift
    "$FAB" run -q "$@" -o "$OUT/$o" >"$OUT/$o.log" 2>&1 || { cat "$OUT/$o.log"; return 1; }
}
run bal $MOE --set workload.0.imbalance=1 --set workload.0.gradients=0 || fail "moe balanced run"
run ep4 $MOE --set workload.0.imbalance=1 --set workload.0.ep=4 || fail "moe ep 4 run"
run skew $MOE --set workload.0.imbalance=2 --set workload.0.gradients=0 \
    --trace "$OUT/skew.json" || fail "moe imbalance 2 run"
run skew2 $MOE --set workload.0.imbalance=2 --set workload.0.gradients=0 || fail "moe rerun"
run tp2 $MOE --set workload.0.imbalance=1 --set workload.0.tp=2 || fail "moe tp 2 run"
run idle $INF --set workload.0.requests=1 --set workload.0.prompt_tokens=64 \
    --set workload.0.output_tokens=2 || fail "inference one request"
run light $INF --set workload.0.interval=5ms --set workload.0.arrival=fixed || fail "light load"
run heavy $INF --set workload.0.interval=200us --set workload.0.arrival=fixed || fail "heavy load"
python3 - "$OUT" >"$OUT/py.txt" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
P = F = 0
def check(ok, what):
    global P, F
    print(("ok: " if ok else "FAIL: ") + what)
    P += bool(ok)
    F += not ok
def res(name):
    return json.load(open(os.path.join(out, name, "results.json")))
tokens, k, tb, E = 512, 2, 4096 * 2, 8  # scenarios/examples/moe.yaml
for name, ep in (("bal", 8), ("ep4", 4), ("tp2", 4)):
    m = res(name)["moe"][0]
    local = E // m["ep"]
    want = tokens * k * tb * (E - local) // E
    rows = m["per_layer"]
    check(m["ep"] == ep and rows and all(r["sent_bytes_max"] == want and r["sent_bytes_mean"] == want
                                         and r["recv_bytes_max"] == want for r in rows),
          f"moe {name}: every rank sends and receives tokens x top_k x bytes/token x (E - local)/E "
          f"= {want} B per all-to-all (ep {m['ep']}, {local} experts per rank)")
    check(all(r["dispatch_ns"] and r["combine_ns"] and r["layer_ns"] >= r["dispatch_ns"] + r["combine_ns"]
              for r in rows) and len(rows) == 2 * m["layers"],
          f"moe {name}: a forward and a backward row per layer, each layer longer than its two all-to-alls")
bal, skew = res("bal")["moe"][0], res("skew")["moe"][0]
ratio = [s["recv_bytes_max"] / b["recv_bytes_mean"] for s, b in zip(skew["per_layer"], bal["per_layer"])]
check(all(abs(x - 2.0) < 1e-9 for x in ratio),
      f"moe imbalance 2: the busiest expert's rank receives 2x the balanced bytes ({ratio[0]:.6f})")
disp_b = sum(r["dispatch_ns"] for r in bal["per_layer"])
disp_s = sum(r["dispatch_ns"] for r in skew["per_layer"])
check(disp_s > 1.3 * disp_b, f"moe imbalance 2: dispatch {disp_s/1e3:.1f} us vs balanced {disp_b/1e3:.1f} us")
# at 400 Gb/s, the hot rank's 2x bytes take at least 2 x mean / link
want_ns = 2 * bal["per_layer"][0]["recv_bytes_mean"] * 8 / 400e9 * 1e9
check(all(r["dispatch_ns"] >= want_ns for r in skew["per_layer"]),
      f"moe imbalance 2: each dispatch takes at least the hot rank's bytes / link rate ({want_ns/1e3:.1f} us)")
tp = res("tp2")
check(tp["moe"][0]["tp"] == 2 and len(tp["collectives"]) == 0 and
      tp["summary"]["bytes_delivered"] > res("ep4")["summary"]["bytes_delivered"],
      "moe tp 2: TP AllReduces add traffic beside the all-to-alls")
# inference
i = res("idle")["inference"][0]
r = i["requests_detail"][0]
ideal = i["kv_bytes"] * 8 / 400e9 * 1e9
check(i["kv_bytes"] == 2 * 80 * 8 * 128 * 2 * 64 and r["kv_transfer_ns"] >= ideal and
      r["kv_transfer_ns"] <= 1.10 * ideal,
      f"inference: a lone 64-token prompt's KV cache ({i['kv_bytes']} B, Llama-3-70B) crosses in "
      f"{r['kv_transfer_ns']/1e3:.1f} us, bytes / link rate = {ideal/1e3:.1f} us")
check(abs(r["ttft_ns"] - (r["queue_ns"] + r["prefill_ns"] + r["kv_transfer_ns"])) < 1e-3 and
      r["prefill_ns"] == 1e6, "inference: TTFT = queueing + prefill + KV transfer")
lo, hi = res("light")["inference"][0], res("heavy")["inference"][0]
check(hi["ttft_mean_ns"] > 1.5 * lo["ttft_mean_ns"] and hi["offered_rps"] == 5000 and lo["offered_rps"] == 200,
      f"inference: mean TTFT grows with the offered load ({lo['ttft_mean_ns']/1e3:.0f} us at 200 req/s, "
      f"{hi['ttft_mean_ns']/1e3:.0f} us at 5000 req/s)")
check(any(q["queue_ns"] > 0 for q in hi["requests_detail"]) and
      all(q["queue_ns"] == 0 for q in lo["requests_detail"]),
      "inference: at 5000 req/s prompts queue at the prefill hosts, at 200 req/s none does")
# Chrome trace: compute slices
ev = json.load(open(os.path.join(out, "skew.json")))["traceEvents"]
ex = [e for e in ev if e["ph"] == "X" and e.get("cat") == "compute" and e["name"] == "expert FFN"]
check(len({e["pid"] for e in ex}) == 8 and len(ex) == 8 * 2 * 2,
      f"trace: expert FFN slices on every rank ({len(ex)})")
print(f"{P} passed, {F} failed")
PY
cat "$OUT/py.txt"
last=$(tail -1 "$OUT/py.txt")
case "$last" in
*passed*) P=$((P + $(echo "$last" | cut -d' ' -f1))); F=$((F + $(echo "$last" | cut -d' ' -f3))) ;;
*) F=$((F + 1)) ;;
esac
# byte-identical but for the wall-clock time of the run
if sed 's/"wall_s": [0-9.e+-]*/"wall_s": 0/' "$OUT/skew/results.json" >"$OUT/a.json" &&
    sed 's/"wall_s": [0-9.e+-]*/"wall_s": 0/' "$OUT/skew2/results.json" >"$OUT/b.json" &&
    cmp -s "$OUT/a.json" "$OUT/b.json"; then
    ok "moe: same seed, byte-identical results.json (but wall_s)"
else
    fail "moe: results.json differs on a rerun"
fi
# The report's charts of both (report/web/report.js moeChart, inferenceChart):
# rendered in headless Chromium, no error (skipped without the browser).
for o in skew heavy; do
    if ! "$FAB" report "$OUT/$o" >"$OUT/rep-$o.txt" 2>&1; then
        if grep -q "chart library not found" "$OUT/rep-$o.txt"; then
            echo "skip: report of $o (no chart library: make deps)"
            continue
        fi
        fail "fabsim report $o: $(cat "$OUT/rep-$o.txt")"
        continue
    fi
    node report/web/check-report.js "$OUT/$o/report.html" >"$OUT/web-$o.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "skip: browser check of the $o report"
    elif [ "$rc" -eq 0 ] && grep -q "every chart rendered (6/6)" "$OUT/web-$o.txt"; then
        ok "report of $o: its chart renders ($(grep 'every chart rendered' "$OUT/web-$o.txt"))"
    else
        fail "report of $o: $(cat "$OUT/web-$o.txt")"
    fi
done
# Bad input: the key's file:line:col, exit 2.
bad() { # what, yaml-of-the-entry, expected message part
    printf 'name: bad\nfabric: {kind: roce}\ntopology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\nworkload:\n  - %s\n' "$2" >"$OUT/bad.yaml"
    "$FAB" validate "$OUT/bad.yaml" >"$OUT/bad.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "bad.yaml:$4: error: .*$3" "$OUT/bad.txt"; then
        ok "$1: exit 2, $(head -c 160 "$OUT/bad.txt")"
    else
        fail "$1 (rc $rc): $(cat "$OUT/bad.txt")"
    fi
}
bad "moe top_k above experts" "{kind: moe, experts: 4, top_k: 6}" "top_k 6 is more than the 4 experts" "5:[0-9]*"
bad "moe imbalance above experts/top_k" "{kind: moe, imbalance: 5}" "imbalance 5 is more than experts / top_k = 4" "5:[0-9]*"
bad "moe imbalance below 1" "{kind: moe, imbalance: 0.5}" "expected a number >= 1" "5:[0-9]*"
bad "moe ep not dividing experts" "{kind: moe, experts: 8, ep: 3}" "experts must be a multiple of ep" "5:[0-9]*"
bad "moe ep not dividing ranks" "{kind: moe, experts: 16, ep: 16}" "ep 16 does not divide" "5:[0-9]*"
bad "inference without interval" "{kind: inference}" "interval" "5:[0-9]*"
bad "inference arrival typo" "{kind: inference, interval: 1ms, arrival: poison}" "poison" "5:[0-9]*"
bad "inference prefill_hosts = ranks" "{kind: inference, interval: 1ms, prefill_hosts: 8}" "leaves no decode host" "5:[0-9]*"
bad "a moe key on inference" "{kind: inference, interval: 1ms, experts: 4}" "experts" "5:[0-9]*"
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

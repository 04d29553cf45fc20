#!/bin/sh
# tests/perf/check_scaling_chart.sh BUILD_DIR
#
# docs/perf/scaling.csv (issue 13 item 6, docs/performance.md "Scaling
# chart") and its chart: the derived columns agree with the measured ones
# (kb_per_host = max_rss_kb / hosts, ns_per_hop = cpu_s / link_hops,
# loop_ns_per_hop below ns_per_hop), every tool and size has a row, a size
# not run says why, and the committed docs/perf/scaling.svg is exactly what
# tools/scaling_chart.py draws from the committed CSV. Ends "N passed, N
# failed".
B=${1:-build}
OUT="$B/test-perf"
P=0
F=0
rm -rf "$OUT"
mkdir -p "$OUT"
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }

CSV=docs/perf/scaling.csv
if python3 - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = []
seen = set()
for i, r in enumerate(rows, 2):
    seen.add((r["tool"], int(r["hosts"])))
    if int(r["k"]) ** 3 // 4 != int(r["hosts"]):
        bad.append(f"line {i}: k {r['k']} is not {r['hosts']} hosts")
    if not r["link_hops"]:
        if not r["note"].startswith("not run"):
            bad.append(f"line {i}: no link_hops and no 'not run' note")
        continue
    hops, cpu, rss, n = int(r["link_hops"]), float(r["cpu_s"]), int(r["max_rss_kb"]), int(r["hosts"])
    if abs(float(r["kb_per_host"]) - rss / n) > 0.051:
        bad.append(f"line {i}: kb_per_host {r['kb_per_host']} != {rss / n:.1f}")
    if abs(int(r["ns_per_hop"]) - cpu * 1e9 / hops) > 0.51:
        bad.append(f"line {i}: ns_per_hop {r['ns_per_hop']} != {cpu * 1e9 / hops:.1f}")
    if r["loop_ns_per_hop"] and int(r["loop_ns_per_hop"]) > int(r["ns_per_hop"]) * 1.05:
        bad.append(f"line {i}: loop {r['loop_ns_per_hop']} above whole process {r['ns_per_hop']}")
    if int(r["pause_frames"]) >= hops:
        bad.append(f"line {i}: pause frames {r['pause_frames']} not a part of {hops} link-hops")
for t in ("fabsim", "htsim"):
    for n in (128, 1024, 3456, 8192, 27648):
        if (t, n) not in seen:
            bad.append(f"no row for {t} at {n} hosts")
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then ok "scaling.csv: derived columns, a row per tool and size"; else fail "scaling.csv"; fi

if python3 tools/scaling_chart.py "$CSV" -o "$OUT/scaling.svg" && cmp -s "$OUT/scaling.svg" docs/perf/scaling.svg; then
    ok "docs/perf/scaling.svg is tools/scaling_chart.py's drawing of scaling.csv"
else
    fail "docs/perf/scaling.svg differs from tools/scaling_chart.py $CSV (re-run it)"
fi
if [ "$(grep -c '<polyline' "$OUT/scaling.svg")" -eq 4 ] && grep -q 'not run' "$OUT/scaling.svg"; then
    ok "chart: two tools on two panels, the size not run marked"
else
    fail "chart: expected 4 lines and a 'not run' mark"
fi
echo "$P passed, $F failed"

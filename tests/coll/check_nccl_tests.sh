#!/bin/sh
# tests/coll/check_nccl_tests.sh BUILD_DIR
#
# nccl-tests round trips. fabsim's table read by a parser written the way
# scripts read nccl-tests' output (find "# nThread", the header line, rows of
# 13 fields; busbw in fields 8 and 12 as AWS's EFA guide reads them), with
# the header's columns over the data's (nccl-tests 2.13 common.cu) and
# #wrong 0; real published logs (tests/coll/fixture, sources in each) read
# by `fabsim fit` and `run --against`; a log written from a known alpha and
# beta fitted back; fabsim's own output put against itself (ratio 1).
# Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-nccl-tests"
FX=tests/coll/fixture
S=scenarios/examples/nccl_tests_ring16.yaml
P=0
F=0
rm -rf "$OUT"
mkdir -p "$OUT"
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }

"$FAB" run "$S" --set workload.0.max=1M --set workload.0.step=8 -o "$OUT/run" >"$OUT/run.txt" 2>&1 ||
    fail "run $S"
python3 - "$OUT/run.txt" <<'PY' && ok "fabsim's table parses as nccl-tests output (preamble, aligned header, #wrong 0)" || fail "fabsim's table is not nccl-tests' format"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("# nThread "))
m = re.match(r"# nThread (\d+) nGpus (\d+) minBytes (\d+) maxBytes (\d+) step: (\d+)\((factor|bytes)\) "
             r"warmup iters: (\d+) iters: (\d+) agg iters: (\d+) validation: (\d+) graph: (\d+)$", lines[start])
assert m, lines[start]
assert (m.group(3), m.group(4), m.group(5), m.group(6)) == ("8", "1048576", "8", "factor"), m.groups()
assert lines[start + 1] == "#" and lines[start + 2] == "# Using devices"
ranks = [l for l in lines[start:] if l.startswith("#  Rank ")]
assert len(ranks) == 16, len(ranks)
hdr = next(l for l in lines[start:] if "#wrong" in l)
rows = [l for l in lines[start:] if re.match(r"\s+\d+\s+\d+\s+float", l)]
assert len(rows) == 6, rows
# each header label's last character sits over the last character of its column
def right_edges(s):
    return [m.end() for m in re.finditer(r"\S+", s)]
he, names = right_edges(hdr), hdr[1:].split()
for r in rows:
    re_ = right_edges(r)
    assert len(re_) == 13 == len(names), (names, r)
    assert he[1:] == re_, f"header columns {he[1:]} vs data {re_}"
for r in rows:
    t = r.split()
    assert t[8] == "0" and t[12] == "0", r     # #wrong
    float(t[7]), float(t[11])                   # busbw (awk $8, $12)
assert any(l.startswith("# Out of bounds values : 0 OK") for l in lines)
assert any(l.startswith("# Avg bus bandwidth    : ") for l in lines)
PY

# real logs: each read, each fitted or compared
for f in "$FX"/a3mega-h100-16ranks.log "$FX"/efa-p4d-mpirun-tags.log; do
    if "$FAB" fit "$f" --ranks 16 >"$OUT/fit.txt" 2>&1 &&
        grep -q "^--set workload.0.step_overhead=[0-9]*ns$" "$OUT/fit.txt" &&
        grep -q "^--set fabric.link=[0-9]*Gbps$" "$OUT/fit.txt"; then
        ok "fabsim fit $(basename "$f"): $(grep -c ^--set "$OUT/fit.txt") --set lines"
    else
        fail "fabsim fit $(basename "$f"): $(cat "$OUT/fit.txt")"
    fi
done
"$FAB" fit "$FX"/a3mega-h100-16ranks.log | grep -q "16 ranks, 12 sizes" &&
    ok "the a3-mega log: 16 ranks from its '#  Rank' lines, 12 rows" || fail "the a3-mega log's ranks or rows"
"$FAB" run "$S" --set workload.0.max=1M --set workload.0.step=8 -o "$OUT/against" \
    --against "$FX"/a3mega-h100-16ranks.log >"$OUT/against.txt" 2>&1
if grep -q "^# against .*all_reduce_perf, 16 rank(s); fabsim: all_reduce, 16 rank(s)" "$OUT/against.txt" &&
    [ "$(grep -cE '^ +[0-9]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ ' "$OUT/against.txt")" = 6 ] &&
    python3 -c "
import json,sys
a=json.load(open('$OUT/against/results.json'))['against']
assert a['op']=='all_reduce' and a['ranks']==16 and len(a['rows'])==12
both=[r for r in a['rows'] if r['ratio'] is not None]
assert len(both)==6 and all(r['ratio']>0 for r in both), both
"; then
    ok "run --against: 6 sizes in both with a ratio, results.json against"
else
    fail "run --against: $(tail -12 "$OUT/against.txt")"
fi
# the report plots both curves (rendered in a browser when Chromium and
# playwright-core are there, as tests/report/check_report.sh does)
if "$FAB" report "$OUT/against" >/dev/null 2>&1 && grep -q "busbw: fabsim beside the measured" "$OUT/against/report.html"; then
    node report/web/check-report.js "$OUT/against/report.html" >"$OUT/browser.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 77 ] || grep -q "^SKIP" "$OUT/browser.txt"; then
        ok "report.html has the fabsim-vs-measured chart (browser check skipped: $(head -1 "$OUT/browser.txt"))"
    elif [ "$rc" -eq 0 ] && grep -q "every chart rendered" "$OUT/browser.txt"; then
        ok "report.html: the fabsim-vs-measured chart renders ($(grep 'every chart rendered' "$OUT/browser.txt"))"
    else
        fail "report.html charts: $(cat "$OUT/browser.txt")"
    fi
else
    fail "fabsim report: no fabsim-vs-measured chart"
fi
"$FAB" run "$S" --set workload.0.max=1M --set workload.0.step=8 -o "$OUT/against2" \
    --against "$FX"/parallelcluster-2.10.log >"$OUT/against2.txt" 2>&1
grep -q "no size in both (fabsim ran 6, the log has 1)" "$OUT/against2.txt" &&
    ok "a 2.10 log (no root column): its one row read" || fail "2.10 log: $(tail -3 "$OUT/against2.txt")"

# fabsim's own output against itself: ratio 1 at every size
"$FAB" run "$S" --set workload.0.max=1M --set workload.0.step=8 -o "$OUT/self" \
    --against "$OUT/run.txt" >"$OUT/self.txt" 2>&1
grep -q "geometric mean ratio fabsim / measured: 1.000" "$OUT/self.txt" &&
    [ "$(grep -cE '^ +[0-9]+ .* 1\.000 ' "$OUT/self.txt")" = 6 ] &&
    ok "fabsim's table as the measured log: ratio 1.000 at all 6 sizes" ||
    fail "self against: $(tail -9 "$OUT/self.txt")"

# a log from t = 20 us + S / 20 GB/s, in nccl-tests' format: the fit finds them
python3 - "$OUT/synth.log" <<'PY'
import sys
n, a, bw = 8, 20.0, 20.0
with open(sys.argv[1], "w") as f:
    f.write("# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n")
    for r in range(n):
        f.write(f"#  Rank {r:2d} Group  0 Pid {1000 + r:6d} on {'node%d' % r:>10s} device  0 [0x07] NVIDIA A100-SXM4-80GB\n")
    f.write("#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
    s = 8
    while s <= 1 << 30:
        t = a + s / (bw * 1e3)
        alg = s / 1e3 / t
        bus = alg * 2 * (n - 1) / n
        ts = "%7.0f" % t if t >= 1e4 else "%7.1f" % t if t >= 100 else "%7.2f" % t
        half = "  %7s  %6.2f  %6.2f  %5g" % (ts, alg, bus, 0)
        f.write("%12d  %12d  %8s  %6s  %6d%s%s\n" % (s, s // 4, "float", "sum", -1, half, half))
        s *= 2
    f.write("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1\n#\n")
PY
"$FAB" fit "$OUT/synth.log" >"$OUT/synth.txt" 2>&1
python3 - "$OUT/synth.txt" <<'PY' && ok "fit of a log made from alpha 20 us, algbw 20 GB/s finds them (8 ranks: busbw 35)" || fail "synthetic fit: $(cat "$OUT/synth.txt")"
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"alpha ([0-9.]+) us, algbw ([0-9.]+) GB/s, busbw ([0-9.]+) GB/s", t)
a, alg, bus = map(float, m.groups())
assert abs(a - 20) < 0.2 and abs(alg - 20) < 0.2 and abs(bus - 35) < 0.4, (a, alg, bus)
assert "8 ranks" in t and "--set workload.0.step_overhead=1429ns" in t, t   # 20 us / 14 steps
PY

# errors: exit 2 with the file named
"$FAB" run "$S" --against "$OUT/none.log" -o "$OUT/x" >/dev/null 2>"$OUT/err.txt"
[ $? -eq 2 ] && grep -q "none.log" "$OUT/err.txt" && ok "--against a missing file: exit 2" ||
    fail "--against missing: $(cat "$OUT/err.txt")"
echo "not a log" >"$OUT/bad.log"
"$FAB" fit "$OUT/bad.log" >/dev/null 2>"$OUT/err.txt"
[ $? -eq 2 ] && grep -q "no nccl-tests rows" "$OUT/err.txt" && ok "fit of a file without rows: exit 2" ||
    fail "fit bad: $(cat "$OUT/err.txt")"
# sweep --against: every run carries the measured log; sweep.csv's
# against_ratio is the geometric mean of fabsim/measured over the 6 sizes
# both have, higher on a faster link (the measured figures stay put)
"$FAB" sweep "$S" --set workload.0.max=1M --set workload.0.step=8 --set fabric.link=100Gbps,400Gbps \
    -j 2 -q -o "$OUT/swa" --against "$FX"/a3mega-h100-16ranks.log >"$OUT/swa.txt" 2>&1
if python3 - "$OUT/swa" <<'PY'
import csv, json, glob, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/sweep.csv")))
assert len(rows) == 2, rows
r = {x["fabric.link"]: x for x in rows}
assert r["100Gbps"]["against_sizes"] == "6" and r["400Gbps"]["against_sizes"] == "6", rows
lo, hi = float(r["100Gbps"]["against_ratio"]), float(r["400Gbps"]["against_ratio"])
assert 0 < lo < hi, (lo, hi)
for f in glob.glob(sys.argv[1] + "/sweep/*/results.json"):
    assert json.load(open(f))["against"]["op"] == "all_reduce", f
print("against_ratio", lo, hi)
PY
then ok "sweep --against: against_ratio per run over 6 sizes, 400 G above 100 G"; else fail "sweep --against: $(cat "$OUT/swa.txt")"; fi
"$FAB" sweep "$S" --set fabric.link=100Gbps -q -o "$OUT/swb" --against "$OUT/no-such.log" >/dev/null 2>"$OUT/err.txt"
[ $? -eq 2 ] && grep -q "no-such.log" "$OUT/err.txt" && ok "sweep --against a missing log: exit 2 before any run" ||
    fail "sweep --against missing: $(cat "$OUT/err.txt")"
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

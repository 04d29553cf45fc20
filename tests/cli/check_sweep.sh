#!/bin/sh
# tests/cli/check_sweep.sh BUILD_DIR
#
# `fabsim sweep SCENARIO --set k=a,b --set j=x,y -j N`: the cartesian product
# runs, sweep.csv has one row per run with the swept values and the summary
# metrics (a 64 KiB buffer drops more than 1 MiB in a lossy incast, for both
# seeds), the CSV is the same with -j 1 and -j 2 (deterministic), the report
# opens in headless Chromium, usage errors exit 2. Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-sweep"
P=0
F=0
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }
rm -rf "$OUT"
mkdir -p "$OUT"
I=tests/report/fixture/lossless/04-incast-roce-lossy.yaml

"$FAB" sweep "$I" --set fabric.buffer=64KiB,1MiB -s seed=1,2 -j 2 -o "$OUT/a" >"$OUT/a.log" 2>&1
rc=$?
cat "$OUT/a.log"
if [ "$rc" -eq 0 ] && python3 - "$OUT/a/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
assert [(r["fabric.buffer"], r["seed"]) for r in rows] == [("64KiB", "1"), ("64KiB", "2"), ("1MiB", "1"), ("1MiB", "2")]
assert all(r["status"] == "ok" and r["completed"] == "1" for r in rows)
d = {(r["fabric.buffer"], r["seed"]): int(r["packets_dropped"]) for r in rows}
assert d[("64KiB", "1")] > d[("1MiB", "1")] > 0 and d[("64KiB", "2")] > d[("1MiB", "2")], d
print("drops", d)
PY
then ok "sweep 2 x 2: 4 rows in sweep.csv, 64 KiB drops more than 1 MiB"; else fail "sweep 2 x 2 (rc $rc)"; fi
[ -s "$OUT/a/report.html" ] && [ "$(cat "$OUT/a/mode")" = sweep ] && ok "report.html written" ||
    fail "sweep report"

"$FAB" sweep "$I" --set=fabric.buffer=64KiB,1MiB --set seed=1,2 -j 1 -o "$OUT/b" -q
if cmp -s "$OUT/a/sweep.csv" "$OUT/b/sweep.csv"; then
    ok "sweep.csv identical with -j 1 and -j 2"
else
    fail "sweep.csv differs between -j 1 and -j 2"
fi
# a second sweep into the same folder replaces the first one's runs
"$FAB" sweep "$I" --set fabric.buffer=128KiB -o "$OUT/b" -q
n=$(ls -d "$OUT/b/sweep/"*/ | wc -l)
[ "$n" -eq 1 ] && [ "$(wc -l <"$OUT/b/sweep.csv")" -eq 2 ] && ok "a new sweep replaces the old runs" ||
    fail "stale runs left ($n folders)"

node report/web/check-report.js "$OUT/a/report.html" >"$OUT/browser.log" 2>&1
rc=$?
cat "$OUT/browser.log"
if [ "$rc" -eq 77 ]; then
    echo "SKIP: browser test"
elif [ "$rc" -eq 0 ]; then
    ok "the sweep report renders in headless Chromium"
else
    fail "sweep report in the browser"
fi

"$FAB" sweep "$I" -o "$OUT/c" 2>/dev/null
[ $? -eq 2 ] && ok "sweep without --set: exit 2" || fail "sweep without --set"
"$FAB" sweep "$I" --set seed=1,2,3,4,5,6,7,8,9,10,11 --set fabric.buffer=1KiB,2KiB,3KiB,4KiB,5KiB,6KiB,7KiB,8KiB,9KiB,10KiB \
    --set fabric.mtu=1024,2048,4096,256,512,1024,2048,4096,256,512,1024 -o "$OUT/c" 2>"$OUT/c.log"
[ $? -eq 2 ] && grep -q "more than 1024 runs" "$OUT/c.log" && ok "more than 1024 runs: exit 2" ||
    fail "run cap"
"$FAB" sweep "$I" --set seed=1,,2 -o "$OUT/c" 2>/dev/null
[ $? -eq 2 ] && ok "an empty value: exit 2" || fail "empty value"
# a value fabsim does not take is bad input before anything runs, not a
# column of "not yet available"
"$FAB" sweep "$I" --set fabric.link=1x,2x -o "$OUT/e" -q 2>"$OUT/e.log"
[ $? -eq 2 ] && [ "$(wc -l <"$OUT/e.log")" -eq 1 ] && grep -q "^fabsim: --set:1:.*unknown unit 'x'" "$OUT/e.log" &&
    [ ! -e "$OUT/e/sweep" ] && ok "sweep: a bad --set value is exit 2 with its message" || fail "sweep bad value"
"$FAB" compare "$I" -s fabric.kind=infiniband -s fabric.kind=bogus -o "$OUT/f" -q 2>"$OUT/f.log"
[ $? -eq 2 ] && grep -q "unknown value 'bogus'; allowed: infiniband, roce" "$OUT/f.log" && [ ! -e "$OUT/f" ] &&
    ok "compare: a bad --set value is exit 2 with its message" || fail "compare bad value"
"$FAB" swep "$I" 2>"$OUT/d.log"
[ $? -eq 2 ] && grep -q "did you mean 'sweep'" "$OUT/d.log" && ok "did you mean 'sweep'" || fail "typo"

echo "$P passed, $F failed"
[ "$F" -eq 0 ]

#!/bin/sh
# tests/ib/check_lab_verdicts.sh BUILD_DIR
#
# Issue 34 item 2: InfiniBand's flow-control packets as IBA sends them (one
# per VL on change, fabric.credit_interval apart at least, refreshed every
# fabric.credit_refresh) leave the outcome of the labs that turn on credits
# unchanged: lossless (lossless by design, HOL blocking, credit deadlock),
# subnet_manager and counterarguments give the verdicts pinned in
# tests/ib/lab_verdicts.expected (main before the change). (Every lab at
# credit_interval 128 ns, 512 ns and 1 us: docs/performance.md, issue 34.)
# Ends with "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
P=0
F=0
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }

if "$FAB" labs -q -o "$OUT/labs" --only lossless --only subnet_manager --only counterarguments; then
    ok "fabsim labs --only lossless, subnet_manager, counterarguments exits 0"
else
    fail "fabsim labs --only lossless, subnet_manager, counterarguments exits 0"
fi
if python3 - "$OUT/labs/verdicts.json" tests/ib/lab_verdicts.expected <<'PY'; then
import json, sys
got = {}
for lab in json.load(open(sys.argv[1])):
    got[(lab["lab"], "-")] = lab["verdict"]
    for c in lab.get("claims", []):
        got[(lab["lab"], c["id"])] = c["verdict"]
bad = 0
n = 0
for line in open(sys.argv[2]):
    if not line.strip() or line.startswith("#"):
        continue
    lab, cid, want = line.split(" ", 2)
    want = want.strip()
    n += 1
    if got.get((lab, cid)) != want:
        bad += 1
        print(f"  {lab} {cid}: '{got.get((lab, cid))}', expected '{want}'")
print(f"  {n - bad} of {n} verdicts as pinned")
sys.exit(1 if bad or n == 0 else 0)
PY
    ok "lab verdicts as before the credit change (tests/ib/lab_verdicts.expected)"
else
    fail "lab verdicts as before the credit change (tests/ib/lab_verdicts.expected)"
fi
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

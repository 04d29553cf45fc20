#!/bin/sh
# tests/report/check_report.sh BUILD_DIR
#
# The labs, the report and compare, end to end through the binary:
#  - the fixture labs (tests/report/fixture: scenarios the core alone runs)
#    and, in the normal build, every course lab (scenarios/labs): each
#    scenario ran or is "not yet available", the claims that can be computed
#    hold (check_labs.py), and report.html opens in headless Chromium with
#    every chart rendered and no console error (report/web/check-report.js);
#  - `fabsim report DIR` rebuilds the page; `fabsim compare` in both forms.
# Ends with "N passed, N failed" (the sum of its parts).
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-report"
P=0
F=0
LOG=$(mktemp)
rm -rf "$OUT"
mkdir -p "$OUT"

ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }
sum() { # adds the last "N passed, N failed" of $LOG; a missing line is a failure
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1)
    if [ -n "$line" ]; then
        P=$((P + $(echo "$line" | cut -d' ' -f1)))
        F=$((F + $(echo "$line" | cut -d' ' -f3)))
    else
        F=$((F + 1))
    fi
}
browser() { # report.html
    node report/web/check-report.js "$1" >"$LOG" 2>&1
    rc=$?
    cat "$LOG"
    if [ "$rc" -eq 77 ]; then
        echo "SKIP: browser test (see above)"
    else
        sum
    fi
}

# 1. Fixture labs: always (fast, also under ASan).
if "$FAB" labs --labs-dir tests/report/fixture -o "$OUT/fixture" -q; then
    ok "fabsim labs on the fixture labs exits 0"
else
    fail "fabsim labs on the fixture labs exits 0"
fi
python3 tests/report/check_labs.py "$OUT/fixture" >"$LOG" 2>&1
cat "$LOG"
sum
browser "$OUT/fixture/report.html"
# A stray results.json beside a labs folder's runs (a `fabsim run -o` into
# the same folder) does not turn it into a one-run folder: the labs' verdicts
# are still written (verdicts.json was [] before).
mkdir -p "$OUT/stray"
cp "$(find "$OUT/fixture" -name results.json | sort | head -n 1)" "$OUT/stray/results.json"
"$FAB" labs --labs-dir tests/report/fixture -o "$OUT/stray" -q >"$LOG" 2>&1
if python3 -c "import json,sys; v=json.load(open(sys.argv[1])); sys.exit(0 if v else 1)" "$OUT/stray/verdicts.json"; then
    ok "a stray results.json in a labs folder: the verdicts are still written"
else
    fail "a stray results.json in a labs folder empties verdicts.json"
fi

# 2. Every course lab: the normal build only (the sanitizer build is ~10x slower).
case "$B" in
*check*) echo "skip: the course labs under the sanitizers (make test runs them)" ;;
*)
    start=$(date +%s)
    if "$FAB" labs -o "$OUT/labs" -q; then
        ok "fabsim labs (every course lab) exits 0"
    else
        fail "fabsim labs (every course lab) exits 0"
    fi
    took=$(($(date +%s) - start))
    if [ "$took" -le 240 ]; then ok "every lab in ${took}s (<= 240 s)"; else fail "labs took ${took}s (> 240 s)"; fi
    python3 tests/report/check_labs.py "$OUT/labs" >"$LOG" 2>&1
    cat "$LOG"
    sum
    # Every "what to change next" command in the guides and lab.yaml files is
    # a fabsim command whose --only names runs that exist.
    if python3 - "$OUT/labs" <<'PY'
import fnmatch, glob, os, re, shlex, sys
out = sys.argv[1]
runs = {(l, re.sub(r"^\d\d-", "", r)) for l in os.listdir(out) if os.path.isdir(os.path.join(out, l))
        for r in os.listdir(os.path.join(out, l)) if os.path.isdir(os.path.join(out, l, r))}
cmds = []
for f in sorted(glob.glob("docs/labs/*.md")):
    block = False
    for line in open(f):
        if line.startswith("```"):
            block = not block
        elif block and line.startswith("fabsim "):
            cmds.append((f, line.strip()))
for f in sorted(glob.glob("scenarios/labs/*/lab.yaml")):
    for line in open(f):
        if line.startswith("next:"):
            cmds.append((f, line.split(":", 1)[1].strip().strip('"')))
bad = []
for f, c in cmds:
    a = shlex.split(c)
    if a[1] not in ("labs", "compare", "run", "sweep"):
        bad.append(f"{f}: {c}")
    for i, w in enumerate(a):
        if w == "--only":
            lab, _, pat = a[i + 1].partition("/")
            if not any(l == lab and (not pat or fnmatch.fnmatch(r, pat)) for l, r in runs):
                bad.append(f"{f}: --only {a[i + 1]} matches no run")
        if a[1] in ("compare", "sweep", "run") and w.endswith(".yaml") and not os.path.exists(w):
            bad.append(f"{f}: {w} does not exist")
print(f"{len(cmds)} commands; " + ("; ".join(bad) if bad else "all name runs and files that exist"))
sys.exit(1 if bad or len(cmds) < 12 else 0)
PY
    then ok "the guides' commands name runs and files that exist"; else fail "a guide's command names a run or file that does not exist"; fi
    # The guides' generated tables are the runs' (tools/labdoc.py).
    if python3 tools/labdoc.py "$OUT/labs" >"$LOG" 2>&1; then
        ok "the guides' generated tables and figures match the runs"
    else
        cat "$LOG"
        fail "a guide's generated table or figure differs from the runs (python3 tools/labdoc.py OUT --write)"
    fi
    # ... and a figure typed over by hand is caught.
    mkdir -p "$OUT/docs-typed"
    sed 's/<!-- m: load_balancing.ecmp_vs_adaptive -->[^<]*<!-- \/m -->/<!-- m: load_balancing.ecmp_vs_adaptive -->about 2.5x<!-- \/m -->/' \
        docs/labs/load_balancing.md >"$OUT/docs-typed/load_balancing.md"
    if ! python3 tools/labdoc.py "$OUT/labs" --docs "$OUT/docs-typed" >"$LOG" 2>&1 &&
        grep -q "ecmp_vs_adaptive says 'about 2.5x'" "$LOG"; then
        ok "a figure typed over by hand in a guide is caught"
    else
        cat "$LOG"
        fail "labdoc.py did not catch a hand-typed figure"
    fi
    # The README's picture (docs/report.png, `make screenshot`) shows these
    # labs: its scenario count and verdicts (docs/report.json, written with
    # it) are the current runs'.
    if python3 - "$OUT/labs" <<'PY'
import json, os, sys
out = sys.argv[1]
shot = json.load(open("docs/report.json"))
n = sum(1 for l in os.listdir(out) if os.path.isdir(os.path.join(out, l))
        for r in os.listdir(os.path.join(out, l)) if os.path.isfile(os.path.join(out, l, r, "status.json")))
now = {v["lab"]: {"verdict": v["verdict"], "claims": [c["verdict"] for c in v["claims"]]}
       for v in json.load(open(os.path.join(out, "verdicts.json")))}
bad = [f"{n} scenarios, the picture {shot['scenarios']}"] if n != shot["scenarios"] else []
bad += [f"{l}: {now[l]} now, the picture {shot['verdicts'].get(l)}" for l in now if shot["verdicts"].get(l) != now[l]]
print("; ".join(bad) if bad else f"the picture shows {n} scenarios and the current verdicts")
sys.exit(1 if bad else 0)
PY
    then ok "the README picture is the current report's"; else fail "the README picture is stale: make screenshot"; fi
    # The course's pictures: each of these chart types rendered.
    export FABSIM_REQUIRE_CHARTS=spine_time,offered_load,topology_load,timelines_pair,dcqcn_rate,counters,deadlock,balls_into_bins
    browser "$OUT/labs/report.html"
    unset FABSIM_REQUIRE_CHARTS
    ;;
esac

# 2b. A lab written only in YAML, in a temporary folder: it runs, its claim
# and verdict are in `labs` output, report.html and verdicts.json; --set
# changes its numbers; --only marks the other run "not run"; a malformed
# lab.yaml is exit 2 with file:line:col before anything runs.
NL="$OUT/newlab"
mkdir -p "$NL/labs/mylab"
cp tests/report/fixture/lossless/04-incast-roce-lossy.yaml "$NL/labs/mylab/01-lossy.yaml"
cp tests/report/fixture/lossless/01-incast-ib-credit.yaml "$NL/labs/mylab/02-credits.yaml"
cat >"$NL/labs/mylab/lab.yaml" <<'EOF2'
title: "My lab, written in YAML only"
claim: "Credits never drop; a lossy fabric does."
next: "fabsim labs --labs-dir LABS --set fabric.buffer=4MiB"
metrics:
  lossy: {run: lossy, value: summary.packets_dropped, unit: drops}
  credits: {run: credits, value: summary.packets_dropped, unit: drops}
findings:
  - {title: "Drops", text: "lossy {lossy}, credits {credits}"}
verdict:
  holds: "credits == 0 && lossy > 0"
  says: {holds: "lossy dropped {lossy}, credits {credits}.", not: "lossy {lossy}, credits {credits}."}
charts:
  - {type: counters, metrics: {drops: summary.packets_dropped}}
EOF2
"$FAB" labs --labs-dir "$NL/labs" -o "$NL/out" >"$LOG" 2>&1
rc=$?
cat "$LOG"
if [ "$rc" -eq 0 ] && grep -q "Claim:   \"Credits never drop; a lossy fabric does.\"" "$LOG" &&
    grep -q "Verdict: holds. lossy dropped [1-9][0-9]* drops, credits 0 drops." "$LOG" &&
    grep -q "Credits never drop; a lossy fabric does." "$NL/out/report.html" &&
    python3 -c "import json,sys; v=json.load(open('$NL/out/verdicts.json')); sys.exit(0 if v[0]['verdict']=='holds' and v[0]['metrics']['lossy']>0 else 1)"; then
    ok "a lab written only in YAML runs and shows its claim and verdict (labs output, report, verdicts.json)"
else
    fail "a lab written only in YAML (rc $rc)"
fi
"$FAB" labs --labs-dir "$NL/labs" -o "$NL/out" -q --only mylab/lossy --set fabric.buffer=64MiB >"$LOG" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && python3 - "$NL/out" <<'PY'
import json, sys
d = sys.argv[1]
v = json.load(open(d + "/verdicts.json"))[0]
st = json.load(open(d + "/mylab/02-credits/status.json"))
# 64 MiB buffers: the lossy incast no longer drops, so the claim's
# "a lossy fabric does" fails; the credit run was left out.
sys.exit(0 if st["status"] == "not_run" and v["metrics"]["lossy"] == 0
         and v["verdict"] == "does not hold here" and open(d + "/sets").read().strip() == "fabric.buffer=64MiB" else 1)
PY
then
    ok "labs --set re-runs with the change (64 MiB buffer: 0 drops, verdict flips) and --only marks the rest not run"
else
    fail "labs --set / --only (rc $rc)"
fi
# labs --set seed=S on a lab that averages seeds (its runs set their own):
# S shifts each run's seed (k -> S + k - 1) instead of giving all one seed.
SL="$OUT/seedlab"
mkdir -p "$SL/labs/seeds"
cp tests/report/fixture/lossless/04-incast-roce-lossy.yaml "$SL/labs/seeds/lossy.yaml"
cat >"$SL/labs/seeds/lab.yaml" <<'EOF2'
title: "Seeds"
claim: "A mean over seeds."
runs:
  - {id: s1, file: lossy.yaml}
  - {id: s2, file: lossy.yaml, set: [seed=2]}
  - {id: s3, file: lossy.yaml, set: [seed=3]}
metrics:
  d: {run: s1, value: summary.packets_dropped, unit: drops}
findings:
  - {title: "Drops", text: "{d}"}
verdict:
  holds: "d >= 0"
  says: {holds: "{d}.", not: "{d}."}
EOF2
"$FAB" labs --labs-dir "$SL/labs" -o "$SL/out" -q --no-readings --set seed=5 >"$LOG" 2>&1
rc=$?
seeds=$(for r in 01-s1 02-s2 03-s3; do grep -o '"seed": *[0-9]*' "$SL/out/seeds/$r/results.json" | head -1 | grep -o '[0-9]*$'; done | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$seeds" = "5 6 7 " ]; then
    ok "labs --set seed=5 shifts a multi-seed lab's seeds 1, 2, 3 to 5, 6, 7"
else
    cat "$LOG"
    fail "labs --set seed on a multi-seed lab (rc $rc, seeds '$seeds', want '5 6 7 ')"
fi
# Readings (lab.yaml `readings:`): the lab again under each; a verdict
# that changes is said (verdicts.json readings, the labs output); a run
# that does not take a reading's change (an InfiniBand key on RoCE) is not
# re-run: the reading reads the run itself; --no-readings removes them.
cp "$NL/labs/mylab/lab.yaml" "$NL/mylab.yaml"
cat >>"$NL/labs/mylab/lab.yaml" <<'EOF2'
readings:
  - {id: deep, set: [fabric.buffer=64MiB], why: "a deep-buffer switch"}
  - {id: vl, set: [fabric.vl_buffer=32KiB], why: "an IB key: the RoCE run does not take it"}
EOF2
"$FAB" labs --labs-dir "$NL/labs" -o "$NL/out3" >"$LOG" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "depends on the reading: deep (fabric.buffer=64MiB): does not hold here" "$LOG" &&
    python3 - "$NL/out3" <<'PY'
import json, os, sys
d = sys.argv[1]
v = json.load(open(d + "/verdicts.json"))[0]
r = {x["id"]: x for x in v["readings"]}
ok = v["verdict"] == "holds" and r["deep"]["verdict"] == "does not hold here" and r["vl"]["verdict"] == "holds"
ok = ok and r["deep"]["set"] == ["fabric.buffer=64MiB"] and r["vl"]["why"].startswith("an IB key")
# the vl reading re-ran only the InfiniBand run
ok = ok and sorted(os.listdir(d + "/mylab/readings/vl")) == ["02-credits"]
ok = ok and sorted(os.listdir(d + "/mylab/readings/deep")) == ["01-lossy", "02-credits"]
ok = ok and json.load(open(d + "/mylab/readings/deep/01-lossy/results.json"))["summary"]["packets_dropped"] == 0
sys.exit(0 if ok else 1)
PY
then
    ok "lab readings: the lab re-run under each, the verdict that changes said (deep buffer: does not hold), a reading a run does not take leaves it as it is"
else
    fail "lab readings (rc $rc)"
fi
"$FAB" labs --labs-dir "$NL/labs" -o "$NL/out3" -q --no-readings >"$LOG" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ ! -d "$NL/out3/mylab/readings/deep/01-lossy" ] &&
    python3 -c "import json,sys; v=json.load(open('$NL/out3/verdicts.json'))[0]; sys.exit(0 if v['readings']==[] else 1)"; then
    ok "labs --no-readings removes the readings' runs and reports none"
else
    fail "labs --no-readings (rc $rc)"
fi
printf 'title: t\nclaim: c\nmetrics:\n  x: {run: lossy, value: summary.packets_dropped}\nfindings: []\nverdict: {holds: "x > 0", says: {holds: a, not: b}}\nreadings:\n  - {id: deep, set: [fabric.buffer]}\n' >"$NL/labs/mylab/lab.yaml"
"$FAB" labs --labs-dir "$NL/labs" -o "$NL/out4" -q 2>"$LOG"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "mylab/lab.yaml:8:5: error: readings item: needs .id:., .set:" "$LOG"; then
    ok "a reading without why: is exit 2 with file:line:col"
else
    fail "a malformed reading (rc $rc): $(cat "$LOG")"
fi
printf 'title: t\nclaim: c\nmetrics:\n  x: {run: lossy, value: "summary.packets_dropped >"}\n' >"$NL/labs/mylab/lab.yaml"
"$FAB" labs --labs-dir "$NL/labs" -o "$NL/out2" -q 2>"$LOG"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "mylab/lab.yaml:4:[0-9]*: error: metric value: expression ends too early" "$LOG" && [ ! -d "$NL/out2/mylab" ]; then
    ok "a malformed lab.yaml is exit 2 with file:line:col, before anything runs"
else
    fail "malformed lab.yaml (rc $rc): $(cat "$LOG")"
fi

# 2c. results.json "cc_rates": a DCQCN incast records each sender's rate over
# time, starting at line rate and cut below it after the CNPs; a run without
# DCQCN records none. CNPs paced per QP, so that most senders are cut (with
# ConnectX's per-port pacing, the default, 2 of the 7 go below 200 Gb/s).
"$FAB" run scenarios/labs/ecn_dcqcn/02-incast-dcqcn-default.yaml -o "$OUT/ccr" -q \
    --set fabric.dcqcn.cnp_pacing=qp
"$FAB" run tests/report/fixture/lossless/01-incast-ib-credit.yaml -o "$OUT/ccr-ib" -q
if python3 - "$OUT/ccr/results.json" "$OUT/ccr-ib/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["cc_rates"]
senders = {q["src"] for q in c}
cut = [q for q in c if q["gbps"] and q["gbps"][0] == 400 and min(q["gbps"]) < 200]
ok = len(c) == 7 and len(senders) == 7 and len(cut) >= 4 and all(len(q["t_ns"]) == len(q["gbps"]) for q in c)
print(f"{len(c)} senders, {len(cut)} start at 400 Gb/s and are cut below 200 Gb/s, {r['summary']['cnps']} CNPs")
sys.exit(0 if ok and json.load(open(sys.argv[2]))["cc_rates"] == [] else 1)
PY
then ok "cc_rates: the DCQCN rate of each sender over time"; else fail "cc_rates"; fi

# 3. fabsim report rebuilds the page; a missing folder is a usage error.
rm -f "$OUT/fixture/report.html"
if "$FAB" report "$OUT/fixture" -q && [ -s "$OUT/fixture/report.html" ]; then
    ok "fabsim report DIR rebuilds report.html"
else
    fail "fabsim report DIR rebuilds report.html"
fi
"$FAB" report "$OUT/does-not-exist" -q 2>"$LOG"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "does-not-exist" "$LOG"; then
    ok "fabsim report on a missing folder exits 2 naming it"
else
    fail "fabsim report on a missing folder exits 2 naming it (rc $rc)"
fi

# 4. compare: two files, and one file with --set variants.
A=tests/report/fixture/basics/01-permutation-ib.yaml
C=tests/report/fixture/basics/02-permutation-roce.yaml
"$FAB" compare "$A" "$C" -o "$OUT/cmp2" >"$LOG" 2>&1
rc=$?
cat "$LOG"
cp "$LOG" "$OUT/cmp2.txt"
if [ "$rc" -eq 0 ] && grep -q "packets dropped" "$LOG" && [ -s "$OUT/cmp2/report.html" ]; then
    ok "fabsim compare A B prints the table and writes the report"
else
    fail "fabsim compare A B (rc $rc)"
fi
I=tests/report/fixture/lossless/04-incast-roce-lossy.yaml
"$FAB" compare "$I" --set fabric.buffer=64KiB --set fabric.buffer=1MiB+seed=2 -o "$OUT/cmpset" >"$LOG" 2>&1
rc=$?
cat "$LOG"
d1=$(python3 -c "import json,glob;print(json.load(open(glob.glob('$OUT/cmpset/compare/1-*/results.json')[0]))['summary']['packets_dropped'])" 2>/dev/null)
d2=$(python3 -c "import json,glob;print(json.load(open(glob.glob('$OUT/cmpset/compare/2-*/results.json')[0]))['summary']['packets_dropped'])" 2>/dev/null)
if [ "$rc" -eq 0 ] && [ -n "$d1" ] && [ -n "$d2" ] && [ "$d1" -gt "$d2" ]; then
    ok "compare --set variants: a 64 KiB buffer drops more than 1 MiB ($d1 > $d2)"
else
    fail "compare --set variants (rc $rc, drops '$d1' vs '$d2')"
fi
browser "$OUT/cmpset/report.html"
# Three fabrics side by side (issue 30): a column and a ratio per fabric, the
# UET counters a number under Ultra Ethernet and "-" under the others.
"$FAB" compare scenarios/labs/ultra_ethernet/01-incast.yaml --set fabric.kind=infiniband \
    --set fabric.kind=roce --set fabric.kind=uet -o "$OUT/cmp3" >"$LOG" 2>&1
rc=$?
cat "$LOG"
if [ "$rc" -eq 0 ] && grep -q "fabric.kind: infiniband | roce | uet" "$LOG" && grep -q "3/1" "$LOG" &&
    grep -Eq "^UET trim NAKs +- +- +[1-9][0-9]* " "$LOG" && grep -Eq "^UET trims +- +- +[1-9]" "$LOG" &&
    [ -s "$OUT/cmp3/report.html" ]; then
    ok "compare with three fabrics: a column each, UET's trims and NAKs under UET only"
else
    fail "compare with three fabrics (rc $rc)"
fi

# 4b. compare's configuration diff lists exactly the keys that differ: for
# the --set variants {seed, fabric.buffer}; for two files, the keys whose
# lines differ in `validate --explain` (comments dropped), computed here.
if python3 - "$OUT/cmpset/config_diff.json" <<'PY'
import json, sys
keys = [d["key"] for d in json.load(open(sys.argv[1]))]
print("diff keys:", keys)
sys.exit(0 if sorted(keys) == ["fabric.buffer", "seed"] else 1)
PY
then ok "compare --set: the diff lists exactly seed and fabric.buffer"; else fail "compare --set diff keys"; fi
"$FAB" validate "$A" --explain >"$OUT/a.explain" 2>&1
"$FAB" validate "$C" --explain >"$OUT/c.explain" 2>&1
if python3 - "$OUT/cmp2/config_diff.json" "$OUT/a.explain" "$OUT/c.explain" <<'PY'
import json, sys
def flat(path):
    out, stack = {}, []  # stack of (indent, key path, item count)
    for line in open(path):
        line = line.rstrip("\n").split("  # ")[0].rstrip()
        if not line.strip() or line.startswith("#"):
            continue
        ind = len(line) - len(line.lstrip(" "))
        body = line.strip()
        if body.startswith("- "):
            while stack and stack[-1][0] >= ind:
                stack.pop()
            parent = stack[-1]
            key = f"{parent[1]}.{parent[2]}"
            parent[2] += 1
            body = body[2:]
            if body.startswith("{") or ": " not in body:
                out[key] = body
                continue
            stack.append([ind + 1, key, 0])
            ind += 2
        else:
            while stack and stack[-1][0] >= ind:
                stack.pop()
        k, _, v = body.partition(":")
        path_ = (stack[-1][1] + "." if stack else "") + k
        if v.strip():
            out[path_] = v.strip()
        else:
            stack.append([ind, path_, 0])
    return out
a, c = flat(sys.argv[2]), flat(sys.argv[3])
want = sorted(k for k in set(a) | set(c) if a.get(k) != c.get(k) and k != "name")
got = sorted(d["key"] for d in json.load(open(sys.argv[1])))
print(f"{len(got)} keys differ, e.g. {got[:4]}")
sys.exit(0 if got == want and "fabric.kind" in got else 1)
PY
then ok "compare A B: the diff lists exactly the resolved keys that differ"; else fail "compare A B diff keys"; fi
# A key one fabric has and the other lacks is not a difference of settings:
# marked some_variants_only, counted on one line of the text (not one row
# each); the summary table gains the ratio to the first variant.
if python3 - "$OUT/cmp2/config_diff.json" "$OUT/cmp2.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
some = [x for x in d if x.get("some_variants_only")]
both = [x for x in d if not x.get("some_variants_only")]
text = open(sys.argv[2]).read()
m = re.search(r"and (\d+) key\(s\) that only some variants have", text)
header = [l for l in text.split("\n") if l.rstrip().endswith("2/1")]
ok = (all(None in x["values"] for x in some) and all(None not in x["values"] for x in both)
      and m is not None and int(m.group(1)) == len(some) and len(header) == 1 and "(absent)" not in text)
print(f"{len(both)} differing, {len(some)} one-sided, text: {m.group(0) if m else None}, ratio header: {len(header)}")
sys.exit(0 if ok else 1)
PY
then ok "compare: one-fabric keys apart from differing settings, a ratio column"; else fail "compare: one-fabric keys or ratio column"; fi
out_q=$("$FAB" compare "$A" "$C" -o "$OUT/cmpq" --quiet 2>&1)
if [ $? -eq 0 ] && [ -z "$out_q" ] && [ -s "$OUT/cmpq/report.html" ] && grep -q "fabsim compare: 01-permutation-ib.yaml vs 02-permutation-roce.yaml" "$OUT/cmpq/report.html"; then
    ok "compare --quiet prints nothing, writes the report titled by its variants"
else
    fail "compare --quiet: $out_q"
fi

# 5. pcap: tshark dissects an InfiniBand (ERF) and a RoCEv2 capture: BTH
# opcodes, and per QP the PSNs of the data packets in order (a lossless run).
if command -v tshark >/dev/null 2>&1; then
    R=tests/report/fixture/basics/02-permutation-roce.yaml
    for kind in roce infiniband; do
        "$FAB" run "$R" --set fabric.kind=$kind --set fabric.flow_control=none \
            --set fabric.congestion_control=none --set fabric.buffer=8MiB \
            --pcap "$OUT/$kind.pcap" --pcap-filter "link=h0->leaf0" --pcap-max 400 -o "$OUT/pcap-$kind" -q
        tshark -r "$OUT/$kind.pcap" -T fields -e infiniband.bth.opcode -e infiniband.bth.destqp \
            -e infiniband.bth.psn 2>/dev/null >"$LOG"
        if python3 - "$LOG" <<'PY'
import sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l.strip()]
ops = {int(r[0]) for r in rows if r[0]}
data = [(r[1], int(r[2])) for r in rows if r[0] and int(r[0]) in (6, 7, 8, 10)]
last, ok = {}, True
for qp, psn in data:
    ok = ok and psn == last.get(qp, -1) + 1
    last[qp] = psn
print(f"{len(rows)} packets, opcodes {sorted(ops)}, {len(last)} QPs, PSNs in order: {ok}")
sys.exit(0 if len(rows) >= 100 and {6, 7} <= ops and ok else 1)
PY
        then ok "tshark dissects the $kind pcap (BTH opcodes, PSNs in order)"; else fail "tshark on the $kind pcap"; fi
    done
    # A PFC + DCQCN incast: PAUSE frames (MAC control 0x8808, per-priority
    # pause) on a link into a paused sender, CNPs (BTH opcode 0x81) on the
    # receiver's link back.
    D=scenarios/labs/ecn_dcqcn/02-incast-dcqcn-default.yaml
    "$FAB" run "$D" --pcap "$OUT/pfc.pcap" --pcap-filter "link=leaf0->h1" --pcap-max 5000 -o "$OUT/pcap-pfc" -q
    np=$(tshark -r "$OUT/pfc.pcap" -Y "eth.type == 0x8808" 2>/dev/null | grep -c "Pause")
    if [ "$np" -gt 0 ]; then ok "tshark finds $np PFC PAUSE frames in a PFC run"; else fail "no PAUSE frames dissected in the PFC run"; fi
    "$FAB" run "$D" --pcap "$OUT/cnp.pcap" --pcap-filter "link=h0->leaf0" --pcap-max 5000 -o "$OUT/pcap-cnp" -q
    nc=$(tshark -r "$OUT/cnp.pcap" -T fields -e infiniband.bth.opcode 2>/dev/null | grep -c "^129$")
    if [ "$nc" -gt 0 ]; then ok "tshark finds $nc CNPs (BTH opcode 0x81) in a DCQCN run"; else fail "no CNPs dissected in the DCQCN run"; fi
else
    echo "SKIP: tshark not installed (make deps installs it)"
fi

rm -f "$LOG"
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

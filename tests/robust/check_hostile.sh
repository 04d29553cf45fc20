#!/bin/sh
# tests/robust/check_hostile.sh BUILD_DIR
#
# Issue 32 through the binary: hostile inputs to sweep, compare, labs,
# lab rules, collective sizes, Chakra traces, topology files and signals
# outside the event loop. Bad input is exit 2 with one line naming the file
# and place; nothing is written or deleted outside -o; no crash. Each check
# is named (hostile_<what>) and the script ends with "N passed, N failed".
. "$(dirname "$0")/../lib.sh"
# crashed RC: 128 + a signal other than SIGINT/SIGTERM (abort, segfault).
crashed() { [ "$1" -gt 128 ] && [ "$1" -ne 130 ] && [ "$1" -ne 143 ]; }
cd "$T" || exit 1

cat >small.yaml <<'Y'
name: small
fabric: {kind: infiniband, link: 400Gbps, mtu: 4096}
topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload:
  - {kind: incast, senders: 3, receiver: h0, size: 4KiB}
Y

# --- hostile_sweep_1025_values: more than 1024 values of one key is exit 2
# with one line, before anything runs (was SIGSEGV in the value splitter).
"$FAB" sweep small.yaml --set seed=$(seq -s, 1 1025) -o osw -q >out.txt 2>err.txt
rc=$?
cat err.txt
check hostile_sweep_1025_values test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a ! -e osw/sweep

# --- hostile_expr_*: lab rules nested or chained beyond the limits are exit 2
# naming lab.yaml:line:col, in `labs` and in `report DIR` (no stack overflow).
mklab() { # mklab DIR METRIC-EXPRESSION VERDICT-EXPRESSION
    mkdir -p "$1/x"
    cp small.yaml "$1/x/01-a.yaml"
    printf 'title: "X"\nclaim: "c"\nclaim_source: "s"\nmetrics:\n  m: {run: a, value: "%s", unit: u}\nfindings:\n  - {title: "t", text: "{m}"}\nverdict:\n  holds: "%s"\n  says: {holds: "y", not: "n"}\n' \
        "$2" "$3" >"$1/x/lab.yaml"
}
deep() { python3 -c "import sys; print(sys.argv[1] * int(sys.argv[2]) + sys.argv[3] + sys.argv[4] * int(sys.argv[2]))" "$@"; }
mklab L1 "$(deep '(' 200000 1 ')')" "m > 0"
mklab L2 "done_us()" "$(deep '-' 200000 'm' '')"
mklab L3 "done_us()" "$(deep '!' 200000 'm' '')"
mklab L4 "1$(deep '+1' 200000 '' '')" "m > 0"
mklab L5 "$(deep 'abs(' 200000 m ')') > 0" "m > 0"
# Short enough, too deep (65 levels and more).
mklab L7 "$(deep '(' 100 1 ')')" "m > 0"
mklab L8 "done_us()" "$(deep '-' 65 'm' '') < 0"
mklab L9 "$(deep 'abs(' 70 'done_us()' ')')" "m > 0"
for l in L1 L2 L3 L4 L5 L7 L8 L9; do
    "$FAB" labs --labs-dir $l -o o$l -q >/dev/null 2>err.txt
    rc=$?
    head -c 300 err.txt
    echo
    check hostile_expr_labs_$l test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
        -a "$(grep -c "$l/x/lab.yaml:[0-9]*:[0-9]*: .*allowed: at most" err.txt)" -eq 1
done
# A downloaded report folder is enough: a small lab run, then its lab.yaml
# copy replaced by a hostile one.
mklab R1 "done_us()" "m > 0"
"$FAB" labs --labs-dir R1 -o oR -q >/dev/null 2>&1
cp L1/x/lab.yaml oR/x/lab.yaml
"$FAB" report oR >/dev/null 2>err.txt
rc=$?
head -c 300 err.txt
echo
check hostile_expr_report test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
    -a "$(grep -c 'oR/x/lab.yaml:[0-9]*:[0-9]*: .*allowed: at most' err.txt)" -eq 1
# The limits leave room: 60 levels and a 4000-byte rule are fine.
mklab L6 "$(deep '(' 60 'done_us()' ')')" "$(deep '-' 60 'm' '') < 0 || m >= 0"
"$FAB" labs --labs-dir L6 -o oL6 -q >/dev/null 2>err.txt
check hostile_expr_within_limits test $? -eq 0

# --- hostile_*_symlink: compare's title and config_diff.json and labs --set's
# sets are written atomically, never through a planted symlink.
mkdir -p oc
echo keep >victim_title
echo keep >victim_diff
ln -s "$T/victim_title" oc/title
ln -s "$T/victim_diff" oc/config_diff.json
"$FAB" compare small.yaml --set seed=1 --set seed=2 -o oc -q >/dev/null 2>err.txt
check hostile_compare_symlink test "$(cat victim_title)" = keep -a "$(cat victim_diff)" = keep \
    -a -f oc/title -a ! -L oc/title -a -f oc/config_diff.json -a ! -L oc/config_diff.json
mkdir -p oS
echo keep >victim_sets
ln -s "$T/victim_sets" oS/sets
"$FAB" labs --labs-dir R1 -o oS --set seed=3 -q >/dev/null 2>err.txt
check hostile_labs_sets_symlink test "$(cat victim_sets)" = keep -a -f oS/sets -a ! -L oS/sets

# --- hostile_cleanup_symlink: sweep's and labs' clean-up of old run folders
# never follows a planted folder link (the folder outside -o keeps its files).
mkdir -p outside
echo '{"status":"ok"}' >outside/status.json
echo precious >outside/data.txt
mkdir -p osw2/sweep
ln -s "$T/outside" osw2/sweep/0009-old
"$FAB" sweep small.yaml --set seed=1,2 -o osw2 -q >/dev/null 2>err.txt
check hostile_sweep_cleanup_symlink test -f outside/data.txt -a -f outside/status.json \
    -a ! -e osw2/sweep/0009-old
mkdir -p oR/x
ln -s "$T/outside" oR/x/99-gone
"$FAB" labs --labs-dir R1 -o oR -q >/dev/null 2>err.txt
check hostile_labs_cleanup_symlink test -f outside/data.txt -a -f outside/status.json \
    -a ! -e oR/x/99-gone
# A run folder that is a planted link: the run goes into a real folder.
rm -rf oR/x/01-a
mkdir -p outside2
ln -s "$T/outside2" oR/x/01-a
"$FAB" labs --labs-dir R1 -o oR -q >/dev/null 2>err.txt
check hostile_labs_run_dir_symlink test -z "$(ls -A outside2)" -a -d oR/x/01-a -a ! -L oR/x/01-a \
    -a -f oR/x/01-a/results.json

# --- hostile_coll_size: a collective larger than its schedule can number is
# refused by validate (exit 2, the largest size that runs), not an abort.
cat >ar.yaml <<'Y'
name: ar
fabric: {kind: infiniband, link: 400Gbps, mtu: 4096}
topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload:
  - {kind: allreduce, size: 256TiB}
Y
"$FAB" validate ar.yaml >/dev/null 2>err.txt
rc=$?
cat err.txt
max=$(sed -n 's/.*the largest size that runs here is \([0-9]*\)B.*/\1/p' err.txt)
check hostile_coll_size_validate test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
    -a "$(grep -c '^fabsim: ar.yaml:5:5: .*workload.0: size 256TiB' err.txt)" -eq 1 -a -n "$max"
"$FAB" run ar.yaml -o oar -q >/dev/null 2>err.txt
check hostile_coll_size_run test $? -eq 2 -a "$(lines err.txt)" -eq 1 -a ! -e oar
# The largest size is accepted and runs (a microsecond of it).
"$FAB" run ar.yaml --set workload.0.size="${max}B" --set stop=1us -o oar -q >/dev/null 2>err.txt
check hostile_coll_size_largest_runs test $? -eq 0
"$FAB" validate ar.yaml --set workload.0.size="$((max + 1))B" >/dev/null 2>err.txt
check hostile_coll_size_largest_plus_one test $? -eq 2
sed 's/{kind: allreduce, size: 256TiB}/{kind: nccl_tests, op: all_gather, min: 1TiB, max: 1000TiB, step: 2}/' \
    ar.yaml >nt.yaml
"$FAB" validate nt.yaml >/dev/null 2>err.txt
rc=$?
cat err.txt
check hostile_coll_size_nccl_tests test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a "$(grep -c "largest size that runs" err.txt)" -eq 1

# --- hostile_chakra_*: a trace's collective of 2^56 bytes, a COMP node of
# 213 days, and a 16 MiB file of empty nodes are exit 2 naming the file and
# the byte, within bounded memory.
cat >ck.py <<'PY'
import os, sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)
def u64(f, v): return varint(f << 3) + varint(v)
def blob(f, b): return varint(f << 3 | 2) + varint(len(b)) + b
def s(f, t): return blob(f, t.encode())
def attr(name, v): return blob(10, s(1, name) + u64(9, v))
def node(nid, typ, dur=0, size=0):
    m = u64(1, nid) + s(2, "n%d" % nid) + u64(3, typ)
    if dur: m += u64(7, dur)
    if typ == 7: m += attr("comm_type", 0) + attr("comm_size", size)
    return m
d, case = sys.argv[1], sys.argv[2]
os.makedirs(d, exist_ok=True)
for r in range(2):
    with open(os.path.join(d, "t.%d.et" % r), "wb") as f:
        meta = s(1, "0.0.4")
        f.write(varint(len(meta)) + meta)
        if case == "empty":
            f.write(b"\0" * (16 << 20))
            continue
        nodes = [node(1, 4, dur=100)]
        if case == "coll": nodes.append(node(2, 7, size=1 << 56))
        if case == "comp": nodes.append(node(2, 4, dur=213 * 86400 * 10**6))
        for m in nodes:
            f.write(varint(len(m)) + m)
PY
for c in coll comp empty; do
    python3 ck.py ck_$c $c
    sed "s|{kind: allreduce, size: 256TiB}|{kind: chakra, path: ck_$c}|" ar.yaml >ck_$c.yaml
done
"$FAB" run ck_coll.yaml -o ock -q >/dev/null 2>err.txt
rc=$?
cat err.txt
check hostile_chakra_coll_size test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
    -a "$(grep -c 'ck_coll/t.0.et: .*byte [0-9]*: collective node 2.*comm_size' err.txt)" -eq 1
"$FAB" run ck_comp.yaml -o ock -q >/dev/null 2>err.txt
rc=$?
cat err.txt
check hostile_chakra_comp_days test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
    -a "$(grep -c 'ck_comp/t.0.et: .*byte [0-9]*: node 2.*duration_micros' err.txt)" -eq 1
# Peak resident memory of the run (KiB), from the kernel's accounting.
kib=$(python3 -c "
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open('err.txt', 'w'))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)" "$FAB" run ck_empty.yaml -o ock -q)
rc=$?
cat err.txt
echo "  peak memory: $kib KiB"
# (ASan's redzones and quarantine roughly double it in make check.)
case "$B" in *check*) cap=1500000 ;; *) cap=600000 ;; esac
check hostile_chakra_nodes_bounded test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a "$kib" -lt "$cap" \
    -a "$(grep -c 'ck_empty/t.0.et: .*ET_MAX_NODES' err.txt)" -eq 1

# --- hostile_ibnet_repeated_names: 4,000 HCAs with the firmware's default
# description (the same for all) read about as fast as unique names (was
# cubic: 39-46 s against 2 s).
cat >gen_ib.py <<'PY'
import sys
n, uniq, per = int(sys.argv[1]), sys.argv[3] == "unique", 32
nl = (n + per - 1) // per
desc = lambda h: "host%d HCA-1" % h if uniq else "MT4123 ConnectX6 Mellanox Technologies"
out = []
for l in range(nl):
    out.append('Switch\t36 "S-%016x"\t\t# "leaf%d" base port 0 lid 0 lmc 0' % (0x200000 + l, l))
    for k in range(min(per, n - l * per)):
        h = l * per + k
        out.append('[%d]\t"H-%016x"[1]\t\t# "%s" lid 0 4xHDR' % (k + 1, 0x100000 + h, desc(h)))
    out.append('[33]\t"S-%016x"[%d]\t\t# "spine0" lid 0 4xHDR' % (0x300000, l + 1))
    out.append('')
out.append('Switch\t%d "S-%016x"\t\t# "spine0" base port 0 lid 0 lmc 0' % (nl, 0x300000))
for l in range(nl):
    out.append('[%d]\t"S-%016x"[33]\t\t# "leaf%d" lid 0 4xHDR' % (l + 1, 0x200000 + l, l))
out.append('')
for h in range(n):
    out.append('Ca\t1 "H-%016x"\t\t# "%s"' % (0x100000 + h, desc(h)))
    out.append('[1]\t"S-%016x"[%d]\t\t# lid 0 4xHDR' % (0x200000 + h // per, h % per + 1))
    out.append('')
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
python3 gen_ib.py 4000 ib_same.txt same
python3 gen_ib.py 4000 ib_uniq.txt unique
for v in same uniq; do
    printf 'name: ib\nfabric: {kind: infiniband}\ntopology: {kind: file, path: ib_%s.txt, format: ibnetdiscover}\nworkload:\n  - {kind: incast, senders: 3, receiver: h0, size: 4KiB}\n' \
        $v >ib_$v.yaml
done
t0=$(date +%s%N)
timeout 120 "$FAB" validate ib_uniq.yaml >/dev/null 2>&1
rc1=$?
t1=$(date +%s%N)
timeout 120 "$FAB" validate ib_same.yaml >/dev/null 2>err.txt
rc2=$?
t2=$(date +%s%N)
u=$(((t1 - t0) / 1000000))
s=$(((t2 - t1) / 1000000))
echo "  4,000 HCAs: unique names $u ms, one repeated description $s ms"
check hostile_ibnet_repeated_names test "$rc1" -eq 0 -a "$rc2" -eq 0 -a "$s" -lt $((3 * u + 2000))

# --- hostile_ibnet_message_tail: an ibnetdiscover error ends with its text,
# not a stray "0".
printf 'Rt\t2 "R-0001"\t\t# "router"\n' >rt.txt
sed 's/ib_same.txt/rt.txt/' ib_same.yaml >rt.yaml
"$FAB" validate rt.yaml >/dev/null 2>err.txt
rc=$?
cat err.txt
check hostile_ibnet_message_tail test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
    -a "$(grep -c 'rt.txt:1: .*one subnet$' err.txt)" -eq 1

# --- hostile_ibnet_servers: servers grouped from node descriptions with
# different HCA counts are one message at the odd server's Ca line, exit 2.
printf 'Switch\t4 "S-1"\t\t# "MF0;leaf:MQM9700/U1"\n[1]\t"H-1"[1]\t\t# "a mlx5_0" 4xNDR\n[2]\t"H-2"[1]\t\t# "a mlx5_1" 4xNDR\n[3]\t"H-3"[1]\t\t# "b mlx5_0" 4xNDR\n\nCa\t1 "H-1"\t\t# "a mlx5_0"\n[1]\t"S-1"[1]\t\t# 4xNDR\n\nCa\t1 "H-2"\t\t# "a mlx5_1"\n[1]\t"S-1"[2]\t\t# 4xNDR\n\nCa\t1 "H-3"\t\t# "b mlx5_0"\n[1]\t"S-1"[3]\t\t# 4xNDR\n' >srv.txt
sed 's/ib_same.txt/srv.txt/' ib_same.yaml >srv.yaml
"$FAB" validate srv.yaml >/dev/null 2>err.txt
rc=$?
cat err.txt
check hostile_ibnet_servers test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 \
    -a "$(grep -c "srv.txt:12: .*host 'b' has 1 cabled HCA port" err.txt)" -eq 1

# --- hostile_labs_set_*: labs --set with a bad value or an unknown key is
# exit 2 with one line before anything is written (was exit 0, "0 ran").
"$FAB" labs --labs-dir R1 -o oLS --set seed=abc -q >out.txt 2>err.txt
rc=$?
cat err.txt
check hostile_labs_set_bad_value test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a ! -e oLS \
    -a "$(grep -c '^fabsim: --set:1' err.txt)" -eq 1
"$FAB" labs --labs-dir R1 -o oLS --set nosuch.key=1 -q >out.txt 2>err.txt
rc=$?
cat err.txt
check hostile_labs_set_unknown_key test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a ! -e oLS

# --- hostile_sweep_out_file: sweep -o an existing file fails at once.
echo keep >afile
t0=$(date +%s%N)
"$FAB" sweep small.yaml --set seed=1,2,3 -o afile -q >out.txt 2>err.txt
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat err.txt
check hostile_sweep_out_file test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a "$ms" -lt 1000 \
    -a "$(cat afile)" = keep

# --- hostile_topology_header: a newline in the scenario's path cannot inject
# YAML into `topology -o`'s header; the file reads back.
nl="$(printf 'x\nnodes: []\n#.yaml')"
cp small.yaml "$nl"
"$FAB" topology "$nl" -o topo.yaml 2>err.txt
rc=$?
printf 'name: t\nfabric: {kind: infiniband}\ntopology: {kind: file, path: topo.yaml}\nworkload:\n  - {kind: incast, senders: 3, receiver: h0, size: 4KiB}\n' >rt2.yaml
"$FAB" validate rt2.yaml >/dev/null 2>err2.txt
check hostile_topology_header test "$rc" -eq 0 -a "$(grep -c '^nodes: \[\]' topo.yaml)" -eq 0 -a "$(grep -c '^nodes:' topo.yaml)" -eq 1 \
    -a -z "$(cat err2.txt)"

# --- hostile_run_build_error_no_dir: a build error (a bad Chakra trace)
# leaves no empty -o behind.
"$FAB" run ck_coll.yaml -o onew/deeper -q >/dev/null 2>err.txt
check hostile_run_build_error_no_dir test $? -eq 2 -a ! -e onew

# --- hostile_report_typed_results: a results.json of the wrong shape shows
# as that run's error; the rest of the page is built.
cp -r oR oT
python3 -c "
import json
p = 'oT/x/01-a/results.json'
r = json.load(open(p))
r['summary'] = 'x'
r['links'] = {'a': 1}
json.dump(r, open(p, 'w'))"
"$FAB" report oT >/dev/null 2>err.txt
rc=$?
check hostile_report_typed_results python3 -c "
import re, sys, json
h = open('oT/report.html', encoding='utf-8').read()
m = re.search(r'<script type=\"application/json\" id=\"fabsim-data\">(.*?)</script>', h, re.S)
s = json.loads(m.group(1))['labs'][0]['scenarios'][0]
print('  ', s['status'], s.get('message'))
sys.exit(0 if $rc == 0 and s['status'] == 'error' and 'results.json: summary' in s.get('message', '') and not s.get('results') else 1)"
if [ -x /usr/bin/chromium ] && [ -d "$ROOT/report/web/node_modules/playwright-core" ]; then
    node "$ROOT/report/web/check-report.js" oT/report.html >log.txt 2>&1
    rc=$?
    tail -n 3 log.txt
    check hostile_report_typed_results_browser test "$rc" -eq 0
else
    echo "skip: hostile_report_typed_results_browser (no chromium)"
fi

# --- hostile_no_flow_done_fct: no "mean FCT 0.00 us" when no flow finished.
"$FAB" run small.yaml --set stop=10ns -o ofct >out.txt 2>&1
cat out.txt | grep flows
check hostile_no_flow_done_fct test "$(grep -c 'flows: 0 of 3 done$' out.txt)" -eq 1 -a "$(grep -c 'mean FCT' out.txt)" -eq 0

# --- hostile_mpi_one_error: under mpirun a bad input is printed once, not
# once per rank.
if command -v mpirun >/dev/null 2>&1 && [ -x "$(dirname "$FAB")/fabsim-mpi" ]; then
    printf 'name: x\nfabric: {kind: infiniband}\ntopology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\nworkload:\n  - {kind: incast, senders: 3, receiver: h9, size: 4KiB}\n' >badh.yaml
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        mpirun --oversubscribe -n 3 "$(dirname "$FAB")/fabsim-mpi" run badh.yaml -o ompi >/dev/null 2>err.txt
    rc=$?
    grep '^fabsim' err.txt
    check hostile_mpi_one_error test "$rc" -ne 0 -a "$(grep -c '^fabsim: badh.yaml:5:' err.txt)" -eq 1
else
    echo "skip: hostile_mpi_one_error (no mpirun or fabsim-mpi)"
fi

# --- hostile_sig_*: SIGINT/SIGTERM are honoured outside the event loop too:
# loading and building exit within a second with 128 + the signal; a batch
# marks the runs it never started "interrupted"; a second signal removes the
# temporary files of the outputs being written before it exits.
# stop_after PID: SIGTERM after a second if PID is still running; sets rc
# (its exit status) and ms (how long it took to exit), or rc=skip.
stop_after() {
    sleep 1
    if ! kill -0 "$1" 2>/dev/null; then
        wait "$1"
        rc=skip
        return
    fi
    t0=$(date +%s%N)
    kill -TERM "$1"
    wait "$1"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
}
python3 - <<'PY'
n, per = 5000, 40  # validate takes ~30 s at this size (not linear), 0.5 GB at the end
out = ['nodes:'] + ['  - {name: h%d, kind: host}' % i for i in range(n)]
out += ['  - {name: l%d, kind: switch}' % i for i in range(n // per)] + ['  - {name: s0, kind: switch}']
out += ['links:'] + ['  - {a: h%d, b: l%d}' % (i, i // per) for i in range(n)]
out += ['  - {a: l%d, b: s0}' % i for i in range(n // per)]
open('bigtopo.yml', 'w').write('\n'.join(out) + '\n')
PY
printf 'name: bt\nfabric: {kind: infiniband}\ntopology: {kind: file, path: bigtopo.yml}\nworkload:\n  - {kind: incast, senders: 3, receiver: h0, size: 4KiB}\n' >bt.yaml
"$FAB" validate bt.yaml >out.txt 2>&1 &
stop_after $!
echo "  validate: exit $rc after ${ms:-?} ms"
if [ "$rc" = skip ]; then echo "skip: hostile_sig_validate (validate ended within a second)"; else
    check hostile_sig_validate test "$rc" -eq 143 -a "$ms" -lt 1000 -a "$(grep -c ok out.txt)" -eq 0
fi
# (4,096 hosts: about 3 s to build on an idle machine, 0.4 GB.) Stopped while
# building there is no results.json and no -o; if the build was already done, the run
# stopped at its next check and results.json says so.
printf 'name: bb\nfabric: {kind: infiniband}\ntopology: {kind: leaf_spine, leaves: 128, spines: 16, hosts_per_leaf: 32}\nworkload:\n  - {kind: allreduce, size: 64MiB}\n' >bb.yaml
"$FAB" run bb.yaml -o obb -q >/dev/null 2>&1 &
stop_after $!
echo "  run (loading or building): exit $rc after ${ms:-?} ms$([ -e obb/results.json ] && echo ', in the event loop')"
if [ "$rc" = skip ]; then echo "skip: hostile_sig_run_build (the run ended within a second)"; else
    # (no empty -o left behind either)
    if [ -e obb/results.json ]; then ok_results=$(grep -c '"interrupted": true' obb/results.json)
    elif [ -e obb ]; then ok_results=0; else ok_results=1; fi
    check hostile_sig_run_build test "$rc" -eq 143 -a "$ms" -lt 1000 -a "$ok_results" -eq 1
fi

cat >long.yaml <<'Y'
name: long
fabric: {kind: infiniband, link: 400Gbps, mtu: 4096}
topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}
workload:
  - {kind: incast, senders: 15, receiver: h0, size: 4GiB}
Y
setsid "$FAB" sweep long.yaml --set seed=1,2,3 -j 1 -o osig -q >/dev/null 2>err.txt &
pid=$!
sleep 2
python3 -c "import os, signal; os.killpg($pid, signal.SIGTERM)"
wait $pid
rc=$?
cat osig/sweep.csv | cut -d, -f1-3
check hostile_sig_sweep_not_started test "$rc" -eq 143 \
    -a "$(cut -d, -f3 osig/sweep.csv | grep -c '^interrupted$')" -eq 2 \
    -a "$(cut -d, -f3 osig/sweep.csv | grep -c '^ok$')" -eq 0 \
    -a "$(cat osig/sweep/000[23]-*/status.json | grep -c 'interrupted: stopped by signal 15')" -eq 2

mkdir -p o2s
"$FAB" run long.yaml -o o2s -q --trace o2s.trace.json --pcap o2s.pcap >/dev/null 2>&1 &
pid=$!
# Once the trace's temporary file exists (the event loop runs), two signals.
i=0
while [ $i -lt 100 ] && [ "$(ls -A . | grep -c '^\.o2s\.trace\.json\..*\.tmp$')" -eq 0 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.3
kill -TERM $pid
kill -TERM $pid
wait $pid
rc=$?
ls -A . o2s | grep tmp
check hostile_sig_second_no_tmp test "$rc" -eq 143 -a "$(ls -A . o2s | grep -c '\.tmp$')" -eq 0

finish

#!/bin/sh
# tests/robust/check_robust.sh BUILD_DIR
#
# Issue 17 through the binary: outputs atomic and never through a planted
# symlink, write errors exit 1 with one line, bounded readers, escaped
# echoes, signals, limits, stuck-run diagnosis. Each check is named
# (robust_<what>) and ends with "N passed, N failed".
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1

cat >small.yaml <<'Y'
name: small
fabric: {kind: infiniband, link: 400Gbps, mtu: 4096}
topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload:
  - {kind: incast, senders: 3, receiver: h0, size: 64KiB}
Y
cat >big.yaml <<'Y'
name: big
fabric: {kind: infiniband, link: 400Gbps, mtu: 4096}
topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}
workload:
  - {kind: incast, senders: 15, receiver: h0, size: 4GiB}
Y

# --- robust_atomic_symlink: planted symlinks are replaced, never followed.
mkdir o1
ln -s "$T/victim" o1/results.json
ln -s "$T/victim2" o1/links.csv
"$FAB" run small.yaml -o o1 -q >/dev/null 2>&1
check robust_atomic_symlink test ! -e victim -a ! -e victim2 -a -f o1/results.json -a ! -L o1/results.json

# --- robust_atomic_no_tmp_left: no temporary file remains after a run.
check robust_atomic_no_tmp_left test "$(ls -A o1 | grep -c tmp)" -eq 0

# --- robust_atomic_full_disk: a write that fails (ulimit -f) keeps the previous
# results.json and links.csv, exits 1 with one line.
cp o1/results.json prev.json
cp o1/links.csv prev.csv
(ulimit -f 8; "$FAB" run big.yaml --set workload.0.size=64KiB -o o1 -q >out.txt 2>err.txt)
rc=$?
check robust_atomic_full_disk test "$rc" -eq 1 -a "$(lines err.txt)" -eq 1
check robust_atomic_keeps_previous cmp -s prev.json o1/results.json
check robust_atomic_keeps_previous_csv cmp -s prev.csv o1/links.csv

# --- robust_write_errors_exit_1: /dev/full everywhere is exit 1 and one line.
"$FAB" validate small.yaml --explain >/dev/full 2>err.txt
check robust_validate_explain_full test $? -eq 1 -a "$(lines err.txt)" -eq 1
"$FAB" run small.yaml -o o2 -q --trace /dev/full 2>err.txt
rc=$?
check robust_trace_full_keeps_results test "$rc" -eq 1 -a "$(lines err.txt)" -eq 1 -a -f o2/results.json
"$FAB" run small.yaml -o o3 -q --pcap /dev/full 2>err.txt
check robust_pcap_full test $? -eq 1 -a "$(lines err.txt)" -eq 1

# --- robust_trace_not_results: --trace naming the run's results.json is refused.
"$FAB" run small.yaml -o o1 -q --trace o1/results.json 2>err.txt
check robust_trace_not_results test $? -eq 2 -a "$(lines err.txt)" -eq 1

# --- robust_name_dots: a file named ...yaml does not write into out/.. .
mkdir dots && cp small.yaml dots/...yaml && sed -i '/^name:/d' dots/...yaml
(cd dots && "$FAB" run ...yaml -q >/dev/null 2>&1)
check robust_name_dots test -f dots/out/scenario/results.json -a ! -e dots/results.json

# --- robust_escape_ctl: control characters in echoed input are escaped.
"$FAB" run "$(printf 'x\n\033[2J.yaml')" 2>err.txt
check robust_escape_ctl test "$(lines err.txt)" -eq 1 -a "$(grep -c "$(printf '\033')" err.txt)" -eq 0
printf 'name: small\nfabric: {kind: infiniband}\n"a\\nfabric: error: forged\\e[2J": 1\n' >ctl.yaml
"$FAB" validate ctl.yaml 2>err.txt
check robust_escape_ctl_key test $? -eq 2 -a "$(lines err.txt)" -eq 1 -a "$(grep -c "$(printf '\033')" err.txt)" -eq 0

# --- robust_sigterm: SIGTERM stops a long run within a second, closes the
# trace and writes results.json with summary.interrupted.
"$FAB" run big.yaml -o o4 -q --trace o4.trace.json >/dev/null 2>&1 &
pid=$!
sleep 1
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "  SIGTERM: exit $rc after $ms ms"
check robust_sigterm test "$rc" -eq 143 -a "$ms" -lt 1000
check robust_sigterm_results python3 -c "
import json,sys
d=json.load(open('o4/results.json'))['summary']
json.load(open('o4.trace.json'))
sys.exit(0 if d['interrupted'] and not d['completed'] else 1)"

# --- robust_batch_signal: SIGTERM to a batch's process group (as Ctrl-C
# would): the runs stop, each says it was stopped (not "ok"), and the batch
# ends with 128 + the signal.
setsid "$FAB" compare big.yaml -s seed=1 -s seed=2 -o o5 -q >/dev/null 2>err5.txt &
pid=$!
sleep 1
python3 -c "import os, signal; os.killpg($pid, signal.SIGTERM)" # dash's kill takes no -PGID
wait $pid
rc=$?
check robust_batch_signal test "$rc" -eq 143 -a "$(grep -c 'stopped by signal 15' err5.txt)" -eq 1 \
    -a "$(cat o5/compare/*/status.json | grep -c 'stopped by signal 15 (Terminated) before the end')" -eq 2

# --- robust_lft_*: lft_file bounded, regular files only, complete, and a
# relative path resolved against the scenario file's folder.
mkdir -p lft/sub
cat >lft/sm.yaml <<'Y'
name: sm
fabric: {kind: infiniband, control_plane: {kind: sm}}
topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload:
  - {kind: incast, senders: 3, receiver: h0, size: 64KiB}
Y
"$FAB" routes lft/sm.yaml -o lft/sub/lfts.dump
sed 's/control_plane: {kind: sm}/control_plane: {kind: sm}, routing_engine: file, lft_file: lfts.dump/' \
    lft/sm.yaml >lft/sub/f.yaml
"$FAB" validate lft/sub/f.yaml >/dev/null 2>err.txt
check robust_lft_relative test $? -eq 0
"$FAB" routes lft/sm.yaml -o /dev/full 2>err.txt
check robust_routes_full test $? -eq 1 -a "$(lines err.txt)" -eq 1
timeout 10 "$FAB" validate lft/sub/f.yaml --set fabric.lft_file=/dev/zero >/dev/null 2>err.txt
check robust_lft_dev_zero test $? -eq 2 -a "$(lines err.txt)" -eq 1
"$FAB" validate lft/sub/f.yaml --set fabric.lft_file=/tmp >/dev/null 2>err.txt
check robust_lft_directory test $? -eq 2 -a "$(lines err.txt)" -eq 1
: >lft/sub/empty.dump
"$FAB" validate lft/sub/f.yaml --set fabric.lft_file="$T/lft/sub/empty.dump" >/dev/null 2>err.txt
check robust_lft_empty test $? -eq 2 -a "$(lines err.txt)" -eq 1
head -n 12 lft/sub/lfts.dump >lft/sub/trunc.dump
"$FAB" validate lft/sub/f.yaml --set fabric.lft_file="$T/lft/sub/trunc.dump" >/dev/null 2>err.txt
check robust_lft_truncated test $? -eq 2 -a "$(lines err.txt)" -eq 1
head -c 2000 /dev/zero >lft/sub/nul.dump
"$FAB" validate lft/sub/f.yaml --set fabric.lft_file="$T/lft/sub/nul.dump" >/dev/null 2>err.txt
check robust_lft_nul_lines test $? -eq 2 -a "$(lines err.txt)" -eq 1

# --- robust_done_ns_*: done_ns is when the workload finished; the SM's
# re-sweep after it is reported on its own and never makes it incomplete.
sed 's/senders: 3, receiver: h0, size: 64KiB}/senders: 1, receiver: h0, size: 4KiB}\nevents:\n  - {at: 300ns, link_down: leaf1-spine1}/' \
    lft/sm.yaml >lft/ev.yaml
"$FAB" run lft/ev.yaml -o oev -q >/dev/null 2>&1
check robust_done_ns_excludes_control_plane python3 -c "
import json,sys
s=json.load(open('oev/results.json'))['summary']
print('  done_ns', s['done_ns'], 'control_plane_done_ns', s['control_plane_done_ns'], 'sim_time_ns', s['sim_time_ns'])
sys.exit(0 if s['completed'] and 0 < s['done_ns'] < 10000 and s['control_plane_done_ns'] > 1e6 and not s['control_plane_pending'] else 1)"
"$FAB" run lft/ev.yaml -o oev -q --set stop=1ms >/dev/null 2>&1
check robust_done_ns_short_stop python3 -c "
import json,sys
s=json.load(open('oev/results.json'))['summary']
sys.exit(0 if s['completed'] and 0 < s['done_ns'] < 10000 and s['control_plane_pending'] else 1)"

# --- robust_memory_*: the estimate before building, --max-memory, and out
# of memory as exit 1 (not abort's 134).
sed 's/topology: .*/topology: {kind: fat_tree, k: 128}/' small.yaml >ft.yaml
t0=$(date +%s%N)
"$FAB" validate ft.yaml >/dev/null 2>err.txt
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat err.txt
check robust_memory_estimate test "$rc" -eq 2 -a "$ms" -lt 2000 -a "$(grep -c 'largest part' err.txt)" -eq 1
"$FAB" run small.yaml -o omem --max-memory 16KiB -q >/dev/null 2>err.txt
check robust_max_memory test $? -eq 2 -a "$(lines err.txt)" -eq 1 -a "$(grep -c 'largest part' err.txt)" -eq 1 -a ! -e omem
# routes and topology take --max-memory too (the message tells users to raise it)
"$FAB" topology small.yaml -o otopo.yaml --max-memory 16KiB >/dev/null 2>err.txt
check robust_max_memory_topology test $? -eq 2 -a "$(grep -c 'raise --max-memory' err.txt)" -eq 1 -a ! -e otopo.yaml
"$FAB" topology small.yaml -o otopo.yaml --max-memory 1GiB >/dev/null 2>err.txt
check robust_max_memory_topology_ok test $? -eq 0 -a -s otopo.yaml
"$FAB" routes small.yaml --max-memory 2x >/dev/null 2>err.txt
check robust_max_memory_routes_bad test $? -eq 2 -a "$(grep -c 'use a size such as' err.txt)" -eq 1
case "$B" in
*check*) echo "skip: robust_oom_exit_1 (ulimit -v and the sanitizers' shadow memory do not mix)" ;;
*)
    sed 's/topology: .*/topology: {kind: fat_tree, k: 24}/' small.yaml >ft24.yaml
    (ulimit -v 150000; "$FAB" run ft24.yaml -o oft --max-memory 100GiB -q >/dev/null 2>err.txt)
    check robust_oom_exit_1 test $? -eq 1 -a "$(lines err.txt)" -eq 1
    ;;
esac

# --- robust_limit_*: expanded workload size bounded (YAML aliases, alltoall).
python3 - <<'PY'
f = open('amp.yaml', 'w')
f.write(open('small.yaml').read().split('workload:')[0] + 'workload:\n')
f.write('  - &e0 {kind: flows, flows: [&f {src: h1, dst: h0, size: 4KiB}, ' + ', '.join(['*f'] * 5000) + ']}\n')
f.write('  - *e0\n' * 5000)
PY
t0=$(date +%s%N)
"$FAB" validate amp.yaml >/dev/null 2>err.txt
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat err.txt
check robust_limit_yaml_aliases test "$rc" -eq 2 -a "$ms" -lt 2000 -a "$(grep -c YAML_MAX_EXPANDED_NODES err.txt)" -eq 1
sed 's/  - {kind: incast.*/  - {kind: alltoall, size: 4KiB}/; s/topology: .*/topology: {kind: leaf_spine, leaves: 64, spines: 4, hosts_per_leaf: 64}/' small.yaml >a2a.yaml
"$FAB" validate a2a.yaml >/dev/null 2>err.txt
rc=$?
cat err.txt
check robust_limit_flows test "$rc" -eq 2 -a "$(grep -c 'workload.0: .*SC_MAX_FLOWS' err.txt)" -eq 1

# --- robust_stuck_*: a run that can never finish (the destination's only
# link down, lossy RoCE retransmitting forever) ends within ~10 ms simulated
# with the reason, instead of retransmitting until the 1 s cap.
# (A fixed 100 us RTO retried for ever: lossy RoCE as NIC firmware fast
# retransmission runs it; with the IBA timer the QPs would error after
# 8 x 4.3 s instead, docs/model.md "Transport".)
cat >down.yaml <<'Y'
name: down
fabric: {kind: roce, flow_control: none, transport: {timeout: 100us, rto: fixed}}
topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
workload:
  - {kind: incast, senders: 2, receiver: h3, size: 1MiB}
events:
  - {at: 5us, link_down: leaf1-h3}
Y
"$FAB" run down.yaml -o odown >out.txt 2>&1
rc=$?
cat out.txt
check robust_stuck_link_down python3 -c "
import json,sys
s=json.load(open('odown/results.json'))['summary']
st=s['stuck']
ok=$rc==0 and not s['completed'] and st and st['waiting']==2 and s['sim_time_ns']<20e6 and \
   all(f['waiting_on'].startswith('link down: h3->leaf1') for f in st['flows'])
sys.exit(0 if ok else 1)"
# Not stuck while something can still change it: a link that comes back.
printf '  - {at: 30ms, link_up: leaf1-h3}\n' >>down.yaml
"$FAB" run down.yaml -o odown -q >/dev/null 2>&1
check robust_stuck_waits_for_events python3 -c "
import json,sys
s=json.load(open('odown/results.json'))['summary']
sys.exit(0 if s['completed'] and s['stuck'] is None else 1)"

# --- robust_poisson_idle_senders: Poisson senders that drew nothing are not
# listed as unfinished flows.
cat >pois.yaml <<'Y'
name: pois
fabric: {kind: infiniband}
topology: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
workload:
  - {kind: poisson, senders: 7, receiver: h0, load: 0.05, packet: 4KiB, duration: 2us}
Y
"$FAB" run pois.yaml -o opois -q >/dev/null 2>&1
check robust_poisson_idle_senders python3 -c "
import json,sys
r=json.load(open('opois/results.json'))
f=r['flows']
sys.exit(0 if r['summary']['completed'] and 0 < len(f) < 7 and all(x['end_ns'] is not None for x in f) else 1)"

# --- robust_compare_uncreatable: compare -o into a folder that cannot be
# created fails before running any variant.
t0=$(date +%s%N)
"$FAB" compare small.yaml --set seed=1 --set seed=2 -o /proc/nonexistent/x >out.txt 2>err.txt
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check robust_compare_uncreatable test "$rc" -eq 2 -a "$(lines err.txt)" -eq 1 -a "$ms" -lt 1000 -a ! -s out.txt

# --- robust_report_hostile: a scenario named x<!--<script> and a lab link to
# javascript: neither break nor script the page; findings.json, report.html
# and the old fixed .report.html.tmp are never written through symlinks.
mkdir -p H/hostile R
sed 's/^name: small/name: "x<!--<script>\\u2028"/' small.yaml >H/hostile/01-x.yaml
"$FAB" labs --labs-dir H -o R -q >/dev/null 2>&1
printf '# Hostile\n\n[click](javascript:alert(1)) [ok](https://example.org) [rel](a/b.html)\n' >R/hostile/lab.md
rm -f R/findings.json R/report.html
ln -s "$T/victim3" R/findings.json
ln -s "$T/victim4" R/.report.html.tmp
"$FAB" report R >/dev/null 2>err.txt
check robust_report_symlink test $? -eq 0 -a ! -e victim3 -a ! -e victim4 -a -f R/findings.json
check robust_report_escape python3 -c "
import re,sys,json
h=open('R/report.html',encoding='utf-8').read()
m=re.search(r'<script type=\"application/json\" id=\"fabsim-data\">(.*?)</script>',h,re.S)
d=m.group(1)
bad=[t for t in ('<!--','<script','</',chr(0x2028)) if t in d]
names=[s['results']['scenario'] for l in json.loads(d)['labs'] for s in l['scenarios'] if s.get('results')]
sys.exit(1 if bad or names!=['x<!--<script>'+chr(0x2028)] else 0)"
if [ -x /usr/bin/chromium ] && [ -d "$ROOT/report/web/node_modules/playwright-core" ]; then
    node "$ROOT/report/web/check-report.js" R/report.html >log.txt 2>&1
    rc=$?
    cat log.txt
    check robust_report_hostile_browser test "$rc" -eq 0
else
    echo "skip: robust_report_hostile_browser (no chromium)"
fi

# --- robust_report_bounded_read: `report` reads no device or huge file
# (a planted symlink to /dev/zero as a run's results.json).
cp -r R Z
ln -sf /dev/zero "$(find Z -name results.json | head -n 1)"
case "$B" in
*check*) timeout 20 "$FAB" report Z >/dev/null 2>err.txt ;;
*) (ulimit -v 2000000; timeout 20 "$FAB" report Z >/dev/null 2>err.txt) ;;
esac
rc=$?
check robust_report_bounded_read test "$rc" -ne 124 -a "$rc" -lt 128

finish

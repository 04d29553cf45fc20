#!/bin/sh
# tests/ib/check_opensm.sh BUILD_DIR
#
# OpenSM interoperability (docs/sources.md A10b), when Debian's opensm, ibsim-utils
# and libumad2sim0 are installed (tools/deps.sh installs them as optional test
# packages; missing: "skip: ..." and nothing fails):
#  - fabsim writes a leaf-spine (4 leaves x 4 spines, 4 hosts per leaf) as an
#    ibsim net file (`fabsim routes --ibsim-topology`) and its own minhop LFTs;
#  - ibsim emulates that fabric; OpenSM (LD_PRELOAD libumad2sim, -R minhop,
#    one sweep: -o) routes it and dumps its LFTs (-D 0x40 -> opensm-lfts.dump);
#  - fabsim loads OpenSM's dump (routing_engine: file) and writes it back;
#  - check_opensm.py: every LFT entry fabsim loaded equals OpenSM's, and every
#    host pair's hop count through the loaded LFTs equals fabsim's minhop;
#  - topology files (docs/inputs.md): ibnetdiscover on the emulated fabric,
#    read by fabsim (topology kind: file), and the ibsim net file read back,
#    give the generator's hosts, switches, cables and min-hop distances
#    (check_topofile.py, counted with the rest).
# All local (ibsim talks over abstract unix sockets, one instance per machine:
# runs are serialised with flock). Ends with "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
skip() {
    echo "skip: $1"
    echo "0 passed, 0 failed"
    exit 0
}
command -v opensm >/dev/null 2>&1 || skip "opensm not installed (apt-get install opensm)"
command -v ibsim >/dev/null 2>&1 || skip "ibsim not installed (apt-get install ibsim-utils)"
[ -f "$PRELOAD" ] || skip "libumad2sim not installed (apt-get install libumad2sim0)"
command -v python3 >/dev/null 2>&1 || skip "python3 missing"
command -v flock >/dev/null 2>&1 || skip "flock missing (util-linux)"
command -v timeout >/dev/null 2>&1 || skip "timeout missing (coreutils)"

DIR=$(dirname "$0")
T=$(mktemp -d)
IBSIM_PID=""
cleanup() {
    [ -n "$IBSIM_PID" ] && kill "$IBSIM_PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

cat >"$T/ls.yaml" <<'YAML'
name: opensm-interop
fabric: {kind: infiniband, flow_control: credit, routing: static, routing_engine: minhop}
topology: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}
workload:
  - {kind: alltoall, size: 4KiB}
YAML

"$FAB" routes "$T/ls.yaml" -o "$T/fabsim.dump" --ibsim-topology "$T/net" ||
    { echo "FAIL: fabsim routes"; echo "0 passed, 1 failed"; exit 1; }

# One ibsim per machine (fixed socket names): wait up to 40 s for the lock.
exec 9>/tmp/fabsim-ibsim.lock
flock -w 40 9 || skip "another ibsim run holds /tmp/fabsim-ibsim.lock"
(cd "$T" && exec timeout 50 ibsim -s -n net >ibsim.log 2>&1) &
IBSIM_PID=$!
i=0
until grep -q "Network simulator ready" "$T/ibsim.log" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 "$IBSIM_PID" 2>/dev/null; then
        grep -v parse_port_connection "$T/ibsim.log" | tail -n 5
        skip "ibsim did not start"
    fi
    sleep 0.1
done
mkdir -p "$T/dump"
LD_PRELOAD=$PRELOAD timeout 30 opensm -o -R minhop -D 0x40 --dump_files_dir "$T/dump" \
    -f "$T/opensm.log" >"$T/opensm.out" 2>&1
rc=$?
LD_PRELOAD=$PRELOAD timeout 30 ibnetdiscover >"$T/ibnd.txt" 2>"$T/ibnd.err"
ibnd_rc=$?
kill "$IBSIM_PID" 2>/dev/null
wait "$IBSIM_PID" 2>/dev/null
IBSIM_PID=""
flock -u 9
if [ $rc -ne 0 ] || [ ! -s "$T/dump/opensm-lfts.dump" ]; then
    tail -n 5 "$T/opensm.out"
    echo "FAIL: opensm under ibsim (exit $rc), no opensm-lfts.dump"
    echo "0 passed, 1 failed"
    exit 1
fi
"$FAB" routes "$T/ls.yaml" --set fabric.routing_engine=file \
    --set "fabric.lft_file=$T/dump/opensm-lfts.dump" -o "$T/loaded.dump" ||
    { echo "FAIL: fabsim could not load OpenSM's dump"; echo "1 passed, 1 failed"; exit 1; }
# OpenSM's minhop equals fabsim's on this fabric: a loader that ignored the
# file would pass, so fabsim also loads a variant with every uplink entry
# moved to the next spine, and must follow it.
python3 "$DIR/check_opensm.py" --shift "$T/net" "$T/dump/opensm-lfts.dump" "$T/shifted.dump"
"$FAB" routes "$T/ls.yaml" --set fabric.routing_engine=file \
    --set "fabric.lft_file=$T/shifted.dump" -o "$T/loaded-shifted.dump" ||
    { echo "FAIL: fabsim could not load the shifted dump"; echo "1 passed, 1 failed"; exit 1; }
# The same fabric through ibsim -> ibnetdiscover -> fabsim, and the ibsim
# net file read back, as topology files next to the generator's.
"$FAB" topology "$T/ls.yaml" -o "$T/gen.topo.yaml"
for src in ibnd.txt net; do
    sed "s|^topology:.*|topology: {kind: file, path: $src}|" "$T/ls.yaml" >"$T/file-$src.yaml"
    "$FAB" topology "$T/file-$src.yaml" -o "$T/$src.topo.yaml" ||
        echo "FAIL: fabsim could not read $src as a topology file"
done
[ $ibnd_rc -eq 0 ] || { tail -n 3 "$T/ibnd.err"; echo "FAIL: ibnetdiscover under ibsim (exit $ibnd_rc)"; }
python3 "$DIR/check_topofile.py" "$T/gen.topo.yaml" "$T/ibnd.txt.topo.yaml" \
    "ibsim->ibnetdiscover->fabsim" "$T/net.topo.yaml" "ibsim net file read back" >"$T/topo.out"
cat "$T/topo.out"
python3 "$DIR/check_opensm.py" "$T/net" "$T/dump/opensm-lfts.dump" "$T/loaded.dump" \
    "$T/fabsim.dump" "$T/shifted.dump" "$T/loaded-shifted.dump" >"$T/sm.out"
grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$T/sm.out"
p1=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$T/topo.out")
f1=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$T/topo.out")
p2=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$T/sm.out")
f2=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$T/sm.out")
[ $ibnd_rc -eq 0 ] || f1=$((${f1:-0} + 1))
[ -s "$T/ibnd.txt.topo.yaml" ] && [ -s "$T/net.topo.yaml" ] || f1=$((${f1:-0} + 1))
F=$((${f1:-1} + ${f2:-1}))
echo "$((${p1:-0} + ${p2:-0})) passed, $F failed"
[ $F -eq 0 ]

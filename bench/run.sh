#!/bin/sh
# make bench [COUNT=1]: the benchmark scenarios, timed; with COUNT=1 under
# callgrind, which counts instructions (repeatable whatever the machine's load).
B=${1:-build}
COUNT=$2
SCEN="bench/fat_tree_perm_core.yaml bench/fat_tree_perm.yaml bench/fat_tree_perm_ib.yaml bench/leaf_spine_alltoall.yaml"
if [ -n "$COUNT" ]; then
    for s in $SCEN; do
        out=$(mktemp)
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/bench/bench" "$s" >"$out" 2>"$out.err"
        ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.err")
        hops=$(sed -n 's/.*link-hops *\([0-9]*\).*/\1/p' "$out" | head -n 1)
        cat "$out"
        echo "$s: $ir instructions, $hops link-hops: $(awk "BEGIN{printf \"%.0f\", $ir/$hops}") instructions per link-hop"
        rm -f "$out" "$out.err"
    done
else
    "$B/bench/bench_evq"
    # one process per scenario, so that peak RSS is that scenario's
    for s in $SCEN; do "$B/bench/bench" "$s"; done
fi

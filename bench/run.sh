#!/bin/sh
# make bench [COUNT=1]: the benchmark scenarios, timed, then issue 13's
# targets each with its figure. With COUNT=1 the 128-host scenarios run under
# callgrind instead, which counts instructions (repeatable whatever the
# machine's load). `make bench LONG=1` also runs the collective targets
# (bench/ring_allreduce_*.yaml, several CPU-minutes each) under /usr/bin/time.
# docs/performance.md records the figures.
B=${1:-build}
COUNT=$2
SCEN="bench/fat_tree_perm_core.yaml bench/fat_tree_perm.yaml bench/fat_tree_perm_ib.yaml bench/leaf_spine_alltoall.yaml"
SCALE="bench/fat_tree_perm_1024.yaml bench/fat_tree_perm_8192.yaml bench/fat_tree_perm_27648.yaml"
# issue 34: InfiniBand (subnet manager, CDG check, credits) at 8,192 and 27,648 hosts
SCALE_IB="bench/fat_tree_perm_ib_8192.yaml bench/fat_tree_perm_ib_27648.yaml"
if [ -n "$COUNT" ]; then
    for s in $SCEN; do
        out=$(mktemp)
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/bench/bench" "$s" >"$out" 2>"$out.err"
        ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.err")
        hops=$(sed -n 's/.*link-hops *\([0-9]*\).*/\1/p' "$out" | head -n 1)
        grep -v '^BENCH' "$out"
        echo "$s: $ir instructions, $hops link-hops: $(awk "BEGIN{printf \"%.0f\", $ir/$hops}") instructions per link-hop"
        rm -f "$out" "$out.err"
    done
    exit 0
fi

T=$(mktemp -d)
"$B/bench/bench_evq"
# one process per scenario, so that peak RSS is that scenario's
for s in $SCEN $SCALE $SCALE_IB; do
    "$B/bench/bench" "$s" | tee -a "$T/bench.txt" | grep -v '^BENCH'
done
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) (wall-clock figures move with it)"

# Whole process (fabsim run, outputs written) under callgrind, and the share
# of it that writing the outputs takes.
ir_run="" ir_ib="" out_share=""
if command -v valgrind >/dev/null 2>&1; then
    valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$B/fabsim" run bench/fat_tree_perm.yaml \
        -o "$T/run" --quiet >/dev/null 2>"$T/cg.err"
    ir_run=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/cg.err")
    # issue 34: the same whole-process count on InfiniBand (credits, SM)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/fabsim" run bench/fat_tree_perm_ib.yaml \
        -o "$T/run-ib" --quiet >/dev/null 2>"$T/cg-ib.err"
    ir_ib=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/cg-ib.err")
    if command -v callgrind_annotate >/dev/null 2>&1; then
        # "N (P%)  file:function [object]", or without the object when the
        # function's own lines were inlined from a header (model_run)
        incl() { callgrind_annotate --inclusive=yes "$T/cg.out" 2>/dev/null |
            sed -n "s/^ *\([0-9,]*\) .*:$1\( \[.*\)\{0,1\}$/\1/p" | head -n 1 | tr -d ,; }
        w=$(incl results_write_dir) r=$(incl model_run)
        [ -n "$w" ] && [ -n "$r" ] && out_share=$(awk "BEGIN{printf \"%.1f\", 100*$w/$r}")
    fi
fi

# Results of the 128-host bench scenarios: digest of results.json without
# its wall-time field, against bench/results.sha256 (issue 13: unchanged
# unless a documented model change says why).
digests=""
for s in $SCEN; do
    "$B/fabsim" run "$s" -o "$T/r" --quiet >/dev/null 2>&1
    d=$(grep -v '"wall_s"' "$T/r/results.json" | sha256sum | cut -c1-16)
    digests="$digests$d $s
"
done
printf '%s' "$digests" >"$T/digests"

# Collective targets, several CPU-minutes each: only with `make bench LONG=1`.
# "RSS_KB CPU_S COMPLETED" per scenario, from /usr/bin/time and results.json.
coll8192="" coll1024="" ib8192="" ib1024="" rank2=""
if [ -n "$LONG" ] && [ -x /usr/bin/time ]; then
    for s in bench/ring_allreduce_8192.yaml bench/ring_allreduce_1024.yaml \
        bench/ring_allreduce_ib_8192.yaml bench/ring_allreduce_ib_1024.yaml; do
        /usr/bin/time -f "%M %U %S" -o "$T/time" "$B/fabsim" run "$s" -o "$T/c" --quiet >/dev/null 2>&1
        done_=$(grep -c '"completed": true' "$T/c/results.json" 2>/dev/null)
        fig=$(awk -v c="${done_:-0}" '{ printf "%d %.1f %d", $1, $2 + $3, c }' "$T/time")
        echo "$s: max RSS $(echo "$fig" | awk '{printf "%.0f MB", $1 / 1024}'), $(echo "$fig" | cut -d' ' -f2) CPU-s, completed $(echo "$fig" | cut -d' ' -f3)"
        case $s in *ib_8192*) ib8192=$fig ;; *ib_1024*) ib1024=$fig ;; *8192*) coll8192=$fig ;; *) coll1024=$fig ;; esac
    done
    # issue 34: per-rank memory of the k=32 IB fabric on 2 MPI ranks (the
    # larger rank's max RSS) against one process's
    if [ -x "$B/fabsim-mpi" ] && command -v mpirun >/dev/null 2>&1; then
        /usr/bin/time -f "%M" -o "$T/one" "$B/fabsim" run bench/fat_tree_perm_ib_8192.yaml -o "$T/m1" --quiet >/dev/null 2>&1
        mpirun --oversubscribe -n 2 sh -c '/usr/bin/time -f "%M" -o "$0.$OMPI_COMM_WORLD_RANK" "$1" run "$2" -o "$3" --quiet' \
            "$T/two" "$B/fabsim-mpi" bench/fat_tree_perm_ib_8192.yaml "$T/m2" >/dev/null 2>&1
        r2=$(cat "$T/two.0" "$T/two.1" 2>/dev/null | sort -n | tail -n 1)
        [ -n "$r2" ] && rank2="$(cat "$T/one") $r2"
        echo "bench/fat_tree_perm_ib_8192.yaml: one process $(awk '{printf "%.0f MB", $1 / 1024}' "$T/one"), 2 ranks ${r2:-?} KB the larger"
    fi
fi

awk -v ir_run="$ir_run" -v ir_ib="$ir_ib" -v out_share="$out_share" -v digests="$T/digests" \
    -v coll8192="$coll8192" -v coll1024="$coll1024" -v ib8192="$ib8192" -v ib1024="$ib1024" \
    -v rank2="$rank2" \
    -v ref=bench/results.sha256 '
function num(s, k,   i, a) { split(s, a, " "); for (i in a) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2) + 0; return 0 }
/^BENCH / { name = $2; hosts[name] = num($0, "hosts"); hops[name] = num($0, "hops"); dhops[name] = num($0, "data_hops");
            cpu[name] = num($0, "cpu_s"); build[name] = num($0, "build_s"); rss[name] = num($0, "rss_kb") }
function rate(n) { return cpu[n] > 0 ? hops[n] / cpu[n] / 1e6 : 0 }
function ns(n) { return hops[n] > 0 ? cpu[n] * 1e9 / hops[n] : 0 }
function row(target, figure, ok) { printf "  %-62s %-34s %s\n", target, figure, ok }
function yn(c) { return c ? "met" : "NOT MET" }
# a LONG=1 collective: fig = "RSS_KB CPU_S COMPLETED"; a limit of 0 is none
function coll(target, fig, cpu_max, rss_max, how,   f) {
    if (fig == "") { row(target, how, "not measured"); return }
    split(fig, f, " ")
    row(target, sprintf("%.1f CPU-min, %.0f MB", f[2] / 60, f[1] / 1024),
        f[3] ? yn((!cpu_max || f[2] <= cpu_max) && (!rss_max || f[1] <= rss_max)) : "NOT MET (did not complete)")
}
END {
    print ""
    print "Targets (issue 13)                                               figure                             status"
    if (ir_run != "" && hops["bench-fat-tree-perm"] > 0) {
        ipk = ir_run / hops["bench-fat-tree-perm"]
        row("whole process, 128 hosts, RoCE+PFC+ECMP: <= 600 instr/link-hop", sprintf("%.0f", ipk), yn(ipk <= 600))
    } else row("whole process, 128 hosts: <= 600 instr/link-hop", "(needs valgrind)", "not measured")
    a = "bench-fat-tree-perm-1024"; b = "bench-fat-tree-perm-8192"; c = "bench-fat-tree-perm-27648"
    row("1,024 hosts: >= 5 M link-hops per CPU-s", sprintf("%.2f M", rate(a)), yn(rate(a) >= 5))
    row("8,192 hosts: >= 2.5 M link-hops per CPU-s", sprintf("%.2f M", rate(b)), yn(rate(b) >= 2.5))
    r = ns("bench-fat-tree-perm") > 0 ? ns(b) / ns("bench-fat-tree-perm") : 0
    row("ns per hop at 8,192 <= 2x at 128", sprintf("%.0f / %.0f ns = %.1fx", ns(b), ns("bench-fat-tree-perm"), r), yn(r > 0 && r <= 2))
    row("8,192-host fat tree: <= 300 MB max RSS", sprintf("%.0f MB", rss[b] / 1024), yn(rss[b] > 0 && rss[b] <= 300 * 1024))
    row("8,192-host fat tree: model build <= 2 s", sprintf("%.2f CPU-s", build[b]), yn(hosts[b] > 0 && build[b] <= 2))
    row("k=48 fat tree (27,648 hosts) runs in <= 2 GB", sprintf("%.0f MB", rss[c] / 1024), yn(rss[c] > 0 && rss[c] <= 2048 * 1024))
    coll("1,024-rank 1 GiB ring AllReduce <= 4 CPU-min", coll1024, 240, 0, "make bench LONG=1 (~6-9 CPU-min)")
    coll("8,192-rank AllReduce builds and runs in <= 2 GB", coll8192, 0, 2048 * 1024, "make bench LONG=1 (~10 CPU-min)")
    if (out_share != "") row("a run with output costs <= 10 % more", out_share " % (writing / model_run)", yn(out_share <= 10))
    else row("a run with output costs <= 10 % more", "(needs callgrind_annotate)", "not measured")
    same = 1; n = 0
    while ((getline line < digests) > 0) { split(line, f, " "); cur[f[2]] = f[1]; n++ }
    while ((getline line < ref) > 0) { if (line ~ /^#/) continue; split(line, f, " "); if (cur[f[2]] != f[1]) { same = 0; diff = diff " " f[2] } }
    row("bench results byte-identical to bench/results.sha256", same ? "same digests" : "differ:" diff, same ? "met" : "CHANGED (say why)")
    print ""
    print "Targets (issue 34, InfiniBand at scale)"
    i = "bench-fat-tree-perm-ib-8192"; j = "bench-fat-tree-perm-ib-27648"
    t = build[i] + cpu[i]
    row("IB k=32 build + 20 us run <= 2 CPU-s", sprintf("%.2f CPU-s (build %.2f)", t, build[i]), yn(hosts[i] > 0 && t <= 2))
    row("IB k=32 build + 20 us run <= 300 MB", sprintf("%.0f MB", rss[i] / 1024), yn(rss[i] > 0 && rss[i] <= 300 * 1024))
    row("IB k=48 (27,648 hosts) 5 us run <= 2 GB", sprintf("%.0f MB", rss[j] / 1024), yn(rss[j] > 0 && rss[j] <= 2048 * 1024))
    row("IB k=48 model build <= 10 CPU-s", sprintf("%.2f CPU-s", build[j]), yn(hosts[j] > 0 && build[j] <= 10))
    if (ir_run != "" && hops["bench-fat-tree-perm"] > 0)
        row("whole process, 128 hosts, RoCE: <= 450 instr/link-hop", sprintf("%.0f", ipk), yn(ipk <= 450))
    if (ir_ib != "" && ipk > 0 && dhops["bench-fat-tree-perm-ib"] > 0) {
        # per data-or-ACK hop: a credit packet is a cost of the fabric, not a hop of the traffic
        ipi = ir_ib / dhops["bench-fat-tree-perm-ib"]
        row("IB instr per data/ACK hop k=8 <= 1.5x RoCE (whole process)", sprintf("%.0f / %.0f = %.2fx", ipi, ipk, ipi / ipk), yn(ipi <= 1.5 * ipk))
    } else row("IB instr per data/ACK hop k=8 <= 1.5x RoCE", "(needs valgrind)", "not measured")
    coll("1,024-rank IB 1 GiB ring AllReduce <= 4 CPU-min", ib1024, 240, 0, "make bench LONG=1 (~15 CPU-min)")
    coll("8,192-rank IB 8 MiB ring AllReduce <= 5 CPU-min, <= 1 GB", ib8192, 300, 1024 * 1024, "make bench LONG=1")
    if (rank2 != "") {
        split(rank2, f, " ")
        row("per-rank memory, k=32 IB on 2 ranks <= 60 % of one process", sprintf("%.0f / %.0f MB = %.0f %%", f[2] / 1024, f[1] / 1024, 100 * f[2] / f[1]), yn(f[2] <= 0.6 * f[1]))
    } else row("per-rank memory, k=32 IB on 2 ranks <= 60 %", "make bench LONG=1 (with fabsim-mpi)", "not measured")
    row("progress ETA error at 50 %, 1,024-rank ring <= 20 %", "tests/coll/test_progress.c, docs/performance.md", "see there")
}' "$T/bench.txt"
rm -rf "$T"

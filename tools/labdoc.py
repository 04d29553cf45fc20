#!/usr/bin/env python3
"""tools/labdoc.py OUT [--write | --check] [--docs DIR]

The numbers a lab guide (docs/labs/<lab>.md) shows, generated from the runs
`fabsim labs -o OUT` wrote, so that no figure in a guide is typed by hand. A
guide marks the block to generate:

    <!-- failure-table: subnet_manager -->
    ...
    <!-- /failure-table -->

and gets one row per run of the lab, in the lab's order: its label, what
found the failure, the first repair of the traffic after it (a switch-local
reroute or the control plane's), the packets lost on the link, the job's
stall and whether NCCL's older timeout 18 would have aborted it (results.json
control_plane[0] and jobs[0]).

Two more kinds, from OUT/verdicts.json (what `fabsim labs` computed):

    <!-- m: load_balancing.ecmp_vs_adaptive -->3.01 x<!-- /m -->

a metric of a lab inline, as its findings print it (unit, digits), so that
prose quotes the run instead of a hand-typed figure; and

    <!-- claims: lossless -->
    ...
    <!-- /claims -->

the lab's sub-claims, one row each: the claim, its verdict and why, and
with lab.yaml `readings:` the readings under which its verdict is another.

--write rewrites the blocks; --check (the default) prints the blocks that
differ from the runs and exits 1 when one does; a lab that did not run in
OUT is skipped with a message. --docs DIR reads the guides of DIR instead
of docs/labs (the test feeds it a guide with a wrong figure).
"""
import glob
import json
import os
import re
import sys

BLOCK = re.compile(r"(<!-- failure-table: (\S+) -->\n)(.*?)(<!-- /failure-table -->)", re.S)
INLINE = re.compile(r"(<!-- m: ([a-z0-9_]+)\.([a-z0-9_]+) -->)(.*?)(<!-- /m -->)", re.S)
CLAIMS = re.compile(r"(<!-- claims: (\S+) -->\n)(.*?)(<!-- /claims -->)", re.S)


def fmt_time(ns):
    if ns is None:
        return "never"
    if ns < 1e6:
        return f"{ns / 1e3:.0f} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.1f} ms"
    return f"{ns / 1e9:.2f} s"


def table(out, lab):
    d = os.path.join(out, lab)
    if not os.path.isdir(d):
        return None
    rows = ["| run | found by | first repair | packets lost | job stall | timeout 18 |",
            "|---|---|---|---|---|---|"]
    for run in sorted(os.listdir(d)):
        rd = os.path.join(d, run)
        st_path, res_path = os.path.join(rd, "status.json"), os.path.join(rd, "results.json")
        if not os.path.isfile(st_path):
            continue
        st = json.load(open(st_path))
        if st.get("status") != "ok" or not os.path.isfile(res_path):
            rows.append(f"| {st.get('label') or run} | not run | | | | |")
            continue
        res = json.load(open(res_path))
        cp = (res.get("control_plane") or [{}])[0]
        at = cp.get("at_ns", 0)
        firsts = [t for t in (cp.get("local_reroute_at_ns"), cp.get("rerouted_at_ns")) if t is not None]
        first = min(firsts) - at if firsts else None
        by = cp.get("detected_by") or ("port state" if cp.get("event") == "link_down" else "nothing")
        job = (res.get("jobs") or [{}])[0]
        stall = job.get("stalled_ns", 0)
        t18 = "would abort" if job.get("would_abort_timeout_18") else "survives"
        rows.append(f"| {st.get('label') or run} | {by} | {fmt_time(first)} | {cp.get('packets_lost', 0)} | "
                    f"{fmt_time(stall) if stall else '0'} | {t18} |")
    return "\n".join(rows) + "\n"


def verdicts(out):
    path = os.path.join(out, "verdicts.json")
    return {v["lab"]: v for v in json.load(open(path))} if os.path.isfile(path) else {}


def cell(s):
    return s.replace("|", "\\|").replace("\n", " ")


def claims_table(v):
    rd = v.get("readings", [])
    if not rd:
        rows = ["| claim | verdict | the runs say |", "|---|---|---|"]
        for c in v.get("claims", []):
            rows.append(f"| {cell(c['claim'])} | **{c['verdict']}** | {cell(c['text'])} |")
        return "\n".join(rows) + "\n"
    # With readings (lab.yaml `readings:`): under which the verdict is another.
    rows = ["| claim | verdict | the runs say | under the readings |", "|---|---|---|---|"]
    for c in v.get("claims", []):
        other = []
        for r in rd:
            rc = next((x for x in r["claims"] if x["id"] == c["id"]), None)
            if rc and rc["verdict"] != c["verdict"]:
                other.append(f"{r['id']} ({', '.join(r['set'])}): **{rc['verdict']}**")
        under = "depends on the reading: " + "; ".join(other) if other else (
            f"the same under every reading ({len(rd)})")
        rows.append(f"| {cell(c['claim'])} | **{c['verdict']}** | {cell(c['text'])} | {cell(under)} |")
    rows.append("")
    for r in rd:
        rows.append(f"- reading `{r['id']}` ({', '.join('`' + x + '`' for x in r['set'])}): {cell(r['why'])}")
    return "\n".join(rows) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, write = sys.argv[1], "--write" in sys.argv[2:]
    bad = 0
    V = verdicts(out)
    docs = sys.argv[sys.argv.index("--docs") + 1] if "--docs" in sys.argv else "docs/labs"
    for path in sorted(glob.glob(os.path.join(docs, "*.md"))):
        text = open(path).read()
        new, changed = text, False
        for m in BLOCK.finditer(text):
            lab = m.group(2)
            t = table(out, lab)
            if t is None:
                print(f"skip: {path}: lab {lab} did not run in {out}")
                continue
            if t != m.group(3):
                changed = True
                if not write:
                    bad += 1
                    print(f"FAIL: {path}: the {lab} table differs from the runs in {out}; now:\n{t}")
            new = new.replace(m.group(0), m.group(1) + t + m.group(4))
        for m in INLINE.finditer(text):
            lab, name = m.group(2), m.group(3)
            if lab not in V:
                print(f"skip: {path}: lab {lab} did not run in {out}")
                continue
            if name not in V[lab].get("metrics_text", {}):
                bad += 1
                print(f"FAIL: {path}: {lab} has no metric {name}")
                continue
            want = V[lab]["metrics_text"][name]
            if want != m.group(4):
                changed = True
                if not write:
                    bad += 1
                    print(f"FAIL: {path}: {lab}.{name} says '{m.group(4)}', the run '{want}'")
            new = new.replace(m.group(0), m.group(1) + want + m.group(5))
        for m in CLAIMS.finditer(text):
            lab = m.group(2)
            if lab not in V:
                print(f"skip: {path}: lab {lab} did not run in {out}")
                continue
            tb = claims_table(V[lab])
            if tb != m.group(3):
                changed = True
                if not write:
                    bad += 1
                    print(f"FAIL: {path}: the {lab} claims table differs from the runs in {out}; now:\n{tb}")
            new = new.replace(m.group(0), m.group(1) + tb + m.group(4))
        if write and changed:
            open(path, "w").write(new)
            print(f"wrote {path}")
        elif not changed and (BLOCK.search(text) or INLINE.search(text) or CLAIMS.search(text)):
            print(f"ok: {path}: its tables and figures are the runs'")
    sys.exit(1 if bad else 0)


main()

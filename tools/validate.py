#!/usr/bin/env python3
"""fabsim against published measurements (docs/validation.md).

Runs every row of scenarios/validation/rows.json through the fabsim binary,
reads what the row measures out of results.json / links.csv (the files a user
gets), compares it with the published figure and prints the table with
pass/fail against the row's tolerance. Writes DIR/validation.json (one object
per row: the published figure, fabsim's figure, the ratio, the verdict) for
the report and for scripts.

A script over the binary's outputs rather than a C program over libfabsim.a:
a row is a whole scenario file, exactly what a user would run to check the
figure themselves, and the figures come from the documented outputs
(docs/outputs.md), so the rows do not depend on internal structures that
other work may change.

Usage: tools/validate.py [--bin build/fabsim] [-o out/validation] [--fast]
                         [--only ID[,ID...]] [--markdown] [--check] [--report DIR]
  --fast      only rows marked fast (seconds in all); what `make test` runs
  --check     exit 1 when a row expected to pass fails, and end with the
              "N passed, N failed" line of `make test` (rows marked pending or
              cannot-reproduce are reported, not counted)
  --markdown  print the table as docs/validation.md's markdown

Each row says what it is (rows.json "kind"): identity (an analytic result
the model must reproduce), fitted (a parameter was set from this figure;
the parameter is in its status), prediction (a measurement nothing was fitted
to), qualitative (a yes/no or a figure that does not discriminate), derived
(a ratio of other rows), claim (the course's figure), recorded (no reference
figure). The summary counts the predictions against measurements and how
many pass, failing ones included: a measurement that disagrees is a red row,
not an excluded one. Rows expected to disagree (status disagrees/cannot)
are listed as known gaps and do not fail --check.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- helpers the rows' expressions use ------------------------------------

def coll(r, i=0, field="busbw_gbps"):
    return r["collectives"][i][field]


def coll_gbs(r, i=0, field="busbw_gbps"):
    """A collectives field in GB/s (results.json gives Gbit/s)."""
    return r["collectives"][i][field] / 8.0


def coll_us(r, i=0):
    return r["collectives"][i]["time_ns"] / 1e3


def flow_gbps(r, i=0):
    f = r["flows"][i]
    return f["size"] * 8.0 / f["fct_ns"]


def flow_ns(r, i=0):
    return r["flows"][i]["fct_ns"]


def link(r, name, field):
    for l in r["links"]:
        if l["name"] == name:
            return l[field]
    raise KeyError("no link " + name)


def links_where(r, pred):
    return [l for l in r["links"] if pred(l)]


def idle_share(r, tier, min_bytes):
    """Share of the links of a tier going up (from the lower end) that carried
    fewer than min_bytes: ECMP's unused paths."""
    up = [l for l in r["links"] if l["tier"] == tier and l["from"].startswith("leaf")]
    return sum(1 for l in up if l["bytes"] < min_bytes) / len(up)


def csv_gbps(r, name, t0_ns, t1_ns):
    """Mean rate in Gb/s of link `name` over (t0, t1] from links.csv."""
    tot, first, last = 0, None, None
    with open(os.path.join(r["_dir"], "links.csv")) as f:
        for row in csv.DictReader(f):
            if row["link"] != name:
                continue
            t = float(row["time_ns"])
            if t0_ns < t <= t1_ns:
                tot += int(row["bytes"])
    return tot * 8.0 / (t1_ns - t0_ns)


def csv_queue(r, name, t0_ns, t1_ns, q=None):
    """Link `name`'s sampled queue (bytes, links.csv) over (t0, t1]: the
    q-quantile (nearest rank) of the samples, or their mean when q is None."""
    xs = []
    with open(os.path.join(r["_dir"], "links.csv")) as f:
        for row in csv.DictReader(f):
            if row["link"] == name and t0_ns < float(row["time_ns"]) <= t1_ns:
                xs.append(float(row["queue_bytes"]))
    if q is None:
        return sum(xs) / len(xs)
    xs.sort()
    return xs[min(len(xs) - 1, max(0, int(round(q * len(xs))) - 1))]


def cp(r, i=0, field="rerouted_at_ns"):
    return r["control_plane"][i][field]


def reroute_ms(r, i=0, local=False):
    c = r["control_plane"][i]
    t = c["local_reroute_at_ns" if local else "rerouted_at_ns"]
    return (t - c["at_ns"]) / 1e6


def sm(r, field):
    return r["subnet_manager"][field]


def fct_us(r, q=0.99):
    """The q-quantile of the finished flows' FCT in us (nearest rank)."""
    f = sorted(x["fct_ns"] for x in r["flows"] if x["fct_ns"] is not None)
    return f[min(len(f) - 1, max(0, int(round(q * len(f))) - 1))] / 1000.0


def tail_acked_us(r):
    """The UEC reference simulator's "Tail FCT" in us: the time of the last
    "finished" line of uet-htsim validate.py, each printed when a sender's
    cumulative ACK covers its flow (uec.cpp checkFinished), i.e. when the last
    sender got its last ACK. For flows that all start at 0 that is
    summary.done_ns, when the workload's last message was acknowledged
    (docs/outputs.md); flows[].fct_ns ends at the receiver instead."""
    if any(f["start_ns"] != 0 for f in r["flows"]) or not r["summary"]["completed"]:
        raise ValueError("tail_acked_us needs a completed run whose flows all start at 0")
    return r["summary"]["done_ns"] / 1000.0


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


HELPERS = {k: v for k, v in globals().items() if callable(v) and not k.startswith("_")}


# ---- running ----------------------------------------------------------------

def run_one(binpath, outdir, scen, sets, seed):
    os.makedirs(outdir, exist_ok=True)
    cmd = [binpath, "run", os.path.join(ROOT, scen), "-o", outdir, "--quiet"]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    with open(os.path.join(outdir, "results.json")) as f:
        r = json.load(f)
    r["_dir"] = outdir
    return r


def evaluate(row, binpath, outroot):
    env = {}
    for name, spec in row["runs"].items():
        seeds = spec.get("seeds")
        base = os.path.join(outroot, row["id"], name)
        if seeds:
            env[name] = [run_one(binpath, "%s-s%d" % (base, s), spec["scenario"],
                                 spec.get("set", []), s) for s in seeds]
        else:
            env[name] = run_one(binpath, base, spec["scenario"], spec.get("set", []), None)
    return float(eval(row["expr"], dict(HELPERS, **env)))  # rows.json is ours


def verdict(row, value):
    if not row.get("accept"):
        return "recorded"
    lo, hi = row["accept"]
    ok = lo <= value <= hi
    st = row.get("status", "")
    if st.startswith("pending") or st.startswith("cannot") or st.startswith("disagrees"):
        return ("pass" if ok else "known gap") + " (" + st.split(":")[0] + ")"
    return "pass" if ok else "FAIL"


KINDS = ("identity", "fitted", "prediction", "qualitative", "derived", "claim", "recorded")


def kind_str(row):
    """The row's kind, with the fitted parameter when there is one."""
    k = row.get("kind", "")
    st = row.get("status", "")
    if k == "fitted" and st.startswith("fitted:"):
        return "fitted (" + st.split(":", 1)[1].split("(")[0].split(";")[0].strip() + ")"
    return k


def accept_str(acc):
    return "[%s, %s]" % (fmt(acc[0]), fmt(acc[1])) if acc else "-"


def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.3f" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "fabsim"))
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "out", "validation"))
    ap.add_argument("--fast", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--report", default="",
                    help="a report folder (fabsim labs -o DIR): copy validation.json there and "
                         "rebuild DIR/report.html with its Validation page")
    a = ap.parse_args()
    with open(os.path.join(ROOT, "scenarios", "validation", "rows.json")) as f:
        rows = json.load(f)["rows"]
    only = set(x for x in a.only.split(",") if x)
    out = []
    npass = nfail = 0
    print("%-4s %-11s %-40s %10s %10s %7s %-17s %s" %
          ("row", "kind", "what", "published", "fabsim", "ratio", "accept", "verdict"))
    for row in rows:
        if only and row["id"] not in only:
            continue
        if a.fast and not row.get("fast"):
            continue
        t0 = time.time()
        err = None
        try:
            value = evaluate(row, a.bin, a.out)
        except Exception as e:  # a row that cannot run is reported, not hidden
            value, err = None, str(e)
        pub = row.get("published")
        ratio = value / pub if (value is not None and pub) else None
        v = verdict(row, value) if value is not None else "ERROR"
        st = row.get("status", "")
        counted = not (st.startswith("pending") or st.startswith("cannot") or
                       st.startswith("disagrees") or not row.get("accept"))
        if counted:
            if v == "pass":
                npass += 1
            else:
                nfail += 1
        print("%-4s %-11s %-40s %10s %10s %7s %-17s %s%s" %
              (row["id"], row.get("kind", "")[:11], row["what"][:40], fmt(pub), fmt(value),
               fmt(ratio) if ratio else "-", accept_str(row.get("accept")),
               v, ("  " + err) if err else ""))
        out.append({
            "id": row["id"], "kind": row.get("kind", ""), "kind_text": kind_str(row),
            "what": row["what"], "unit": row.get("unit", ""),
            "published": pub, "fabsim": value, "ratio": ratio,
            "accept": row["accept"], "verdict": v, "status": st or "ok",
            "source": row.get("source", ""), "conditions": row.get("conditions", ""),
            "scenarios": sorted(set(s["scenario"] for s in row["runs"].values())),
            "note": row.get("note", ""), "wall_s": round(time.time() - t0, 2),
            "error": err,
        })
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "validation.json"), "w") as f:
        json.dump({"schema_version": 1, "rows": out}, f, indent=1)
    if a.markdown:
        print()
        print("| row | kind | published figure | conditions | published | fabsim | ratio | "
              "accept | verdict | scenario |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for o in out:
            print("| %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
                o["id"], o["kind_text"], o["what"], o["source"], o["conditions"], fmt(o["published"]),
                fmt(o["fabsim"]), fmt(o["ratio"]) if o["ratio"] else "-",
                accept_str(o["accept"]), o["verdict"],
                ", ".join("`%s`" % s.split("/")[-1] for s in o["scenarios"])))
    if a.report:
        shutil.copy(os.path.join(a.out, "validation.json"), os.path.join(a.report, "validation.json"))
        p = subprocess.run([a.bin, "report", a.report], capture_output=True, text=True)
        print("report: %s/report.html%s" % (a.report, "" if p.returncode == 0 else
                                             " FAILED: " + p.stderr.strip()))
    by = {}
    for o in out:
        by.setdefault(o["kind"], []).append(o)
    pred = by.get("prediction", [])
    ok = [o for o in pred if o["verdict"].startswith("pass")]
    gaps = [o["id"] for o in pred if not o["verdict"].startswith("pass")]
    print("%d predictions against measurements: %d pass%s" % (
        len(pred), len(ok), " (%s disagree)" % ", ".join(gaps) if gaps else ""))
    print("besides: " + ", ".join("%d %s" % (len(by[k]), k) for k in KINDS if k in by and k != "prediction")
          + " (docs/validation.md says what each kind is)")
    known = [o for o in out if o["verdict"].startswith("known gap")]
    if known:
        print("known gaps (expected to disagree, not counted below): " +
              "; ".join("%s %s" % (o["id"], o["what"]) for o in known))
    print("%d passed, %d failed" % (npass, nfail))
    if a.check and nfail:
        sys.exit(1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Scaling chart (issue 13 item 6, docs/performance.md "Scaling chart").

Reads docs/perf/scaling.csv (one row per measured run: tool, hosts,
link_hops, cpu_s, max_rss_kb, ...) and writes an SVG with two panels, both
against hosts on a log axis: CPU nanoseconds per link-hop, and KB of max RSS
per host. One line per tool. Where a tool has several runs at one size, the
run with the lowest ns per hop is drawn (the least disturbed by other work on
a shared machine; max RSS hardly moves between runs). A row with an empty
link_hops is a size the tool did not run: a dotted line at that size says so
(the row's note says why).

Python standard library only (no plotting package is a project dependency).

Usage: tools/scaling_chart.py [docs/perf/scaling.csv] [-o docs/perf/scaling.svg]
"""
import argparse
import csv
import math
import sys

STYLE = {
    "fabsim": {"color": "#1f77b4", "dash": "", "marker": "circle"},
    "htsim": {"color": "#d62728", "dash": "6,4", "marker": "square"},
}
OTHER = {"color": "#555555", "dash": "2,3", "marker": "circle"}

W, H = 960, 430  # whole picture
PW, PH = 360, 250  # one panel's plot area
TOP, LEFT = 60, 80  # first panel's origin
GAP = 100  # between the panels


def fnum(s):
    s = (s or "").strip()
    return float(s) if s else None


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            r["hosts"] = int(r["hosts"])
            r["link_hops"] = fnum(r.get("link_hops"))
            r["cpu_s"] = fnum(r.get("cpu_s"))
            r["max_rss_kb"] = fnum(r.get("max_rss_kb"))
            rows.append(r)
    return rows


def best_runs(rows):
    """(tool -> [(hosts, ns_per_hop, kb_per_host)]), (tool -> [(hosts, note)])."""
    best, missing = {}, {}
    for r in rows:
        t = r["tool"]
        if not r["link_hops"] or not r["cpu_s"]:
            missing.setdefault(t, []).append((r["hosts"], r.get("note", "")))
            continue
        ns = r["cpu_s"] * 1e9 / r["link_hops"]
        kb = r["max_rss_kb"] / r["hosts"]
        cur = best.setdefault(t, {})
        if r["hosts"] not in cur or ns < cur[r["hosts"]][0]:
            cur[r["hosts"]] = (ns, kb)
    pts = {t: sorted((h, v[0], v[1]) for h, v in d.items()) for t, d in best.items()}
    return pts, missing


def nice_ticks(lo, hi, log):
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        ticks = []
        for e in range(a, b + 1):
            for m in (1, 2, 5):
                v = m * 10**e
                if lo <= v <= hi:
                    ticks.append(v)
        return ticks
    step = 10 ** math.floor(math.log10(max(hi - lo, 1e-9)))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= 6:
            step *= m
            break
    v = math.floor(lo / step) * step
    ticks = []
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            ticks.append(v)
        v += step
    return ticks


def fmt(v):
    if v >= 1000:
        return f"{v:,.0f}".replace(",", "\u2009")
    if v >= 1:
        return f"{v:g}"
    return f"{v:.2g}"


class Panel:
    def __init__(self, x0, y0, xlo, xhi, ylo, yhi):
        self.x0, self.y0 = x0, y0
        self.lxlo, self.lxhi = math.log10(xlo), math.log10(xhi)
        self.lylo, self.lyhi = math.log10(ylo), math.log10(yhi)

    def x(self, v):
        return self.x0 + PW * (math.log10(v) - self.lxlo) / (self.lxhi - self.lxlo)

    def y(self, v):
        return self.y0 + PH - PH * (math.log10(v) - self.lylo) / (self.lyhi - self.lylo)


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def marker(out, kind, x, y, color):
    if kind == "square":
        out.append(f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{color}"/>')
    else:
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{color}"/>')


def panel(out, p, title, ylabel, hosts, pts, idx, missing, xticks, yticks):
    out.append(f'<rect x="{p.x0}" y="{p.y0}" width="{PW}" height="{PH}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{p.x0 + PW / 2}" y="{p.y0 - 12}" text-anchor="middle" font-weight="bold">{esc(title)}</text>')
    for v in yticks:
        y = p.y(v)
        out.append(f'<line x1="{p.x0}" y1="{y:.1f}" x2="{p.x0 + PW}" y2="{y:.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{p.x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{fmt(v)}</text>')
    for v in xticks:
        x = p.x(v)
        out.append(f'<line x1="{x:.1f}" y1="{p.y0}" x2="{x:.1f}" y2="{p.y0 + PH}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x:.1f}" y="{p.y0 + PH + 16}" text-anchor="middle">{fmt(v)}</text>')
    out.append(f'<text x="{p.x0 + PW / 2}" y="{p.y0 + PH + 36}" text-anchor="middle">hosts (fat tree k = 8 … 48)</text>')
    out.append(
        f'<text transform="translate({p.x0 - 58},{p.y0 + PH / 2}) rotate(-90)" text-anchor="middle">{esc(ylabel)}</text>'
    )
    for t, series in pts.items():
        st = STYLE.get(t, OTHER)
        xy = [(p.x(h), p.y(v[idx])) for h, *v in series]
        d = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
        dash = f' stroke-dasharray="{st["dash"]}"' if st["dash"] else ""
        out.append(f'<polyline points="{d}" fill="none" stroke="{st["color"]}" stroke-width="2"{dash}/>')
        for (x, y), (h, *v) in zip(xy, series):
            marker(out, st["marker"], x, y, st["color"])
            dy = -9 if st["marker"] == "square" else 17  # htsim's labels above, fabsim's below
            out.append(
                f'<text x="{x:.1f}" y="{y + dy:.1f}" text-anchor="middle" fill="{st["color"]}" font-size="11">{fmt(round(v[idx]))}</text>'
            )
    # sizes a tool did not run: named at mid-height above the size
    for t, ms in missing.items():
        st = STYLE.get(t, OTHER)
        for h, _note in ms:
            x = min(p.x(h) + 20, p.x0 + PW - 4)
            taken = [p.y(v[idx]) for series in pts.values() for hh, *v in series if hh == h]
            y = max((p.y0 + PH * f for f in (0.2, 0.45, 0.8)), key=lambda c: min([abs(c - t) for t in taken] + [PH]))
            out.append(f'<line x1="{p.x(h):.1f}" y1="{p.y0}" x2="{p.x(h):.1f}" y2="{p.y0 + PH}" stroke="{st["color"]}" stroke-dasharray="2,3"/>')
            for i, line in enumerate((t, "not run")):
                out.append(
                    f'<text x="{x:.1f}" y="{y + 13 * i:.1f}" text-anchor="end" fill="{st["color"]}" font-size="11">{esc(line)}</text>'
                )


def draw(rows, source):
    pts, missing = best_runs(rows)
    if not pts:
        sys.exit("scaling_chart: no measured rows in " + source)
    hosts = sorted({r["hosts"] for r in rows})
    ns = [v[1] for s in pts.values() for v in s]
    kb = [v[2] for s in pts.values() for v in s]
    xlo, xhi = hosts[0] / 1.4, hosts[-1] * 1.4
    p1 = Panel(LEFT, TOP, xlo, xhi, min(ns) / 1.6, max(ns) * 1.6)
    p2 = Panel(LEFT + PW + GAP, TOP, xlo, xhi, min(kb) / 1.6, max(kb) * 1.6)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
    ]
    panel(out, p1, "CPU time per link-hop (whole process)", "ns per link-hop", hosts, pts, 0, missing,
          hosts, nice_ticks(min(ns) / 1.6, max(ns) * 1.6, True))
    panel(out, p2, "Max RSS per host", "KB per host", hosts, pts, 1, missing,
          hosts, nice_ticks(min(kb) / 1.6, max(kb) * 1.6, True))
    # legend
    lx, ly = LEFT, H - 58
    for t in pts:
        st = STYLE.get(t, OTHER)
        dash = f' stroke-dasharray="{st["dash"]}"' if st["dash"] else ""
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 30}" y2="{ly}" stroke="{st["color"]}" stroke-width="2"{dash}/>')
        marker(out, st["marker"], lx + 15, ly, st["color"])
        out.append(f'<text x="{lx + 38}" y="{ly + 4}">{esc(t)}</text>')
        lx += 110
    msg = {}
    for r in rows:
        if r.get("message_bytes"):
            msg.setdefault(int(r["message_bytes"]), []).append(r["hosts"])
    sizes = ", ".join(
        (f"{b / 1e6:g} MB" if b >= 1e6 else f"{b / 1e3:g} KB")
        + " (" + ", ".join(fmt(h) for h in sorted(set(msg[b]))) + (" hosts)" if i == 0 else ")")
        for i, b in enumerate(sorted(msg, reverse=True))
    )
    out.append(
        f'<text x="{LEFT}" y="{ly + 26}" fill="#555">RoCEv2 + PFC + ECMP fat tree, 100 Gb/s, random permutation of '
        f'{esc(sizes.replace(" (", " per host (", 1))}</text>'
    )
    out.append(f'<text x="{LEFT}" y="{ly + 42}" fill="#555">whole process (user + sys, max RSS); best run per size; data: {esc(source)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="?", default="docs/perf/scaling.csv")
    ap.add_argument("-o", "--output", default="docs/perf/scaling.svg")
    a = ap.parse_args()
    svg = draw(load(a.csv), a.csv)
    with open(a.output, "w") as f:
        f.write(svg)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tests/ib/check_topofile.py GEN.yaml OTHER.yaml LABEL [OTHER2.yaml LABEL2 ...]

Compares fabsim topology files (`fabsim topology` output, docs/inputs.md):
the generator's fabric against the same fabric read back from another
format (ibnetdiscover output of the fabric ibsim emulates, the ibsim net
file fabsim wrote). Same hosts, same switches, same cables (by node names
and port numbers, both ends), same min-hop distance for every host pair
(BFS over the cables). Prints "N passed, N failed" (check_opensm.sh adds it
to its own counts). Rates are not compared: ibsim emulates 4xSDR links.
"""
import re
import sys
from collections import deque

passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok: " if ok else "FAIL: ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


def read(path):
    hosts, switches, links = set(), set(), []
    for line in open(path):
        m = re.match(r"\s*- \{name: ([^,]+), kind: (host|switch)", line)
        if m:
            (hosts if m.group(2) == "host" else switches).add(m.group(1))
            continue
        m = re.match(r'\s*- \{a: "?([^,"]+)"?, b: "?([^,"]+)"?,', line)
        if m:
            links.append(tuple(sorted((m.group(1), m.group(2)))))
    return hosts, switches, sorted(links)


def dist(hosts, links):
    adj = {}
    for a, b in links:
        a, b = a.split(":")[0], b.split(":")[0]
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    out = {}
    for s in hosts:
        d = {s: 0}
        q = deque([s])
        while q:
            v = q.popleft()
            for w in adj.get(v, []):
                if w not in d:
                    d[w] = d[v] + 1
                    q.append(w)
        for t in hosts:
            out[(s, t)] = d.get(t, -1)
    return out


def main():
    gh, gs, gl = read(sys.argv[1])
    gd = dist(gh, gl)
    check(len(gh) > 0 and len(gl) > 0, "generator: %d hosts, %d switches, %d cables"
          % (len(gh), len(gs), len(gl)))
    for path, label in zip(sys.argv[2::2], sys.argv[3::2]):
        h, s, l = read(path)
        check(h == gh, "%s: same %d hosts" % (label, len(h)))
        check(s == gs, "%s: same %d switches" % (label, len(s)))
        diff = set(l) ^ set(gl)
        check(l == gl, "%s: same %d cables, ports included%s"
              % (label, len(l), "; differ: %s" % sorted(diff)[:3] if diff else ""))
        d = dist(h, l)
        bad = [k for k in gd if gd[k] != d.get(k)]
        check(not bad, "%s: same min-hop distance for all %d host pairs (max %d)%s"
              % (label, len(gd), max(gd.values()), "; differ: %s" % bad[:3] if bad else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())

"""tests/ib/check_opensm.py NET OPENSM_DUMP LOADED_DUMP FABSIM_DUMP [SHIFTED LOADED_SHIFTED]
tests/ib/check_opensm.py --shift NET OPENSM_DUMP OUT

Compares LFT dumps (opensm-lfts.dump format) by node names (the quoted
descriptions): OpenSM's, the same read by fabsim and written back, and
fabsim's own minhop. Walks each host pair through the ibsim net file's links.
Prints one line per check and "N passed, N failed"."""
import re
import sys


def read_net(path):
    """{(node, port): (peer, peer_port)}, hosts, switches"""
    links, hosts, switches, cur = {}, [], [], None
    for line in open(path):
        m = re.match(r'(Hca|Switch)\s+\d+\s+"([^"]+)"', line)
        if m:
            cur = m.group(2)
            (hosts if m.group(1) == "Hca" else switches).append(cur)
            continue
        m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
        if m and cur:
            links[(cur, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return links, hosts, switches


def read_dump(path):
    """{(switch, destination name): out port}"""
    lft, sw = {}, None
    for line in open(path):
        m = re.match(r"Unicast lids .*\('([^']+)'\):", line)
        if m:
            sw = m.group(1)
            continue
        m = re.match(r"0x[0-9a-fA-F]+ (\d+) #.*: '([^']+)'", line)
        if m and sw:
            lft[(sw, m.group(2))] = int(m.group(1))
    return lft


def hops(links, lft, src, dst):
    """switch hops from host src to host dst, or None (loop, hole)"""
    node, n = links[(src, 1)][0], 0
    while n < 64:
        n += 1
        port = lft.get((node, dst))
        if port is None or port == 0:
            return None
        node = links[(node, port)][0]
        if node == dst:
            return n
    return None


def shift(net, src, out):
    """OpenSM's dump with every leaf's uplink entries moved to the leaf's
    next uplink (still minimal on a leaf-spine): a table fabsim's minhop would
    not choose, to show fabsim really follows the file."""
    links, hosts, _ = read_net(net)
    leaves = {node for (node, _), (peer, _) in links.items() if peer in hosts}
    ups = {}
    for (node, port), (peer, _) in sorted(links.items()):
        if node in leaves and peer not in hosts:
            ups.setdefault(node, []).append(port)
    with open(out, "w") as f:
        sw = None
        for line in open(src):
            m = re.match(r"Unicast lids .*\('([^']+)'\):", line)
            if m:
                sw = m.group(1)
            m = re.match(r"(0x[0-9a-fA-F]+) (\d+)( #.*)", line)
            if m and sw in ups and int(m.group(2)) in ups[sw] and len(ups[sw]) > 1:
                u = ups[sw]
                line = "%s %03d%s\n" % (m.group(1), u[(u.index(int(m.group(2))) + 1) % len(u)],
                                        m.group(3))
            f.write(line)


def main():
    if sys.argv[1] == "--shift":
        shift(*sys.argv[2:5])
        return 0
    links, hosts, switches = read_net(sys.argv[1])
    osm, loaded, own = (read_dump(p) for p in sys.argv[2:5])
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("ok: " if ok else "FAIL: ") + what)
        passed, failed = passed + ok, failed + (not ok)

    routed = {k: v for k, v in osm.items() if k[1] in hosts}
    check(len(routed) == len(switches) * len(hosts),
          "OpenSM routed %d switch x host entries (%d switches x %d hosts)"
          % (len(routed), len(switches), len(hosts)))
    diff = [k for k in routed if loaded.get(k) != routed[k]]
    check(not diff, "fabsim loaded every host entry as OpenSM wrote it (%d differ%s)"
          % (len(diff), ": %s" % (diff[:3],) if diff else ""))
    bad, hist = [], {}
    for s in hosts:
        for d in hosts:
            if s == d:
                continue
            a, b = hops(links, loaded, s, d), hops(links, own, s, d)
            if a is None or a != b:
                bad.append((s, d, a, b))
            hist[a] = hist.get(a, 0) + 1
    npairs = len(hosts) * (len(hosts) - 1)
    check(not bad, "%d host pairs: hop counts through OpenSM's LFTs (loaded) equal fabsim "
          "minhop's; switch hops %s%s" % (npairs, sorted(hist.items(), key=str),
                                           "; differ: %s" % bad[:3] if bad else ""))
    same = sum(loaded.get(k) == own.get(k) for k in routed)
    print("info: %d of %d entries identical to fabsim's minhop choice of port" % (same, len(routed)))
    if len(sys.argv) > 6:
        shifted, lshift = read_dump(sys.argv[5]), read_dump(sys.argv[6])
        ks = [k for k in shifted if k[1] in hosts]
        moved = sum(shifted[k] != own.get(k) for k in ks)
        same = all(lshift.get(k) == shifted[k] for k in ks)
        check(same and moved >= len(hosts), "shifted OpenSM dump: %d entries differ from fabsim "
              "minhop, fabsim loaded all %d as written: %s" % (moved, len(ks), same))
        h = [hops(links, lshift, s, d) == hops(links, own, s, d)
             for s in hosts for d in hosts if s != d]
        check(all(h), "shifted: hop counts still minimal for all %d pairs" % len(h))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())

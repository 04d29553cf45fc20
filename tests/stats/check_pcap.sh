#!/bin/sh
# tests/stats/check_pcap.sh BUILD_DIR
#
# `fabsim run --pcap`: a pcapng file with one interface per captured
# directed link, named after it; whole packets by default, headers only with
# --pcap-snaplen headers (each record's original length is the packet's, its
# captured length the headers'); --pcap-max and --pcap-max-bytes cap it; a
# FILE ending in .gz is gzip-compressed. Read back by a small pcapng reader
# here, and by tshark when installed: the default capture of both fabrics
# shows no "[Malformed Packet]" or "Invalid Packet Length" in the Info column,
# the .gz file dissects as the plain one, and the BTH fields of the
# header-only and the full capture are the same. Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-pcap"
P=0
F=0
rm -rf "$OUT"
mkdir -p "$OUT"
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }

R=tests/report/fixture/basics/02-permutation-roce.yaml
for kind in roce infiniband; do
    for snap in headers full; do
        "$FAB" run "$R" --set fabric.kind=$kind --set fabric.flow_control=none \
            --set fabric.congestion_control=none --set fabric.buffer=8MiB \
            --pcap "$OUT/$kind-$snap.pcapng" --pcap-snaplen=$snap -o "$OUT/run-$kind" \
            >"$OUT/$kind-$snap.txt" 2>&1 || fail "run --pcap ($kind, $snap)"
    done
    if python3 - "$OUT/$kind-headers.pcapng" "$OUT/$kind-full.pcapng" "$OUT/run-$kind/results.json" <<'PY'
import json, struct, sys

def blocks(path):
    data = open(path, "rb").read()
    off = 0
    while off < len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        assert blen % 4 == 0 and blen >= 12, f"block length {blen} at {off}"
        assert struct.unpack_from("<I", data, off + blen - 4)[0] == blen, "trailing length"
        yield btype, data[off + 8:off + blen - 4]
        off += blen

def read(path):
    names, pkts, first = [], [], True
    for btype, body in blocks(path):
        if first:
            assert btype == 0x0A0D0D0A and struct.unpack_from("<I", body)[0] == 0x1A2B3C4D, "SHB"
            first = False
        elif btype == 1:  # IDB: options after linktype, reserved, snaplen
            o, name, res = 8, None, None
            while o + 4 <= len(body):
                code, ln = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                v = body[o + 4:o + 4 + ln]
                if code == 2: name = v.decode()
                if code == 9: res = v[0]
                o += 4 + (ln + 3) // 4 * 4
            assert res == 9, "if_tsresol nanoseconds"
            names.append(name)
        elif btype == 6:
            iface, hi, lo, cap, orig = struct.unpack_from("<IIIII", body)
            assert iface < len(names), "EPB before its IDB"
            pkts.append((iface, cap, orig))
    return names, pkts

hn, hp = read(sys.argv[1])
fn, fp = read(sys.argv[2])
links = {l["name"] for l in json.load(open(sys.argv[3]))["links"]}
busy = {l["name"] for l in json.load(open(sys.argv[3]))["links"] if l["packets"] > 0}
ok = True
def check(c, what):
    global ok
    print(("ok   " if c else "FAIL ") + what)
    ok = ok and c
check(len(hn) == len(set(hn)) and set(hn) <= links, f"{len(hn)} interfaces, each named after a link ({hn[0]} ...)")
check(set(hn) == busy, "one interface per link that carried packets")
check(len(hp) == len(fp) > 1000, f"{len(hp)} packets in both captures")
check(all(c < o and c <= 128 for _, c, o in hp if o > 200), "headers only: data packets cut to their headers (<= 128 B)")
check(all(c == o for _, c, o in fp), "--pcap-snaplen full: whole packets")
check([o for _, _, o in hp] == [o for _, _, o in fp], "original lengths equal in both")
import os
hs, fs = os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[2])
check(fs > 10 * hs, f"header-only file {hs} B vs {fs} B whole")
sys.exit(0 if ok else 1)
PY
    then ok "$kind pcapng: interfaces per link, headers only with --pcap-snaplen headers"; else fail "$kind pcapng structure"; fi
    if command -v tshark >/dev/null 2>&1; then
        for snap in headers full; do
            tshark -r "$OUT/$kind-$snap.pcapng" -T fields -e frame.interface_name \
                -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
                -e infiniband.aeth.syndrome 2>/dev/null >"$OUT/$kind-$snap.tsv"
        done
        n=$(grep -c . "$OUT/$kind-headers.tsv")
        if [ "$n" -gt 1000 ] && cmp -s "$OUT/$kind-headers.tsv" "$OUT/$kind-full.tsv" &&
            grep -q "^h0->leaf0	6	" "$OUT/$kind-headers.tsv"; then
            ok "tshark: the same $n interface names and BTH/AETH fields with headers only as whole"
        else
            fail "tshark fields differ between headers-only and full ($kind)"
        fi
    fi
done

# The default capture (whole packets) of both fabrics, as a Wireshark user
# first sees it: tshark's summary lines (the Info column) without a
# malformed or invalid-length packet; the .gz twin dissects the same.
if command -v tshark >/dev/null 2>&1; then
    for kind in roce infiniband; do
        "$FAB" run "$R" --set fabric.kind=$kind --pcap "$OUT/def-$kind.pcapng" \
            -o "$OUT/run-def-$kind" >"$OUT/def-$kind.txt" 2>&1 || fail "run --pcap ($kind, default)"
        "$FAB" run "$R" --set fabric.kind=$kind --pcap "$OUT/def-$kind.pcapng.gz" \
            -o "$OUT/run-defgz-$kind" >"$OUT/defgz-$kind.txt" 2>&1 || fail "run --pcap x.gz ($kind)"
        tshark -r "$OUT/def-$kind.pcapng" 2>/dev/null >"$OUT/def-$kind.info"
        tshark -r "$OUT/def-$kind.pcapng.gz" 2>/dev/null >"$OUT/defgz-$kind.info"
        n=$(grep -c . "$OUT/def-$kind.info")
        bad=$(grep -c -E "Malformed|Invalid Packet Length|size limited" "$OUT/def-$kind.info")
        data=$(grep -c "RDMA Write" "$OUT/def-$kind.info")
        if [ "$n" -gt 1000 ] && [ "$bad" = 0 ] && [ "$data" -gt 500 ]; then
            ok "tshark, default capture ($kind): $n frames ($data RDMA writes), none malformed"
        else
            fail "tshark, default capture ($kind): $bad of $n malformed: $(grep -m1 -E "Malformed|Invalid" "$OUT/def-$kind.info")"
        fi
        pb=$(wc -c <"$OUT/def-$kind.pcapng")
        gb=$(wc -c <"$OUT/def-$kind.pcapng.gz")
        if cmp -s "$OUT/def-$kind.info" "$OUT/defgz-$kind.info" && [ $((gb * 20)) -lt "$pb" ] &&
            grep -q "pcapng gzip" "$OUT/defgz-$kind.txt"; then
            ok ".gz capture ($kind): tshark reads the same $n frames from $gb B (plain $pb B)"
        else
            fail ".gz capture ($kind): differs from the plain one or not small ($gb vs $pb B)"
        fi
    done
    "$FAB" run "$R" --set fabric.kind=infiniband --pcap "$OUT/def2.pcapng.gz" -o "$OUT/run-def2" \
        >/dev/null 2>&1
    cmp -s "$OUT/def2.pcapng.gz" "$OUT/def-infiniband.pcapng.gz" &&
        ok ".gz capture: byte-identical on a rerun" || fail ".gz capture differs on a rerun"
    # headers only stays available, and is what Wireshark 4.0 calls malformed
    tshark -r "$OUT/roce-headers.pcapng" 2>/dev/null | grep -q "Invalid Packet Length" &&
        ok "--pcap-snaplen headers: Wireshark's payload check marks cut data packets (documented)" ||
        fail "--pcap-snaplen headers: expected Wireshark's invalid-length mark"
else
    echo "skip: tshark not installed (make deps-test installs it)"
fi

# --pcap-max-bytes: the file stops before the budget, without holes, and says so
"$FAB" run "$R" --pcap "$OUT/budget.pcapng" --pcap-max-bytes 1MiB -o "$OUT/run-budget" \
    >"$OUT/budget.txt" 2>&1
sz=$(wc -c <"$OUT/budget.pcapng")
if [ "$sz" -le 1048576 ] && [ "$sz" -gt 900000 ] && grep -q "capped by --pcap-max-bytes" "$OUT/budget.txt"; then
    ok "--pcap-max-bytes 1MiB: $sz B, capped and said so"
else
    fail "--pcap-max-bytes 1MiB: $sz B: $(cat "$OUT/budget.txt")"
fi
"$FAB" run "$R" --pcap "$OUT/x.pcapng" --pcap-max-bytes 0 -o "$OUT/run-x" 2>/dev/null
[ $? -eq 2 ] && ok "--pcap-max-bytes 0: usage error" || fail "--pcap-max-bytes 0 accepted"

# --pcap-max caps the file and says so; the default cap is documented
"$FAB" run "$R" --pcap "$OUT/cap.pcapng" --pcap-max=100 -o "$OUT/run-cap" >"$OUT/cap.txt" 2>&1
n=$(python3 -c "
import struct,sys
d=open('$OUT/cap.pcapng','rb').read();o=0;n=0
while o<len(d):
    t,l=struct.unpack_from('<II',d,o);n+=t==6;o+=l
print(n)")
if [ "$n" = 100 ] && grep -q "capped by --pcap-max" "$OUT/cap.txt"; then
    ok "--pcap-max 100: 100 packets, capped and said so"
else
    fail "--pcap-max 100 wrote $n packets: $(cat "$OUT/cap.txt")"
fi
"$FAB" help run | grep -q "pcap-max=N .*default 1000000" && ok "help run documents the default cap" ||
    fail "help run: default --pcap-max"
"$FAB" run "$R" --pcap "$OUT/x.pcapng" --pcap-snaplen 10 -o "$OUT/run-x" 2>/dev/null
[ $? -eq 2 ] && ok "--pcap-snaplen 10: usage error" || fail "--pcap-snaplen 10 accepted"

echo "$P passed, $F failed"
[ "$F" -eq 0 ]

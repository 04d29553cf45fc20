#!/bin/sh
# tests/link/check_link_pcap.sh BUILD_DIR
#
# The Ethernet link layer in a capture (docs/outputs.md "pcap"): CBFC credit
# updates are 60-byte frames of EtherType 0x88B5 carrying "CBFC", the class
# and the credits returned; LLR replays are data frames written again (the
# same PSN twice on the lossy link), its ACK/NACK control ordered sets are
# not written. Read back by a small pcapng reader. Ends "N passed, N failed".
B=${1:-build}
FAB="$B/fabsim"
OUT="$B/test-link-pcap"
P=0
F=0
rm -rf "$OUT"
mkdir -p "$OUT"
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }

"$FAB" run scenarios/examples/cbfc-incast.yaml -q --set workload.0.size=256KiB \
    --pcap "$OUT/cbfc.pcapng" -o "$OUT/cbfc" || fail "run cbfc --pcap"
"$FAB" run scenarios/examples/llr-lossy-link.yaml -q --set workload.0.flows.0.size=4MiB \
    --pcap "$OUT/llr.pcapng" --pcap-filter link=leaf0-spine0 -o "$OUT/llr" ||
    fail "run llr --pcap"
if python3 - "$OUT/cbfc.pcapng" "$OUT/cbfc/results.json" "$OUT/llr.pcapng" \
    "$OUT/llr/results.json" <<'PY'; then
import json, struct, sys

def packets(path):
    data = open(path, "rb").read()
    off = 0
    while off < len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if btype == 6:  # Enhanced Packet Block
            caplen = struct.unpack_from("<I", data, off + 20)[0]
            yield struct.unpack_from("<I", data, off + 8)[0], data[off + 28:off + 28 + caplen]
        off += blen

bad = 0
cb = [p for _, p in packets(sys.argv[1]) if p[12:14] == b"\x88\xb5"]
res = json.load(open(sys.argv[2]))["summary"]["link_layer"]
if not cb or len(cb) != res["credit_updates"]:
    print(f"credit frames in the capture {len(cb)}, results say {res['credit_updates']}")
    bad += 1
elif any(len(p) != 60 or p[14:18] != b"CBFC" or p[18] > 3 or
         struct.unpack(">I", p[22:26])[0] == 0 for p in cb):
    print("a credit frame is not 60 bytes of 'CBFC', class 0..3, credits > 0")
    bad += 1
# LLR: data frames on leaf0->spine0 = first sends + replays of that direction.
seen, dup = {}, 0
for ifc, p in packets(sys.argv[3]):
    if p[12:14] != b"\x08\x00" or p[23] != 17:
        continue
    bth = p[42:54]
    if bth[0] not in (0x06, 0x07, 0x08, 0x0A):  # RDMA WRITE first/middle/last/only
        continue
    key = (ifc, struct.unpack(">I", bth[8:12])[0] & 0xFFFFFF)
    dup += key in seen
    seen[key] = 1
llr = json.load(open(sys.argv[4]))["summary"]["link_layer"]
if dup == 0 or dup > llr["llr_replays"]:
    print(f"data frames written twice {dup}, LLR replays {llr['llr_replays']}")
    bad += 1
print(f"{len(cb)} credit frames; {dup} data frames replayed in the capture "
      f"(LLR replays in both directions: {llr['llr_replays']})")
sys.exit(1 if bad else 0)
PY
    ok "CBFC updates and LLR replays in the capture"
else
    fail "CBFC updates and LLR replays in the capture"
fi
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

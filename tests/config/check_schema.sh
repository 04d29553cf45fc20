#!/bin/sh
# tests/config/check_schema.sh BUILD_DIR
#
# `fabsim schema`: a valid draft-07 JSON Schema that accepts every scenario
# in scenarios/ and tests/report/fixture/ and rejects what fabsim rejects
# (an unknown key, a wrong unit, a misspelt enum value, a value out of
# range), and per workload and topology kind what `fabsim validate` refuses:
# each kind's required keys left out, a key of another kind added (the
# schema's if/then per kind), each case checked against fabsim itself.
# Needs python3-jsonschema and python3-yaml (make deps-test); skipped
# without them. Ends with "N passed, N failed".
B=${1:-build}
T=$(mktemp -d /tmp/fabsim-schema-XXXXXX)
if ! "$B/fabsim" schema >"$T/schema.json"; then
    echo "FAIL: fabsim schema exits non-zero"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! python3 -c "import jsonschema, yaml" 2>/dev/null; then
    echo "SKIP: python3-jsonschema or python3-yaml missing (make deps-test)"
    if python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/schema.json"; then
        echo "ok: fabsim schema prints JSON"
        echo "1 passed, 0 failed"
        exit 0
    fi
    echo "FAIL: fabsim schema does not print JSON"
    echo "0 passed, 1 failed"
    exit 1
fi
python3 - "$T/schema.json" "$B/fabsim" "$T" <<'PY'
import glob, json, os, subprocess, sys
import jsonschema, yaml

schema = json.load(open(sys.argv[1]))
P = F = 0
def check(ok, what):
    global P, F
    print(("ok: " if ok else "FAIL: ") + what)
    P += ok
    F += not ok

try:
    jsonschema.Draft7Validator.check_schema(schema)
    check(True, "a valid draft-07 schema")
except jsonschema.SchemaError as e:
    check(False, f"schema error: {e.message}")
v = jsonschema.Draft7Validator(schema)
files = sorted(glob.glob("scenarios/**/*.yaml", recursive=True) +
               glob.glob("tests/report/fixture/**/*.yaml", recursive=True))
# Not scenarios: a lab's definition (lab.yaml) and topology files
# (topology: {kind: file}, a top-level nodes: list).
docs = {f: yaml.safe_load(open(f)) or {} for f in files}
files = [f for f in files if os.path.basename(f) != "lab.yaml" and
         not (isinstance(docs[f], dict) and "nodes" in docs[f])]
bad = []
for f in files:
    errs = list(v.iter_errors(docs[f]))
    if errs:
        bad.append(f"{f}: {errs[0].json_path}: {errs[0].message[:120]}")
check(not bad and len(files) > 40, f"all {len(files)} scenarios validate" + ("".join("\n  " + b for b in bad[:5])))

base = {"name": "x", "fabric": {"kind": "roce", "link": "100Gbps"},
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2},
        "workload": [{"kind": "permutation", "size": "1MiB"}]}
check(not list(v.iter_errors(base)), "a small scenario validates")
def rejects(mut, what):
    doc = json.loads(json.dumps(base))
    mut(doc)
    check(bool(list(v.iter_errors(doc))), "rejects " + what)
rejects(lambda d: d.update(topolgy=d.pop("topology")), "an unknown key (topolgy)")
rejects(lambda d: d["fabric"].update(link="400Gbit"), "an unknown unit (400Gbit)")
rejects(lambda d: d["fabric"].update(kind="ethernet"), "an enum value fabric.kind: ethernet")
rejects(lambda d: d["topology"].update(leaves=-1), "a negative count")
rejects(lambda d: d["workload"][0].update(sizee="1MiB"), "an unknown key in a list item")

# Per kind: the editor (the schema) and fabsim agree, entry by entry.
fab, tmp = sys.argv[2], sys.argv[3]
def fabsim_ok(doc):
    path = os.path.join(tmp, "case.yaml")
    with open(path, "w") as f:
        json.dump(doc, f)
    r = subprocess.run([fab, "validate", "--quiet", path], capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()
def schema_ok(doc):
    errs = list(v.iter_errors(doc))
    return not errs, (errs[0].message[:100] if errs else "")
def agree(doc, want, what):
    f_ok, f_msg = fabsim_ok(doc)
    s_ok, s_msg = schema_ok(doc)
    good = f_ok == want and s_ok == want
    check(good, f"{what}: fabsim {'accepts' if f_ok else 'refuses'}, schema "
          f"{'accepts' if s_ok else 'refuses'}" + ("" if good else f" ({f_msg} | {s_msg})"))
    return good

WL = {
    "flows": {"flows": [{"src": "h0", "dst": "h1", "size": "1MiB"}]},
    "permutation": {"size": "1MiB", "shift": 1},
    "incast": {"senders": ["h1", "h2"], "receiver": "h0", "size": "1MiB"},
    "alltoall": {"size": "64KiB"},
    "poisson": {"load": 0.5, "senders": 2, "receiver": "h0", "duration": "10us", "packet": "4KiB"},
    "allreduce": {"size": "1MiB"},
    "allgather": {"size": "1MiB"},
    "reducescatter": {"size": "1MiB"},
    "broadcast": {"size": "1MiB"},
    "training": {"size": "1MiB"},
    "nccl_tests": {"op": "all_reduce"},
    "moe": {},
    "inference": {"interval": "1ms"},
}
kinds = schema["properties"]["workload"]["items"]["properties"]["kind"]["enum"]
check(set(WL) | {"chakra"} == set(kinds), f"an example for every workload kind ({len(kinds)})")
foreign = {"flows": ("flows", [{"src": "h0", "dst": "h1", "size": "1MiB"}]),
           "incast": ("receiver", "h0"), "poisson": ("duration", "10us"),
           "chakra": ("path", "trace.et"), "training": ("bucket", "1MiB"),
           "nccl_tests": ("op", "all_reduce"), "permutation": ("shift", 2),
           "moe": ("experts", 4), "inference": ("prompt_tokens", 128)}
fbase = json.loads(json.dumps(base))
fbase["workload"] = [{"kind": "permutation", "size": "1MiB", "shift": 1}]
def with_wl(entry):
    doc = json.loads(json.dumps(fbase))
    doc["workload"] = [entry]
    return doc
cases = 0
for kind, keys in WL.items():
    entry = dict(kind=kind, **keys)
    if not agree(with_wl(entry), True, f"workload {kind}"):
        continue
    for k in keys:  # each key this example gives is one the kind requires
        if (kind, k) in (("permutation", "shift"), ("poisson", "packet")):
            continue
        e = {a: b for a, b in entry.items() if a != k}
        agree(with_wl(e), False, f"workload {kind} without '{k}'")
        cases += 1
    for other, (k, val) in foreign.items():
        if k in entry or other == kind:
            continue
        agree(with_wl(dict(entry, **{k: val})), False, f"workload {kind} with {other}'s '{k}'")
        cases += 1
agree(with_wl({"kind": "incast", "flows": [{"src": "h0", "dst": "h1", "size": "1MiB"}],
               "algorithm": "ring"}), False, "issue 31's {kind: incast, flows, algorithm}")

TOPO = {"single_switch": {"hosts": 4}, "leaf_spine": {"leaves": 2, "spines": 2, "hosts_per_leaf": 2},
        "fat_tree": {"k": 4}, "ring": {"switches": 3, "hosts_per_switch": 1},
        "rail_optimized": {"hosts": 2, "gpus_per_host": 2, "spines": 2}}
for kind, keys in TOPO.items():
    doc = json.loads(json.dumps(fbase))
    doc["topology"] = dict(kind=kind, **keys)
    if not agree(doc, True, f"topology {kind}"):
        continue
    for other, k in (("leaf_spine", "leaves"), ("fat_tree", "k"), ("ring", "switches")):
        if other == kind:
            continue
        d2 = json.loads(json.dumps(doc))
        d2["topology"][k] = TOPO[other][k]
        agree(d2, False, f"topology {kind} with {other}'s '{k}'")
doc = json.loads(json.dumps(fbase))
doc["fabric"] = {"kind": "infiniband", "buffer_sharing": "shared"}
agree(doc, False, "fabric infiniband with roce's 'buffer_sharing'")
doc["fabric"] = {"buffer_sharing": "shared"}
agree(doc, False, "fabric (infiniband by default) with roce's 'buffer_sharing'")
doc["fabric"] = {"kind": "roce", "ibcc": {}}
agree(doc, False, "fabric roce with infiniband's 'ibcc'")

link = schema["properties"]["fabric"]["properties"]["link"]
check("Default: 400Gbps" in link.get("description", ""), "defaults and sources in descriptions")
print(f"{P} passed, {F} failed")
sys.exit(1 if F else 0)
PY
rc=$?
rm -rf "$T"
exit $rc

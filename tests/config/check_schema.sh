#!/bin/sh
# tests/config/check_schema.sh BUILD_DIR
#
# `fabsim schema`: a valid draft-07 JSON Schema that accepts every scenario
# in scenarios/ and tests/report/fixture/ and rejects what fabsim rejects
# (an unknown key, a wrong unit, a misspelt enum value, a value out of
# range). Needs python3-jsonschema and python3-yaml (make deps-test); skipped
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
python3 - "$T/schema.json" <<'PY'
import glob, json, os, sys
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
link = schema["properties"]["fabric"]["properties"]["link"]
check("Default: 400Gbps" in link.get("description", ""), "defaults and sources in descriptions")
print(f"{P} passed, {F} failed")
sys.exit(1 if F else 0)
PY
rc=$?
rm -rf "$T"
exit $rc

#!/bin/sh
# tests/config/check_layout.sh [BUILD_DIR]
#
# The layout rule of docs/model.md "Layout": config -> model, never the
# reverse. The model's modules own their parameter structs in their own
# headers (net/params.h gathers them) and no file of theirs (nor of par/
# and stats/, which run the model and write its results) includes a
# config/ header or names config's struct scenario; config/ fills the
# model's structs (config/scenario_model.c). Also checks that the check
# itself catches a violation (a planted include), and that every header
# holding parameter structs compiles on its own. Run from the repository
# root; ends with "N passed, N failed".
P=0
F=0
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }

MODEL="net flowctl route cc coll innet ctrl workload par stats"

# Lines of the model that include config/ or name struct scenario.
violations() { # DIR...
    for d in "$@"; do
        grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"config/|struct scenario\b' \
            --include='*.c' --include='*.h' "$d"
    done
}

for m in $MODEL; do
    if [ ! -d "src/$m" ]; then
        fail "src/$m is missing (run from the repository root)"
        continue
    fi
    v=$(violations "src/$m")
    if [ -z "$v" ]; then
        ok "src/$m includes nothing from config/"
    else
        fail "src/$m depends on config/ (config -> model, never the reverse; docs/model.md \"Layout\"):"
        echo "$v"
    fi
done

# The check can fail: a planted include and a planted struct scenario are found.
T=$(mktemp -d /tmp/fabsim-layout-XXXXXX)
mkdir -p "$T/cc"
printf '#include "cc/cc.h"\n  #include "config/scenario.h"\n' >"$T/cc/planted.c"
printf 'struct scenario;\n' >"$T/cc/planted.h"
n=$(violations "$T/cc" | wc -l)
if [ "$n" -eq 2 ]; then
    ok "a planted config/ include and struct scenario are caught"
else
    fail "the check found $n of 2 planted violations"
fi
rm -rf "$T"

# Headers with parameter structs compile on their own (STYLE.md rule 5).
CC=${CC:-cc}
if command -v "$CC" >/dev/null; then
    for h in net/params.h cc/cc.h flowctl/flowctl.h flowctl/credit.h route/route.h ctrl/ctrl.h \
        topo/topo.h coll/coll.h workload/workload.h; do
        if printf '#include "%s"\n' "$h" | "$CC" -std=c11 -Wall -Wextra -Werror -Isrc \
            -fsyntax-only -x c - 2>/dev/null; then
            ok "src/$h compiles on its own"
        else
            fail "src/$h does not compile on its own"
        fi
    done
fi

echo "$P passed, $F failed"
[ "$F" -eq 0 ]

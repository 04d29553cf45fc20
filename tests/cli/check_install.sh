#!/bin/sh
# tests/cli/check_install.sh BUILD_DIR
#
# `make install`: into a temporary PREFIX, then, from a folder outside the
# source tree, the installed fabsim runs two course labs and writes a report
# with the chart library inlined (found in PREFIX/share/fabsim, not in the
# source tree); the man page renders; a program compiles against the
# installed headers and library. DESTDIR stages the same tree. Ends with
# "N passed, N failed".
B=${1:-build}
P=0
F=0
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }
SRC=$(pwd)
T=$(mktemp -d /tmp/fabsim-install-XXXXXX)
PFX="$T/prefix"
unset FABSIM_WEB_DIR FABSIM_DATA_DIR

if make -s --no-print-directory BUILD="$B" install PREFIX="$PFX" >"$T/make.log" 2>&1; then
    ok "make install PREFIX=$PFX"
else
    cat "$T/make.log"
    fail "make install"
fi
missing=""
for f in bin/fabsim lib/libfabsim.a include/fabsim/model/model.h include/fabsim/config/scenario.h \
    share/man/man1/fabsim.1 share/fabsim/web/report.js share/fabsim/web/report.css \
    share/fabsim/web/node_modules/vega/build/vega.min.js share/fabsim/web/node_modules/vega/LICENSE \
    share/fabsim/scenarios/labs/lossless/01-incast-ib-credit.yaml \
    share/fabsim/scenarios/examples/incast.yaml share/fabsim/docs/labs/lossless.md; do
    [ -f "$PFX/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "installed: binary, library, headers, man page, web assets, labs" ||
    fail "not installed:$missing"

# From outside the source tree: labs and the report find their files in PREFIX.
mkdir -p "$T/elsewhere"
cd "$T/elsewhere" || exit 1
"$PFX/bin/fabsim" labs --only lossless/incast-ib-credit --only lossless/incast-roce-pfc \
    -o out -q >"$T/labs.log" 2>&1
rc=$?
size=$(wc -c <out/report.html 2>/dev/null || echo 0)
if [ "$rc" -eq 0 ] && [ "$size" -gt 500000 ] && grep -q "vega-embed" out/report.html &&
    [ -f out/lossless/01-incast-ib-credit/results.json ] && [ -f out/lossless/lab.md ]; then
    ok "installed fabsim labs from $T/elsewhere: 2 scenarios, report.html $size B with the charts"
else
    cat "$T/labs.log"
    fail "installed fabsim labs (rc $rc, report $size B)"
fi
"$PFX/bin/fabsim" run "$PFX/share/fabsim/scenarios/examples/incast.yaml" -o run -q &&
    [ -f run/results.json ] && ok "installed fabsim runs an installed example" ||
    fail "installed fabsim run"
# FABSIM_WEB_DIR overrides the installed web assets (a copy with a marker).
cp -r "$PFX/share/fabsim/web" "$T/web2"
echo "/* fabsim-web-dir-marker */" >>"$T/web2/report.css"
FABSIM_WEB_DIR="$T/web2" "$PFX/bin/fabsim" report out -q &&
    grep -q "fabsim-web-dir-marker" out/report.html && ok "FABSIM_WEB_DIR overrides the web assets" ||
    fail "FABSIM_WEB_DIR"
cd "$SRC" || exit 1

if command -v man >/dev/null 2>&1; then
    if MANWIDTH=80 man -l "$PFX/share/man/man1/fabsim.1" 2>/dev/null | grep -q "pcap-snaplen"; then
        ok "man -l fabsim.1 renders every option"
    else
        fail "man page does not render"
    fi
else
    grep -q '^\.TH FABSIM 1' "$PFX/share/man/man1/fabsim.1" && ok "fabsim.1 is a man page" ||
        fail "fabsim.1"
fi

# The library and headers: a program loads a scenario and runs it.
cat >"$T/use.c" <<'C'
#include "config/scenario.h"
#include "core/diag.h"
#include "model/model.h"
#include <stdio.h>
int main(int argc, char **argv) {
    struct scenario sc;
    struct diag d = {0};
    if (argc < 2 || scenario_load(&sc, argv[1], NULL, 0, &d)) return 2;
    struct model m;
    if (model_build(&m, &sc, &d)) return 2;
    model_run(&m, NULL, NULL);
    printf("completed %d\n", m.completed);
    model_fini(&m);
    scenario_fini(&sc);
    return 0;
}
C
case "$B" in *check*) SAN="-fsanitize=address,undefined" ;; *) SAN="" ;; esac
if ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -I"$PFX/include/fabsim" "$T/use.c" \
    "$PFX/lib/libfabsim.a" -lfyaml -lprotobuf-c -lz -lm $SAN -o "$T/use" 2>"$T/cc.log" &&
    "$T/use" "$PFX/share/fabsim/scenarios/examples/incast.yaml" | grep -q "completed 1"; then
    ok "a program builds against include/fabsim and lib/libfabsim.a and runs a scenario"
else
    cat "$T/cc.log"
    fail "building against the installed library"
fi

# DESTDIR stages the same layout under PREFIX.
if make -s --no-print-directory BUILD="$B" install DESTDIR="$T/stage" PREFIX=/usr/local \
    >"$T/make2.log" 2>&1 && [ -x "$T/stage/usr/local/bin/fabsim" ] &&
    [ -f "$T/stage/usr/local/share/fabsim/web/report.js" ]; then
    ok "make install DESTDIR=... PREFIX=/usr/local stages the tree"
else
    cat "$T/make2.log"
    fail "make install DESTDIR"
fi
rm -rf "$T"
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

#!/bin/sh
# tests/net/check_layers.sh BUILD: docs/architecture.md's layering, as
# `make lint` checks it (tools/layers.py --layers), holds on src/, and the
# check fails when one of the edges cut for issue 33 comes back: net/
# comparing an ops table's address (net/switch.h -> flowctl/pfc.c), net/
# freeing the FIB (net/net.c -> route/fib.c), a fast-path header calling its
# own .c (flowctl/pfc-inl.h -> flowctl/pfc.c), net/params.h embedding a
# module's header instead of its *_params.h (route/route.h).
. "$(dirname "$0")/../lib.sh"
L="python3 $ROOT/tools/layers.py"

$L --layers >"$T/out" 2>&1
check "src/ keeps the layers (tools/layers.py --layers)" [ $? -eq 0 ]
check "no module circle across folders" sh -c "! grep -q 'circle across folders' '$T/out'"

# break COPY-NAME FILE SED-EXPR WHAT: a copy of src/ with FILE edited must fail
# the check with WHAT in its report
broken() {
    rm -rf "$T/src" && cp -r "$ROOT/src" "$T/src"
    sed -i "$3" "$T/src/$2"
    if cmp -s "$ROOT/src/$2" "$T/src/$2"; then
        fail "$1: the edit did not apply to $2"
        return
    fi
    $L --src "$T/src" --layers >"$T/out" 2>&1
    rc=$?
    check "$1: exit 1" [ $rc -eq 1 ]
    check "$1: reports '$4'" grep -q "$4" "$T/out"
}
broken "ops-table address in net/" net/switch.h \
    's|n->fc_fast & FLOWCTL_FAST_PFC ? pfc_admit_fast|n->fc == \&flowctl_pfc_ops ? pfc_admit_fast|' \
    'circle across folders: flowctl/pfc net/'
broken "net/ frees the FIB" net/net.c \
    's|^    free(n->lft);|    route_fib_free(n->fib);\n    free(n->lft);|' \
    'circle across folders: net/net route/fib'
broken "fast path calls its .c" flowctl/pfc-inl.h \
    's|return n->fc->admit(n, in_port, out_port, p);|return flowctl_pfc_ops.admit(n, in_port, out_port, p);|' \
    'circle across folders: flowctl/pfc flowctl/pfc-inl'
broken "params embed a module header" net/params.h \
    's|#include "route/route_params.h"|#include "route/route.h"|' \
    'circle across folders:'
finish

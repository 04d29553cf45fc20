# tests/lib.sh: the prelude of the check_*.sh scripts (POSIX sh, sourced as
# `. "$(dirname "$0")/../lib.sh"` with the script's BUILD_DIR as $1).
#
# Sets B (the build folder: $1, or build), FAB (its fabsim, an absolute
# path), ROOT (the folder the script started in) and T (a new temporary
# folder), the counters P and F, and the helpers below; `finish` ends the
# script: removes T, prints "N passed, N failed" and fails when a check did.
B=${1:-build}
FAB="$(cd "$(dirname "$B/fabsim")" && pwd)/fabsim"
ROOT=$(pwd)
T=$(mktemp -d)
P=0
F=0
ok() { echo "ok: $1"; P=$((P + 1)); }
fail() { echo "FAIL: $1"; F=$((F + 1)); }
# check NAME CONDITION-COMMAND...
check() {
    n=$1
    shift
    if "$@"; then ok "$n"; else fail "$n"; fi
}
lines() { wc -l <"$1" | tr -d ' '; }
finish() {
    cd "$ROOT" || exit 1
    rm -rf "$T"
    echo "$P passed, $F failed"
    [ "$F" -eq 0 ]
}

#!/bin/sh
# Runs every cmocka test binary under $1/tests, then the public-contract check
# (../shared/tools/check-contract) when it exists, and ends with one line
# "N passed, N failed". Exit status 1 when anything failed.
B=${1:-build}
P=0
F=0
LOG=$(mktemp)
for t in $(find "$B/tests" -type f -name 'test_*' -perm -u+x | sort); do
    echo "== $t"
    FABSIM_BIN="$B/fabsim" "$t" >"$LOG" 2>&1
    rc=$?
    cat "$LOG"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$LOG" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$LOG" | tail -n 1)
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "!! $t exited with status $rc"
        f=1
    fi
    P=$((P + p))
    F=$((F + f))
done
# Script tests (tests/<module>/check_*.sh BUILD): end-to-end checks through
# the binary, each ending with its own "N passed, N failed" line.
for s in $(find tests -type f -name 'check_*.sh' | sort); do
    echo "== $s"
    sh "$s" "$B" >"$LOG" 2>&1
    rc=$?
    cat "$LOG"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1)
    p=0
    f=1
    if [ -n "$line" ]; then
        p=$(echo "$line" | cut -d' ' -f1)
        f=$(echo "$line" | cut -d' ' -f3)
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
            echo "!! $s exited with status $rc"
            f=1
        fi
    fi
    P=$((P + p))
    F=$((F + f))
done
CC_TOOL=../shared/tools/check-contract
if [ -x "$CC_TOOL" ] || [ -f "$CC_TOOL" ]; then
    echo "== check-contract"
    python3 "$CC_TOOL" "$B/fabsim" >"$LOG" 2>&1
    cat "$LOG"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LOG" | tail -n 1)
    if [ -n "$line" ]; then
        P=$((P + $(echo "$line" | cut -d' ' -f1)))
        F=$((F + $(echo "$line" | cut -d' ' -f3)))
    else
        F=$((F + 1))
    fi
fi
rm -f "$LOG"
echo "$P passed, $F failed"
[ "$F" -eq 0 ]

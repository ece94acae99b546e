#!/bin/sh
# Instructions a weighted-histogram call of 1,024 samples takes on PoCL and
# on the host fallback: callgrind over 1 and 1,001 calls, the difference
# over 1,000. BUILD names a build tree of the library (default /tmp/b).
set -eu
b=${BUILD:-/tmp/b}
src=$(sed -n "s/^abs_top_srcdir = //p" "$b/Makefile")
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cc -O2 -I"$src/include" -I"$b/include" "$here/weighted.c" -o "$t/weighted" \
    -L"$b/.libs" -Wl,-rpath,"$b/.libs" -lgpgpu
for dev in pocl host; do
    for calls in 1 1001; do
        if [ $dev = host ]; then export GPGPU_DEVICE=host; else unset GPGPU_DEVICE; fi
        valgrind --tool=callgrind --callgrind-out-file="$t/cg.$dev.$calls" "$t/weighted" $calls \
            > "$t/out" 2> "$t/err"
        ir=$(sed -n 's/.*I *refs: *//p' "$t/err" | tr -d ,)
        echo "$dev $calls $ir $(cat "$t/out")"
    done
    callgrind_annotate "$t/cg.$dev.1001" 2>/dev/null | sed -n '/PROGRAM TOTALS/,/^$/p;/file:function/,+6p' \
        > "$here/annotate-$dev.txt"
done | awk '{print} $2 == 1 {one[$1] = $3} $2 == 1001 {printf "%s: %.0f instructions a call\n", $1, ($3 - one[$1]) / 1000}'

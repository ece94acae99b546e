#!/bin/sh
# Instructions a call of transform_reduce (u32, "x*x", SUM) and select
# (u32, "x > 0") over 1024 elements spend on the host fallback, counted by
# callgrind (deterministic: a loaded machine gives the same counts).
#   BUILD=/path/to/build/tree sh run.sh
# prints the total instructions of 1000 calls each, and of none.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
b=${BUILD:?the build tree}
src=$(cd "$here/../../.." && pwd)
t=$(mktemp -d)
for p in transform_reduce select; do
    gcc -O2 -I"$src/include" -I"$b/include" "$here/$p.c" -o "$t/$p" -L"$b/.libs" -lgpgpu
    for reps in 1000 0; do
        printf '%s n=1024 calls=%s: ' "$p" "$reps"
        LD_LIBRARY_PATH="$b/.libs" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
            "$t/$p" 1024 "$reps" 2>&1 | sed -n 's/.*I *refs: *//p'
    done
done
rm -rf "$t"

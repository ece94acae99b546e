#!/bin/sh
# Instructions and mispredicted branches (callgrind's branch simulation) of
# 200 calls of search_sorted, top_k, run-length encoding and scan, and of
# the serial loops gpgpu-bench times beside them, on the host fallback,
# u32, at 2^10, 2^12 and 2^14 (small.c says what each op does); and of
# none, the program's own cost. Deterministic: a loaded machine gives
# the same counts.
#   BUILD=/path/to/build/tree sh run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
b=${BUILD:?the build tree}
src=$(cd "$here/../../.." && pwd)
t=$(mktemp -d)
gcc -O2 -I"$src/include" -I"$b/include" "$here/small.c" -o "$t/small" -L"$b/.libs" -lgpgpu
for op in search top_k serial_top_k rle serial_rle scan serial_scan; do
    for n in 1024 4096 16384; do
        for reps in 200 0; do
            printf '%s n=%s calls=%s: ' "$op" "$n" "$reps"
            LD_LIBRARY_PATH="$b/.libs" valgrind --tool=callgrind --branch-sim=yes \
                --callgrind-out-file=/dev/null "$t/small" "$op" "$n" "$reps" 2>&1 |
                sed -n 's/.*\(I *refs\|Mispredicts\): *\([0-9,]*\).*/\1 \2/p' | tr '\n' ' '
            echo
        done
    done
done
rm -rf "$t"

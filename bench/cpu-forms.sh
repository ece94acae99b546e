#!/bin/sh
# The PoCL targets of issues 16 and 17, from the build tree, in all three
# forms a program calls (_buffer, host memory, _array), ROUNDS rounds so
# that the median says more than one run on a shared machine. Each case's
# note holds its baseline, timed in the same process on the same data:
# segmented_reduce (1024 a segment) beside gpgpu_reduce, reduce_by_key
# (runs of 64) beside a serial C loop, unique and partition beside
# gpgpu_select, the exact sums beside GPGPU_SUM. JSON lines to
# ${OUT:-.}/pocl-16-17.jsonl; bench/ratios16.py makes the table.
set -u
out=${OUT:-.}
n=${N:-16777216}
: > "$out/pocl-16-17.jsonl"
for round in $(seq ${ROUNDS:-5}); do
    for api in buffer host array; do
        for c in "segmented_reduce --input seg1024" "reduce_by_key --input seg64" "unique" \
                 "partition" "sum_exact --type f32" "sum_exact --type f64"; do
            ./tools/gpgpu-bench --json --repeat ${REPEAT:-9} --n $n --api $api --type u32 --op $c \
                >> "$out/pocl-16-17.jsonl" || echo "failed: $api $c" >&2
        done
    done
done

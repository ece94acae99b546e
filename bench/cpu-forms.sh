#!/bin/sh
# The segmented, by-key, compaction and exact-sum calls on a CPU device
# (PoCL), from the build tree, in all three forms a program calls
# (_buffer, host memory, _array), ROUNDS rounds so
# that the median says more than one run on a shared machine. Each case's
# note holds its baseline, timed in the same process on the same data:
# segmented_reduce (1024 a segment) beside gpgpu_reduce, reduce_by_key
# (runs of 64) beside a serial C loop, unique and partition beside
# gpgpu_select, the exact sums beside GPGPU_SUM. JSON lines to
# ${OUT:-.}/forms.jsonl; python3 bench/table_forms.py forms.jsonl makes the
# table (median and range of each ratio over the rounds).
set -u
out=${OUT:-.}
n=${N:-16777216}
: > "$out/forms.jsonl"
for round in $(seq ${ROUNDS:-5}); do
    for api in buffer host array; do
        for c in "segmented_reduce --input seg1024" "reduce_by_key --input seg64" "unique" \
                 "partition" "sum_exact --type f32" "sum_exact --type f64"; do
            ./tools/gpgpu-bench --json --repeat ${REPEAT:-9} --n $n --api $api --type u32 --op $c \
                >> "$out/forms.jsonl" || echo "failed: $api $c" >&2
        done
    done
done

#!/bin/sh
# The device-array, segmented and unique/partition/exact-sum measurements of
# issues 15-17 on the NVIDIA machine, in one command from the project root
# after `source .gpu/env.sh` (bench/gpu-host-run.sh covers issue 14):
#   - every primitive as a gpgpu_array call next to its _buffer form, n = 2^28
#     u32, median of 10 (the issue-15 target is <= 1.05x);
#   - the README's particle step on arrays against host calls, 2^26 particles;
#   - the segmented, by-key and argmin ops and unique, run-length encode,
#     partition, histogram over edges and exact sums at 2^28;
#   - native CUB's segmented side (.gpu/cub_segmented, built on the CPU
#     machine from bench/cub_segmented.cu) and its unique, run-length
#     encode, partition, select and range histogram (.gpu/cub_select, from
#     bench/cub_select.cu) in the same command.
# JSON lines to $OUT/final.jsonl, the particle step and CUB to text files.
set -u
out=${OUT:-.}
n=${N:-268435456}
: > "$out/final.jsonl"
b() { gpgpu-bench --json --repeat 10 "$@" >> "$out/final.jsonl" 2>> "$out/final-errors.txt"; }
for op in reduce scan sort sort_pairs histogram transform_reduce select; do
    b --op $op --type u32 --n $n --api buffer
    b --op $op --type u32 --n $n --api array
done
.gpu/tests/example_particles --n 67108864 > "$out/particles.txt" 2>&1
for input in seg4096 seg64; do
    b --op segmented_reduce --type u32 --n $n --input $input
done
b --op reduce_by_key --type u32 --n $n --input seg8
b --op reduce_by_key --type u32 --n $n --input seg256
b --op argmin --type u32 --n $n
b --op segmented_scan --type u32 --n $n --input seg4096
for op in unique run_length_encode partition; do
    b --op $op --type u32 --n $n
done
b --op histogram_edges --type f32 --n $n --bins 256
b --op sum_exact --type f32 --n $n
b --op sum_exact --type f64 --n $((n / 2))
[ -x .gpu/cub_segmented ] && .gpu/cub_segmented 28 > "$out/cub_segmented.txt" 2>&1
[ -x .gpu/cub_select ] && .gpu/cub_select 28 > "$out/cub_select.txt" 2>&1
[ -x .gpu/cub_native ] && .gpu/cub_native 28 > "$out/cub_native.txt" 2>&1
echo done

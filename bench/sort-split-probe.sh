#!/bin/sh
# 64-bit keys through __local memory by 32-bit halves (GPGPU_SORT_SPLIT=1,
# tiles of up to 8192 keys) against whole keys (=0, tiles of 4608), on one
# GPU in one command, with native CUB and the kernels' registers. From the
# repository root on the GPU machine, after ../shared/gpu/prepare --build:
#   source .gpu/env.sh; OUT=dir sh bench/sort-split-probe.sh
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_start "$o"
row() { probe_row "$o" "$@"; } # env, then gpgpu-bench's arguments
for lg in 24 28; do
    for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=1 "GPGPU_SORT_SPLIT=1 GPGPU_SORT_TILE=7168" \
             "GPGPU_SORT_SPLIT=1 GPGPU_SORT_TILE=6144"; do
        row "$e" --op sort --type u64 --n $((1 << lg))
    done
done
for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=1; do
    row "$e" --op sort --type f64 --n $((1 << 28))
    row "$e" --op sort --type u64 --input narrow16 --n $((1 << 28))
    row "$e" --op argsort --type u64 --n $((1 << 28))
done
# a second round of the main pair
for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=1; do
    row "$e" --op sort --type u64 --n $((1 << 28))
done
for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=1; do
    for f in "sort --type u64" "argsort --type u64"; do
        echo "# $e $f" >> "$o/regs.txt"
        env $e sh bench/ptx-regs.sh --op $f --n 1048576 >> "$o/regs.txt" 2>&1
    done
    echo "# $e" >> "$o/profile.txt"
    env $e GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 --api buffer --op sort --type u64 \
        --n $((1 << 28)) >> "$o/profile.txt" 2>&1
done
probe_cub_run "$o" 24 28

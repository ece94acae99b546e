#!/bin/sh
# 64-bit keys through __local memory by 32-bit halves (GPGPU_SORT_SPLIT=2,
# the NVIDIA plan: with 4-byte values, tiles of 7168 pairs; =1 keys alone
# too, tiles of 8192) against whole keys (=0, tiles of 4608), on one GPU
# in one command, with native CUB, each kernel's time at 2^28 and the
# kernels' registers. From the repository root on the GPU machine, after
# ../shared/gpu/prepare --build:
#   source .gpu/env.sh; OUT=dir sh bench/sort-split-probe.sh
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_start "$o"
row() { probe_row "$o" "$@"; } # env, then gpgpu-bench's arguments
# keys with 4-byte values, where the NVIDIA plan splits (=2), twice
for round in 1 2; do
    for lg in 24 28; do
        for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=2; do
            row "$e" --op argsort --type u64 --n $((1 << lg))
            row "$e" --op sort_pairs --type u64 --n $((1 << lg))
        done
    done
done
for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=2; do
    row "$e" --op argsort --type f64 --n $((1 << 28))
    row "$e" --op sort_pairs --type i64 --input narrow16 --n $((1 << 28))
done
# keys alone, where it does not (=1 forces it), once
for lg in 24 28; do
    for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=1; do
        row "$e" --op sort --type u64 --n $((1 << lg))
    done
done
for e in GPGPU_SORT_SPLIT=0 GPGPU_SORT_SPLIT=2; do
    for f in "sort_pairs --type u64" "argsort --type u64"; do
        echo "# $e $f" >> "$o/regs.txt"
        env $e sh bench/ptx-regs.sh --op $f --n 1048576 >> "$o/regs.txt" 2>&1
        echo "# $e $f" >> "$o/profile.txt"
        env $e GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 --api buffer --op $f \
            --n $((1 << 28)) >> "$o/profile.txt" 2>&1
    done
done
probe_cub_run "$o" 24 28

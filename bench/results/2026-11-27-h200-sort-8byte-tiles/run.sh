#!/bin/sh
# Tiles of the GPU sort's 8-byte forms (u64 keys, u32/u32 pairs) against
# the plan's, on one GPU in one command, with native CUB and the kernels'
# registers. From the repository root on the GPU machine, after
# ../shared/gpu/prepare --build:
#   source .gpu/env.sh; OUT=dir sh bench/results/2026-11-27-h200-sort-8byte-tiles/run.sh
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_cub_start "$o"
for round in 1 2; do
    for lg in 24 28; do
        for tile in default 2048 3072 4096; do
            e=; [ $tile = default ] || e="GPGPU_SORT_TILE=$tile"
            env $e gpgpu-bench --json --repeat 10 --op sort --type u64 --n $((1 << lg)) \
                2>> "$o/err.txt" | sed "s|^{|{\"env\": \"$e\", |" >> "$o/ours.jsonl"
        done
        for tile in default 4096 5120 6144; do
            e=; [ $tile = default ] || e="GPGPU_SORT_TILE=$tile"
            env $e gpgpu-bench --json --repeat 10 --op sort_pairs --type u32 --n $((1 << lg)) \
                2>> "$o/err.txt" | sed "s|^{|{\"env\": \"$e\", |" >> "$o/ours.jsonl"
        done
    done
done
for f in "sort --type u64" "sort_pairs --type u32" "sort --type u32"; do
    sh bench/ptx-regs.sh --op $f --n 1048576 >> "$o/regs.txt" 2>&1
done
GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 --op sort --type u64 --n $((1 << 28)) > "$o/profile.txt" 2>&1
GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 --op sort_pairs --type u32 --n $((1 << 28)) >> "$o/profile.txt" 2>&1
probe_cub_run "$o" 24 28

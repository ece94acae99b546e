#!/bin/sh
# The sort's first read (sort_bits: the digit counts of every key) with
# one, two and four copies of its __local counts (GPGPU_SORT_COUNT_PARTS),
# on one GPU in one command, beside native CUB: random keys, and narrow
# keys (below 2^16: the high digits the same in every key, every lane of a
# warp on one bin). From the repository root on the GPU machine, after
# ../shared/gpu/prepare --build:
#   source .gpu/env.sh; OUT=dir sh bench/sort-count-probe.sh
# ours.jsonl: gpgpu-bench's lines, each with the env it ran under;
# profile.txt: each kernel's time (GPGPU_PROFILE) at 2^28, sort_bits the
# first read; cub.jsonl: CUB at 2^24 and 2^28.
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_start "$o"
row() { probe_row "$o" "$@"; } # env, then gpgpu-bench's arguments
for round in 1 2; do
    for p in 1 2 4; do
        for t in u32 u64; do
            for lg in 24 28; do
                row "GPGPU_SORT_COUNT_PARTS=$p" --op sort --type $t --n $((1 << lg))
            done
            row "GPGPU_SORT_COUNT_PARTS=$p" --op sort --type $t --input narrow16 --n $((1 << 28))
        done
        [ $round = 1 ] && row "GPGPU_SORT_COUNT_PARTS=$p" --op sort_pairs --type u32 --n $((1 << 28))
    done
done
for p in 1 2 4; do
    for a in "--type u32" "--type u64" "--type u32 --input narrow16"; do
        echo "# GPGPU_SORT_COUNT_PARTS=$p $a" >> "$o/profile.txt"
        env GPGPU_SORT_COUNT_PARTS=$p GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 \
            --api buffer --op sort $a --n $((1 << 28)) >> "$o/profile.txt" 2>&1
    done
done
probe_cub_run "$o" 24 28

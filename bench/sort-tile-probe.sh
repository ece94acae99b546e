#!/bin/sh
# The tiled sort's tile size against n, on one GPU, in one device command:
# sort u32 (and sort_pairs u32) at n = 2^18 .. 2^24 with GPGPU_SORT_TILE
# 2048, 4096 and 8192 keys, the kernel times of one call at 2^20 and 2^28,
# then native CUB on the same GPU. Run on the GPU machine, after
# ../shared/gpu/prepare --build and bench/gpu-stage-tests.sh here:
#   source .gpu/env.sh; sh bench/sort-tile-probe.sh
# -> $OUT/device.txt, tests.txt, ours.jsonl, profile.txt, cub.jsonl
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_start "$o"
probe_tests "$o/tests.txt" ${TESTS:-test_sort}
b() { timeout 120 gpgpu-bench --json --repeat 20 "$@" >> "$o/ours.jsonl" 2>> "$o/err.txt"; }
for lg in 18 20 22 24; do
    for tile in 2048 4096 8192; do
        for op in sort sort_pairs; do
            GPGPU_SORT_TILE=$tile b --op $op --type u32 --n $((1 << lg))
        done
    done
done
for lg in 20 28; do
    GPGPU_PROFILE=1 timeout 120 gpgpu-bench --repeat 1 --op sort --type u32 --n $((1 << lg)) \
        >> "$o/profile.txt" 2>&1
done
probe_cub_run "$o" 18 20 22 24 28

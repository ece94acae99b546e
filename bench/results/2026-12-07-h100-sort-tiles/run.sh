#!/bin/sh
# On the GPU machine, from the project root: source .gpu/env.sh; OUT=dir sh THIS
set -u
. bench/probe-lib.sh
mkdir -p "$OUT"
probe_device "$OUT/device.txt"
probe_cub_start "$OUT"
for round in 1 2; do
    for t in 8192 6144 4096 2048; do
        for lg in 18 20 22 24; do
            echo "# round=$round tile=$t"
            GPGPU_SORT_TILE=$t gpgpu-bench --json --repeat 10 --api buffer --op sort --type u32 --n $((1 << lg))
        done
        for lg in 20 24; do
            echo "# round=$round tile=$t pairs"
            GPGPU_SORT_TILE=$t gpgpu-bench --json --repeat 10 --api buffer --op sort_pairs --type u32 --n $((1 << lg))
        done
    done
done > "$OUT/ours.jsonl" 2>&1
probe_cub_run "$OUT" 18 20 22 24

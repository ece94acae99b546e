#!/bin/sh
# PoCL's search_sorted on the host's code against its kernels
# (GPGPU_HOST_BELOW=search=all | =0), and the fallback's, 2^10 .. 2^24
# u32 and f32 needles in as many sorted keys; from a build tree:
#   OUT=dir [ROUNDS=2] sh crossover.sh
# python3 table.py dir/crossover.jsonl prints of_serial per route.
set -eu
out=${OUT:?}
mkdir -p "$out"
r=1
while [ "$r" -le "${ROUNDS:-2}" ]; do
    for route in all 0; do
        GPGPU_HOST_BELOW=search=$route ./tools/gpgpu-bench --api host --op search_sorted \
            --sizes 10,12,14,16,18,20,22,24 --repeat 7 --json |
            sed "s/^{/{\"route\":\"$route\",\"round\":$r,/"
    done
    GPGPU_DEVICE=host ./tools/gpgpu-bench --api host --op search_sorted \
        --sizes 10,12,14,16,18,20,22,24 --repeat 7 --json |
        sed "s/^{/{\"route\":\"fallback\",\"round\":$r,/"
    r=$((r + 1))
done > "$out/crossover.jsonl"

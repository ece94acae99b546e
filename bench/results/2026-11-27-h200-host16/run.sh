#!/bin/bash
# The host fallback (GPGPU_DEVICE=host) against its serial C loops on a GPU
# machine's 16 host cores: the standard table's host calls at 2^10..2^24,
# then reduce, scan, histogram and sort of 2^26 u32. On the GPU machine,
# after ../shared/gpu/prepare --build:
#   source .gpu/env.sh; OUT=dir bash bench/results/2026-11-27-h200-host16/run.sh
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
nproc >> "$o/device.txt"
GPGPU_DEVICE=host timeout 400 gpgpu-bench --api host --sizes 10,12,14,16,18,20,22,24 \
    --repeat 5 --json > "$o/loop-host.jsonl" 2>> "$o/err.txt"
for op in reduce scan histogram sort; do
    GPGPU_DEVICE=host timeout 150 gpgpu-bench --api host --op $op --type u32 \
        --n $((1 << 26)) --repeat 5 --json >> "$o/host-2p26.jsonl" 2>> "$o/err.txt"
done

#!/bin/sh
# The GPU benchmark of issues 7 and 18, in one command on the NVIDIA machine
# (from the project root, after `source .gpu/env.sh`): gpgpu-bench for every
# primitive at n = 2^20, 2^24, 2^26, 2^28 (u32 and f32; exclusive scans and
# u64 sorts too), then CUB through CuPy and PyTorch at the same sizes, then
# native CUB: .gpu/cub_issue18 (build it on the CPU machine first:
#   nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_issue18.cu -o .gpu/cub_issue18)
# for scan, sorts and histograms at 2^20, 2^24, 2^28, and the shared
# cub_native at 2^28. Writes JSON lines to $OUT/ours.jsonl, $OUT/peers.jsonl
# and $OUT/cub.jsonl, native CUB's text to $OUT/cub.txt.
#   bench/ratios.py ours.jsonl peers.jsonl cub.jsonl > table.md
# Median of 5 per case: the host-side setup and checks of each case take
# seconds at 2^28, and device time is scarce.
set -u
out=${OUT:-.}
: > "$out/ours.jsonl"
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    gpgpu-info | grep -E "^plan|default device"
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/device.txt" 2>&1
for lg in 20 24 26 28; do
    n=$((1 << lg))
    for t in u32 f32; do
        for op in reduce scan sort sort_pairs; do
            gpgpu-bench --op $op --type $t --n $n --repeat 5 --json >> "$out/ours.jsonl"
        done
    done
    gpgpu-bench --op scan --type u32 --input exclusive --n $n --repeat 5 --json >> "$out/ours.jsonl"
    gpgpu-bench --op histogram --type f32 --bins 256 --n $n --repeat 5 --json >> "$out/ours.jsonl"
    gpgpu-bench --op histogram --type u32 --bins 4096 --n $n --repeat 5 --json >> "$out/ours.jsonl"
done
gpgpu-bench --op sort --type u64 --n $((1 << 28)) --repeat 5 --json >> "$out/ours.jsonl"
gpgpu-bench --op sort --type u32 --input sorted --n $((1 << 28)) --repeat 5 --json >> "$out/ours.jsonl"
gpgpu-bench --op sort --type u32 --input narrow16 --n $((1 << 28)) --repeat 5 --json >> "$out/ours.jsonl"
GPGPU_PROFILE=1 gpgpu-bench --op scan --type u32 --n $((1 << 28)) --repeat 1 > /dev/null 2> "$out/profile.txt"
GPGPU_PROFILE=1 gpgpu-bench --op sort --type u32 --n $((1 << 28)) --repeat 1 > /dev/null 2>> "$out/profile.txt"
GPGPU_PROFILE=1 gpgpu-bench --op histogram --type f32 --bins 256 --n $((1 << 28)) --repeat 1 > /dev/null 2>> "$out/profile.txt"
python3 .gpu/cub_peers.py 20 24 26 28 > "$out/peers.jsonl" 2>&1
[ -x .gpu/cub_issue18 ] && .gpu/cub_issue18 20 24 28 > "$out/cub.jsonl" 2> "$out/cub-device.txt"
nvcc -O3 -arch=sm_90 -std=c++17 .gpu/cub_native.cu -o /tmp/cub_native 2>/dev/null && /tmp/cub_native 28 > "$out/cub.txt" 2>&1
echo done

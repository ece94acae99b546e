#!/bin/sh
# What a C program's host-memory calls get on the NVIDIA machine (issue 14),
# in one command from the project root after `source .gpu/env.sh`:
# every primitive at n = 2^28 (u32) as the _buffer form on device data
# (kernel events), as the host call on malloc'd arrays (wall clock), and on
# memory from gpgpu_host_alloc (--pinned); reduce and histogram also with
# GPGPU_HOST_READS=1 (the host's threads read pageable memory); then every
# host call at n = 1000. JSON lines go to $OUT/host.jsonl (each host line
# carries the run's pageable and pinned transfer bandwidths);
# bench/host_table.py turns them into the table in bench/results/.
set -u
out=${OUT:-.}
n=${N:-268435456}
: > "$out/host.jsonl"
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    gpgpu-info | grep -E "^plan|default device"
    nproc
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/host-device.txt" 2>&1
b() { gpgpu-bench --json --repeat 7 "$@" >> "$out/host.jsonl" 2>> "$out/host-errors.txt"; }
for op in reduce histogram scan sort sort_pairs; do
    b --op $op --type u32 --n $n --api buffer
    b --op $op --type u32 --n $n --api host
    b --op $op --type u32 --n $n --api host --pinned
done
GPGPU_HOST_READS=1 b --op reduce --type u32 --n $n --api host
GPGPU_HOST_READS=1 b --op histogram --type u32 --n $n --api host
b --op reduce --type f32 --n $n --api host
b --op reduce --type f32 --n $n --api host --pinned
for op in reduce histogram scan sort sort_pairs select transform_reduce; do
    gpgpu-bench --json --repeat 101 --op $op --type u32 --n 1000 --api host >> "$out/host.jsonl" 2>> "$out/host-errors.txt"
done
GPGPU_PROFILE=1 gpgpu-bench --op sort_pairs --type u32 --n $n --api host --repeat 1 > /dev/null 2> "$out/host-profile.txt"
GPGPU_PROFILE=1 gpgpu-bench --op reduce --type u32 --n $n --api host --repeat 1 > /dev/null 2>> "$out/host-profile.txt"
echo done

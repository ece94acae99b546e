#!/bin/sh
# The host fallback's sort with its digit width chosen by the probe
# (GPGPU_SORT_WIDE unset) against either width forced, in turn, twice; then
# bench/mpi.sh's host part. From the project root of a GPU machine, after
# `sh bench/mpi.sh --stage`:
#   source .gpu/env.sh; OUT=dir sh bench/results/2026-11-27-cpu16-host-sort-probe/run.sh
set -u
out=${OUT:-.}
{
    lscpu | grep -E "^Model name|^CPU\(s\)|^NUMA node\(s\)|^Socket"
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/machine.txt"
: > "$out/sort-probe.txt"
for round in 1 2; do
    for wide in unset 0 1; do
        for spec in "1 16777216 sort u32" "1 16777216 sort u64" "16 67108864 sort u32" \
            "16 67108864 sort f32"; do
            # shellcheck disable=SC2086
            set -- $spec
            printf 'GPGPU_SORT_WIDE=%s round %s threads %s: ' "$wide" "$round" "$1" >> "$out/sort-probe.txt"
            (if [ "$wide" != unset ]; then GPGPU_SORT_WIDE=$wide; export GPGPU_SORT_WIDE; fi
                GPGPU_THREADS=$1 gpgpu-bench --device host --api host --op "$3" --type "$4" \
                    --n "$2" --repeat 5 2>&1 | tail -n 1) >> "$out/sort-probe.txt"
        done
    done
done
mkdir -p "$out/mpi"
PARTS=host HOST_SORT_N=16777216 OUT="$out/mpi" sh bench/mpi.sh > /dev/null 2>&1
tar -C "$out" -czf "$out/all.tgz" machine.txt sort-probe.txt mpi

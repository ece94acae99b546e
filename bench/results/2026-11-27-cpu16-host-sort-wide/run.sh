#!/bin/sh
# The host fallback's sort of three installs side by side on one machine
# (gpgpu-bench --device host --api host, each row beside the serial C LSD
# radix sort of the same keys in the same call), each in turn, twice; then
# bench/mpi.sh's host part (host-fallback ranks at 1, 2 and 4 sharing the
# cores) for the last. From the project root of a GPU machine, after
# `sh bench/mpi.sh --stage` (the change, .gpu/install) and installs of the
# baselines (a bin/gpgpu-bench and a lib/libgpgpu.so.1 each):
#   source .gpu/env.sh; INSTALLS=".gpu/before-host .gpu/mid-host .gpu/install" \
#       OUT=dir sh bench/results/2026-11-27-cpu16-host-sort-wide/run.sh
set -u
out=${OUT:-.}
installs=${INSTALLS:?INSTALLS: the installs, the change last}
path0=$PATH
ld0=${LD_LIBRARY_PATH:-}
use() {
    PATH=$PWD/$1/bin:$path0
    LD_LIBRARY_PATH=$PWD/$1/lib:$ld0
    export PATH LD_LIBRARY_PATH
}
{
    lscpu | grep -E "^Model name|^CPU\(s\)|^NUMA node\(s\)|^Socket"
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/machine.txt"
: > "$out/sort-ab.txt"
for round in 1 2; do
    for lib in $installs; do
        use "$lib"
        for spec in "1 16777216 sort u32" "1 16777216 sort f32" "1 16777216 sort u64" \
            "2 16777216 sort u32" "2 16777216 sort f32" "2 16777216 sort_pairs u32" \
            "2 16777216 sort_pairs f32" "16 67108864 sort u32" "16 67108864 sort f32"; do
            # shellcheck disable=SC2086
            set -- $spec
            cpus=""
            [ "$1" = 2 ] && cpus="taskset -c 0,1"
            printf '%s round %s threads %s: ' "$lib" "$round" "$1" >> "$out/sort-ab.txt"
            # shellcheck disable=SC2086
            GPGPU_THREADS=$1 $cpus gpgpu-bench --device host --api host --op "$3" --type "$4" \
                --n "$2" --repeat 5 2>&1 | tail -n 1 >> "$out/sort-ab.txt"
        done
    done
done
use "${installs##* }"
mkdir -p "$out/mpi"
PARTS=host HOST_SORT_N=16777216 OUT="$out/mpi" sh bench/mpi.sh > /dev/null 2>&1
tar -C "$out" -czf "$out/all.tgz" machine.txt sort-ab.txt mpi

#!/bin/sh
# The host fallback's sort of two installs side by side on one machine
# (gpgpu-bench --device host, each row beside the serial C LSD radix sort
# of the same keys), then bench/mpi.sh's host part (host-fallback ranks at
# 1, 2 and 4, the cores shared among them) for each install. From the
# project root of a GPU machine, after `sh bench/mpi.sh --stage` (the
# change, .gpu/install) and an install of the baseline with MPI:
#   source .gpu/env.sh; BEFORE=.gpu/before-host OUT=dir sh bench/results/2026-11-27-cpu16-host-sort/run.sh
set -u
out=${OUT:-.}
before=${BEFORE:?BEFORE: the baseline install}
after=${AFTER:-.gpu/install}
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
    for lib in "$before" "$after"; do
        use "$lib"
        for spec in "1 16777216 sort u32" "1 16777216 sort f32" "1 16777216 sort_pairs u32" \
            "1 16777216 sort_pairs f32" "2 16777216 sort u32" "2 16777216 sort f32" \
            "16 67108864 sort u32" "16 67108864 sort f32"; do
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
for lib in "$before" "$after"; do
    use "$lib"
    mkdir -p "$out/mpi-$(basename "$lib")"
    PARTS=host OUT="$out/mpi-$(basename "$lib")" sh bench/mpi.sh > /dev/null 2>&1
done

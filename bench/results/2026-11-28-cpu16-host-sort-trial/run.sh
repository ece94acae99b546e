#!/bin/sh
# The host sort's digit choice by a trial on the first sort's own buckets
# (this tree, .gpu/install) against the choice by 16384 keys outside any
# sort (.gpu/before-trial, f3e762e), and against either width forced, each
# row a fresh process, twice. From the project root of a GPU machine,
# after ../shared/gpu/prepare --build and an install of f3e762e under
# .gpu/before-trial:
#   source .gpu/env.sh; OUT=dir sh bench/results/2026-11-28-cpu16-host-sort-trial/run.sh
set -u
out=${OUT:-.}
{
    lscpu | grep -E "^Model name|^CPU\(s\)|^NUMA node\(s\)|^Socket"
    date -u +%Y-%m-%dT%H:%MZ
} > "$out/machine.txt"
: > "$out/ours.jsonl"
for round in 1 2; do
    for form in before:unset after:unset after:0 after:1; do
        lib=$PWD/.gpu/install/lib
        [ "${form%%:*}" = before ] && lib=$PWD/.gpu/before-trial/lib
        wide=${form#*:}
        for spec in "1 4194304 u32" "1 16777216 u32" "1 16777216 u64" "16 67108864 u32" \
            "16 67108864 f32"; do
            # shellcheck disable=SC2086
            set -- $spec
            (if [ "$wide" != unset ]; then GPGPU_SORT_WIDE=$wide; export GPGPU_SORT_WIDE; fi
                GPGPU_THREADS=$1 LD_LIBRARY_PATH="$lib:$LD_LIBRARY_PATH" timeout 120 \
                    gpgpu-bench --device host --api host --op sort --type "$3" --n "$2" \
                    --repeat 5 --json 2>> "$out/err.txt" |
                    sed "s|^{|{\"form\": \"$form\", \"round\": $round, \"threads\": $1, |") \
                >> "$out/ours.jsonl"
        done
    done
done

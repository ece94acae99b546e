#!/bin/sh
# Issue 18 probes on the NVIDIA machine (after `source .gpu/env.sh`): the
# scan, histogram and sort suites on the GPU, then the variants of scan
# (single pass / multi-pass), histogram and sort (ranking by ballots or by
# __local masks; tile sizes) at 2^20..2^28 with per-kernel profiles, and
# native CUB (.gpu/cub_issue18, built from bench/cub_issue18.cu) in the same
# command. Output under $OUT.
set -u
out=${OUT:-.}
root=$PWD
: > "$out/ours.jsonl"
(
    cd .gpu/tests || exit 1
    export top_builddir="$PWD" GPGPU_TEST_DEVICES=default
    mkdir -p tests/.cache
    for t in ${SUITES:-test_scan test_histogram test_sort}; do
        s=$(date +%s)
        timeout 300 "./$t" > "$out/$t.log" 2>&1
        echo "$t rc=$? $(( $(date +%s) - s ))s $(grep -E '^[0-9]+%' "$out/$t.log" | tr '\n' ' ')"
    done
    GPGPU_SORT_MATCH=1 timeout 300 ./test_sort > "$out/test_sort_match.log" 2>&1
    echo "test_sort SORT_MATCH=1 rc=$? $(grep -E '^[0-9]+%' "$out/test_sort_match.log" | tr '\n' ' ')"
) > "$out/tests.txt" 2>&1
cd "$root"
b() { gpgpu-bench --json --repeat 10 "$@" >> "$out/ours.jsonl" 2>> "$out/err.txt"; }
for lg in 16 20 24 28; do
    n=$((1 << lg))
    b --op scan --type u32 --n $n
    GPGPU_SCAN=multipass b --op scan --type u32 --n $n
    b --op sort --type u32 --n $n
    GPGPU_SORT_MATCH=1 b --op sort --type u32 --n $n
done
n=$((1 << 28))
b --op histogram --type f32 --bins 256 --n $n
b --op histogram --type u32 --bins 4096 --n $n
b --op histogram --type u32 --bins 256 --n $n
for tile in 4096 6144 8192; do
    for m in 0 1; do
        GPGPU_SORT_TILE=$tile GPGPU_SORT_MATCH=$m b --op sort --type u32 --n $n
        GPGPU_SORT_TILE=$tile GPGPU_SORT_MATCH=$m b --op sort_pairs --type u32 --n $n
    done
done
b --op sort --type u64 --n $n
GPGPU_SORT_MATCH=1 b --op sort --type u64 --n $n
{
    GPGPU_PROFILE=1 gpgpu-bench --op scan --type u32 --n $n --repeat 1
    GPGPU_PROFILE=1 gpgpu-bench --op sort --type u32 --n $n --repeat 1
    GPGPU_SORT_MATCH=1 GPGPU_PROFILE=1 gpgpu-bench --op sort --type u32 --n $n --repeat 1
    GPGPU_PROFILE=1 gpgpu-bench --op histogram --type f32 --bins 256 --n $n --repeat 1
} > /dev/null 2> "$out/profile.txt"
.gpu/cub_issue18 ${CUB_LG:-20 24 28} > "$out/cub.jsonl" 2> "$out/cub-device.txt"
echo done

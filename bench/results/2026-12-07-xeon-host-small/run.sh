#!/bin/sh
# The host's code on a GPU machine's Intel Xeon: the suites whose host
# loops take AVX2 (search_sorted's gathers, top_k's scans, the runs'
# writer, user expressions) on the host fallback with and without AVX2,
# then the standard table of host calls on the host fallback twice (the
# of_serial column: ratio to the serial C loop in the same run), the small
# sizes of the changed rows again without AVX2, and the 2^26 rows of
# reduce, scan, histogram and sort. From the project root, after
# ../shared/gpu/prepare --build and sh bench/gpu-stage-tests.sh:
#   source .gpu/env.sh; OUT=dir sh bench/results/2026-12-07-xeon-host-small/run.sh
set -u
out=${OUT:-.}
root=$PWD
lscpu > "$out/lscpu.txt" 2>&1
: > "$out/tests.txt"
cd .gpu/tests || exit 1
top_builddir=$PWD
export top_builddir
mkdir -p tests/.cache
for t in test_search test_select_k test_select_ops test_userop; do
    for a in "" 1; do
        GPGPU_NO_AVX2=$a GPGPU_TEST_DEVICES=host timeout 300 "./$t" > "$out/$t-noavx2=$a.log" 2>&1
        echo "$t GPGPU_NO_AVX2=$a rc=$? $(grep -E 'Checks' "$out/$t-noavx2=$a.log" | tr '\n' ' ')" >> "$out/tests.txt"
    done
done
cd "$root" || exit 1
bench() { GPGPU_DEVICE=host gpgpu-bench --api host --repeat 5 --json "$@"; }
for r in 1 2; do
    echo "round $r start $(date -u +%FT%TZ) $(uptime)" >> "$out/load.log"
    bench --sizes 10,12,14,16,18,20,22,24 > "$out/loop-host-$r.jsonl" 2>> "$out/err.txt"
done
for op in search_sorted top_k run_length_encode unique; do
    GPGPU_NO_AVX2=1 bench --op "$op" --sizes 10,12,14,16,18 2>> "$out/err.txt"
done > "$out/no-avx2.jsonl"
for op in reduce scan histogram sort; do
    bench --op "$op" --type u32 --n 67108864 2>> "$out/err.txt"
done > "$out/n26.jsonl"
echo "end $(date -u +%FT%TZ) $(uptime)" >> "$out/load.log"

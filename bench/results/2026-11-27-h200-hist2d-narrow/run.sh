#!/bin/bash
# histogram2d's split counts: this tree (.gpu/install) against the build
# installed under .gpu/before, and this tree with a part to a group in
# 16-bit counters (GPGPU_HIST_HALVES=1), f32, `_buffer` form, kernel events, median
# of 10, in turn twice; then each build's kernel trace at 2^28 and the
# histogram suites. On the GPU machine, after ../shared/gpu/prepare --build
# and bench/gpu-stage-tests.sh:
#   source .gpu/env.sh; OUT=dir bash bench/results/2026-11-27-h200-hist2d-narrow/run.sh
# ROWS ("lg cells-a-side", rows apart by ";") picks the rows.
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_device "$o/device.txt"
row() { # tag lib halves lg bins
    LD_LIBRARY_PATH="$PWD/$2:$LD_LIBRARY_PATH" GPGPU_HIST_HALVES="$3" timeout 120 \
        gpgpu-bench --json --repeat 10 --api buffer --op histogram2d --type f32 \
        --n $((1 << $4)) --bins "$5" 2>> "$o/err.txt" | sed "s|^{|{\"v\": \"$1\", |" >> "$o/hist2d.jsonl"
}
for round in 1 2; do
    for v in after before halves; do
        lib=.gpu/install/lib halves=0
        [ $v = before ] && lib=.gpu/before/lib
        [ $v = halves ] && halves=1
        echo "${ROWS:-28 256;27 256;26 256;24 256;28 200;28 300;28 128;28 400}" | tr ';' '\n' |
            while read -r r; do row $v $lib $halves $r; done
    done
done
for lib in install before halves; do
    for b in 256 300; do
        echo "== $lib $b" >> "$o/trace.txt"
        h=0 d=$lib
        [ $lib = halves ] && h=1 d=install
        LD_LIBRARY_PATH="$PWD/.gpu/$d/lib:$LD_LIBRARY_PATH" GPGPU_HIST_HALVES=$h GPGPU_BENCH_TRACE=1 gpgpu-bench \
            --repeat 3 --api buffer --op histogram2d --type f32 --n $((1 << 28)) --bins $b 2>&1 |
            grep -E "kernel|verified" >> "$o/trace.txt"
    done
done
probe_tests "$o/tests.txt" ${TESTS:-test_histogram2d test_histogram}
GPGPU_HIST_HALVES=1 probe_tests "$o/tests-halves.txt" test_histogram2d

#!/bin/sh
# The decoupled look-backs' knobs side by side on one GPU, in one device
# command: each row of ROWS ("op type lg", rows apart by ";") under each
# form of FORMS (environment settings, forms apart by ";"), two rounds
# alternating; the suites in TESTS under TEST_ENV; then native CUB on the
# same GPU. The defaults compare the scan's paths at 2^20, 2^24 and 2^28:
# multi-pass, the single pass whose look-back walks blocks of 32 tiles
# (the kernel's default), and the same walking tiles only. On
# the GPU machine, after ../shared/gpu/prepare --build and
# bench/gpu-stage-tests.sh:
#   source .gpu/env.sh; sh bench/lookback-probe.sh
# -> $OUT/device.txt, tests.txt, ours.jsonl (each line tagged with its
#    form), cub.jsonl
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_start "$o"
ROWS=${ROWS:-"scan u32 20;scan u32 24;scan u32 28"}
FORMS=${FORMS:-"GPGPU_SCAN_SINGLE_MAX=1;GPGPU_SCAN_SINGLE_MAX=0;GPGPU_SCAN_SINGLE_MAX=0 GPGPU_CL_OPTIONS=-DSCAN_BLOCKS=0"}
for round in 1 2; do
    echo "$ROWS" | tr ';' '\n' | while read -r op type lg; do
        [ -n "$op" ] || continue
        echo "$FORMS" | tr ';' '\n' | while read -r vars; do
            # shellcheck disable=SC2086
            env $vars timeout 120 gpgpu-bench --json --repeat 10 --op "$op" --type "$type" \
                --n $((1 << lg)) 2>> "$o/err.txt" |
                sed "s|^{|{\"env\": \"$vars\", |" >> "$o/ours.jsonl"
        done
    done
done
if [ -n "${TESTS:-}" ]; then
    (
        # shellcheck disable=SC2086
        [ -n "${TEST_ENV:-}" ] && export ${TEST_ENV?}
        probe_tests "$o/tests.txt" $TESTS
    )
fi
probe_cub_run "$o" ${CUB_LG:-20 24 28}

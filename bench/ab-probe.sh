#!/bin/sh
# Two builds of the library side by side on one GPU, in one device command:
# each row of ROWS ("op type lg [VAR=value ...] [--option value ...]",
# rows apart by ";") with each build in turn, twice (one gpgpu-bench, the
# first build's, with each build's library), the kernel times of the first
# build's PROFILE rows ("op type lg [VAR=value ...]"), then native CUB on
# the same GPU. Run on the GPU machine, after ../shared/gpu/prepare --build
# and bench/gpu-stage-tests.sh here, with the other build installed under
# .gpu/before (configure --prefix=$PWD/.gpu/before):
#   source .gpu/env.sh; ROWS="scan u32 28 GPGPU_SCAN_SINGLE_MAX=0" sh bench/ab-probe.sh
# -> $OUT/device.txt, tests.txt (the suites in TESTS), ours.jsonl (each
#    line tagged with "lib" and the row's variables), profile.txt, cub.jsonl
set -u
o=${OUT:-.}
. bench/probe-lib.sh
probe_start "$o"
[ -n "${TESTS:-}" ] && probe_tests "$o/tests.txt" $TESTS
row() { # lib op type lg [VAR=value ...] [--option value ...]
    lib=$1 op=$2 type=$3 lg=$4 vars= opts=
    shift 4
    for w in "$@"; do
        case $w in *=*) vars="$vars $w" ;; *) opts="$opts $w" ;; esac
    done
    # shellcheck disable=SC2086
    env LD_LIBRARY_PATH="$lib:$LD_LIBRARY_PATH" $vars timeout 120 gpgpu-bench --json --repeat 10 \
        --op "$op" --type "$type" --n $((1 << lg)) $opts 2>> "$o/err.txt" |
        sed "s|^{|{\"lib\": \"$lib\", \"env\": \"$*\", |" >> "$o/ours.jsonl"
}
for round in 1 2; do
    for lib in "$PWD/.gpu/install/lib" "$PWD/.gpu/before/lib"; do
        echo "$ROWS" | tr ';' '\n' | while read -r r; do
            [ -n "$r" ] && row "$lib" $r
        done
    done
done
echo "${PROFILE:-}" | tr ';' '\n' | while read -r r; do
    [ -n "$r" ] || continue
    set -- $r
    op=$1 type=$2 lg=$3
    shift 3
    env GPGPU_PROFILE=1 "$@" timeout 120 gpgpu-bench --repeat 1 --op "$op" --type "$type" \
        --n $((1 << lg)) >> "$o/profile.txt" 2>&1
done
probe_cub_run "$o" ${CUB_LG:-20 24 28}

#!/bin/sh
# The standard table's host calls against their serial C loops on PoCL and
# on the host fallback, two libraries under one gpgpu-bench (so one timing
# method: calls and loops under 0.2 ms in batches), then the plan's
# host-below crossovers that the host code's AVX2 loops move. From a build
# tree of this commit, with BEFORE naming the .libs of an earlier build:
#   BEFORE=/path/to/old/.libs OUT=dir sh bench/results/2026-11-27-pocl-cpu-batched/run.sh
set -u
o=${OUT:-.}
bin=${BENCH:-./tools/.libs/gpgpu-bench}
after=${AFTER:-./.libs}
sizes=10,12,14,16,18,20,22,24
run() { # lib dev args...
    lib=$1 dev=$2
    shift 2
    if [ "$dev" = host ]; then
        LD_LIBRARY_PATH=$lib GPGPU_DEVICE=host "$bin" --api host --repeat 5 --json "$@"
    else
        LD_LIBRARY_PATH=$lib "$bin" --api host --repeat 5 --json "$@"
    fi
}
: > "$o/load.txt"
for v in after before; do
    lib=$after
    [ "$v" = before ] && lib=$BEFORE
    for dev in pocl host; do
        echo "$v $dev start $(date -u +%FT%TZ) $(uptime)" >> "$o/load.txt"
        run "$lib" "$dev" --sizes $sizes > "$o/loop-$dev-$v.jsonl" 2>> "$o/err.txt"
    done
done
# The crossovers, this build on PoCL, each knob both ways, two rounds.
for round in 1 2; do
    echo "crossovers round $round $(date -u +%FT%TZ) $(uptime)" >> "$o/load.txt"
    for hb in all 0; do
        for spec in "by-key reduce_by_key --input seg64 --type u32" \
                    "segmented segmented_reduce --input seg64 --type u32" \
                    "scan-f scan --type f32" "sort sort_pairs --type u32" "sort sort --type u32"; do
            set -- $spec
            knob=$1 op=$2
            shift 2
            GPGPU_HOST_BELOW=$knob=$hb run "$after" pocl --op "$op" "$@" --sizes 16,18,20,22,24 |
                sed "s|^{|{\"host_below\": \"$knob=$hb\", \"round\": $round, |" >> "$o/crossovers.jsonl"
        done
    done
done
echo "end $(date -u +%FT%TZ) $(uptime)" >> "$o/load.txt"

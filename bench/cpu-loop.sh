#!/bin/sh
# Every row of gpgpu-bench's standard table as host calls, n = 2^10 .. 2^24,
# on the default device (PoCL on a CPU machine) and on the host fallback,
# each beside the serial C loop it replaces (the 'loop' column: of_serial in
# the JSON lines). From the build tree; JSON lines to ${OUT:-.}/loop-pocl.jsonl
# and loop-host.jsonl, the load before and after each to loop.log.
# OPS="histogram run_length_encode ..." times those rows alone (one
# gpgpu-bench --op each); SIZES and REPEAT as gpgpu-bench's --sizes and
# --repeat.
# python3 bench/table_loop.py loop-pocl.jsonl makes the table.
set -u
out=${OUT:-.}
sizes=${SIZES:-10,12,14,16,18,20,22,24}
ops=${OPS:-}
: > "$out/loop.log"
run() { # dev [--op OP]
    if [ "$1" = host ]; then
        shift
        GPGPU_DEVICE=host ./tools/gpgpu-bench --api host --sizes "$sizes" \
            --repeat "${REPEAT:-5}" --json "$@"
    else
        shift
        ./tools/gpgpu-bench --api host --sizes "$sizes" --repeat "${REPEAT:-5}" --json "$@"
    fi
}
for dev in pocl host; do
    echo "$dev start $(date -u +%FT%TZ) $(uptime)" >> "$out/loop.log"
    if [ -z "$ops" ]; then
        run $dev > "$out/loop-$dev.jsonl"
    else
        for op in $ops; do
            run $dev --op "$op" 2>> "$out/loop-err.txt"
        done > "$out/loop-$dev.jsonl"
    fi
    echo "$dev end $(date -u +%FT%TZ) $(uptime)" >> "$out/loop.log"
done

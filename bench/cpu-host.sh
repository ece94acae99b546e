#!/bin/sh
# The CPU side of issue 14 on PoCL, from the build tree: each primitive at
# n = 2^24 (u32) as the _buffer form and as the host call, each printing the
# serial C loop timed on the same array in the same process. JSON lines to
# ${OUT:-.}/pocl-host.jsonl; bench/host_table.py makes the table.
set -u
out=${OUT:-.}
n=${N:-16777216}
: > "$out/pocl-host.jsonl"
for op in reduce scan histogram sort sort_pairs; do
    for api in buffer host; do
        ./tools/gpgpu-bench --json --repeat ${REPEAT:-9} --op $op --type u32 --n $n --api $api \
            >> "$out/pocl-host.jsonl"
    done
done

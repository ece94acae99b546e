#!/bin/sh
# What a C program's host-memory calls get on a CPU device (PoCL), from the
# build tree: each primitive at
# n = 2^24 (u32) as the _buffer form and as the host call, each printing the
# serial C loop timed on the same array in the same process. JSON lines to
# ${OUT:-.}/host.jsonl; python3 bench/table_host.py host.jsonl makes the table.
set -u
out=${OUT:-.}
n=${N:-16777216}
: > "$out/host.jsonl"
for op in reduce scan histogram sort sort_pairs; do
    for api in buffer host; do
        ./tools/gpgpu-bench --json --repeat ${REPEAT:-9} --op $op --type u32 --n $n --api $api \
            >> "$out/host.jsonl"
    done
done

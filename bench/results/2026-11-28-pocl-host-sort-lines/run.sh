#!/bin/sh
# The host sort of two builds in turn (BEFORE and AFTER: build trees),
# ROUNDS rounds, on the host fallback and on PoCL (whose plan sends float
# keys, and u32 keys up to 2^21, to the host's sort): gpgpu-bench --api
# host --op sort|sort_pairs --sizes 20,22,24, every type and input, each
# row beside the serial C LSD radix sort of the same keys. JSON lines on
# stdout with "v" (before or after), "dev" and "r" (the round) added.
#   BEFORE=/tmp/b0 AFTER=/tmp/b [ROUNDS=3] sh run.sh > ab.jsonl
#   python3 table.py ab.jsonl
set -u
for r in $(seq "${ROUNDS:-3}"); do
    for v in before after; do
        eval "tree=\${$(echo "$v" | tr a-z A-Z)}"
        for dev in host pocl; do
            d=; [ "$dev" = host ] && d=host
            for op in sort sort_pairs; do
                GPGPU_DEVICE=$d LD_LIBRARY_PATH="$tree/.libs" "$tree/tools/.libs/gpgpu-bench" \
                    --api host --op "$op" --sizes 20,22,24 --repeat 5 --json 2>/dev/null |
                    sed "s/^{/{\"v\":\"$v\",\"dev\":\"$dev\",\"r\":$r,/"
            done
        done
    done
done

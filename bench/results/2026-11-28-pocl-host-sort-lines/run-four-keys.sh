#!/bin/sh
# Three rounds of two build trees in turn (BEFORE, AFTER), the host
# fallback and PoCL: sort u32 and f32 and sort_pairs u32 at 2^24, sort u32
# at 2^16, each beside the serial C LSD radix sort of the same keys.
#   BEFORE=tree AFTER=tree sh run-four-keys.sh > ab.jsonl
set -u
for r in 1 2 3; do
    for v in before after; do
        eval "tree=\${$(echo "$v" | tr a-z A-Z)}"
        for dev in host pocl; do
            d=; [ "$dev" = host ] && d=host
            for spec in "sort u32 16777216 5" "sort f32 16777216 5" \
                "sort_pairs u32 16777216 5" "sort u32 65536 9"; do
                # shellcheck disable=SC2086
                set -- $spec
                GPGPU_DEVICE=$d LD_LIBRARY_PATH="$tree/.libs" "$tree/tools/.libs/gpgpu-bench" \
                    --api host --op "$1" --type "$2" --n "$3" --repeat "$4" --json 2>/dev/null |
                    sed "s/^{/{\"v\":\"$v\",\"dev\":\"$dev\",\"r\":$r,/"
            done
        done
    done
done

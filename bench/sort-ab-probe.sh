#!/bin/sh
# bench/ab-probe.sh with the sort's rows: sort u32, sort_pairs u32 and sort
# u64 at n = 2^20, 2^24 and 2^28, argsort u32 at 2^28, and the kernel times
# of sort and sort_pairs u32 at 2^20 and 2^28. On the GPU machine, as
# ab-probe.sh says:
#   source .gpu/env.sh; sh bench/sort-ab-probe.sh
rows=
for lg in 20 24 28; do
    rows="$rows;sort u32 $lg;sort_pairs u32 $lg;sort u64 $lg"
done
ROWS="$rows;argsort u32 28" \
PROFILE="sort u32 20;sort_pairs u32 20;sort u32 28;sort_pairs u32 28" \
TESTS=${TESTS:-test_sort} exec sh bench/ab-probe.sh

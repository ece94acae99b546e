set -u
ROWS="sort u32 28;sort_pairs u32 28;sort u64 28;sort u32 20" \
TESTS="test_sort" CUB_LG="20 28" sh bench/ab-probe.sh
echo "end $SECONDS"

# argsort reading the keys in place (ea540c9) against 2a7aaf9 in one
# command, with PyTorch's stable argsort, native CUB, and CUB's own radix
# sort kernels timed one by one under ncu.
set -u
o=$OUT
export ROWS="argsort u32 28;argsort f32 28;argsort u64 28;argsort u32 24;argsort u32 20;sort u32 28;sort u64 28;sort u32 24;sort u32 20"
export PROFILE="argsort u32 28;sort u32 28"
export TESTS="test_search test_sort test_select_k"
export CUB_LG="20 24 28"
sh bench/ab-probe.sh
echo "ab $SECONDS" >> $o/err.txt
timeout 150 python3 .gpu/science_peers.py 28 > $o/science.jsonl 2>&1
echo "peers $SECONDS" >> $o/err.txt
timeout 150 ncu --clock-control none --kernel-name regex:Radix --launch-count 14 \
    --metrics gpu__time_duration.sum /tmp/cub 28 > $o/ncu.txt 2>&1
echo "ncu $SECONDS" >> $o/err.txt
cd $o && tar czf ../probe.tgz . && mv ../probe.tgz .

# The counting read's variants through GPGPU_CL_OPTIONS, beside CUB and
# (argsort) PyTorch; CUB's own kernels under nsys where it is installed.
set -u
o=$OUT
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_cub_start "$o"
FORMS="|-DSORT_BITS_FAST=0|-DSORT_BITS_DMAJOR=1|-DSORT_BITS_ITEMS=16|-DSORT_BITS_ITEMS=16 -DSORT_BITS_DMAJOR=1|-DSORT_BITS_ITEMS=4|-DSORT_BITS_PROBE=1"
[ -n "${SKIP_PROFILES:-}" ] ||
for lt in "28 u32" "28 u64" "24 u32"; do
  set -- $lt; lg=$1 t=$2
  for _ in 1; do
    echo "$FORMS" | tr '|' '\n' | while read -r f; do
      echo "== [$f] $t $lg" >> $o/profile.txt
      GPGPU_CL_OPTIONS="$f" GPGPU_PROFILE=1 timeout 60 gpgpu-bench --repeat 3 --op sort --type $t --n $((1 << lg)) >> $o/profile.txt 2>&1
    done
  done
done
echo "profiles $SECONDS" >> $o/err.txt
ROWS="sort u32 28|sort u32 24|sort u32 20|sort u64 28|argsort u32 28|sort_pairs u64 28"
one_round() {
echo "$ROWS" | tr '|' '\n' | while read -r op type lg; do
  for f in "" "-DSORT_BITS_FAST=0 -DSORT_BITS_ITEMS=8"; do
    GPGPU_CL_OPTIONS="$f" timeout 100 gpgpu-bench --json --repeat 10 --op $op --type $type --n $((1 << lg)) 2>> $o/err.txt | sed "s|^{|{\"cl\": \"$f\", |" >> $o/ours.jsonl
  done
done
for f in "-DSORT_LB_WINDOW=8" "-DSORT_LB_WINDOW=2"; do
  GPGPU_CL_OPTIONS="$f" timeout 100 gpgpu-bench --json --repeat 10 --op sort_pairs --type u64 --n $((1 << 28)) 2>> $o/err.txt | sed "s|^{|{\"cl\": \"$f\", |" >> $o/ours.jsonl
done
}
one_round
echo "round1 $SECONDS" >> $o/err.txt
probe_tests $o/tests.txt test_sort test_search
echo "tests $SECONDS" >> $o/err.txt
probe_cub_run "$o" 20 24 28
timeout 150 python3 .gpu/science_peers.py 28 > $o/science.jsonl 2>&1
echo "peers $SECONDS" >> $o/err.txt
if command -v nsys > /dev/null; then
  timeout 120 nsys profile -o /tmp/cubprof --force-overwrite true --stats=true /tmp/cub 28 > $o/nsys.txt 2>&1
else
  ls /usr/local/cuda*/bin > $o/nsys.txt 2>&1
fi
echo "nsys $SECONDS" >> $o/err.txt
[ $SECONDS -lt 380 ] && one_round
echo "end $SECONDS" >> $o/err.txt
cd $o && tar czf ../probe.tgz . && mv ../probe.tgz .

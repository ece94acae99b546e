# sort look-back variants through GPGPU_CL_OPTIONS, beside CUB
set -u
o=$OUT
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_cub_start "$o"
FORMS="|-DSORT_EARLY=1|-DSORT_EARLY=2|-DSORT_LB_WINDOW=4|-DSORT_LB_WINDOW=4 -DSORT_EARLY=2|-DSORT_LB_WINDOW=4 -DSORT_EARLY=1|-DSORT_PROBE_NOLB=1"
ROWS="sort u32 28;sort u32 24;sort u32 20;sort_pairs u32 28;sort u64 28"
one_round() {
echo "$ROWS" | tr ';' '\n' | while read -r op type lg; do
  echo "$FORMS" | tr '|' '\n' | while read -r f; do
    GPGPU_CL_OPTIONS="$f" timeout 100 gpgpu-bench --json --repeat 10 --op $op --type $type --n $((1 << lg)) 2>> $o/err.txt | sed "s|^{|{\"cl\": \"$f\", |" >> $o/ours.jsonl
  done
done
}
one_round
echo "round1 $SECONDS" >> $o/err.txt
echo "$FORMS" | tr '|' '\n' | while read -r f; do
  echo "== [$f]" >> $o/profile.txt
  GPGPU_CL_OPTIONS="$f" GPGPU_PROFILE=1 timeout 60 gpgpu-bench --repeat 3 --op sort --type u32 --n $((1 << 28)) >> $o/profile.txt 2>&1
done
for f in "-DSORT_EARLY=2" "-DSORT_LB_WINDOW=4 -DSORT_EARLY=2" "-DSORT_LB_WINDOW=4"; do
  echo "== [$f]" >> $o/tests.txt
  (export GPGPU_CL_OPTIONS="$f"; probe_tests $o/tests.txt test_sort test_search)
done
echo "tests $SECONDS" >> $o/err.txt
probe_cub_run "$o" 20 24 28
[ $SECONDS -lt 380 ] && one_round
echo "end $SECONDS" >> $o/err.txt
cd $o && tar czf ../probe.tgz . && mv ../probe.tgz .

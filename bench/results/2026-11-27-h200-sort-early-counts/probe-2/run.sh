set -u
o=$OUT
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_cub_start "$o"
# each form: TILE;CL
FORMS="8192;|8192;-DSORT_LB_WINDOW=4 -DSORT_EARLY=1|8192;-DSORT_LB_WINDOW=8 -DSORT_EARLY=1|8192;-DSORT_LB_WINDOW=16 -DSORT_EARLY=1|8192;-DSORT_LB_WINDOW=2 -DSORT_EARLY=1|6144;-DSORT_LB_WINDOW=8 -DSORT_EARLY=1"
ROWS="sort u32 28;sort u32 24;sort u32 20;sort_pairs u32 28;sort u64 28"
echo "$ROWS" | tr ';' '\n' | while read -r op type lg; do
  echo "$FORMS" | tr '|' '\n' | while IFS=';' read -r tile f; do
    GPGPU_SORT_TILE=$tile GPGPU_CL_OPTIONS="$f" timeout 100 gpgpu-bench --json --repeat 10 --op $op --type $type --n $((1 << lg)) 2>> $o/err.txt | sed "s|^{|{\"cl\": \"$f\", \"tile\": $tile, |" >> $o/ours.jsonl
  done
done
echo "round1 $SECONDS" >> $o/err.txt
probe_cub_run "$o" 20 24 28
echo "end $SECONDS" >> $o/err.txt

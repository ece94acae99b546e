# u32 sort tiles of 28, 30, 32 (the plan's) and 36 keys an item, and the
# counting read's groups (GPGPU_GROUPS: only sort_bits of a sort reads it),
# two rounds, then the kernel times of the largest tile; CUB beside.
set -u
o=$OUT
. bench/probe-lib.sh
probe_device "$o/device.txt"
probe_cub_start "$o"
FORMS="GPGPU_SORT_TILE=8192|GPGPU_SORT_TILE=7168|GPGPU_SORT_TILE=7680|GPGPU_SORT_TILE=9216|GPGPU_GROUPS=528|GPGPU_GROUPS=2112"
for round in 1 2; do
  for lg in 28 24; do
    echo "$FORMS" | tr '|' '\n' | while read -r f; do
      env $f timeout 100 gpgpu-bench --json --repeat 10 --op sort --type u32 --n $((1 << lg)) 2>> $o/err.txt | sed "s|^{|{\"env\": \"$f\", |" >> $o/ours.jsonl
    done
  done
done
for f in GPGPU_SORT_TILE=8192 GPGPU_SORT_TILE=9216 GPGPU_GROUPS=2112; do
  echo "== $f" >> $o/profile.txt
  env $f GPGPU_PROFILE=1 timeout 60 gpgpu-bench --repeat 3 --op sort --type u32 --n $((1 << 28)) >> $o/profile.txt 2>&1
done
GPGPU_SORT_TILE=9216 probe_tests $o/tests.txt test_sort
probe_cub_run "$o" 24 28
cd $o && tar czf ../probe.tgz . && mv ../probe.tgz .

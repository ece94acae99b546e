for r in 1 2; do for hb in sort=all sort=0; do for op in sort sort_pairs; do
GPGPU_HOST_BELOW=$hb LD_LIBRARY_PATH=/tmp/b/.libs /tmp/b/tools/.libs/gpgpu-bench --api host --op $op --type u32 --sizes 20,22,23,24 --repeat 5 --json 2>/dev/null | sed "s/^{/{\"hb\":\"$hb\",\"r\":$r,/"
done; done; done

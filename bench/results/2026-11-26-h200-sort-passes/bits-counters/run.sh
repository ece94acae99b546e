for cfg in "" "-D SORT_BITS_COPIES=2" "-D SORT_BITS_COPIES=4" "-D SORT_BITS_COPIES=8" "-D SORT_BITS_NOCOUNT=1"; do
  for spec in "u32 28" "u32 24" "u64 28" "u64 24"; do set -- $spec
    [ "$1" = u64 ] && [ "$cfg" = "-D SORT_BITS_COPIES=8" ] && continue
    echo "== [$cfg] $spec" >> $OUT/bits.txt
    GPGPU_CL_OPTIONS="$cfg" GPGPU_PROFILE=1 timeout 60 gpgpu-bench --repeat 3 --op sort --type $1 --n $((1 << $2)) 2>&1 | grep -E "sort_bits|^sort |rror" | tail -3 >> $OUT/bits.txt
  done
done

set -u
out=${OUT:-.}
t0=$(date +%s)
N=268435456
for a in "--op argsort --type u32" "--op sort_pairs --type u32" "--op gather --type u32" "--op histogram2d --type f32" "--op histogram_weighted --type f32"; do
  timeout 60 gpgpu-bench --json --repeat 5 $a --n $N >> $out/ours.jsonl 2>> $out/err.txt
done
timeout 60 gpgpu-bench --json --repeat 5 --op search_sorted --type u32 --n 16777216 >> $out/ours.jsonl 2>> $out/err.txt
echo "science $(( $(date +%s) - t0 ))s" >> $out/times.txt
timeout 330 .gpu/huge > $out/huge.txt 2>&1; echo "rc=$?" >> $out/huge.txt
echo "huge $(( $(date +%s) - t0 ))s" >> $out/times.txt

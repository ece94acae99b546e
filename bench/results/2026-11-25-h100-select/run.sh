set -u
out=${OUT:-.}
t0=$(date +%s)
N=268435456
GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --op top_k --type f32 --n $N --repeat 3 > $out/trace-topk.txt 2>&1
GPGPU_BENCH_TRACE=1 timeout 60 gpgpu-bench --op quantiles --bins 5 --type f32 --n $N --repeat 3 > $out/trace-quantiles.txt 2>&1
echo "traces $(( $(date +%s) - t0 ))s" >> $out/times.txt
OUT=$out PARTS=science timeout 480 sh bench/gpu.sh > $out/console.txt 2>&1
echo "science $(( $(date +%s) - t0 ))s" >> $out/times.txt

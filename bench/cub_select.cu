// cub_select.cu - native CUB beside gpgpu-bench, on the inputs of
// gpgpu-bench's unique, run_length_encode, partition and histogram_edges
// (tools/bench/bench_select_ops.c, seed 12345): n = 2^lg (default 28)
//   DeviceSelect::Unique                 u32, runs of two on average
//   DeviceRunLengthEncode::Encode        u32, the same data, u64 lengths
//   DevicePartition::If                  u32, the same data, x > 0
//   DeviceSelect::If                     u32, x > 0 (what gpgpu_select is)
//   DeviceHistogram::HistogramRange      f32 in (-1, 1), 256 uneven bins:
//                                        edges -0.5 + 1.5 (i / 256)^2
// Each is timed with CUDA events (device time, data already on the GPU, temp
// storage allocated before timing), median of 10 runs after a warm-up, and
// printed as one JSON line per case; the counts are checked against a host
// count of the same data. Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_select.cu -o /tmp/cub_select
//   /tmp/cub_select 28
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cub_common.cuh"

static void report(const char *op, const char *type, size_t n, size_t count, int ok, double ms)
{
    std::printf("{\"op\":\"%s\",\"impl\":\"cub\",\"type\":\"%s\",\"n\":%zu,\"count\":%zu,"
                "\"verified\":%s,\"ms\":%.4f,\"gelems\":%.3f}\n",
                op, type, n, count, ok ? "true" : "false", ms, (double)n / (ms * 1e6));
    std::fflush(stdout);
}

// tools/gpgpu-bench.c's generator.
static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// tools/bench_select_ops.c's fill for U32 and F32: each element repeats the
// one before with probability 1/2; otherwise positive or zero (u32) or in
// (-1, 1) (f32), with a sign from one bit.
static void fill(std::vector<uint32_t> &u, std::vector<float> &f, size_t n, uint64_t seed)
{
    uint64_t su = seed, sf = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix(&su);
        if (i > 0 && (r & 2))
            u[i] = u[i - 1];
        else
            u[i] = (r & 1) ? (uint32_t)(r >> 32) | 1 : 0;
        r = splitmix(&sf);
        if (i > 0 && (r & 2)) {
            f[i] = f[i - 1];
        } else {
            double x = (double)(r >> 11) * 0x1.0p-53 * ((r & 1) ? 1 : -1);
            f[i] = (float)x;
        }
    }
}

struct positive {
    __host__ __device__ bool operator()(uint32_t x) const { return x > 0; }
};

static size_t read_count(const uint64_t *d)
{
    uint64_t c = 0;
    CHECK(cudaMemcpy(&c, d, sizeof c, cudaMemcpyDeviceToHost));
    return (size_t)c;
}

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? std::atoi(argv[1]) : 28;
    const size_t n = (size_t)1 << lg, nbins = 256;
    std::vector<uint32_t> hu(n);
    std::vector<float> hf(n);
    fill(hu, hf, n, 12345);
    size_t runs = 0, kept = 0, counted = 0;
    std::vector<float> levels(nbins + 1);
    for (size_t i = 0; i <= nbins; i++)
        levels[i] = (float)(-0.5 + 1.5 * std::pow((double)i / (double)nbins, 2));
    for (size_t i = 0; i < n; i++) {
        runs += i == 0 || hu[i] != hu[i - 1];
        kept += hu[i] > 0;
        counted += hf[i] >= levels[0] && hf[i] < levels[nbins];
    }

    uint32_t *x, *y;
    uint64_t *len, *cnt;
    float *fx, *lev;
    unsigned long long *bins;
    CHECK(cudaMalloc(&x, n * 4));
    CHECK(cudaMalloc(&y, n * 4));
    CHECK(cudaMalloc(&len, n * 8));
    CHECK(cudaMalloc(&cnt, 8));
    CHECK(cudaMalloc(&fx, n * 4));
    CHECK(cudaMalloc(&lev, (nbins + 1) * 4));
    CHECK(cudaMalloc(&bins, nbins * sizeof *bins));
    CHECK(cudaMemcpy(x, hu.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(fx, hf.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(lev, levels.data(), (nbins + 1) * 4, cudaMemcpyHostToDevice));

    {
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceSelect::Unique(t, bytes, x, y, cnt, (int64_t)n);
        });
        size_t got = read_count(cnt);
        report("unique", "u32", n, got, got == runs, ms);
    }
    {
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceRunLengthEncode::Encode(t, bytes, x, y, len, cnt, (int64_t)n);
        });
        size_t got = read_count(cnt);
        report("run_length_encode", "u32", n, got, got == runs, ms);
    }
    {
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DevicePartition::If(t, bytes, x, y, cnt, (int64_t)n, positive{});
        });
        size_t got = read_count(cnt);
        report("partition", "u32", n, got, got == kept, ms);
    }
    {
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceSelect::If(t, bytes, x, y, cnt, (int64_t)n, positive{});
        });
        size_t got = read_count(cnt);
        report("select", "u32", n, got, got == kept, ms);
    }
    {
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceHistogram::HistogramRange(t, bytes, fx, bins, (int)nbins + 1, lev,
                                                        (int64_t)n);
        });
        std::vector<unsigned long long> hb(nbins);
        CHECK(cudaMemcpy(hb.data(), bins, nbins * sizeof *bins, cudaMemcpyDeviceToHost));
        size_t got = 0;
        for (size_t i = 0; i < nbins; i++)
            got += hb[i];
        report("histogram_edges", "f32", n, got, got == counted, ms);
    }
    free_all(x, y, len, cnt, fx, lev, bins);
    return 0;
}

// cub_segmented.cu - native CUB beside gpgpu-bench's segmented and by-key
// ops, on the same shapes: n = 2^lg u32 (default 28),
//   DeviceSegmentedReduce::Sum  with 2^16 and 2^22 segments of equal length
//   DeviceReduce::ReduceByKey   with runs of 8 and of 256 (keys i / len)
//   DeviceSegmentedSort::StableSortKeys  with 2^16 segments
//   DeviceReduce::ArgMin
// Each is timed with CUDA events (device time, data already on the GPU, temp
// storage allocated before timing), median of 10 runs after a warm-up, and
// printed as one JSON line per case. Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_segmented.cu -o /tmp/cub_segmented
//   /tmp/cub_segmented 28
#include <cub/cub.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cub_common.cuh"

static void report(const char *op, size_t n, const char *param, size_t value, double ms)
{
    std::printf("{\"op\":\"%s\",\"impl\":\"cub\",\"type\":\"u32\",\"n\":%zu,\"%s\":%zu,"
                "\"ms\":%.4f,\"gelems\":%.3f}\n",
                op, n, param, value, ms, (double)n / (ms * 1e6));
    std::fflush(stdout);
}

__global__ void fill(uint32_t *x, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = (i + seed) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        x[i] = (uint32_t)(z ^ (z >> 31));
    }
}

__global__ void iota_offsets(uint64_t *off, size_t nseg, size_t len, size_t n)
{
    for (size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x; s <= nseg;
         s += (size_t)gridDim.x * blockDim.x)
        off[s] = s * len < n ? s * len : n;
}

__global__ void run_keys(uint32_t *k, size_t n, size_t len)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        k[i] = (uint32_t)(i / len);
}

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? std::atoi(argv[1]) : 28;
    const size_t n = (size_t)1 << lg;
    uint32_t *x, *y, *keys, *kout, *nruns;
    uint64_t *off;
    CHECK(cudaMalloc(&x, n * 4));
    CHECK(cudaMalloc(&y, n * 4));
    CHECK(cudaMalloc(&keys, n * 4));
    CHECK(cudaMalloc(&kout, n * 4));
    CHECK(cudaMalloc(&nruns, 8));
    CHECK(cudaMalloc(&off, (((size_t)1 << 22) + 1) * 8));
    fill<<<1024, 256>>>(x, n, 12345);
    CHECK(cudaGetLastError());

    for (int slg : {16, 22}) {
        const size_t nseg = (size_t)1 << slg, len = n / nseg;
        iota_offsets<<<1024, 256>>>(off, nseg, len, n);
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceSegmentedReduce::Sum(t, bytes, x, y, (int)nseg, off, off + 1);
        });
        report("segmented_reduce", n, "segments", nseg, ms);
    }

    for (size_t len : {(size_t)8, (size_t)256}) {
        run_keys<<<1024, 256>>>(keys, n, len);
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceReduce::ReduceByKey(t, bytes, keys, kout, x, y, nruns,
                                                  cuda::std::plus<>{}, n);
        });
        report("reduce_by_key", n, "run_length", len, ms);
    }

    {
        const size_t nseg = (size_t)1 << 16, len = n / nseg;
        iota_offsets<<<1024, 256>>>(off, nseg, len, n);
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceSegmentedSort::StableSortKeys(t, bytes, x, y, (int64_t)n,
                                                            (int64_t)nseg, off, off + 1);
        });
        report("segmented_sort", n, "segments", nseg, ms);
    }

    {
        uint32_t *best;
        int64_t *at;
        CHECK(cudaMalloc(&best, sizeof *best));
        CHECK(cudaMalloc(&at, sizeof *at));
        double ms = time_cub([&](void *t, size_t &bytes) {
            return cub::DeviceReduce::ArgMin(t, bytes, x, best, at, (int64_t)n);
        });
        report("argmin", n, "segments", 1, ms);
        free_all(at, best);
    }
    free_all(x, y, keys, kout, nruns, off);
    return 0;
}

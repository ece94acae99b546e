// cub_sort_scan_histogram.cu - native CUB beside gpgpu-bench: scan, sort (u32 keys, u32
// pairs, u64 keys) and histograms with float and integer samples, at n =
// 2^lg for each lg given (default 20 24 28). One JSON line per case, median
// of 10 runs timed by CUDA events around the CUB call.
// Build on the CPU machine (CUDA 13 ships CCCL), run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 bench/cub_sort_scan_histogram.cu -o .gpu/cub_sort_scan_histogram
//   .gpu/cub_sort_scan_histogram 20 24 28
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cub_common.cuh"

// Random 32-bit words by a hash of the index (the same generator in every case).
__device__ uint32_t mix(uint64_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 2654435761u ^ seed ^ (uint32_t)(i >> 32) * 40503u;
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
__global__ void fill_u32(uint32_t *a, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = mix(i, seed);
}
__global__ void fill_u64(uint64_t *a, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = (uint64_t)mix(i, seed) << 32 | mix(i, seed + 7);
}
// Uniform floats in [0, 1).
__global__ void fill_f32(float *a, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = (mix(i, seed) >> 8) * (1.0f / 16777216.0f);
}


static void line(const char *op, const char *type, size_t n, const char *what, float ms)
{
    printf("{\"impl\":\"cub\",\"op\":\"%s\",\"type\":\"%s\",\"n\":%zu,\"case\":\"%s\",\"ms\":%.4f,"
           "\"gelems\":%.3f}\n", op, type, n, what, ms, n / ms / 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    std::vector<int> lgs;
    for (int i = 1; i < argc; i++)
        lgs.push_back(atoi(argv[i]));
    if (lgs.empty())
        lgs = {20, 24, 28};
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    fprintf(stderr, "device %s, CCCL %d.%d.%d\n", p.name, CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION,
            CCCL_PATCH_VERSION);
    for (int lg : lgs) {
        size_t n = (size_t)1 << lg;
        uint64_t *k0, *k1, *v0, *v1;   // room for n 64-bit words each
        unsigned long long *hist;
        CHECK(cudaMalloc(&k0, n * 8));
        CHECK(cudaMalloc(&k1, n * 8));
        CHECK(cudaMalloc(&v0, n * 8));
        CHECK(cudaMalloc(&v1, n * 8));
        CHECK(cudaMalloc(&hist, 4097 * sizeof *hist));
        uint32_t *a = (uint32_t *)k0, *b = (uint32_t *)k1, *va = (uint32_t *)v0, *vb = (uint32_t *)v1;
        float *f = (float *)v0;
        int *h32 = (int *)hist;
        int ni = (int)n;
        size_t tb = 0, t2 = 0;
        cub::DeviceScan::ExclusiveSum(nullptr, t2, a, b, ni); tb = std::max(tb, t2);
        cub::DeviceScan::InclusiveSum(nullptr, t2, a, b, ni); tb = std::max(tb, t2);
        cub::DeviceRadixSort::SortKeys(nullptr, t2, a, b, ni); tb = std::max(tb, t2);
        cub::DeviceRadixSort::SortPairs(nullptr, t2, a, b, va, vb, ni); tb = std::max(tb, t2);
        cub::DeviceRadixSort::SortKeys(nullptr, t2, k0, k1, ni); tb = std::max(tb, t2);
        cub::DeviceHistogram::HistogramEven(nullptr, t2, f, h32, 257, 0.0f, 1.0f, ni); tb = std::max(tb, t2);
        cub::DeviceHistogram::HistogramEven(nullptr, t2, a, h32, 4097, 0u, 0xffffffffu, ni); tb = std::max(tb, t2);
        void *tmp;
        CHECK(cudaMalloc(&tmp, tb));
        float ms;
        fill_u32<<<4096, 256>>>(a, n, 1);
        ms = time_ms([&] { cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice); });
        line("copy", "u32", n, "D2D", ms);
        ms = time_ms([&] { cub::DeviceScan::ExclusiveSum(tmp, tb, a, b, ni); });
        line("scan", "u32", n, "ExclusiveSum", ms);
        ms = time_ms([&] { cub::DeviceScan::InclusiveSum(tmp, tb, a, b, ni); });
        line("scan", "u32", n, "InclusiveSum", ms);
        // sorts: keys restored from the fill before each call would add a
        // copy; CUB reads a and writes b, so a stays random across runs.
        ms = time_ms([&] { cub::DeviceRadixSort::SortKeys(tmp, tb, a, b, ni); });
        line("sort", "u32", n, "SortKeys", ms);
        fill_u32<<<4096, 256>>>(va, n, 2);
        ms = time_ms([&] { cub::DeviceRadixSort::SortPairs(tmp, tb, a, b, va, vb, ni); });
        line("sort_pairs", "u32", n, "SortPairs", ms);
        fill_f32<<<4096, 256>>>(f, n, 3);
        ms = time_ms([&] { cub::DeviceHistogram::HistogramEven(tmp, tb, f, h32, 257, 0.0f, 1.0f, ni); });
        line("histogram", "f32", n, "HistogramEven 256 bins", ms);
        ms = time_ms([&] { cub::DeviceHistogram::HistogramEven(tmp, tb, a, h32, 4097, 0u, 0xffffffffu, ni); });
        line("histogram", "u32", n, "HistogramEven 4096 bins", ms);
        fill_u64<<<4096, 256>>>(k0, n, 4);
        ms = time_ms([&] { cub::DeviceRadixSort::SortKeys(tmp, tb, k0, k1, ni); }, 5);
        line("sort", "u64", n, "SortKeys", ms);
        free_all(tmp, k0, k1, v0, v1, hist);
    }
    return 0;
}

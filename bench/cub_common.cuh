// cub_common.cuh - what the native CUB programs in bench/ share: a CUDA
// error check, CUB temp storage grown as needed, and the timing of one call
// (time_cub: a CUB call with its temp-storage query) (CUDA events around it, data
// already on the GPU, median of `reps` runs after a warm-up).
#ifndef GPGPU_BENCH_CUB_COMMON_CUH
#define GPGPU_BENCH_CUB_COMMON_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,        \
                         cudaGetErrorString(e_));                                  \
            std::exit(1);                                                          \
        }                                                                          \
    } while (0)

// cudaFree of each pointer, checked.
template <class... P> static void free_all(P... p)
{
    for (void *q : {static_cast<void *>(p)...})
        CHECK(cudaFree(q));
}

// Median device time in ms of f() over reps runs after one warm-up.
template <class F> static double time_ms(F f, int reps = 10)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    f();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < reps; r++) {
        CHECK(cudaEventRecord(a));
        f();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return t[t.size() / 2];
}

// CUB temp storage of at least bytes, grown as needed.
static inline void *temp(size_t bytes)
{
    static void *p = nullptr;
    static size_t have = 0;
    if (bytes > have) {
        if (p)
            CHECK(cudaFree(p));
        CHECK(cudaMalloc(&p, bytes));
        have = bytes;
    }
    return p;
}

// Median device time in ms of one CUB device call, written once as
// f(temp, bytes): called first with temp == nullptr for the temp-storage
// size, then timed on temp storage of that size.
template <class F> static double time_cub(F f, int reps = 10)
{
    size_t bytes = 0;
    CHECK(f(nullptr, bytes));
    void *t = temp(bytes);
    return time_ms([&] { CHECK(f(t, bytes)); }, reps);
}

#endif

/* pool.c - the host's own cores: one process-wide pool of worker threads
   that runs the parts of a job (staging copies, the host fallback's
   reduce, scan and histogram). Jobs from several contexts or threads take
   turns.

   The workers live only while they can be needed: started by the first
   job, they sleep between jobs and are stopped and joined when the last
   context is destroyed, when the library is unloaded or the process exits
   (unless a job is running then), and are forgotten in the child of a
   fork (where they do not exist), so that the child starts its own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

enum { MAX_THREADS = 64 };

static struct {
    pthread_mutex_t users_lock;    /* guards users; taken before turn */
    size_t users;                  /* live contexts of this process */
    pthread_mutex_t turn;          /* one job at a time; guards the start
                                      and stop of the workers */
    pthread_mutex_t lock;          /* guards everything below */
    pthread_cond_t work, done;
    int started;                   /* the workers have been started */
    int quit;                      /* the workers are asked to end */
    int nthreads;                  /* workers running (the caller works too) */
    int ready;                     /* workers that have reached their loop */
    pthread_t threads[MAX_THREADS];
    /* the job in progress */
    void (*fn)(void *arg, size_t part);
    void *arg;
    size_t nparts, next, finished;
    unsigned long generation;
} pool = {.users_lock = PTHREAD_MUTEX_INITIALIZER, .turn = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

size_t gpgpu__host_threads(void)
{
    const char *v = getenv("GPGPU_THREADS");
    long n = v && *v ? strtol(v, NULL, 10) : 0;
    if (n < 1) {
        /* the cores, read once: sysconf reads a file each time (about
           10 us, more than a small host call's work) */
        static long cores;
        n = __atomic_load_n(&cores, __ATOMIC_RELAXED);
        if (n < 1) {
            n = sysconf(_SC_NPROCESSORS_ONLN);
            __atomic_store_n(&cores, n, __ATOMIC_RELAXED);
        }
        if (n > 16) /* past 16 readers the memory bus, not the cores, limits */
            n = 16;
    }
    if (n < 1)
        n = 1;
    return (size_t)(n > MAX_THREADS ? MAX_THREADS : n);
}

/* 1 where the host code may take its AVX2 paths: the CPU has AVX2 and
   GPGPU_NO_AVX2 is unset, empty or 0 (read once; for timing and testing
   the SSE2 paths on an AVX2 machine). */
int gpgpu__host_avx2(void)
{
#ifdef GPGPU__AVX2_TARGET
    static int known; /* 0: not yet read, 1: no, 2: yes */
    int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (v == 0) {
        const char *e = getenv("GPGPU_NO_AVX2");
        v = __builtin_cpu_supports("avx2") && !(e && *e && strcmp(e, "0") != 0) ? 2 : 1;
        __atomic_store_n(&known, v, __ATOMIC_RELAXED);
    }
    return v == 2;
#else
    return 0;
#endif
}

static uint64_t pack_lanes[256 + 16];
static pthread_once_t pack_lanes_once = PTHREAD_ONCE_INIT;

static void pack_lanes_build(void)
{
    for (unsigned m = 0; m < 256; m++) {
        uint64_t v = 0, v64 = 0;
        for (unsigned l = 0, j = 0, j64 = 0; l < 8; l++) {
            if (!(m >> l & 1))
                continue;
            v |= (uint64_t)l << (8 * j++);
            if (l < 4) {
                v64 |= (uint64_t)(2 * l) << (8 * j64++);
                v64 |= (uint64_t)(2 * l + 1) << (8 * j64++);
            }
        }
        pack_lanes[m] = v;
        if (m < 16)
            pack_lanes[256 + m] = v64;
    }
}

const uint64_t *gpgpu__pack_lanes(void)
{
    pthread_once(&pack_lanes_once, pack_lanes_build);
    return pack_lanes;
}

/* Set while this thread runs a part: a job started from inside a part (a
   sort of each segment, itself parallel) runs on this thread alone, since
   the pool takes one job at a time. */
static _Thread_local int in_part;

/* Runs parts of the current job until none is left. Called with pool.lock. */
static void work_parts(void)
{
    while (pool.next < pool.nparts) {
        size_t part = pool.next++;
        void (*fn)(void *, size_t) = pool.fn;
        void *arg = pool.arg;
        pthread_mutex_unlock(&pool.lock);
        in_part = 1;
        fn(arg, part);
        in_part = 0;
        pthread_mutex_lock(&pool.lock);
        if (++pool.finished == pool.nparts)
            pthread_cond_broadcast(&pool.done);
    }
}

static void *worker(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool.lock);
    pool.ready++;
    pthread_cond_broadcast(&pool.done);
    for (;;) {
        while (pool.generation == seen && !pool.quit)
            pthread_cond_wait(&pool.work, &pool.lock);
        if (pool.quit)
            break;
        seen = pool.generation;
        work_parts();
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* Starts the workers and waits until each has reached its loop. Called
   with pool.turn. A thread still starting can hold locks of the runtime
   (a sanitizer's thread registry or allocator: those are not fork-safe),
   and the caller may fork as soon as its call returns; a child that
   inherited such a lock hung in its first thread or allocation (test_fork
   under AddressSanitizer on a loaded machine, the parent's own job done
   by the calling thread before its workers had started). */
static void start(void)
{
    size_t want = gpgpu__host_threads();
    pool.started = 1;
    for (size_t i = 1; i < want; i++) /* the calling thread is one of them */
        if (pthread_create(&pool.threads[pool.nthreads], NULL, worker, NULL) == 0)
            pool.nthreads++;
    /* fewer workers than asked for: the caller does the rest */
    pthread_mutex_lock(&pool.lock);
    while (pool.ready < pool.nthreads)
        pthread_cond_wait(&pool.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

/* Ends and joins the workers. Called with pool.turn, so no job runs. */
static void stop(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.quit = 1;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.lock);
    for (int i = 0; i < pool.nthreads; i++)
        pthread_join(pool.threads[i], NULL);
    pool.nthreads = pool.ready = 0;
    pool.quit = 0;
    pool.started = 0;
}

void gpgpu__parallel(size_t nparts, void (*fn)(void *arg, size_t part), void *arg)
{
    if (nparts == 0)
        return;
    if (nparts == 1 || in_part) {
        for (size_t i = 0; i < nparts; i++)
            fn(arg, i);
        return;
    }
    pthread_mutex_lock(&pool.turn);
    if (!pool.started)
        start();
    pthread_mutex_lock(&pool.lock);
    pool.fn = fn;
    pool.arg = arg;
    pool.nparts = nparts;
    pool.next = pool.finished = 0;
    pool.generation++;
    if (pool.nthreads)
        pthread_cond_broadcast(&pool.work);
    work_parts();
    while (pool.finished < pool.nparts)
        pthread_cond_wait(&pool.done, &pool.lock);
    pool.fn = NULL;
    pool.nparts = 0;
    pthread_mutex_unlock(&pool.lock);
    pthread_mutex_unlock(&pool.turn);
}

/* ---- host scratch kept between calls ---------------------------------------- */

/* One block of host scratch outlives the call that used it, so that the
   next call of the same size or less finds its pages already mapped: a
   fresh block costs a page fault for every 4 KiB written (a fifth of a
   sort of 2^20 u32 pairs on the host fallback, perf, 2-core EPYC), which a
   loop that sorts into the same scratch every time does not pay. The
   block's size is in a header before it; the slot is one pointer,
   exchanged atomically, so that calls from several threads each take or
   give it whole, and the child of a fork keeps it (its memory is the
   parent's, copied). Blocks above KEEP_MAX are freed at once; the kept one
   goes with the last context (gpgpu__pool_release) or at unload. */
enum { KEEP_HEADER = 64 };
#define KEEP_MAX ((size_t)32 << 20)
static void *kept; /* the block's header, or NULL */

static size_t block_bytes(void *h)
{
    size_t b;
    memcpy(&b, h, sizeof b);
    return b;
}

void *gpgpu__host_scratch(size_t bytes)
{
    void *h = __atomic_exchange_n(&kept, NULL, __ATOMIC_ACQ_REL);
    if (h && block_bytes(h) >= bytes)
        return (char *)h + KEEP_HEADER;
    free(h);
    if (bytes > SIZE_MAX - KEEP_HEADER)
        return NULL;
    h = gpgpu__malloc(bytes + KEEP_HEADER);
    if (!h)
        return NULL;
    memcpy(h, &bytes, sizeof bytes);
    return (char *)h + KEEP_HEADER;
}

void gpgpu__host_scratch_done(void *p)
{
    if (!p)
        return;
    void *h = (char *)p - KEEP_HEADER;
    if (block_bytes(h) > KEEP_MAX) {
        free(h);
        return;
    }
    void *old = __atomic_exchange_n(&kept, h, __ATOMIC_ACQ_REL);
    if (old && block_bytes(old) > block_bytes(h)) /* keep the larger */
        old = __atomic_exchange_n(&kept, old, __ATOMIC_ACQ_REL);
    free(old);
}

static void scratch_release(void)
{
    free(__atomic_exchange_n(&kept, NULL, __ATOMIC_ACQ_REL));
}

void gpgpu__pool_retain(void)
{
    pthread_mutex_lock(&pool.users_lock);
    pool.users++;
    pthread_mutex_unlock(&pool.users_lock);
}

void gpgpu__pool_release(void)
{
    pthread_mutex_lock(&pool.users_lock);
    if (pool.users > 0 && --pool.users == 0) {
        pthread_mutex_lock(&pool.turn);
        if (pool.started)
            stop();
        pthread_mutex_unlock(&pool.turn);
        scratch_release();
    }
    pthread_mutex_unlock(&pool.users_lock);
}

/* The child of a fork has only the thread that forked: the workers, their
   job and whoever held the locks stayed in the parent. Its pool starts
   over, empty and unlocked, and it has no contexts of its own yet. */
static void pool_after_fork(void)
{
    pthread_mutex_init(&pool.users_lock, NULL);
    pthread_mutex_init(&pool.turn, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.work, NULL);
    pthread_cond_init(&pool.done, NULL);
    pool.users = 0;
    pool.started = pool.quit = pool.nthreads = pool.ready = 0;
    pool.fn = NULL;
    pool.arg = NULL;
    pool.nparts = pool.next = pool.finished = 0;
}

__attribute__((constructor)) static void pool_load(void)
{
    pthread_atfork(NULL, NULL, pool_after_fork);
}

/* Unload or exit: the workers end unless a job is running (a thread still
   inside a call at exit keeps them; the process is ending anyway). */
__attribute__((destructor)) static void pool_unload(void)
{
    scratch_release();
    if (pthread_mutex_trylock(&pool.turn) != 0)
        return;
    if (pool.started)
        stop();
    pthread_mutex_unlock(&pool.turn);
}

typedef struct {
    char *dst;
    const char *src;
    size_t bytes, part;
} copy_job;

static void copy_part(void *arg, size_t i)
{
    const copy_job *j = arg;
    size_t first = i * j->part, len = j->bytes - first < j->part ? j->bytes - first : j->part;
    memcpy(j->dst + first, j->src + first, len);
}

void gpgpu__parallel_copy(void *dst, const void *src, size_t bytes)
{
    /* 512 KiB a part at least: below that a thread's wake-up costs more
       than the copy it would take. */
    size_t threads = gpgpu__host_threads(), part = (bytes + threads - 1) / threads;
    if (part < ((size_t)1 << 19))
        part = (size_t)1 << 19;
    part = (part + 63) & ~(size_t)63;
    copy_job j = {dst, src, bytes, part};
    gpgpu__parallel((bytes + part - 1) / part, copy_part, &j);
}

/* pool.c - the host's own cores: one process-wide pool of worker threads
   that runs the parts of a job (staging copies, the host fallback's
   reduce, scan and histogram). Started on first use; its threads sleep
   between jobs. Jobs from several contexts or threads take turns. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

enum { MAX_THREADS = 64 };

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;          /* guards everything below */
    pthread_cond_t work, done;
    pthread_mutex_t turn;          /* one job at a time */
    int nthreads;                  /* workers started (the caller works too) */
    /* the job in progress */
    void (*fn)(void *arg, size_t part);
    void *arg;
    size_t nparts, next, finished;
    unsigned long generation;
} pool = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL, 0, 0, 0, 0};

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
    for (;;) {
        while (pool.generation == seen)
            pthread_cond_wait(&pool.work, &pool.lock);
        seen = pool.generation;
        work_parts();
    }
    return NULL;
}

static void start(void)
{
    size_t want = gpgpu__host_threads();
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (size_t i = 1; i < want; i++) { /* the calling thread is one of them */
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0)
            break; /* fewer workers: the caller does the rest */
        pool.nthreads++;
    }
    pthread_attr_destroy(&attr);
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
    pthread_once(&pool.once, start);
    pthread_mutex_lock(&pool.turn);
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

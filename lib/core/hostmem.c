/*
 * hostmem.c - how the caller's host arrays reach the device.
 *
 * Three routes, chosen per call (ctx->tune.zero_copy, and whether the array
 * lies in a gpgpu_host_alloc block):
 *  - zero copy: devices that share host memory (PoCL, integrated GPUs) get
 *    a CL_MEM_USE_HOST_PTR buffer over the caller's array, and the kernels
 *    work on it where it is. The buffer starts at the array's address
 *    rounded down to the device's base alignment, so that its base is as
 *    aligned as any buffer the device allocates; the kernels get the
 *    array's element offset within it and touch nothing before it.
 *  - pinned: on a discrete GPU, an array inside a gpgpu_host_alloc block is
 *    page-locked already: one DMA each way at the bus's rate.
 *  - staged: any other array moves through a ring of pinned staging
 *    buffers. Host threads fill slot k+1 while the bus moves slot k; back
 *    from the device, the bus fills one slot while the threads empty the
 *    previous one. A download that must be all or nothing (an in-place call
 *    writing the caller's input) goes first into one pinned buffer as large
 *    as the data, and only then into the caller's array.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* ---- gpgpu_host_alloc ----------------------------------------------------- */

struct gpgpu__host_block {
    void *ptr;            /* what the caller got: 4096-aligned */
    size_t bytes;
    void *raw;            /* aligned_alloc'd memory, or the buffer's mapping */
    cl_mem buf;           /* discrete GPUs: the pinned buffer; else NULL */
    struct gpgpu__host_block *next;
};

enum { HOST_ALIGN = 4096 };

/* Pinned memory for bytes: a CL_MEM_ALLOC_HOST_PTR buffer mapped once for
   its life (what NVIDIA's driver page-locks). */
static gpgpu_status pinned_map(gpgpu_context *ctx, size_t bytes, cl_mem *buf, void **ptr)
{
    cl_int err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    *ptr = NULL;
    *buf = gpgpu__fault("clCreateBuffer")
               ? NULL
               : clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                &err);
    if (!*buf)
        return gpgpu__cl_fail(ctx, err, "pinned host memory: clCreateBuffer");
    if (!gpgpu__fault("clEnqueueMapBuffer"))
        *ptr = clEnqueueMapBuffer(ctx->queue, *buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                  bytes, 0, NULL, NULL, &err);
    if (!*ptr) {
        clReleaseMemObject(*buf);
        *buf = NULL;
        return gpgpu__cl_fail(ctx, err, "pinned host memory: clEnqueueMapBuffer");
    }
    return GPGPU_SUCCESS;
}

static void pinned_unmap(gpgpu_context *ctx, cl_mem buf, void *ptr)
{
    clEnqueueUnmapMemObject(ctx->queue, buf, ptr, 0, NULL, NULL);
    clFinish(ctx->queue);
    clReleaseMemObject(buf);
}

void *gpgpu_host_alloc(gpgpu_context *ctx, size_t bytes)
{
    if (!ctx) {
        gpgpu__fail(NULL, GPGPU_ERROR_INVALID_ARGUMENT, "gpgpu_host_alloc: ctx is NULL");
        return NULL;
    }
    if (gpgpu__check_ctx(ctx, "gpgpu_host_alloc") != GPGPU_SUCCESS)
        return NULL;
    if (bytes == 0 || bytes > PTRDIFF_MAX - HOST_ALIGN) {
        gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                    "gpgpu_host_alloc: bytes is %zu; it must be 1 .. PTRDIFF_MAX - 4096", bytes);
        return NULL;
    }
    struct gpgpu__host_block *b = gpgpu__malloc(sizeof *b);
    if (!b) {
        gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY, "gpgpu_host_alloc: out of host memory");
        return NULL;
    }
    b->bytes = bytes;
    b->buf = NULL;
    gpgpu__lock(ctx);
    if (ctx->host || ctx->tune.zero_copy) {
        size_t rounded = (bytes + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN;
        b->raw = gpgpu__fault("malloc") ? NULL : aligned_alloc(HOST_ALIGN, rounded);
        b->ptr = b->raw;
        if (!b->raw)
            gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                        "gpgpu_host_alloc: no host memory for %zu bytes", bytes);
    } else if (pinned_map(ctx, bytes + HOST_ALIGN, &b->buf, &b->raw) == GPGPU_SUCCESS) {
        b->ptr = (void *)(((uintptr_t)b->raw + HOST_ALIGN - 1) & ~(uintptr_t)(HOST_ALIGN - 1));
    }
    if (b->raw) {
        b->next = ctx->host_blocks;
        ctx->host_blocks = b;
    }
    gpgpu__unlock(ctx);
    if (!b->raw) {
        free(b);
        return NULL;
    }
    return b->ptr;
}

static void block_release(gpgpu_context *ctx, struct gpgpu__host_block *b)
{
    if (b->buf)
        pinned_unmap(ctx, b->buf, b->raw);
    else
        free(b->raw);
    free(b);
}

void gpgpu_host_free(gpgpu_context *ctx, void *p)
{
    if (!ctx || !p || gpgpu__check_ctx(ctx, "gpgpu_host_free") != GPGPU_SUCCESS)
        return; /* a fork's child: gpgpu_context_destroy frees the block */
    gpgpu__lock(ctx);
    struct gpgpu__host_block **at = &ctx->host_blocks;
    while (*at && (*at)->ptr != p)
        at = &(*at)->next;
    struct gpgpu__host_block *b = *at;
    if (b) {
        *at = b->next;
        if (ctx->queue)
            clFinish(ctx->queue); /* nothing queued may still read it */
        block_release(ctx, b);
    } else {
        gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                    "gpgpu_host_free: p is not memory from gpgpu_host_alloc on this context");
    }
    gpgpu__unlock(ctx);
}

void gpgpu__host_memory_release(gpgpu_context *ctx)
{
    if (gpgpu__foreign(ctx)) { /* a fork's child: the mappings are the parent's platform's */
        while (ctx->host_blocks) {
            struct gpgpu__host_block *b = ctx->host_blocks;
            ctx->host_blocks = b->next;
            if (!b->buf)
                free(b->raw);
            free(b);
        }
        return;
    }
    while (ctx->host_blocks) {
        struct gpgpu__host_block *b = ctx->host_blocks;
        ctx->host_blocks = b->next;
        block_release(ctx, b);
    }
    for (int i = 0; i < GPGPU__STAGE_SLOTS; i++) {
        if (ctx->stage_ev[i])
            clReleaseEvent(ctx->stage_ev[i]);
        if (ctx->stage_buf[i])
            pinned_unmap(ctx, ctx->stage_buf[i], ctx->stage_ptr[i]);
    }
    if (ctx->whole_buf)
        pinned_unmap(ctx, ctx->whole_buf, ctx->whole_ptr);
}

int gpgpu__pinned(const gpgpu_context *ctx, const void *p, size_t bytes)
{
    uintptr_t a = (uintptr_t)p;
    for (const struct gpgpu__host_block *b = ctx->host_blocks; b; b = b->next) {
        uintptr_t lo = (uintptr_t)b->ptr;
        if (a >= lo && a - lo <= b->bytes && bytes <= b->bytes - (a - lo))
            return 1;
    }
    return 0;
}

int gpgpu__small_on_host(const gpgpu_context *ctx, size_t n)
{
    return n <= ctx->tune.small_host;
}

int gpgpu__host_below(const gpgpu_context *ctx, gpgpu__host_prim p, size_t n)
{
    return !ctx->host && n < ctx->tune.host_below[p];
}

int gpgpu__host_reads(gpgpu_context *ctx, const void *p, size_t bytes)
{
    if (!ctx->tune.host_reads || ctx->tune.zero_copy || ctx->host || bytes < ctx->tune.stage_min)
        return 0;
    gpgpu__lock(ctx); /* the blocks' list */
    int pinned = gpgpu__pinned(ctx, p, bytes);
    gpgpu__unlock(ctx);
    return !pinned;
}

/* ---- zero copy -------------------------------------------------------------- */

int gpgpu__in_place(const gpgpu_context *ctx, size_t bytes)
{
    return ctx->tune.zero_copy && bytes > 0 && bytes <= ctx->max_alloc - ctx->base_align;
}

gpgpu_status gpgpu__host_view(gpgpu_context *ctx, const void *p, size_t bytes, int write,
                              cl_mem *buf, size_t *offset)
{
    uintptr_t a = (uintptr_t)p, base = a & ~(uintptr_t)(ctx->base_align - 1);
    cl_int err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    size_t span = bytes + (size_t)(a - base);
    *buf = NULL;
    *offset = (size_t)(a - base);
    if (bytes == 0 || span > ctx->max_alloc)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "an array of %zu bytes cannot be viewed in place", bytes);
    /* CL_MEM_USE_HOST_PTR: the buffer is the caller's memory; read-only
       arrays are declared so, so that no implementation writes them back. */
    cl_mem_flags flags = CL_MEM_USE_HOST_PTR | (write ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY);
    if (!gpgpu__fault("clCreateBuffer"))
        *buf = clCreateBuffer(ctx->cl, flags, span, (void *)base, &err);
    if (!*buf)
        return gpgpu__cl_fail(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    return GPGPU_SUCCESS;
}

/* ---- staged transfers -------------------------------------------------------- */

/* Slot i of the ring, created on first use; waits until the transfer that
   last used it has finished. */
static gpgpu_status stage_slot(gpgpu_context *ctx, int i, void **ptr)
{
    if (!ctx->stage_buf[i])
        GPGPU__TRY(pinned_map(ctx, ctx->tune.stage_bytes, &ctx->stage_buf[i],
                              &ctx->stage_ptr[i]));
    if (ctx->stage_ev[i]) {
        cl_int err = clWaitForEvents(1, &ctx->stage_ev[i]);
        clReleaseEvent(ctx->stage_ev[i]);
        ctx->stage_ev[i] = NULL;
        if (err != CL_SUCCESS)
            return gpgpu__cl_fail(ctx, err, "clWaitForEvents (staging)");
    }
    *ptr = ctx->stage_ptr[i];
    return GPGPU_SUCCESS;
}

/* One non-blocking transfer between buf and host memory that stays valid
   until ev (which the caller keeps) completes. */
static gpgpu_status transfer(gpgpu_context *ctx, int write, cl_mem buf, size_t offset,
                             size_t bytes, void *host, cl_event *ev)
{
    const cl_event *wait;
    cl_uint nwait = gpgpu__take_wait(ctx, &wait);
    const char *what = write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer";
    cl_int err = gpgpu__fault(what)
                     ? CL_OUT_OF_RESOURCES
                     : write ? clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, offset, bytes, host,
                                                    nwait, wait, ev)
                             : clEnqueueReadBuffer(ctx->queue, buf, CL_FALSE, offset, bytes, host,
                                                   nwait, wait, ev);
    if (err != CL_SUCCESS)
        return gpgpu__cl_fail(ctx, err, what);
    return GPGPU_SUCCESS;
}

/* Whether bytes of host memory at p go through the staging ring: not on
   devices that share host memory (a plain copy there is one memcpy, the
   ring two), and not from pinned blocks (one DMA). */
static int staged(const gpgpu_context *ctx, const void *p, size_t bytes)
{
    return !ctx->tune.zero_copy && bytes >= ctx->tune.stage_min &&
           !gpgpu__pinned(ctx, p, bytes);
}

gpgpu_status gpgpu__upload(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                           const void *host)
{
    if (!staged(ctx, host, bytes)) {
        gpgpu__note_route(ctx, gpgpu__pinned(ctx, host, bytes) ? "pinned" : "copy");
        return gpgpu__write(ctx, buf, offset, bytes, host);
    }
    const size_t slot = ctx->tune.stage_bytes;
    for (size_t done = 0, k = 0; done < bytes; done += slot, k++) {
        size_t len = bytes - done < slot ? bytes - done : slot;
        int i = (int)(k % GPGPU__STAGE_SLOTS);
        void *stage;
        GPGPU__TRY(stage_slot(ctx, i, &stage));
        gpgpu__parallel_copy(stage, (const char *)host + done, len);
        GPGPU__TRY(transfer(ctx, 1, buf, offset + done, len, stage, &ctx->stage_ev[i]));
    }
    gpgpu__note_route(ctx, "staged");
    return GPGPU_SUCCESS;
}

/* Blocking read of bytes through the ring: while the host threads empty
   the slot of chunk c into host, the bus fills the slots of the chunks
   after it. */
static gpgpu_status download_ring(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                                  void *host)
{
    const size_t slot = ctx->tune.stage_bytes, nchunks = (bytes + slot - 1) / slot;
    size_t issued = 0;
    for (size_t c = 0; c < nchunks; c++) {
        for (; issued < nchunks && issued < c + GPGPU__STAGE_SLOTS; issued++) {
            int i = (int)(issued % GPGPU__STAGE_SLOTS);
            size_t first = issued * slot, len = bytes - first < slot ? bytes - first : slot;
            void *stage;
            GPGPU__TRY(stage_slot(ctx, i, &stage));
            GPGPU__TRY(transfer(ctx, 0, buf, offset + first, len, stage, &ctx->stage_ev[i]));
        }
        size_t first = c * slot, len = bytes - first < slot ? bytes - first : slot;
        void *stage;
        GPGPU__TRY(stage_slot(ctx, (int)(c % GPGPU__STAGE_SLOTS), &stage));
        gpgpu__parallel_copy((char *)host + first, stage, len);
    }
    return GPGPU_SUCCESS;
}

/* The pinned buffer of all-or-nothing downloads, grown to at least bytes
   (its old memory released first, so that the two never add up). */
static gpgpu_status whole_staging(gpgpu_context *ctx, size_t bytes)
{
    if (ctx->whole_bytes >= bytes)
        return GPGPU_SUCCESS;
    if (ctx->whole_buf)
        pinned_unmap(ctx, ctx->whole_buf, ctx->whole_ptr);
    ctx->whole_buf = NULL;
    ctx->whole_bytes = 0;
    GPGPU__TRY(pinned_map(ctx, bytes, &ctx->whole_buf, &ctx->whole_ptr));
    ctx->whole_bytes = bytes;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__download(gpgpu_context *ctx, cl_mem buf, size_t offset, size_t bytes,
                             void *host, int all_or_nothing)
{
    if (!staged(ctx, host, bytes)) {
        gpgpu__note_route(ctx, gpgpu__pinned(ctx, host, bytes) ? "pinned" : "copy");
        return gpgpu__read(ctx, buf, offset, bytes, host);
    }
    gpgpu__note_route(ctx, "staged");
    if (!all_or_nothing)
        return download_ring(ctx, buf, offset, bytes, host);
    /* Everything into one pinned buffer first: only a complete result
       reaches the caller's array. */
    GPGPU__TRY(whole_staging(ctx, bytes));
    GPGPU__TRY(gpgpu__read(ctx, buf, offset, bytes, ctx->whole_ptr));
    gpgpu__parallel_copy(host, ctx->whole_ptr, bytes);
    return GPGPU_SUCCESS;
}

/* Several all-or-nothing downloads as one: each goes into its own part of
   the whole-size pinned buffer, and the caller's arrays are written only
   once every read has succeeded. */
gpgpu_status gpgpu__download_all(gpgpu_context *ctx, size_t count, const cl_mem *bufs,
                                 const size_t *bytes, void *const *hosts)
{
    size_t total = 0, at = 0;
    for (size_t i = 0; i < count; i++)
        total += (bytes[i] + 63) & ~(size_t)63;
    if (count == 1) /* one read: it writes all or nothing by itself */
        return gpgpu__download(ctx, bufs[0], 0, bytes[0], hosts[0], 1);
    /* Direct reads would write the first array before the second read
       could fail: every array goes through the pinned buffer. */
    gpgpu__note_route(ctx, "staged");
    GPGPU__TRY(whole_staging(ctx, total));
    for (size_t i = 0; i < count; i++) {
        GPGPU__TRY(gpgpu__read(ctx, bufs[i], 0, bytes[i], (char *)ctx->whole_ptr + at));
        at += (bytes[i] + 63) & ~(size_t)63;
    }
    at = 0;
    for (size_t i = 0; i < count; i++) {
        gpgpu__parallel_copy(hosts[i], (char *)ctx->whole_ptr + at, bytes[i]);
        at += (bytes[i] + 63) & ~(size_t)63;
    }
    return GPGPU_SUCCESS;
}

/* profile.c - event timestamps -> records of the last call's commands
   (kernels, and the copies, fills and writes of device memory). */
#include <stdio.h>
#include <stdlib.h>

#include "core/core.h"

gpgpu_status gpgpu_set_profiling(gpgpu_context *ctx, int enabled)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    if (enabled && !ctx->host && !ctx->can_profile)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED,
                           "gpgpu_set_profiling: the queue was created without "
                           "CL_QUEUE_PROFILING_ENABLE");
    gpgpu__lock(ctx);
    ctx->profiling = enabled && !ctx->host;
    gpgpu__unlock(ctx);
    return GPGPU_SUCCESS;
}

void gpgpu__profile_clear(gpgpu_context *ctx)
{
    for (size_t i = 0; i < ctx->nlaunches; i++)
        clReleaseEvent(ctx->launches[i].event);
    ctx->nlaunches = 0;
    ctx->nrecords = 0;
}

void gpgpu__profile_launch(gpgpu_context *ctx, cl_event ev, const char *kernel, size_t global,
                           size_t local)
{
    if (ctx->nlaunches == ctx->launches_cap) {
        size_t cap = ctx->launches_cap ? 2 * ctx->launches_cap : 16;
        gpgpu__launch *l = realloc(ctx->launches, cap * sizeof *l);
        if (!l) { /* profiling is best effort: lose this record, not the call */
            clReleaseEvent(ev);
            return;
        }
        ctx->launches = l;
        ctx->launches_cap = cap;
    }
    ctx->launches[ctx->nlaunches++] = (gpgpu__launch){ev, kernel, global, local};
}

void gpgpu__profile_relabel(gpgpu_context *ctx, const char *what, size_t global, size_t local)
{
    if (ctx->profiling && ctx->nlaunches) {
        gpgpu__launch *l = &ctx->launches[ctx->nlaunches - 1];
        l->kernel = what;
        l->global_size = global;
        l->local_size = local;
    }
}

/* Turns the launches' events into records (waits for them). */
static size_t resolve(gpgpu_context *ctx)
{
    if (ctx->nrecords == ctx->nlaunches)
        return ctx->nrecords;
    gpgpu_kernel_time *r = realloc(ctx->records, (ctx->nlaunches + 1) * sizeof *r);
    if (!r)
        return 0;
    ctx->records = r;
    for (size_t i = 0; i < ctx->nlaunches; i++) {
        gpgpu__launch *l = &ctx->launches[i];
        cl_ulong t[4] = {0, 0, 0, 0};
        static const cl_profiling_info what[4] = {
            CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
            CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
        clWaitForEvents(1, &l->event);
        for (int j = 0; j < 4; j++)
            clGetEventProfilingInfo(l->event, what[j], sizeof t[j], &t[j], NULL);
        r[i] = (gpgpu_kernel_time){l->kernel, (unsigned)i, l->global_size, l->local_size,
                                   t[0], t[1], t[2], t[3]};
    }
    ctx->nrecords = ctx->nlaunches;
    return ctx->nrecords;
}

size_t gpgpu_profile(const gpgpu_context *cctx, const gpgpu_kernel_time **records)
{
    if (records)
        *records = NULL;
    if (!cctx || cctx->host || gpgpu__foreign(cctx))
        return 0;
    gpgpu_context *ctx = (gpgpu_context *)cctx; /* resolving records is a cache */
    gpgpu__lock(ctx);
    size_t n = resolve(ctx);
    if (records)
        *records = n ? ctx->records : NULL;
    gpgpu__unlock(ctx);
    return n;
}

void gpgpu__profile_print(gpgpu_context *ctx, const char *call)
{
    size_t n = resolve(ctx);
    if (!n)
        return;
    const gpgpu_kernel_time *r = ctx->records;
    fprintf(stderr, "gpgpu: %s on %s: %zu command(s), %.3f ms from first start to last end\n",
            call, ctx->name, n, (double)(r[n - 1].end_ns - r[0].start_ns) * 1e-6);
    fprintf(stderr, "  pass  command                       global    local   queue->start ms   run ms\n");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %4u  %-28s %8zu %8zu %17.3f %8.3f\n", r[i].pass, r[i].kernel,
                r[i].global_size, r[i].local_size, (double)(r[i].start_ns - r[i].queued_ns) * 1e-6,
                (double)(r[i].end_ns - r[i].start_ns) * 1e-6);
}

/* sum_exact.c - GPGPU_SUM_EXACT on F32 and F64: the exact sum rounded once
   to nearest even, the same bits on every device, plan and chunking.

   kernels/sum_exact.cl says how: the sum is an integer times 2^BASE, kept
   in 32-bit limbs of signed 64-bit words whose additions are exact (the
   kernels add most elements into a narrower integer window first). The
   device writes one row of limbs (and flags) per work-group, or per work
   item on CPUs; the host API
   runs the pass over each chunk of a large input into rows of one scratch
   buffer, so that one final launch adds every row and rounds once. The
   plain-C fallback (lib/host/host_sum_exact.c) does the same arithmetic.

   gpgpu_exact_partial_sum (gpgpu.h) stops before the rounding: the same
   passes write the rows, the host reads them back and adds them column by
   column into one canonical integer; gpgpu_exact_partial_add adds two such
   integers and gpgpu_exact_partial_round rounds once, as the final kernel
   does (libgpgpu-mpi adds the ranks' partials so). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primitives/primitives.h"

static size_t groups_for(const gpgpu_context *ctx, size_t n)
{
    size_t per_group = ctx->tune.wg * 1024; /* enough work to pay for a row */
    size_t g = (n + per_group - 1) / per_group;
    if (g > ctx->tune.groups)
        g = ctx->tune.groups;
    return g ? g : 1;
}

static gpgpu_status program(gpgpu_context *ctx, gpgpu_type t, const char *map,
                            gpgpu__program **prog)
{
    char options[128], extra[GPGPU__EXPR_MAX + 32];
    const char *op_src;
    GPGPU__TRY(gpgpu__type_supported(ctx, GPGPU_I64)); /* the limbs */
    GPGPU__TRY(gpgpu__type_op_options(ctx, t, GPGPU_SUM, options, sizeof options, &op_src));
    if (map)
        snprintf(extra, sizeof extra, "#define MAP (%s)\n", map);
    if (ctx->tune.chunked && ctx->fp64) { /* f32 blocks in double lanes (sum_exact.cl) */
        size_t used = strlen(options);
        snprintf(options + used, sizeof options - used, " -D SX_DOUBLE=1");
    }
    return gpgpu__program_get(ctx, "sum_exact", map ? extra : NULL, options, prog);
}

gpgpu_status gpgpu__sum_exact_program(gpgpu_context *ctx, gpgpu_type t, gpgpu__program **prog)
{
    return program(ctx, t, NULL, prog);
}

/* Rows one pass writes: one per work item when chunked, else per group. */
static size_t rows_of(const gpgpu_context *ctx, size_t groups)
{
    return ctx->tune.chunked ? groups * ctx->tune.wg : groups;
}

/* The pass over in[off .. +n) into rows row0 .. row0 + rows_of(groups) - 1. */
static gpgpu_status pass(gpgpu_context *ctx, gpgpu__program *prog, cl_mem in, cl_ulong off,
                         cl_ulong n, size_t groups, cl_mem rows, cl_ulong row0)
{
    const size_t wg = ctx->tune.wg;
    return gpgpu__run(ctx, prog, "sum_exact_pass", groups * wg, wg, GPGPU__ARG(in),
                      GPGPU__ARG(off), GPGPU__ARG(n), GPGPU__ARG(rows), GPGPU__ARG(row0),
                      GPGPU__END);
}

static gpgpu_status final(gpgpu_context *ctx, gpgpu__program *prog, cl_mem rows,
                          cl_ulong nrows, cl_mem result, cl_ulong result_off)
{
    const size_t wg = ctx->tune.wg;
    return gpgpu__run(ctx, prog, "sum_exact_final", wg, wg, GPGPU__ARG(rows),
                      GPGPU__ARG(nrows), GPGPU__ARG(result), GPGPU__ARG(result_off),
                      GPGPU__END);
}

gpgpu_status gpgpu__sum_exact_enqueue(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                      cl_mem in, size_t in_off, size_t n, cl_mem result,
                                      size_t result_off)
{
    gpgpu__program *prog;
    cl_mem rows;
    const size_t groups = groups_for(ctx, n);
    GPGPU__TRY(program(ctx, t, map, &prog));
    const size_t nrows = rows_of(ctx, groups);
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS,
                              nrows * (gpgpu__exact_limbs(t) + 1) * sizeof(cl_long), &rows));
    GPGPU__TRY(pass(ctx, prog, in, in_off, n, groups, rows, 0));
    return final(ctx, prog, rows, nrows, result, result_off);
}

/* The pass over host memory in[0 .. n), chunk by chunk, into rows of one
   scratch buffer: *rows and their number *nrows, for *prog's final kernel
   or for the host to read back. */
static gpgpu_status host_rows(gpgpu_context *ctx, gpgpu_type t, const char *map, const void *in,
                              size_t n, gpgpu__program **prog, cl_mem *rows, size_t *nrows)
{
    const size_t size = gpgpu__type(t)->size, chunk = gpgpu__chunk_elems(ctx, size);
    const size_t nchunks = n ? (n + chunk - 1) / chunk : 1;
    const size_t groups = groups_for(ctx, n < chunk ? n : chunk), per = rows_of(ctx, groups);
    cl_mem buf;
    GPGPU__TRY(program(ctx, t, map, prog));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_IN, (n < chunk ? n : chunk) * size, &buf));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_PARTIALS2,
                              nchunks * per * (gpgpu__exact_limbs(t) + 1) * sizeof(cl_long), rows));
    if (gpgpu__in_place(ctx, n * size)) { /* shared memory: the pass reads in where it is */
        size_t off;
        cl_mem view;
        GPGPU__TRY(gpgpu__host_view(ctx, in, n * size, 0, &view, &off));
        gpgpu__note_route(ctx, "zero-copy");
        gpgpu_status s = pass(ctx, *prog, view, off / size, n, groups, *rows, 0);
        clReleaseMemObject(view); /* the pass, once enqueued, keeps it */
        *nrows = per;
        return s;
    }
    for (size_t c = 0; c < nchunks; c++) {
        size_t first = c * chunk, len = n - first < chunk ? n - first : chunk;
        GPGPU__TRY(gpgpu__upload(ctx, buf, 0, len * size, (const char *)in + first * size));
        GPGPU__TRY(pass(ctx, *prog, buf, 0, len, groups, *rows, c * per));
        if (nchunks > 1) /* the next write reuses buf: wait for this pass */
            GPGPU__TRY(gpgpu__finish(ctx));
    }
    *nrows = nchunks * per;
    return GPGPU_SUCCESS;
}

gpgpu_status gpgpu__sum_exact_host_api(gpgpu_context *ctx, gpgpu_type t, const char *map,
                                       const void *in, size_t n, void *result)
{
    const size_t size = gpgpu__type(t)->size;
    gpgpu__program *prog;
    cl_mem rows, out;
    size_t nrows;
    GPGPU__TRY(host_rows(ctx, t, map, in, n, &prog, &rows, &nrows));
    GPGPU__TRY(gpgpu__scratch(ctx, GPGPU__SLOT_OUT, size, &out));
    GPGPU__TRY(final(ctx, prog, rows, nrows, out, 0));
    return gpgpu__read(ctx, out, 0, size, result);
}

/* ---- partial exact sums (gpgpu.h: gpgpu_exact_partial) --------------------- */

/* The rows of the passes over in[0 .. n), read back and added column by
   column into p (zero, type set). Under the lock. */
static gpgpu_status partial_device(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                   gpgpu_exact_partial *p)
{
    const size_t limbs = gpgpu__exact_limbs(t), row = limbs + 1;
    gpgpu__program *prog;
    cl_mem rows;
    size_t nrows;
    GPGPU__TRY(host_rows(ctx, t, NULL, in, n, &prog, &rows, &nrows));
    int64_t *h = malloc(nrows * row * sizeof *h);
    if (!h)
        return gpgpu__fail(ctx, GPGPU_ERROR_OUT_OF_MEMORY,
                           "gpgpu_exact_partial_sum: no host memory for %zu rows of %zu limbs",
                           nrows, row);
    gpgpu_status s = gpgpu__read(ctx, rows, 0, nrows * row * sizeof *h, h);
    if (s == GPGPU_SUCCESS) {
        unsigned flags = 0;
        for (size_t r = 0; r < nrows; r++) {
            /* a row's limbs are below 2^32 times the items of a group in
               magnitude: added to canonical limbs, they cannot overflow */
            for (size_t j = 0; j < limbs; j++)
                p->limb[j] += h[r * row + j];
            flags |= (unsigned)h[r * row + limbs];
            gpgpu__exact_carry(p->limb, limbs);
        }
        p->flags = flags & GPGPU__EXACT_FLAGS;
    }
    free(h);
    return s;
}

gpgpu_status gpgpu_exact_partial_sum(gpgpu_context *ctx, gpgpu_type t, const void *in, size_t n,
                                     gpgpu_exact_partial *p)
{
    GPGPU__TRY(gpgpu__check_ctx(ctx, __func__));
    GPGPU__REQUIRE(ctx, t == GPGPU_F32 || t == GPGPU_F64, __func__,
                   "t is %d; need GPGPU_F32 or GPGPU_F64", (int)t);
    GPGPU__REQUIRE(ctx, p != NULL, __func__, "p is NULL; need room for the partial");
    const size_t size = gpgpu__type(t)->size;
    GPGPU__TRY(gpgpu__check_array(ctx, __func__, "in", in, n, size, 1, size));
    gpgpu_exact_partial r;
    gpgpu_exact_partial_init(&r, t); /* t checked above: it cannot fail */
    if (ctx->host) {
        unsigned flags = 0;
        gpgpu__exact_accumulate(t, in, n, r.limb, &flags);
        r.flags = flags;
        *p = r;
        return GPGPU_SUCCESS;
    }
    gpgpu__lock(ctx);
    gpgpu__begin(ctx, 0, NULL, NULL);
    gpgpu_status s = gpgpu__host_call_end(ctx, __func__, partial_device(ctx, t, in, n, &r));
    if (s == GPGPU_SUCCESS)
        *p = r;
    return s;
}

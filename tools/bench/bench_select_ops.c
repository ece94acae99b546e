/* bench_select_ops.c - gpgpu-bench's unique, run_length_encode, partition,
   histogram_edges and sum_exact. Each times its reference in the same run
   on the same data, in the same form (--api: _buffer, host call or _array),
   and says how it compares in the note:
     unique, run_length_encode, partition   against gpgpu_select "x > 0"
     sum_exact                              against GPGPU_SUM
     histogram_edges                        against gpgpu_histogram, even bins
   Inputs: runs of two on average (each element repeats the one before with
   probability 1/2), half of them positive (zero for unsigned types). The
   check reads what the timed call wrote (untimed) and compares it with a
   plain loop. On the host fallback select's predicate has no device: unique
   and run_length_encode run without the comparison, partition not at all. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef enum { UNIQUE, RLE, PARTITION, SELECT, EDGES, EVEN, EXACT, SUM } kind;

typedef struct {
    bench *b;
    kind k;
    gpgpu_type t;
    size_t n, nbins;
    const void *hin;
    void *hout;
    uint64_t *hlen;             /* run lengths or bins */
    const double *edges;
    size_t count;
    cl_mem in, out, len, cnt;   /* --api buffer */
    gpgpu_array *ain, *aout, *alen; /* --api array: bins and sums go to hlen and hout */
} case_;

/* The _array forms: outputs to other arrays than the input (the rule of the
   array calls); counts, bins and sums to host memory, waited for. */
static gpgpu_status array_call(case_ *c)
{
    gpgpu_context *ctx = c->b->ctx;
    const double lo = c->edges[0], hi = c->edges[c->nbins];
    switch (c->k) {
    case UNIQUE: return gpgpu_unique_array(ctx, c->ain, c->aout, &c->count);
    case RLE: return gpgpu_run_length_encode_array(ctx, c->ain, c->aout, c->alen, &c->count);
    case PARTITION: return gpgpu_partition_array(ctx, "x > 0", c->ain, c->aout, &c->count);
    case SELECT: return gpgpu_select_array(ctx, "x > 0", c->ain, c->aout, &c->count);
    case EDGES: return gpgpu_histogram_edges_array(ctx, c->ain, c->edges, c->nbins, c->hlen);
    case EVEN: return gpgpu_histogram_array(ctx, c->ain, c->nbins, lo, hi, c->hlen);
    case EXACT: return gpgpu_reduce_array(ctx, GPGPU_SUM_EXACT, c->ain, c->hout);
    case SUM: return gpgpu_reduce_array(ctx, GPGPU_SUM, c->ain, c->hout);
    }
    return GPGPU_ERROR_INVALID_ARGUMENT;
}

static gpgpu_status call(void *arg)
{
    case_ *c = arg;
    gpgpu_context *ctx = c->b->ctx;
    const double lo = c->edges[0], hi = c->edges[c->nbins];
    if (c->ain)
        return array_call(c);
    if (!c->in) {
        switch (c->k) {
        case UNIQUE: return gpgpu_unique(ctx, c->t, c->hin, c->n, c->hout, &c->count);
        case RLE: return gpgpu_run_length_encode(ctx, c->t, c->hin, c->n, c->hout, c->hlen,
                                                 &c->count);
        case PARTITION: return gpgpu_partition(ctx, c->t, "x > 0", c->hin, c->n, c->hout,
                                               &c->count);
        case SELECT: return gpgpu_select(ctx, c->t, "x > 0", c->hin, c->n, c->hout, &c->count);
        case EDGES: return gpgpu_histogram_edges(ctx, c->t, c->hin, c->n, c->edges, c->nbins,
                                                 c->hlen);
        case EVEN: return gpgpu_histogram(ctx, c->t, c->hin, c->n, c->nbins, lo, hi, c->hlen);
        case EXACT: return gpgpu_reduce(ctx, c->t, GPGPU_SUM_EXACT, c->hin, c->n, c->hout);
        case SUM: return gpgpu_reduce(ctx, c->t, GPGPU_SUM, c->hin, c->n, c->hout);
        }
    }
    switch (c->k) {
    case UNIQUE: return gpgpu_unique_buffer(ctx, c->t, c->in, 0, c->n, c->out, 0, c->cnt, 0, 0,
                                            NULL, NULL);
    case RLE: return gpgpu_run_length_encode_buffer(ctx, c->t, c->in, 0, c->n, c->out, 0,
                                                    c->len, 0, c->cnt, 0, 0, NULL, NULL);
    case PARTITION: return gpgpu_partition_buffer(ctx, c->t, "x > 0", c->in, 0, c->n, c->out,
                                                  0, c->cnt, 0, 0, NULL, NULL);
    case SELECT: return gpgpu_select_buffer(ctx, c->t, "x > 0", c->in, 0, c->n, c->out, 0,
                                            c->cnt, 0, 0, NULL, NULL);
    case EDGES: return gpgpu_histogram_edges_buffer(ctx, c->t, c->in, 0, c->n, c->edges,
                                                    c->nbins, c->len, 0, 0, NULL, NULL);
    case EVEN: return gpgpu_histogram_buffer(ctx, c->t, c->in, 0, c->n, c->nbins, lo, hi,
                                             c->len, 0, 0, NULL, NULL);
    case EXACT: return gpgpu_reduce_buffer(ctx, c->t, GPGPU_SUM_EXACT, c->in, 0, c->n, c->out,
                                           0, 0, NULL, NULL);
    case SUM: return gpgpu_reduce_buffer(ctx, c->t, GPGPU_SUM, c->in, 0, c->n, c->out, 0, 0,
                                         NULL, NULL);
    }
    return GPGPU_ERROR_INVALID_ARGUMENT;
}

static void fill(gpgpu_type t, void *buf, size_t n, uint64_t seed)
{
    size_t size = gpgpu_type_size(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bench_splitmix(&seed);
        if (i > 0 && (r & 2)) {
            memcpy((char *)buf + i * size, (char *)buf + (i - 1) * size, size);
            continue;
        }
        int pos = (int)(r & 1);
        double u = (double)(r >> 11) * 0x1.0p-53 * (pos ? 1 : -1);
        switch (t) {
        case GPGPU_I32: ((int32_t *)buf)[i] = (int32_t)((r >> 34) | 1) * (pos ? 1 : -1); break;
        case GPGPU_U32: ((uint32_t *)buf)[i] = pos ? (uint32_t)(r >> 32) | 1 : 0; break;
        case GPGPU_F32: ((float *)buf)[i] = (float)u; break;
        case GPGPU_I64: ((int64_t *)buf)[i] = (int64_t)((r >> 2) | 1) * (pos ? 1 : -1); break;
        case GPGPU_U64: ((uint64_t *)buf)[i] = pos ? r | 1 : 0; break;
        case GPGPU_F64: ((double *)buf)[i] = u; break;
        }
    }
}

/* Element i of in as a double: exact for the 32-bit types and floats; a
   64-bit integer may round, but never across an edge here (every edge is
   in [-0.5, 1], where doubles hold each integer exactly). */
static double as_double(gpgpu_type t, const void *in, size_t i)
{
    switch (t) {
    case GPGPU_I32: return ((const int32_t *)in)[i];
    case GPGPU_U32: return ((const uint32_t *)in)[i];
    case GPGPU_F32: return ((const float *)in)[i];
    case GPGPU_I64: return (double)((const int64_t *)in)[i];
    case GPGPU_U64: return (double)((const uint64_t *)in)[i];
    case GPGPU_F64: return ((const double *)in)[i];
    }
    return 0;
}

/* Whether out (the count run heads of unique and rle, all n elements of
   partition) and len (rle's run lengths, or the bins of edges) are what a
   plain loop over the input gives. */
static int verify(const case_ *c, const void *out, const uint64_t *len)
{
    const size_t size = gpgpu_type_size(c->t), n = c->n;
    const char *in = c->hin, *o = out;
    if (c->k == EDGES) {
        uint64_t *want = calloc(c->nbins, sizeof *want);
        if (!want)
            return 0;
        for (size_t i = 0; i < n; i++) {
            double x = as_double(c->t, in, i);
            if (!(x >= c->edges[0] && x <= c->edges[c->nbins]))
                continue;
            size_t lo = 0, hi = c->nbins; /* the last edge <= x, at most nbins - 1 */
            while (hi - lo > 1) {
                size_t mid = lo + (hi - lo) / 2;
                if (c->edges[mid] <= x)
                    lo = mid;
                else
                    hi = mid;
            }
            want[lo]++;
        }
        int ok = !memcmp(want, len, c->nbins * sizeof *want);
        free(want);
        return ok;
    }
    if (c->k == PARTITION) { /* the positive elements in order, then the others in order */
        size_t sel = 0, rest = c->count;
        if (c->count > n)
            return 0;
        for (size_t i = 0; i < n; i++) {
            size_t at = as_double(c->t, in, i) > 0 ? sel++ : rest++;
            if (at >= n || memcmp(in + i * size, o + at * size, size))
                return 0;
        }
        return sel == c->count;
    }
    /* unique, rle: the run heads, and with rle the runs' lengths */
    size_t runs = 0, head = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && i > 0 && !memcmp(in + i * size, in + (i - 1) * size, size))
            continue;
        if (i > 0) { /* the run [head, i) ends */
            if (runs >= c->count || memcmp(in + head * size, o + runs * size, size) ||
                (c->k == RLE && len[runs] != i - head))
                return 0;
            runs++;
        }
        head = i;
    }
    return runs == c->count;
}

/* ---- the serial C loops (u32, f32 and f64 inputs: the suite's types) ---- */

typedef struct {
    kind k;
    gpgpu_type t;
    size_t n, nbins;
    const void *in;
    void *out;
    uint64_t *len;
    const double *edges;
    volatile size_t sink;
} serial_case;

#define SERIAL_UNIQUE(T, RLE)                                                \
    do {                                                                     \
        const T *x = s->in;                                                  \
        T *o = s->out;                                                       \
        size_t k = 0;                                                        \
        for (size_t i = 0; i < s->n; i++)                                    \
            if (i == 0 || x[i] != x[i - 1]) {                                \
                if (RLE && k)                                                \
                    s->len[k - 1] = i - start;                               \
                start = i;                                                   \
                o[k++] = x[i];                                               \
            }                                                                \
        if (RLE && k)                                                        \
            s->len[k - 1] = s->n - start;                                    \
        s->sink = k;                                                         \
    } while (0)

#define SERIAL_PARTITION(T)                                                  \
    do {                                                                     \
        size_t k = 0;                                                        \
        BENCH_SERIAL_KEEP(T, s->in, s->n, s->out, k, BENCH_POSITIVE);        \
        size_t kept = k;                                                     \
        BENCH_SERIAL_KEEP(T, s->in, s->n, s->out, k, BENCH_NOT_POSITIVE);    \
        s->sink = kept;                                                      \
    } while (0)

/* A binary search over the edges per sample, as in verify(). */
#define SERIAL_EDGES(T)                                                      \
    do {                                                                     \
        const T *x = s->in;                                                  \
        const double *e = s->edges;                                          \
        const size_t nb = s->nbins;                                          \
        memset(s->len, 0, nb * sizeof *s->len);                              \
        for (size_t i = 0; i < s->n; i++) {                                  \
            double v = x[i];                                                 \
            if (!(v >= e[0] && v <= e[nb]))                                  \
                continue;                                                    \
            size_t lo = 0, hi = nb;                                          \
            while (hi - lo > 1) {                                            \
                size_t mid = lo + (hi - lo) / 2;                             \
                if (e[mid] <= v)                                             \
                    lo = mid;                                                \
                else                                                         \
                    hi = mid;                                                \
            }                                                                \
            s->len[lo]++;                                                    \
        }                                                                    \
    } while (0)

/* limbs (two's complement, nl of them) += v * 2^pos */
static void add_shifted(uint64_t *limbs, size_t nl, __int128 v, unsigned pos)
{
    const uint64_t ext = v < 0 ? ~(uint64_t)0 : 0;
    const unsigned sh = pos % 64;
    uint64_t w[3];
    unsigned __int128 u = (unsigned __int128)v;
    w[0] = (uint64_t)u << sh;
    w[1] = sh ? (uint64_t)(u >> (64 - sh)) : (uint64_t)(u >> 64);
    w[2] = sh ? (uint64_t)(u >> (128 - sh)) | (ext << sh) : ext;
    unsigned carry = 0;
    for (size_t i = pos / 64, j = 0; i < nl; i++, j++) {
        uint64_t add = j < 3 ? w[j] : ext;
        uint64_t x = limbs[i] + add;
        unsigned c1 = x < add;
        limbs[i] = x + carry;
        carry = c1 | (limbs[i] < x);
    }
}

/* The serial exact sum a user would write without the library: each
   finite f32 or f64 element's integer significand added into a bin per
   exponent (64-bit bins for f32, 128-bit for f64: no overflow below 2^39
   elements), the bins then combined into one wide integer and rounded to
   nearest (the top 64 bits with a sticky bit, then the hardware's
   conversion). Subnormal results may round twice; the suite has none. */
static double bench_serial_exact_sum(gpgpu_type t, const void *in, size_t n)
{
    static __int128 bins[2048];
    uint64_t limbs[40];
    const int f32 = t == GPGPU_F32;
    const size_t nb = f32 ? 256 : 2048, nl = f32 ? 8 : 40;
    memset(bins, 0, nb * sizeof bins[0]);
    if (f32) {
        const uint32_t *x = in;
        int64_t b32[256] = {0};
        for (size_t i = 0; i < n; i++) {
            uint32_t e = (x[i] >> 23) & 255, m = x[i] & 0x7fffff;
            int64_t v = e ? m | 0x800000 : m;
            b32[e ? e : 1] += (x[i] >> 31) ? -v : v;
        }
        for (size_t e = 0; e < 256; e++)
            bins[e] = b32[e];
    } else {
        const uint64_t *x = in;
        for (size_t i = 0; i < n; i++) {
            uint64_t e = (x[i] >> 52) & 2047, m = x[i] & 0xfffffffffffffull;
            int64_t v = (int64_t)(e ? m | (1ull << 52) : m);
            bins[e ? e : 1] += (x[i] >> 63) ? -v : v;
        }
    }
    memset(limbs, 0, sizeof limbs);
    for (size_t e = 1; e < nb - 1; e++) /* the top exponent is inf or NaN */
        if (bins[e])
            add_shifted(limbs, nl, bins[e], (unsigned)(e - 1));
    int neg = (limbs[nl - 1] >> 63) != 0;
    if (neg) { /* two's complement negation */
        unsigned carry = 1;
        for (size_t i = 0; i < nl; i++) {
            limbs[i] = ~limbs[i] + carry;
            carry = carry && limbs[i] == 0;
        }
    }
    long hb = -1;
    for (long i = (long)nl - 1; i >= 0 && hb < 0; i--)
        if (limbs[i])
            hb = i * 64 + 63 - __builtin_clzll(limbs[i]);
    if (hb < 0)
        return 0;
    long lo = hb >= 63 ? hb - 63 : 0;
    uint64_t top = 0, sticky = 0;
    for (long bit = hb; bit >= lo; bit--)
        top = top << 1 | ((limbs[bit / 64] >> (bit % 64)) & 1);
    for (long i = 0; i < lo / 64 && !sticky; i++)
        sticky = limbs[i] != 0;
    if (lo % 64 && (limbs[lo / 64] & ((1ull << (lo % 64)) - 1)))
        sticky = 1;
    const int scale = f32 ? -149 : -1074;
    double r = f32 ? (double)ldexpf((float)(top | sticky), (int)lo + scale)
                   : ldexp((double)(top | sticky), (int)lo + scale);
    return neg ? -r : r;
}

static void serial_loop(void *arg)
{
    serial_case *s = arg;
    size_t start = 0;
    switch (s->k) {
    case UNIQUE: BENCH_BY_TYPE(s->t, SERIAL_UNIQUE, 0); break;
    case RLE: BENCH_BY_TYPE(s->t, SERIAL_UNIQUE, 1); break;
    case PARTITION: BENCH_BY_TYPE(s->t, SERIAL_PARTITION); break;
    case EDGES: BENCH_BY_TYPE(s->t, SERIAL_EDGES); break;
    case EXACT: s->sink = bench_serial_exact_sum(s->t, s->in, s->n) != 0; break;
    default: break;
    }
    (void)start;
}

/* Times k and its reference on the same data. */
static int run_pair(bench *b, kind k, kind ref, gpgpu_type t, size_t n, const bench_params *p,
                    bench_result *r)
{
    size_t size = gpgpu_type_size(t), nbins = p->bins ? p->bins : 256;
    size_t nlen = n > nbins ? n : nbins;
    /* bench_host_alloc: the host call's arrays are pinned with --pinned */
    void *hin = bench_host_alloc(b, n * size + 1), *hout = bench_host_alloc(b, n * size + 8);
    uint64_t *hlen = bench_host_alloc(b, nlen * 8 + 8);
    double *edges = malloc((nbins + 1) * sizeof *edges);
    case_ c = {b, k, t, n, nbins, hin, hout, hlen, edges, 0, NULL, NULL, NULL, NULL,
               NULL, NULL, NULL};
    int rc = -1;
    if (!hin || !hout || !hlen || !edges)
        goto done;
    fill(t, hin, n, b->seed);
    for (size_t i = 0; i <= nbins; i++) /* uneven: denser near the low end */
        edges[i] = -0.5 + 1.5 * pow((double)i / (double)nbins, 2);
    const int compacts = k == UNIQUE || k == RLE || k == PARTITION;
    if (BENCH_ON_BUFFERS(b)) {
        c.in = bench_buffer(b, n * size + 1, hin);
        c.out = bench_buffer(b, n * size + 8, NULL);
        c.len = bench_buffer(b, nlen * 8 + 8, NULL);
        c.cnt = bench_buffer(b, sizeof(cl_ulong), NULL);
        if (!c.in || !c.out || !c.len || !c.cnt)
            goto done;
    } else if (BENCH_ON_ARRAYS(b)) {
        c.ain = bench_array(b, t, n, hin);
        if (!c.ain || (compacts && !(c.aout = bench_array(b, t, n, NULL))) ||
            (k == RLE && !(c.alen = bench_array(b, GPGPU_U64, n, NULL))))
            goto done;
    }
    r->ms = bench_time(b, call, &c);
    if (r->ms < 0)
        goto done;
    /* What the timed call left on the device back to hout and hlen; the
       host calls wrote them, and the counts, themselves, and the _array
       forms the counts, bins and sums. */
    if (c.in) {
        cl_ulong got = 0;
        if (compacts && bench_read(b, c.cnt, sizeof got, &got))
            goto done;
        c.count = (size_t)got;
    }
    const size_t outs = k == PARTITION ? n : c.count;
    if (c.in && ((compacts && c.count <= n && bench_read(b, c.out, outs * size, hout)) ||
                 (k == RLE && c.count <= n && bench_read(b, c.len, c.count * 8, hlen)) ||
                 (k == EDGES && bench_read(b, c.len, nbins * 8, hlen)) ||
                 (k == EXACT && bench_read(b, c.out, size, hout))))
        goto done;
    if (c.ain && compacts && c.count <= n &&
        (gpgpu_array_read(b->ctx, c.aout, 0, hout, outs) != GPGPU_SUCCESS ||
         (k == RLE && gpgpu_array_read(b->ctx, c.alen, 0, hlen, c.count) != GPGPU_SUCCESS))) {
        fprintf(stderr, "gpgpu-bench: reading the output: %s\n", gpgpu_last_error(b->ctx));
        goto done;
    }
    if (k == EXACT)
        r->verified = bench_check_sum(t, hin, n, 0, 1e-6, hout);
    else
        r->verified = verify(&c, hout, hlen);
    size_t kept = c.count;
    switch (k) {
    case EXACT: r->bytes = (double)n * size; break;
    case EDGES: r->bytes = (double)n * size; break;
    case PARTITION: r->bytes = 2.0 * n * size; break;
    case RLE: r->bytes = (double)n * size + (double)kept * (size + 8); break;
    default: r->bytes = (double)(n + kept) * size; break;
    }
    {
        /* the serial loop writes scratch of its own: hout and hlen are checked */
        void *sout = malloc(n * size + 8);
        uint64_t *slen = malloc(nlen * 8 + 8);
        serial_case sc = {k, t, n, nbins, hin, sout, slen, edges, 0};
        if (sout && slen)
            r->serial_ms = bench_wall_ms(serial_loop, &sc, b->repeat);
        free(sout);
        free(slen);
    }
    static const char *const names[] = {"unique", "rle", "partition", "select x > 0",
                                        "edges", "even-bin histogram", "exact", "GPGPU_SUM"};
    if (!b->queue && ref == SELECT) { /* predicates need a device (partition failed above) */
        snprintf(r->note, sizeof r->note, "no %s on the host fallback", names[ref]);
    } else {
        c.k = ref;
        double ref_ms = bench_time(b, call, &c);
        if (ref_ms < 0)
            goto done;
        snprintf(r->note, sizeof r->note, "%s %.3f ms: %.2fx of it", names[ref], ref_ms,
                 r->ms > 0 ? ref_ms / r->ms : 0.0);
    }
    rc = 0;
done:
    BENCH_RELEASE(c.in, c.out, c.len, c.cnt);
    BENCH_DESTROY(c.ain, c.aout, c.alen);
    BENCH_HOST_FREE(b, hin, hout, hlen);
    free(edges);
    return rc;
}

static int unique_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, UNIQUE, SELECT, t, n, p, r);
}

static int rle_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, RLE, SELECT, t, n, p, r);
}

static int partition_run(bench *b, gpgpu_type t, size_t n, const bench_params *p,
                         bench_result *r)
{
    return run_pair(b, PARTITION, SELECT, t, n, p, r);
}

static int edges_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, EDGES, EVEN, t, n, p, r);
}

static int exact_run(bench *b, gpgpu_type t, size_t n, const bench_params *p, bench_result *r)
{
    return run_pair(b, EXACT, SUM, t, n, p, r);
}

const bench_op bench_op_unique = {"unique", unique_run, {{GPGPU_U32, {0, NULL}}}, 1};
const bench_op bench_op_run_length_encode = {"run_length_encode", rle_run,
                                             {{GPGPU_U32, {0, NULL}}}, 1};
const bench_op bench_op_partition = {"partition", partition_run, {{GPGPU_U32, {0, NULL}}}, 1};
const bench_op bench_op_histogram_edges = {"histogram_edges", edges_run,
                                           {{GPGPU_F32, {256, NULL}}}, 1};
const bench_op bench_op_sum_exact = {"sum_exact", exact_run,
                                     {{GPGPU_F32, {0, NULL}}, {GPGPU_F64, {0, NULL}}}, 2};

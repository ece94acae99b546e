/*
 * segsort.c - gpgpu_segmented_sort and gpgpu_segmented_sort_pairs.
 *
 * A first, correct version built on the library's stable radix sort: the
 * spanned elements are sorted by key carrying their positions, then the
 * positions are sorted (stably) by the segment they came from, which leaves
 * each segment's elements in key order with ties in their original order;
 * the keys and values are then gathered on the host. One segment is sorted
 * in place directly. The fallback sorts each segment on its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "segmented.h"

/* The permutation of [0, m) that sorts each segment of the m elements
   keys[0 .. m) (offsets rebased to 0 by first), in perm (4-byte entries
   when psize is 4, else 8). */
static gpgpu_status segment_permutation(gpgpu_context *ctx, gpgpu_type t, const void *keys,
                                        const size_t *offsets, size_t nseg, size_t first,
                                        size_t m, unsigned flags, void *perm, size_t psize)
{
    const size_t ksize = gpgpu__type(t)->size;
    const size_t ssize = nseg <= UINT32_MAX ? 4 : 8;
    void *k = gpgpu__malloc(m * ksize), *seg = gpgpu__malloc(m * ssize);
    size_t *segof = gpgpu__malloc(m * sizeof *segof);
    gpgpu_status s = GPGPU_ERROR_OUT_OF_MEMORY;
    if (!k || !seg || !segof) {
        gpgpu__fail(ctx, s, "out of host memory");
        goto done;
    }
    memcpy(k, keys, m * ksize);
    for (size_t i = 0; i < m; i++) {
        if (psize == 4)
            ((uint32_t *)perm)[i] = (uint32_t)i;
        else
            ((uint64_t *)perm)[i] = i;
    }
    for (size_t g = 0; g < nseg; g++)
        for (size_t i = offsets[g] - first; i < offsets[g + 1] - first; i++)
            segof[i] = g;
    s = gpgpu_sort_pairs(ctx, t, k, perm, psize, m, flags);
    if (s != GPGPU_SUCCESS)
        goto done;
    for (size_t j = 0; j < m; j++) {
        size_t from = psize == 4 ? ((uint32_t *)perm)[j] : (size_t)((uint64_t *)perm)[j];
        if (ssize == 4)
            ((uint32_t *)seg)[j] = (uint32_t)segof[from];
        else
            ((uint64_t *)seg)[j] = segof[from];
    }
    s = gpgpu_sort_pairs(ctx, ssize == 4 ? GPGPU_U32 : GPGPU_U64, seg, perm, psize, m,
                         GPGPU_ASCENDING);
done:
    free(k);
    free(seg);
    free(segof);
    return s;
}

/* data[0 .. m) of size bytes each = data[perm[j]], through copy (room
   for m elements): cannot fail. */
static void gather(void *data, size_t size, const void *perm, size_t psize, size_t m,
                   unsigned char *copy)
{
    memcpy(copy, data, m * size);
    for (size_t j = 0; j < m; j++) {
        size_t from = psize == 4 ? ((const uint32_t *)perm)[j]
                                 : (size_t)((const uint64_t *)perm)[j];
        memcpy((unsigned char *)data + j * size, copy + from * size, size);
    }
}

static gpgpu_status segsort(gpgpu_context *ctx, const char *func, gpgpu_type t, void *keys,
                            void *values, size_t value_size, const size_t *offsets,
                            size_t nseg, unsigned flags)
{
    size_t total;
    GPGPU__TRY(gpgpu__check_ctx(ctx, func));
    GPGPU__TRY(gpgpu__check_type(ctx, func, "t", t));
    GPGPU__REQUIRE(ctx, flags == GPGPU_ASCENDING || flags == GPGPU_DESCENDING, func,
                   "flags is %u; need GPGPU_ASCENDING or GPGPU_DESCENDING", (unsigned)flags);
    GPGPU__REQUIRE(ctx, offsets != NULL || nseg == 0, func,
                   "offsets is NULL with nseg = %zu; it may be NULL only when nseg is 0", nseg);
    GPGPU__REQUIRE(ctx, nseg <= PTRDIFF_MAX / sizeof(size_t) - 1, func,
                   "nseg is %zu; at most %zu", nseg, (size_t)PTRDIFF_MAX / sizeof(size_t) - 1);
    GPGPU__REQUIRE(ctx, GPGPU__ALIGNED(keys, t), func,
                   "keys is %p; it must be aligned to %zu bytes, the size of one element of t", (const void *)keys, gpgpu__type(t)->size);
    GPGPU__REQUIRE(ctx, (uintptr_t)offsets % sizeof(size_t) == 0, func,
                   "offsets is %p; it must be aligned to %zu bytes, the size of one element", (const void *)offsets, (size_t)(sizeof(size_t)));
    GPGPU__TRY(gpgpu__offsets_check(ctx, func, t, offsets, nseg, &total));
    GPGPU__REQUIRE(ctx, keys != NULL || total == 0, func,
                   "keys is NULL while the segments cover %zu elements; it may be NULL only when they cover none", total);
    if (value_size) {
        GPGPU__REQUIRE(ctx, value_size == 4 || value_size == 8, func,
                       "value_size is %zu; need 4 or 8", value_size);
        GPGPU__REQUIRE(ctx, values != NULL || total == 0, func,
                       "values is NULL while the segments cover %zu elements; it may be NULL only when they cover none", total);
        GPGPU__REQUIRE(ctx, (uintptr_t)values % value_size == 0, func,
                       "values is %p; it must be aligned to %zu bytes, the size of one element", (const void *)values, (size_t)(value_size));
        GPGPU__REQUIRE(ctx, nseg == 0 || offsets[nseg] <= PTRDIFF_MAX / value_size, func,
                       "offsets[nseg] is %zu; at most %zu values of %zu bytes", offsets[nseg],
                       (size_t)PTRDIFF_MAX / value_size, value_size);
    }
    if (total < 2)
        return GPGPU_SUCCESS;
    const size_t ksize = gpgpu__type(t)->size, first = offsets[0];
    unsigned char *k = (unsigned char *)keys + first * ksize;
    unsigned char *v = value_size ? (unsigned char *)values + first * value_size : NULL;
    if (ctx->host) { /* (only running out of host memory can stop it half way) */
        for (size_t g = 0; g < nseg; g++)
            GPGPU__TRY(gpgpu__host_sort(t, k + (offsets[g] - first) * ksize,
                                        v ? v + (offsets[g] - first) * value_size : NULL,
                                        value_size, offsets[g + 1] - offsets[g], flags));
        return GPGPU_SUCCESS;
    }
    if (offsets[nseg - 1] == first || offsets[1] == offsets[nseg]) /* one non-empty segment */
        return value_size ? gpgpu_sort_pairs(ctx, t, k, v, value_size, total, flags)
                          : gpgpu_sort(ctx, t, k, total, flags);
    const size_t psize = total <= UINT32_MAX ? 4 : 8;
    const size_t widest = value_size > ksize ? value_size : ksize;
    void *perm = gpgpu__malloc(total * psize);
    unsigned char *copy = gpgpu__malloc(total * widest);
    gpgpu_status s = GPGPU_ERROR_OUT_OF_MEMORY;
    if (!perm || !copy)
        gpgpu__fail(ctx, s, "out of host memory");
    else
        s = segment_permutation(ctx, t, k, offsets, nseg, first, total, flags, perm, psize);
    if (s == GPGPU_SUCCESS) { /* nothing can fail from here on */
        if (v)
            gather(v, value_size, perm, psize, total, copy);
        gather(k, ksize, perm, psize, total, copy);
    }
    free(perm);
    free(copy);
    return s;
}

gpgpu_status gpgpu_segmented_sort(gpgpu_context *ctx, gpgpu_type t, void *keys,
                                  const size_t *offsets, size_t nseg, unsigned flags)
{
    return segsort(ctx, __func__, t, keys, NULL, 0, offsets, nseg, flags);
}

gpgpu_status gpgpu_segmented_sort_pairs(gpgpu_context *ctx, gpgpu_type key_type, void *keys,
                                        void *values, size_t value_size, const size_t *offsets,
                                        size_t nseg, unsigned flags)
{
    if (ctx && value_size == 0)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT,
                           "%s: need value_size == 4 || value_size == 8", __func__);
    return segsort(ctx, __func__, key_type, keys, values, value_size, offsets, nseg, flags);
}

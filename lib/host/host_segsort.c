/* host_segsort.c - segmented sorts of host arrays on the host's threads:
   segments are dealt out in parts of about equal elements, a few parts per
   thread, each segment sorted by the fallback's radix sort. The segmented
   sort's host calls use it for segments too short for the device. */
#include <stdlib.h>

#include "host/host.h"

typedef struct {
    gpgpu_type t;
    unsigned char *keys, *vals;
    size_t vs, limit;
    const size_t *offsets, *cut; /* part p sorts segments cut[p] .. cut[p + 1] - 1 */
    unsigned flags;
    gpgpu_status *status;        /* per part */
} host_job;

static void host_part(void *arg, size_t part)
{
    const host_job *h = arg;
    const size_t ks = gpgpu__type(h->t)->size;
    gpgpu_status s = GPGPU_SUCCESS;
    for (size_t g = h->cut[part]; g < h->cut[part + 1] && s == GPGPU_SUCCESS; g++) {
        size_t e = h->offsets[g + 1] < h->limit ? h->offsets[g + 1] : h->limit;
        size_t b = h->offsets[g] < e ? h->offsets[g] : e;
        s = gpgpu__host_sort(h->t, h->keys + b * ks, h->vals ? h->vals + b * h->vs : NULL,
                             h->vs, e - b, h->flags);
    }
    h->status[part] = s;
}

gpgpu_status gpgpu__host_segsort(gpgpu_type t, void *keys, void *values, size_t value_size,
                                 const size_t *offsets, size_t nseg, size_t limit,
                                 unsigned flags)
{
    if (nseg == 0)
        return GPGPU_SUCCESS;
    /* Parts of about equal elements, a few per thread; one if small. */
    size_t total = offsets[nseg] > offsets[0] ? offsets[nseg] - offsets[0] : 0, parts = 4 * gpgpu__host_threads();
    if (parts > nseg)
        parts = nseg;
    int ordered = offsets[nseg] <= limit;
    for (size_t g = 0; g < nseg && ordered; g++)
        ordered = offsets[g] <= offsets[g + 1];
    if (total < (1 << 15) || !ordered)
        parts = 1; /* (segments of unchecked offsets may overlap: one thread) */
    size_t *cut = malloc((parts + 1) * sizeof *cut);
    gpgpu_status *status = malloc(parts * sizeof *status);
    if (!cut || !status) {
        free(cut);
        free(status);
        return GPGPU_ERROR_OUT_OF_MEMORY;
    }
    size_t p = 0;
    cut[0] = 0;
    for (size_t g = 0; g < nseg && p + 1 < parts; g++)
        if ((offsets[g + 1] - offsets[0]) * (double)parts >= (double)total * (p + 1))
            cut[++p] = g + 1;
    parts = p + 1;
    cut[parts] = nseg;
    host_job h = { t, keys, values, value_size, limit, offsets, cut, flags, status };
    gpgpu__parallel(parts, host_part, &h);
    gpgpu_status s = GPGPU_SUCCESS;
    for (size_t i = 0; i < parts; i++)
        if (status[i] != GPGPU_SUCCESS)
            s = status[i];
    free(cut);
    free(status);
    return s;
}

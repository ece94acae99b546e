/* ref_select_ops.c - see ref_select_ops.h. */
#include <string.h>

#include "ref_select_ops.h"

size_t ref_runs(size_t size, const void *in, size_t n, void *values, uint64_t *lengths)
{
    const unsigned char *a = in;
    unsigned char *v = values;
    size_t runs = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || memcmp(a + i * size, a + (i - 1) * size, size) != 0) {
            memcpy(v + runs * size, a + i * size, size);
            if (lengths)
                lengths[runs] = 0;
            runs++;
        }
        if (lengths)
            lengths[runs - 1]++;
    }
    return runs;
}

size_t ref_partition(gpgpu_type t, ref_pred keep, const void *in, size_t n, void *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (keep(ref_get(t, in, i), i))
            kept++;
    const size_t size = gpgpu_type_size(t);
    const unsigned char *a = in;
    unsigned char *o = out;
    size_t yes = 0, no = kept;
    for (size_t i = 0; i < n; i++) {
        size_t to = keep(ref_get(t, in, i), i) ? yes++ : no++;
        memcpy(o + to * size, a + i * size, size);
    }
    return kept;
}

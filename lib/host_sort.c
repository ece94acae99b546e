/* host_sort.c - placeholder until the sort primitive lands (issue 4). */
#include "internal.h"

gpgpu_status gpgpu__host_sort(gpgpu_type t, void *keys, void *values, size_t value_size,
                              size_t n, unsigned flags)
{
    return GPGPU_ERROR_UNSUPPORTED;
}

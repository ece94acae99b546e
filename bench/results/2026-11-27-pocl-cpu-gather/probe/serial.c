#include <stddef.h>
#include <stdint.h>
/* the bench's loop, verbatim */
void serial_gather(size_t size, const void *keys, const uint64_t *pos, size_t n, void *out)
{
    if (size == 4)
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)out)[i] = ((const uint32_t *)keys)[pos[i]];
    else
        for (size_t i = 0; i < n; i++)
            ((uint64_t *)out)[i] = ((const uint64_t *)keys)[pos[i]];
}

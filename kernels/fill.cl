/*
 * fill.cl - a call's fills of device memory as a kernel (lib/core/queue.c,
 * gpgpu__fill): on NVIDIA a fill command costs a call more than a launch.
 * n 32-bit words from word off on take v0 at even word indices and v1 at
 * odd ones (a 4-byte pattern has v0 == v1; an 8-byte one starts at an
 * even word).
 */
__kernel void fill_words(__global uint *p, ulong off, ulong n, uint v0, uint v1)
{
    p += off;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
        p[i] = (i & 1) ? v1 : v0;
}

/* scan.c - placeholder until the scan primitive lands (issue 3). */
#include "internal.h"

gpgpu_status gpgpu_scan(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind,
                        const void *in, void *out, size_t n)
{
    return gpgpu_scan_init(ctx, t, op, kind, in, out, n, NULL);
}

gpgpu_status gpgpu_scan_init(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                             gpgpu_scan_kind kind, const void *in, void *out, size_t n,
                             const void *init)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_scan: not implemented yet");
}

gpgpu_status gpgpu_scan_buffer(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                               gpgpu_scan_kind kind, cl_mem in, size_t in_offset, cl_mem out,
                               size_t out_offset, size_t n, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "gpgpu_scan_buffer: not implemented yet");
}

gpgpu_status gpgpu__scan_enqueue(gpgpu_context *ctx, gpgpu_type t, gpgpu_op op,
                                 gpgpu_scan_kind kind, cl_mem in, size_t in_off, cl_mem out,
                                 size_t out_off, size_t n, cl_mem init_buf, size_t init_off)
{
    return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "scan: not implemented yet");
}

/* types.c - element types: sizes, OpenCL names, parsing. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"

static const gpgpu__type_info types[] = {
    [GPGPU_I32] = {4, "int", "i32", 0, 1, 0},
    [GPGPU_U32] = {4, "uint", "u32", 0, 0, 0},
    [GPGPU_F32] = {4, "float", "f32", 1, 1, 0},
    [GPGPU_I64] = {8, "long", "i64", 0, 1, 1},
    [GPGPU_U64] = {8, "ulong", "u64", 0, 0, 1},
    [GPGPU_F64] = {8, "double", "f64", 1, 1, 1},
};

const gpgpu__type_info *gpgpu__type(gpgpu_type t)
{
    if ((unsigned)t >= sizeof types / sizeof types[0])
        return NULL;
    return &types[t];
}

int gpgpu__type_parse(const char *name, gpgpu_type *t)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(name, types[i].name) == 0) {
            *t = (gpgpu_type)i;
            return 1;
        }
    }
    return 0;
}

size_t gpgpu_type_size(gpgpu_type t)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    return ti ? ti->size : 0;
}

gpgpu_status gpgpu__type_supported(gpgpu_context *ctx, gpgpu_type t)
{
    const gpgpu__type_info *ti = gpgpu__type(t);
    if (!ti)
        return gpgpu__fail(ctx, GPGPU_ERROR_INVALID_ARGUMENT, "unknown type %d", (int)t);
    if (ctx->host)
        return GPGPU_SUCCESS;
    if (t == GPGPU_F64 && !ctx->fp64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s has no cl_khr_fp64: f64 is not available",
                           ctx->name);
    if (ti->is_64 && !ctx->int64)
        return gpgpu__fail(ctx, GPGPU_ERROR_UNSUPPORTED, "%s has no 64-bit integers", ctx->name);
    return GPGPU_SUCCESS;
}

/* bench_userop.c - placeholder until the primitive lands. */
#include "bench.h"

const bench_op bench_op_transform_reduce = { "transform_reduce", NULL, {{0}}, 0 };
const bench_op bench_op_select = { "select", NULL, {{0}}, 0 };

/* bench_sort.c - placeholder until the primitive lands. */
#include "bench.h"

const bench_op bench_op_sort = { "sort", NULL, {{0}}, 0 };
const bench_op bench_op_sort_pairs = { "sort_pairs", NULL, {{0}}, 0 };

/* bench_histogram.c - placeholder until the primitive lands. */
#include "bench.h"

const bench_op bench_op_histogram = { "histogram", NULL, {{0}}, 0 };

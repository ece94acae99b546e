/* bench_scan.c - placeholder until the primitive lands. */
#include "bench.h"

const bench_op bench_op_scan = { "scan", NULL, {{0}}, 0 };

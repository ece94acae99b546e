#!/bin/sh
# The host's code again with GPGPU_NO_AVX2=1, as a CPU without AVX2 runs
# it (an AVX2 machine takes its own loops otherwise):
#   test_select_k  top_k's scans of the keys,
#   test_scan      integer sums' scans,
#   test_search    gather's check of the indices, search_sorted's lanes,
#   test_segmented reduce_by_key's integer sums,
#   test_select_ops unique's and run-length encoding's writer,
#   test_userop    maps and predicates evaluated on the host (the
#                  operators' loops, select's compaction),
# on the host fallback alone (that code is the same on every device,
# and the kernels were tested by the suites' own runs); and
#   test_scan      then its host-order case: float scans that the plan keeps on
#                  the host, in the kernels' order, against the kernels
#                  (on the default device: the host fallback has no
#                  kernels to compare with).
GPGPU_NO_AVX2=1
export GPGPU_NO_AVX2
t=${top_builddir:-.}/tests
GPGPU_TEST_DEVICES=host "$t/test_select_k" || exit $?
GPGPU_TEST_DEVICES=host "$t/test_search" || exit $?
GPGPU_TEST_DEVICES=host "$t/test_segmented" || exit $?
GPGPU_TEST_DEVICES=host "$t/test_select_ops" || exit $?
GPGPU_TEST_DEVICES=host "$t/test_userop" || exit $?
GPGPU_TEST_DEVICES=host "$t/test_scan" || exit $?
CK_RUN_CASE=host-order exec "$t/test_scan"

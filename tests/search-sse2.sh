#!/bin/sh
# test_search again with GPGPU_NO_AVX2=1: the host's gather without its
# AVX2 loops, as a CPU without AVX2 runs it (an AVX2 machine takes its own
# otherwise). On the host fallback alone: that code is the same on every
# device, and the kernels were tested by the suite's own run.
GPGPU_NO_AVX2=1
GPGPU_TEST_DEVICES=host
export GPGPU_NO_AVX2 GPGPU_TEST_DEVICES
exec "${top_builddir:-.}/tests/test_search"

#!/bin/sh
# test_select_k again with GPGPU_NO_AVX2=1: the host's top_k scans that a
# CPU without AVX2 takes (an AVX2 machine takes its own otherwise). On the
# host fallback alone: the scans are host code on every device, and the
# kernels were tested by the suite's own run.
GPGPU_NO_AVX2=1
GPGPU_TEST_DEVICES=host
export GPGPU_NO_AVX2 GPGPU_TEST_DEVICES
exec "${top_builddir:-.}/tests/test_select_k"

#!/bin/sh
# test_select_k again with GPGPU_NO_AVX2=1: the host's top_k scans that a
# CPU without AVX2 takes (an AVX2 machine takes its own otherwise).
GPGPU_NO_AVX2=1
export GPGPU_NO_AVX2
exec "${top_builddir:-.}/tests/test_select_k"

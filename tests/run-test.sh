#!/bin/sh
# Runs one test program with its own PoCL and gpgpu caches: PoCL's kernel
# cache is not safe against several processes updating it at once, and the
# gpgpu disk cache is part of what the tests check.
name=$(basename "$1" .sh)
cache="${top_builddir:-.}/tests/.cache/$name"
mkdir -p "$cache/pocl" "$cache/gpgpu"
chmod 700 "$cache/gpgpu"
POCL_CACHE_DIR="$cache/pocl"
GPGPU_CACHE_DIR="$cache/gpgpu"
export POCL_CACHE_DIR GPGPU_CACHE_DIR
case "$1" in
*.sh) exec ${SHELL:-/bin/sh} "$@" ;;
*) exec "$@" ;;
esac

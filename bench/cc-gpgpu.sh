# Sourced by the bench scripts that build a program of their own against
# the library. cc_gpgpu OUT SRC [FLAG ...] compiles SRC to OUT against
# GPGPU_PREFIX: an install prefix (include/, lib/) or a build tree (the
# include/ of its source is found through the build's Makefile); default
# .gpu/install. CC names the compiler (default cc).
cc_gpgpu() {
    cc_out=$1
    cc_src=$2
    shift 2
    cc_prefix=${GPGPU_PREFIX:-$PWD/.gpu/install}
    if [ -f "$cc_prefix/include/gpgpu.h" ]; then
        cc_inc="-I$cc_prefix/include"
        cc_lib=$cc_prefix/lib
    else
        # a build tree: gpgpu_version.h is generated there, gpgpu.h is in the source
        cc_src_dir=$(sed -n "s/^abs_top_srcdir = //p" "$cc_prefix/Makefile")
        cc_inc="-I$cc_src_dir/include -I$cc_prefix/include"
        cc_lib=$cc_prefix/.libs
    fi
    ${CC:-cc} -O2 -std=c11 -D_GNU_SOURCE $cc_inc "$cc_src" -o "$cc_out" \
        -L"$cc_lib" -Wl,-rpath,"$cc_lib" -lgpgpu "$@"
}

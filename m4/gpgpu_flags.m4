# GPGPU_CHECK_CFLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT])
# Compiles and links an empty program with FLAG added (warnings as errors, so a
# flag the compiler only warns about counts as unsupported).
AC_DEFUN([GPGPU_CHECK_CFLAG], [
  AS_VAR_PUSHDEF([gpgpu_var], [gpgpu_cv_cflag_$1])
  AC_CACHE_CHECK([whether $CC accepts $1], [gpgpu_var], [
    gpgpu_flag_save=$CFLAGS
    gpgpu_ldflag_save=$LDFLAGS
    CFLAGS="$CFLAGS -Werror $1"
    LDFLAGS="$LDFLAGS $1"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
      [AS_VAR_SET([gpgpu_var], [yes])], [AS_VAR_SET([gpgpu_var], [no])])
    CFLAGS=$gpgpu_flag_save
    LDFLAGS=$gpgpu_ldflag_save])
  AS_VAR_IF([gpgpu_var], [yes], [$2], [$3])
  AS_VAR_POPDEF([gpgpu_var])
])

# AX_GPGPU_PTHREAD: sets PTHREAD_CFLAGS / PTHREAD_LIBS for POSIX threads.
AC_DEFUN([AX_GPGPU_PTHREAD], [
  PTHREAD_CFLAGS=""
  PTHREAD_LIBS=""
  GPGPU_CHECK_CFLAG([-pthread], [PTHREAD_CFLAGS="-pthread"; PTHREAD_LIBS="-pthread"])
  AC_SUBST([PTHREAD_CFLAGS])
  AC_SUBST([PTHREAD_LIBS])
])

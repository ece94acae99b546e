/*
 * ref_scan.h - the scan tests' reference: a plain left-to-right loop, written
 * independently of the library (its host fallback included).
 */
#ifndef GPGPU_TEST_REF_SCAN_H
#define GPGPU_TEST_REF_SCAN_H

#include <stddef.h>

#include "gpgpu.h"

/* out[i] = init op in[0] op ... op in[i] (INCLUSIVE) or up to in[i-1]
   (EXCLUSIVE); init NULL is the identity. Built-in ops only; integer sums
   wrap; float MIN/MAX follow fmin/fmax. out may equal in. */
void ref_scan(gpgpu_type t, gpgpu_op op, gpgpu_scan_kind kind, const void *in, void *out,
              size_t n, const void *init);

/* The identity of op for t, into out. */
void ref_identity(gpgpu_type t, gpgpu_op op, void *out);

#endif

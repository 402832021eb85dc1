/*
 * backends/cpu/segment_util.h - what the segment-family kernels share
 * (segment reductions, Bincount): one element of any numeric dtype read
 * as a widened value, combined, and written back, wrapping integers and
 * rounding floats to the element type at every store as TensorFlow's
 * per-type arithmetic does; and the "[i,j]" text of an index.
 */
#ifndef TFS_BACKENDS_CPU_SEGMENT_UTIL_H
#define TFS_BACKENDS_CPU_SEGMENT_UTIL_H

#include <complex.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "core/half.h"

/* A widened element: floats as double, complex as double complex,
 * integers as int64 (unsigned ones by their bit pattern). */
typedef union tfs_sval {
  double f;
  double _Complex c;
  int64_t i;
} tfs_sval;

enum { TFS_SV_FLOAT, TFS_SV_COMPLEX, TFS_SV_SIGNED, TFS_SV_UNSIGNED };

/* The kind of widened value dtype `dt` reads as. */
static inline int tfs_sval_kind(tfs_dtype dt) {
  switch (dt) {
  case TFS_FLOAT: case TFS_DOUBLE: case TFS_HALF: case TFS_BFLOAT16:
    return TFS_SV_FLOAT;
  case TFS_COMPLEX64: case TFS_COMPLEX128:
    return TFS_SV_COMPLEX;
  case TFS_UINT8: case TFS_UINT16: case TFS_UINT32: case TFS_UINT64:
    return TFS_SV_UNSIGNED;
  default:
    return TFS_SV_SIGNED;
  }
}

/* Element i of an array of dtype dt at `base`, widened. */
tfs_sval tfs_sval_load(tfs_dtype dt, const void *base, int64_t i);

/* Stores v as element i of an array of dtype dt (integers wrap, floats
 * round to the type). */
void tfs_sval_store(tfs_dtype dt, void *base, int64_t i, tfs_sval v);

/* The reductions. */
enum { TFS_SR_SUM, TFS_SR_PROD, TFS_SR_MIN, TFS_SR_MAX, TFS_SR_MEAN,
       TFS_SR_SQRTN };

/* a (op) b for values of kind k: sum (also for MEAN and SQRTN), product,
 * min or max. */
tfs_sval tfs_sval_combine(int k, int op, tfs_sval a, tfs_sval b);

/* The starting value of an unsorted reduction over dtype dt: 0, 1, the
 * type's highest (MIN) or lowest (MAX) value. */
tfs_sval tfs_sval_identity(tfs_dtype dt, int op);

/* "[i,j]" of flat index `flat` in dims[0..rank) ("" for rank 0). */
const char *tfs_seg_index_str(int64_t flat, const int64_t *dims, int rank,
                              char *buf, size_t cap);

#endif

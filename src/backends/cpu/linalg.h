/*
 * backends/cpu/linalg.h - what the linear algebra kernels (linalg.c,
 * linalg_decomp.c) share: complex double arithmetic, every matrix read
 * into a complex double workspace and written back in the tensor's dtype,
 * TensorFlow's LinearAlgebraOp input checks, and a batch runner that
 * hands each matrix of the batch to a per-matrix function on the intra-op
 * pool.  A real input is computed with zero imaginary parts: the complex
 * products, quotients and square roots below are exact on them, so real
 * results equal a real computation in double.
 */
#ifndef TFS_BACKENDS_CPU_LINALG_H
#define TFS_BACKENDS_CPU_LINALG_H

#include <math.h>
#include <stdatomic.h>

#include "kernels/kernel.h"

/* A complex double. */
typedef struct {
  double re, im;
} tfs_lz;

static inline tfs_lz lz(double re, double im) {
  tfs_lz z = {re, im};
  return z;
}
static inline tfs_lz lz_add(tfs_lz a, tfs_lz b) {
  return lz(a.re + b.re, a.im + b.im);
}
static inline tfs_lz lz_sub(tfs_lz a, tfs_lz b) {
  return lz(a.re - b.re, a.im - b.im);
}
static inline tfs_lz lz_mul(tfs_lz a, tfs_lz b) {
  return lz(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
/* conj(a) * b */
static inline tfs_lz lz_cmul(tfs_lz a, tfs_lz b) {
  return lz(a.re * b.re + a.im * b.im, a.re * b.im - a.im * b.re);
}
static inline tfs_lz lz_conj(tfs_lz a) { return lz(a.re, -a.im); }
static inline tfs_lz lz_scale(tfs_lz a, double s) {
  return lz(a.re * s, a.im * s);
}
static inline double lz_abs2(tfs_lz a) { return a.re * a.re + a.im * a.im; }
static inline double lz_abs(tfs_lz a) { return hypot(a.re, a.im); }
/* a / b by Smith's method: exact division when both are real. */
static inline tfs_lz lz_div(tfs_lz a, tfs_lz b) {
  if (b.im == 0) return lz(a.re / b.re, a.im / b.re);
  if (fabs(b.re) >= fabs(b.im)) {
    double r = b.im / b.re, d = b.re + b.im * r;
    return lz((a.re + a.im * r) / d, (a.im - a.re * r) / d);
  }
  double r = b.re / b.im, d = b.im + b.re * r;
  return lz((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}

/* Whether dt is complex64 or complex128. */
static inline int tfs_linalg__is_complex(tfs_dtype dt) {
  return dt == TFS_COMPLEX64 || dt == TFS_COMPLEX128;
}

/* Reads n elements of t from element offset `at` into dst.  float,
 * double, complex and bfloat16 subnormals read as zero, as TensorFlow's
 * CPU kernels run with denormals flushed (FTZ and DAZ); a half subnormal
 * is a normal float there and is kept. */
void tfs_linalg__load(const tfs_tensor *t, int64_t at, int64_t n, tfs_lz *dst);

/* Writes n values to t at element offset `at` in t's dtype (the
 * imaginary parts dropped for a real dtype). */
void tfs_linalg__store(tfs_tensor *t, int64_t at, int64_t n, const tfs_lz *src);

/* TensorFlow's LinearAlgebraOp checks of the node's inputs 0..nin-1: rank
 * >= 2 for the first ("Input tensor 0 must have rank >= 2, got 1"), then
 * each other's rank and outer dims equal to the first's ("All input tensors
 * must have the same rank.", "... the same outer dimensions.").  Fills the
 * batch size. Returns 0, or -1 after failing the kernel. */
int tfs_linalg__check_inputs(tfs_kernel_ctx *c, int nin, int64_t *batch);

/* tfs_linalg__check_inputs for one input that must hold square matrices
 * ("Input matrix must be square."); fills the batch size and the order
 * n.  Returns 0, or -1 after failing the kernel. */
int tfs_linalg__check_square(tfs_kernel_ctx *c, int64_t *batch, int64_t *n);

/* The shape of input 0's batch dims followed by d0 (and d1 when nd is 2);
 * nd 0 gives a scalar, TensorFlow's shape for an output not computed. */
void tfs_linalg__out_shape(const tfs_shape *in, int nd, int64_t d0, int64_t d1,
                           tfs_shape *out);

/* k * bytes for the workspace of one matrix, or 0 on overflow. */
size_t tfs_linalg__ws_elems(int64_t a, int64_t b, int64_t extra);

/* The ops' bool attrs, read by tfs_linalg__prepare (defaults where the
 * op has no such attr): adjoint, lower (1), full_matrices, compute_v or
 * compute_uv (1). */
typedef struct {
  int adjoint, lower, full, compute;
} tfs_linalg_attrs;

/* Kernel prepare of every linalg op: a tfs_linalg_attrs as the state,
 * released with free. */
int tfs_linalg__prepare(tfs_kernel_init *ki);

typedef struct tfs_linalg_job tfs_linalg_job;
/* Computes matrix b of the batch with workspace ws (ws_elems values);
 * returns 0, or an op-specific non-zero error code. */
typedef int (*tfs_linalg_fn)(const tfs_linalg_job *j, int64_t b, tfs_lz *ws);

struct tfs_linalg_job {
  const tfs_tensor *in[2];
  tfs_tensor *out[3];
  int64_t m, n, k; /* the matrices' sizes, as the op defines them */
  int flag[3];     /* the op's attrs (adjoint, lower, full, ...) */
  double tiny;     /* the smallest normal of the input's dtype */
  size_t ws_elems;
  tfs_linalg_fn fn;
  const void *extra; /* op-specific (broadcast index maps) */
  atomic_int err;    /* the first non-zero code; -1: out of memory */
};

/* Runs j->fn over the batch's `batch` matrices on the intra-op pool with
 * `cost` per matrix.  Returns 0, the first error code, or fails the
 * kernel for out of memory and returns -1. */
int tfs_linalg__run(tfs_kernel_ctx *c, tfs_linalg_job *j, int64_t batch,
                    int64_t cost);

/* The smallest normal number of dt's real type (FLT_MIN for float and
 * complex64, the half and bfloat16 ones for those, DBL_MIN else). */
double tfs_linalg__tiny(tfs_dtype dt);

#endif

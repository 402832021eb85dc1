/*
 * backends/cpu/complex_abs.c - ComplexAbs: |x| of complex64 (to float)
 * and complex128 (to double), computed as hypot so that large parts do
 * not overflow; TensorFlow's signature check of Tout against T.
 */
#include <math.h>

#include "backends/cpu/cpu_tables.h"

static int complex_abs_prepare(tfs_kernel_init *ki) {
  tfs_dtype in = ki->in_types[0], out = ki->out_types[0];
  tfs_dtype want = in == TFS_COMPLEX64 ? TFS_FLOAT : TFS_DOUBLE;
  if (out != want)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Signature mismatch, have: %s->%s expected: %s->%s",
                        tfs_dtype_name(in), tfs_dtype_name(out),
                        tfs_dtype_name(in), tfs_dtype_name(want));
  return 0;
}

typedef struct {
  const void *in;
  void *out;
  int dbl;
} abs_job;

static void abs_range(void *arg, int64_t begin, int64_t end) {
  const abs_job *j = arg;
  if (j->dbl) {
    const double *x = j->in;
    double *y = j->out;
    for (int64_t i = begin; i < end; i++) y[i] = hypot(x[2 * i], x[2 * i + 1]);
  } else {
    const float *x = j->in;
    float *y = j->out;
    for (int64_t i = begin; i < end; i++)
      y[i] = hypotf(x[2 * i], x[2 * i + 1]);
  }
}

static void complex_abs_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  abs_job j = {x->data, o->data, x->dtype == TFS_COMPLEX128};
  tfs_kctx_parallel_for(c, x->nelems, 8, abs_range, &j);
}

const tfs_kernel_def tfs_cpu_kernels_complex_abs[] = {
    {"ComplexAbs", "CPU", "T",
     TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128),
     complex_abs_prepare, complex_abs_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

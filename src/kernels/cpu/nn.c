/*
 * kernels/cpu/nn.c - BiasAdd (NHWC and NCHW) and Softmax.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "kernels/cpu/cpu_tables.h"

/* ---- BiasAdd -------------------------------------------------------------- */

static int bias_prepare(tfs_kernel_init *ki) {
  size_t len;
  const char *f = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  ki->state = (void *)(intptr_t)(f && strcmp(f, "NCHW") == 0);
  return 0;
}

/* out[outer][c][inner] = v + bias[c] */
#define BIAS_LOOP(NAME, T, EXPR)                                           \
  static void NAME(const void *V, const void *Bv, void *O, int64_t outer,  \
                   int64_t ch, int64_t inner) {                            \
    const T *v = V, *bias = Bv;                                            \
    T *o = O;                                                              \
    for (int64_t i = 0; i < outer; i++)                                    \
      for (int64_t cc = 0; cc < ch; cc++) {                                \
        const T bb = bias[cc];                                             \
        const int64_t base = (i * ch + cc) * inner;                        \
        for (int64_t k = 0; k < inner; k++) {                              \
          T x = v[base + k];                                               \
          o[base + k] = (EXPR);                                            \
        }                                                                  \
      }                                                                    \
  }
BIAS_LOOP(bias_f32, float, x + bb)
BIAS_LOOP(bias_f64, double, x + bb)
BIAS_LOOP(bias_i32, int32_t, (int32_t)((uint32_t)x + (uint32_t)bb))
BIAS_LOOP(bias_i64, int64_t, (int64_t)((uint64_t)x + (uint64_t)bb))
BIAS_LOOP(bias_f16, uint16_t,
          tfs_float_to_half(tfs_half_to_float(x) + tfs_half_to_float(bb)))
BIAS_LOOP(bias_bf16, uint16_t,
          tfs_float_to_bf16(tfs_bf16_to_float(x) + tfs_bf16_to_float(bb)))

static void bias_compute(tfs_kernel_ctx *c) {
  int nchw = (int)(intptr_t)c->state;
  const tfs_tensor *v = c->inputs[0], *b = c->inputs[1];
  char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
  int r = v->shape.rank;
  if (r < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input tensor must be at least 2D: %s",
                  tfs_shape_str(&v->shape, x, sizeof x));
    return;
  }
  if (b->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Biases must be 1D: %s",
                  tfs_shape_str(&b->shape, x, sizeof x));
    return;
  }
  int cdim = nchw ? (r >= 3 ? r - 3 : 1) : r - 1;
  if (nchw && r < 3) cdim = 1;
  int64_t ch = v->shape.dims[cdim];
  if (b->shape.dims[0] != ch) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Must provide as many biases as the %s dimension of the "
                  "input tensor: %s vs. %s",
                  nchw ? "channel" : "last",
                  tfs_shape_str(&b->shape, x, sizeof x),
                  tfs_shape_str(&v->shape, y, sizeof y));
    return;
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < cdim; d++) outer *= v->shape.dims[d];
  for (int d = cdim + 1; d < r; d++) inner *= v->shape.dims[d];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &v->shape);
  if (!o || o->nelems == 0) return;
  switch (v->dtype) {
    case TFS_FLOAT: bias_f32(v->data, b->data, o->data, outer, ch, inner); break;
    case TFS_DOUBLE: bias_f64(v->data, b->data, o->data, outer, ch, inner); break;
    case TFS_INT32: bias_i32(v->data, b->data, o->data, outer, ch, inner); break;
    case TFS_INT64: bias_i64(v->data, b->data, o->data, outer, ch, inner); break;
    case TFS_HALF: bias_f16(v->data, b->data, o->data, outer, ch, inner); break;
    case TFS_BFLOAT16:
      bias_bf16(v->data, b->data, o->data, outer, ch, inner);
      break;
    default:
      tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "BiasAdd is not implemented for %s",
                    tfs_dtype_name(v->dtype));
  }
}

/* ---- Softmax -------------------------------------------------------------- */

#define SOFTMAX_ROW(NAME, T, LOAD, STORE)                                 \
  static void NAME(const T *in, T *out, int64_t n, double *tmp) {        \
    double mx = -INFINITY;                                               \
    for (int64_t i = 0; i < n; i++) {                                    \
      double v = LOAD(in[i]);                                            \
      tmp[i] = v;                                                        \
      if (v > mx || v != v) mx = v;                                      \
    }                                                                    \
    double sum = 0;                                                      \
    for (int64_t i = 0; i < n; i++) {                                    \
      tmp[i] = exp(tmp[i] - mx);                                         \
      sum += tmp[i];                                                     \
    }                                                                    \
    for (int64_t i = 0; i < n; i++) out[i] = STORE(tmp[i] / sum);        \
  }
#define IDD(x) ((double)(x))
#define TOF(x) ((float)(x))
#define TOD(x) (x)
#define H2D(x) ((double)tfs_half_to_float(x))
#define D2H(x) tfs_float_to_half((float)(x))
#define B2D(x) ((double)tfs_bf16_to_float(x))
#define D2B(x) tfs_float_to_bf16((float)(x))
SOFTMAX_ROW(softmax_f32, float, IDD, TOF)
SOFTMAX_ROW(softmax_f64, double, IDD, TOD)
SOFTMAX_ROW(softmax_f16, uint16_t, H2D, D2H)
SOFTMAX_ROW(softmax_bf16, uint16_t, B2D, D2B)

static void softmax_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  char buf[TFS_SHAPE_STRLEN];
  if (x->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits must have >= 1 dimension, got %s",
                  tfs_shape_str(&x->shape, buf, sizeof buf));
    return;
  }
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || x->nelems == 0) return;
  int64_t n = x->shape.dims[x->shape.rank - 1];
  int64_t rows = x->nelems / n;
  double *tmp = tfs_malloc(sizeof(double) * (size_t)n);
  if (!tmp) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  for (int64_t r = 0; r < rows; r++) {
    switch (x->dtype) {
      case TFS_FLOAT:
        softmax_f32((const float *)x->data + r * n, (float *)o->data + r * n,
                    n, tmp);
        break;
      case TFS_DOUBLE:
        softmax_f64((const double *)x->data + r * n,
                    (double *)o->data + r * n, n, tmp);
        break;
      case TFS_HALF:
        softmax_f16((const uint16_t *)x->data + r * n,
                    (uint16_t *)o->data + r * n, n, tmp);
        break;
      default:
        softmax_bf16((const uint16_t *)x->data + r * n,
                     (uint16_t *)o->data + r * n, n, tmp);
        break;
    }
  }
  tfs_free(tmp);
}

const tfs_kernel_def tfs_cpu_kernels_nn[] = {
    {"BiasAdd", "CPU", "T",
     TFS_DT_FLOATS | TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64),
     bias_prepare, bias_compute, NULL, 0, NULL},
    {"Softmax", "CPU", "T", TFS_DT_FLOATS, NULL, softmax_compute, NULL, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

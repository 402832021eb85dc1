/*
 * backends/cpu/fused_epilogue.h - what the fused CPU kernels (_FusedMatMul,
 * _FusedConv2D, _FusedDepthwiseConv2dNative, _FusedBatchMatMulV2) apply
 * to a contraction's output rows while they are still in cache: a
 * per-channel bias or inference batch norm, then an activation, with the
 * same formulas as the unfused kernels (BiasAdd, FusedBatchNormV3, Relu,
 * Relu6, Elu, LeakyRelu, Tanh, Sigmoid), and TensorFlow's fused-only
 * activations _MklSwish (x * sigmoid(x)), GeluApproximate (tanh form) and
 * GeluExact (erf form), and tfsess's _TfsHardSwish (x * relu6(x + 3) /
 * 6).  The transcendental ones run over each row through vmath.h's array
 * functions.  _FusedConv2D also takes fused_ops ["BiasAdd", "Add"
 * [, activation]] (TensorFlow's oneDNN fusion of a residual connection):
 * a second argument of the output's shape added after the bias, before
 * the activation.
 */
#ifndef TFS_BACKENDS_CPU_FUSED_EPILOGUE_H
#define TFS_BACKENDS_CPU_FUSED_EPILOGUE_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/half.h"
#include "kernels/kernel.h"
#include "backends/cpu/store_act.h"
#include "backends/cpu/vmath.h"

enum { TFS_FE_NONE, TFS_FE_BIAS, TFS_FE_BATCH_NORM, TFS_FE_MUL };
enum {
  TFS_FA_NONE,
  TFS_FA_RELU,
  TFS_FA_RELU6,
  TFS_FA_ELU,
  TFS_FA_LEAKY_RELU,
  TFS_FA_TANH,
  TFS_FA_SIGMOID,
  TFS_FA_SWISH,     /* "_MklSwish" */
  TFS_FA_GELU_TANH, /* "GeluApproximate" */
  TFS_FA_GELU_ERF,  /* "GeluExact" */
  TFS_FA_HARD_SWISH, /* "_TfsHardSwish" */
  TFS_FA_COUNT
};

/* tfs_fused_parse's `allowed` bit for ["BiasAdd", "Add" ...]. */
#define TFS_FUSED_ALLOW_ADD (1u << 16)

typedef struct tfs_fused_epilogue {
  int kind;    /* TFS_FE_* */
  int act;     /* TFS_FA_* */
  int add;     /* "Add" after the bias: the last argument is added */
  int nargs;   /* inputs the epilogue reads after the two operands */
  float alpha; /* leakyrelu_alpha */
  float epsilon;
} tfs_fused_epilogue;

/* Parses fused_ops / num_args / epsilon / leakyrelu_alpha.  `allowed`:
 * bit (1 << TFS_FE_*) of the first fused ops this kernel accepts, and
 * TFS_FUSED_ALLOW_ADD when it takes "Add" after "BiasAdd".
 * Fails prepare with TensorFlow's "Fusion is not implemented: [...]". */
static inline int tfs_fused_parse(tfs_kernel_init *ki, unsigned allowed,
                                  tfs_fused_epilogue *e) {
  memset(e, 0, sizeof(*e));
  e->alpha = 0.2f;
  e->epsilon = 1e-4f;
  tfs_attrs_get_float(ki->attrs, "leakyrelu_alpha", &e->alpha);
  tfs_attrs_get_float(ki->attrs, "epsilon", &e->epsilon);
  const tfs_attr_value *v = tfs_attrs_find(ki->attrs, "fused_ops");
  int n = v && v->is_list && v->type == TFS_ATTR_STRING ? v->u.list.n : 0;
  const tfs_bytes *ops = n ? (const tfs_bytes *)v->u.list.v : NULL;
  int i = 0;
  if (n > 0 && strcmp(ops[0].ptr, "BiasAdd") == 0) {
    e->kind = TFS_FE_BIAS, e->nargs = 1, i = 1;
  } else if (n > 0 && (strcmp(ops[0].ptr, "FusedBatchNorm") == 0 ||
                       strcmp(ops[0].ptr, "FusedBatchNormV3") == 0)) {
    e->kind = TFS_FE_BATCH_NORM, e->nargs = 4, i = 1;
  } else if (n > 0 && strcmp(ops[0].ptr, "Mul") == 0) {
    e->kind = TFS_FE_MUL, e->nargs = 1, i = 1;
  }
  if (i < n && e->kind == TFS_FE_BIAS && (allowed & TFS_FUSED_ALLOW_ADD) &&
      strcmp(ops[i].ptr, "Add") == 0)
    e->add = 1, e->nargs = 2, i++;
  if (i < n) {
    static const char *const kActs[TFS_FA_COUNT] = {
        "",        "Relu",      "Relu6",           "Elu",       "LeakyRelu",
        "Tanh",    "Sigmoid",   "_MklSwish",       "GeluApproximate",
        "GeluExact", "_TfsHardSwish"};
    for (int a = 1; a < TFS_FA_COUNT; a++)
      if (strcmp(ops[i].ptr, kActs[a]) == 0) {
        e->act = a;
        i++;
        break;
      }
  }
  int64_t num_args = -1;
  tfs_attrs_get_int(ki->attrs, "num_args", &num_args);
  if (i != n || n == 0 || !(allowed & (1u << e->kind)) ||
      (num_args >= 0 && num_args != e->nargs)) {
    char buf[256] = "";
    size_t used = 0;
    for (int k = 0; k < n && used + 2 < sizeof buf; k++)
      used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
                               k ? "," : "", ops[k].ptr);
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Fusion is not implemented: [%s]", buf);
  }
  return 0;
}

/* y[i] = x[i] * (relu6(x[i] + 3) * (1/6)), rounded as TensorFlow runs
 * Keras 3's hard_swish graph (AddV2, Relu6, RealDiv by 6 that constant
 * folding turns into Mul by the rounded 1/6, Mul), so the result has its
 * bits on every path; NaN stays NaN.  x may equal y.  AVX-512, AVX2 or
 * portable C by tfs_cpu_has (epilogue_rows.c). */
void tfs_fused_hard_swish_f32(const float *x, float *y, int64_t n);

/* The array function of an activation computed over whole rows (Elu,
 * Tanh, Sigmoid, _MklSwish, GeluApproximate, GeluExact, _TfsHardSwish);
 * NULL for the others. */
typedef void (*tfs_fused_act_fn)(const float *x, float *y, int64_t n);
static inline tfs_fused_act_fn tfs_fused_act_array(int act) {
  switch (act) {
    case TFS_FA_ELU:
      return tfs_vm_elu_f32;
    case TFS_FA_TANH:
      return tfs_vm_tanh_f32;
    case TFS_FA_SIGMOID:
      return tfs_vm_sigmoid_f32;
    case TFS_FA_SWISH:
      return tfs_vm_swish_f32;
    case TFS_FA_GELU_TANH:
      return tfs_vm_gelu_tanh_f32;
    case TFS_FA_GELU_ERF:
      return tfs_vm_gelu_erf_f32;
    case TFS_FA_HARD_SWISH:
      return tfs_fused_hard_swish_f32;
    default:
      return NULL;
  }
}

/* rows[r * ld + j] = act(rows[r * ld + j] * scale[j] + shift[j]) for
 * j < ch and act none, Relu, Relu6 or LeakyRelu (alpha); scale and shift
 * may be NULL (1 and 0).  AVX-512, AVX2 or portable C by tfs_cpu_has
 * (epilogue_rows.c). */
void tfs_fused_rows_f32(int act, float alpha, float *rows, int64_t nrows,
                        int64_t ch, int64_t ld, const float *scale,
                        const float *shift);

/* The epilogue e over rows (as tfs_fused_rows_f32) for any activation. */
static inline void tfs_fused_apply(const tfs_fused_epilogue *e, float *rows,
                                   int64_t nrows, int64_t ch, int64_t ld,
                                   const float *scale, const float *shift) {
  switch (e->act) {
    case TFS_FA_NONE:
      if (scale || shift)
        tfs_fused_rows_f32(TFS_FA_NONE, 0, rows, nrows, ch, ld, scale, shift);
      break;
    case TFS_FA_RELU:
    case TFS_FA_RELU6:
    case TFS_FA_LEAKY_RELU:
      tfs_fused_rows_f32(e->act, e->alpha, rows, nrows, ch, ld, scale, shift);
      break;
    default: {
      /* scale and shift, then the activation over each row */
      if (scale || shift)
        tfs_fused_rows_f32(TFS_FA_NONE, 0, rows, nrows, ch, ld, scale, shift);
      tfs_fused_act_fn f = tfs_fused_act_array(e->act);
      if (ld == ch) { /* one call: whole vector blocks across rows */
        f(rows, rows, nrows * ch);
        break;
      }
      for (int64_t r = 0; r < nrows; r++) f(rows + r * ld, rows + r * ld, ch);
    }
  }
}

/* 1 when e's activation is one a convolution applies as it stores its
 * tiles (none, Relu, Relu6 or hard-swish: store_act.h), after the bias. */
static inline int tfs_fused_act_in_store(const tfs_fused_epilogue *e) {
  return e->act == TFS_FA_NONE || e->act == TFS_FA_RELU ||
         e->act == TFS_FA_RELU6 || e->act == TFS_FA_HARD_SWISH;
}

/* The convolution's `relu` argument (TFS_STORE_*) for e's activation:
 * TFS_STORE_NONE when it is not one tfs_fused_act_in_store accepts. */
static inline int tfs_fused_store_relu(const tfs_fused_epilogue *e) {
  switch (e->act) {
    case TFS_FA_RELU:
      return TFS_STORE_RELU;
    case TFS_FA_RELU6:
      return TFS_STORE_RELU6;
    case TFS_FA_HARD_SWISH:
      return TFS_STORE_HARD_SWISH;
    default:
      return TFS_STORE_NONE;
  }
}

/* The epilogue left over rows a GEMM stored: with the bias added in the
 * store (in_store: no scale), only an activation it could not apply
 * there; else all of it. */
static inline void tfs_fused_apply_rest(const tfs_fused_epilogue *e,
                                        int in_store, float *rows,
                                        int64_t nrows, int64_t ch,
                                        int64_t ld, const float *scale,
                                        const float *shift) {
  if (!in_store)
    tfs_fused_apply(e, rows, nrows, ch, ld, scale, shift);
  else if (!tfs_fused_act_in_store(e))
    tfs_fused_apply(e, rows, nrows, ch, ld, NULL, NULL);
}

/* rows[r * ld + j] = act(rows[r * ld + j] + add[r * ald + j]) for j < ch
 * and act none, Relu, Relu6 or LeakyRelu (alpha): one rounding for the
 * sum, then the activation, as AddV2 then the activation op compute it.
 * AVX-512, AVX2 or portable C by tfs_cpu_has (epilogue_rows.c). */
void tfs_fused_add_rows_f32(int act, float alpha, float *rows, int64_t nrows,
                            int64_t ch, int64_t ld, const float *add,
                            int64_t ald);

/* The rest of an epilogue with "Add" over rows whose bias is already in:
 * rows += add (row r of add at add + r * ald), then e's activation. */
static inline void tfs_fused_apply_add(const tfs_fused_epilogue *e,
                                       float *rows, int64_t nrows, int64_t ch,
                                       int64_t ld, const float *add,
                                       int64_t ald) {
  /* a piecewise activation in the same pass, an array one after it */
  const int array = tfs_fused_act_array(e->act) != NULL;
  tfs_fused_add_rows_f32(array ? TFS_FA_NONE : e->act, e->alpha, rows, nrows,
                         ch, ld, add, ald);
  if (array) tfs_fused_apply(e, rows, nrows, ch, ld, NULL, NULL);
}

/* 0 when t is a float vector of ch values (or a bfloat16 one, where
 * bf16_ok); else fails c with TensorFlow's message naming it `what` and
 * returns -1. */
static inline int tfs_fused_check_channels_of(tfs_kernel_ctx *c,
                                              const tfs_tensor *t,
                                              const char *what, int64_t ch,
                                              int bf16_ok) {
  if ((t->dtype == TFS_FLOAT || (bf16_ok && t->dtype == TFS_BFLOAT16)) &&
      t->nelems == ch)
    return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "%s must be a 1-D %s vector of %lld values, got %lld %s",
                what, bf16_ok ? "float or bfloat16" : "float", (long long)ch,
                (long long)t->nelems, tfs_dtype_name(t->dtype));
  return -1;
}

static inline int tfs_fused_check_channels(tfs_kernel_ctx *c,
                                           const tfs_tensor *t,
                                           const char *what, int64_t ch) {
  return tfs_fused_check_channels_of(c, t, what, ch, 0);
}

/* Per-channel scale and shift of the epilogue from the kernel's args
 * (inputs 2..): bias -> (NULL, bias); batch norm -> scale/sqrt(var+eps),
 * offset - mean * that.  The args are float; with wide (bfloat16
 * _FusedConv2D) they may also be bfloat16, widened into buf.  `buf` has
 * room for 2 * ch floats, 6 * ch with wide (NULL: a bias only, float).
 * Fails c with TensorFlow's messages on bad arg sizes. */
static inline int tfs_fused_channel_params_of(tfs_kernel_ctx *c,
                                              const tfs_fused_epilogue *e,
                                              int64_t ch, float *buf,
                                              int wide, const float **scale,
                                              const float **shift) {
  *scale = NULL;
  *shift = NULL;
  if (e->kind == TFS_FE_NONE || e->kind == TFS_FE_MUL) return 0;
  const float *arg[4] = {NULL, NULL, NULL, NULL};
  for (int k = 0; k < e->nargs - e->add; k++) { /* not the addend */
    const tfs_tensor *t = c->inputs[2 + k];
    if (tfs_fused_check_channels_of(
            c, t, e->kind == TFS_FE_BIAS ? "bias" : "batch norm argument",
            ch, wide))
      return -1;
    if (t->dtype == TFS_FLOAT) {
      arg[k] = t->data;
      continue;
    }
    float *w = buf + (2 + k) * ch; /* bfloat16, with wide */
    const uint16_t *h = t->data;
    for (int64_t j = 0; j < ch; j++) w[j] = tfs_bf16_to_float(h[j]);
    arg[k] = w;
  }
  if (e->kind == TFS_FE_BIAS) {
    *shift = arg[0];
    return 0;
  }
  for (int64_t j = 0; j < ch; j++) {
    float s = arg[0][j] / sqrtf(arg[3][j] + e->epsilon);
    buf[j] = s;
    buf[ch + j] = arg[1][j] - arg[2][j] * s;
  }
  *scale = buf;
  *shift = buf + ch;
  return 0;
}

static inline int tfs_fused_channel_params(tfs_kernel_ctx *c,
                                           const tfs_fused_epilogue *e,
                                           int64_t ch, float *buf,
                                           const float **scale,
                                           const float **shift) {
  return tfs_fused_channel_params_of(c, e, ch, buf, 0, scale, shift);
}

/* A GEMM done callback (tfs_gemm_done_fn) adding a bias along the
 * columns of each finished block of c: arg is a tfs_fused_bias_job. */
typedef struct tfs_fused_bias_job {
  float *c;           /* the product, row-major */
  const float *bias;  /* one value a column */
  int64_t ld;         /* floats between c's rows */
} tfs_fused_bias_job;

static inline void tfs_fused_bias_done(void *arg, int64_t r0, int64_t mb,
                                       int64_t c0, int64_t nb) {
  const tfs_fused_bias_job *j = arg;
  tfs_fused_rows_f32(TFS_FA_NONE, 0.0f, j->c + r0 * j->ld + c0, mb, nb,
                     j->ld, NULL, j->bias + c0);
}

#endif

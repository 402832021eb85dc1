/*
 * backends/cpu/nn_activations.c - elementwise activations of the nn family:
 * Relu6, Elu, Selu, Softplus, Softsign and LeakyRelu, computed as
 * TensorFlow's Eigen expressions compute them (NaN passes through;
 * half and bfloat16 are computed in float).  Elu, Selu and Softplus take
 * their exponentials and logarithms from vmath.h's array functions, in
 * float blocks.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/elementwise.h"
#include "backends/cpu/vmath.h"

#define H2F tfs_half_to_float
#define F2H tfs_float_to_half
#define B2F tfs_bf16_to_float
#define F2B tfs_float_to_bf16

/* Loops for the four float types; EXPR sees `x` of type float or double
 * and the constant `ONE` of that type. */
#define ACT_FLOAT_LOOPS(OP, EXPR_F, EXPR_D, EXPR_H, EXPR_B) \
  TFS_UN_LOOP(OP##_f32, float, EXPR_F)                      \
  TFS_UN_LOOP(OP##_f64, double, EXPR_D)                     \
  TFS_UN_LOOP_F16(OP##_f16, H2F, F2H, EXPR_H)               \
  TFS_UN_LOOP_BF16(OP##_bf16, EXPR_B)
#define ACT_FLOAT_ENTRIES(OP)                                             \
  [TFS_FLOAT] = OP##_f32, [TFS_DOUBLE] = OP##_f64, [TFS_HALF] = OP##_f16, \
  [TFS_BFLOAT16] = OP##_bf16

/* ---- Relu6: min(max(x, 0), 6); NaN stays NaN, -0 becomes +0 -------------- */

#define RELU6(x, Z, S) \
  ((x) > (Z) ? ((x) > (S) ? (S) : (x)) : ((x) != (x) ? (x) : (Z)))
ACT_FLOAT_LOOPS(relu6, RELU6(x, 0.0f, 6.0f), RELU6(x, 0.0, 6.0),
                RELU6(x, 0.0f, 6.0f), RELU6(x, 0.0f, 6.0f))
#define MK_RELU6_S(N, T) TFS_UN_LOOP(N, T, (T)(x < 0 ? 0 : (x > 6 ? 6 : x)))
#define MK_RELU6_U(N, T) TFS_UN_LOOP(N, T, (T)(x > 6 ? 6 : x))
MK_RELU6_S(relu6_i8, int8_t)
MK_RELU6_S(relu6_i16, int16_t)
MK_RELU6_S(relu6_i32, int32_t)
MK_RELU6_S(relu6_i64, int64_t)
MK_RELU6_U(relu6_u8, uint8_t)
MK_RELU6_U(relu6_u16, uint16_t)
MK_RELU6_U(relu6_u32, uint32_t)
MK_RELU6_U(relu6_u64, uint64_t)

/* float32 array function F as the loops of the float types: half and
 * bfloat16 through it in float blocks, double with EXPR_D */
#define ACT_VM_LOOPS(OP, F, EXPR_D)                                       \
  static int OP##_f32(const void *X, void *O, int64_t n) {                \
    F(X, O, n);                                                           \
    return 0;                                                             \
  }                                                                       \
  static int OP##_f16(const void *X, void *O, int64_t n) {                \
    tfs_vm_map16(F, X, O, n, 0);                                          \
    return 0;                                                             \
  }                                                                       \
  static int OP##_bf16(const void *X, void *O, int64_t n) {               \
    tfs_vm_map16(F, X, O, n, 1);                                          \
    return 0;                                                             \
  }                                                                       \
  TFS_UN_LOOP(OP##_f64, double, EXPR_D)

/* ---- Elu and Selu: exp(x) - 1 below zero --------------------------------
 * TensorFlow writes exp(x) - 1; in float, vmath's expm1 is within float's
 * rounding of that difference (2^-24 absolute) and exact near 0, where
 * exp(x) - 1 loses every digit.  double keeps exp(x) - 1. */

#define ELU(x, E, ONE) ((x) < 0 ? E(x) - (ONE) : (x))
ACT_VM_LOOPS(elu, tfs_vm_elu_f32, ELU(x, exp, 1.0))

#define SELU_SCALE 1.0507009873554804934193349852946
#define SELU_SCALE_ALPHA \
  (1.0507009873554804934193349852946 * 1.6732632423543772848170429916717)
#define SELU(x, E, ONE, T) \
  ((x) < 0 ? (T)SELU_SCALE_ALPHA * (E(x) - (ONE)) : (T)SELU_SCALE * (x))
/* elu, then the two scales: elu(x) < 0 exactly when x < 0 (and -0 stays
 * -0), so this works in place */
static void selu_f32a(const float *x, float *y, int64_t n) {
  tfs_vm_elu_f32(x, y, n);
  for (int64_t i = 0; i < n; i++)
    y[i] = y[i] < 0 ? (float)SELU_SCALE_ALPHA * y[i] : (float)SELU_SCALE * y[i];
}
ACT_VM_LOOPS(selu, selu_f32a, SELU(x, exp, 1.0, double))

/* ---- Softplus: x above -t, exp(x) below t, log1p(exp(x)) between, where
 * t = log(epsilon of the dtype) + 2 (TensorFlow's thresholds). ----------- */

/* float arrays: exp and log1p of each block, then the thresholds */
#define SP_BLOCK 256
static void softplus_fa(const float *x, float *y, int64_t n, float t) {
  float e[SP_BLOCK], l[SP_BLOCK];
  for (int64_t i = 0; i < n; i += SP_BLOCK) {
    int64_t k = n - i < SP_BLOCK ? n - i : SP_BLOCK;
    tfs_vm_exp_f32(x + i, e, k);
    tfs_vm_log1p_f32(e, l, k);
    for (int64_t j = 0; j < k; j++) {
      float v = x[i + j];
      y[i + j] = v > -t ? v : (v < t ? e[j] : l[j]);
    }
  }
}
static inline double softplus_d(double x, double t) {
  if (x > -t) return x;
  double e = exp(x);
  return x < t ? e : log1p(e);
}
/* log(FLT_EPSILON) + 2, log(DBL_EPSILON) + 2, log(2^-10) + 2, log(2^-7) + 2 */
#define SP_T_F32 -13.942385152878742f
#define SP_T_F64 -34.043653389117154
#define SP_T_F16 -4.931471805599453f
#define SP_T_BF16 -2.852030263919617f
static void softplus_f32a(const float *x, float *y, int64_t n) {
  softplus_fa(x, y, n, SP_T_F32);
}
static void softplus_f16a(const float *x, float *y, int64_t n) {
  softplus_fa(x, y, n, SP_T_F16);
}
static void softplus_bf16a(const float *x, float *y, int64_t n) {
  softplus_fa(x, y, n, SP_T_BF16);
}
static int softplus_f32(const void *X, void *O, int64_t n) {
  softplus_f32a(X, O, n);
  return 0;
}
static int softplus_f16(const void *X, void *O, int64_t n) {
  tfs_vm_map16(softplus_f16a, X, O, n, 0);
  return 0;
}
static int softplus_bf16(const void *X, void *O, int64_t n) {
  tfs_vm_map16(softplus_bf16a, X, O, n, 1);
  return 0;
}
TFS_UN_LOOP(softplus_f64, double, softplus_d(x, SP_T_F64))

/* ---- Softsign: x / (1 + |x|) --------------------------------------------- */

ACT_FLOAT_LOOPS(softsign, x / (1.0f + fabsf(x)), x / (1.0 + fabs(x)),
                x / (1.0f + fabsf(x)), x / (1.0f + fabsf(x)))

static const tfs_un_table kRelu6 = {
    {ACT_FLOAT_ENTRIES(relu6), [TFS_INT8] = relu6_i8, [TFS_INT16] = relu6_i16,
     [TFS_INT32] = relu6_i32, [TFS_INT64] = relu6_i64, [TFS_UINT8] = relu6_u8,
     [TFS_UINT16] = relu6_u16, [TFS_UINT32] = relu6_u32,
     [TFS_UINT64] = relu6_u64},
    ""};
static const tfs_un_table kElu = {{ACT_FLOAT_ENTRIES(elu)}, ""};
static const tfs_un_table kSelu = {{ACT_FLOAT_ENTRIES(selu)}, ""};
static const tfs_un_table kSoftplus = {{ACT_FLOAT_ENTRIES(softplus)}, ""};
static const tfs_un_table kSoftsign = {{ACT_FLOAT_ENTRIES(softsign)}, ""};

/* ---- LeakyRelu: x > 0 ? x : alpha * x ------------------------------------ */

typedef void (*lrelu_fn)(const void *x, void *o, int64_t n, float alpha);

static void lrelu_f32(const void *X, void *O, int64_t n, float alpha) {
  const float *x = X;
  float *o = O;
  for (int64_t i = 0; i < n; i++) o[i] = x[i] > 0 ? x[i] : alpha * x[i];
}
static void lrelu_f64(const void *X, void *O, int64_t n, float alpha) {
  const double *x = X;
  double *o = O;
  const double a = alpha;
  for (int64_t i = 0; i < n; i++) o[i] = x[i] > 0 ? x[i] : a * x[i];
}
#define LRELU16(NAME, TO, FROM)                                      \
  static void NAME(const void *X, void *O, int64_t n, float alpha) { \
    const uint16_t *x = X;                                           \
    uint16_t *o = O;                                                 \
    const float a = TO(FROM(alpha));                                 \
    for (int64_t i = 0; i < n; i++) {                                \
      float v = TO(x[i]);                                            \
      o[i] = v > 0 ? x[i] : FROM(a * v);                             \
    }                                                                \
  }
LRELU16(lrelu_f16, H2F, F2H)
LRELU16(lrelu_bf16, B2F, F2B)

typedef struct {
  lrelu_fn fn;
  float alpha;
  size_t esize;
} lrelu_state;

static int lrelu_prepare(tfs_kernel_init *ki) {
  lrelu_fn fn;
  switch (ki->in_types[0]) {
    case TFS_FLOAT:
      fn = lrelu_f32;
      break;
    case TFS_DOUBLE:
      fn = lrelu_f64;
      break;
    case TFS_HALF:
      fn = lrelu_f16;
      break;
    default:
      fn = lrelu_bf16;
      break;
  }
  lrelu_state *s = tfs_malloc(sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->fn = fn;
  s->alpha = 0.2f;
  tfs_attrs_get_float(ki->attrs, "alpha", &s->alpha);
  s->esize = tfs_dtype_size(ki->in_types[0]);
  ki->state = s;
  return 0;
}

typedef struct {
  const lrelu_state *s;
  const char *x;
  char *o;
} lrelu_job;

static void lrelu_range(void *arg, int64_t b, int64_t e) {
  lrelu_job *j = arg;
  size_t es = j->s->esize;
  j->s->fn(j->x + (size_t)b * es, j->o + (size_t)b * es, e - b, j->s->alpha);
}

static void lrelu_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o || x->nelems == 0) return;
  lrelu_job j = {c->state, x->data, o->data};
  tfs_kctx_parallel_for(c, x->nelems, 1, lrelu_range, &j);
}

#define INTS                                                                \
  (TFS_DT_BIT(TFS_INT8) | TFS_DT_BIT(TFS_INT16) | TFS_DT_BIT(TFS_INT32) |   \
   TFS_DT_BIT(TFS_INT64) | TFS_DT_BIT(TFS_UINT8) | TFS_DT_BIT(TFS_UINT16) | \
   TFS_DT_BIT(TFS_UINT32) | TFS_DT_BIT(TFS_UINT64))
#define ACT(OP, TYPES, TABLE)                                             \
  {                                                                       \
    OP, "CPU", "T", TYPES, tfs_unary_prepare, tfs_unary_compute, free, 0, \
        &TABLE                                                            \
  }

const tfs_kernel_def tfs_cpu_kernels_nn_activations[] = {
    ACT("Relu6", TFS_DT_FLOATS | INTS, kRelu6),
    ACT("Elu", TFS_DT_FLOATS, kElu),
    ACT("Selu", TFS_DT_FLOATS, kSelu),
    ACT("Softplus", TFS_DT_FLOATS, kSoftplus),
    ACT("Softsign", TFS_DT_FLOATS, kSoftsign),
    {"LeakyRelu", "CPU", "T", TFS_DT_FLOATS, lrelu_prepare, lrelu_compute, free,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

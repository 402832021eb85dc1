/*
 * backends/cuda/cuda_math.c - the GPU's elementwise kernels: binary math
 * with TensorFlow's broadcasting, unary math and activations (Relu, Relu6,
 * Elu, Selu, Softplus, Sigmoid, Tanh, LeakyRelu, ...), Cast between float
 * types, BiasAdd, Softmax and LogSoftmax.  Device code: elementwise.cu,
 * reduce.cu.
 */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "backends/cpu/elementwise.h"
#include "backends/cuda/cuda_kernels.h"
#include "ops/nn_checks.h"

/* ---- binary --------------------------------------------------------------- */

/* Strides of `s` right-aligned to `rank` output dims; 0 where broadcast. */
static void bcast_strides(const tfs_shape *s, const tfs_shape *out,
                          int64_t *st) {
  int64_t stride = 1;
  for (int d = out->rank - 1; d >= 0; d--) {
    int k = d - (out->rank - s->rank);
    int64_t dim = k >= 0 ? s->dims[k] : 1;
    st[d] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
}

/* The strided view of a broadcast: drops size-1 dims and merges adjacent
 * dims both operands walk contiguously.  -1 when more than
 * TFS_CU_MAX_RANK dims remain. */
static int bcast_index(const tfs_shape *a, const tfs_shape *b,
                       const tfs_shape *out, tfs_cu_index *ix) {
  int64_t sa[TFS_MAX_RANK], sb[TFS_MAX_RANK];
  bcast_strides(a, out, sa);
  bcast_strides(b, out, sb);
  int n = 0;
  int64_t dims[TFS_MAX_RANK], xa[TFS_MAX_RANK], xb[TFS_MAX_RANK];
  for (int d = 0; d < out->rank; d++) {
    if (out->dims[d] == 1) continue;
    if (n && xa[n - 1] == sa[d] * out->dims[d] &&
        xb[n - 1] == sb[d] * out->dims[d]) {
      dims[n - 1] *= out->dims[d];
      xa[n - 1] = sa[d];
      xb[n - 1] = sb[d];
      continue;
    }
    dims[n] = out->dims[d];
    xa[n] = sa[d];
    xb[n] = sb[d];
    n++;
  }
  if (n > TFS_CU_MAX_RANK) return -1;
  ix->rank = n;
  for (int d = 0; d < n; d++) {
    ix->dims[d] = dims[d];
    ix->a[d] = xa[d];
    ix->b[d] = xb[d];
  }
  return 0;
}

static void binary_compute(tfs_kernel_ctx *c) {
  tfs_cu_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  tfs_shape out;
  if (tfs_broadcast_shapes(&a->shape, &b->shape, &out, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (tfs_cu__enter(c, s->dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->dev, 0, &out);
  if (!o || o->nelems == 0) return;
  int64_t n = o->nelems;
  int as = 0, bs = 0;
  tfs_cu_index ix;
  const tfs_cu_index *pix = NULL;
  if (a->nelems == n && b->nelems == n) {
  } else if (a->nelems == 1 && b->nelems == n) {
    as = 1;
  } else if (b->nelems == 1 && a->nelems == n) {
    bs = 1;
  } else if (bcast_index(&a->shape, &b->shape, &out, &ix) == 0) {
    pix = &ix;
  } else {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Broadcast between shapes of more than %d non-trivial "
                  "dimensions is not supported on GPU", TFS_CU_MAX_RANK);
    return;
  }
  int err = tfs_cu_binary(s->op, s->type, a->data, b->data, o->data, n, as,
                          bs, pix, s->dev->compute);
  tfs_cu__launched(c, s->dev, err, c->op_name);
}

/* ---- unary ------------------------------------------------------------------ */

static void unary_compute(tfs_kernel_ctx *c) {
  tfs_cu_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  if (tfs_cu__enter(c, s->dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->dev, 0, &x->shape);
  if (!o) return;
  int err = tfs_cu_unary(s->op, s->type, x->data, o->data, x->nelems,
                         s->alpha, s->dev->compute);
  tfs_cu__launched(c, s->dev, err, c->op_name);
}

/* ---- Cast ------------------------------------------------------------------- */

static int cast_types(const tfs_attrs *a, int *from, int *to) {
  tfs_dtype src = TFS_INVALID, dst = TFS_INVALID;
  tfs_attrs_get_type(a, "SrcT", &src);
  tfs_attrs_get_type(a, "DstT", &dst);
  *from = tfs_cu__type(src);
  *to = tfs_cu__type(dst);
  return *from >= 0 && *to >= 0;
}

static int cast_accepts(const tfs_attrs *a) {
  int f, t;
  return cast_types(a, &f, &t);
}

typedef struct cast_state {
  tfs_cu_state base;
  int trunc_bits; /* Truncate: low mantissa bits to clear, or 0 */
} cast_state;

/* Mantissa bits (with the implicit one) of a TFS_CU_* type. */
static int mantissa_bits(int type) {
  switch (type) {
    case TFS_CU_F64: return 53;
    case TFS_CU_F32: return 24;
    case TFS_CU_F16: return 11;
    default: return 8; /* TFS_CU_BF16 */
  }
}

static int cast_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(cast_state))) return -1;
  cast_state *s = ki->state;
  int to, truncate = 0;
  cast_types(ki->attrs, &s->base.type, &to);
  s->base.op = to; /* the destination type code */
  tfs_attrs_get_bool(ki->attrs, "Truncate", &truncate);
  /* as the CPU Cast: float and double sources to narrower floats */
  int ms = mantissa_bits(s->base.type), md = mantissa_bits(to);
  if (truncate && ms > md && ms >= 24) s->trunc_bits = ms - md;
  return 0;
}

static void cast_compute(tfs_kernel_ctx *c) {
  cast_state *cs = c->state;
  tfs_cu_state *s = &cs->base;
  tfs_tensor *x = c->inputs[0];
  if (s->type == s->op) { /* same type: the input itself */
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(x));
    return;
  }
  if (tfs_cu__enter(c, s->dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->dev, 0, &x->shape);
  if (!o) return;
  int err = tfs_cu_cast(s->type, s->op, x->data, o->data, x->nelems,
                        cs->trunc_bits, s->dev->compute);
  tfs_cu__launched(c, s->dev, err, "Cast");
}

/* ---- BiasAdd ------------------------------------------------------------------ */

static int bias_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_basic(ki)) return -1;
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  ((tfs_cu_state *)ki->state)->op = fmt && len == 4 && !memcmp(fmt, "NCHW", 4);
  return 0;
}

static void bias_compute(tfs_kernel_ctx *c) {
  tfs_cu_state *s = c->state;
  const tfs_tensor *v = c->inputs[0], *b = c->inputs[1];
  int r = v->shape.rank, cdim;
  if (tfs_bias_add_check(&v->shape, &b->shape, s->op, &cdim, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  int64_t ch = v->shape.dims[cdim];
  if (tfs_cu__enter(c, s->dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->dev, 0, &v->shape);
  if (!o || o->nelems == 0) return;
  int64_t inner = 1;
  for (int d = cdim + 1; d < r; d++) inner *= v->shape.dims[d];
  int64_t outer = v->nelems / (ch * inner);
  int err = tfs_cu_bias_add(s->type, v->data, b->data, o->data, outer, ch,
                            inner, s->dev->compute);
  tfs_cu__launched(c, s->dev, err, "BiasAdd");
}

/* ---- Softmax ------------------------------------------------------------------- */

static void softmax_compute(tfs_kernel_ctx *c) {
  tfs_cu_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  char buf[TFS_SHAPE_STRLEN];
  if (x->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits must have >= 1 dimension, got %s",
                  tfs_shape_str(&x->shape, buf, sizeof buf));
    return;
  }
  if (tfs_cu__enter(c, s->dev)) return;
  tfs_tensor *o = tfs_cu__output(c, s->dev, 0, &x->shape);
  if (!o || o->nelems == 0) return;
  int64_t cols = x->shape.dims[x->shape.rank - 1];
  int err = tfs_cu_softmax(s->type, s->op, x->data, o->data,
                           x->nelems / cols, cols, s->dev->compute);
  tfs_cu__launched(c, s->dev, err, c->op_name);
}

/* ---- the table ------------------------------------------------------------------- */

#define KD(NAME, OP) static const tfs_cu_kdata NAME = {OP, NULL}
KD(kAdd, TFS_CU_ADD);
KD(kSub, TFS_CU_SUB);
KD(kMul, TFS_CU_MUL);
KD(kDiv, TFS_CU_DIV);
KD(kMax, TFS_CU_MAXIMUM);
KD(kMin, TFS_CU_MINIMUM);
KD(kPow, TFS_CU_POW);
KD(kSqd, TFS_CU_SQDIFF);
KD(kNeg, TFS_CU_NEG);
KD(kAbs, TFS_CU_ABS);
KD(kExp, TFS_CU_EXP);
KD(kLog, TFS_CU_LOG);
KD(kSqrt, TFS_CU_SQRT);
KD(kRsqrt, TFS_CU_RSQRT);
KD(kSquare, TFS_CU_SQUARE);
KD(kTanh, TFS_CU_TANH);
KD(kSigmoid, TFS_CU_SIGMOID);
KD(kRelu, TFS_CU_RELU);
KD(kRelu6, TFS_CU_RELU6);
KD(kElu, TFS_CU_ELU);
KD(kSelu, TFS_CU_SELU);
KD(kSoftplus, TFS_CU_SOFTPLUS);
KD(kRecip, TFS_CU_RECIPROCAL);
KD(kFloor, TFS_CU_FLOOR);
KD(kCeil, TFS_CU_CEIL);
KD(kSin, TFS_CU_SIN);
KD(kCos, TFS_CU_COS);
KD(kErf, TFS_CU_ERF);
KD(kLeaky, TFS_CU_LEAKY_RELU);
KD(kExpm1, TFS_CU_EXPM1);
KD(kLog1p, TFS_CU_LOG1P);
KD(kSign, TFS_CU_SIGN);
KD(kNone, 0);
KD(kLogSoftmax, 1);
#undef KD
static const tfs_cu_kdata kCast = {0, cast_accepts};

#define FL TFS_CU_DT_FLOATS
#define BIN(OP, D)                                                          \
  {OP, "GPU", "T", FL, tfs_cu__prepare_basic, binary_compute, free, \
   0, &D}
#define UN(OP, D)                                                           \
  {OP, "GPU", "T", FL, tfs_cu__prepare_basic, unary_compute, free,  \
   0, &D}

const tfs_kernel_def tfs_cuda_kernels_math[] = {
    BIN("Add", kAdd),          BIN("AddV2", kAdd),
    BIN("Sub", kSub),          BIN("Mul", kMul),
    BIN("RealDiv", kDiv),      BIN("Div", kDiv),
    BIN("Maximum", kMax),      BIN("Minimum", kMin),
    BIN("Pow", kPow),          BIN("SquaredDifference", kSqd),
    UN("Neg", kNeg),           UN("Abs", kAbs),
    UN("Exp", kExp),           UN("Log", kLog),
    UN("Sqrt", kSqrt),         UN("Rsqrt", kRsqrt),
    UN("Square", kSquare),     UN("Tanh", kTanh),
    UN("Sigmoid", kSigmoid),   UN("Relu", kRelu),
    UN("Relu6", kRelu6),       UN("Elu", kElu),
    UN("Selu", kSelu),         UN("Softplus", kSoftplus),
    UN("Reciprocal", kRecip),  UN("Floor", kFloor),
    UN("Ceil", kCeil),         UN("Sin", kSin),
    UN("Cos", kCos),           UN("Erf", kErf),
    UN("LeakyRelu", kLeaky),   UN("Expm1", kExpm1),
    UN("Log1p", kLog1p),       UN("Sign", kSign),
    {"Cast", "GPU", "SrcT", FL, cast_prepare, cast_compute, free, 0, &kCast},
    {"BiasAdd", "GPU", "T", FL, bias_prepare, bias_compute, free, 0, &kNone},
    {"Softmax", "GPU", "T", FL, tfs_cu__prepare_basic, softmax_compute, free,
     0, &kNone},
    {"LogSoftmax", "GPU", "T", FL, tfs_cu__prepare_basic, softmax_compute,
     free, 0, &kLogSoftmax},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

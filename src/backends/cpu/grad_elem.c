/*
 * backends/cpu/grad_elem.c - the elementwise gradient ops: ReluGrad,
 * Relu6Grad, EluGrad, SeluGrad, LeakyReluGrad, SoftplusGrad and
 * SoftsignGrad (gradients, features or outputs: inputs of one shape) and
 * SigmoidGrad, TanhGrad, RsqrtGrad, SqrtGrad, ReciprocalGrad and InvGrad
 * (y, the forward op's output, and dy: inputs of one element count; the
 * result has y's shape).
 *
 * The expressions are TensorFlow's functors: ReluGrad multiplies the
 * gradient by (features > 0) (so an infinite gradient there gives NaN),
 * EluGrad and SeluGrad select on the sign of the forward outputs, and
 * RsqrtGrad, SqrtGrad and ReciprocalGrad give 0 where dy is 0 (whatever
 * y is) and use conj(y) for complex y, which SigmoidGrad and TanhGrad do
 * not.  half and bfloat16 round every operation to their precision, as
 * Eigen's 16-bit arithmetic does; constants (Selu's scales, LeakyRelu's
 * alpha) are rounded to the dtype first.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

/* o[i] = f(a[i], b[i]); alpha only for LeakyReluGrad. */
typedef void (*grad_fn)(const void *a, const void *b, void *o, int64_t n,
                        float alpha);

/* A loop over n elements: a and b loaded through LOAD into variables of
 * type CT, EXPR computed with RD rounding each intermediate result to
 * the dtype and K(c) a constant of the dtype, stored through STORE. */
#define GRAD_LOOP(NAME, T, CT, LOAD, STORE, RD, K, EXPR)                  \
  static void NAME(const void *A, const void *B, void *O, int64_t n,      \
                   float alpha) {                                         \
    const T *as = (const T *)A, *bs = (const T *)B;                       \
    T *o = (T *)O;                                                        \
    const CT al = K(alpha);                                               \
    (void)al;                                                             \
    TFS_IVDEP for (int64_t i = 0; i < n; i++) {                           \
      CT a = LOAD(as[i]), b = LOAD(bs[i]);                                \
      o[i] = STORE(EXPR(a, b, al, RD, K));                                \
    }                                                                     \
  }

#define RD_F16(x) H2F(F2H(x))
#define RD_BF16(x) B2F(F2B(x))
#define K_F32(c) ((float)(c))
#define K_F64(c) ((double)(c))
#define K_F16(c) RD_F16((float)(c))
#define K_BF16(c) RD_BF16((float)(c))
#define K_C64(c) ((tfs_c64)(float)(c))
#define K_C128(c) ((tfs_c128)(double)(c))

/* The four float types; half and bfloat16 in float, rounded per step. */
#define GRAD_FLOATS(OP, EXPR)                                             \
  GRAD_LOOP(OP##_f32, float, float, EW_ID, EW_ID, EW_ID, K_F32, EXPR)     \
  GRAD_LOOP(OP##_f64, double, double, EW_ID, EW_ID, EW_ID, K_F64, EXPR)   \
  GRAD_LOOP(OP##_f16, uint16_t, float, H2F, F2H, RD_F16, K_F16, EXPR)     \
  GRAD_LOOP(OP##_bf16, uint16_t, float, B2F, F2B, RD_BF16, K_BF16, EXPR)
#define GRAD_COMPLEX(OP, EXPR)                                            \
  GRAD_LOOP(OP##_c64, tfs_c64, tfs_c64, EW_ID, EW_ID, EW_ID, K_C64, EXPR) \
  GRAD_LOOP(OP##_c128, tfs_c128, tfs_c128, EW_ID, EW_ID, EW_ID, K_C128,   \
            EXPR)
#define MK_INT(N, T, U) GRAD_LOOP(N, T, T, EW_ID, EW_ID, EW_ID, (T), INT_EXPR)

/* ---- activation gradients: a = gradients, b = features / outputs ------- */

#define RELU_G(a, b, al, RD, K) ((a) * ((b) > 0))
#define RELU6_G(a, b, al, RD, K) ((a) * ((b) > 0 && (b) < 6))
GRAD_FLOATS(relu, RELU_G)
GRAD_FLOATS(relu6, RELU6_G)
#define INT_EXPR RELU_G
EW_INTS(relu, MK_INT)
#undef INT_EXPR
#define INT_EXPR RELU6_G
EW_INTS(relu6, MK_INT)
#undef INT_EXPR

#define ELU_G(a, b, al, RD, K) ((b) < 0 ? RD((a) * RD((b) + K(1))) : (a))
GRAD_FLOATS(elu, ELU_G)

#define SELU_SCALE 1.0507009873554804934193349852946
#define SELU_SCALE_ALPHA 1.7580993408473768599402175208123
#define SELU_G(a, b, al, RD, K)                        \
  ((b) < 0 ? RD((a) * RD((b) + K(SELU_SCALE_ALPHA))) \
           : (a) * K(SELU_SCALE))
GRAD_FLOATS(selu, SELU_G)

#define LRELU_G(a, b, al, RD, K) ((b) > 0 ? (a) : (a) * (al))
GRAD_FLOATS(lrelu, LRELU_G)

/* gradients / (exp(-features) + 1) */
#define EXP_OF(x) _Generic((x), float: expf, default: exp)(x)
#define SOFTPLUS_G(a, b, al, RD, K) ((a) / RD(RD(EXP_OF(-(b))) + K(1)))
GRAD_FLOATS(softplus, SOFTPLUS_G)

/* gradients / (|features| + 1)^2 */
#define ABS_OF(x) _Generic((x), float: fabsf, default: fabs)(x)
static inline float sq_f(float x) { return x * x; }
static inline double sq_d(double x) { return x * x; }
#define SQ(x) _Generic((x), float: sq_f, default: sq_d)(x)
#define SOFTSIGN_G(a, b, al, RD, K) ((a) / RD(SQ(RD(ABS_OF(b) + K(1)))))
GRAD_FLOATS(softsign, SOFTSIGN_G)

/* ---- (y, dy) gradients: a = y, b = dy ------------------------------------ */

#define CONJ_OF(x) _Generic((x), tfs_c64: conjf, default: conj)(x)

/* dy * (y * (1 - y)) */
#define SIGMOID_G(a, b, al, RD, K) ((b) * RD((a) * RD(K(1) - (a))))
GRAD_FLOATS(sigmoid, SIGMOID_G)
GRAD_COMPLEX(sigmoid, SIGMOID_G)

/* dy * (1 - y * y) */
#define TANH_G(a, b, al, RD, K) ((b) * RD(K(1) - RD((a) * (a))))
GRAD_FLOATS(tanh, TANH_G)
GRAD_COMPLEX(tanh, TANH_G)

/* dy == 0 ? 0 : -0.5 * (dy * conj(y)) * (conj(y) * conj(y)) */
#define RSQRT_G(a, b, al, RD, K) \
  ((b) == 0 ? K(0) : RD(K(-0.5) * RD((b) * (a))) * RD((a) * (a)))
#define RSQRT_GC(a, b, al, RD, K)                                       \
  ((b) == 0 ? K(0)                                                      \
            : K(-0.5) * ((b) * CONJ_OF(a)) * (CONJ_OF(a) * CONJ_OF(a)))
GRAD_FLOATS(rsqrt, RSQRT_G)
GRAD_COMPLEX(rsqrt, RSQRT_GC)

/* dy == 0 ? 0 : (0.5 * dy) / conj(y) */
#define SQRT_G(a, b, al, RD, K) ((b) == 0 ? K(0) : RD(K(0.5) * (b)) / (a))
GRAD_FLOATS(sqrt, SQRT_G)
#define CDIV_OF(x, y) _Generic((x), tfs_c64: ew_cdivf, default: ew_cdiv)(x, y)
#define SQRT_GC(a, b, al, RD, K) \
  ((b) == 0 ? K(0) : CDIV_OF(K(0.5) * (b), CONJ_OF(a)))
GRAD_COMPLEX(sqrt, SQRT_GC)

/* dy == 0 ? 0 : -conj(y) * conj(y) * dy */
#define RECIP_G(a, b, al, RD, K) ((b) == 0 ? K(0) : RD(-(a) * (a)) * (b))
#define RECIP_GC(a, b, al, RD, K) \
  ((b) == 0 ? K(0) : (-CONJ_OF(a) * CONJ_OF(a)) * (b))
GRAD_FLOATS(recip, RECIP_G)
GRAD_COMPLEX(recip, RECIP_GC)

/* ---- tables and the kernel ----------------------------------------------- */

typedef struct {
  grad_fn fn[24];
  int same_shape; /* 1: inputs of one shape; 0: of one element count */
  int cost;
} grad_table;

#define FLOAT_FNS(OP)                                                      \
  [TFS_FLOAT] = OP##_f32, [TFS_DOUBLE] = OP##_f64, [TFS_HALF] = OP##_f16, \
  [TFS_BFLOAT16] = OP##_bf16
#define FLOATC_FNS(OP) \
  FLOAT_FNS(OP), [TFS_COMPLEX64] = OP##_c64, [TFS_COMPLEX128] = OP##_c128

static const grad_table kReluG = {
    {FLOAT_FNS(relu), EW_INT_ENTRIES(relu)}, 1, 1};
static const grad_table kRelu6G = {
    {FLOAT_FNS(relu6), EW_INT_ENTRIES(relu6)}, 1, 1};
static const grad_table kEluG = {{FLOAT_FNS(elu)}, 1, 2};
static const grad_table kSeluG = {{FLOAT_FNS(selu)}, 1, 2};
static const grad_table kLreluG = {{FLOAT_FNS(lrelu)}, 1, 1};
static const grad_table kSoftplusG = {{FLOAT_FNS(softplus)}, 1, 8};
static const grad_table kSoftsignG = {{FLOAT_FNS(softsign)}, 1, 4};
static const grad_table kSigmoidG = {{FLOATC_FNS(sigmoid)}, 0, 2};
static const grad_table kTanhG = {{FLOATC_FNS(tanh)}, 0, 2};
static const grad_table kRsqrtG = {{FLOATC_FNS(rsqrt)}, 0, 2};
static const grad_table kSqrtG = {{FLOATC_FNS(sqrt)}, 0, 4};
static const grad_table kRecipG = {{FLOATC_FNS(recip)}, 0, 2};

typedef struct {
  grad_fn fn;
  float alpha;
  size_t esize;
  int same_shape;
  int cost;
} grad_state;

static int grad_prepare(tfs_kernel_init *ki) {
  const grad_table *t = ki->kdata;
  tfs_dtype dt = ki->in_types[0];
  grad_fn fn = (unsigned)dt < 24 ? t->fn[dt] : NULL;
  if (!fn) /* every registered dtype has a table entry */
    return tfs_ki_error(ki, TFS_INTERNAL,
                        "%s: no function for registered dtype %s",
                        ki->op->name, tfs_dtype_name(dt));
  grad_state *s = tfs_malloc(sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->fn = fn;
  s->alpha = 0.2f;
  tfs_attrs_get_float(ki->attrs, "alpha", &s->alpha);
  s->esize = tfs_dtype__storage_size(dt);
  s->same_shape = t->same_shape;
  s->cost = t->cost;
  ki->state = s;
  return 0;
}

typedef struct {
  const grad_state *s;
  const char *a, *b;
  char *o;
} grad_job;

static void grad_range(void *arg, int64_t begin, int64_t end) {
  grad_job *j = arg;
  size_t off = (size_t)begin * j->s->esize;
  j->s->fn(j->a + off, j->b + off, j->o + off, end - begin, j->s->alpha);
}

static void grad_compute(tfs_kernel_ctx *c) {
  const grad_state *s = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  if (s->same_shape && !tfs_shape_equal(&a->shape, &b->shape)) {
    char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Inputs to operation %s of type %s must have the same size "
                  "and shape.  Input 0: %s != input 1: %s", c->node_name,
                  c->op_name, tfs_shape_str(&a->shape, x, sizeof x),
                  tfs_shape_str(&b->shape, y, sizeof y));
    return;
  }
  if (a->nelems != b->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The two arguments to a cwise op must have same number of "
                  "elements, got %lld and %lld", (long long)a->nelems,
                  (long long)b->nelems);
    return;
  }
  int in = (c->forwardable & 1u) ? 0 : 1;
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, in, 0, &a->shape);
  if (!o || a->nelems == 0) return;
  grad_job j = {s, a->data, b->data, o->data};
  tfs_kctx_parallel_for(c, a->nelems, s->cost, grad_range, &j);
}

#define FL TFS_DT_FLOATS
#define FLC (TFS_DT_FLOATS | EW_DT_COMPLEX)
#define GRAD(OP, TYPES, TABLE) \
  {OP, "CPU", "T", TYPES, grad_prepare, grad_compute, free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_grad_elem[] = {
    GRAD("ReluGrad", TFS_DT_REAL, kReluG),
    GRAD("Relu6Grad", TFS_DT_REAL, kRelu6G),
    GRAD("EluGrad", FL, kEluG),
    GRAD("SeluGrad", FL, kSeluG),
    GRAD("LeakyReluGrad", FL, kLreluG),
    GRAD("SoftplusGrad", FL, kSoftplusG),
    GRAD("SoftsignGrad", FL, kSoftsignG),
    GRAD("SigmoidGrad", FLC, kSigmoidG),
    GRAD("TanhGrad", FLC, kTanhG),
    GRAD("RsqrtGrad", FLC, kRsqrtG),
    GRAD("SqrtGrad", FLC, kSqrtG),
    GRAD("ReciprocalGrad", FLC, kRecipG),
    GRAD("InvGrad", FLC, kRecipG),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

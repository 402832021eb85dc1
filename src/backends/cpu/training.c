/*
 * backends/cpu/training.c - the dense optimizer update kernels
 * (ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyRMSProp,
 * ApplyAdam and their ResourceApply* forms, ResourceApplyKerasMomentum,
 * ResourceApplyAdagradV2, ResourceApplyAdamWithAmsgrad), the update
 * rules every training kernel uses and the variable handling they share.
 *
 * The rules are TensorFlow's CPU functors (core/kernels/training_ops.cc)
 * operation by operation: half and bfloat16 compute in float and round to
 * the 16-bit type after every operation, as Eigen's half arithmetic does;
 * complex types use C's complex arithmetic.
 *
 * Locking: every update holds the mutexes of all its variables (taken in
 * address order, so two ops sharing variables never deadlock) from the
 * first read to the last write, which is what use_locking=true asks; with
 * use_locking=false TensorFlow allows torn updates, tfsess never tears.
 * A value a reader still holds is never written: the kernel copies it
 * first (copy on write, as Assign and AssignAdd do).
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#undef I

#include "backends/cpu/training.h"
#include "core/alloc.h"
#include "core/half.h"

/* ---- update rules -------------------------------------------------------*/

static inline float r_half(float x) {
  return tfs_half_to_float(tfs_float_to_half(x));
}
static inline float r_bf16(float x) {
  return tfs_bf16_to_float(tfs_float_to_bf16(x));
}
#define R_ID(x) (x)
#define LD_ID(x) (x)
#define SV_ID(x) (x)

/* The rules over one storage type ST computed in T: LD loads, SV stores,
 * R rounds an intermediate result to the storage precision, SQ is the
 * square root in T. */
#define TRAIN_RULES(SUF, T, ST, LD, SV, R, SQ)                               \
  static int apply_##SUF(const tfs_train_step *s, int64_t n) {              \
    ST *var = s->v[0], *a = s->v[1], *b = s->v[2];                          \
    const ST *g = s->g;                                                     \
    T k[6];                                                                 \
    for (int i = 0; i < s->nk; i++) k[i] = LD(*(const ST *)s->k[i]);        \
    const T one = (T)1;                                                     \
    switch (s->algo) {                                                      \
      case TFS_TR_GD:                                                       \
        for (int64_t i = 0; i < n; i++)                                     \
          var[i] = SV(R(LD(var[i]) - R(LD(g[i]) * k[0])));                  \
        return 0;                                                           \
      case TFS_TR_MOMENTUM: /* k: lr, momentum */                           \
        for (int64_t i = 0; i < n; i++) {                                   \
          T gi = LD(g[i]);                                                  \
          T acc = R(R(LD(a[i]) * k[1]) + gi);                               \
          a[i] = SV(acc);                                                   \
          T d = s->nesterov ? R(R(gi * k[0]) + R(R(acc * k[1]) * k[0]))     \
                            : R(acc * k[0]);                                \
          var[i] = SV(R(LD(var[i]) - d));                                   \
        }                                                                   \
        return 0;                                                           \
      case TFS_TR_KERAS_MOM: /* k: lr, momentum */                          \
        for (int64_t i = 0; i < n; i++) {                                   \
          T glr = R(LD(g[i]) * k[0]);                                       \
          T acc = R(R(LD(a[i]) * k[1]) - glr);                              \
          a[i] = SV(acc);                                                   \
          T d = s->nesterov ? R(R(acc * k[1]) - glr) : acc;                 \
          var[i] = SV(R(LD(var[i]) + d));                                   \
        }                                                                   \
        return 0;                                                           \
      case TFS_TR_ADAGRAD: /* k: lr */                                      \
      case TFS_TR_ADAGRAD_V2: /* k: lr, epsilon */                          \
        for (int64_t i = 0; i < n; i++) {                                   \
          T gi = LD(g[i]);                                                  \
          T acc = LD(a[i]);                                                 \
          if (s->update_slots) {                                            \
            acc = R(acc + R(gi * gi));                                      \
            a[i] = SV(acc);                                                 \
          }                                                                 \
          T glr = R(gi * k[0]), d;                                          \
          if (s->algo == TFS_TR_ADAGRAD_V2)                                 \
            d = R(glr / R(R(SQ(acc)) + k[1]));                              \
          else if (s->row1)                                                 \
            d = R(glr / R(SQ(acc)));                                        \
          else                                                              \
            d = R(glr * R(one / SQ(acc)));                                  \
          var[i] = SV(R(LD(var[i]) - d));                                   \
        }                                                                   \
        return 0;                                                           \
      case TFS_TR_RMSPROP: { /* k: lr, rho, momentum, epsilon */            \
        T omr = R(one - k[1]);                                              \
        for (int64_t i = 0; i < n; i++) {                                   \
          T gi = LD(g[i]);                                                  \
          T ms = LD(a[i]);                                                  \
          ms = R(ms + R(R(R(gi * gi) - ms) * omr));                         \
          a[i] = SV(ms);                                                    \
          T mom = R(R(LD(b[i]) * k[2]) +                                    \
                    R(R(gi * k[0]) / R(SQ(R(ms + k[3])))));                 \
          b[i] = SV(mom);                                                   \
          var[i] = SV(R(LD(var[i]) - mom));                                 \
        }                                                                   \
        return 0;                                                           \
      }                                                                     \
      case TFS_TR_ADAM: { /* k: b1p, b2p, lr, b1, b2, epsilon */            \
        T alpha = R(R(k[2] * R(SQ(R(one - k[1])))) / R(one - k[0]));        \
        T omb1 = R(one - k[3]), omb2 = R(one - k[4]);                       \
        for (int64_t i = 0; i < n; i++) {                                   \
          T gi = LD(g[i]);                                                  \
          T m = LD(a[i]), v = LD(b[i]);                                     \
          m = R(m + R(R(gi - m) * omb1));                                   \
          v = R(v + R(R(R(gi * gi) - v) * omb2));                           \
          a[i] = SV(m);                                                     \
          b[i] = SV(v);                                                     \
          T num = s->nesterov ? R(R(R(gi * omb1) + R(k[3] * m)) * alpha)    \
                              : R(m * alpha);                               \
          var[i] = SV(R(LD(var[i]) - R(num / R(R(SQ(v)) + k[5]))));         \
        }                                                                   \
        return 0;                                                           \
      }                                                                     \
      default:                                                              \
        return -1;                                                          \
    }                                                                       \
  }

/* AMSGrad, for the real types only (TensorFlow registers no complex
 * kernel: the maximum needs an order). */
#define AMSGRAD_RULE(SUF, T, ST, LD, SV, R, SQ)                              \
  static void ams_##SUF(const tfs_train_step *s, int64_t n) {               \
    ST *var = s->v[0], *a = s->v[1], *b = s->v[2], *h = s->v[3];            \
    const ST *g = s->g;                                                     \
    T k[6];                                                                 \
    for (int i = 0; i < 6; i++) k[i] = LD(*(const ST *)s->k[i]);            \
    const T one = (T)1;                                                     \
    T alpha = R(R(k[2] * R(SQ(R(one - k[1])))) / R(one - k[0]));            \
    T omb1 = R(one - k[3]), omb2 = R(one - k[4]);                           \
    for (int64_t i = 0; i < n; i++) {                                       \
      T gi = LD(g[i]);                                                      \
      T m = LD(a[i]), v = LD(b[i]), vh = LD(h[i]);                          \
      m = R(m + R(R(gi - m) * omb1));                                       \
      v = R(v + R(R(R(gi * gi) - v) * omb2));                               \
      vh = vh < v ? v : vh;                                                 \
      a[i] = SV(m);                                                         \
      b[i] = SV(v);                                                         \
      h[i] = SV(vh);                                                        \
      var[i] = SV(R(LD(var[i]) - R(R(m * alpha) / R(R(SQ(vh)) + k[5]))));   \
    }                                                                       \
  }

typedef float _Complex cfloat;
typedef double _Complex cdouble;

TRAIN_RULES(f32, float, float, LD_ID, SV_ID, R_ID, sqrtf)
TRAIN_RULES(f64, double, double, LD_ID, SV_ID, R_ID, sqrt)
TRAIN_RULES(f16, float, uint16_t, tfs_half_to_float, tfs_float_to_half,
            r_half, sqrtf)
TRAIN_RULES(bf16, float, uint16_t, tfs_bf16_to_float, tfs_float_to_bf16,
            r_bf16, sqrtf)
TRAIN_RULES(c64, cfloat, cfloat, LD_ID, SV_ID, R_ID, csqrtf)
TRAIN_RULES(c128, cdouble, cdouble, LD_ID, SV_ID, R_ID, csqrt)
AMSGRAD_RULE(f32, float, float, LD_ID, SV_ID, R_ID, sqrtf)
AMSGRAD_RULE(f64, double, double, LD_ID, SV_ID, R_ID, sqrt)
AMSGRAD_RULE(f16, float, uint16_t, tfs_half_to_float, tfs_float_to_half,
             r_half, sqrtf)
AMSGRAD_RULE(bf16, float, uint16_t, tfs_bf16_to_float, tfs_float_to_bf16,
             r_bf16, sqrtf)

int tfs_train__apply(const tfs_train_step *s, int64_t n) {
  if (s->algo == TFS_TR_AMSGRAD) {
    switch (s->dtype) {
      case TFS_FLOAT: ams_f32(s, n); return 0;
      case TFS_DOUBLE: ams_f64(s, n); return 0;
      case TFS_HALF: ams_f16(s, n); return 0;
      case TFS_BFLOAT16: ams_bf16(s, n); return 0;
      default: return -1;
    }
  }
  switch (s->dtype) {
    case TFS_FLOAT: return apply_f32(s, n);
    case TFS_DOUBLE: return apply_f64(s, n);
    case TFS_HALF: return apply_f16(s, n);
    case TFS_BFLOAT16: return apply_bf16(s, n);
    case TFS_COMPLEX64: return apply_c64(s, n);
    case TFS_COMPLEX128: return apply_c128(s, n);
    default: return -1;
  }
}

/* ---- variables ----------------------------------------------------------*/

int tfs_train__prepare(tfs_kernel_init *ki) {
  tfs_train_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->d = ki->kdata;
  s->update_slots = 1;
  tfs_attrs_get_bool(ki->attrs, "use_nesterov", &s->nesterov);
  tfs_attrs_get_bool(ki->attrs, "update_slots", &s->update_slots);
  s->ninputs = ki->op->ninputs < 12 ? ki->op->ninputs : 12;
  for (int i = 0; i < s->ninputs; i++)
    s->arg_names[i] = ki->op->inputs[i].name;
  for (int i = 0; i < s->d->nvars && i < ki->ninputs; i++)
    tfs_ki_input_str(ki, i, s->ref_names[i], sizeof s->ref_names[i]);
  ki->state = s;
  return 0;
}

void tfs_train__release(void *state) { tfs_free(state); }

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(void *const *)a;
  uintptr_t y = (uintptr_t)*(void *const *)b;
  return x < y ? -1 : x > y;
}

static void unlock_all(tfs_train_vars *tv) {
  for (int i = tv->nlocked - 1; i >= 0; i--)
    pthread_mutex_unlock(&tv->locked[i]->mu);
  tv->nlocked = 0;
}

static tfs_variable *find_var(tfs_kernel_ctx *c, const tfs_train_state *s,
                              int i) {
  if (!s->d->resource) {
    tfs_variable *v = tfs_kctx_input_ref(c, i);
    if (!v)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "input %d (%s) must be a reference to a variable", i,
                    s->arg_names[i]);
    return v;
  }
  const tfs_resource_handle *h = tfs_kctx_input_handle(c, i);
  if (!h) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected a scalar resource handle for input %d (%s)", i,
                  s->arg_names[i]);
    return NULL;
  }
  tfs_variable *v = tfs_resource_mgr_find(tfs_kctx_resources(c),
                                          h->container, h->name,
                                          TFS_VAR_RESOURCE);
  if (!v) tfs_kctx_fail(c, TFS_INTERNAL, "Invalid variable reference.");
  return v;
}

int tfs_train__acquire(tfs_kernel_ctx *c, const tfs_train_state *s,
                       tfs_train_vars *tv) {
  const tfs_train_desc *d = s->d;
  memset(tv, 0, sizeof(*tv));
  tv->n = d->nvars;
  for (int i = 0; i < d->nvars; i++) {
    tv->vars[i] = find_var(c, s, i);
    if (!tv->vars[i]) return -1;
  }
  tfs_variable *order[4];
  memcpy(order, tv->vars, sizeof(order[0]) * (size_t)d->nvars);
  qsort(order, (size_t)d->nvars, sizeof(order[0]), cmp_ptr);
  for (int i = 0; i < d->nvars; i++) {
    if (i && order[i] == order[i - 1]) continue;
    pthread_mutex_lock(&order[i]->mu);
    tv->locked[tv->nlocked++] = order[i];
  }
  tfs_dtype want = c->inputs[d->grad]->dtype;
  for (int i = 0; i < d->nvars; i++) {
    tfs_tensor *val = tv->vars[i]->value;
    if (!val) {
      unlock_all(tv);
      if (d->resource)
        tfs_kctx_fail(c, TFS_INTERNAL, "Invalid variable reference.");
      else
        tfs_kctx_fail(c, TFS_FAILED_PRECONDITION,
                      "Attempting to use uninitialized value %s",
                      s->ref_names[i]);
      return -1;
    }
    if (val->dtype != want) {
      unlock_all(tv);
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Trying to update variable %s of dtype %s with a %s "
                    "update", s->arg_names[i], tfs_dtype_name(val->dtype),
                    tfs_dtype_name(want));
      return -1;
    }
    tv->vals[i] = val;
  }
  return 0;
}

int tfs_train__make_private(tfs_kernel_ctx *c, tfs_train_vars *tv) {
  for (int i = 0; i < tv->n; i++) {
    tfs_variable *v = tv->vars[i];
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= tv->vars[j] == v;
    if (!seen && !tfs_tensor__is_exclusive(v->value)) {
      tfs_tensor *copy = tfs_tensor__copy(v->value, c->st);
      if (!copy) {
        tfs_kctx_fail_status(c, c->st);
        return -1;
      }
      tfs_tensor_free(v->value);
      v->value = copy;
    }
    tv->vals[i] = v->value;
  }
  return 0;
}

void tfs_train__release_vars(tfs_kernel_ctx *c, const tfs_train_state *s,
                             tfs_train_vars *tv) {
  unlock_all(tv);
  if (!s->d->resource && !c->failed && tv->vars[0])
    tfs_kctx_set_ref_output(c, 0, tv->vars[0]);
}

int tfs_train__check_scalars(tfs_kernel_ctx *c, const tfs_train_state *s) {
  const tfs_train_desc *d = s->d;
  for (int i = d->nvars; i < c->ninputs && i < s->ninputs; i++) {
    if (i == d->grad || (d->sparse && i == d->grad + 1)) continue;
    const tfs_tensor *t = c->inputs[i];
    if (t->shape.rank != 0) {
      char buf[TFS_SHAPE_STRLEN];
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s is not a scalar%s: %s",
                    s->arg_names[i], (d->lr_space >> i) & 1 ? " " : "",
                    tfs_shape_str(&t->shape, buf, sizeof buf));
      return -1;
    }
  }
  return 0;
}

void tfs_train__step_init(tfs_kernel_ctx *c, const tfs_train_state *s,
                          tfs_train_step *st) {
  const tfs_train_desc *d = s->d;
  memset(st, 0, sizeof(*st));
  st->algo = d->algo;
  st->dtype = c->inputs[d->grad]->dtype;
  st->nesterov = s->nesterov;
  st->update_slots = s->update_slots;
  for (int i = d->nvars; i < c->ninputs && st->nk < 6; i++) {
    if (i == d->grad || (d->sparse && i == d->grad + 1)) continue;
    st->k[st->nk++] = c->inputs[i]->data;
  }
}

/* ---- dense kernels ------------------------------------------------------*/

typedef struct {
  tfs_train_step step;
  size_t esize;
} dense_job;

static void dense_range(void *arg, int64_t begin, int64_t end) {
  const dense_job *j = arg;
  tfs_train_step s = j->step;
  for (int i = 0; i < 4; i++)
    if (s.v[i]) s.v[i] = (char *)s.v[i] + (size_t)begin * j->esize;
  s.g = (const char *)s.g + (size_t)begin * j->esize;
  tfs_train__apply(&s, end - begin);
}

static int check_dense_shapes(tfs_kernel_ctx *c, const tfs_train_state *s,
                              const tfs_train_vars *tv) {
  const tfs_shape *vs = &tv->vals[0]->shape;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int i = 1; i < tv->n; i++) {
    if (!tfs_shape_equal(vs, &tv->vals[i]->shape)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "var and %s do not have the same shape%s %s",
                    s->arg_names[i], tfs_shape_str(vs, a, sizeof a),
                    tfs_shape_str(&tv->vals[i]->shape, b, sizeof b));
      return -1;
    }
  }
  const tfs_tensor *g = c->inputs[s->d->grad];
  if (!tfs_shape_equal(vs, &g->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "var and %s do not have the same shape%s %s",
                  s->arg_names[s->d->grad], tfs_shape_str(vs, a, sizeof a),
                  tfs_shape_str(&g->shape, b, sizeof b));
    return -1;
  }
  return 0;
}

static void dense_compute(tfs_kernel_ctx *c) {
  const tfs_train_state *s = c->state;
  tfs_train_vars tv;
  if (tfs_train__acquire(c, s, &tv)) return;
  if (tfs_train__check_scalars(c, s) || check_dense_shapes(c, s, &tv) ||
      tfs_train__make_private(c, &tv)) {
    tfs_train__release_vars(c, s, &tv);
    return;
  }
  dense_job j;
  tfs_train__step_init(c, s, &j.step);
  for (int i = 0; i < tv.n; i++) j.step.v[i] = tv.vals[i]->data;
  j.step.g = c->inputs[s->d->grad]->data;
  j.esize = tfs_dtype_size(j.step.dtype);
  int64_t n = tv.vals[0]->nelems;
  if (n > 0) tfs_kctx_parallel_for(c, n, 8 * (int64_t)tv.n, dense_range, &j);
  tfs_train__release_vars(c, s, &tv);
}

#define LR_AT(i) (1u << (i))
static const tfs_train_desc kGdRef = {TFS_TR_GD, 0, 1, 2, 0, 0};
static const tfs_train_desc kGdRes = {TFS_TR_GD, 1, 1, 2, 0, 0};
static const tfs_train_desc kMomRef = {TFS_TR_MOMENTUM, 0, 2, 3, 0, 0};
static const tfs_train_desc kMomRes = {TFS_TR_MOMENTUM, 1, 2, 3, 0, 0};
static const tfs_train_desc kKMomRes = {TFS_TR_KERAS_MOM, 1, 2, 3, 0, 0};
static const tfs_train_desc kAdagradRef = {TFS_TR_ADAGRAD, 0, 2, 3, 0, 0};
static const tfs_train_desc kAdagradRes = {TFS_TR_ADAGRAD, 1, 2, 3, 0, 0};
static const tfs_train_desc kAdagradV2Res = {TFS_TR_ADAGRAD_V2, 1, 2, 4, 0,
                                             0};
static const tfs_train_desc kRmsRef = {TFS_TR_RMSPROP, 0, 3, 7, 0, LR_AT(3)};
static const tfs_train_desc kRmsRes = {TFS_TR_RMSPROP, 1, 3, 7, 0, LR_AT(3)};
static const tfs_train_desc kAdamRef = {TFS_TR_ADAM, 0, 3, 9, 0, LR_AT(5)};
static const tfs_train_desc kAdamRes = {TFS_TR_ADAM, 1, 3, 9, 0, LR_AT(5)};
static const tfs_train_desc kAmsRes = {TFS_TR_AMSGRAD, 1, 4, 10, 0, LR_AT(6)};

#define TR TFS_TRAIN_TYPES
#define DENSE(OP, TYPES, DESC)                                               \
  {OP, "CPU", "T", TYPES, tfs_train__prepare, dense_compute,                \
   tfs_train__release, 0, &DESC}
const tfs_kernel_def tfs_cpu_kernels_training[] = {
    DENSE("ApplyGradientDescent", TR, kGdRef),
    DENSE("ResourceApplyGradientDescent", TR, kGdRes),
    DENSE("ApplyMomentum", TR, kMomRef),
    DENSE("ResourceApplyMomentum", TR, kMomRes),
    DENSE("ResourceApplyKerasMomentum", TR, kKMomRes),
    DENSE("ApplyAdagrad", TR, kAdagradRef),
    DENSE("ResourceApplyAdagrad", TR, kAdagradRes),
    DENSE("ResourceApplyAdagradV2", TR, kAdagradV2Res),
    DENSE("ApplyRMSProp", TR, kRmsRef),
    DENSE("ResourceApplyRMSProp", TR, kRmsRes),
    DENSE("ApplyAdam", TR, kAdamRef),
    DENSE("ResourceApplyAdam", TR, kAdamRes),
    DENSE("ResourceApplyAdamWithAmsgrad", TFS_DT_FLOATS, kAmsRes),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * backends/cpu/pool_grad.c - the gradients of 2-D pooling: MaxPoolGrad,
 * MaxPoolGradV2 (ksize and strides as inputs) and AvgPoolGrad.  As
 * TensorFlow's CPU kernels: NHWC only; MaxPoolGrad sends each gradient to
 * the first maximum of its window in row-major order (a NaN first in the
 * window wins, later NaNs never do) and accumulates in the output type in
 * output order; AvgPoolGrad spreads each gradient over the in-bounds part
 * of its window, times the reciprocal of that part's size in T.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "ops/nn_window.h"

typedef struct pg_state {
  tfs_window w;
  int is_max;
} pg_state;

/* One image's geometry (NHWC) and where the pieces are. */
typedef struct pg_job {
  const void *in, *grad;
  void *out;
  int64_t h, w, c;      /* orig_input */
  int64_t oh, ow;       /* grad */
  int64_t kh, kw, sh, sw, pt, pl;
  tfs_dtype dt;
} pg_job;

/* TensorFlow's kernels take ksize and strides of any length >= 4 from
 * the op def, then insist on 4. */
static int attr_len_ok(tfs_kernel_init *ki, const char *name,
                       const char *what) {
  int n = 0;
  const int64_t *v = tfs_attrs_get_int_list(ki->attrs, name, &n);
  if (v && n != 4)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Sliding window %s field must specify 4 dimensions",
                        what);
  return 0;
}

static int pg_prepare(tfs_kernel_init *ki) {
  pg_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->is_max = ki->kdata != NULL;
  const char *op = s->is_max ? "MaxPoolingGradOp" : "AvgPoolingGradOp";
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  if (fmt && strcmp(fmt, "NHWC") != 0)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Default %s only supports NHWC on device type CPU",
                        op);
  if (ki->ninputs == 5) { /* MaxPoolGradV2: the window comes at run time */
    const char *pad = tfs_attrs_get_string(ki->attrs, "padding", &len);
    s->w.padding = pad && strcmp(pad, "SAME") == 0 ? TFS_PADDING_SAME
                                                    : TFS_PADDING_VALID;
    return 0;
  }
  if (attr_len_ok(ki, "ksize", "ksize") ||
      attr_len_ok(ki, "strides", "strides"))
    return -1;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_POOL, op, &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (s->w.ksize[0] != 1 || s->w.strides[0] != 1)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Pooling is not yet supported on the batch "
                        "dimension.");
  return 0;
}

/* Explicit paddings smaller than the window, as MaxPool's parameters. */
static int check_explicit(tfs_kernel_ctx *c, const tfs_window *w) {
  static const char *const kSide[4] = {"Top", "Bottom", "Left", "Right"};
  if (w->padding != TFS_PADDING_EXPLICIT) return 0;
  for (int i = 0; i < 4; i++) {
    int64_t pad = w->pads[2 * (i < 2 ? 1 : 2) + (i & 1)];
    int64_t k = w->ksize[i < 2 ? 1 : 2];
    if (pad >= k) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s padding %lld needs to be smaller than the window "
                    "size %lld", kSide[i], (long long)pad, (long long)k);
      return -1;
    }
  }
  return 0;
}

/* The forward pooling's output size along H and W into j (and the
 * padding before). */
static int forward_size(tfs_kernel_ctx *c, const tfs_window *w, pg_job *j) {
  int64_t pb = w->pads[3], pr = w->pads[5];
  j->pt = w->pads[2];
  j->pl = w->pads[4];
  j->kh = w->ksize[1], j->kw = w->ksize[2];
  j->sh = w->strides[1], j->sw = w->strides[2];
  if (tfs_window_output_size(j->h, j->kh, 1, j->sh, w->padding, &j->pt, &pb,
                             &j->oh, c->st) ||
      tfs_window_output_size(j->w, j->kw, 1, j->sw, w->padding, &j->pl, &pr,
                             &j->ow, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

/* Window rows [*lo, *hi) of output position o, clipped to [0, size). */
static inline void span(int64_t o, int64_t s, int64_t pad, int64_t k,
                        int64_t size, int64_t *lo, int64_t *hi) {
  int64_t start = o * s - pad, end = start + (k > 0 ? k : 0);
  *lo = start < 0 ? 0 : start;
  *hi = end > size ? size : end;
}

/* Max pooling's gradient for image b: V loads an element for comparing,
 * ADD(dst, src) accumulates in T. */
#define MPG_FN(NAME, T, V, LD, ADD)                                          \
  static void NAME(const pg_job *j, int64_t b) {                           \
    const T *in = (const T *)j->in + b * j->h * j->w * j->c;                \
    const T *g = (const T *)j->grad + b * j->oh * j->ow * j->c;             \
    T *out = (T *)j->out + b * j->h * j->w * j->c;                          \
    for (int64_t oy = 0; oy < j->oh; oy++) {                                \
      int64_t y0, y1, x0, x1;                                               \
      span(oy, j->sh, j->pt, j->kh, j->h, &y0, &y1);                        \
      for (int64_t ox = 0; ox < j->ow; ox++) {                              \
        span(ox, j->sw, j->pl, j->kw, j->w, &x0, &x1);                      \
        const T *gp = g + (oy * j->ow + ox) * j->c;                         \
        for (int64_t ch = 0; ch < j->c; ch++) {                             \
          int64_t best_i = -1;                                              \
          V best = 0;                                                       \
          for (int64_t y = y0; y < y1; y++)                                 \
            for (int64_t x = x0; x < x1; x++) {                             \
              int64_t i = (y * j->w + x) * j->c + ch;                       \
              V v = LD(in[i]);                                              \
              if (best_i < 0 || best < v) best = v, best_i = i;             \
            }                                                               \
          if (best_i >= 0) ADD(out[best_i], gp[ch]);                        \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }

#define ID(x) (x)
#define ADD_NATIVE(d, s) ((d) += (s))
#define ADD_U8(d, s) ((d) = (uint8_t)((uint32_t)(d) + (s)))
#define ADD_I8(d, s) \
  ((d) = (int8_t)(uint8_t)((uint32_t)(uint8_t)(d) + (uint8_t)(s)))
#define ADD_I16(d, s) \
  ((d) = (int16_t)(uint16_t)((uint32_t)(uint16_t)(d) + (uint16_t)(s)))
#define ADD_U16(d, s) ((d) = (uint16_t)((uint32_t)(d) + (s)))
#define ADD_I32(d, s) ((d) = (int32_t)((uint32_t)(d) + (uint32_t)(s)))
#define ADD_I64(d, s) ((d) = (int64_t)((uint64_t)(d) + (uint64_t)(s)))
#define ADD_H(d, s) \
  ((d) = tfs_float_to_half(tfs_half_to_float(d) + tfs_half_to_float(s)))
#define ADD_B(d, s) \
  ((d) = tfs_float_to_bf16(tfs_bf16_to_float(d) + tfs_bf16_to_float(s)))

MPG_FN(mpg_f32, float, float, ID, ADD_NATIVE)
MPG_FN(mpg_f64, double, double, ID, ADD_NATIVE)
MPG_FN(mpg_f16, uint16_t, float, tfs_half_to_float, ADD_H)
MPG_FN(mpg_bf16, uint16_t, float, tfs_bf16_to_float, ADD_B)
MPG_FN(mpg_i8, int8_t, int8_t, ID, ADD_I8)
MPG_FN(mpg_u8, uint8_t, uint8_t, ID, ADD_U8)
MPG_FN(mpg_i16, int16_t, int16_t, ID, ADD_I16)
MPG_FN(mpg_u16, uint16_t, uint16_t, ID, ADD_U16)
MPG_FN(mpg_i32, int32_t, int32_t, ID, ADD_I32)
MPG_FN(mpg_u32, uint32_t, uint32_t, ID, ADD_NATIVE)
MPG_FN(mpg_i64, int64_t, int64_t, ID, ADD_I64)
MPG_FN(mpg_u64, uint64_t, uint64_t, ID, ADD_NATIVE)

typedef void (*pg_fn)(const pg_job *j, int64_t b);

static pg_fn max_fn(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return mpg_f32;
    case TFS_DOUBLE: return mpg_f64;
    case TFS_HALF: return mpg_f16;
    case TFS_BFLOAT16: return mpg_bf16;
    case TFS_INT8: return mpg_i8;
    case TFS_UINT8: return mpg_u8;
    case TFS_INT16: return mpg_i16;
    case TFS_UINT16: return mpg_u16;
    case TFS_INT32: return mpg_i32;
    case TFS_UINT32: return mpg_u32;
    case TFS_INT64: return mpg_i64;
    case TFS_UINT64: return mpg_u64;
    default: return NULL;
  }
}

/* Average pooling's gradient for image b, as TensorFlow's broadcast of
 * each gradient over its window: start at index * stride less the
 * padding, clipped to the image. */
static inline void bcast(int64_t o, int64_t in, int64_t k, int64_t s,
                         int64_t pad, int64_t *idx, int64_t *size) {
  int64_t i = o * s, n = k;
  if (i < pad) {
    n = k + i - pad;
    i = 0;
  } else {
    i -= pad;
  }
  if (i + k > in) n = in - i < k ? in - i : k;
  *idx = i;
  *size = n;
}

#define APG_FN(NAME, T, COEF, MULADD)                                        \
  static void NAME(const pg_job *j, int64_t b) {                           \
    const T *g = (const T *)j->grad + b * j->oh * j->ow * j->c;             \
    T *out = (T *)j->out + b * j->h * j->w * j->c;                          \
    for (int64_t oy = 0; oy < j->oh; oy++) {                                \
      int64_t ry, ny, rx, nx;                                               \
      bcast(oy, j->h, j->kh, j->sh, j->pt, &ry, &ny);                       \
      for (int64_t ox = 0; ox < j->ow; ox++) {                              \
        bcast(ox, j->w, j->kw, j->sw, j->pl, &rx, &nx);                     \
        if (ny <= 0 || nx <= 0) continue;                                   \
        T coef = COEF(1.0 / (double)(ny * nx));                             \
        const T *gp = g + (oy * j->ow + ox) * j->c;                         \
        for (int64_t y = ry; y < ry + ny; y++)                              \
          for (int64_t x = rx; x < rx + nx; x++) {                          \
            T *op = out + (y * j->w + x) * j->c;                            \
            for (int64_t ch = 0; ch < j->c; ch++)                           \
              MULADD(op[ch], gp[ch], coef);                                 \
          }                                                                 \
      }                                                                     \
    }                                                                       \
  }

#define COEF_F(v) ((float)(v))
#define COEF_D(v) (v)
#define COEF_H(v) tfs_float_to_half((float)(v))
#define COEF_B(v) tfs_float_to_bf16((float)(v))
#define MA_NATIVE(d, g, k) ((d) += (g) * (k))
#define MA_H(d, g, k)                                                       \
  ((d) = tfs_float_to_half(                                                 \
       tfs_half_to_float(d) +                                               \
       tfs_half_to_float(tfs_float_to_half(tfs_half_to_float(g) *           \
                                           tfs_half_to_float(k)))))
#define MA_B(d, g, k)                                                       \
  ((d) = tfs_float_to_bf16(                                                 \
       tfs_bf16_to_float(d) +                                               \
       tfs_bf16_to_float(tfs_float_to_bf16(tfs_bf16_to_float(g) *           \
                                           tfs_bf16_to_float(k)))))

APG_FN(apg_f32, float, COEF_F, MA_NATIVE)
APG_FN(apg_f64, double, COEF_D, MA_NATIVE)
APG_FN(apg_f16, uint16_t, COEF_H, MA_H)
APG_FN(apg_bf16, uint16_t, COEF_B, MA_B)

static pg_fn avg_fn(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return apg_f32;
    case TFS_DOUBLE: return apg_f64;
    case TFS_HALF: return apg_f16;
    case TFS_BFLOAT16: return apg_bf16;
    default: return NULL;
  }
}

typedef struct {
  pg_fn fn;
  const pg_job *j;
} pg_par;

static void pg_range(void *arg, int64_t b0, int64_t b1) {
  const pg_par *p = arg;
  for (int64_t b = b0; b < b1; b++) p->fn(p->j, b);
}

/* Zeroes out and runs fn over `batch` images. */
static void pg_run(tfs_kernel_ctx *c, pg_fn fn, pg_job *j, tfs_tensor *out,
                   int64_t batch) {
  memset(out->data, 0, out->nbytes);
  if (out->nelems == 0 || !fn) return;
  j->out = out->data;
  j->dt = out->dtype;
  pg_par p = {fn, j};
  int64_t k = j->kh > 0 && j->kw > 0 ? j->kh * j->kw : 1;
  tfs_kctx_parallel_for(c, batch, j->oh * j->ow * j->c * k + 1, pg_range, &p);
}

/* MaxPoolGradV2's ksize and strides inputs into w. */
static int read_window_inputs(tfs_kernel_ctx *c, tfs_window *w) {
  const tfs_tensor *k = c->inputs[3], *s = c->inputs[4];
  if (k->nelems != 4 || k->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Sliding window ksize field must specify 4 dimensions");
    return -1;
  }
  if (s->nelems != 4 || s->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Sliding window strides field must specify 4 dimensions");
    return -1;
  }
  const int32_t *kv = k->data, *sv = s->data;
  for (int i = 0; i < 4; i++) {
    w->ksize[i] = kv[i];
    w->strides[i] = sv[i];
    w->dilations[i] = 1;
  }
  if (w->ksize[0] != 1 || w->strides[0] != 1) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Pooling is not yet supported on the batch dimension.");
    return -1;
  }
  return 0;
}

/* orig_output or grad (input i, named `what`) of the forward's shape. */
static int check_forward_shape(tfs_kernel_ctx *c, int i, const char *what,
                               const tfs_shape *want) {
  const tfs_shape *got = &c->inputs[i]->shape;
  if (tfs_shape_equal(got, want)) return 0;
  char a[160], b[160];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Expected %s shape to be %s, but got %s", what,
                tfs_shape_str(want, a, sizeof a),
                tfs_shape_str(got, b, sizeof b));
  return -1;
}

static void max_pool_grad_compute(tfs_kernel_ctx *c) {
  const pg_state *s = c->state;
  tfs_window w = s->w;
  static const char *const kNames[3] = {"tensor_in", "tensor_out",
                                        "out_backprop"};
  for (int i = 0; i < 3; i++)
    if (c->inputs[i]->shape.rank != 4) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be 4-dimensional",
                    kNames[i]);
      return;
    }
  if (c->ninputs == 5 && read_window_inputs(c, &w)) return;
  for (int i = 1; i < 3; i++)
    if (w.strides[i] <= 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Stride must be > 0, but got %lld",
                    (long long)w.strides[i]);
      return;
    }
  if (w.ksize[3] != 1 || w.strides[3] != 1) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "MaxPoolingGrad is not yet supported on the depth "
                  "dimension.");
    return;
  }
  if (check_explicit(c, &w)) return;
  const tfs_tensor *x = c->inputs[0];
  pg_job j = {x->data, c->inputs[2]->data, NULL, x->shape.dims[1],
              x->shape.dims[2], x->shape.dims[3], 0, 0, 0, 0, 0, 0, 0, 0,
              x->dtype};
  if (forward_size(c, &w, &j)) return;
  tfs_shape fwd = {.rank = 4};
  fwd.dims[0] = x->shape.dims[0];
  fwd.dims[1] = j.oh;
  fwd.dims[2] = j.ow;
  fwd.dims[3] = j.c;
  if (check_forward_shape(c, 1, "orig_output", &fwd) ||
      check_forward_shape(c, 2, "grad", &fwd))
    return;
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &x->shape);
  if (!out) return;
  pg_run(c, max_fn(x->dtype), &j, out, x->shape.dims[0]);
}

/* AvgPoolGrad's orig_input_shape as a shape: non-negative dims whose
 * product fits. */
static int avg_out_shape(tfs_kernel_ctx *c, tfs_shape *os) {
  const tfs_tensor *t = c->inputs[0];
  if (t->shape.rank != 1 || t->nelems != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "out_backprop must be 1-dimensional and 4 elements");
    return -1;
  }
  if (c->inputs[1]->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "out_backprop must be "
                  "4-dimensional");
    return -1;
  }
  const int32_t *v = t->data;
  os->rank = 4;
  int64_t n = 1;
  for (int i = 0; i < 4; i++) {
    if (v[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Expected a non-negative size, got %d", (int)v[i]);
      return -1;
    }
    os->dims[i] = v[i];
    if (n != 0 && v[i] > INT64_MAX / n) n = -1;
    if (n < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shape [%d,%d,%d,%d] has too many elements", (int)v[0],
                    (int)v[1], (int)v[2], (int)v[3]);
      return -1;
    }
    n *= v[i];
  }
  return 0;
}

static void avg_pool_grad_compute(tfs_kernel_ctx *c) {
  const pg_state *s = c->state;
  tfs_shape os;
  if (avg_out_shape(c, &os)) return;
  if (s->w.ksize[3] != 1 || s->w.strides[3] != 1) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Non-spatial pooling is not yet supported. Volunteers? :)");
    return;
  }
  const tfs_tensor *g = c->inputs[1];
  pg_job j = {NULL, g->data, NULL, os.dims[1], os.dims[2], os.dims[3],
              0, 0, 0, 0, 0, 0, 0, 0, g->dtype};
  if (forward_size(c, &s->w, &j)) return;
  /* Sizes come from grad; each window must start inside the image, the
   * batch be at most the image's and the depth match it. */
  j.oh = g->shape.dims[1];
  j.ow = g->shape.dims[2];
  if (g->shape.dims[0] > os.dims[0] || g->shape.dims[3] != os.dims[3]) {
    char a[160], b[160];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "out_backprop %s does not match the batch and depth of "
                  "orig_input_shape %s", tfs_shape_str(&g->shape, a, sizeof a),
                  tfs_shape_str(&os, b, sizeof b));
    return;
  }
  if ((j.oh > 0 && (j.oh - 1) * j.sh > j.h) ||
      (j.ow > 0 && (j.ow - 1) * j.sw > j.w)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "index * stride must be less than or equal to input size");
    return;
  }
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &os);
  if (!out) return;
  pg_run(c, avg_fn(g->dtype), &j, out, g->shape.dims[0]);
}

static const int kMax = 1;

const tfs_kernel_def tfs_cpu_kernels_pool_grad[] = {
    {"MaxPoolGrad", "CPU", "T", TFS_DT_REAL, pg_prepare,
     max_pool_grad_compute, free, 0, &kMax},
    {"MaxPoolGradV2", "CPU", "T", TFS_DT_REAL, pg_prepare,
     max_pool_grad_compute, free, 0, &kMax},
    {"AvgPoolGrad", "CPU", "T", TFS_DT_FLOATS, pg_prepare,
     avg_pool_grad_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

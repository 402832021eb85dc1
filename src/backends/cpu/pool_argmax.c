/*
 * backends/cpu/pool_argmax.c - MaxPoolWithArgmax on the CPU: NHWC max
 * pooling (SAME or VALID) that also returns, for every output, the flat
 * index of the input element it took: (y * width + x) * channels + c,
 * with the batch folded in ((b * height + y) * ...) under
 * include_batch_in_index; int64 or int32 indices (Targmax).  As
 * TensorFlow's CPU kernel: each output starts at the dtype's lowest value
 * with no index, the first element of its window is always taken and a
 * later one replaces it when greater (so a NaN first element stays), and
 * an output whose window holds no element keeps the lowest value and
 * index -1.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/pool.h"
#include "ops/nn_window.h"

typedef struct argmax_geom {
  int64_t n, h, w, c, oh, ow;
  int64_t kh, kw, sh, sw, pt, pl;
  int with_batch, arg64;
} argmax_geom;

typedef void (*argmax_fn)(const void *in, void *out, void *arg,
                          const argmax_geom *g, int64_t r0, int64_t r1);

typedef struct argmax_state {
  tfs_window w;
  int with_batch;
  argmax_fn fn;
} argmax_state;

static inline void store_arg(void *arg, int arg64, int64_t i, int64_t v) {
  if (arg64)
    ((int64_t *)arg)[i] = v;
  else
    ((int32_t *)arg)[i] = (int32_t)v;
}

/* Output rows [r0, r1), a row being one (b, oy). */
#define ARGMAX_POOL(NAME, T, LOWEST, LT)                                    \
  static void NAME(const void *IN, void *OUT, void *arg,                   \
                   const argmax_geom *g, int64_t r0, int64_t r1) {          \
    const T *in = IN;                                                       \
    T *out = OUT;                                                           \
    const int64_t C = g->c;                                                 \
    for (int64_t r = r0; r < r1; r++) {                                     \
      int64_t b = r / g->oh, oy = r % g->oh;                                \
      int64_t y0 = oy * g->sh - g->pt, y1 = y0 + g->kh;                     \
      if (y0 < 0) y0 = 0;                                                   \
      if (y1 > g->h) y1 = g->h;                                             \
      for (int64_t ox = 0; ox < g->ow; ox++) {                              \
        int64_t x0 = ox * g->sw - g->pl, x1 = x0 + g->kw;                   \
        if (x0 < 0) x0 = 0;                                                 \
        if (x1 > g->w) x1 = g->w;                                           \
        int64_t o = (r * g->ow + ox) * C;                                   \
        for (int64_t ch = 0; ch < C; ch++) {                                \
          T best = LOWEST;                                                  \
          int64_t at = -1;                                                  \
          for (int64_t y = y0; y < y1; y++)                                 \
            for (int64_t x = x0; x < x1; x++) {                             \
              int64_t i = ((b * g->h + y) * g->w + x) * C + ch;             \
              if (at < 0 || LT(best, in[i])) {                              \
                best = in[i];                                               \
                at = i;                                                     \
              }                                                             \
            }                                                               \
          out[o + ch] = best;                                               \
          if (at >= 0 && !g->with_batch) at -= b * g->h * g->w * C;         \
          store_arg(arg, g->arg64, o + ch, at);                             \
        }                                                                   \
      }                                                                     \
    }                                                                       \
  }

#define LT_NUM(a, b) ((a) < (b))
#define LT_F16(a, b) (tfs_half_to_float(a) < tfs_half_to_float(b))
#define LT_BF16(a, b) (tfs_bf16_to_float(a) < tfs_bf16_to_float(b))

ARGMAX_POOL(argmax_f32, float, -FLT_MAX, LT_NUM)
ARGMAX_POOL(argmax_f64, double, -DBL_MAX, LT_NUM)
ARGMAX_POOL(argmax_f16, uint16_t, (uint16_t)0xFBFF, LT_F16)
ARGMAX_POOL(argmax_bf16, uint16_t, (uint16_t)0xFF7F, LT_BF16)
ARGMAX_POOL(argmax_i8, int8_t, INT8_MIN, LT_NUM)
ARGMAX_POOL(argmax_i16, int16_t, INT16_MIN, LT_NUM)
ARGMAX_POOL(argmax_i32, int32_t, INT32_MIN, LT_NUM)
ARGMAX_POOL(argmax_i64, int64_t, INT64_MIN, LT_NUM)
ARGMAX_POOL(argmax_u8, uint8_t, 0, LT_NUM)
ARGMAX_POOL(argmax_u16, uint16_t, 0, LT_NUM)
ARGMAX_POOL(argmax_u32, uint32_t, 0, LT_NUM)
ARGMAX_POOL(argmax_u64, uint64_t, 0, LT_NUM)

static argmax_fn pick(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return argmax_f32;
    case TFS_DOUBLE: return argmax_f64;
    case TFS_HALF: return argmax_f16;
    case TFS_BFLOAT16: return argmax_bf16;
    case TFS_INT8: return argmax_i8;
    case TFS_INT16: return argmax_i16;
    case TFS_INT32: return argmax_i32;
    case TFS_INT64: return argmax_i64;
    case TFS_UINT8: return argmax_u8;
    case TFS_UINT16: return argmax_u16;
    case TFS_UINT32: return argmax_u32;
    case TFS_UINT64: return argmax_u64;
    default: return NULL;
  }
}

static int argmax_prepare(tfs_kernel_init *ki) {
  argmax_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_POOL, "MaxPool", &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  tfs_attrs_get_bool(ki->attrs, "include_batch_in_index", &s->with_batch);
  s->fn = pick(ki->in_types[0]);
  if (!s->fn)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "MaxPoolWithArgmax is not implemented for %s",
                        tfs_dtype_name(ki->in_types[0]));
  if (tfs_pool_check_window(&s->w, 1, 0, ki->st))
    return tfs_ki_error(ki, tfs_status_code(ki->st), "%s",
                        tfs_status_message(ki->st));
  return 0;
}

/* TensorFlow's PoolParameters for NHWC: a depth window leaves the spatial
 * size (window 1, no padding); otherwise SAME or VALID windows. */
static int argmax_geometry(tfs_kernel_ctx *c, const argmax_state *s,
                           const tfs_tensor *x, argmax_geom *g) {
  const tfs_window *w = &s->w;
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "tensor_in must be 4-dimensional (2)");
    return -1;
  }
  if (x->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "tensor_in must not be empty (2)");
    return -1;
  }
  memset(g, 0, sizeof *g);
  g->n = x->shape.dims[0], g->h = x->shape.dims[1];
  g->w = x->shape.dims[2], g->c = x->shape.dims[3];
  g->kh = w->ksize[1], g->kw = w->ksize[2];
  g->sh = w->strides[1], g->sw = w->strides[2];
  g->with_batch = s->with_batch;
  g->arg64 = c->out_types[1] == TFS_INT64;
  if (w->ksize[3] != 1) {
    if (tfs_pool_check_depth(g->c, w->ksize[3], w->strides[3], 1, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return -1;
    }
    g->oh = g->h, g->ow = g->w;
    return 0;
  }
  int64_t pb, pr;
  if (tfs_window_output_size(g->h, g->kh, 1, g->sh, w->padding, &g->pt, &pb,
                             &g->oh, c->st) ||
      tfs_window_output_size(g->w, g->kw, 1, g->sw, w->padding, &g->pl, &pr,
                             &g->ow, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

typedef struct {
  argmax_fn fn;
  const void *in;
  void *out, *arg;
  const argmax_geom *g;
} argmax_job;

static void argmax_range(void *p, int64_t r0, int64_t r1) {
  const argmax_job *j = p;
  j->fn(j->in, j->out, j->arg, j->g, r0, r1);
}

static void argmax_compute(tfs_kernel_ctx *c) {
  const argmax_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  argmax_geom g;
  if (argmax_geometry(c, s, x, &g)) return;
  tfs_shape os = {4, {g.n, g.oh, g.ow, g.c}};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  tfs_tensor *a = o ? tfs_kctx_alloc_output(c, 1, &os) : NULL;
  if (!a || o->nelems == 0) return;
  argmax_job j = {s->fn, x->data, o->data, a->data, &g};
  tfs_kctx_parallel_for(c, g.n * g.oh, g.ow * g.c * g.kh * g.kw + 1,
                        argmax_range, &j);
}

const tfs_kernel_def tfs_cpu_kernels_pool_argmax[] = {
    {"MaxPoolWithArgmax", "CPU", "T", TFS_DT_REAL, argmax_prepare,
     argmax_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

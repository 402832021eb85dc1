/*
 * backends/cpu/pool3d.c - MaxPool3D and AvgPool3D on the CPU: windows over
 * D, H and W of an NDHWC volume with SAME or VALID padding, float and
 * bfloat16 as TensorFlow's CPU kernels register (NCDHW is refused with
 * TensorFlow's message).  MaxPool3D starts from the dtype's lowest value
 * and keeps max unless x is not smaller (max > x ? max : x, Eigen's scalar
 * rule: a NaN replaces the max and the next number replaces the NaN);
 * AvgPool3D divides by the number of in-bounds elements, summing in
 * float.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"
#include "ops/nn_window3d.h"

typedef struct pool3d_geom {
  int64_t n, in[3], c, out[3];
  int64_t k[3], s[3], pad[3]; /* window, stride, padding before */
} pool3d_geom;

typedef struct pool3d_state {
  tfs_window3d w;
  int is_max;
} pool3d_state;

static int pool3d_prepare(tfs_kernel_init *ki) {
  pool3d_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->is_max = ki->kdata != NULL;
  tfs_window3d *w = &s->w;
  if (tfs_window3d_read(ki->attrs, w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (w->ncdhw)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Default Pooling3DOp only supports NDHWC on device "
                        "type CPU");
  if (w->nksize != 5)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Sliding window ksize field must specify 5 "
                        "dimensions");
  for (int i = 0; i < 5; i++)
    if (w->ksize[i] <= 0)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Sliding window ksize field must have "
                          "non-negative dimensions");
  if (w->nstrides != 5)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Sliding window stride field must specify 5 "
                        "dimensions");
  if (w->ksize[0] != 1 || w->strides[0] != 1)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Pooling is not yet supported on the batch "
                        "dimension.");
  if (w->ksize[4] != 1 || w->strides[4] != 1)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Pooling is not yet supported on the depth "
                        "dimension.");
  return 0;
}

/* Window [lo, hi) of output o along spatial axis i, clipped. */
static inline void span(const pool3d_geom *g, int i, int64_t o, int64_t *lo,
                        int64_t *hi) {
  int64_t a = o * g->s[i] - g->pad[i], b = a + g->k[i];
  *lo = a < 0 ? 0 : a;
  *hi = b > g->in[i] ? g->in[i] : b;
}

typedef struct pool3d_job {
  const pool3d_geom *g;
  const void *in;
  void *out;
  int is_max, bf16;
} pool3d_job;

static inline float load(const pool3d_job *j, int64_t i) {
  return j->bf16 ? tfs_bf16_to_float(((const uint16_t *)j->in)[i])
                 : ((const float *)j->in)[i];
}

/* Channels [c0, c0 + cn) of one output position (b, od, oh, ow) into
 * acc. */
static void pool_point(const pool3d_job *j, int64_t b, const int64_t o[3],
                       int64_t c0, int64_t cn, float *acc) {
  const pool3d_geom *g = j->g;
  int64_t lo[3], hi[3];
  for (int i = 0; i < 3; i++) span(g, i, o[i], &lo[i], &hi[i]);
  float init = !j->is_max ? 0.0f
               : j->bf16  ? tfs_bf16_to_float(0xFF7F)
                          : -FLT_MAX;
  for (int64_t ch = 0; ch < cn; ch++) acc[ch] = init;
  for (int64_t z = lo[0]; z < hi[0]; z++)
    for (int64_t y = lo[1]; y < hi[1]; y++)
      for (int64_t x = lo[2]; x < hi[2]; x++) {
        int64_t base =
            (((b * g->in[0] + z) * g->in[1] + y) * g->in[2] + x) * g->c + c0;
        for (int64_t ch = 0; ch < cn; ch++) {
          float v = load(j, base + ch);
          if (j->is_max)
            acc[ch] = acc[ch] > v ? acc[ch] : v;
          else
            acc[ch] += v;
        }
      }
  if (!j->is_max) {
    float cnt = (float)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
    for (int64_t ch = 0; ch < cn; ch++) acc[ch] /= cnt;
  }
}

/* Output rows [r0, r1), a row being one (b, od, oh). */
static void pool3d_rows(void *arg, int64_t r0, int64_t r1) {
  const pool3d_job *j = arg;
  const pool3d_geom *g = j->g;
  float buf[256];
  for (int64_t r = r0; r < r1; r++) {
    int64_t o[3] = {r / g->out[1] % g->out[0], r % g->out[1], 0};
    int64_t b = r / (g->out[0] * g->out[1]);
    for (o[2] = 0; o[2] < g->out[2]; o[2]++) {
      int64_t at = (r * g->out[2] + o[2]) * g->c;
      for (int64_t c0 = 0; c0 < g->c; c0 += 256) {
        int64_t cn = g->c - c0 < 256 ? g->c - c0 : 256;
        pool_point(j, b, o, c0, cn, buf);
        for (int64_t ch = 0; ch < cn; ch++) {
          if (j->bf16)
            ((uint16_t *)j->out)[at + c0 + ch] = tfs_float_to_bf16(buf[ch]);
          else
            ((float *)j->out)[at + c0 + ch] = buf[ch];
        }
      }
    }
  }
}

static void pool3d_compute(tfs_kernel_ctx *c) {
  const pool3d_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  if (x->shape.rank != 5) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "tensor_in must be 5-dimensional");
    return;
  }
  pool3d_geom g;
  memset(&g, 0, sizeof g);
  g.n = x->shape.dims[0];
  g.c = x->shape.dims[4];
  for (int i = 0; i < 3; i++) {
    int64_t after;
    g.in[i] = x->shape.dims[1 + i];
    g.k[i] = s->w.ksize[1 + i];
    g.s[i] = s->w.strides[1 + i];
    if (tfs_window_output_size(g.in[i], g.k[i], 1, g.s[i], s->w.padding,
                               &g.pad[i], &after, &g.out[i], c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return;
    }
  }
  tfs_shape os = {5, {g.n, g.out[0], g.out[1], g.out[2], g.c}};
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  pool3d_job j = {&g, x->data, y->data, s->is_max,
                  x->dtype == TFS_BFLOAT16};
  int64_t cost = g.out[2] * g.c + 1; /* times the clipped window */
  for (int i = 0; i < 3; i++) {
    int64_t k = g.k[i] < g.in[i] ? g.k[i] : g.in[i];
    if (cost < (INT64_C(1) << 40)) cost *= k > 0 ? k : 1;
  }
  tfs_kctx_parallel_for(c, g.n * g.out[0] * g.out[1], cost, pool3d_rows, &j);
}

static const int kMax = 1;

const tfs_kernel_def tfs_cpu_kernels_pool3d[] = {
    {"MaxPool3D", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16), pool3d_prepare,
     pool3d_compute, free, 0, &kMax},
    {"AvgPool3D", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16), pool3d_prepare,
     pool3d_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

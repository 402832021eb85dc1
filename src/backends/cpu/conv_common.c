/*
 * backends/cpu/conv_common.c - geometry, layout changes, 16-bit float
 * conversion and im2col shared by the convolution kernels.
 */
#include "backends/cpu/conv_common.h"

#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/gemm.h"

int tfs_conv_geom_output(tfs_kernel_ctx *c, const tfs_window *w, conv_geom *g) {
  if (tfs_conv_dims_output(w, g, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

void tfs_conv_shape(const tfs_window *w, int64_t n, int64_t h, int64_t wd,
                    int64_t c, tfs_shape *out) {
  out->rank = 4;
  out->dims[0] = n;
  out->dims[tfs_window_dim(w, 'H')] = h;
  out->dims[tfs_window_dim(w, 'W')] = wd;
  out->dims[tfs_window_dim(w, 'C')] = c;
}

#define TRANSPOSE(NAME, T)                                                  \
  static void NAME(const T *src, T *dst, int64_t n, int64_t a, int64_t b) { \
    /* per batch: src [a][b] -> dst [b][a] */                               \
    for (int64_t i = 0; i < n; i++) {                                       \
      const T *s = src + i * a * b;                                         \
      T *d = dst + i * a * b;                                               \
      for (int64_t y = 0; y < a; y++)                                       \
        for (int64_t x = 0; x < b; x++) d[x * a + y] = s[y * b + x];        \
    }                                                                       \
  }
TRANSPOSE(transpose16, uint16_t)
TRANSPOSE(transpose32, uint32_t)
TRANSPOSE(transpose64, uint64_t)

static void transpose(const void *src, void *dst, int64_t n, int64_t a,
                      int64_t b, size_t esize) {
  if (esize == 2)
    transpose16(src, dst, n, a, b);
  else if (esize == 4)
    transpose32(src, dst, n, a, b);
  else
    transpose64(src, dst, n, a, b);
}

void tfs_conv_nchw_to_nhwc(const void *src, void *dst, int64_t n, int64_t c,
                           int64_t hw, size_t esize) {
  transpose(src, dst, n, c, hw, esize);
}

void tfs_conv_nhwc_to_nchw(const void *src, void *dst, int64_t n, int64_t hw,
                           int64_t c, size_t esize) {
  transpose(src, dst, n, hw, c, esize);
}

void tfs_conv_to_float(const uint16_t *src, float *dst, int64_t n,
                       tfs_dtype dt) {
  if (dt == TFS_HALF)
    for (int64_t i = 0; i < n; i++) dst[i] = tfs_half_to_float(src[i]);
  else
    tfs_bf16_to_f32(src, dst, n);
}

void tfs_conv_from_float(const float *src, uint16_t *dst, int64_t n,
                         tfs_dtype dt) {
  if (dt == TFS_HALF)
    for (int64_t i = 0; i < n; i++) dst[i] = tfs_float_to_half(src[i]);
  else
    tfs_bf16_from_f32(src, dst, n);
}

void tfs_conv_im2col(const conv_geom *g, const void *in, size_t esize,
                     int64_t grp, int64_t r0, int64_t r1, void *col) {
  const char *src = in;
  char *dst = col;
  const int64_t C = g->c, kc = g->kc;
  const size_t seg = (size_t)kc * esize;
  const int64_t opix = g->oh * g->ow;
  /* whole filter rows can be copied at once when channels and columns
   * are contiguous */
  const int row_copy = g->dw == 1 && kc == C;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / opix, rem = r % opix;
    int64_t oy = rem / g->ow, ox = rem % g->ow;
    int64_t iy0 = oy * g->sh - g->pt, ix0 = ox * g->sw - g->pl;
    for (int64_t ky = 0; ky < g->kh; ky++) {
      int64_t iy = iy0 + ky * g->dh;
      if (iy < 0 || iy >= g->h) {
        memset(dst, 0, seg * (size_t)g->kw);
        dst += seg * (size_t)g->kw;
        continue;
      }
      const char *row = src + ((size_t)((b * g->h + iy) * g->w) * (size_t)C +
                               (size_t)(grp * kc)) *
                                  esize;
      if (row_copy && ix0 >= 0 && ix0 + g->kw <= g->w) {
        memcpy(dst, row + (size_t)(ix0 * C) * esize, seg * (size_t)g->kw);
        dst += seg * (size_t)g->kw;
        continue;
      }
      for (int64_t kx = 0; kx < g->kw; kx++) {
        int64_t ix = ix0 + kx * g->dw;
        if (ix < 0 || ix >= g->w)
          memset(dst, 0, seg);
        else
          memcpy(dst, row + (size_t)(ix * C) * esize, seg);
        dst += seg;
      }
    }
  }
}

int64_t tfs_conv_block_rows(int64_t m, int64_t k, size_t esize) {
  /* about 1 MB of patches per task: big enough for an efficient GEMM,
   * small enough to stay in L2/L3 while the GEMM reads it */
  const int64_t budget = (int64_t)1 << 20;
  int64_t rows = budget / (k * (int64_t)esize + 1);
  if (rows < 32) rows = 32;
  if (rows > m) rows = m;
  return rows < 1 ? 1 : rows;
}

static void gemm_i32(int trans_b, int64_t m, int64_t n, int64_t k,
                     const int32_t *a, int64_t lda, const int32_t *b,
                     int64_t ldb, int32_t *c, int64_t ldc) {
  for (int64_t i = 0; i < m; i++) {
    uint32_t *ci = (uint32_t *)(c + i * ldc);
    for (int64_t j = 0; j < n; j++) ci[j] = 0;
    for (int64_t p = 0; p < k; p++) {
      uint32_t av = (uint32_t)a[i * lda + p];
      if (trans_b) {
        for (int64_t j = 0; j < n; j++) ci[j] += av * (uint32_t)b[j * ldb + p];
      } else {
        const int32_t *bp = b + p * ldb;
        for (int64_t j = 0; j < n; j++) ci[j] += av * (uint32_t)bp[j];
      }
    }
  }
}

void tfs_conv_gemm_on(tfs_dtype dt, int trans_b, int64_t m, int64_t n,
                      int64_t k, const void *a, int64_t lda, const void *b,
                      int64_t ldb, void *c, int64_t ldc,
                      struct tfs_threadpool *pool) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    size_t es = dt == TFS_DOUBLE ? 8 : 4;
    for (int64_t i = 0; i < m; i++)
      memset((char *)c + (size_t)(i * ldc) * es, 0, (size_t)n * es);
    return;
  }
  if (dt == TFS_FLOAT)
    tfs_gemm_f32(0, trans_b, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc, pool);
  else if (dt == TFS_DOUBLE)
    tfs_gemm_f64(0, trans_b, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc, pool);
  else
    gemm_i32(trans_b, m, n, k, a, lda, b, ldb, c, ldc);
}

int tfs_conv_check_batch_depth(tfs_kernel_init *ki, const tfs_window *w,
                               tfs_code code) {
  int n = tfs_window_dim(w, 'N'), ch = tfs_window_dim(w, 'C');
  if (w->strides[n] != 1 || w->strides[ch] != 1)
    return tfs_ki_error(ki, code,
                        "Current implementation does not yet support "
                        "strides in the batch and depth dimensions.");
  if (w->dilations[n] != 1 || w->dilations[ch] != 1)
    return tfs_ki_error(ki, code,
                        "Current implementation does not yet support "
                        "dilations in the batch and depth dimensions.");
  return 0;
}

int tfs_conv_stage_begin(conv_stage *s, int nchw, const tfs_tensor *x,
                         const tfs_tensor *f, const float *f32, int64_t f32_n,
                         tfs_tensor *y) {
  memset(s, 0, sizeof *s);
  s->dt = x->dtype;
  int is16 = s->dt == TFS_HALF || s->dt == TFS_BFLOAT16;
  s->ct = is16 ? TFS_FLOAT : s->dt;
  s->es = s->ct == TFS_DOUBLE ? 8 : 4;
  s->in = x->data;
  s->filt = f->data;
  s->out = y->data;
  if (is16) {
    if (!(s->tmp[0] = tfs_malloc((size_t)x->nelems * s->es))) return -1;
    tfs_conv_to_float(x->data, s->tmp[0], x->nelems, s->dt);
    s->in = s->tmp[0];
    if (f32 && f32_n == f->nelems) {
      s->filt = f32;
    } else {
      if (!(s->tmp[1] = tfs_malloc((size_t)f->nelems * s->es))) return -1;
      tfs_conv_to_float(f->data, s->tmp[1], f->nelems, s->dt);
      s->filt = s->tmp[1];
    }
  }
  if (nchw) {
    const int64_t *d = x->shape.dims;
    if (!(s->tmp[2] = tfs_malloc((size_t)x->nelems * s->es))) return -1;
    tfs_conv_nchw_to_nhwc(s->in, s->tmp[2], d[0], d[1], d[2] * d[3], s->es);
    s->in = s->tmp[2];
  }
  if (is16 || nchw) {
    if (!(s->tmp[3] = tfs_malloc((size_t)y->nelems * s->es))) return -1;
    s->out = s->tmp[3];
  }
  return 0;
}

int tfs_conv_stage_end(conv_stage *s, int nchw, tfs_tensor *y) {
  int is16 = s->dt != s->ct;
  void *res = s->out;
  if (nchw) {
    const int64_t *d = y->shape.dims;
    void *dst = y->data;
    if (is16 && !(dst = s->tmp[4] = tfs_malloc((size_t)y->nelems * s->es)))
      return -1;
    tfs_conv_nhwc_to_nchw(res, dst, d[0], d[2] * d[3], d[1], s->es);
    res = dst;
  }
  if (is16) tfs_conv_from_float(res, y->data, y->nelems, s->dt);
  return 0;
}

void tfs_conv_stage_free(conv_stage *s) {
  for (int i = 0; i < 5; i++) {
    tfs_free(s->tmp[i]);
    s->tmp[i] = NULL;
  }
}

const float *tfs_conv_filter_f32(tfs_kernel_ctx *c, const float *f32,
                                 int64_t f32_n, const tfs_tensor *f) {
  if (f32 && f32_n == f->nelems) return f32;
  float *w = tfs_kctx_scratch(c, sizeof(float) * (size_t)(f->nelems + 1));
  if (w) tfs_conv_to_float(f->data, w, f->nelems, f->dtype);
  return w;
}

int tfs_conv_const_filter(const tfs_kernel_init *ki, int input, float **out,
                          int64_t *n) {
  const tfs_tensor *f = ki->in_consts ? ki->in_consts[input] : NULL;
  tfs_dtype dt = ki->in_types[input];
  *out = NULL;
  *n = 0;
  if (!f || f->nelems == 0 || (dt != TFS_HALF && dt != TFS_BFLOAT16)) return 0;
  if (!(*out = tfs_malloc(sizeof(float) * (size_t)f->nelems))) return -1;
  tfs_conv_to_float(f->data, *out, f->nelems, dt);
  *n = f->nelems;
  return 0;
}

void tfs_conv_gemm(tfs_dtype dt, int trans_b, int64_t m, int64_t n, int64_t k,
                   const void *a, int64_t lda, const void *b, int64_t ldb,
                   void *c, int64_t ldc) {
  tfs_conv_gemm_on(dt, trans_b, m, n, k, a, lda, b, ldb, c, ldc, NULL);
}

int64_t tfs_conv_slots(tfs_kernel_ctx *c, int64_t nblocks,
                       int64_t cost_per_block) {
  int nt = tfs_threadpool_plan_threads(tfs_kctx_intra_pool(c), nblocks,
                                       cost_per_block);
  if (nt < 1) nt = 1;
  return nt < nblocks ? nt : nblocks;
}

int tfs_conv_check_inputs(tfs_kernel_ctx *c, const tfs_window *w,
                          int depthwise, const tfs_tensor *x,
                          const tfs_tensor *f, conv_geom *g) {
  if (tfs_conv2d_check(w, depthwise, &x->shape, &f->shape, g, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

int tfs_conv_check_groups(tfs_kernel_ctx *c, const tfs_tensor *f,
                          const conv_geom *g) {
  if (tfs_conv2d_check_filter(&f->shape, c->st) ||
      tfs_conv2d_check_groups(g, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

static int backprop_ranks(tfs_kernel_ctx *c, const char *label,
                          const tfs_shape *xs, const tfs_shape *fs,
                          const tfs_shape *dys) {
  const char *bad = xs->rank != 4   ? "input"
                    : fs->rank != 4 ? "filter"
                    : dys->rank != 4 ? "out_backprop"
                                     : NULL;
  if (!bad) return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s: %s must be 4-dimensional",
                label, bad);
  return -1;
}

/* out_backprop's spatial sizes against the computed ones. */
static int backprop_spatial(tfs_kernel_ctx *c, const char *label,
                            const tfs_window *w, const conv_geom *g,
                            const conv_geom *d) {
  const int64_t got[2] = {d->h, d->w}, want[2] = {g->oh, g->ow};
  const int64_t in[2] = {g->h, g->w}, k[2] = {g->kh, g->kw};
  const int64_t st[2] = {g->sh, g->sw}, dl[2] = {g->dh, g->dw};
  for (int i = 0; i < 2; i++) {
    if (got[i] == want[i]) continue;
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: Size of out_backprop doesn't match computed: "
                  "actual = %lld, computed = %lld spatial_dim: %d input: "
                  "%lld filter: %lld output: %lld stride: %lld dilation: "
                  "%lld",
                  label, (long long)got[i], (long long)want[i],
                  tfs_window_dim(w, i ? 'W' : 'H'), (long long)in[i],
                  (long long)k[i], (long long)got[i], (long long)st[i],
                  (long long)dl[i]);
    return -1;
  }
  return 0;
}

int tfs_conv_backprop_dims(tfs_kernel_ctx *c, const char *label,
                           const tfs_window *w, const tfs_shape *xs,
                           const tfs_shape *fs, const tfs_shape *dys,
                           conv_geom *g) {
  if (backprop_ranks(c, label, xs, fs, dys)) return -1;
  memset(g, 0, sizeof *g);
  tfs_conv_geom_window(w, g);
  tfs_conv_geom_input(w, xs, g);
  g->kh = fs->dims[0], g->kw = fs->dims[1];
  g->kc = fs->dims[2], g->kn = fs->dims[3];
  conv_geom d;
  tfs_conv_geom_input(w, dys, &d);
  if (g->n != d.n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: input and out_backprop must have the same batch "
                  "size. Input batch: %lld, outbackprop batch: %lld, "
                  "batch_dim: 0",
                  label, (long long)g->n, (long long)d.n);
    return -1;
  }
  if (g->kc <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: filter depth must be strictly greated than zero",
                  label);
    return -1;
  }
  if (g->c % g->kc != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: input depth must be evenly divisible by filter depth",
                  label);
    return -1;
  }
  if (g->kn != d.c) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s: filter and out_backprop must have the same out_depth",
                  label);
    return -1;
  }
  if (tfs_conv_geom_output(c, w, g) || backprop_spatial(c, label, w, g, &d))
    return -1;
  g->groups = g->c / g->kc; /* 0 for an input of depth 0: no output */
  g->oc = g->kn;
  if (g->groups > 0 && g->kn % g->groups != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "output depth must be evenly divisible by number of "
                  "groups: %lld vs %lld",
                  (long long)g->kn, (long long)g->groups);
    return -1;
  }
  return 0;
}

const void *tfs_conv_nhwc_data(const tfs_tensor *t, int nchw, tfs_dtype ct,
                               void **tmp) {
  *tmp = NULL;
  const int is16 = ct != t->dtype;
  const size_t es = is16 ? sizeof(float) : tfs_dtype_size(t->dtype);
  if (!is16 && !nchw) return t->data;
  const size_t bytes = (size_t)t->nelems * es;
  void *a = tfs_malloc(bytes ? bytes : 1);
  if (!a) return NULL;
  const void *src = t->data;
  if (is16) {
    tfs_conv_to_float(t->data, a, t->nelems, t->dtype);
    src = a;
  }
  if (nchw) {
    void *b = tfs_malloc(bytes ? bytes : 1);
    if (!b) {
      tfs_free(a);
      return NULL;
    }
    const int64_t *d = t->shape.dims;
    tfs_conv_nchw_to_nhwc(src, b, d[0], d[1], d[2] * d[3], es);
    tfs_free(a);
    *tmp = b;
    return b;
  }
  *tmp = a;
  return a;
}

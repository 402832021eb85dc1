/*
 * backends/cpu/conv_gemm.c - float NHWC convolutions as GEMMs with no
 * im2col matrix: the filter is packed once (at prepare when constant) and
 * each task multiplies the patches of its block of output pixels by it,
 * then hands the finished block to the caller's epilogue while it is in
 * cache.  Where the CPU's GEMM has indirect micro-kernels the patches are
 * read in place from a zero-padded copy of the image (XNNPACK's indirect
 * convolution); otherwise each task gathers them into packed panels.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/threadpool.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/scale_shift.h"
#include "backends/cpu/store_act.h"

#define MAX_MR 16

/* One group's product over output pixels [row0, row0 + m): the GEMM's
 * row r is pixel row0 + r, written to out + r * ldc (all groups). */
typedef struct conv_src {
  const conv_geom *g;
  const float *in;
  int64_t grp, col0, row0;
  tfs_conv_done_fn done;
  void *arg;
  float *out;
  int64_t ldc;
  const float *bias; /* kn values, or NULL */
  const float *add;  /* the residual addend laid out as out, or NULL */
  int relu;
} conv_src;

/* Copies `len` channels of the rows' sources into column i of the panel
 * rows d[q * mr + i] (zeros for a NULL source). */
static void gather(const float *const *src, int rows, int mr, int64_t len,
                   float *d) {
  if (rows == 6 && mr == 6 && src[0] && src[1] && src[2] && src[3] &&
      src[4] && src[5]) {
    const float *s0 = src[0], *s1 = src[1], *s2 = src[2], *s3 = src[3],
                *s4 = src[4], *s5 = src[5];
    for (int64_t q = 0; q < len; q++, d += 6) {
      d[0] = s0[q], d[1] = s1[q], d[2] = s2[q];
      d[3] = s3[q], d[4] = s4[q], d[5] = s5[q];
    }
    return;
  }
  for (int i = 0; i < mr; i++) {
    const float *s = i < rows ? src[i] : NULL;
    if (s)
      for (int64_t q = 0; q < len; q++) d[q * mr + i] = s[q];
    else
      for (int64_t q = 0; q < len; q++) d[q * mr + i] = 0.0f;
  }
}

/* tfs_gemm_a_source.pack: rows are output pixels, depth runs over (ky,
 * kx, channel of the group) as the HWIO filter's rows do. */
static void conv_pack(void *arg, int64_t r0, int64_t mb, int64_t pc,
                      int64_t kb, int mr, float *out) {
  const conv_src *s = arg;
  const conv_geom *g = s->g;
  const int64_t kc = g->kc, opix = g->oh * g->ow;
  for (int64_t ip = 0; ip * mr < mb; ip++) {
    float *dst = out + ip * kb * mr;
    int rows = (int)(mb - ip * mr < mr ? mb - ip * mr : mr);
    const float *base[MAX_MR];
    int64_t iy0[MAX_MR], ix0[MAX_MR];
    for (int i = 0; i < rows; i++) {
      int64_t r = s->row0 + r0 + ip * mr + i, b = r / opix, rem = r % opix;
      iy0[i] = (rem / g->ow) * g->sh - g->pt;
      ix0[i] = (rem % g->ow) * g->sw - g->pl;
      base[i] = s->in + b * g->h * g->w * g->c + s->grp * kc;
    }
    for (int64_t p = pc; p < pc + kb;) {
      int64_t seg = p / kc, c0 = p % kc;
      int64_t len = kc - c0 < pc + kb - p ? kc - c0 : pc + kb - p;
      int64_t ky = seg / g->kw, kx = seg % g->kw;
      const float *src[MAX_MR];
      for (int i = 0; i < rows; i++) {
        int64_t iy = iy0[i] + ky * g->dh, ix = ix0[i] + kx * g->dw;
        src[i] = iy >= 0 && iy < g->h && ix >= 0 && ix < g->w
                     ? base[i] + (iy * g->w + ix) * g->c + c0
                     : NULL;
      }
      gather(src, rows, mr, len, dst + (p - pc) * mr);
      p += len;
    }
  }
}

/* The packed path's tiles: the bias, addend and activation the indirect
 * kernels apply when they store (store_act.h), then the caller's
 * epilogue. */
static void conv_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                      int64_t nb) {
  const conv_src *s = arg;
  const int64_t ld = s->ldc;
  c0 += s->col0;
  if (s->bias || s->relu || s->add) {
    for (int64_t r = r0; r < r0 + mb; r++) {
      float *p = s->out + r * ld + c0;
      const float *z = s->add ? s->add + r * ld + c0 : NULL;
      for (int64_t j = 0; j < nb; j++) {
        float x = p[j] + (s->bias ? s->bias[c0 + j] : 0.0f);
        if (z) x = x + z[j];
        if (tfs_store_clamps(s->relu) && !(x > 0) && x == x) x = 0.0f;
        if (s->relu == TFS_STORE_RELU6 && x > 6.0f) x = 6.0f;
        p[j] = s->relu == TFS_STORE_HARD_SWISH ? tfs_hard_swish1(x) : x;
      }
    }
  }
  if (s->done) s->done(s->arg, r0, mb, c0, nb);
}

/* ---- the indirect path: patches read in place from a padded image ---- */

/* The image the windows read, zero-padded so that every window lies
 * inside it: NHWC with ph rows and pw columns.  A copy is filled row by
 * row as the GEMM's tasks first ask for the windows that read a row
 * (ind_rows): each task copies the rows it multiplies next, in parallel
 * and while they are in its cache, instead of one pass over the whole
 * image before the product (which ran on one thread for small images:
 * MobileNetV2's first convolution spent 40 us of 250 on two threads
 * copying its 600 KB input). */
typedef struct padded {
  const float *img;
  float *own;          /* kernel scratch */
  atomic_uchar *ready; /* own's rows: ROW_EMPTY, ROW_FILLING, ROW_READY */
  int64_t ph, pw, c, h, w, pt, pl;
  const float *in;
  const tfs_conv_affine *aff; /* applied to the image's pixels, or NULL */
} padded;

enum { ROW_EMPTY, ROW_FILLING, ROW_READY };

static void pad_rows(void *arg, int64_t r0, int64_t r1) {
  const padded *p = arg;
  const size_t row = (size_t)(p->pw * p->c);
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / p->ph, y = r % p->ph - p->pt;
    float *dst = p->own + (size_t)r * row;
    if (y < 0 || y >= p->h) {
      memset(dst, 0, sizeof(float) * row);
      continue;
    }
    size_t left = (size_t)(p->pl * p->c), mid = (size_t)(p->w * p->c);
    const float *src = p->in + (size_t)((b * p->h + y) * p->w) * (size_t)p->c;
    memset(dst, 0, sizeof(float) * left);
    if (p->aff)
      tfs_conv_affine_f32(p->aff, src, dst + left, (int64_t)mid);
    else
      memcpy(dst + left, src, sizeof(float) * mid);
    memset(dst + left + mid, 0, sizeof(float) * (row - left - mid));
  }
}

/* The windows of a 1x1 convolution with strides 1 over an image with no
 * padding around it are the image's pixels in order, C floats apart. */
static int pixels_even(const conv_geom *g, const padded *pad) {
  return g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 &&
         pad->ph == g->oh && pad->pw == g->ow && pad->pt == 0 &&
         pad->pl == 0;
}

/* The padded image, or the input itself when no window leaves it and no
 * affine map (aff, or NULL) applies; the map goes with the copy. */
static int pad_image(tfs_kernel_ctx *c, const conv_geom *g, const float *in,
                     const tfs_conv_affine *aff, padded *p) {
  int64_t need_h = (g->oh - 1) * g->sh + (g->kh - 1) * g->dh + 1;
  int64_t need_w = (g->ow - 1) * g->sw + (g->kw - 1) * g->dw + 1;
  memset(p, 0, sizeof *p);
  p->c = g->c, p->h = g->h, p->w = g->w, p->pt = g->pt, p->pl = g->pl;
  p->in = in;
  p->aff = aff;
  p->ph = need_h > g->pt + g->h ? need_h : g->pt + g->h;
  p->pw = need_w > g->pl + g->w ? need_w : g->pl + g->w;
  if (!aff && g->pt == 0 && g->pl == 0 && p->ph == g->h && p->pw == g->w) {
    p->img = in;
    return 0;
  }
  const size_t nrows = (size_t)(g->n * p->ph);
  p->own = tfs_kctx_scratch(c, sizeof(float) * nrows * (size_t)(p->pw * g->c));
  p->ready = tfs_kctx_scratch(c, nrows);
  if (!p->own || !p->ready) return -1;
  for (size_t r = 0; r < nrows; r++) atomic_init(&p->ready[r], ROW_EMPTY);
  p->img = p->own;
  if (pixels_even(g, p)) { /* an affine map alone: no ind_rows asks */
    tfs_kctx_parallel_for(c, g->n * p->ph, p->pw * g->c / 4 + 1, pad_rows, p);
    p->ready = NULL;
  }
  return 0;
}

/* Fills rows [r0, r1) of the padded copy that no task filled yet; a row
 * another task is filling is waited for (its filler never waits). */
static void pad_ensure(const padded *p, int64_t r0, int64_t r1) {
  for (int64_t r = r0; r < r1; r++) {
    atomic_uchar *st = &p->ready[r];
    if (atomic_load_explicit(st, memory_order_acquire) == ROW_READY) continue;
    unsigned char want = ROW_EMPTY;
    if (atomic_compare_exchange_strong_explicit(st, &want, ROW_FILLING,
                                                memory_order_acquire,
                                                memory_order_acquire)) {
      pad_rows((void *)p, r, r + 1);
      atomic_store_explicit(st, ROW_READY, memory_order_release);
      continue;
    }
    while (atomic_load_explicit(st, memory_order_acquire) != ROW_READY)
      tfs_cpu_relax();
  }
}

typedef struct conv_ind {
  const conv_geom *g;
  const padded *pad;
  int64_t grp, col0, row0;
  tfs_conv_done_fn done;
  void *arg;
} conv_ind;

static void ind_rows(void *arg, int64_t r0, int64_t mb, const float **out) {
  const conv_ind *s = arg;
  const conv_geom *g = s->g;
  const int64_t opix = g->oh * g->ow, C = g->c, pw = s->pad->pw;
  const int64_t r = s->row0 + r0, b = r / opix, rem = r % opix;
  /* the first pixel's place by division, the rest by stepping along the
   * output row (divisions would cost more than a 3-channel window) */
  int64_t oy = rem / g->ow, ox = rem % g->ow;
  if (s->pad->ready) { /* the padded rows these windows read */
    const int64_t last = r + mb - 1, lrem = last % opix;
    pad_ensure(s->pad, b * s->pad->ph + oy * g->sh,
               last / opix * s->pad->ph + lrem / g->ow * g->sh +
                   (g->kh - 1) * g->dh + 1);
  }
  const float *img = s->pad->img + s->grp * g->kc;
  const float *row = img + (b * s->pad->ph + oy * g->sh) * pw * C;
  for (int64_t i = 0; i < mb; i++) {
    out[i] = row + ox * g->sw * C;
    if (++ox == g->ow) {
      ox = 0;
      row += g->sh * pw * C;
      if (++oy == g->oh) { /* the next image */
        oy = 0;
        row += (s->pad->ph - g->oh * g->sh) * pw * C;
      }
    }
  }
}

static void ind_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                     int64_t nb) {
  const conv_ind *s = arg;
  s->done(s->arg, r0, mb, s->col0 + c0, nb);
}

/* Segments of one window: whole filter rows when a window row is
 * contiguous (no dilation across x, one group), else one per tap. */
static int64_t *window_segments(tfs_kernel_ctx *c, const conv_geom *g,
                                int64_t pw, int64_t *nseg, int64_t *seglen) {
  int rows = g->dw == 1 && g->kc == g->c;
  *nseg = rows ? g->kh : g->kh * g->kw;
  *seglen = rows ? g->kw * g->c : g->kc;
  int64_t *off = tfs_kctx_scratch(c, sizeof(int64_t) * (size_t)*nseg);
  if (!off) return NULL;
  for (int64_t ky = 0; ky < g->kh; ky++) {
    if (rows) {
      off[ky] = ky * g->dh * pw * g->c;
      continue;
    }
    for (int64_t kx = 0; kx < g->kw; kx++)
      off[ky * g->kw + kx] = (ky * g->dh * pw + kx * g->dw) * g->c;
  }
  return off;
}

struct tfs_conv_plan {
  const conv_geom *g;
  const float *in;
  tfs_gemm_packed *const *b; /* per group */
  tfs_gemm_packed **own;     /* packed for this call, or NULL */
  int indirect;
  padded pad;
  int64_t *segoff, nseg, seglen;
  const float *bias;
  const float *add; /* at output pixel 0, leading dimension kn */
  int relu;
};

void tfs_conv_plan_free(tfs_conv_plan *p) {
  if (!p) return;
  for (int64_t i = 0; p->own && i < p->g->groups; i++)
    tfs_gemm_packed_free(p->own[i]);
  tfs_free(p->own);
  tfs_free(p);
}

tfs_conv_plan *tfs_conv_plan_new(tfs_kernel_ctx *c, const conv_geom *g,
                                 const float *in, const tfs_conv_affine *aff,
                                 tfs_gemm_packed *const *packed,
                                 const float *filt, const float *bias,
                                 const float *add, int relu) {
  const int64_t k = g->kh * g->kw * g->kc, cout_g = g->kn / g->groups;
  tfs_conv_plan *p = tfs_calloc(1, sizeof *p);
  if (!p) goto oom;
  p->g = g;
  p->in = in;
  p->bias = bias;
  p->add = add;
  p->relu = relu;
  p->b = packed;
  if (!packed) {
    p->own = tfs_calloc((size_t)g->groups, sizeof *p->own);
    if (!p->own) goto oom;
    for (int64_t i = 0; i < g->groups; i++) {
      p->own[i] = tfs_gemm_pack_b_f32(0, k, cout_g, filt + i * cout_g, g->kn);
      if (!p->own[i]) goto oom;
    }
    p->b = p->own;
  }
  p->indirect = tfs_gemm_indirect_ok(p->b[0]);
  if (aff && !p->indirect) { /* patches gathered from a mapped copy */
    p->in = tfs_conv_affine_input(c, aff, in, g->n * g->h * g->w * g->c);
    if (!p->in) {
      tfs_conv_plan_free(p);
      return NULL; /* c failed */
    }
  }
  if (p->indirect &&
      (pad_image(c, g, in, aff, &p->pad) ||
       !(p->segoff = window_segments(c, g, p->pad.pw, &p->nseg, &p->seglen))))
    goto oom;
  return p;
oom:
  tfs_conv_plan_free(p);
  tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return NULL;
}

/* Output pixels [r0, r0 + mb) by the columns b holds of group grp, the
 * first of them column col0 of the output (out: column 0, pixel r0). */
static int plan_part(const tfs_conv_plan *p, int64_t grp, int64_t col0,
                     const tfs_gemm_packed *b, int64_t r0, int64_t mb,
                     float *out, int64_t ldc, tfs_conv_done_fn done,
                     void *done_arg, struct tfs_threadpool *pool) {
  const conv_geom *g = p->g;
  const float *add = p->add ? p->add + r0 * g->kn : NULL;
  if (p->indirect) {
    conv_ind s = {g, &p->pad, grp, col0, r0, done, done_arg};
    tfs_gemm_indirect src = {ind_rows,  done ? ind_done : NULL,
                             &s,        p->segoff,
                             p->nseg,   p->seglen,
                             p->bias ? p->bias + col0 : NULL,
                             p->relu,   add ? add + col0 : NULL};
    if (pixels_even(g, &p->pad)) { /* row r: pixel r0 + r */
      src.row_base = p->pad.img + grp * g->kc + r0 * g->c;
      src.row_stride = g->c;
    }
    return tfs_gemm_f32_indirect(mb, &src, b, out + col0, ldc, pool);
  }
  conv_src s = {g,   p->in, grp, col0,    r0,  done, done_arg,
                out, ldc,   p->bias,      add, p->relu};
  tfs_gemm_a_source src = {
      conv_pack, done || p->bias || p->relu || add ? conv_done : NULL, &s};
  return tfs_gemm_f32_packed_src(mb, &src, b, out + col0, ldc, pool);
}

int tfs_conv_plan_rows(const tfs_conv_plan *p, int64_t r0, int64_t mb,
                       float *out, int64_t ldc, tfs_conv_done_fn done,
                       void *done_arg, struct tfs_threadpool *pool) {
  const conv_geom *g = p->g;
  const int64_t cout_g = g->kn / g->groups;
  if (p->add && ldc != g->kn) return -1; /* the addend's layout */
  for (int64_t grp = 0; grp < g->groups; grp++)
    if (plan_part(p, grp, grp * cout_g, p->b[grp], r0, mb, out, ldc, done,
                  done_arg, pool))
      return -1;
  return 0;
}

int tfs_conv_plan_cols(const tfs_conv_plan *p, int64_t r0, int64_t mb,
                       int64_t c0, int64_t nc, float *out, int64_t ldc,
                       tfs_conv_done_fn done, void *done_arg) {
  if (p->g->groups != 1 || (p->add && ldc != p->g->kn)) return -1;
  tfs_gemm_packed *b = tfs_gemm_packed_cols(p->b[0], c0, nc);
  if (!b) return -1;
  int rc = plan_part(p, 0, c0, b, r0, mb, out, ldc, done, done_arg, NULL);
  tfs_gemm_packed_free(b);
  return rc;
}

/* A pointwise convolution of at most four output pixels (a squeeze-and-
 * excitation block after global pooling) is a thin product of the input
 * rows with the filter as it lies: packed panels would run those rows on
 * the few-row micro-kernels, latency-bound on a few accumulators (the
 * AVX2 family's one-row blocks excepted). */
static int thin_pointwise(const conv_geom *g, const float *filt) {
  return filt && g->groups == 1 && g->kh == 1 && g->kw == 1 &&
         g->sh == 1 && g->sw == 1 && g->pt == 0 && g->pl == 0 &&
         g->oh == g->h && g->ow == g->w && g->n * g->oh * g->ow <= 4;
}

/* The thin product's epilogue over its m rows of kn: the bias, the
 * addend, the activation, each as the indirect kernels' store rounds
 * it. */
static void thin_epilogue(float *out, int64_t m, int64_t kn,
                          const float *bias, const float *add, int relu) {
  const int fa = relu == TFS_STORE_RELU6  ? TFS_FA_RELU6
                 : relu == TFS_STORE_RELU ? TFS_FA_RELU
                                          : TFS_FA_NONE;
  if (add) {
    if (bias) tfs_fused_rows_f32(TFS_FA_NONE, 0.0f, out, m, kn, kn, NULL, bias);
    tfs_fused_add_rows_f32(fa, 0.0f, out, m, kn, kn, add, kn);
  } else if (bias || fa != TFS_FA_NONE) {
    tfs_fused_rows_f32(fa, 0.0f, out, m, kn, kn, NULL, bias);
  }
  if (relu == TFS_STORE_HARD_SWISH) tfs_fused_hard_swish_f32(out, out, m * kn);
}

int tfs_conv_f32_gemm(tfs_kernel_ctx *c, const conv_geom *g, const float *in,
                      const tfs_conv_affine *aff,
                      tfs_gemm_packed *const *packed, const float *filt,
                      float *out, const float *bias, const float *add,
                      int relu, tfs_conv_done_fn done, void *done_arg) {
  if (thin_pointwise(g, filt)) {
    int64_t m = g->n * g->oh * g->ow;
    if (aff && !(in = tfs_conv_affine_input(c, aff, in, m * g->kc)))
      return -1;
    tfs_gemm_f32(0, 0, m, g->kn, g->kc, 1.0f, in, g->kc, filt, g->kn, 0.0f,
                 out, g->kn, tfs_kctx_intra_pool(c));
    thin_epilogue(out, m, g->kn, bias, add, relu);
    if (done) done(done_arg, 0, m, 0, g->kn);
    return 0;
  }
  tfs_conv_plan *p =
      tfs_conv_plan_new(c, g, in, aff, packed, filt, bias, add, relu);
  if (!p) return -1;
  int rc = tfs_conv_plan_rows(p, 0, g->n * g->oh * g->ow, out, g->kn, done,
                              done_arg, tfs_kctx_intra_pool(c));
  tfs_conv_plan_free(p);
  if (rc == 0) return 0;
  tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return -1;
}

int tfs_conv_packed_prepare(tfs_kernel_init *ki, const tfs_window *w,
                            const float *filter_f32, tfs_conv_packed *p) {
  memset(p, 0, sizeof *p);
  const tfs_tensor *f = ki->in_consts ? ki->in_consts[1] : NULL;
  const tfs_shape *xs = &ki->in_shapes[0];
  if (!f || f->shape.rank != 4 || f->nelems == 0 || xs->rank != 4 ||
      (f->dtype != TFS_FLOAT && !filter_f32))
    return 0;
  int64_t c = xs->dims[tfs_window_dim(w, 'C')], kc = f->shape.dims[2];
  int64_t kn = f->shape.dims[3];
  if (c <= 0 || kc <= 0 || c % kc != 0 || kn % (c / kc) != 0) return 0;
  int64_t groups = c / kc, k = f->shape.dims[0] * f->shape.dims[1] * kc;
  const float *fv = filter_f32 ? filter_f32 : f->data;
  p->g = tfs_calloc((size_t)groups, sizeof *p->g);
  if (!p->g) return -1;
  p->n = groups;
  p->c = c;
  for (int64_t i = 0; i < groups; i++) {
    p->g[i] = tfs_gemm_pack_b_f32(0, k, kn / groups, fv + i * (kn / groups),
                                  kn);
    if (!p->g[i]) return -1;
  }
  if (tfs_wino_filter_fits(w, c, f->shape.dims[0], f->shape.dims[1], kc, kn)) {
    p->wino = tfs_wino_filter_new(fv, c, kn, tfs_wino_pick_tile(w, xs));
    if (!p->wino) return -1;
    /* a 16-bit filter's float copy is gone by the first call */
    p->open = !filter_f32 && tfs_wino_tile_open(w, xs);
  }
  return 0;
}

void tfs_conv_packed_clear(tfs_conv_packed *p) {
  for (int64_t i = 0; i < p->n; i++) tfs_gemm_packed_free(p->g[i]);
  tfs_wino_filter_free(p->wino);
  tfs_wino_filter_free(atomic_load(&p->wino4));
  tfs_free(p->g);
  memset(p, 0, sizeof *p);
}

tfs_gemm_packed *const *tfs_conv_packed_for(const tfs_conv_packed *p,
                                            const conv_geom *g) {
  return p->g && p->c == g->c && p->n == g->groups ? p->g : NULL;
}

const tfs_wino_filter *tfs_conv_wino_for(const tfs_conv_packed *p,
                                         const conv_geom *g,
                                         const float *filt) {
  if (!p->wino || p->c != g->c || tfs_wino_filter_c(p->wino) != g->c ||
      !tfs_wino_fits(g))
    return NULL;
  if (!p->open || !filt || tfs_wino_call_tile(g) != 4) return p->wino;
  tfs_conv_packed *q = (tfs_conv_packed *)p; /* wino4 is atomic */
  tfs_wino_filter *w4 = atomic_load_explicit(&q->wino4, memory_order_acquire);
  if (w4) return w4;
  w4 = tfs_wino_filter_new(filt, g->c, g->kn, 4);
  if (!w4) return p->wino;
  tfs_wino_filter *none = NULL;
  if (!atomic_compare_exchange_strong_explicit(&q->wino4, &none, w4,
                                               memory_order_acq_rel,
                                               memory_order_acquire)) {
    tfs_wino_filter_free(w4); /* another call's is kept */
    w4 = none;
  }
  return w4;
}

/* ---- an affine map on the input ---- */

/* _TfsScaleShift's rows (scale_shift.h: the product rounded before the
 * sum, as Mul then AddV2), over blocks of AFFINE_W elements with the
 * scalars repeated; a missing step is the identity: x * 1 and x + -0 are
 * x, bit for bit (-0 included). */
#define AFFINE_W 64

void tfs_conv_affine_f32(const tfs_conv_affine *a, const float *in,
                         float *out, int64_t n) {
  float s[AFFINE_W], t[AFFINE_W];
  for (int i = 0; i < AFFINE_W; i++) {
    s[i] = a->has_scale ? a->scale : 1.0f;
    t[i] = a->has_shift ? a->shift : -0.0f;
  }
  const int64_t rows = n / AFFINE_W, done = rows * AFFINE_W;
  tfs_scale_shift_f32(TFS_SS_IDENTITY, in, out, rows, AFFINE_W, s, t);
  tfs_scale_shift_f32(TFS_SS_IDENTITY, in + done, out + done, 1, n - done, s,
                      t);
}

typedef struct affine_job {
  const tfs_conv_affine *a;
  const float *in;
  float *out;
} affine_job;

static void affine_range(void *arg, int64_t b, int64_t e) {
  const affine_job *j = arg;
  tfs_conv_affine_f32(j->a, j->in + b, j->out + b, e - b);
}

const float *tfs_conv_affine_input(tfs_kernel_ctx *c,
                                   const tfs_conv_affine *a,
                                   const float *in, int64_t n) {
  float *out = tfs_kctx_scratch(c, sizeof(float) * (size_t)(n + 1));
  if (!out) return NULL; /* c failed */
  affine_job j = {a, in, out};
  tfs_kctx_parallel_for(c, n, 1, affine_range, &j);
  return out;
}

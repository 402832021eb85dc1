/*
 * backends/cpu/fused_conv.c - the remapper's fused convolutions on the
 * CPU: _FusedConv2D (Conv2D + BiasAdd or inference FusedBatchNorm [+
 * activation], or + BiasAdd + Add of a tensor of the output's shape [+
 * activation]), _FusedDepthwiseConv2dNative (+ BiasAdd [+ activation])
 * and _TfsFusedConv2DMaxPool (a _FusedConv2D and the VALID,
 * non-overlapping MaxPool after it).  The convolution is Conv2D's
 * (patches read from the NHWC image by the GEMM, a constant filter packed
 * once, NCHW through an NHWC copy; conv_gemm.c); each block of output
 * pixels and channels gets its bias / batch norm and activation right
 * after its GEMM (bias and Relu as it is stored), while it is still in
 * cache, and is pooled there too for _TfsFusedConv2DMaxPool.  A 3x3
 * stride-1 convolution the Winograd path takes (conv_winograd.h: a
 * constant filter, enough channels) runs there in either op,
 * _TfsFusedConv2DMaxPool pooling each finished strip of tile rows.  A
 * residual addend and Relu / Relu6 / hard-swish go into the GEMM's tile
 * store too.  _tfs_input_scale / _tfs_input_shift (the remapper's fold
 * of Keras's Rescaling) map the input as it is read: in the zero-padded
 * copy the indirect GEMM reads, else in a copy of the input.
 * bfloat16 _FusedConv2D (auto mixed precision's, NHWC, no input map)
 * runs Conv2D's bfloat16 blocks (conv2d.c) with the epilogue applied to
 * each block's float32 sums before the one rounding (a bfloat16 bias and
 * addend widened); bfloat16 _FusedDepthwiseConv2dNative (NHWC, no
 * input map) runs tfs_dw_bf16 (bands of rows widened, the epilogue on
 * float blocks, one rounding); other bfloat16 and half cases compute in
 * float32 copies (conv_stage) and round the output.
 * _TfsFusedConv2DMaxPool is float only.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/conv_depthwise.h"
#include "backends/cpu/conv_winograd.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/pool.h"

typedef struct fconv_state {
  tfs_window w;
  tfs_fused_epilogue e;
  tfs_conv_affine aff; /* on the input (_tfs_input_scale / _shift) */
  int depthwise;
  tfs_conv_packed packed; /* a constant filter, packed once */
  tfs_gemm_packed_bf16 *packed_bf16; /* a constant bfloat16 filter */
  float *filter_f32; /* a constant 16-bit depthwise filter as float */
  int64_t filter_n;  /* its element count */
  int64_t pkh, pkw;       /* _TfsFusedConv2DMaxPool: the pool window */
} fconv_state;

static void fconv_release(void *p) {
  fconv_state *s = p;
  if (!s) return;
  tfs_conv_packed_clear(&s->packed);
  tfs_gemm_packed_bf16_free(s->packed_bf16);
  tfs_free(s->filter_f32);
  tfs_free(s);
}

static int fconv_prepare_common(tfs_kernel_init *ki, int depthwise) {
  fconv_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->depthwise = depthwise;
  const char *name = depthwise ? "DepthwiseConv2D" : "Conv2D";
  if (tfs_window_parse(ki->attrs,
                       depthwise ? TFS_WINDOW_DEPTHWISE : TFS_WINDOW_CONV2D,
                       name, &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (tfs_conv_check_batch_depth(ki, &s->w, TFS_UNIMPLEMENTED)) return -1;
  size_t len;
  const char *ff = tfs_attrs_get_string(ki->attrs, "filter_format", &len);
  int64_t host = 0;
  tfs_attrs_get_int(ki->attrs, "num_host_args", &host);
  if ((ff && strcmp(ff, "HWIO") != 0) || host != 0)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "_FusedConv2D on CPU supports HWIO filters and no "
                        "host args");
  unsigned allowed = 1u << TFS_FE_BIAS;
  if (!depthwise) allowed |= 1u << TFS_FE_BATCH_NORM | TFS_FUSED_ALLOW_ADD;
  if (tfs_fused_parse(ki, allowed, &s->e)) return -1;
  if (ki->ninputs != 2 + s->e.nargs) {
    static const char *const kArgs[] = {
        "one extra argument: bias",
        "two extra arguments: bias and addend",
        "4 extra arguments: scale, offset, mean, variance"};
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Fused %s%s must have %s.", name,
                        s->e.add ? " with Add"
                        : s->e.kind == TFS_FE_BATCH_NORM ? " with batchnorm"
                                                          : "",
                        kArgs[s->e.add ? 1 : s->e.kind == TFS_FE_BATCH_NORM
                                              ? 2 : 0]);
  }
  if (!depthwise && tfs_conv_packed_prepare(ki, &s->w, NULL, &s->packed))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  if (!depthwise && ki->in_types[1] == TFS_BFLOAT16 && ki->in_consts &&
      !s->w.nchw)
    s->packed_bf16 = tfs_conv_pack_filter_bf16(ki->in_consts[1]);
  if (depthwise && tfs_conv_const_filter(ki, 1, &s->filter_f32, &s->filter_n))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->aff.has_scale =
      tfs_attrs_get_float(ki->attrs, "_tfs_input_scale", &s->aff.scale) == 0;
  s->aff.has_shift =
      tfs_attrs_get_float(ki->attrs, "_tfs_input_shift", &s->aff.shift) == 0;
  return 0;
}

/* The node's affine map on its input (the remapper's fold of a scalar
 * Mul and Add before it), or NULL. */
static const tfs_conv_affine *fconv_affine(const fconv_state *s) {
  return s->aff.has_scale || s->aff.has_shift ? &s->aff : NULL;
}

static int fconv_prepare(tfs_kernel_init *ki) {
  return fconv_prepare_common(ki, 0);
}
static int fdw_prepare(tfs_kernel_init *ki) {
  return fconv_prepare_common(ki, 1);
}

typedef struct fconv_job {
  const conv_geom *g;
  const fconv_state *s;
  const float *in, *filt;
  float *out;
  const float *scale, *shift;
  const float *add; /* "Add": the addend, laid out as out (NHWC) */
  const uint16_t *add16; /* bfloat16 "Add": the addend */
  int in_store;     /* the GEMM added the bias as it stored the tiles */
} fconv_job;

/* The epilogue of one finished block of output pixels and channels. */
static void fconv_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                       int64_t nb) {
  const fconv_job *j = arg;
  const int64_t ld = j->g->kn;
  if (j->add) { /* the bias went in as the tiles were stored */
    tfs_fused_apply_add(&j->s->e, j->out + r0 * ld + c0, mb, nb, ld,
                        j->add + r0 * ld + c0, ld);
    return;
  }
  tfs_fused_apply_rest(&j->s->e, j->in_store, j->out + r0 * ld + c0, mb,
                       nb, ld, j->scale ? j->scale + c0 : NULL,
                       j->shift ? j->shift + c0 : NULL);
}

/* The activation of one finished part of a depthwise output row whose
 * bias the convolution added as it stored it. */
static void fdw_done(void *arg, float *row, int64_t c0, int64_t nc) {
  const fconv_job *j = arg;
  tfs_fused_apply(&j->s->e, row + c0, j->g->ow, nc, j->g->oc, NULL, NULL);
}

/* A depthwise convolution's epilogue: the bias always, and Relu, Relu6
 * or hard-swish as it stores; 1 when the activation is left to
 * fdw_done. */
static int fdw_epilogue(const fconv_job *j, tfs_dw_epilogue *ep) {
  ep->bias = j->shift; /* depthwise epilogues are a bias: no scale */
  switch (j->s->e.act) {
    case TFS_FA_NONE:
      ep->act = TFS_DW_ACT_NONE;
      return 0;
    case TFS_FA_RELU:
      ep->act = TFS_DW_ACT_RELU;
      return 0;
    case TFS_FA_RELU6:
      ep->act = TFS_DW_ACT_RELU6;
      return 0;
    case TFS_FA_HARD_SWISH:
      ep->act = TFS_DW_ACT_HARD_SWISH;
      return 0;
    default:
      ep->act = TFS_DW_ACT_NONE;
      return 1;
  }
}

/* The inputs' geometry and the epilogue's per-channel scale and shift
 * (in kernel scratch); *in_store when there is no scale: the GEMM adds
 * the bias as it stores tiles (and applies Relu or Relu6 when that is the
 * activation), the rest ("Add", another activation) following per
 * finished block.  -1 when c failed. */
static int fconv_begin(tfs_kernel_ctx *c, const fconv_state *s, conv_geom *g,
                       const float **scale, const float **shift,
                       int *in_store) {
  if (tfs_conv_check_inputs(c, &s->w, s->depthwise, c->inputs[0],
                            c->inputs[1], g))
    return -1;
  /* bfloat16 arguments are widened (6 * oc: room for them) */
  float *params = tfs_kctx_scratch(c, sizeof(float) * (size_t)(6 * g->oc + 1));
  if (!params ||
      tfs_fused_channel_params_of(c, &s->e, g->oc, params, 1, scale, shift))
    return -1;
  *in_store = !*scale;
  return 0;
}

/* "Add"'s addend (the last input): NULL after failing c unless it is a
 * tensor of the output's type and shape os. */
static const tfs_tensor *fconv_addend_tensor(tfs_kernel_ctx *c,
                                             const tfs_shape *os) {
  const tfs_tensor *a = c->inputs[3];
  tfs_dtype t = c->inputs[0]->dtype;
  if (a->dtype == t && tfs_shape_equal(&a->shape, os)) return a;
  char want[TFS_SHAPE_STRLEN], got[TFS_SHAPE_STRLEN];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "the addend of a fused Add must be a %s tensor of the "
                "convolution's output shape %s, got %s %s",
                tfs_dtype_name(t), tfs_shape_str(os, want, sizeof want),
                tfs_dtype_name(a->dtype),
                tfs_shape_str(&a->shape, got, sizeof got));
  return NULL;
}

/* The addend as floats (a 16-bit one widened into kernel scratch), or
 * NULL after failing c. */
static const float *fconv_addend(tfs_kernel_ctx *c, const tfs_shape *os) {
  const tfs_tensor *a = fconv_addend_tensor(c, os);
  if (!a || a->dtype == TFS_FLOAT) return a ? a->data : NULL;
  float *f = tfs_kctx_scratch(c, sizeof(float) * (size_t)(a->nelems + 1));
  if (f) tfs_conv_to_float(a->data, f, a->nelems, a->dtype);
  return f;
}

/* bfloat16 _FusedConv2D's epilogue on a block of float32 sums before
 * they are rounded: scale and shift (or the bias) and the activation;
 * with "Add" the bias, the addend widened a piece of a row at a time,
 * then the activation. */
static void fconv16_epi(void *arg, float *sums, int64_t ld, int64_t r0,
                        int64_t nr, int64_t c0, int64_t nc) {
  const fconv_job *j = arg;
  const tfs_fused_epilogue *e = &j->s->e;
  if (!j->add16) {
    tfs_fused_apply(e, sums, nr, nc, ld, j->scale ? j->scale + c0 : NULL,
                    j->shift ? j->shift + c0 : NULL);
    return;
  }
  tfs_fused_rows_f32(TFS_FA_NONE, 0, sums, nr, nc, ld, NULL, j->shift + c0);
  enum { PIECE = 256 };
  float wide[PIECE];
  const int64_t kn = j->g->kn;
  for (int64_t r = 0; r < nr; r++)
    for (int64_t p = 0; p < nc; p += PIECE) {
      int64_t len = nc - p < PIECE ? nc - p : PIECE;
      tfs_bf16_to_f32(j->add16 + (r0 + r) * kn + c0 + p, wide, len);
      tfs_fused_apply_add(e, sums + r * ld + p, 1, len, len, wide, len);
    }
}

/* A bfloat16 _FusedConv2D on the bfloat16 GEMM when it runs there (NHWC,
 * no input map, elements in the input); 0 when it ran (c may have
 * failed), 1 when the float32 copies must do it. */
static int fconv16(tfs_kernel_ctx *c, const fconv_state *s,
                   const conv_geom *g, fconv_job *j, tfs_tensor *y) {
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  if (x->dtype != TFS_BFLOAT16 || s->depthwise || s->w.nchw ||
      x->nelems == 0 || fconv_affine(s) ||
      !tfs_conv2d_bf16_runs(s->packed_bf16))
    return 1;
  if (s->e.add) {
    const tfs_tensor *a = fconv_addend_tensor(c, &y->shape);
    if (!a) return 0;
    j->add16 = a->data;
  }
  j->g = g;
  j->s = s;
  tfs_conv2d_bf16(c, g, x->data, f->data, s->packed_bf16, y->data,
                  fconv16_epi, j);
  return 0;
}

/* An activation the depthwise store could not apply, on a finished float
 * block of a bfloat16 output. */
static void fdw16_after(void *arg, float *rows, int64_t npix) {
  const fconv_job *j = arg;
  tfs_fused_apply(&j->s->e, rows, npix, j->g->oc, j->g->oc, NULL, NULL);
}

/* A bfloat16 _FusedDepthwiseConv2dNative on tfs_dw_bf16 (NHWC, no input
 * map, elements in the input); 0 when it ran (c may have failed), 1 when
 * the float32 copies must do it. */
static int fdw16(tfs_kernel_ctx *c, const fconv_state *s, const conv_geom *g,
                 fconv_job *j, tfs_tensor *y) {
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  if (x->dtype != TFS_BFLOAT16 || !s->depthwise || s->w.nchw ||
      x->nelems == 0 || fconv_affine(s))
    return 1;
  const float *filt = tfs_conv_filter_f32(c, s->filter_f32, s->filter_n, f);
  if (!filt) return 0; /* failed c */
  j->g = g;
  j->s = s;
  tfs_dw_epilogue ep;
  int later = fdw_epilogue(j, &ep);
  if (tfs_dw_bf16(g, x->data, filt, y->data, &ep, later ? fdw16_after : NULL,
                  j, tfs_kctx_intra_pool(c)))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

static void fconv_compute(tfs_kernel_ctx *c) {
  const fconv_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv_geom g;
  fconv_job j;
  memset(&j, 0, sizeof j);
  int in_store;
  if (fconv_begin(c, s, &g, &j.scale, &j.shift, &in_store)) return;
  tfs_shape os;
  tfs_conv_shape(&s->w, g.n, g.oh, g.ow, g.oc, &os);
  if (s->e.add && !fconv_addend_tensor(c, &os)) return;
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  if (!s->depthwise && x->nelems != 0 && tfs_conv_check_groups(c, f, &g))
    return;
  if (!fconv16(c, s, &g, &j, y) || !fdw16(c, s, &g, &j, y)) return;
  const float *addend = NULL;
  if (s->e.add && !(addend = fconv_addend(c, &os))) return;
  const int late = addend && (s->w.nchw || x->nelems == 0);
  j.in_store = in_store;
  conv_stage st;
  int ok = tfs_conv_stage_begin(&st, s->w.nchw, x, f, NULL, 0, y) == 0;
  const tfs_conv_affine *aff = fconv_affine(s);
  if (ok) {
    j.g = &g;
    j.s = s;
    j.in = st.in;
    j.filt = st.filt;
    j.out = st.out;
    const tfs_wino_filter *wf =
        s->depthwise || x->nelems == 0
            ? NULL
            : tfs_conv_wino_for(&s->packed, &g, j.filt);
    /* "Add": the bias goes in as tiles are stored; on the GEMM's paths the
     * addend and an activation the store applies too, else the addend
     * and the activation per finished block (NHWC), or over the whole
     * output in its layout at the end (NCHW, or an input without
     * elements) */
    const int add_store = addend && !late && in_store && !wf &&
                          !s->depthwise && tfs_fused_act_in_store(&s->e);
    j.add = late || add_store ? NULL : addend;
    const int relu = in_store && (!addend || add_store)
                         ? tfs_fused_store_relu(&s->e)
                         : 0;
    tfs_conv_done_fn done =
        j.add || (!late && !(in_store && tfs_fused_act_in_store(&s->e)))
            ? fconv_done
            : NULL;
    /* the paths that cannot map the input as they read it read a copy */
    if (aff && x->nelems != 0 && (s->depthwise || wf)) {
      if (!(j.in = tfs_conv_affine_input(c, aff, j.in, x->nelems))) {
        tfs_conv_stage_free(&st);
        return; /* failed c */
      }
      aff = NULL;
    }
    if (x->nelems == 0) { /* every window lies in padding: sums are 0 */
      memset(st.out, 0, sizeof(float) * (size_t)y->nelems);
      if (late)
        tfs_fused_rows_f32(TFS_FA_NONE, 0, st.out, y->nelems / g.oc, g.oc,
                           g.oc, NULL, j.shift);
      else
        tfs_fused_apply(&s->e, st.out, y->nelems / g.oc, g.oc, g.oc,
                        j.scale, j.shift);
    } else if (s->depthwise) {
      tfs_dw_epilogue ep;
      int later = fdw_epilogue(&j, &ep);
      ok = tfs_dw_f32(&g, j.in, j.filt, j.out, &ep, later ? fdw_done : NULL,
                      &j, tfs_kctx_intra_pool(c)) == 0;
    } else if (wf) {
      if (tfs_wino_conv_f32(c, &g, j.in, wf, j.out, in_store ? j.shift : NULL,
                            relu, done, &j)) {
        tfs_conv_stage_free(&st);
        return; /* failed c */
      }
    } else if (tfs_conv_f32_gemm(c, &g, j.in, aff,
                                 tfs_conv_packed_for(&s->packed, &g), j.filt,
                                 j.out, in_store ? j.shift : NULL,
                                 add_store ? addend : NULL, relu, done,
                                 &j)) {
      tfs_conv_stage_free(&st);
      return; /* failed c */
    }
    if (ok) ok = tfs_conv_stage_end(&st, s->w.nchw, y) == 0;
    if (ok && late) /* one row: y and the addend share their layout */
      tfs_fused_apply_add(&s->e, y->data, 1, y->nelems, y->nelems, addend,
                          y->nelems);
  }
  tfs_conv_stage_free(&st);
  if (!ok) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

/* ---- _TfsFusedConv2DMaxPool -------------------------------------------------
 * _FusedConv2D (NHWC) then MaxPool with VALID, non-overlapping windows
 * (strides equal to ksize): each task computes the convolution rows of a
 * few pooled rows into a small tile and pools it at once, so the
 * full-size convolution output never goes to memory. */

static int fcp_prepare(tfs_kernel_init *ki) {
  if (fconv_prepare_common(ki, 0)) return -1;
  fconv_state *s = ki->state;
  if (s->e.add)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Fusion is not implemented: [BiasAdd,Add] with a "
                        "pool");
  const tfs_attr_value *k = tfs_attrs_find(ki->attrs, "pool_ksize");
  const tfs_attr_value *st = tfs_attrs_find(ki->attrs, "pool_strides");
  const int64_t *kv = k && k->is_list && k->u.list.n == 4 ? k->u.list.v : NULL;
  const int64_t *sv =
      st && st->is_list && st->u.list.n == 4 ? st->u.list.v : NULL;
  if (s->w.nchw || !kv || !sv || kv[0] != 1 || kv[3] != 1 || kv[1] < 1 ||
      kv[2] < 1 || sv[0] != 1 || sv[3] != 1 || sv[1] != kv[1] ||
      sv[2] != kv[2])
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "_TfsFusedConv2DMaxPool supports NHWC and pool "
                        "strides equal to a 4-D pool_ksize [1, h, w, 1]");
  s->pkh = kv[1];
  s->pkw = kv[2];
  return 0;
}

typedef struct fcp_job {
  const conv_geom *g;
  const fconv_state *s;
  const tfs_conv_plan *plan;
  int in_store;
  const float *scale, *shift;
  float *out;
  int64_t poh, pow, group; /* pooled rows per tile */
  float *conv;             /* fcp_wino: the convolution's output */
  int failed;              /* atomic */
} fcp_job;

/* parallel_for body over tiles [t0, t1): tile t is `group` pooled rows of
 * one image (fewer at its bottom), computed on this thread. */
static void fcp_tiles(void *arg, int64_t t0, int64_t t1) {
  fcp_job *j = arg;
  const conv_geom *g = j->g;
  const int64_t kh = j->s->pkh, tpi = (j->poh + j->group - 1) / j->group;
  float *tile = tfs_kctx_task_buf(
      0, sizeof(float) * (size_t)(j->group * kh * g->ow * g->kn));
  if (!tile) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  for (int64_t t = t0; t < t1; t++) {
    int64_t b = t / tpi, py = (t % tpi) * j->group;
    int64_t npr = j->group < j->poh - py ? j->group : j->poh - py;
    int64_t r0 = (b * g->oh + py * kh) * g->ow, mb = npr * kh * g->ow;
    if (tfs_conv_plan_rows(j->plan, r0, mb, tile, g->kn, NULL, NULL, NULL)) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      break;
    }
    tfs_fused_apply_rest(&j->s->e, j->in_store, tile, mb, g->kn, g->kn,
                         j->scale, j->shift);
    tfs_maxpool_f32_valid(tile, npr * kh, g->ow, g->kn, kh, j->s->pkw, kh,
                          j->s->pkw,
                          j->out + (b * j->poh + py) * j->pow * g->kn);
  }
}

/* When no grouping gives every thread the same tiles (fcp_share): the
 * whole convolution in one product split over the pool, into scratch
 * that stays in cache at these sizes, then the pools. */
static void fcp_whole(tfs_kernel_ctx *c, fcp_job *j, tfs_threadpool *pool) {
  const conv_geom *g = j->g;
  const int64_t per_img = g->oh * g->ow, m = g->n * per_img;
  float *conv = tfs_kctx_scratch(c, sizeof(float) * (size_t)(m * g->kn));
  if (!conv) return; /* c failed */
  if (tfs_conv_plan_rows(j->plan, 0, m, conv, g->kn, NULL, NULL, pool)) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  tfs_fused_apply_rest(&j->s->e, j->in_store, conv, m, g->kn, g->kn,
                       j->scale, j->shift);
  for (int64_t b = 0; b < g->n; b++)
    tfs_maxpool_f32_valid(conv + b * per_img * g->kn, g->oh, g->ow, g->kn,
                          j->s->pkh, j->s->pkw, j->s->pkh, j->s->pkw,
                          j->out + b * j->poh * j->pow * g->kn);
}

/* Convolution rows [y0, y0 + ny) of image b, in j->conv: the rest of the
 * epilogue, then the pools whose windows they hold (y0 a multiple of the
 * pool's height; ny too, or the rows reach the image's bottom, whose
 * remainder VALID pooling drops). */
static void fcp_pool_rows(const fcp_job *j, int64_t b, int64_t y0,
                          int64_t ny) {
  const conv_geom *g = j->g;
  const int64_t kh = j->s->pkh, kn = g->kn;
  float *rows = j->conv + ((b * g->oh + y0) * g->ow) * kn;
  tfs_fused_apply_rest(&j->s->e, j->in_store, rows, ny * g->ow, kn, kn,
                       j->scale, j->shift);
  int64_t py = y0 / kh, npr = ny / kh;
  if (npr > j->poh - py) npr = j->poh - py;
  if (npr > 0)
    tfs_maxpool_f32_valid(rows, npr * kh, g->ow, kn, kh, j->s->pkw, kh,
                          j->s->pkw, j->out + (b * j->poh + py) * j->pow * kn);
}

/* tfs_wino_conv_f32's strips (whole rows of one image, a tile's height)
 * pooled as they finish, still in cache. */
static void fcp_wino_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                          int64_t nb) {
  (void)c0;
  (void)nb;
  const fcp_job *j = arg;
  const int64_t per_img = j->g->oh * j->g->ow;
  fcp_pool_rows(j, r0 / per_img, r0 % per_img / j->g->ow, mb / j->g->ow);
}

/* The convolution on the Winograd path (conv_winograd.h) into scratch,
 * each finished strip pooled at once when the pool's height divides the
 * tile's, else every image after the whole convolution.  The pooled
 * values are those of the unfused _FusedConv2D (on the same path) and
 * MaxPool. */
static void fcp_wino(tfs_kernel_ctx *c, fcp_job *j, const float *x,
                     const tfs_wino_filter *wf) {
  const conv_geom *g = j->g;
  const int64_t m = g->n * g->oh * g->ow;
  j->conv = tfs_kctx_scratch(c, sizeof(float) * (size_t)(m * g->kn));
  if (!j->conv) return; /* c failed */
  int strips = tfs_wino_filter_tile(wf) % j->s->pkh == 0;
  if (tfs_wino_conv_f32(c, g, x, wf, j->conv, j->in_store ? j->shift : NULL,
                        j->in_store ? tfs_fused_store_relu(&j->s->e) : 0,
                        strips ? fcp_wino_done : NULL, j))
    return; /* c failed */
  for (int64_t b = 0; !strips && b < g->n; b++) fcp_pool_rows(j, b, 0, g->oh);
}

/* Pooled rows per tile: about 96 convolution pixels (a micro-kernel row
 * block), a whole number of panels (tfs_gemm_panel_rows) when a small
 * count allows. */
static int64_t fcp_group(int64_t per_row) {
  const int mr = tfs_gemm_panel_rows();
  int64_t want = per_row >= 96 ? 1 : (96 + per_row - 1) / per_row;
  for (int64_t gr = want; gr <= want + mr; gr++)
    if ((gr * per_row) % mr == 0) return gr;
  return want;
}

/* Shares the tiles among nt threads: with few tiles (batch 1) the groups
 * shrink until every thread gets the same number of tiles, at least two.
 * Returns 1 when no grouping does (one product over the pool instead). */
static int fcp_share(fcp_job *j, int64_t n, int nt) {
  if (nt <= 1) return 0;
  int64_t tiles = n * ((j->poh + j->group - 1) / j->group);
  if (tiles >= 4 * (int64_t)nt) return 0;
  for (int64_t gr = j->group; gr >= 1; gr--) {
    tiles = n * ((j->poh + gr - 1) / gr);
    if (tiles >= 2 * (int64_t)nt && tiles % nt == 0) {
      j->group = gr;
      return 0;
    }
  }
  return 1;
}

static void fcp_compute(tfs_kernel_ctx *c) {
  const fconv_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv_geom g;
  fcp_job j;
  memset(&j, 0, sizeof j);
  if (fconv_begin(c, s, &g, &j.scale, &j.shift, &j.in_store)) return;
  int64_t pb = 0, pa = 0; /* MaxPool's check and message */
  if (tfs_window_output_size(g.oh, s->pkh, 1, s->pkh, TFS_PADDING_VALID, &pb,
                             &pa, &j.poh, c->st) ||
      tfs_window_output_size(g.ow, s->pkw, 1, s->pkw, TFS_PADDING_VALID, &pb,
                             &pa, &j.pow, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_shape os;
  tfs_conv_shape(&s->w, g.n, j.poh, j.pow, g.oc, &os);
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  if (x->nelems == 0) { /* every window in padding: pools of equal sums */
    memset(y->data, 0, y->nbytes);
    tfs_fused_apply(&s->e, y->data, y->nelems / g.oc, g.oc, g.oc, j.scale,
                    j.shift);
    return;
  }
  if (tfs_conv_check_groups(c, f, &g)) return;
  j.g = &g;
  j.s = s;
  j.out = y->data;
  const tfs_wino_filter *wf = tfs_conv_wino_for(&s->packed, &g, f->data);
  const tfs_conv_affine *aff = fconv_affine(s);
  if (wf) {
    const float *in = aff ? tfs_conv_affine_input(c, aff, x->data, x->nelems)
                          : x->data;
    if (in) fcp_wino(c, &j, in, wf);
    return;
  }
  tfs_conv_plan *plan = tfs_conv_plan_new(
      c, &g, x->data, aff, tfs_conv_packed_for(&s->packed, &g), f->data,
      j.in_store ? j.shift : NULL, NULL,
      j.in_store ? tfs_fused_store_relu(&s->e) : 0);
  if (!plan) return;
  j.plan = plan;
  int64_t per = s->pkh * g.ow, k = g.kh * g.kw * g.kc;
  tfs_threadpool *pool = tfs_kctx_intra_pool(c);
  j.group = fcp_group(per);
  int nt = tfs_threadpool_plan_threads(pool, g.n * j.poh,
                                       tfs_gemm_cost_ns(per, g.kn, k) + 1);
  if (fcp_share(&j, g.n, nt))
    fcp_whole(c, &j, pool);
  else
    tfs_kctx_parallel_for(c, g.n * ((j.poh + j.group - 1) / j.group),
                          tfs_gemm_cost_ns(j.group * per, g.kn, k) + 1,
                          fcp_tiles, &j);
  tfs_conv_plan_free(plan);
  if (__atomic_load_n(&j.failed, __ATOMIC_RELAXED))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
}

const tfs_kernel_def tfs_cpu_kernels_fused_conv[] = {
    {"_FusedConv2D", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16), fconv_prepare,
     fconv_compute, fconv_release, TFS_KERNEL_EXPENSIVE, NULL},
    {"_FusedDepthwiseConv2dNative", "CPU", "T",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_BFLOAT16), fdw_prepare,
     fconv_compute, fconv_release, TFS_KERNEL_EXPENSIVE, NULL},
    {"_TfsFusedConv2DMaxPool", "CPU", "T", TFS_DT_BIT(TFS_FLOAT), fcp_prepare,
     fcp_compute, fconv_release, TFS_KERNEL_EXPENSIVE, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

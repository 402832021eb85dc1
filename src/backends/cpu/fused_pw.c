/*
 * backends/cpu/fused_pw.c - the pointwise projection of the fused
 * depthwise blocks (fused_pw.h).
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "ops/conv2d_check.h"
#include "ops/fused_conv_dw.h"
#include "backends/cpu/fused_epilogue.h"
#include "backends/cpu/fused_pw.h"

static atomic_llong g_apart_calls;

int64_t tfs_fused_pw__apart_calls(void) {
  return atomic_load_explicit(&g_apart_calls, memory_order_relaxed);
}

/* The window of a 1x1 convolution with strides 1 and no padding. */
static int pw_window(tfs_kernel_init *ki, tfs_window *w) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value st, dl, pad;
  static const int64_t kOnes[4] = {1, 1, 1, 1};
  int rc = tfs_attr_list(&st, TFS_ATTR_INT, 4, kOnes) ||
           tfs_attrs_set(&a, "strides", &st) ||
           tfs_attr_list(&dl, TFS_ATTR_INT, 4, kOnes) ||
           tfs_attrs_set(&a, "dilations", &dl) ||
           tfs_attr_string(&pad, "VALID", 5) ||
           tfs_attrs_set(&a, "padding", &pad);
  if (rc) {
    tfs_attrs_clear(&a);
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  rc = tfs_window_parse(&a, TFS_WINDOW_CONV2D, "Conv2D", w, ki->st);
  tfs_attrs_clear(&a);
  if (rc)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  return 0;
}

int tfs_fused_dw_prepare(tfs_kernel_init *ki, tfs_window *w,
                         tfs_fused_epilogue *e) {
  tfs_attrs da;
  if (tfs_fused_conv_dw_attrs(ki->attrs, &da))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_kernel_init k2 = *ki;
  k2.attrs = &da;
  int rc = 0;
  if (tfs_window_parse(&da, TFS_WINDOW_DEPTHWISE, "DepthwiseConv2D", w,
                       ki->st))
    rc = tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                      tfs_status_message(ki->st));
  else
    rc = tfs_fused_parse(&k2, 1u << TFS_FE_BIAS, e);
  tfs_attrs_clear(&da);
  return rc;
}

int tfs_fused_pw_prepare(tfs_kernel_init *ki, int filter_input,
                         tfs_fused_pw_state *s) {
  memset(s, 0, sizeof *s);
  const tfs_attr_value *v = tfs_attrs_find(ki->attrs, "pw_fused_ops");
  int n = v && v->is_list && v->type == TFS_ATTR_STRING ? v->u.list.n : 0;
  const tfs_bytes *ops = n ? (const tfs_bytes *)v->u.list.v : NULL;
  int64_t nargs = 0;
  tfs_attrs_get_int(ki->attrs, "num_pw_args", &nargs);
  s->add = n == 2;
  if (n < 1 || n > 2 || strcmp(ops[0].ptr, "BiasAdd") != 0 ||
      (n == 2 && strcmp(ops[1].ptr, "Add") != 0) || nargs != n - 1 ||
      ki->ninputs != filter_input + 1 + n)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "%s's pw_fused_ops must be [BiasAdd] or [BiasAdd, "
                        "Add] with as many pw_args (num_pw_args %lld)",
                        ki->op ? ki->op->name : "the op", (long long)nargs);
  if (pw_window(ki, &s->w)) return -1;
  const tfs_tensor *f = ki->in_consts ? ki->in_consts[filter_input] : NULL;
  if (f && f->dtype == TFS_FLOAT && f->shape.rank == 4 &&
      f->shape.dims[0] == 1 && f->shape.dims[1] == 1 && f->nelems > 0 &&
      !(s->packed = tfs_gemm_pack_b_f32(0, f->shape.dims[2], f->shape.dims[3],
                                        f->data, f->shape.dims[3])))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

void tfs_fused_pw_clear(tfs_fused_pw_state *s) {
  tfs_gemm_packed_free(s->packed);
  s->packed = NULL;
}

tfs_tensor *tfs_fused_pw_begin(tfs_kernel_ctx *c, const tfs_fused_pw_state *s,
                               int filter_input, const tfs_shape *mid,
                               conv_geom *g, tfs_fused_pw *pw) {
  const tfs_tensor *pf = c->inputs[filter_input];
  const tfs_tensor *pb = c->inputs[filter_input + 1];
  if (tfs_conv2d_check_filter(&pf->shape, c->st) ||
      tfs_conv2d_check(&s->w, 0, mid, &pf->shape, g, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  if (g->kh != 1 || g->kw != 1 || g->groups != 1) {
    char got[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "pw_filter must be a 1x1 filter over the depthwise "
                  "output's %lld channels, got %s",
                  (long long)g->c,
                  tfs_shape_str(&pf->shape, got, sizeof got));
    return NULL;
  }
  if (tfs_fused_check_channels_of(c, pb, "pw_bias", g->oc, 0)) return NULL;
  tfs_shape os;
  tfs_conv_shape(&s->w, g->n, g->oh, g->ow, g->oc, &os);
  const tfs_tensor *a = s->add ? c->inputs[filter_input + 2] : NULL;
  if (a && (a->dtype != TFS_FLOAT || !tfs_shape_equal(&a->shape, &os))) {
    char want[TFS_SHAPE_STRLEN], got[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "the addend of a fused Add must be a float tensor of the "
                  "convolution's output shape %s, got %s %s",
                  tfs_shape_str(&os, want, sizeof want),
                  tfs_dtype_name(a->dtype),
                  tfs_shape_str(&a->shape, got, sizeof got));
    return NULL;
  }
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return NULL;
  const tfs_gemm_packed *b = s->packed;
  pw->b = b && tfs_gemm_packed_k(b) == g->kc && tfs_gemm_packed_n(b) == g->oc
              ? b
              : NULL;
  pw->filt = pf->data;
  pw->bias = pb->data;
  pw->add = a ? a->data : NULL;
  pw->out = y->data;
  pw->k = g->kc;
  pw->n = g->oc;
  return y;
}

int tfs_fused_pw_bands_ok(const tfs_fused_pw *pw, int64_t pixels) {
  return pw->b && tfs_gemm_indirect_ok(pw->b) && pixels > 4;
}

int tfs_fused_pw_rows(const tfs_fused_pw *pw, const float *rows, int64_t p0,
                      int64_t npix) {
  static const int64_t seg0 = 0; /* one segment: a pixel's k channels */
  tfs_gemm_rowmajor a = {rows, pw->k}; /* depthwise pixel r of the band */
  tfs_gemm_indirect src = {tfs_gemm_rowmajor_rows, NULL, &a, &seg0, 1, pw->k,
                           pw->bias, 0, pw->add ? pw->add + p0 * pw->n : NULL,
                           rows, pw->k};
  return tfs_gemm_f32_indirect(npix, &src, pw->b, pw->out + p0 * pw->n, pw->n,
                               NULL);
}

int tfs_fused_pw_apart(tfs_kernel_ctx *c, const tfs_fused_pw_state *s,
                       const conv_geom *g, const float *mid,
                       const tfs_fused_pw *pw) {
  atomic_fetch_add_explicit(&g_apart_calls, 1, memory_order_relaxed);
  return tfs_conv_f32_gemm(c, g, mid, NULL, pw->b ? &s->packed : NULL,
                           pw->filt, pw->out, pw->bias, pw->add, 0, NULL,
                           NULL);
}

/*
 * optimizer/remap_util.c - the remapper's rewrites: a matched contraction
 * chain into _FusedMatMul / _FusedConv2D / _FusedDepthwiseConv2dNative
 * (constant batch norms folded into the filter and a bias), and an
 * inference batch norm with constant statistics into Mul + Add.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/arith_weights.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

void tfs_remap__count(tfs_remap_stats *s, const char *what) {
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->what[i], what) == 0) {
      s->count[i]++;
      return;
    }
  if (s->n >= TFS_REMAP_MAX_PATTERNS) return;
  snprintf(s->what[s->n], sizeof s->what[0], "%s", what);
  s->count[s->n++] = 1;
}

int tfs_remap__replace(tfs_opt_ctx *c, int root, const char *op,
                       tfs_attrs *attrs, int nin, const tfs_oref *in, int a,
                       int b) {
  tfs_ograph *g = c->g;
  int cap = g->n[root].nctrl + (a >= 0 ? g->n[a].nctrl : 0) +
            (b >= 0 ? g->n[b].nctrl : 0) + 1;
  int *ctrl = tfs_malloc(sizeof(int) * (size_t)cap);
  if (!ctrl) {
    tfs_attrs_clear(attrs);
    TFS_OOM(c->st);
    return -1;
  }
  int n = 0;
  const int nodes[3] = {root, a, b};
  for (int i = 0; i < 3; i++) {
    if (nodes[i] < 0) continue;
    tfs_onode *x = &g->n[nodes[i]];
    for (int k = 0; k < x->nctrl; k++) ctrl[n++] = x->ctrl[k];
  }
  tfs_onode_spec spec = {.op = op,
                         .device = g->n[root].device,
                         .attrs = attrs,
                         .nin = nin,
                         .in = in,
                         .nctrl = n,
                         .ctrl = ctrl};
  int r = tfs_og__replace(g, root, &spec, c->st);
  tfs_free(ctrl);
  if (r < 0) return -1;
  if (a >= 0 && tfs_og__live(g, a)) tfs_og__kill_unused(g, a);
  if (b >= 0 && tfs_og__live(g, b)) tfs_og__kill_unused(g, b);
  return r;
}

static const tfs_tensor *bn_param(const tfs_ograph *g, int bn, int k) {
  const tfs_tensor *t = tfs_og__const_value(g, g->n[bn].in[k]);
  return t && t->dtype == TFS_FLOAT ? t : NULL;
}

int tfs_remap__bn_constant(const tfs_ograph *g, const tfs_remap_match *m) {
  for (int k = 1; k <= 4; k++)
    if (!bn_param(g, m->mid, k)) return 0;
  const tfs_tensor *f = tfs_og__const_value(g, g->n[m->contraction].in[1]);
  return f && f->dtype == TFS_FLOAT;
}

/* s = scale / sqrt(var + eps), o = offset - mean * s, for n channels. */
static int bn_scale_shift(const tfs_ograph *g, int bn, int64_t n, double *s,
                          double *o) {
  const tfs_tensor *sc = bn_param(g, bn, 1), *off = bn_param(g, bn, 2);
  const tfs_tensor *mean = bn_param(g, bn, 3), *var = bn_param(g, bn, 4);
  if (!sc || !off || !mean || !var || sc->nelems != n || off->nelems != n ||
      mean->nelems != n || var->nelems != n)
    return -1;
  float eps = 1e-4f;
  tfs_attrs_get_float(g->n[bn].attrs, "epsilon", &eps);
  for (int64_t j = 0; j < n; j++) {
    s[j] = ((const float *)sc->data)[j] /
           sqrt((double)((const float *)var->data)[j] + (double)eps);
    o[j] =
        ((const float *)off->data)[j] - ((const float *)mean->data)[j] * s[j];
  }
  return 0;
}

static int vector_const(tfs_opt_ctx *c, const double *v, int64_t n,
                        const tfs_shape *shape, const char *base,
                        const char *device) {
  tfs_tensor *t = tfs_opt__tensor(TFS_FLOAT, shape, c->st);
  if (!t) return -1;
  for (int64_t j = 0; j < n; j++) ((float *)t->data)[j] = (float)v[j];
  int k = tfs_opt__const(c, t, base, device);
  tfs_tensor_free(t);
  return k;
}

static const char *contraction_name(int op) {
  return op == TFS_REMAP_MATMUL ? "MatMul"
         : op == TFS_REMAP_CONV ? "Conv2D"
                                : "DepthwiseConv2dNative";
}

/* The fused node's attrs: the contraction's, the fused op list and the
 * epilogue's parameters. */
static int fused_attrs(const tfs_ograph *g, const tfs_remap_match *m,
                       int bn_args, tfs_attrs *a) {
  int q = m->contraction;
  tfs_attrs_init(a);
  if (m->op == TFS_REMAP_MATMUL) {
    int ta = 0, tb = 0;
    tfs_attrs_get_bool(g->n[q].attrs, "transpose_a", &ta);
    tfs_attrs_get_bool(g->n[q].attrs, "transpose_b", &tb);
    if (tfs_opt__set_type(a, "T", TFS_FLOAT) ||
        tfs_opt__set_bool(a, "transpose_a", ta) ||
        tfs_opt__set_bool(a, "transpose_b", tb))
      return -1;
  } else {
    if (tfs_attrs_copy(a, g->n[q].attrs)) return -1;
    if (m->op == TFS_REMAP_DEPTHWISE) tfs_attrs_remove(a, "explicit_paddings");
  }
  int nargs = bn_args ? 4 : 1;
  if (m->op == TFS_REMAP_CONV) {
    tfs_dtype targs[4] = {TFS_FLOAT, TFS_FLOAT, TFS_FLOAT, TFS_FLOAT};
    if (tfs_opt__set_types(a, "TArgs", targs, nargs)) return -1;
  }
  const char *ops[2] = {bn_args ? "FusedBatchNorm" : "BiasAdd", NULL};
  int nops = 1;
  if (m->act >= 0) ops[nops++] = g->n[m->act].def->name;
  float alpha = 0.2f, eps = 1e-4f;
  if (m->act >= 0) tfs_attrs_get_float(g->n[m->act].attrs, "alpha", &alpha);
  if (bn_args) tfs_attrs_get_float(g->n[m->mid].attrs, "epsilon", &eps);
  if (tfs_opt__set_int(a, "num_args", nargs) ||
      tfs_opt__set_strings(a, "fused_ops", ops, nops) ||
      tfs_opt__set_float(a, "leakyrelu_alpha", alpha) ||
      tfs_opt__set_float(a, "epsilon", eps))
    return -1;
  return 0;
}

/* Folds the constant batch norm into a new filter and bias. */
static int fold_bn(tfs_opt_ctx *c, const tfs_remap_match *m, tfs_oref *in) {
  tfs_ograph *g = c->g;
  int q = m->contraction;
  const tfs_tensor *f = tfs_og__const_value(g, g->n[q].in[1]);
  int64_t ch = tfs_arith__out_channels(g, q, f);
  if (ch <= 0) return 0;
  double *s = tfs_malloc(sizeof(double) * (size_t)(2 * ch + 1));
  if (!s) {
    TFS_OOM(c->st);
    return -1;
  }
  double *o = s + ch;
  if (bn_scale_shift(g, m->mid, ch, s, o)) {
    tfs_free(s);
    return 0;
  }
  tfs_tensor *f2 = tfs_arith__scaled_weights(g, q, f, s, ch, c->st);
  char *fb = tfs_asprintf("Remapper/%s_folded_filter", g->n[m->root].name);
  char *bb = tfs_asprintf("Remapper/%s_folded_bias", g->n[m->root].name);
  tfs_shape bs;
  tfs_shape_1d(&bs, ch);
  int kf = f2 && fb ? tfs_opt__const(c, f2, fb, g->n[q].device) : -1;
  int kb = kf >= 0 && bb ? vector_const(c, o, ch, &bs, bb, g->n[q].device) : -1;
  tfs_tensor_free(f2);
  tfs_free(fb);
  tfs_free(bb);
  tfs_free(s);
  if (kf < 0 || kb < 0) {
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  in[1] = (tfs_oref){kf, 0};
  in[2] = (tfs_oref){kb, 0};
  return 1;
}

/* TensorFlow runs _FusedDepthwiseConv2dNative only in oneDNN builds: for
 * a loadable graph a constant batch norm after a depthwise convolution is
 * folded into its filter and a plain BiasAdd (the activation stays). */
static int fold_bn_plain(tfs_opt_ctx *c, const tfs_remap_match *m,
                         tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  int q = m->contraction, mid = m->mid;
  if (m->kind != TFS_REMAP_BN || !tfs_remap__bn_constant(g, m)) return 0;
  tfs_oref in[3] = {g->n[q].in[0], g->n[q].in[1]};
  int folded = fold_bn(c, m, in);
  if (folded <= 0) return folded;
  tfs_attrs qa, ba;
  tfs_attrs_init(&ba);
  int nchw = tfs_opt__attr_is(g, q, "data_format", "NCHW");
  if (tfs_opt__copy_attrs(g, q, &qa) ||
      tfs_opt__set_type(&ba, "T", TFS_FLOAT) ||
      tfs_opt__set_string(&ba, "data_format", nchw ? "NCHW" : "NHWC")) {
    tfs_attrs_clear(&qa);
    tfs_attrs_clear(&ba);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref bias = in[2];
  int old_filter = g->n[q].in[1].node;
  int nq = tfs_opt__rebuild(c, q, g->n[q].def->name, &qa, 2, in);
  if (nq < 0) {
    tfs_attrs_clear(&ba);
    return -1;
  }
  if (tfs_og__live(g, old_filter)) tfs_og__kill_unused(g, old_filter);
  tfs_oref bin[2] = {{nq, 0}, bias};
  int params[4];
  for (int k = 0; k < 4; k++) params[k] = g->n[mid].in[1 + k].node;
  if (tfs_opt__rebuild(c, mid, "BiasAdd", &ba, 2, bin) < 0) return -1;
  for (int k = 0; k < 4; k++)
    if (tfs_og__live(g, params[k])) tfs_og__kill_unused(g, params[k]);
  tfs_remap__count(stats,
                   "DepthwiseConv2dNative+FusedBatchNormV3 -> "
                   "DepthwiseConv2dNative+BiasAdd (batch norm folded)");
  return 1;
}

int tfs_remap__fuse_contraction(tfs_opt_ctx *c, const tfs_remap_match *m,
                                tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  int q = m->contraction, mid = m->mid;
  if (m->op == TFS_REMAP_DEPTHWISE && c->cfg->tf_compatible)
    return fold_bn_plain(c, m, stats);
  tfs_oref in[6] = {g->n[q].in[0], g->n[q].in[1]};
  int nin = 3, bn_args = 0, folded = 0;
  if (m->kind == TFS_REMAP_BIAS) {
    in[2] = g->n[mid].in[1];
  } else {
    folded = tfs_remap__bn_constant(g, m) ? fold_bn(c, m, in) : 0;
    if (folded < 0) return -1;
    if (!folded) {
      if (m->op != TFS_REMAP_CONV) return 0;
      bn_args = 1;
      nin = 6;
      for (int k = 1; k <= 4; k++) in[1 + k] = g->n[mid].in[k];
    }
  }
  tfs_attrs a;
  if (fused_attrs(g, m, bn_args, &a)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  const char *fused = m->op == TFS_REMAP_MATMUL ? "_FusedMatMul"
                      : m->op == TFS_REMAP_CONV ? "_FusedConv2D"
                                                : "_FusedDepthwiseConv2dNative";
  char what[112];
  snprintf(what, sizeof what, "%s+%s%s%s -> %s%s", contraction_name(m->op),
           g->n[mid].def->name, m->act >= 0 ? "+" : "",
           m->act >= 0 ? g->n[m->act].def->name : "", fused,
           folded ? " (batch norm folded into the filter)" : "");
  int inner = m->root == mid ? -1 : mid;
  if (tfs_remap__replace(c, m->root, fused, &a, nin, in, inner, q) < 0)
    return -1;
  tfs_remap__count(stats, what);
  return 1;
}

int tfs_remap__decompose_bn(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const tfs_shape *xs = tfs_og__shape(g, n->in[0]);
  int nchw = tfs_opt__attr_is(g, v, "data_format", "NCHW");
  if (n->out_types[0] != TFS_FLOAT || xs->rank != 4) return 0;
  int64_t ch = xs->dims[nchw ? 1 : 3];
  const tfs_tensor *sc = bn_param(g, v, 1);
  if (!sc || (ch >= 0 && sc->nelems != ch)) return 0;
  ch = sc->nelems;
  double *s = tfs_malloc(sizeof(double) * (size_t)(2 * ch + 1));
  if (!s) {
    TFS_OOM(c->st);
    return -1;
  }
  if (bn_scale_shift(g, v, ch, s, s + ch)) {
    tfs_free(s);
    return 0;
  }
  tfs_shape ps;
  if (nchw) {
    ps.rank = 3;
    ps.dims[0] = ch;
    ps.dims[1] = ps.dims[2] = 1;
  } else {
    tfs_shape_1d(&ps, ch);
  }
  char *sb = tfs_asprintf("Remapper/%s_scale", n->name);
  char *ob = tfs_asprintf("Remapper/%s_offset", n->name);
  char *mb = tfs_asprintf("Remapper/%s_mul", n->name);
  const char *device = n->device;
  int ks = sb ? vector_const(c, s, ch, &ps, sb, device) : -1;
  int ko = ks >= 0 && ob ? vector_const(c, s + ch, ch, &ps, ob, device) : -1;
  tfs_free(s);
  tfs_attrs ma, aa;
  tfs_attrs_init(&ma);
  tfs_attrs_init(&aa);
  int km = -1;
  if (ko >= 0 && mb && !tfs_opt__set_type(&ma, "T", TFS_FLOAT) &&
      !tfs_opt__set_type(&aa, "T", TFS_FLOAT)) {
    tfs_oref min[2] = {g->n[v].in[0], {ks, 0}};
    tfs_onode_spec spec = {.base = mb,
                           .op = "Mul",
                           .device = device,
                           .attrs = &ma,
                           .nin = 2,
                           .in = min};
    km = tfs_og__add(g, &spec, c->st);
  }
  tfs_free(sb);
  tfs_free(ob);
  tfs_free(mb);
  if (km < 0) {
    tfs_attrs_clear(&ma);
    tfs_attrs_clear(&aa);
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  int params[4];
  for (int k = 0; k < 4; k++) params[k] = g->n[v].in[1 + k].node;
  tfs_oref ain[2] = {{km, 0}, {ko, 0}};
  if (tfs_remap__replace(c, v, "AddV2", &aa, 2, ain, -1, -1) < 0) return -1;
  for (int k = 0; k < 4; k++)
    if (tfs_og__live(g, params[k])) tfs_og__kill_unused(g, params[k]);
  tfs_remap__count(stats, "inference FusedBatchNorm -> Mul + Add");
  return 1;
}

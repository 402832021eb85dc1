/*
 * optimizer/remap_util.c - the remapper's rewrites: a matched contraction
 * chain into _FusedMatMul / _FusedConv2D / _FusedDepthwiseConv2dNative
 * (constant batch norms folded into the filter and a bias), an inference
 * batch norm with constant statistics into Mul + Add, and the matching of
 * activations written as subgraphs (swish; GELU, exact and tanh, as Keras
 * 3 and tf.nn write them; hard-swish, as Keras's MobileNetV3 writes it).
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
  /* the fused node stands for the chain, in data-flow order: the
   * contraction b, the inner node a, then root (appended by replace) */
  int from[2], nfrom = 0;
  if (b >= 0) from[nfrom++] = b;
  if (a >= 0) from[nfrom++] = a;
  tfs_onode_spec spec = {.op = op,
                         .device = g->n[root].device,
                         .attrs = attrs,
                         .nin = nin,
                         .in = in,
                         .nctrl = n,
                         .ctrl = ctrl,
                         .norig_from = nfrom,
                         .orig_from = from};
  int r = tfs_og__replace(g, root, &spec, c->st);
  tfs_free(ctrl);
  if (r < 0) return -1;
  if (a >= 0 && tfs_og__live(g, a)) tfs_og__kill_unused(g, a);
  if (b >= 0 && tfs_og__live(g, b)) tfs_og__kill_unused(g, b);
  return r;
}

int tfs_remap__replace_if_kernel(tfs_opt_ctx *c, int root, const char *op,
                                 tfs_attrs *attrs, int nin,
                                 const tfs_oref *in, int a, int b) {
  const tfs_op_def *def = tfs_op_lookup(op);
  const tfs_onode *r = &c->g->n[root];
  if (!def || !tfs_opt__has_kernel(r->device, def, attrs, r->name)) {
    tfs_attrs_clear(attrs);
    return -2;
  }
  return tfs_remap__replace(c, root, op, attrs, nin, in, a, b);
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
    /* float, or bfloat16 after auto mixed precision */
    tfs_dtype t = tfs_og__type_attr(g, q, "T");
    if (tfs_opt__set_type(a, "T", t == TFS_BFLOAT16 ? t : TFS_FLOAT) ||
        tfs_opt__set_bool(a, "transpose_a", ta) ||
        tfs_opt__set_bool(a, "transpose_b", tb))
      return -1;
  } else {
    if (tfs_attrs_copy(a, g->n[q].attrs)) return -1;
    /* TensorFlow's _FusedDepthwiseConv2dNative has no explicit_paddings;
     * tfsess's takes them (a Pad folded in by the arithmetic pass) */
    if (m->op == TFS_REMAP_DEPTHWISE &&
        !tfs_opt__attr_is(g, q, "padding", "EXPLICIT"))
      tfs_attrs_remove(a, "explicit_paddings");
  }
  int nargs = bn_args ? 4 : 1;
  if (m->op == TFS_REMAP_CONV) {
    /* a bias keeps its type (bfloat16 after auto mixed precision); a
     * batch norm's arguments and a folded bias are float */
    tfs_dtype at = bn_args || m->kind != TFS_REMAP_BIAS
                       ? TFS_FLOAT
                       : tfs_og__dtype(g, g->n[m->mid].in[1]);
    tfs_dtype targs[4] = {at, at, at, at};
    if (tfs_opt__set_types(a, "TArgs", targs, nargs)) return -1;
  }
  const char *ops[2] = {bn_args ? "FusedBatchNorm" : "BiasAdd", NULL};
  int nops = 1;
  if (m->act_op) ops[nops++] = m->act_op;
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

static const char *fused_op_name(int op) {
  return op == TFS_REMAP_MATMUL ? "_FusedMatMul"
         : op == TFS_REMAP_CONV ? "_FusedConv2D"
                                : "_FusedDepthwiseConv2dNative";
}

/* Whether the fused kernel implements an activation matched as a
 * subgraph: its prepare is asked with the bias form of the node (a
 * constant batch norm becomes a bias). */
static int composite_supported(tfs_opt_ctx *c, const tfs_remap_match *m) {
  const tfs_ograph *g = c->g;
  int q = m->contraction;
  tfs_attrs a;
  if (fused_attrs(g, m, 0, &a)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  tfs_oref in[3] = {g->n[q].in[0], g->n[q].in[1], g->n[m->mid].in[1]};
  const tfs_onode *r = &g->n[m->root];
  int ok = tfs_opt__kernel_accepts(g, r->device, fused_op_name(m->op), &a, 3,
                                   in, r->out_types[0], &r->out_shapes[0],
                                   r->name);
  tfs_attrs_clear(&a);
  return ok;
}

int tfs_remap__fuse_contraction(tfs_opt_ctx *c, const tfs_remap_match *m,
                                tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  int q = m->contraction, mid = m->mid;
  if (m->op == TFS_REMAP_DEPTHWISE && c->cfg->tf_compatible)
    return fold_bn_plain(c, m, stats);
  if (m->composite &&
      ((m->kind == TFS_REMAP_BN && !tfs_remap__bn_constant(g, m)) ||
       !composite_supported(c, m)))
    return 0;
  tfs_oref in[6] = {g->n[q].in[0], g->n[q].in[1]};
  int nin = 3, bn_args = 0, folded = 0;
  if (m->kind == TFS_REMAP_BIAS) {
    in[2] = g->n[mid].in[1];
  } else {
    folded = tfs_remap__bn_constant(g, m) ? fold_bn(c, m, in) : 0;
    if (folded < 0) return -1;
    if (!folded) {
      if (m->op != TFS_REMAP_CONV || m->composite) return 0;
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
  const char *fused = fused_op_name(m->op);
  char what[112];
  snprintf(what, sizeof what, "%s+%s%s%s -> %s%s", contraction_name(m->op),
           g->n[mid].def->name, m->act_op ? "+" : "",
           m->act_op ? m->act_op : "", fused,
           folded ? " (batch norm folded into the filter)" : "");
  int inner = m->root == mid ? -1 : mid;
  int r = m->composite
              ? tfs_remap__replace_act(c, m->composite, fused, &a, nin, in,
                                       inner, q)
              : tfs_remap__replace(c, m->root, fused, &a, nin, in, inner, q);
  if (r < 0) return -1;
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

/* ---- activation subgraphs -------------------------------------------------
 */

#define ACT_MAX_LEAVES 4

static const double kSqrtHalf = 0.70710678118654752440;      /* 1 / sqrt(2) */
static const double kSqrtTwoOverPi = 0.79788456080286535588; /* sqrt(2/pi) */
static const double kGeluCube = 0.044715;

/* The state of one match: the subgraph's root, its input once known
 * (node -1 before), the nodes collected so far. */
typedef struct act_walk {
  const tfs_ograph *g;
  int root;
  tfs_oref x;
  tfs_remap_act *a;
  int bad; /* too many nodes or leaves: no match */
} act_walk;

/* A product: the constant k times x to the power nx times the leaves
 * (factors that are neither constants nor x). */
typedef struct act_term {
  double k;
  int nx, nleaf;
  tfs_oref leaf[ACT_MAX_LEAVES];
} act_term;

static int same_src(tfs_oref a, tfs_oref b) {
  return a.node == b.node && a.port == b.port;
}

/* v is constant `want` as the root's type holds it: within 1e-6
 * relative in float, within one rounding (2^-8 relative) in bfloat16,
 * whose constants (1/6, sqrt(2/pi), 0.044715) auto mixed precision
 * rounded; the fused activation then computes with the exact constants
 * in float. */
static int near(const act_walk *w, double v, double want) {
  double tol = w->g->n[w->root].out_types[0] == TFS_BFLOAT16 ? 0x1p-8 : 1e-6;
  return fabs(v - want) <= tol * fabs(want);
}

/* A constant with every element equal (in *v) that does not broadcast
 * the root's output to a bigger shape. */
static int act_const(const act_walk *w, tfs_oref r, double *v) {
  const tfs_ograph *g = w->g;
  const tfs_tensor *t = tfs_og__const_value(g, r);
  if (!t || t->nelems < 1 || t->dtype != g->n[w->root].out_types[0]) return 0;
  *v = tfs_opt__get(t, 0);
  return tfs_opt__tensor_all(t, *v) &&
         tfs_opt__broadcasts_into(&t->shape, &g->n[w->root].out_shapes[0]);
}

/* Node p can be an inner node: used once, removable, no control inputs,
 * the root's dtype and device. */
static int inner_ok(const act_walk *w, int p) {
  const tfs_ograph *g = w->g;
  const tfs_onode *n = &g->n[p];
  return tfs_opt__single_use(g, p) && n->nctrl == 0 && n->nout >= 1 &&
         n->out_types[0] == g->n[w->root].out_types[0] &&
         strcmp(n->device, g->n[w->root].device) == 0;
}

static void add_inner(act_walk *w, int p) {
  tfs_remap_act *a = w->a;
  if (a->ninner >= TFS_REMAP_MAX_INNER) {
    w->bad = 1;
    return;
  }
  a->inner[a->ninner++] = p;
}

/* Multiplies *t by source r raised to the power e, looking through Mul,
 * Neg, Square, division by a constant and Pow by 2 or 3 on the way. */
static void walk(act_walk *w, tfs_oref r, int e, act_term *t) {
  const tfs_ograph *g = w->g;
  double c;
  if (w->bad) return;
  if (w->x.node >= 0 && same_src(r, w->x)) {
    t->nx += e;
    return;
  }
  if (act_const(w, r, &c)) {
    t->k *= pow(c, e);
    return;
  }
  int p = r.node;
  const tfs_onode *n = &g->n[p];
  if (r.port == 0 && !(n->flags & TFS_ON_FED) && inner_ok(w, p)) {
    const char *op = n->def->name;
    int div = strcmp(op, "RealDiv") == 0 || strcmp(op, "Div") == 0;
    if (strcmp(op, "Mul") == 0 && n->nin == 2) {
      add_inner(w, p);
      walk(w, n->in[0], e, t);
      walk(w, n->in[1], e, t);
      return;
    }
    if (strcmp(op, "Neg") == 0 || strcmp(op, "Square") == 0) {
      add_inner(w, p);
      if (op[0] == 'N' && e % 2) t->k = -t->k;
      walk(w, n->in[0], op[0] == 'N' ? e : 2 * e, t);
      return;
    }
    if (div && n->nin == 2 && act_const(w, n->in[1], &c) && c != 0) {
      add_inner(w, p);
      t->k /= pow(c, e);
      walk(w, n->in[0], e, t);
      return;
    }
    if (strcmp(op, "Pow") == 0 && act_const(w, n->in[1], &c) &&
        (c == 2 || c == 3)) {
      add_inner(w, p);
      walk(w, n->in[0], e * (int)c, t);
      return;
    }
  }
  if (e != 1 || t->nleaf >= ACT_MAX_LEAVES) {
    w->bad = 1;
    return;
  }
  t->leaf[t->nleaf++] = r;
}

/* Source r is exactly k * x^nx. */
static int is_power(act_walk *w, tfs_oref r, double k, int nx) {
  act_term t = {.k = 1};
  walk(w, r, 1, &t);
  return !w->bad && t.nleaf == 0 && t.nx == nx && near(w, t.k, k);
}

/* Source r is an inner node of type op (one of two when op2 is set). */
static int inner_op(act_walk *w, tfs_oref r, const char *op, const char *op2) {
  if (r.port != 0 || (w->g->n[r.node].flags & TFS_ON_FED) ||
      !inner_ok(w, r.node))
    return 0;
  return tfs_og__is(w->g, r.node, op) || (op2 && tfs_og__is(w->g, r.node, op2));
}

/* Source r is an inner Add/AddV2 of the constant `want` and another
 * source, returned in *other. */
static int add_of_const(act_walk *w, tfs_oref r, double want, tfs_oref *other) {
  if (!inner_op(w, r, "AddV2", "Add")) return 0;
  const tfs_onode *n = &w->g->n[r.node];
  for (int k = 0; k < 2; k++) {
    double c;
    if (act_const(w, n->in[k], &c) && near(w, c, want)) {
      *other = n->in[1 - k];
      add_inner(w, r.node);
      return 1;
    }
  }
  return 0;
}

/* sqrt(2/pi) * (x + 0.044715 * x^3) */
static int tanh_argument(act_walk *w, tfs_oref r) {
  act_term t = {.k = 1};
  walk(w, r, 1, &t);
  if (w->bad || t.nx != 0 || t.nleaf != 1 || !near(w, t.k, kSqrtTwoOverPi) ||
      !inner_op(w, t.leaf[0], "AddV2", "Add"))
    return 0;
  const tfs_onode *s = &w->g->n[t.leaf[0].node];
  add_inner(w, t.leaf[0].node);
  for (int k = 0; k < 2; k++)
    if (same_src(s->in[k], w->x))
      return is_power(w, s->in[1 - k], kGeluCube, 3);
  return 0;
}

/* The factor f of 0.5 * x * f: Erfc(-x / sqrt(2)), 1 + Erf(x / sqrt(2))
 * or 1 + Tanh(...). */
static int gelu_factor(act_walk *w, tfs_oref f) {
  const tfs_ograph *g = w->g;
  tfs_oref u;
  if (inner_op(w, f, "Erfc", NULL)) {
    add_inner(w, f.node);
    return is_power(w, g->n[f.node].in[0], -kSqrtHalf, 1)
               ? TFS_REMAP_ACT_GELU_EXACT
               : 0;
  }
  if (!add_of_const(w, f, 1.0, &u)) return 0;
  if (inner_op(w, u, "Erf", NULL)) {
    add_inner(w, u.node);
    return is_power(w, g->n[u.node].in[0], kSqrtHalf, 1)
               ? TFS_REMAP_ACT_GELU_EXACT
               : 0;
  }
  if (inner_op(w, u, "Tanh", NULL)) {
    add_inner(w, u.node);
    return tanh_argument(w, g->n[u.node].in[0]) ? TFS_REMAP_ACT_GELU_TANH : 0;
  }
  return 0;
}

/* The factor f of x * f / 6: Relu6(x + 3). */
static int hard_swish_factor(act_walk *w, tfs_oref f) {
  tfs_oref u;
  if (!inner_op(w, f, "Relu6", NULL)) return 0;
  add_inner(w, f.node);
  return add_of_const(w, w->g->n[f.node].in[0], 3.0, &u) &&
                 same_src(u, w->x)
             ? TFS_REMAP_ACT_HARD_SWISH
             : 0;
}

/* The root's product t is k * x * f: tries each leaf as f. */
static int match_factor(act_walk *w, const act_term *t) {
  int swish = near(w, t->k, 1.0), gelu = near(w, t->k, 0.5);
  int hard = near(w, t->k, 1.0 / 6.0);
  if (t->nx != 0 || t->nleaf != 2 || (!swish && !gelu && !hard)) return 0;
  int mark = w->a->ninner;
  for (int i = 0; i < 2; i++) {
    tfs_oref f = t->leaf[i];
    w->x = t->leaf[1 - i];
    int kind = 0;
    if (swish && inner_op(w, f, "Sigmoid", NULL)) {
      add_inner(w, f.node);
      if (is_power(w, w->g->n[f.node].in[0], 1.0, 1))
        kind = TFS_REMAP_ACT_SWISH;
    } else if (gelu) {
      kind = gelu_factor(w, f);
    } else if (hard) {
      kind = hard_swish_factor(w, f);
    }
    if (kind && !w->bad) return kind;
    w->a->ninner = mark;
    w->bad = 0;
    w->x = (tfs_oref){-1, 0};
  }
  return 0;
}

/* IdentityN node i can end a subgraph that ends at its input 0: not
 * preserved, only output 0 read, input 0 an inner Mul on its device. */
static int identity_n_absorbs(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  if (!tfs_og__is(g, i, "IdentityN") || n->nin < 1 ||
      (n->flags & TFS_ON_PRESERVED) || !tfs_og__replaceable(g, i) ||
      n->in[0].port != 0 || !tfs_og__port_uses(g, i, 0))
    return 0;
  for (int p = 1; p < n->nout; p++)
    if (tfs_og__port_uses(g, i, p)) return 0;
  int m = n->in[0].node;
  return tfs_og__is(g, m, "Mul") && tfs_opt__single_use(g, m) &&
         strcmp(g->n[m].device, n->device) == 0;
}

int tfs_remap__match_act(const tfs_ograph *g, int root, tfs_remap_act *a) {
  memset(a, 0, sizeof(*a));
  a->root = root;
  const tfs_onode *n = &g->n[root];
  /* float, or bfloat16 after auto mixed precision */
  if (!tfs_og__replaceable(g, root) || n->nout < 1 ||
      (n->out_types[0] != TFS_FLOAT && n->out_types[0] != TFS_BFLOAT16))
    return 0;
  act_walk w = {.g = g, .root = root, .x = {-1, 0}, .a = a};
  int start = root;
  if (tfs_og__is(g, root, "IdentityN")) {
    if (!identity_n_absorbs(g, root)) return 0;
    start = n->in[0].node;
    if (!inner_ok(&w, start)) return 0;
    add_inner(&w, start);
  } else if (tfs_opt__single_use(g, root) && n->fan[0].port == 0 &&
             identity_n_absorbs(g, n->fan[0].node)) {
    return 0; /* the IdentityN below ends the subgraph */
  }
  if (!tfs_og__is(g, start, "Mul") || g->n[start].nin != 2) return 0;
  act_term t = {.k = 1};
  walk(&w, g->n[start].in[0], 1, &t);
  walk(&w, g->n[start].in[1], 1, &t);
  a->kind = w.bad ? 0 : match_factor(&w, &t);
  if (!a->kind) return 0;
  a->x = w.x;
  /* x's shape may be known better than the root's, which was inferred
   * before a rewrite above it */
  const tfs_shape *xs = tfs_og__shape(g, a->x);
  if (tfs_og__dtype(g, a->x) != n->out_types[0] ||
      xs->rank != n->out_shapes[0].rank ||
      !tfs_shape_is_compatible(&n->out_shapes[0], xs))
    return 0;
  for (int i = -1; i < a->ninner; i++) {
    const tfs_onode *m = &g->n[i < 0 ? root : a->inner[i]];
    for (int k = 0; k < m->nin; k++) a->x_uses += same_src(m->in[k], a->x);
  }
  return 1;
}

const char *tfs_remap__act_fused_name(int kind) {
  return kind == TFS_REMAP_ACT_SWISH        ? "_MklSwish"
         : kind == TFS_REMAP_ACT_GELU_EXACT ? "GeluExact"
         : kind == TFS_REMAP_ACT_HARD_SWISH ? "_TfsHardSwish"
                                            : "GeluApproximate";
}

int tfs_remap__replace_act(tfs_opt_ctx *c, const tfs_remap_act *a,
                           const char *op, tfs_attrs *attrs, int nin,
                           const tfs_oref *in, int b1, int b2) {
  tfs_ograph *g = c->g;
  const tfs_onode *r = &g->n[a->root];
  int nr = r->nin;
  int *rin = tfs_malloc(sizeof(int) * (size_t)(nr + 1));
  if (!rin) {
    tfs_attrs_clear(attrs);
    TFS_OOM(c->st);
    return -1;
  }
  for (int k = 0; k < nr; k++) rin[k] = r->in[k].node;
  int k = tfs_remap__replace(c, a->root, op, attrs, nin, in, b1, b2);
  if (k >= 0 && tfs_remap__drop_inner(c, k, a->inner, a->ninner)) k = -1;
  if (k >= 0) {
    for (int i = 0; i < nr; i++)
      if (tfs_og__live(g, rin[i])) tfs_og__kill_unused(g, rin[i]);
  }
  tfs_free(rin);
  return k;
}

int tfs_remap__bmm_attrs(tfs_attrs *a, int adj_x, int adj_y, int scaled) {
  const char *ops[1] = {"Mul"};
  return tfs_opt__set_type(a, "T", TFS_FLOAT) ||
                 tfs_opt__set_bool(a, "adj_x", adj_x) ||
                 tfs_opt__set_bool(a, "adj_y", adj_y) ||
                 tfs_opt__set_int(a, "num_args", scaled) ||
                 tfs_opt__set_strings(a, "fused_ops", ops, scaled)
             ? -1
             : 0;
}

int tfs_remap__inner_binary(const tfs_ograph *g, int p, const char *device) {
  return tfs_remap__inner_binary_of(g, p, device, TFS_FLOAT);
}

int tfs_remap__inner_binary_of(const tfs_ograph *g, int p, const char *device,
                               tfs_dtype t) {
  return p >= 0 && g->n[p].nin == 2 && g->n[p].nout >= 1 &&
         g->n[p].out_types[0] == t && tfs_og__removable(g, p) &&
         g->n[p].nctrl == 0 && g->n[p].ncfan == 0 &&
         strcmp(g->n[p].device, device) == 0 && g->n[p].nfan == 1 &&
         tfs_og__port_uses(g, p, 0) == 1;
}

int tfs_remap__drop_inner(tfs_opt_ctx *c, int r, const int *inner, int n) {
  tfs_ograph *g = c->g;
  for (int i = 0; i < n; i++)
    if (inner[i] >= 0 && tfs_og__live(g, inner[i]))
      tfs_og__kill_unused(g, inner[i]);
  /* the subgraph's nodes that went are computed by the fused node */
  for (int i = 0; i < n; i++)
    if (inner[i] >= 0 && !tfs_og__live(g, inner[i]) &&
        tfs_og__add_origins(g, r, inner[i])) {
      TFS_OOM(c->st);
      return -1;
    }
  return 0;
}

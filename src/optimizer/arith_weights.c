/*
 * optimizer/arith_weights.c - folding constant scales into contraction
 * weights: Mul(MatMul(x, W), c) -> MatMul(x, W*c) with c a scalar or one
 * value per output channel (likewise Conv2D, DepthwiseConv2dNative, and
 * RealDiv by c), and Conv2D(Mul(x, s), W) -> Conv2D(x, W*s) for a scalar
 * s.  Weights must be float, double or bfloat16 constants used only there
 * (bfloat16: auto mixed precision's convolutions and MatMuls; the scaled
 * weights are computed in double and rounded once).
 *
 * The affine maps an inference batch norm leaves after constant folding
 * (Keras 3 writes BatchNormalization as x * C1 + C2):
 *   Mul(BiasAdd(C(x, W), b), s)   -> BiasAdd(C(x, W*s), b*s)
 *   Add/AddV2(C(x, W), t)         -> BiasAdd(C(x, W), t)
 *   Add/AddV2(BiasAdd(y, b), t)   -> BiasAdd(y, b + t)
 *   Sub(..., t)                   -> the same with -t
 * s and t: scalars or one value per channel along the last dimension
 * (NHWC; NCHW takes scalars only), of the node's type, not changing its
 * shape; C a MatMul, Conv2D or DepthwiseConv2dNative.  The remapper then
 * fuses C + BiasAdd + activation.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/status.h"
#include "optimizer/arith_weights.h"
#include "optimizer/opt_util.h"

static int is_contraction(const tfs_ograph *g, int p) {
  const char *op = g->n[p].def->name;
  return strcmp(op, "MatMul") == 0 || strcmp(op, "Conv2D") == 0 ||
         strcmp(op, "DepthwiseConv2dNative") == 0;
}

/* The types whose weights a fold rewrites. */
static int foldable(tfs_dtype dt) {
  return dt == TFS_FLOAT || dt == TFS_DOUBLE || dt == TFS_BFLOAT16;
}

static int nchw(const tfs_ograph *g, int p) {
  return tfs_opt__attr_is(g, p, "data_format", "NCHW");
}

int64_t tfs_arith__out_channels(const tfs_ograph *g, int p,
                                const tfs_tensor *w) {
  const char *op = g->n[p].def->name;
  if (strcmp(op, "MatMul") == 0) {
    int tb = 0;
    if (w->shape.rank != 2) return -1;
    tfs_attrs_get_bool(g->n[p].attrs, "transpose_b", &tb);
    return w->shape.dims[tb ? 0 : 1];
  }
  if (w->shape.rank != 4) return -1;
  if (strcmp(op, "Conv2D") == 0) return w->shape.dims[3];
  if (strcmp(op, "DepthwiseConv2dNative") == 0)
    return w->shape.dims[2] * w->shape.dims[3];
  return -1;
}

tfs_tensor *tfs_arith__scaled_weights(const tfs_ograph *g, int p,
                                      const tfs_tensor *w, const double *scale,
                                      int64_t n, tfs_status *st) {
  int64_t ch = tfs_arith__out_channels(g, p, w);
  if (ch <= 0 || (n != 1 && n != ch) || !foldable(w->dtype)) {
    tfs_status_set(st, TFS_INTERNAL, "optimizer: unsupported weights");
    return NULL;
  }
  tfs_tensor *t = tfs_opt__tensor(w->dtype, &w->shape, st);
  if (!t) return NULL;
  int tb = 0;
  if (strcmp(g->n[p].def->name, "MatMul") == 0)
    tfs_attrs_get_bool(g->n[p].attrs, "transpose_b", &tb);
  /* element e's channel: its column (e % ch), or its row (e / inner)
   * when the MatMul weights are transposed; walked as rows and columns */
  const int64_t total = w->nelems, inner = tb ? total / ch : ch;
  const int64_t rows = total / inner;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t i = 0; i < inner; i++) {
      const int64_t e = r * inner + i;
      const double sc = scale[n == 1 ? 0 : tb ? r : i];
      if (w->dtype == TFS_FLOAT)
        ((float *)t->data)[e] = (float)(((const float *)w->data)[e] * sc);
      else if (w->dtype == TFS_DOUBLE)
        ((double *)t->data)[e] = ((const double *)w->data)[e] * sc;
      else
        ((uint16_t *)t->data)[e] = tfs_float_to_bf16(
            (float)(tfs_bf16_to_float(((const uint16_t *)w->data)[e]) * sc));
    }
  return t;
}

/* Rebuilds v as contraction `p`'s op with inputs (x, W'), under v's name,
 * W' a Const named "ArithmeticOptimizer/FoldMulIntoWeights_<v>" (or,
 * tf_name, constant folding's "<p>/merged_input"); returns the new node's
 * index, or -1 with an error. */
static int rebuild_as(tfs_opt_ctx *c, int v, int p, tfs_oref x,
                      tfs_tensor *w2, int tf_name) {
  tfs_ograph *g = c->g;
  char *base =
      tf_name ? tfs_asprintf("%s/merged_input", g->n[p].name)
              : tfs_asprintf("ArithmeticOptimizer/FoldMulIntoWeights_%s",
                             g->n[v].name);
  int k = base ? tfs_opt__const(c, w2, base, g->n[p].device) : -1;
  tfs_free(base);
  if (k < 0) {
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, p, &a)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {x, {k, 0}};
  const char *op = g->n[p].def->name;
  return tfs_opt__rebuild(c, v, op, &a, 2, in);
}

/* After a fold: node r (rebuilt) stands for the nodes in gone[] that
 * went, and r's new weights (input 1) for the old weights and scale
 * constants in wgone[] that went.  0, or -1 on OOM. */
static int absorb_folded(tfs_opt_ctx *c, int r, const int *gone, int ngone,
                         const int *wgone, int nwgone) {
  int w = c->g->n[r].nin > 1 ? c->g->n[r].in[1].node : -1;
  for (int i = 0; i < ngone; i++)
    if (tfs_opt__absorb(c, r, gone[i])) return -1;
  for (int i = 0; w >= 0 && i < nwgone; i++)
    if (tfs_opt__absorb(c, w, wgone[i])) return -1;
  return 0;
}

/* Scale values of constant t for n channels (a scalar, or n values along
 * the last dimension, other dims 1); 0 entries of a divisor refuse. */
static int read_scale(const tfs_tensor *t, int64_t n, int divide, double *out,
                      int64_t *count) {
  if (t->nelems == 1) {
    *count = 1;
  } else {
    if (t->nelems != n || t->shape.rank < 1 ||
        t->shape.dims[t->shape.rank - 1] != n)
      return -1;
    *count = n;
  }
  for (int64_t j = 0; j < *count; j++) {
    double v = tfs_opt__get(t, j);
    if (divide) {
      if (v == 0) return -1;
      v = 1.0 / v;
    }
    out[j] = v;
  }
  return 0;
}

/* Mul(Contraction(x, W), c) or RealDiv(Contraction(x, W), c); push_down:
 * constant folding's form, Mul of a Conv2D only. */
static int fold_output_scale(tfs_opt_ctx *c, int v, int push_down) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  int mul = strcmp(op, "Mul") == 0;
  int div = !push_down &&
            (strcmp(op, "RealDiv") == 0 || strcmp(op, "Div") == 0);
  if ((!mul && !div) || n->nin != 2) return 0;
  tfs_dtype dt = n->out_types[0];
  if (!foldable(dt)) return 0;
  for (int k = mul ? 0 : 1; k < 2; k++) {
    const tfs_tensor *t = tfs_og__const_value(g, n->in[k]);
    tfs_oref other = n->in[1 - k];
    int p = tfs_og__producer(g, v, 1 - k);
    if (!t || p < 0 || other.port != 0 || !is_contraction(g, p)) continue;
    if (push_down && (!tfs_og__is(g, p, "Conv2D") ||
                      tfs_og__const_value(g, g->n[p].in[0]) ||
                      strcmp(g->n[p].device, n->device) != 0))
      continue;
    if (!tfs_opt__single_use(g, p)) continue;
    const tfs_tensor *w = tfs_og__const_value(g, g->n[p].in[1]);
    if (!w || w->dtype != dt || t->dtype != dt) continue;
    if (!tfs_opt__broadcasts_into(&t->shape, &g->n[p].out_shapes[0])) continue;
    int64_t ch = tfs_arith__out_channels(g, p, w);
    if (ch <= 0 || (t->nelems != 1 && nchw(g, p))) continue;
    double *scale = tfs_malloc(sizeof(double) * (size_t)(ch + 1));
    int64_t cnt;
    if (!scale) {
      TFS_OOM(c->st);
      return -1;
    }
    if (read_scale(t, ch, div, scale, &cnt)) {
      tfs_free(scale);
      continue;
    }
    tfs_tensor *w2 = tfs_arith__scaled_weights(g, p, w, scale, cnt, c->st);
    tfs_free(scale);
    if (!w2) return -1;
    int wgone[2] = {g->n[p].in[1].node, n->in[k].node};
    int rc = rebuild_as(c, v, p, g->n[p].in[0], w2, push_down);
    tfs_tensor_free(w2);
    if (rc < 0) return -1;
    tfs_og__kill_unused(g, p);
    return absorb_folded(c, rc, &p, 1, wgone, 2) ? -1 : 1;
  }
  return 0;
}

/* Contraction(Mul(x, s), W) with s a scalar constant. */
static int fold_input_scale(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  if (!is_contraction(g, v) || g->n[v].nin != 2) return 0;
  tfs_dtype dt = g->n[v].out_types[0];
  const tfs_tensor *w = tfs_og__const_value(g, g->n[v].in[1]);
  int q = tfs_og__producer(g, v, 0);
  if (!w || w->dtype != dt || !foldable(dt)) return 0;
  if (q < 0 || strcmp(g->n[q].def->name, "Mul") != 0 ||
      !tfs_opt__single_use(g, q) || g->n[q].nin != 2)
    return 0;
  for (int k = 0; k < 2; k++) {
    const tfs_tensor *s = tfs_og__const_value(g, g->n[q].in[k]);
    tfs_oref x = g->n[q].in[1 - k];
    if (!s || s->nelems != 1 || s->dtype != dt) continue;
    if (!tfs_shape_equal(tfs_og__shape(g, x), &g->n[q].out_shapes[0])) continue;
    double scale = tfs_opt__get(s, 0);
    int wn = g->n[v].in[1].node;
    int wgone[2] = {wn, g->n[q].in[k].node};
    tfs_tensor *w2 = tfs_arith__scaled_weights(g, v, w, &scale, 1, c->st);
    if (!w2) return -1;
    int rc = rebuild_as(c, v, v, x, w2, 0);
    tfs_tensor_free(w2);
    if (rc < 0) return -1;
    tfs_og__kill_unused(g, q);
    if (tfs_og__live(g, wn)) tfs_og__kill_unused(g, wn);
    return absorb_folded(c, rc, &q, 1, wgone, 2) ? -1 : 1;
  }
  return 0;
}

int tfs_arith__mul_conv_push_down(tfs_opt_ctx *c, int v) {
  return fold_output_scale(c, v, 1);
}

int tfs_arith__fold_weights(tfs_opt_ctx *c, int v) {
  int r = fold_output_scale(c, v, 0);
  if (r) return r;
  return fold_input_scale(c, v);
}

/* ---- constant affine maps after a contraction ----------------------------
 */

/* The number of channels a BiasAdd over source `y` adds along, from y's
 * last (NHWC) or second (NCHW) dimension; -1 when unknown. */
static int64_t bias_channels(const tfs_ograph *g, tfs_oref y, int nchw_fmt) {
  const tfs_shape *s = tfs_og__shape(g, y);
  if (s->rank < 2) return -1;
  return s->dims[nchw_fmt ? 1 : s->rank - 1];
}

/* A new 1-D Const of n channels: base[j] (base NULL: 0) + sign * add[j]
 * (add NULL: nothing), each scaled by mul[j] (mul NULL: 1) first. */
static int channel_const(tfs_opt_ctx *c, int v, tfs_dtype dt,
                         const tfs_tensor *base, const double *mul,
                         const double *add, double sign, int64_t n) {
  tfs_ograph *g = c->g;
  tfs_shape s;
  tfs_shape_1d(&s, n);
  tfs_tensor *t = tfs_opt__tensor(dt, &s, c->st);
  if (!t) return -1;
  for (int64_t j = 0; j < n; j++) {
    double b = base ? tfs_opt__get(base, base->nelems == 1 ? 0 : j) : 0;
    if (mul) b *= mul[j];
    if (add) b += sign * add[j];
    tfs_opt__set(t, j, b);
  }
  char *name =
      tfs_asprintf("ArithmeticOptimizer/FoldAffineIntoBias_%s", g->n[v].name);
  int k = name ? tfs_opt__const(c, t, name, g->n[v].device) : -1;
  tfs_free(name);
  tfs_tensor_free(t);
  if (k < 0 && tfs_status_ok(c->st)) TFS_OOM(c->st);
  return k;
}

/* A BiasAdd of v's type has a kernel on v's device. */
static int bias_add_kernel(const tfs_ograph *g, int v) {
  const tfs_op_def *def = tfs_op_lookup("BiasAdd");
  tfs_attrs a;
  tfs_attrs_init(&a);
  int ok = def && !tfs_opt__set_type(&a, "T", g->n[v].out_types[0]) &&
           tfs_opt__has_kernel(g->n[v].device, def, &a, g->n[v].name);
  tfs_attrs_clear(&a);
  return ok;
}

/* Rebuilds v as BiasAdd(y, bias) under v's name. */
static int rebuild_bias_add(tfs_opt_ctx *c, int v, tfs_oref y, int bias,
                            int nchw_fmt) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", c->g->n[v].out_types[0]) ||
      tfs_opt__set_string(&a, "data_format", nchw_fmt ? "NCHW" : "NHWC")) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {y, {bias, 0}};
  return tfs_opt__rebuild(c, v, "BiasAdd", &a, 2, in) < 0 ? -1 : 0;
}

/* The constant operand of the two-input node v that fits the channel
 * count n (see read_scale; a per-channel one needs NHWC) and keeps v's
 * shape, with its values in out[] (n + 1 room); the other operand's
 * index in *other.  NULL when none fits. */
static const tfs_tensor *channel_operand(const tfs_ograph *g, int v, int first,
                                         int64_t n, int nchw_fmt, double *out,
                                         int64_t *cnt, int *other) {
  const tfs_onode *nd = &g->n[v];
  for (int k = first; k < 2; k++) {
    const tfs_tensor *t = tfs_og__const_value(g, nd->in[k]);
    if (!t || t->dtype != nd->out_types[0] || nd->in[1 - k].port != 0) continue;
    if (!tfs_opt__broadcasts_into(&t->shape, tfs_og__shape(g, nd->in[1 - k])))
      continue;
    if (t->nelems != 1 && nchw_fmt) continue;
    if (read_scale(t, n, 0, out, cnt)) continue;
    *other = 1 - k;
    return t;
  }
  return NULL;
}

/* Expands a scale read by read_scale (1 or n values) to n values. */
static void expand(double *v, int64_t cnt, int64_t n) {
  if (cnt == 1)
    for (int64_t j = 1; j < n; j++) v[j] = v[0];
}

/* Mul(BiasAdd(C(x, W), b), s) -> BiasAdd(C(x, W*s), b*s). */
static int fold_scale_through_bias(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  tfs_dtype dt = n->out_types[0];
  if (strcmp(n->def->name, "Mul") != 0 || n->nin != 2 ||
      !foldable(dt))
    return 0;
  for (int k = 0; k < 2; k++) {
    int ba = tfs_og__producer(g, v, k);
    if (ba < 0 || n->in[k].port != 0 || !tfs_og__is(g, ba, "BiasAdd") ||
        !tfs_opt__single_use(g, ba))
      continue;
    int q = tfs_og__producer(g, ba, 0);
    const tfs_tensor *b = tfs_og__const_value(g, g->n[ba].in[1]);
    if (q < 0 || g->n[ba].in[0].port != 0 || !is_contraction(g, q) ||
        !tfs_opt__single_use(g, q) || !b || b->dtype != dt)
      continue;
    int wn = g->n[q].in[1].node;
    const tfs_tensor *w = tfs_og__const_value(g, g->n[q].in[1]);
    /* a filter read elsewhere too would be copied (control consumers, as
     * Keras' ReadVariableOp NoOp, go with the dependency optimizer) */
    if (!w || w->dtype != dt || g->n[wn].nfan != 1) continue;
    int fmt = tfs_opt__attr_is(g, ba, "data_format", "NCHW");
    int64_t ch = tfs_arith__out_channels(g, q, w);
    if (ch <= 0 || b->nelems != ch || fmt != nchw(g, q)) continue;
    double *s = tfs_malloc(sizeof(double) * (size_t)(ch + 1));
    if (!s) {
      TFS_OOM(c->st);
      return -1;
    }
    int64_t cnt;
    int other;
    if (!channel_operand(g, v, 0, ch, fmt, s, &cnt, &other) || other != k ||
        !bias_add_kernel(g, v)) {
      tfs_free(s);
      continue;
    }
    expand(s, cnt, ch);
    tfs_tensor *w2 = tfs_arith__scaled_weights(g, q, w, s, ch, c->st);
    int kb = w2 ? channel_const(c, v, dt, b, s, NULL, 0, ch) : -1;
    tfs_free(s);
    /* the contraction keeps its name with the scaled weights */
    int nq = kb >= 0 ? rebuild_as(c, q, q, g->n[q].in[0], w2, 0) : -1;
    tfs_tensor_free(w2);
    const char *vname = g->n[v].name;
    if (nq < 0 || rebuild_bias_add(c, v, (tfs_oref){nq, 0}, kb, fmt)) return -1;
    if (tfs_og__live(g, ba)) tfs_og__kill_unused(g, ba);
    if (tfs_og__live(g, wn)) tfs_og__kill_unused(g, wn);
    return absorb_folded(c, tfs_og__find(g, vname), &ba, 1, NULL, 0) ||
                   absorb_folded(c, nq, NULL, 0, &wn, 1)
               ? -1
               : 1;
  }
  return 0;
}

/* Add/AddV2/Sub of a constant after a contraction or a BiasAdd with a
 * constant bias -> one BiasAdd. */
static int fold_shift(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  tfs_dtype dt = n->out_types[0];
  int sub = strcmp(op, "Sub") == 0;
  if ((!sub && strcmp(op, "Add") != 0 && strcmp(op, "AddV2") != 0) ||
      n->nin != 2 || !foldable(dt))
    return 0;
  for (int k = 0; k < 2; k++) {
    if (sub && k == 1) break;
    int p = tfs_og__producer(g, v, k);
    if (p < 0 || n->in[k].port != 0 || !tfs_opt__single_use(g, p)) continue;
    int bias_add = tfs_og__is(g, p, "BiasAdd");
    if (!bias_add && !is_contraction(g, p)) continue;
    const tfs_tensor *b =
        bias_add ? tfs_og__const_value(g, g->n[p].in[1]) : NULL;
    if (bias_add && (!b || b->dtype != dt)) continue;
    int fmt =
        bias_add ? tfs_opt__attr_is(g, p, "data_format", "NCHW") : nchw(g, p);
    tfs_oref y = bias_add ? g->n[p].in[0] : n->in[k];
    int64_t ch = b ? b->nelems : bias_channels(g, y, fmt);
    if (ch <= 0 ||
        (b && bias_channels(g, y, fmt) >= 0 && bias_channels(g, y, fmt) != ch))
      continue;
    double *t = tfs_malloc(sizeof(double) * (size_t)(ch + 1));
    if (!t) {
      TFS_OOM(c->st);
      return -1;
    }
    int64_t cnt;
    int other;
    if (!channel_operand(g, v, sub ? 1 : 0, ch, fmt, t, &cnt, &other) ||
        other != k || !bias_add_kernel(g, v)) {
      tfs_free(t);
      continue;
    }
    expand(t, cnt, ch);
    int kb = channel_const(c, v, dt, b, NULL, t, sub ? -1 : 1, ch);
    tfs_free(t);
    const char *vname = g->n[v].name;
    if (kb < 0 || rebuild_bias_add(c, v, y, kb, fmt)) return -1;
    if (bias_add && tfs_og__live(g, p)) tfs_og__kill_unused(g, p);
    if (!bias_add) return 1;
    return absorb_folded(c, tfs_og__find(g, vname), &p, 1, NULL, 0) ? -1 : 1;
  }
  return 0;
}

int tfs_arith__fold_affine(tfs_opt_ctx *c, int v) {
  int r = fold_scale_through_bias(c, v);
  if (r) return r;
  return fold_shift(c, v);
}

/*
 * optimizer/arith_weights.c - folding constant scales into contraction
 * weights: Mul(MatMul(x, W), c) -> MatMul(x, W*c) with c a scalar or one
 * value per output channel (likewise Conv2D, DepthwiseConv2dNative, and
 * RealDiv by c), and Conv2D(Mul(x, s), W) -> Conv2D(x, W*s) for a scalar
 * s.  Weights must be float or double constants used only there.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/arith_weights.h"
#include "optimizer/opt_util.h"

static int is_contraction(const tfs_ograph *g, int p) {
  const char *op = g->n[p].def->name;
  return strcmp(op, "MatMul") == 0 || strcmp(op, "Conv2D") == 0 ||
         strcmp(op, "DepthwiseConv2dNative") == 0;
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
  if (ch <= 0 || (n != 1 && n != ch) ||
      (w->dtype != TFS_FLOAT && w->dtype != TFS_DOUBLE)) {
    tfs_status_set(st, TFS_INTERNAL, "optimizer: unsupported weights");
    return NULL;
  }
  tfs_tensor *t = tfs_opt__tensor(w->dtype, &w->shape, st);
  if (!t) return NULL;
  int tb = 0;
  if (strcmp(g->n[p].def->name, "MatMul") == 0)
    tfs_attrs_get_bool(g->n[p].attrs, "transpose_b", &tb);
  int64_t total = w->nelems, inner = tb ? total / ch : 1;
  for (int64_t e = 0; e < total; e++) {
    /* channel of element e: column (e % ch), or row (e / inner) when the
     * MatMul weights are transposed */
    int64_t j = tb ? e / inner : e % ch;
    double s = scale[n == 1 ? 0 : j];
    if (w->dtype == TFS_FLOAT)
      ((float *)t->data)[e] = (float)(((const float *)w->data)[e] * s);
    else
      ((double *)t->data)[e] = ((const double *)w->data)[e] * s;
  }
  return t;
}

/* Rebuilds v as contraction `p`'s op with inputs (x, W'), under v's name. */
static int rebuild_as(tfs_opt_ctx *c, int v, int p, tfs_oref x,
                      tfs_tensor *w2) {
  tfs_ograph *g = c->g;
  char *base =
      tfs_asprintf("ArithmeticOptimizer/FoldMulIntoWeights_%s", g->n[v].name);
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
  return tfs_opt__rebuild(c, v, op, &a, 2, in) < 0 ? -1 : 0;
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

/* Mul(Contraction(x, W), c) or RealDiv(Contraction(x, W), c). */
static int fold_output_scale(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  int mul = strcmp(op, "Mul") == 0;
  int div = strcmp(op, "RealDiv") == 0 || strcmp(op, "Div") == 0;
  if ((!mul && !div) || n->nin != 2) return 0;
  tfs_dtype dt = n->out_types[0];
  if (dt != TFS_FLOAT && dt != TFS_DOUBLE) return 0;
  for (int k = mul ? 0 : 1; k < 2; k++) {
    const tfs_tensor *t = tfs_og__const_value(g, n->in[k]);
    tfs_oref other = n->in[1 - k];
    int p = tfs_og__producer(g, v, 1 - k);
    if (!t || p < 0 || other.port != 0 || !is_contraction(g, p)) continue;
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
    int rc = rebuild_as(c, v, p, g->n[p].in[0], w2);
    tfs_tensor_free(w2);
    if (rc) return -1;
    tfs_og__kill_unused(g, p);
    return 1;
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
  if (!w || w->dtype != dt || (dt != TFS_FLOAT && dt != TFS_DOUBLE)) return 0;
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
    tfs_tensor *w2 = tfs_arith__scaled_weights(g, v, w, &scale, 1, c->st);
    if (!w2) return -1;
    int rc = rebuild_as(c, v, v, x, w2);
    tfs_tensor_free(w2);
    if (rc) return -1;
    tfs_og__kill_unused(g, q);
    if (tfs_og__live(g, wn)) tfs_og__kill_unused(g, wn);
    return 1;
  }
  return 0;
}

int tfs_arith__fold_weights(tfs_opt_ctx *c, int v) {
  int r = fold_output_scale(c, v);
  if (r) return r;
  return fold_input_scale(c, v);
}

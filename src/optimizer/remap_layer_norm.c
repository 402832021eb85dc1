/*
 * optimizer/remap_layer_norm.c - the remapper's layer normalization: the
 * eleven ops Keras 3's LayerNormalization leaves after constant folding,
 *
 *   mean = Mean(x, [-1], keep_dims)      var = Mean(SquaredDifference(x,
 *   m = Rsqrt(var + eps) * gamma                    mean), [-1], keep_dims)
 *   y = x * m + (Neg(mean) * m + beta)
 *
 * become one _TfsLayerNorm(x, gamma, beta) that reads each row once for
 * its statistics and once for the result (tfsess-only).  When x is the
 * sum of two tensors of its shape that nothing else reads (a residual
 * connection: AddV2(x0, x1)), the sum joins too: _TfsAddLayerNorm(x0,
 * gamma, beta, x1) adds each row as it normalizes it.
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

enum { LN_INNER = 10 };

typedef struct ln_match {
  tfs_oref x, gamma, beta;
  float eps;
  int inner[LN_INNER + 1]; /* the last: the residual sum, or -1 */
} ln_match;

/* Node p (-1: none) is op `op`. */
static int is_op(const tfs_ograph *g, int p, const char *op) {
  return p >= 0 && tfs_og__is(g, p, op);
}

/* Node p is op `op`, float, on `device`, without control inputs or
 * control consumers, removable, read exactly `uses` times. */
static int inner_ok(const tfs_ograph *g, int p, const char *op,
                    const char *device, int uses) {
  return is_op(g, p, op) && g->n[p].nout >= 1 &&
         g->n[p].out_types[0] == TFS_FLOAT && tfs_og__removable(g, p) &&
         g->n[p].nctrl == 0 && g->n[p].ncfan == 0 &&
         strcmp(g->n[p].device, device) == 0 && g->n[p].nfan == uses &&
         tfs_og__port_uses(g, p, 0) == uses;
}

static int is_add(const tfs_ograph *g, int p) {
  return is_op(g, p, "AddV2") || is_op(g, p, "Add");
}

/* A Mean over the last axis of its input, keeping it. */
static int last_axis_mean(const tfs_ograph *g, int p) {
  int keep = 0;
  tfs_attrs_get_bool(g->n[p].attrs, "keep_dims", &keep);
  const tfs_tensor *ax = tfs_og__const_value(g, g->n[p].in[1]);
  const tfs_shape *s = tfs_og__shape(g, g->n[p].in[0]);
  if (!keep || !ax || ax->nelems != 1 || s->rank < 1 ||
      (ax->dtype != TFS_INT32 && ax->dtype != TFS_INT64))
    return 0;
  int64_t a = tfs_tensor__get_as_int64(ax, 0);
  return a == -1 || a == s->rank - 1;
}

/* A float constant of d values along the last of `rank` dimensions. */
static int per_channel(const tfs_ograph *g, tfs_oref r, int64_t d, int rank) {
  const tfs_tensor *t = tfs_og__const_value(g, r);
  if (!t || t->dtype != TFS_FLOAT || t->nelems != d || t->shape.rank < 1 ||
      t->shape.rank > rank || t->shape.dims[t->shape.rank - 1] != d)
    return 0;
  return 1;
}

/* The other input of the two-input node p, given one of them is node q
 * (port 0); -1 when neither is. */
static int other_of(const tfs_ograph *g, int p, int q) {
  if (g->n[p].nin != 2) return -1;
  if (g->n[p].in[0].node == q && g->n[p].in[0].port == 0) return 1;
  if (g->n[p].in[1].node == q && g->n[p].in[1].port == 0) return 0;
  return -1;
}

static int same_ref(tfs_oref a, tfs_oref b) {
  return a.node == b.node && a.port == b.port;
}

/* m = Rsqrt(Mean(SquaredDifference(x, mean)) + eps) * gamma, mean =
 * Mean(x): fills the statistics half of lm (inner[4..9]). */
static int match_scale(const tfs_ograph *g, int m, int mean, const char *dev,
                       ln_match *lm) {
  if (!inner_ok(g, m, "Mul", dev, 2)) return 0;
  int r = -1, k;
  for (k = 0; k < 2 && r < 0; k++)
    if (is_op(g, tfs_og__producer(g, m, k), "Rsqrt"))
      r = tfs_og__producer(g, m, k);
  if (r < 0 || !inner_ok(g, r, "Rsqrt", dev, 1)) return 0;
  lm->gamma = g->n[m].in[k == 1 ? 1 : 0];
  int add = tfs_og__producer(g, r, 0);
  if (!is_add(g, add) || !inner_ok(g, add, g->n[add].def->name, dev, 1))
    return 0;
  int var = -1, ke = -1;
  for (k = 0; k < 2; k++)
    if (is_op(g, tfs_og__producer(g, add, k), "Mean")) {
      var = tfs_og__producer(g, add, k);
      ke = 1 - k;
    }
  const tfs_tensor *e =
      ke >= 0 ? tfs_og__const_value(g, g->n[add].in[ke]) : NULL;
  if (var < 0 || !e || e->dtype != TFS_FLOAT || e->nelems != 1 ||
      !inner_ok(g, var, "Mean", dev, 1) || !last_axis_mean(g, var))
    return 0;
  lm->eps = ((const float *)e->data)[0];
  int sqd = tfs_og__producer(g, var, 0);
  if (!inner_ok(g, sqd, "SquaredDifference", dev, 1)) return 0;
  int km = other_of(g, sqd, mean);
  if (km < 0 || !same_ref(g->n[sqd].in[km], lm->x)) return 0;
  lm->inner[4] = m;
  lm->inner[5] = r;
  lm->inner[6] = add;
  lm->inner[7] = var;
  lm->inner[8] = sqd;
  lm->inner[9] = mean;
  return 1;
}

/* y = Add(Mul(x, m), Add(Mul(Neg(mean), m), beta)), either order in
 * each two-input node. */
static int match(const tfs_ograph *g, int root, ln_match *lm) {
  const char *dev = g->n[root].device;
  if (!is_add(g, root) || g->n[root].nin != 2 || g->n[root].nout != 1 ||
      g->n[root].out_types[0] != TFS_FLOAT || g->n[root].nctrl)
    return 0;
  for (int o = 0; o < 2; o++) {
    int mul2 = tfs_og__producer(g, root, o);
    int add1 = tfs_og__producer(g, root, 1 - o);
    if (!inner_ok(g, mul2, "Mul", dev, 1) || !is_add(g, add1) ||
        !inner_ok(g, add1, g->n[add1].def->name, dev, 1))
      continue;
    for (int p = 0; p < 2; p++) {
      int mul1 = tfs_og__producer(g, add1, p);
      if (!inner_ok(g, mul1, "Mul", dev, 1)) continue;
      lm->beta = g->n[add1].in[1 - p];
      for (int q = 0; q < 2; q++) {
        int neg = tfs_og__producer(g, mul1, q);
        int m = tfs_og__producer(g, mul1, 1 - q);
        if (!inner_ok(g, neg, "Neg", dev, 1)) continue;
        int km = other_of(g, mul2, m);
        if (km < 0) continue;
        lm->x = g->n[mul2].in[km];
        int mean = tfs_og__producer(g, neg, 0);
        if (!inner_ok(g, mean, "Mean", dev, 2) || !last_axis_mean(g, mean) ||
            !same_ref(g->n[mean].in[0], lm->x))
          continue;
        const tfs_shape *xs = tfs_og__shape(g, lm->x);
        int64_t d = xs->rank >= 1 ? xs->dims[xs->rank - 1] : -1;
        if (d < 1 || tfs_og__dtype(g, lm->x) != TFS_FLOAT ||
            !match_scale(g, m, mean, dev, lm) ||
            !per_channel(g, lm->gamma, d, xs->rank) ||
            !per_channel(g, lm->beta, d, xs->rank))
          continue;
        lm->inner[0] = mul2;
        lm->inner[1] = add1;
        lm->inner[2] = mul1;
        lm->inner[3] = neg;
        return 1;
      }
    }
  }
  return 0;
}

/* The three uses of x in the pattern (the two Means' inputs and x * m). */
#define X_USES 3

/* A fully known shape, no dimension unknown. */
static int known(const tfs_shape *s) {
  if (s->rank < 0) return 0;
  for (int i = 0; i < s->rank; i++)
    if (s->dims[i] < 0) return 0;
  return 1;
}

/* x = Add(x0, x1) (or AddV2) of two float tensors of x's fully known
 * shape, read only by the pattern, on its device: the node, else -1. */
static int residual_sum(const tfs_ograph *g, const ln_match *lm,
                        const char *dev) {
  int p = lm->x.node;
  if (lm->x.port != 0 || !is_add(g, p) || g->n[p].nin != 2 ||
      !inner_ok(g, p, g->n[p].def->name, dev, X_USES))
    return -1;
  const tfs_shape *s = tfs_og__shape(g, lm->x);
  const tfs_shape *s0 = tfs_og__shape(g, g->n[p].in[0]);
  const tfs_shape *s1 = tfs_og__shape(g, g->n[p].in[1]);
  if (!known(s) || !tfs_shape_equal(s, s0) || !tfs_shape_equal(s, s1) ||
      tfs_og__dtype(g, g->n[p].in[0]) != TFS_FLOAT ||
      tfs_og__dtype(g, g->n[p].in[1]) != TFS_FLOAT)
    return -1;
  return p;
}

int tfs_remap__layer_norm(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  ln_match lm;
  if (c->cfg->tf_compatible || !tfs_og__replaceable(g, v) || !match(g, v, &lm))
    return 0;
  int sum = residual_sum(g, &lm, g->n[v].device);
  lm.inner[LN_INNER] = sum;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", TFS_FLOAT) ||
      tfs_opt__set_float(&a, "epsilon", lm.eps)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[4] = {lm.x, lm.gamma, lm.beta, {0, 0}};
  if (sum >= 0) {
    in[0] = g->n[sum].in[0];
    in[3] = g->n[sum].in[1];
  }
  int r = tfs_remap__replace_if_kernel(
      c, v, sum >= 0 ? "_TfsAddLayerNorm" : "_TfsLayerNorm", &a,
      sum >= 0 ? 4 : 3, in, -1, -1);
  if (r < 0) return r == -2 ? 0 : -1;
  if (tfs_remap__drop_inner(c, r, lm.inner, LN_INNER + 1)) return -1;
  tfs_remap__count(stats, "layer normalization -> _TfsLayerNorm");
  if (sum >= 0)
    tfs_remap__count(stats, "residual sum -> _TfsAddLayerNorm");
  return 1;
}

/*
 * optimizer/remap_bmm_perm.c - the remapper's attention transposes:
 *
 *   [Transpose(] BatchMatMulV2 | BatchMatMul | _FusedBatchMatMulV2 ["Mul"]
 *     ([Transpose(]x[, px)], [Transpose(]y[, py)]) [, po)]
 *
 * with constant permutations, at least one Transpose present, becomes one
 * _TfsPermutedBatchMatMul(x, y[, scale]) (tfsess-only) with perm_x,
 * perm_y and perm_out: a multi-head attention's heads split by
 * Reshape + Transpose([0, 2, 1, 3]) (and [0, 2, 3, 1] for the keys) and
 * joined again by Transpose([0, 2, 1, 3]) are read and written where
 * they lie instead of copied three or four times a layer.  An input
 * permutation must keep its tensor's last dimension among the last two
 * (one of the matrix's strides stays 1), the output's the last dimension
 * last; an input Transpose must be read by the product alone, and the
 * product by the output Transpose alone.  float, and bfloat16 (auto
 * mixed precision's attention, unscaled).
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* The constant permutation of Transpose p into perm (its length, >= 2),
 * or 0 when p is not such a Transpose. */
static int const_perm(const tfs_ograph *g, int p, int64_t *perm) {
  if (!tfs_og__is(g, p, "Transpose") || g->n[p].nin != 2) return 0;
  const tfs_tensor *t = tfs_og__const_value(g, g->n[p].in[1]);
  if (!t || t->shape.rank != 1 || t->nelems < 2 ||
      t->nelems > TFS_MAX_RANK ||
      (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return 0;
  int n = (int)t->nelems, seen[TFS_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    int64_t v = t->dtype == TFS_INT32 ? ((const int32_t *)t->data)[i]
                                      : ((const int64_t *)t->data)[i];
    if (v < 0 || v >= n || seen[v]) return 0;
    seen[v] = 1;
    perm[i] = v;
  }
  return n;
}

typedef struct {
  int bmm, tx, ty, tout; /* -1: absent */
  int np[3];
  int64_t perm[3][TFS_MAX_RANK];
} bp_match;

/* Input k of the product, when a Transpose only it reads with a
 * permutation that keeps the last dimension among the last two. */
static int input_transpose(const tfs_ograph *g, int b, int k, int *np,
                           int64_t *perm) {
  int p = tfs_og__producer(g, b, k);
  if (p < 0 || g->n[b].in[k].port != 0 ||
      !tfs_remap__inner_binary_of(g, p, g->n[b].device,
                                  tfs_og__type_attr(g, b, "T")))
    return -1;
  int n = const_perm(g, p, perm);
  if (n == 0 || (perm[n - 1] != n - 1 && perm[n - 2] != n - 1)) return -1;
  *np = n;
  return p;
}

/* The Transpose that alone reads product b, keeping its last dimension
 * last. */
static int output_transpose(const tfs_ograph *g, int b, int *np,
                            int64_t *perm) {
  const tfs_onode *n = &g->n[b];
  if (n->nctrl != 0 || n->ncfan != 0 || n->nfan != 1 ||
      tfs_og__port_uses(g, b, 0) != 1 || !tfs_og__removable(g, b))
    return -1;
  int t = n->fan[0].node;
  if (n->fan[0].port != 0 || !tfs_og__live(g, t) ||
      !tfs_og__is(g, t, "Transpose") || g->n[t].in[0].node != b ||
      g->n[t].in[0].port != 0 || strcmp(g->n[t].device, n->device) != 0 ||
      !tfs_og__replaceable(g, t) ||
      tfs_og__type_attr(g, t, "T") != tfs_og__type_attr(g, b, "T"))
    return -1;
  int k = const_perm(g, t, perm);
  if (k == 0 || perm[k - 1] != k - 1) return -1;
  *np = k;
  return t;
}

static int is_product(const tfs_ograph *g, int v) {
  if (tfs_og__is(g, v, "BatchMatMulV2") || tfs_og__is(g, v, "BatchMatMul"))
    return g->n[v].nin == 2;
  if (!tfs_og__is(g, v, "_FusedBatchMatMulV2") || g->n[v].nin != 3)
    return 0;
  const tfs_attr_value *ops = tfs_attrs_find(g->n[v].attrs, "fused_ops");
  return ops && ops->is_list && ops->type == TFS_ATTR_STRING &&
         ops->u.list.n == 1 &&
         strcmp(((const tfs_bytes *)ops->u.list.v)[0].ptr, "Mul") == 0;
}

static int match(const tfs_ograph *g, int v, bp_match *m) {
  tfs_dtype t = tfs_og__type_attr(g, v, "T");
  if (!is_product(g, v) || (t != TFS_FLOAT && t != TFS_BFLOAT16) ||
      g->n[v].nout < 1)
    return 0;
  m->bmm = v;
  m->tx = input_transpose(g, v, 0, &m->np[0], m->perm[0]);
  m->ty = input_transpose(g, v, 1, &m->np[1], m->perm[1]);
  m->tout = output_transpose(g, v, &m->np[2], m->perm[2]);
  for (int w = 0; w < 3; w++)
    if ((w == 0 ? m->tx : w == 1 ? m->ty : m->tout) < 0) m->np[w] = 0;
  if (m->tx < 0 && m->ty < 0 && m->tout < 0) return 0;
  return m->tout >= 0 || tfs_og__replaceable(g, v);
}

int tfs_remap__bmm_perm(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  bp_match m;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) || !match(g, v, &m))
    return 0;
  int adj_x = 0, adj_y = 0, scaled = g->n[v].nin == 3;
  tfs_attrs_get_bool(g->n[v].attrs, "adj_x", &adj_x);
  tfs_attrs_get_bool(g->n[v].attrs, "adj_y", &adj_y);
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_remap__bmm_attrs(&a, adj_x, adj_y, scaled) ||
      tfs_opt__set_type(&a, "T", tfs_og__type_attr(g, v, "T")) ||
      tfs_opt__set_ints(&a, "perm_x", m.perm[0], m.np[0]) ||
      tfs_opt__set_ints(&a, "perm_y", m.perm[1], m.np[1]) ||
      tfs_opt__set_ints(&a, "perm_out", m.perm[2], m.np[2])) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[3] = {m.tx >= 0 ? g->n[m.tx].in[0] : g->n[v].in[0],
                    m.ty >= 0 ? g->n[m.ty].in[0] : g->n[v].in[1],
                    scaled ? g->n[v].in[2] : g->n[v].in[0]};
  int root = m.tout >= 0 ? m.tout : v;
  int r = tfs_remap__replace_if_kernel(c, root, "_TfsPermutedBatchMatMul", &a,
                                       2 + scaled, in,
                                       m.tout >= 0 ? v : -1, -1);
  if (r < 0) return r == -2 ? 0 : -1;
  int inner[3] = {m.tout >= 0 ? v : -1, m.tx, m.ty};
  if (tfs_remap__drop_inner(c, r, inner, 3)) return -1;
  tfs_remap__count(stats, m.tout >= 0
                              ? "Transpose(BatchMatMul) -> "
                                "_TfsPermutedBatchMatMul"
                              : "BatchMatMul(Transpose) -> "
                                "_TfsPermutedBatchMatMul");
  return 1;
}

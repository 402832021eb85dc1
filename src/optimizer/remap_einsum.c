/*
 * optimizer/remap_einsum.c - the remapper's Einsums that are batched
 * matrix products up to a permutation of each side (Keras's
 * MultiHeadAttention: "aecd,abcd->acbe" for the scores, "acbe,aecd->abcd"
 * for the context):
 *
 *   Einsum(x, y), two operands, float, no ellipsis and no label repeated
 *   within a term, every label of the output in an input and every label
 *   of one input alone in the output; one label contracted (in both
 *   inputs, not the output), one free label each side, the rest batch
 *   labels (in all three)
 *       -> [Transpose(] BatchMatMulV2([Transpose(]L[, pl)],
 *                                     [Transpose(]R[, pr)]) [, po)]
 *
 * R is the operand of the output's last label (so the product's last
 * dimension stays last), L the other; the product is [batch labels in
 * the output's order, L's free label, R's free label].  A Transpose is
 * made only where the permutation moves something, and only when each
 * keeps its tensor's last dimension among the last two: the rules after
 * this one (the scale of the scores joined to the product, then
 * remap_bmm_perm.c) then read and write every side where it lies, so
 * none of these Transposes is left to copy.  tfsess-only for that reason:
 * not in a graph that must load in TensorFlow.
 */
#include <string.h>

#include "core/status.h"
#include "ops/einsum_spec.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* Where label `lab` is in term t, or -1. */
static int pos(const tfs_einsum_term *t, int lab) {
  for (int i = 0; i < t->n; i++)
    if (t->labels[i] == lab) return i;
  return -1;
}

typedef struct {
  int lhs;                       /* the operand read as L (0 or 1) */
  int rank;                      /* of every term */
  int64_t perm[3][TFS_MAX_RANK]; /* L, R, out: Transpose permutations */
} ein_plan;

static int is_identity(const int64_t *p, int n) {
  for (int i = 0; i < n; i++)
    if (p[i] != i) return 0;
  return 1;
}

/* The plan of equation s, or 0 when it is not such a product. */
static int plan_of(const tfs_einsum_spec *s, ein_plan *p) {
  const tfs_einsum_term *in = s->in, *out = &s->out;
  if (s->ninputs != 2 || in[0].has_ellipsis || in[1].has_ellipsis ||
      out->has_ellipsis || out->n < 2)
    return 0;
  int k_lab = -1, free_lab[2] = {-1, -1}, nbatch = 0;
  for (int lab = 0; lab < s->nlabels; lab++) {
    int a = pos(&in[0], lab) >= 0, b = pos(&in[1], lab) >= 0;
    int o = pos(out, lab) >= 0;
    if (a && b && !o) {
      if (k_lab >= 0) return 0;
      k_lab = lab;
    } else if (a && b && o) {
      nbatch++;
    } else if ((a || b) && o) {
      if (free_lab[b] >= 0) return 0;
      free_lab[b] = lab;
    } else if (a || b) {
      return 0; /* summed over one input alone */
    }
  }
  /* no repeated label: each term holds its labels once */
  const int rank = nbatch + 2;
  if (k_lab < 0 || free_lab[0] < 0 || free_lab[1] < 0 || in[0].n != rank ||
      in[1].n != rank || out->n != rank)
    return 0;
  const int last = out->labels[rank - 1];
  if (last != free_lab[0] && last != free_lab[1]) return 0;
  const int r = last == free_lab[1];
  p->lhs = 1 - r;
  p->rank = rank;
  /* the product's labels: the batch labels in the output's order, then
   * L's free label, R's free label */
  int z[TFS_MAX_RANK], nz = 0;
  for (int i = 0; i < rank; i++)
    if (out->labels[i] != free_lab[0] && out->labels[i] != free_lab[1])
      z[nz++] = out->labels[i];
  z[nz++] = free_lab[p->lhs];
  z[nz++] = free_lab[r];
  const tfs_einsum_term *lt = &in[p->lhs], *rt = &in[r];
  for (int i = 0; i < rank - 2; i++) {
    p->perm[0][i] = pos(lt, z[i]);
    p->perm[1][i] = pos(rt, z[i]);
  }
  p->perm[0][rank - 2] = pos(lt, free_lab[p->lhs]);
  p->perm[0][rank - 1] = pos(lt, k_lab);
  p->perm[1][rank - 2] = pos(rt, k_lab);
  p->perm[1][rank - 1] = pos(rt, free_lab[r]);
  for (int i = 0; i < rank; i++) {
    int j = 0;
    while (z[j] != out->labels[i]) j++;
    p->perm[2][i] = j;
  }
  /* each side's last dimension among the product's last two, the
   * output's last last (what _TfsPermutedBatchMatMul reads in place) */
  for (int w = 0; w < 2; w++)
    if (p->perm[w][rank - 1] != rank - 1 && p->perm[w][rank - 2] != rank - 1)
      return 0;
  return p->perm[2][rank - 1] == rank - 1;
}

/* Transpose attrs for a tensor of type t into *a; 0, or -1 (OOM). */
static int transpose_attrs(tfs_opt_ctx *c, tfs_dtype t, tfs_attrs *a) {
  tfs_attrs_init(a);
  if (tfs_opt__set_type(a, "T", t) ||
      tfs_opt__set_type(a, "Tperm", TFS_INT32)) {
    tfs_attrs_clear(a);
    TFS_OOM(c->st);
    return -1;
  }
  return 0;
}

/* Transpose of `x` by perm (rank n) on device, named from base; its
 * index, or -1 with an error. */
static int transpose(tfs_opt_ctx *c, tfs_oref x, const int64_t *perm, int n,
                     const char *base, const char *device) {
  int k = tfs_opt__int32_const(c, perm, n, "Remapper/einsum_perm", device);
  tfs_attrs a;
  if (k < 0 || transpose_attrs(c, tfs_og__dtype(c->g, x), &a)) return -1;
  tfs_oref in[2] = {x, {k, 0}};
  tfs_onode_spec spec = {
      .base = base, .op = "Transpose", .device = device, .attrs = &a,
      .nin = 2, .in = in};
  return tfs_og__add(c->g, &spec, c->st);
}

/* When *x is a Transpose with a constant permutation that only this
 * side reads, the permutation of its input that both make (still
 * keeping the last dimension among the last two): *x becomes its input,
 * perm the composition; returns the Transpose (removed once unread), or
 * -1 when nothing was composed. */
static int compose(const tfs_ograph *g, tfs_oref *x, int64_t *perm,
                   int rank) {
  int t = x->node;
  if (x->port != 0 || !tfs_og__is(g, t, "Transpose") ||
      g->n[t].nin != 2 || !tfs_opt__single_use(g, t) ||
      !tfs_og__removable(g, t) || g->n[t].nctrl)
    return -1;
  const tfs_tensor *pt = tfs_og__const_value(g, g->n[t].in[1]);
  if (!pt || pt->nelems != rank || pt->shape.rank != 1 ||
      (pt->dtype != TFS_INT32 && pt->dtype != TFS_INT64))
    return -1;
  int64_t inner[TFS_MAX_RANK], both[TFS_MAX_RANK];
  for (int i = 0; i < rank; i++) {
    inner[i] = pt->dtype == TFS_INT32 ? ((const int32_t *)pt->data)[i]
                                      : ((const int64_t *)pt->data)[i];
    if (inner[i] < 0 || inner[i] >= rank) return -1;
  }
  for (int i = 0; i < rank; i++) both[i] = inner[perm[i]];
  if (both[rank - 1] != rank - 1 && both[rank - 2] != rank - 1) return -1;
  memcpy(perm, both, sizeof(int64_t) * (size_t)rank);
  *x = g->n[t].in[0];
  return t;
}

int tfs_remap__einsum_bmm(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) || !tfs_og__is(g, v, "Einsum") ||
      g->n[v].nin != 2 || g->n[v].nout != 1 ||
      tfs_og__type_attr(g, v, "T") != TFS_FLOAT)
    return 0;
  size_t len = 0;
  const char *eq = tfs_attrs_get_string(g->n[v].attrs, "equation", &len);
  tfs_status *quiet = tfs_status_new();
  tfs_einsum_spec s;
  ein_plan p;
  int ok = quiet && eq && tfs_einsum_parse(eq, len, 2, &s, quiet) == 0 &&
           plan_of(&s, &p);
  tfs_status_free(quiet);
  if (!ok) return 0;
  const char *device = g->n[v].device;
  tfs_oref side[2] = {g->n[v].in[p.lhs], g->n[v].in[1 - p.lhs]};
  int gone[2] = {-1, -1};
  for (int w = 0; w < 2; w++) {
    if (is_identity(p.perm[w], p.rank)) continue;
    gone[w] = compose(g, &side[w], p.perm[w], p.rank);
    if (is_identity(p.perm[w], p.rank)) continue;
    int t = transpose(c, side[w], p.perm[w], p.rank,
                      w ? "Remapper/einsum_rhs" : "Remapper/einsum_lhs",
                      device);
    if (t < 0) return -1;
    side[w] = (tfs_oref){t, 0};
  }
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", TFS_FLOAT)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  if (is_identity(p.perm[2], p.rank)) {
    if (tfs_opt__rebuild(c, v, "BatchMatMulV2", &a, 2, side) < 0) return -1;
  } else {
    tfs_onode_spec spec = {.base = "Remapper/einsum_product",
                           .op = "BatchMatMulV2",
                           .device = device,
                           .attrs = &a,
                           .nin = 2,
                           .in = side};
    int b = tfs_og__add(g, &spec, c->st);
    if (b < 0) return -1;
    /* the output Transpose takes the Einsum's place and name */
    int k = tfs_opt__int32_const(c, p.perm[2], p.rank,
                                 "Remapper/einsum_perm", device);
    tfs_attrs ta;
    if (k < 0 || transpose_attrs(c, TFS_FLOAT, &ta)) return -1;
    tfs_oref tin[2] = {{b, 0}, {k, 0}};
    if (tfs_opt__rebuild(c, v, "Transpose", &ta, 2, tin) < 0) return -1;
  }
  for (int w = 0; w < 2; w++)
    if (gone[w] >= 0 && tfs_og__live(g, gone[w]))
      tfs_og__kill_unused(g, gone[w]);
  tfs_remap__count(stats, "Einsum -> BatchMatMulV2 (+ Transposes)");
  return 1;
}

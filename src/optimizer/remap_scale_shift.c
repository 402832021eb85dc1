/*
 * optimizer/remap_scale_shift.c - the remapper's per-channel scale and
 * shift: Keras's batch normalization where no convolution or dense layer
 * precedes it (what constant folding leaves of it, or what the remapper
 * makes of an inference FusedBatchNorm there), with the activation after
 * it,
 *
 *   y = [Relu | Relu6](Add(Mul(x, scale), offset))
 *
 * scale and offset float constants of x's last dimension's size (shape
 * [d] or [1, ..., 1, d]), either order in Mul and Add, becomes one
 * _TfsScaleShift(x, scale, offset) (tfsess-only) that reads x once and
 * writes y once where the three ops read and wrote three tensors.  Its
 * kernel rounds the product before the sum, so the values are the
 * unfused graph's bits.  DenseNet's blocks run BN -> Relu -> Conv on each
 * concatenation: the pass that remains of each is this one.
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

typedef struct ss_match {
  tfs_oref x, scale, offset;
  int mul, add;
  const char *act; /* "Identity", "Relu", "Relu6" */
} ss_match;

static int is_op(const tfs_ograph *g, int p, const char *op) {
  return p >= 0 && tfs_og__is(g, p, op);
}

static int is_add(const tfs_ograph *g, int p) {
  return is_op(g, p, "AddV2") || is_op(g, p, "Add");
}

/* A float constant of d values along the last of at most `rank`
 * dimensions. */
static int per_channel(const tfs_ograph *g, tfs_oref r, int64_t d, int rank) {
  const tfs_tensor *t = tfs_og__const_value(g, r);
  return t && t->dtype == TFS_FLOAT && t->nelems == d && t->shape.rank >= 1 &&
         t->shape.rank <= rank && t->shape.dims[t->shape.rank - 1] == d;
}

/* Mul(x, scale) at `mul`, either order: fills x and scale given the
 * offset's size d is x's last dimension. */
static int match_mul(const tfs_ograph *g, int mul, tfs_oref offset,
                     ss_match *m) {
  for (int k = 0; k < 2; k++) {
    tfs_oref x = g->n[mul].in[k], s = g->n[mul].in[1 - k];
    const tfs_shape *xs = tfs_og__shape(g, x);
    int64_t d = xs->rank >= 1 ? xs->dims[xs->rank - 1] : -1;
    if (d < 1 || tfs_og__dtype(g, x) != TFS_FLOAT ||
        !per_channel(g, s, d, xs->rank) ||
        !per_channel(g, offset, d, xs->rank))
      continue;
    m->x = x;
    m->scale = s;
    m->offset = offset;
    return 1;
  }
  return 0;
}

/* root: Relu or Relu6 over the Add, or the Add itself. */
static int match(const tfs_ograph *g, int root, ss_match *m) {
  const char *dev = g->n[root].device;
  if (g->n[root].nout != 1 || g->n[root].out_types[0] != TFS_FLOAT) return 0;
  int add = root;
  m->act = "Identity";
  if (is_op(g, root, "Relu") || is_op(g, root, "Relu6")) {
    m->act = g->n[root].def->name;
    add = tfs_og__producer(g, root, 0);
    if (!is_add(g, add) || !tfs_remap__inner_binary(g, add, dev)) return 0;
  } else if (!is_add(g, root) || g->n[root].nin != 2) {
    return 0;
  }
  for (int o = 0; o < 2; o++) {
    int mul = tfs_og__producer(g, add, o);
    if (!is_op(g, mul, "Mul") || !tfs_remap__inner_binary(g, mul, dev) ||
        g->n[add].in[o].port != 0)
      continue;
    if (match_mul(g, mul, g->n[add].in[1 - o], m)) {
      m->mul = mul;
      m->add = add == root ? -1 : add;
      return 1;
    }
  }
  return 0;
}

/* The Add v is the inner node of a match ending at its one consumer, a
 * Relu or Relu6 (visited later in node order): left to that one. */
static int under_activation(const tfs_ograph *g, int v) {
  if (g->n[v].nfan != 1) return 0;
  int r = g->n[v].fan[0].node;
  ss_match m;
  return (is_op(g, r, "Relu") || is_op(g, r, "Relu6")) &&
         tfs_og__replaceable(g, r) && match(g, r, &m);
}

int tfs_remap__scale_shift(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  ss_match m;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) || !match(g, v, &m) ||
      (m.add < 0 && under_activation(g, v)))
    return 0;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", TFS_FLOAT) ||
      tfs_opt__set_string(&a, "activation", m.act)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[3] = {m.x, m.scale, m.offset};
  int r = tfs_remap__replace_if_kernel(c, v, "_TfsScaleShift", &a, 3, in,
                                       m.mul, m.add);
  if (r < 0) return r == -2 ? 0 : -1;
  tfs_remap__count(stats, strcmp(m.act, "Identity") == 0
                              ? "Mul+Add -> _TfsScaleShift"
                              : "Mul+Add+activation -> _TfsScaleShift");
  return 1;
}

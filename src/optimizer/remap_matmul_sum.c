/*
 * optimizer/remap_matmul_sum.c - the remapper's sum of two products by
 * constant weights, what an RNN cell computes from its input and its
 * state at every step (Keras's LSTM, GRU and SimpleRNN cells, tf.keras's
 * too),
 *
 *   z = [BiasAdd](AddV2(MatMul(a, wa), MatMul(b, wb)), bias)
 *
 * wa and wb float constants with as many columns, neither product
 * transposed, becomes one _TfsMatMulSum(a, b, wa, wb[, bias])
 * (tfsess-only): one GEMM of the two depths over the weights stacked
 * and packed once, where the step ran two products and a pass for the
 * sum (and one for the bias).  Its kernel accumulates the sum over both
 * depths, so the values are within float rounding of the unfused
 * graph's, not its bits.
 */
#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

typedef struct ms_match {
  tfs_oref a, b, wa, wb, bias; /* bias.node -1: none */
  int add;                     /* the Add (the root, or the BiasAdd's
                                  input) */
  int inner[3];                /* the Add (-1 when it is the root), the
                                  two MatMuls */
} ms_match;

static int is_add(const tfs_ograph *g, int p) {
  return p >= 0 && (tfs_og__is(g, p, "AddV2") || tfs_og__is(g, p, "Add"));
}

/* The constant float matrix MatMul p multiplies by (neither operand
 * transposed), or NULL. */
static const tfs_tensor *const_weights(const tfs_ograph *g, int p,
                                       const char *device) {
  int ta = 0, tb = 0;
  if (p < 0 || !tfs_og__is(g, p, "MatMul") ||
      !tfs_remap__inner_binary(g, p, device))
    return NULL;
  tfs_attrs_get_bool(g->n[p].attrs, "transpose_a", &ta);
  tfs_attrs_get_bool(g->n[p].attrs, "transpose_b", &tb);
  if (ta || tb || tfs_og__dtype(g, g->n[p].in[0]) != TFS_FLOAT) return NULL;
  const tfs_tensor *w = tfs_og__const_value(g, g->n[p].in[1]);
  return w && w->dtype == TFS_FLOAT && w->shape.rank == 2 ? w : NULL;
}

/* The Add `add` of two such products with as many columns. */
static int match_add(const tfs_ograph *g, int add, const char *device,
                     ms_match *m) {
  if (!is_add(g, add) || g->n[add].nin != 2 ||
      g->n[add].out_types[0] != TFS_FLOAT)
    return 0;
  int p = tfs_og__producer(g, add, 0), q = tfs_og__producer(g, add, 1);
  if (p == q || g->n[add].in[0].port != 0 || g->n[add].in[1].port != 0)
    return 0;
  const tfs_tensor *wa = const_weights(g, p, device);
  const tfs_tensor *wb = const_weights(g, q, device);
  if (!wa || !wb || wa->shape.dims[1] != wb->shape.dims[1]) return 0;
  m->a = g->n[p].in[0];
  m->wa = g->n[p].in[1];
  m->b = g->n[q].in[0];
  m->wb = g->n[q].in[1];
  m->inner[1] = p;
  m->inner[2] = q;
  return 1;
}

/* root: a BiasAdd (channels last) over the Add, or the Add itself. */
static int match(const tfs_ograph *g, int root, ms_match *m) {
  const char *dev = g->n[root].device;
  m->bias.node = -1;
  m->bias.port = 0;
  m->inner[0] = -1;
  m->add = root;
  if (!tfs_og__is(g, root, "BiasAdd"))
    return match_add(g, root, dev, m);
  if (g->n[root].nin != 2 || g->n[root].out_types[0] != TFS_FLOAT ||
      tfs_opt__attr_is(g, root, "data_format", "NCHW"))
    return 0;
  int add = tfs_og__producer(g, root, 0);
  if (!tfs_remap__inner_binary(g, add, dev) || g->n[root].in[0].port != 0 ||
      tfs_og__dtype(g, g->n[root].in[1]) != TFS_FLOAT ||
      !match_add(g, add, dev, m))
    return 0;
  m->bias = g->n[root].in[1];
  m->inner[0] = add;
  m->add = add;
  return 1;
}

int tfs_remap__matmul_sum(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  ms_match m;
  if (c->cfg->tf_compatible || !tfs_og__live(g, v) ||
      !tfs_og__replaceable(g, v) || !match(g, v, &m))
    return 0;
  int nbias = m.bias.node >= 0;
  tfs_attrs a;
  tfs_attrs_init(&a);
  /* the ops' names, for the errors only they would have raised */
  const char *names[3] = {g->n[m.inner[1]].name, g->n[m.inner[2]].name,
                          g->n[m.add].name};
  if (tfs_opt__set_type(&a, "T", TFS_FLOAT) ||
      tfs_opt__set_int(&a, "num_args", nbias) ||
      tfs_opt__set_strings(&a, "node_names", names, 3)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[5] = {m.a, m.b, m.wa, m.wb, m.bias};
  int r = tfs_remap__replace_if_kernel(c, v, "_TfsMatMulSum", &a, 4 + nbias,
                                       in, -1, -1);
  if (r < 0) return r == -2 ? 0 : -1;
  if (tfs_remap__drop_inner(c, r, m.inner, 3)) return -1;
  tfs_remap__count(stats, nbias ? "MatMul+MatMul+BiasAdd -> _TfsMatMulSum"
                                : "MatMul+MatMul -> _TfsMatMulSum");
  return 1;
}

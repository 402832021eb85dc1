/*
 * optimizer/remap_lstm.c - the remapper's LSTM cell gates: the ten ops a
 * Keras LSTM cell runs after its products (and tf.keras's, in the same
 * gate order i, f, c, o),
 *
 *   s = Split(1, z, num_split 4)
 *   c = Sigmoid(s:1) * c_prev + Sigmoid(s:0) * Tanh(s:2)
 *   h = Sigmoid(s:3) * Tanh(c)
 *
 * become one _TfsLstmGates(z, c_prev) -> (h, c) (tfsess-only), which
 * takes h's name; c's consumers read its second output.  In a loop body
 * each step then runs one node where it ran ten, and writes two tensors
 * where it wrote ten.
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

enum { LG_INNER = 9 };

typedef struct lg_match {
  tfs_oref z, cp;
  int c;                 /* the AddV2 / Add making c */
  int inner[LG_INNER];   /* the other nodes, c and the Split included */
} lg_match;

static int is_op(const tfs_ograph *g, int p, const char *op) {
  return p >= 0 && tfs_og__is(g, p, op);
}

/* Node p is op `op` with one float output, on `device`, without control
 * edges, removable, with `uses` data consumers. */
static int inner_ok(const tfs_ograph *g, int p, const char *op,
                    const char *device, int uses) {
  return is_op(g, p, op) && g->n[p].nout >= 1 &&
         g->n[p].out_types[0] == TFS_FLOAT && tfs_og__removable(g, p) &&
         g->n[p].nctrl == 0 && g->n[p].ncfan == 0 &&
         strcmp(g->n[p].device, device) == 0 && g->n[p].nfan == uses;
}

/* Input k of node p comes from port `port` of the Split s through a
 * `op` (Sigmoid or Tanh) used once: that node, or -1. */
static int gate_of(const tfs_ograph *g, int p, int k, const char *op, int s,
                   int port, const char *dev) {
  int a = tfs_og__producer(g, p, k);
  if (!inner_ok(g, a, op, dev, 1)) return -1;
  tfs_oref in = g->n[a].in[0];
  return in.node == s && in.port == port ? a : -1;
}

/* The Split of four along axis 1 of a rank-2 float z that node a reads. */
static int split_of(const tfs_ograph *g, int a, const char *dev) {
  int s = tfs_og__producer(g, a, 0);
  if (!inner_ok(g, s, "Split", dev, 4) || g->n[s].nout != 4) return -1;
  for (int p = 0; p < 4; p++)
    if (tfs_og__port_uses(g, s, p) != 1) return -1;
  const tfs_tensor *ax = tfs_og__const_value(g, g->n[s].in[0]);
  const tfs_shape *zs = tfs_og__shape(g, g->n[s].in[1]);
  if (!ax || ax->nelems != 1 || ax->dtype != TFS_INT32 || zs->rank != 2 ||
      tfs_og__dtype(g, g->n[s].in[1]) != TFS_FLOAT)
    return -1;
  int32_t v = ((const int32_t *)ax->data)[0];
  return v == 1 || v == -1 ? s : -1;
}

/* c = Sigmoid(s:1) * c_prev + Sigmoid(s:0) * Tanh(s:2), either order in
 * each two-input node; fills lm but for the root's own part. */
static int match_c(const tfs_ograph *g, int add, int s, const char *dev,
                   lg_match *lm) {
  for (int o = 0; o < 2; o++) {
    int fc = tfs_og__producer(g, add, o), ig = tfs_og__producer(g, add, 1 - o);
    if (!inner_ok(g, fc, "Mul", dev, 1) || !inner_ok(g, ig, "Mul", dev, 1) ||
        g->n[fc].nin != 2 || g->n[ig].nin != 2)
      continue;
    for (int q = 0; q < 2; q++) {
      int fs = gate_of(g, fc, q, "Sigmoid", s, 1, dev);
      if (fs < 0) continue;
      for (int r = 0; r < 2; r++) {
        int is = gate_of(g, ig, r, "Sigmoid", s, 0, dev);
        int gt = gate_of(g, ig, 1 - r, "Tanh", s, 2, dev);
        if (is < 0 || gt < 0) continue;
        lm->cp = g->n[fc].in[1 - q];
        if (tfs_og__dtype(g, lm->cp) != TFS_FLOAT) return 0;
        lm->inner[2] = fc;
        lm->inner[3] = ig;
        lm->inner[4] = fs;
        lm->inner[5] = is;
        lm->inner[6] = gt;
        return 1;
      }
    }
  }
  return 0;
}

/* h = Sigmoid(s:3) * Tanh(c), either order. */
static int match(const tfs_ograph *g, int root, lg_match *lm) {
  const char *dev = g->n[root].device;
  if (!is_op(g, root, "Mul") || g->n[root].nin != 2 ||
      g->n[root].out_types[0] != TFS_FLOAT)
    return 0;
  for (int k = 0; k < 2; k++) {
    int os = tfs_og__producer(g, root, k);
    int th = tfs_og__producer(g, root, 1 - k);
    if (!inner_ok(g, os, "Sigmoid", dev, 1) || !inner_ok(g, th, "Tanh", dev, 1))
      continue;
    int s = split_of(g, os, dev);
    if (s < 0 || g->n[os].in[0].port != 3) continue;
    int add = tfs_og__producer(g, th, 0);
    if (!(is_op(g, add, "AddV2") || is_op(g, add, "Add")) ||
        g->n[add].nin != 2 || g->n[add].out_types[0] != TFS_FLOAT ||
        !tfs_og__removable(g, add) || g->n[add].nctrl || g->n[add].ncfan ||
        strcmp(g->n[add].device, dev) != 0 ||
        !match_c(g, add, s, dev, lm))
      continue;
    lm->z = g->n[s].in[1];
    lm->c = add;
    lm->inner[0] = os;
    lm->inner[1] = th;
    lm->inner[7] = s;
    lm->inner[8] = add;
    return 1;
  }
  return 0;
}

int tfs_remap__lstm_gates(tfs_opt_ctx *c, int v, tfs_remap_stats *stats) {
  tfs_ograph *g = c->g;
  lg_match lm;
  if (c->cfg->tf_compatible || !tfs_og__replaceable(g, v) || !match(g, v, &lm))
    return 0;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", TFS_FLOAT)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {lm.z, lm.cp};
  int r = tfs_remap__replace_if_kernel(c, v, "_TfsLstmGates", &a, 2, in, -1,
                                       -1);
  if (r < 0) return r == -2 ? 0 : -1;
  /* c's other consumers read the new node's c */
  if (tfs_og__forward(g, (tfs_oref){lm.c, 0}, (tfs_oref){r, 1})) {
    TFS_OOM(c->st);
    return -1;
  }
  if (tfs_remap__drop_inner(c, r, lm.inner, LG_INNER)) return -1;
  tfs_remap__count(stats, "LSTM cell gates -> _TfsLstmGates");
  return 1;
}

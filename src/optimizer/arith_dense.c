/*
 * optimizer/arith_dense.c - the arithmetic optimizer's dense layers
 * written as batched products (Keras's EinsumDense, the projections of
 * keras.layers.MultiHeadAttention):
 *
 *   BatchMatMulV2 | BatchMatMul(x [d0, ..., m, k], W [k, n]), adj_x false,
 *   W constant, x's dims known (the first may be unknown)
 *       -> Reshape(MatMul(Reshape(x, [-1, k]), W, transpose_b = adj_y),
 *                  [d0, ..., m, n])
 *
 *   AddV2 | Add(Reshape(t [..., n]), c), the Reshape's last dims c's
 *   (c constant: [p, q, ...] with p * q ... = n, leading ones allowed),
 *   the Reshape read there alone
 *       -> Reshape(BiasAdd(t, c as [n]))
 *
 * The product is the same dot products in the same order (a broadcast W
 * is one matrix for every row); the MatMul's weights are then packed
 * once at plan time and its bias, which the second rule brings next to
 * it (EinsumDense adds its bias after splitting the heads), fuses into
 * it.  Both rewrites are TensorFlow's ops.
 */
#include <string.h>

#include "core/status.h"
#include "optimizer/arith_dense.h"
#include "optimizer/opt_util.h"

/* Reshape of x to the constant shape dims (n), named from base. */
static int add_reshape(tfs_opt_ctx *c, tfs_oref x, const int64_t *dims, int n,
                       const char *base, const char *device) {
  int k = tfs_opt__int32_const(c, dims, n, base, device);
  if (k < 0) return -1;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_og__dtype(c->g, x)) ||
      tfs_opt__set_type(&a, "Tshape", TFS_INT32)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {x, {k, 0}};
  tfs_onode_spec spec = {.base = base, .op = "Reshape", .device = device,
                         .attrs = &a, .nin = 2, .in = in};
  return tfs_og__add(c->g, &spec, c->st);
}

int tfs_arith__bmm_dense(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  const tfs_onode *n = &g->n[v];
  if ((!tfs_og__is(g, v, "BatchMatMulV2") &&
       !tfs_og__is(g, v, "BatchMatMul")) ||
      n->nin != 2 || n->nctrl)
    return 0;
  const tfs_dtype t = tfs_og__type_attr(g, v, "T");
  if (t != TFS_FLOAT && t != TFS_DOUBLE && t != TFS_HALF &&
      t != TFS_BFLOAT16)
    return 0;
  int adj_x = 0, adj_y = 0;
  tfs_attrs_get_bool(n->attrs, "adj_x", &adj_x);
  tfs_attrs_get_bool(n->attrs, "adj_y", &adj_y);
  const tfs_shape *xs = tfs_og__shape(g, n->in[0]);
  const tfs_shape *ws = tfs_og__shape(g, n->in[1]);
  const tfs_shape *os = &n->out_shapes[0];
  if (adj_x || !tfs_og__const_value(g, n->in[1]) || ws->rank != 2 ||
      xs->rank < 3 || os->rank != xs->rank)
    return 0;
  const int64_t k = xs->dims[xs->rank - 1];
  const int64_t cols = ws->dims[adj_y ? 0 : 1];
  if (k <= 0 || cols <= 0 || ws->dims[adj_y ? 1 : 0] != k) return 0;
  int64_t out_dims[TFS_MAX_RANK];
  for (int i = 0; i < xs->rank; i++) {
    out_dims[i] = i + 1 == xs->rank ? cols : xs->dims[i];
    if (out_dims[i] < 0 && i > 0) return 0; /* one unknown dim: the first */
    if (out_dims[i] < 0) out_dims[i] = -1;
  }
  /* n moves when nodes are added: what is used after, in locals */
  const char *device = n->device, *name = n->name;
  const tfs_oref x = n->in[0], w = n->in[1];
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", t) ||
      tfs_opt__set_bool(&a, "transpose_a", 0) ||
      tfs_opt__set_bool(&a, "transpose_b", adj_y)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  if (!tfs_opt__has_kernel(device, tfs_op_lookup("MatMul"), &a, name)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  const int64_t rows[2] = {-1, k};
  int r = add_reshape(c, x, rows, 2, "ArithmeticOptimizer/Dense_rows",
                      device);
  if (r < 0) {
    tfs_attrs_clear(&a);
    return -1;
  }
  tfs_oref in[2] = {{r, 0}, w};
  tfs_onode_spec spec = {.base = "ArithmeticOptimizer/Dense_matmul",
                         .op = "MatMul", .device = device, .attrs = &a,
                         .nin = 2, .in = in};
  int m = tfs_og__add(g, &spec, c->st);
  if (m < 0) return -1;
  int k2 = tfs_opt__int32_const(c, out_dims, xs->rank,
                                "ArithmeticOptimizer/Dense_shape", device);
  tfs_attrs ra;
  tfs_attrs_init(&ra);
  if (k2 < 0 || tfs_opt__set_type(&ra, "T", t) ||
      tfs_opt__set_type(&ra, "Tshape", TFS_INT32)) {
    tfs_attrs_clear(&ra);
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  tfs_oref rin[2] = {{m, 0}, {k2, 0}};
  return tfs_opt__rebuild(c, v, "Reshape", &ra, 2, rin) < 0 ? -1 : 1;
}

/* c's dims without its leading ones, in *d (their count), when it is a
 * constant of 1 to 4 dims. */
static int trailing_dims(const tfs_tensor *cv, int64_t *d) {
  if (!cv || cv->shape.rank < 1 || cv->shape.rank > 4) return -1;
  int lead = 0;
  while (lead + 1 < cv->shape.rank && cv->shape.dims[lead] == 1) lead++;
  int nd = cv->shape.rank - lead;
  memcpy(d, cv->shape.dims + lead, sizeof(int64_t) * (size_t)nd);
  return nd;
}

int tfs_arith__bias_split(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  const tfs_onode *n = &g->n[v];
  if ((!tfs_og__is(g, v, "AddV2") && !tfs_og__is(g, v, "Add")) ||
      n->nin != 2 || n->nout != 1)
    return 0;
  const tfs_dtype t = n->out_types[0];
  if (t != TFS_FLOAT && t != TFS_DOUBLE && t != TFS_HALF && t != TFS_BFLOAT16)
    return 0;
  for (int side = 0; side < 2; side++) {
    int p = tfs_og__producer(g, v, side);
    const tfs_tensor *cv = tfs_og__const_value(g, n->in[1 - side]);
    if (p < 0 || !tfs_og__is(g, p, "Reshape") || n->in[side].port != 0 ||
        !cv || cv->dtype != t || !tfs_opt__single_use(g, p) ||
        !tfs_og__removable(g, p) || g->n[p].nctrl ||
        strcmp(g->n[p].device, n->device) != 0)
      continue;
    const tfs_shape *ts = tfs_og__shape(g, g->n[p].in[0]);
    const tfs_shape *rs = &g->n[p].out_shapes[0];
    int64_t cd[4];
    int nd = trailing_dims(cv, cd);
    if (nd < 1 || ts->rank < 1 || rs->rank < nd || cv->shape.rank > rs->rank)
      continue;
    const int64_t last = ts->dims[ts->rank - 1];
    int64_t prod = 1, ok = last > 0;
    for (int i = 0; i < nd && ok; i++) {
      ok = rs->dims[rs->rank - nd + i] == cd[i] && cd[i] > 0;
      prod *= cd[i];
    }
    /* the Reshape's trailing dims are c's and hold t's last dimension:
     * element j of a row of t is element j of the same row of them (row
     * major), so the dims before are t's rows in any grouping */
    if (!ok || prod != last || !tfs_shape_equal(rs, &n->out_shapes[0]))
      continue;
    /* n and g->n[p] move when nodes are added: what is used after, in
     * locals */
    const char *device = n->device, *name = n->name;
    const tfs_oref y = g->n[p].in[0], shape = g->n[p].in[1];
    tfs_attrs a;
    tfs_attrs_init(&a);
    if (tfs_opt__set_type(&a, "T", t)) {
      tfs_attrs_clear(&a);
      TFS_OOM(c->st);
      return -1;
    }
    if (!tfs_opt__has_kernel(device, tfs_op_lookup("BiasAdd"), &a, name)) {
      tfs_attrs_clear(&a);
      return 0;
    }
    tfs_shape fs = {.rank = 1, .dims = {last}};
    tfs_tensor *flat = tfs_opt__tensor(t, &fs, c->st);
    if (!flat) {
      tfs_attrs_clear(&a);
      return -1;
    }
    memcpy(flat->data, cv->data, cv->nbytes);
    int b = tfs_opt__const(c, flat, "ArithmeticOptimizer/SplitBias_bias",
                           device);
    tfs_tensor_free(flat);
    if (b < 0) {
      tfs_attrs_clear(&a);
      return -1;
    }
    tfs_oref in[2] = {y, {b, 0}};
    tfs_onode_spec spec = {.base = "ArithmeticOptimizer/SplitBias",
                           .op = "BiasAdd", .device = device,
                           .attrs = &a, .nin = 2, .in = in};
    int k = tfs_og__add(g, &spec, c->st);
    if (k < 0) return -1;
    tfs_attrs ra;
    if (tfs_opt__copy_attrs(g, p, &ra)) {
      TFS_OOM(c->st);
      return -1;
    }
    tfs_oref rin[2] = {{k, 0}, shape};
    if (tfs_opt__rebuild(c, v, "Reshape", &ra, 2, rin) < 0) return -1;
    if (tfs_og__live(g, p)) tfs_og__kill_unused(g, p);
    return 1;
  }
  return 0;
}

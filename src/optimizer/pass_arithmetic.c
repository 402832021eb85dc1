/*
 * optimizer/pass_arithmetic.c - arithmetic_optimizer: peephole rewrites
 * run to a fixed point: neutral elements (x*1, x/1, x+0, x-0), involutions
 * (Neg(Neg x), Reciprocal(Reciprocal x), LogicalNot(LogicalNot x)),
 * identity and composed Transposes, no-op and chained Reshapes, Add/AddN
 * of identical inputs -> Mul(x, n), common factors hoisted out of sums
 * (a*b + a*c -> a*(b+c), b/a + c/a -> (b+c)/a), Div / RealDiv of a
 * floating type by a constant -> Mul by a Const of the reciprocal (as
 * TensorFlow's constant folding does it: a product by the rounded
 * reciprocal can differ from the quotient by one ulp, and TensorFlow's
 * results are the product's), Pow with a constant exponent -> Square /
 * Mul(x, Square) / Sqrt / Rsqrt / Reciprocal / Identity / ones
 * (TensorFlow's ConvertPow), Mul/Div by constants folded into MatMul /
 * Conv2D weights and constant affine maps after a contraction folded
 * into its weights and a BiasAdd (arith_weights.c), and a BiasAdd,
 * activation or widening Cast of a Reshape moved before it (Keras's
 * Dense on 3-D inputs is Reshape, MatMul, Reshape, BiasAdd: the BiasAdd
 * then meets its MatMul, which the remapper fuses), and a zero Pad of
 * the spatial dimensions before a Conv2D or DepthwiseConv2dNative with VALID or
 * EXPLICIT padding folded into the convolution's explicit_paddings
 * (Keras's ZeroPadding2D before a strided convolution: no padded copy is
 * written).  Rewritten nodes
 * keep their names; helpers go under "ArithmeticOptimizer/", but for the
 * reciprocals, "ConstantFolding/<name>_recip" as in TensorFlow.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/status.h"
#include "core/util.h"
#include "optimizer/arith_dense.h"
#include "optimizer/arith_weights.h"
#include "optimizer/opt_util.h"

enum {
  S_NEUTRAL,
  S_INVOLUTION,
  S_TRANSPOSE,
  S_RESHAPE,
  S_AGGREGATE,
  S_HOIST,
  S_DIV,
  S_POW,
  S_WEIGHTS,
  S_AFFINE,
  S_DENSE,
  S_SPLIT_BIAS,
  S_SINK,
  S_PAD,
  S_COUNT
};

static const char *const kStageNames[S_COUNT] = {
    "neutral elements (x*1, x+0, ...)",
    "involutions (Neg(Neg x), ...)",
    "Transposes",
    "Reshapes",
    "sums of identical inputs -> Mul",
    "common factors hoisted",
    "Div by a constant -> Mul by its reciprocal",
    "Pow with a constant exponent simplified",
    "Mul/Div folded into weights",
    "constant scale/shift folded into weights and BiasAdd",
    "BatchMatMul by a constant matrix -> MatMul",
    "bias of split heads -> BiasAdd before the Reshape",
    "BiasAdd, activation or Cast moved before a Reshape",
    "zero Pad folded into a convolution's padding"};

static int is_op(const tfs_ograph *g, int i, const char *op) {
  return i >= 0 && strcmp(g->n[i].def->name, op) == 0;
}

/* ---- x*1, x/1, x+0, x-0 -------------------------------------------------- */

static int neutral(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  double want;
  int both;
  if (strcmp(op, "Mul") == 0) {
    want = 1;
    both = 1;
  } else if (strcmp(op, "Div") == 0 || strcmp(op, "RealDiv") == 0) {
    want = 1;
    both = 0;
  } else if (strcmp(op, "Add") == 0 || strcmp(op, "AddV2") == 0) {
    want = 0;
    both = 1;
  } else if (strcmp(op, "Sub") == 0) {
    want = 0;
    both = 0;
  } else {
    return 0;
  }
  if (n->nin != 2) return 0;
  for (int k = both ? 0 : 1; k < 2; k++) {
    const tfs_tensor *t = tfs_og__const_value(g, n->in[k]);
    tfs_oref x = n->in[1 - k];
    if (!t || !tfs_opt__tensor_all(t, want)) continue;
    if (tfs_og__dtype(g, x) != n->out_types[0]) continue;
    if (!tfs_opt__broadcasts_into(&t->shape, tfs_og__shape(g, x))) continue;
    return tfs_opt__bypass(c, v, x) ? -1 : 1;
  }
  return 0;
}

/* ---- involutions --------------------------------------------------------- */

static int involution(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  if (strcmp(op, "Neg") != 0 && strcmp(op, "Reciprocal") != 0 &&
      strcmp(op, "LogicalNot") != 0 && strcmp(op, "Conj") != 0)
    return 0;
  if (n->nin != 1) return 0;
  int p = tfs_og__producer(g, v, 0);
  if (!is_op(g, p, op) || (g->n[p].flags & TFS_ON_SIDE_EFFECT)) return 0;
  return tfs_opt__bypass(c, v, g->n[p].in[0]) ? -1 : 1;
}

/* ---- Transposes ------------------------------------------------------------
 */

static int read_perm(const tfs_ograph *g, tfs_oref s, int64_t *perm, int *n) {
  const tfs_tensor *t = tfs_og__const_value(g, s);
  if (!t || t->shape.rank != 1 || t->nelems > TFS_MAX_RANK ||
      (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return -1;
  *n = (int)t->nelems;
  for (int i = 0; i < *n; i++) perm[i] = tfs_tensor__get_as_int64(t, i);
  return 0;
}

static int is_identity_perm(const int64_t *perm, int n) {
  for (int i = 0; i < n; i++)
    if (perm[i] != i) return 0;
  return 1;
}

static int transpose(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  if (!is_op(g, v, "Transpose") || g->n[v].nin != 2) return 0;
  int64_t p2[TFS_MAX_RANK], p1[TFS_MAX_RANK];
  int n2, n1;
  if (read_perm(g, g->n[v].in[1], p2, &n2)) return 0;
  if (is_identity_perm(p2, n2))
    return tfs_opt__bypass(c, v, g->n[v].in[0]) ? -1 : 1;
  int p = tfs_og__producer(g, v, 0);
  if (!is_op(g, p, "Transpose") || (g->n[p].flags & TFS_ON_SIDE_EFFECT) ||
      read_perm(g, g->n[p].in[1], p1, &n1) || n1 != n2)
    return 0;
  int64_t comp[TFS_MAX_RANK];
  for (int i = 0; i < n2; i++) {
    if (p2[i] < 0 || p2[i] >= n1) return 0;
    comp[i] = p1[p2[i]];
  }
  tfs_oref x = g->n[p].in[0];
  if (is_identity_perm(comp, n2)) return tfs_opt__bypass(c, v, x) ? -1 : 1;
  tfs_shape s;
  tfs_shape_1d(&s, n2);
  tfs_tensor *t = tfs_opt__tensor(TFS_INT32, &s, c->st);
  if (!t) return -1;
  for (int i = 0; i < n2; i++) tfs_opt__set(t, i, (double)comp[i]);
  char *base = tfs_asprintf("ArithmeticOptimizer/ComposeTranspose_%s_perm",
                            g->n[v].name);
  int k = base ? tfs_opt__const(c, t, base, g->n[v].device) : -1;
  tfs_free(base);
  tfs_tensor_free(t);
  if (k < 0) return -1;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_og__dtype(g, x)) ||
      tfs_opt__set_type(&a, "Tperm", TFS_INT32)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {x, {k, 0}};
  int nv = tfs_opt__rebuild(c, v, "Transpose", &a, 2, in);
  if (nv < 0) return -1;
  tfs_og__kill_unused(g, p);
  return tfs_opt__absorb(c, nv, p) ? -1 : 1;
}

/* ---- Reshapes
 * ---------------------------------------------------------------- */

static int reshape(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  if (!is_op(g, v, "Reshape") || g->n[v].nin != 2) return 0;
  const tfs_shape *in = tfs_og__shape(g, g->n[v].in[0]);
  const tfs_shape *out = &g->n[v].out_shapes[0];
  if (tfs_shape_is_fully_defined(in) && tfs_shape_equal(in, out))
    return tfs_opt__bypass(c, v, g->n[v].in[0]) ? -1 : 1;
  int p = tfs_og__producer(g, v, 0);
  if (!is_op(g, p, "Reshape") || (g->n[p].flags & TFS_ON_SIDE_EFFECT)) return 0;
  if (tfs_og__set_input(g, v, 0, g->n[p].in[0])) {
    TFS_OOM(c->st);
    return -1;
  }
  tfs_og__kill_unused(g, p);
  return tfs_opt__absorb(c, v, p) ? -1 : 1;
}

/* ---- Add(x, x), AddN(x, ..., x) -> Mul(x, n) -------------------------------
 */

static int aggregate(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  if (strcmp(op, "Add") != 0 && strcmp(op, "AddV2") != 0 &&
      strcmp(op, "AddN") != 0)
    return 0;
  if (n->nin < 2) return 0;
  tfs_oref x = n->in[0];
  for (int k = 1; k < n->nin; k++)
    if (n->in[k].node != x.node || n->in[k].port != x.port) return 0;
  tfs_dtype dt = n->out_types[0];
  if (dt != TFS_FLOAT && dt != TFS_DOUBLE && dt != TFS_INT32 &&
      dt != TFS_INT64 && dt != TFS_HALF && dt != TFS_BFLOAT16)
    return 0;
  if (!tfs_shape_equal(tfs_og__shape(g, x), &n->out_shapes[0])) return 0;
  char *base =
      tfs_asprintf("ArithmeticOptimizer/SimplifyAggregation_%s_n", n->name);
  int k =
      base ? tfs_opt__scalar_const(c, dt, (double)n->nin, base, n->device) : -1;
  tfs_free(base);
  if (k < 0) {
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", dt)) {
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {x, {k, 0}};
  return tfs_opt__rebuild(c, v, "Mul", &a, 2, in) < 0 ? -1 : 1;
}

/* ---- hoisting common factors
 * ------------------------------------------------- */

static int same_ref(tfs_oref a, tfs_oref b) {
  return a.node == b.node && a.port == b.port;
}

static int hoist(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  if (strcmp(op, "Add") != 0 && strcmp(op, "AddV2") != 0 &&
      strcmp(op, "Sub") != 0)
    return 0;
  if (n->nin != 2) return 0;
  int a = tfs_og__producer(g, v, 0), b = tfs_og__producer(g, v, 1);
  if (a < 0 || b < 0 || a == b) return 0;
  if (!tfs_opt__single_use(g, a) || !tfs_opt__single_use(g, b)) return 0;
  const char *oa = g->n[a].def->name, *ob = g->n[b].def->name;
  int mul = strcmp(oa, "Mul") == 0 && strcmp(ob, "Mul") == 0;
  int div = strcmp(oa, ob) == 0 &&
            (strcmp(oa, "RealDiv") == 0 || strcmp(oa, "Div") == 0);
  if (!mul && !div) return 0;
  tfs_oref common = {-1, 0}, x = {-1, 0}, y = {-1, 0};
  if (mul) {
    for (int i = 0; i < 2 && common.node < 0; i++)
      for (int j = 0; j < 2 && common.node < 0; j++)
        if (same_ref(g->n[a].in[i], g->n[b].in[j])) {
          common = g->n[a].in[i];
          x = g->n[a].in[1 - i];
          y = g->n[b].in[1 - j];
        }
  } else if (same_ref(g->n[a].in[1], g->n[b].in[1])) {
    common = g->n[a].in[1];
    x = g->n[a].in[0];
    y = g->n[b].in[0];
  }
  if (common.node < 0) return 0;
  const tfs_shape *sx = tfs_og__shape(g, x), *sy = tfs_og__shape(g, y);
  if (!tfs_shape_is_fully_defined(sx) || !tfs_shape_equal(sx, sy)) return 0;
  if (!tfs_shape_equal(&g->n[a].out_shapes[0], &n->out_shapes[0])) return 0;
  tfs_dtype dt = n->out_types[0];
  tfs_attrs ia, oa2;
  tfs_attrs_init(&ia);
  tfs_attrs_init(&oa2);
  if (tfs_opt__set_type(&ia, "T", dt) || tfs_opt__set_type(&oa2, "T", dt)) {
    tfs_attrs_clear(&ia);
    tfs_attrs_clear(&oa2);
    TFS_OOM(c->st);
    return -1;
  }
  char *base =
      tfs_asprintf("ArithmeticOptimizer/HoistCommonFactor_%s", n->name);
  tfs_oref xy[2] = {x, y};
  tfs_onode_spec spec = {.base = base,
                         .op = op,
                         .device = n->device,
                         .attrs = &ia,
                         .nin = 2,
                         .in = xy};
  int inner = base ? tfs_og__add(g, &spec, c->st) : -1;
  tfs_free(base);
  if (inner < 0) {
    tfs_attrs_clear(&ia);
    tfs_attrs_clear(&oa2);
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2];
  const char *outer_op = mul ? "Mul" : oa;
  if (mul) {
    in[0] = common;
    in[1] = (tfs_oref){inner, 0};
  } else {
    in[0] = (tfs_oref){inner, 0};
    in[1] = common;
  }
  int nv = tfs_opt__rebuild(c, v, outer_op, &oa2, 2, in);
  if (nv < 0) return -1;
  tfs_og__kill_unused(g, a);
  tfs_og__kill_unused(g, b);
  return tfs_opt__absorb(c, nv, a) || tfs_opt__absorb(c, nv, b) ? -1 : 1;
}

/* ---- Pow(x, c) with a constant exponent (TensorFlow's ConvertPow) -------- */

/* 1 when the op's kernel exists on v's device for dtype dt. */
static int kernel_for(const tfs_ograph *g, int v, const char *op,
                      tfs_dtype dt) {
  const tfs_op_def *def = tfs_op_lookup(op);
  tfs_attrs a;
  tfs_attrs_init(&a);
  int ok = def &&
           !tfs_opt__set_type(&a, strcmp(op, "Const") ? "T" : "dtype", dt) &&
           tfs_opt__has_kernel(g->n[v].device, def, &a, g->n[v].name);
  tfs_attrs_clear(&a);
  return ok;
}

/* Pow(x, 0) -> a Const of ones with x's (fully known) shape, ordered
 * after x by a control edge, as TensorFlow does. */
static int pow_to_ones(tfs_opt_ctx *c, int v, tfs_oref x) {
  tfs_ograph *g = c->g;
  tfs_dtype dt = g->n[v].out_types[0];
  tfs_tensor *t = tfs_opt__tensor(dt, &g->n[v].out_shapes[0], c->st);
  if (!t) return -1;
  for (int64_t i = 0; i < t->nelems; i++) tfs_opt__set(t, i, 1.0);
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value val;
  tfs_attr_tensor(&val, t);
  int bad =
      tfs_attrs_set(&a, "value", &val) || tfs_opt__set_type(&a, "dtype", dt);
  tfs_tensor_free(t);
  if (bad) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  int k = tfs_opt__rebuild(c, v, "Const", &a, 0, NULL);
  if (k < 0) return -1;
  if (tfs_og__add_ctrl(g, k, x.node)) {
    TFS_OOM(c->st);
    return -1;
  }
  return 1;
}

/* Pow(x, 3) -> Mul(x, Square(x)), CPU only as in TensorFlow. */
static int pow_to_cube(tfs_opt_ctx *c, int v, tfs_oref x) {
  tfs_ograph *g = c->g;
  tfs_dtype dt = g->n[v].out_types[0];
  tfs_attrs sa, ma;
  tfs_attrs_init(&sa);
  tfs_attrs_init(&ma);
  char *base =
      tfs_asprintf("ArithmeticOptimizer/ConvertPow_%s_inner", g->n[v].name);
  if (!base || tfs_opt__set_type(&sa, "T", dt) ||
      tfs_opt__set_type(&ma, "T", dt)) {
    tfs_free(base);
    tfs_attrs_clear(&sa);
    tfs_attrs_clear(&ma);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_onode_spec spec = {.base = base,
                         .op = "Square",
                         .device = g->n[v].device,
                         .attrs = &sa,
                         .nin = 1,
                         .in = &x};
  int sq = tfs_og__add(g, &spec, c->st);
  tfs_free(base);
  if (sq < 0) {
    tfs_attrs_clear(&ma);
    return -1;
  }
  tfs_oref in[2] = {x, {sq, 0}};
  return tfs_opt__rebuild(c, v, "Mul", &ma, 2, in) < 0 ? -1 : 1;
}

/* ---- Div / RealDiv by a constant -> Mul by its reciprocal
 * ------------------------------------------------------------------ */

/* 1 / d elementwise (d floating), or NULL with st set. */
static tfs_tensor *reciprocal_of(const tfs_tensor *d, tfs_status *st) {
  tfs_tensor *r = tfs_tensor__alloc(d->dtype, &d->shape, st);
  if (!r) return NULL;
  int64_t n = d->nelems;
  if (d->dtype == TFS_FLOAT) {
    const float *s = d->data;
    float *o = r->data;
    for (int64_t i = 0; i < n; i++) o[i] = 1.0f / s[i];
  } else if (d->dtype == TFS_DOUBLE) {
    const double *s = d->data;
    double *o = r->data;
    for (int64_t i = 0; i < n; i++) o[i] = 1.0 / s[i];
  } else {
    int bf = d->dtype == TFS_BFLOAT16;
    const uint16_t *s = d->data;
    uint16_t *o = r->data;
    for (int64_t i = 0; i < n; i++) {
      float v = bf ? tfs_bf16_to_float(s[i]) : tfs_half_to_float(s[i]);
      o[i] = bf ? tfs_float_to_bf16(1.0f / v) : tfs_float_to_half(1.0f / v);
    }
  }
  return r;
}

/* Div or RealDiv node v of a floating type whose divisor is a Const
 * without control inputs, when Mul has a kernel on v's device. */
static int div_by_const(const tfs_ograph *g, int v) {
  const tfs_onode *n = &g->n[v];
  if ((!tfs_og__is(g, v, "RealDiv") && !tfs_og__is(g, v, "Div")) ||
      n->nin != 2 || n->nout != 1 || !tfs_og__replaceable(g, v) ||
      !tfs_opt__is_float(n->out_types[0]))
    return 0;
  const tfs_tensor *d = tfs_og__const_value(g, n->in[1]);
  if (!d || d->dtype != n->out_types[0] || g->n[n->in[1].node].nctrl != 0)
    return 0;
  const tfs_op_def *def = tfs_op_lookup("Mul");
  tfs_attrs a;
  tfs_attrs_init(&a);
  int ok = def && !tfs_opt__set_type(&a, "T", n->out_types[0]) &&
           tfs_opt__has_kernel(n->device, def, &a, n->name);
  tfs_attrs_clear(&a);
  return ok;
}

/* Div or RealDiv by a constant (div_by_const) -> Mul(x, reciprocal), the
 * Const named as TensorFlow's constant folding names it. */
static int div_to_mul(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  if (!div_by_const(g, v)) return 0;
  tfs_onode *n = &g->n[v];
  tfs_dtype dt = n->out_types[0];
  int den = n->in[1].node;
  tfs_tensor *r = reciprocal_of(tfs_og__const_value(g, n->in[1]), c->st);
  if (!r) return -1;
  char *base = tfs_asprintf("ConstantFolding/%s_recip", n->name);
  int k = -1;
  if (base)
    k = tfs_og__add_const(g, NULL, base, n->device, r, 0, NULL, c->st);
  else
    TFS_OOM(c->st);
  tfs_free(base);
  tfs_tensor_free(r);
  if (k < 0) return -1;
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", dt)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {g->n[v].in[0], {k, 0}};
  if (tfs_opt__rebuild(c, v, "Mul", &a, 2, in) < 0) return -1;
  if (tfs_og__live(g, den)) tfs_og__kill_unused(g, den);
  return 1;
}

/* The op Pow(x, p) becomes for the exponent p, or NULL. */
static const char *pow_replacement(double p) {
  if (p == 2) return "Square";
  if (p == 3) return "Mul";
  if (p == 0.5) return "Sqrt";
  if (p == -0.5) return "Rsqrt";
  if (p == -1) return "Reciprocal";
  if (p == 1) return "Identity";
  if (p == 0) return "Const";
  return NULL;
}

/* Pow(x, c) with every element of the constant c equal to one of 2, 3,
 * 0.5, -0.5, -1, 1, 0, for floating types.  The exponent must not
 * broadcast x to a bigger shape (the rewrites compute x's shape; unlike
 * TensorFlow 2.21, which also turns Pow(x[3], 2 of shape [2,3]) into
 * Square(x)), 0 needs x's shape fully known, and the new op needs a
 * kernel on the node's device. */
static int convert_pow(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  if (!is_op(g, v, "Pow") || n->nin != 2) return 0;
  tfs_dtype dt = n->out_types[0];
  const tfs_tensor *e = tfs_og__const_value(g, n->in[1]);
  if (!tfs_opt__is_float(dt) || !e || e->dtype != dt || e->nelems < 1) return 0;
  double p = tfs_opt__get(e, 0);
  const char *op = pow_replacement(p);
  tfs_oref x = n->in[0];
  const tfs_shape *xs = tfs_og__shape(g, x);
  if (!op || !tfs_opt__tensor_all(e, p) || tfs_og__dtype(g, x) != dt ||
      !tfs_opt__broadcasts_into(&e->shape, xs) ||
      !tfs_shape_is_compatible(&n->out_shapes[0], xs) ||
      xs->rank != n->out_shapes[0].rank)
    return 0;
  if (p == 0 && !tfs_shape_is_fully_defined(xs)) return 0;
  if (p == 3 && (!tfs_opt__device_is(n->device, "CPU") ||
                 !kernel_for(g, v, "Square", dt)))
    return 0;
  if (!kernel_for(g, v, op, dt)) return 0;
  int expo = n->in[1].node, r;
  if (p == 0) {
    r = pow_to_ones(c, v, x);
  } else if (p == 3) {
    r = pow_to_cube(c, v, x);
  } else {
    tfs_attrs a;
    tfs_attrs_init(&a);
    if (tfs_opt__set_type(&a, "T", dt)) {
      TFS_OOM(c->st);
      return -1;
    }
    r = tfs_opt__rebuild(c, v, op, &a, 1, &x) < 0 ? -1 : 1;
  }
  if (r > 0 && tfs_og__live(g, expo)) tfs_og__kill_unused(g, expo);
  return r;
}

/* ---- driver
 * ------------------------------------------------------------------ */

/* ---- BiasAdd / activation of a Reshape -> Reshape of them ---------------
 */

static const char *const kSinkOps[] = {"BiasAdd",  "Relu",      "Relu6",
                                       "Elu",      "Selu",      "LeakyRelu",
                                       "Tanh",     "Sigmoid",   "_TfsGelu",
                                       "_TfsSwish", "_TfsHardSwish"};

/* Mul v by a constant of one value per channel of the last dimension as
 * its second input ([n], or [1, ..., 1, n] of at most `rank` dims):
 * Keras's LayerScale (ConvNeXt) after a Dense; n in *n. */
static int channel_scale(const tfs_ograph *g, int v, int rank, int64_t *n) {
  if (!is_op(g, v, "Mul") || g->n[v].nin != 2) return 0;
  const tfs_tensor *t = tfs_og__const_value(g, g->n[v].in[1]);
  if (!t || t->shape.rank < 1 || t->shape.rank > rank ||
      t->dtype != g->n[v].out_types[0])
    return 0;
  for (int d = 0; d + 1 < t->shape.rank; d++)
    if (t->shape.dims[d] != 1) return 0;
  *n = t->shape.dims[t->shape.rank - 1];
  return 1;
}

static int sinkable(const tfs_ograph *g, int v) {
  if (is_op(g, v, "Mul")) return 1; /* checked by channel_scale */
  for (size_t i = 0; i < sizeof(kSinkOps) / sizeof(kSinkOps[0]); i++)
    if (is_op(g, v, kSinkOps[i])) return 1;
  /* a Cast from a 16-bit float to float32 (auto mixed precision's, after
   * a bfloat16 product whose bias stays float32: it then meets the
   * product, optimizer/pass_remap.c) */
  if (!is_op(g, v, "Cast") || g->n[v].nout != 1 ||
      g->n[v].out_types[0] != TFS_FLOAT)
    return 0;
  tfs_dtype src = tfs_og__dtype(g, g->n[v].in[0]);
  return src == TFS_BFLOAT16 || src == TFS_HALF;
}

/* The last dimension Reshape p produces, or -1: from its inferred shape,
 * or, when that is unknown (a batch of unknown size), from a target
 * shape built as ConcatV2(..., Const) whose constant part ends the
 * shape (Keras's Tensordot: [the free dims of the input, N]). */
static int64_t reshape_last_dim(const tfs_ograph *g, int p) {
  const tfs_shape *rs = &g->n[p].out_shapes[0];
  if (rs->rank >= 1 && rs->dims[rs->rank - 1] >= 0)
    return rs->dims[rs->rank - 1];
  int q = tfs_og__producer(g, p, 1);
  if (!is_op(g, q, "ConcatV2") || g->n[q].nin < 3 || g->n[p].in[1].port)
    return -1;
  const tfs_tensor *ax = tfs_og__const_value(g, g->n[q].in[g->n[q].nin - 1]);
  const tfs_tensor *t = tfs_og__const_value(g, g->n[q].in[g->n[q].nin - 2]);
  if (!ax || ax->nelems != 1 || tfs_tensor__get_as_int64(ax, 0) != 0 || !t ||
      t->shape.rank != 1 || t->nelems < 1 ||
      (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return -1;
  return tfs_tensor__get_as_int64(t, t->nelems - 1);
}

/* op(Reshape(y, s)[, b]) -> Reshape(op(y[, b]), s) when the Reshape has
 * no other consumer: element-wise ops commute with it, and a BiasAdd
 * (NHWC) or a Mul by one value per channel (channel_scale) does when y's
 * last dimension is the Reshape's, both known (reshape_last_dim).  The
 * Reshape that results takes the node's name. */
static int sink_reshape(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  if (!sinkable(g, v) || n->nout != 1 || n->in[0].port != 0) return 0;
  /* bias: BiasAdd, or a Mul by one value per channel (its second input) */
  int bias = is_op(g, v, "BiasAdd") || is_op(g, v, "Mul");
  if (n->nin != (bias ? 2 : 1)) return 0;
  int p = tfs_og__producer(g, v, 0);
  if (!is_op(g, p, "Reshape") || !tfs_opt__single_use(g, p) ||
      !tfs_og__removable(g, p) || g->n[p].nctrl ||
      strcmp(g->n[p].device, n->device) != 0)
    return 0;
  tfs_oref y = g->n[p].in[0];
  const tfs_shape *ys = tfs_og__shape(g, y);
  if (bias) {
    int64_t ch = -1;
    if (is_op(g, v, "Mul") && (!channel_scale(g, v, ys->rank, &ch) ||
                               ch != ys->dims[ys->rank - 1]))
      return 0;
    if (tfs_opt__attr_is(g, v, "data_format", "NCHW") || ys->rank < 2 ||
        ys->dims[ys->rank - 1] < 0 ||
        ys->dims[ys->rank - 1] != reshape_last_dim(g, p))
      return 0;
  }
  tfs_attrs a, ra;
  tfs_attrs_init(&ra);
  /* the Reshape after it carries the node's type (a Cast's changes it) */
  if (tfs_opt__copy_attrs(g, v, &a) || tfs_opt__copy_attrs(g, p, &ra) ||
      tfs_opt__set_type(&ra, "T", n->out_types[0])) {
    tfs_attrs_clear(&a);
    tfs_attrs_clear(&ra);
    TFS_OOM(c->st);
    return -1;
  }
  char *base = tfs_asprintf("ArithmeticOptimizer/SinkReshape_%s", n->name);
  tfs_oref in[2] = {y, bias ? n->in[1] : y};
  tfs_onode_spec spec = {.base = base,
                         .op = n->def->name,
                         .device = n->device,
                         .attrs = &a,
                         .nin = n->nin,
                         .in = in};
  int k = base ? tfs_og__add(g, &spec, c->st) : -1;
  tfs_free(base);
  tfs_attrs_clear(&a);
  if (k < 0) {
    tfs_attrs_clear(&ra);
    if (tfs_status_ok(c->st)) TFS_OOM(c->st);
    return -1;
  }
  tfs_oref rin[2] = {{k, 0}, g->n[p].in[1]};
  if (tfs_opt__rebuild(c, v, "Reshape", &ra, 2, rin) < 0) return -1;
  if (tfs_og__live(g, p)) tfs_og__kill_unused(g, p);
  return 1;
}

/* ---- Pad -> Conv2D / DepthwiseConv2dNative ------------------------------
 */

/* The [4, 2] paddings of Pad (or PadV2 with a zero constant) node p as
 * 8 values, when constant, nonnegative and zero in the batch and channel
 * dimensions of data format `nchw`; -1 otherwise. */
static int zero_pad_amounts(const tfs_ograph *g, int p, int nchw,
                            int64_t pads[8]) {
  const tfs_onode *n = &g->n[p];
  if (is_op(g, p, "PadV2")) {
    const tfs_tensor *cv = n->nin == 3 ? tfs_og__const_value(g, n->in[2]) : 0;
    if (!cv || cv->nelems != 1 || !tfs_opt__tensor_all(cv, 0)) return -1;
  } else if (!is_op(g, p, "Pad") || n->nin != 2) {
    return -1;
  }
  const tfs_tensor *t = tfs_og__const_value(g, n->in[1]);
  if (!t || t->shape.rank != 2 || t->shape.dims[0] != 4 ||
      t->shape.dims[1] != 2 || (t->dtype != TFS_INT32 && t->dtype != TFS_INT64))
    return -1;
  for (int i = 0; i < 8; i++) {
    pads[i] = tfs_tensor__get_as_int64(t, i);
    if (pads[i] < 0 || pads[i] > INT32_MAX / 2) return -1;
  }
  int cdim = nchw ? 1 : 3;
  if (pads[0] || pads[1] || pads[2 * cdim] || pads[2 * cdim + 1]) return -1;
  return 0;
}

/* Whether node v reads its input 0 as a Conv2D or DepthwiseConv2dNative
 * with VALID or EXPLICIT padding (what fold_pad rewrites). */
static int pad_foldable_conv(const tfs_ograph *g, int v) {
  const char *op = g->n[v].def->name;
  return (strcmp(op, "Conv2D") == 0 ||
          strcmp(op, "DepthwiseConv2dNative") == 0) &&
         g->n[v].nin == 2 &&
         (tfs_opt__attr_is(g, v, "padding", "EXPLICIT") ||
          tfs_opt__attr_is(g, v, "padding", "VALID"));
}

/* Pad p may go into its consumers: removable, no control consumers, and
 * every data consumer such a convolution reading it as its input 0
 * (NASNet pads once for the two depthwise convolutions of a cell). */
static int pad_folds_away(const tfs_ograph *g, int p) {
  const tfs_onode *n = &g->n[p];
  if (n->ncfan || !tfs_og__removable(g, p)) return 0;
  for (int j = 0; j < n->nfan; j++)
    if (n->fan[j].port != 0 || !pad_foldable_conv(g, n->fan[j].node))
      return 0;
  return 1;
}

/* conv(Pad(x, zeros in the spatial dims), f) with VALID or EXPLICIT
 * padding -> conv(x, f) with EXPLICIT padding that adds the Pad's, when
 * every consumer of the Pad is such a convolution (pad_folds_away) and
 * the convolution's kernel on its device accepts the result.  The
 * values are the same: the padded elements are the zeros the
 * convolution's padding stands for. */
static int fold_pad(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  if ((strcmp(op, "Conv2D") != 0 && strcmp(op, "DepthwiseConv2dNative") != 0) ||
      n->nin != 2 || n->in[0].port != 0)
    return 0;
  int explicit_pad = tfs_opt__attr_is(g, v, "padding", "EXPLICIT");
  if (!explicit_pad && !tfs_opt__attr_is(g, v, "padding", "VALID")) return 0;
  int p = tfs_og__producer(g, v, 0);
  int64_t pads[8];
  if (p < 0 || !pad_folds_away(g, p) || g->n[p].nctrl ||
      strcmp(g->n[p].device, n->device) != 0 ||
      tfs_og__shape(g, g->n[p].in[0])->rank != 4 ||
      zero_pad_amounts(g, p, tfs_opt__attr_is(g, v, "data_format", "NCHW"),
                       pads))
    return 0;
  if (explicit_pad) {
    int m = 0;
    const int64_t *old =
        tfs_attrs_get_int_list(n->attrs, "explicit_paddings", &m);
    if (!old || m != 8) return 0;
    for (int i = 0; i < 8; i++) {
      if (old[i] < 0 || old[i] > INT32_MAX / 2) return 0;
      pads[i] += old[i];
    }
  }
  tfs_attrs a;
  if (tfs_opt__copy_attrs(g, v, &a) || tfs_opt__set_string(&a, "padding",
                                                           "EXPLICIT") ||
      tfs_opt__set_ints(&a, "explicit_paddings", pads, 8)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_oref in[2] = {g->n[p].in[0], n->in[1]};
  if (!tfs_opt__kernel_accepts(g, n->device, op, &a, 2, in, n->out_types[0],
                               &n->out_shapes[0], n->name)) {
    tfs_attrs_clear(&a);
    return 0;
  }
  if (tfs_opt__rebuild(c, v, op, &a, 2, in) < 0) return -1;
  if (tfs_og__live(g, p)) tfs_og__kill_unused(g, p);
  return 1;
}

typedef int (*stage_fn)(tfs_opt_ctx *c, int v);

/* The ops some stage rewrites: everything else is skipped at once. */
static const char *const kOps[] = {
    "Mul",        "Div",        "RealDiv", "Add",
    "AddV2",      "Sub",        "AddN",    "Neg",
    "Reciprocal", "LogicalNot", "Conj",    "Transpose",
    "Reshape",    "MatMul",     "Conv2D",  "DepthwiseConv2dNative",
    "Pow",        "BiasAdd",    "Relu",    "Relu6",
    "Elu",        "Selu",       "LeakyRelu", "Tanh",
    "Sigmoid",    "_TfsGelu",   "_TfsSwish", "_TfsHardSwish",
    "Cast",       "BatchMatMulV2", "BatchMatMul"};
static const tfs_op_def *g_defs[sizeof(kOps) / sizeof(kOps[0])];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void find_defs(void) {
  for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); i++)
    g_defs[i] = tfs_op_lookup(kOps[i]);
}

static int interesting(const tfs_op_def *d) {
  for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); i++)
    if (g_defs[i] == d) return 1;
  return 0;
}

int tfs_pass__arithmetic(tfs_opt_ctx *c) {
  static const stage_fn kStages[S_COUNT] = {neutral,
                                            involution,
                                            transpose,
                                            reshape,
                                            aggregate,
                                            hoist,
                                            div_to_mul,
                                            convert_pow,
                                            tfs_arith__fold_weights,
                                            tfs_arith__fold_affine,
                                            tfs_arith__bmm_dense,
                                            tfs_arith__bias_split,
                                            sink_reshape,
                                            fold_pad};
  tfs_ograph *g = c->g;
  int counts[S_COUNT] = {0};
  pthread_once(&g_once, find_defs);
  for (int sweep = 0; sweep < 8; sweep++) {
    int changed = 0;
    for (int v = 0; v < g->nn; v++) {
      if (!interesting(g->n[v].def)) continue;
      for (int s = 0; s < S_COUNT; s++) {
        if (!tfs_og__live(g, v) || !tfs_og__replaceable(g, v)) break;
        int r = kStages[s](c, v);
        if (r < 0) return -1;
        if (r > 0) {
          counts[s]++;
          changed++;
          break;
        }
      }
    }
    if (!changed) break;
  }
  int64_t total = 0;
  for (int s = 0; s < S_COUNT; s++) {
    if (!counts[s]) continue;
    tfs_opt__note(c, "%s: %d", kStageNames[s], counts[s]);
    total += counts[s];
  }
  c->changes += total;
  return g->oom ? (TFS_OOM(c->st), -1) : 0;
}

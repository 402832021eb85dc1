/*
 * tests/optimizer/randgraph.c - random valid graphs: placeholders and
 * constants, unary and broadcasting binary ops found in the registry with
 * CPU kernels, reductions, shape queries, reshapes and transposes,
 * identities, control edges and duplicated subgraphs; the nn and pattern
 * templates are in randgraph_nn.c.
 */
#include "randgraph.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"
#include "ops/op_def.h"
#include "ops/shape_ctx.h"

/* ---- random numbers ------------------------------------------------------ */

uint64_t rg_next(rg_graph *r) {
  uint64_t x = r->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->rng = x;
  return x * 0x2545F4914F6CDD1Dull;
}

int rg_int(rg_graph *r, int lo, int hi) {
  return lo + (int)(rg_next(r) % (uint64_t)(hi - lo + 1));
}

double rg_unit(rg_graph *r) {
  return (double)(rg_next(r) >> 11) / 9007199254740992.0;
}

/* ---- the op lists found in the registry ------------------------------------
 */

#define MAX_OPS 128
static const char *g_unary[MAX_OPS], *g_binary[MAX_OPS], *g_binary_int[MAX_OPS];
static int g_nunary, g_nbinary, g_nbinary_int;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static const char *const kSafeUnary[] = {
    "Neg",      "Abs",   "Relu",      "Relu6", "Tanh",     "Sigmoid",
    "Sin",      "Cos",   "Softsign",  "Elu",   "Identity", "StopGradient",
    "Snapshot", "Floor", "Ceil",      "Round", "Sign",     "LeakyRelu",
    "Selu",     "Erf",   "_TfsSwish", NULL};
static const char *const kSafeBinary[] = {"Add",     "AddV2",   "Sub", "Mul",
                                          "Maximum", "Minimum", NULL};
static const char *const kIntUnsafe[] = {
    "Div",     "FloorDiv", "TruncateDiv", "Mod",       "FloorMod",   "Pow",
    "RealDiv", "DivNoNan", "Xdivy",       "LeftShift", "RightShift", NULL};

static int listed(const char *const *l, const char *s) {
  for (; *l; l++)
    if (strcmp(*l, s) == 0) return 1;
  return 0;
}

static int has_kernel(const tfs_op_def *d, tfs_dtype t) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value v;
  tfs_attr_type_val(&v, t);
  tfs_attrs_set(&a, "T", &v);
  tfs_status *st = tfs_status_new();
  int ok = tfs_kernel_find(d, "CPU", &a, d->name, st) != NULL;
  tfs_status_free(st);
  tfs_attrs_clear(&a);
  return ok;
}

static int t_allows(const tfs_op_def *d, tfs_dtype t) {
  const tfs_attr_def *ad = tfs_op_def_attr(d, "T");
  if (!ad || ad->type != TFS_ATTR_TYPE || ad->is_list) return 0;
  if (ad->allowed.u.list.n == 0) return 1;
  for (int i = 0; i < ad->allowed.u.list.n; i++)
    if (((tfs_dtype *)ad->allowed.u.list.v)[i] == t) return 1;
  return 0;
}

static void discover(void) {
  int n;
  const tfs_op_def *const *all = tfs_op_all(&n);
  for (int i = 0; i < n; i++) {
    const tfs_op_def *d = all[i];
    if (d->flags & (TFS_OP_STATEFUL | TFS_OP_NO_FOLD)) continue;
    if (d->noutputs != 1 || d->outputs[0].type_attr == NULL ||
        strcmp(d->outputs[0].type_attr, "T") != 0)
      continue;
    if (d->ninputs == 1 && (d->flags & TFS_OP_ELEMENTWISE) &&
        d->inputs[0].type_attr && t_allows(d, TFS_FLOAT) &&
        has_kernel(d, TFS_FLOAT) && g_nunary < MAX_OPS)
      g_unary[g_nunary++] = d->name;
    if (d->ninputs == 2 && d->shape_fn == tfs_shape_fn_broadcast &&
        d->inputs[0].type_attr && d->inputs[1].type_attr) {
      if (t_allows(d, TFS_FLOAT) && has_kernel(d, TFS_FLOAT) &&
          g_nbinary < MAX_OPS)
        g_binary[g_nbinary++] = d->name;
      if (t_allows(d, TFS_INT32) && has_kernel(d, TFS_INT32) &&
          !listed(kIntUnsafe, d->name) && g_nbinary_int < MAX_OPS)
        g_binary_int[g_nbinary_int++] = d->name;
    }
  }
}

/* ---- values
 * ------------------------------------------------------------------ */

char *rg_name(rg_graph *r, const char *base) {
  char buf[96];
  snprintf(buf, sizeof buf, "%s_%d", base, r->counter++);
  char *s = malloc(strlen(buf) + 1);
  if (s) memcpy(s, buf, strlen(buf) + 1);
  return s;
}

int rg_add_value(rg_graph *r, tfs_output o) {
  if (!o.oper || r->nvalues >= RG_MAX_VALUES) return -1;
  tfs_status *st = tfs_status_new();
  rg_value *v = &r->values[r->nvalues];
  v->o = o;
  v->dt = tfs_operation_output_type(o);
  v->rank = tfs_graph_tensor_num_dims(r->g, o, st);
  int ok = v->rank >= 0 && v->rank <= 4;
  if (ok) {
    tfs_graph_tensor_shape(r->g, o, v->dims, v->rank, st);
    for (int i = 0; i < v->rank; i++) ok &= v->dims[i] >= 1;
  }
  tfs_status_free(st);
  if (!ok) return -1;
  return r->nvalues++;
}

int rg_pick(rg_graph *r, tfs_dtype dt, int min_rank, int max_rank) {
  int cand[RG_MAX_VALUES], n = 0;
  for (int i = 0; i < r->nvalues; i++) {
    rg_value *v = &r->values[i];
    if (v->dt == dt && v->rank >= min_rank && v->rank <= max_rank)
      cand[n++] = i;
  }
  if (!n) return -1;
  /* favour recent values: deeper graphs */
  int k = rg_unit(r) < 0.6 ? n - 1 - rg_int(r, 0, n < 4 ? n - 1 : 3)
                           : rg_int(r, 0, n - 1);
  return cand[k];
}

tfs_output rg_const(rg_graph *r, tfs_dtype dt, const int64_t *dims, int rank,
                    double lo, double hi, tfs_status *st) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= dims[i];
  tfs_tensor *t = tfs_tensor_new(dt, dims, rank, st);
  if (!t) return (tfs_output){NULL, -1};
  for (int64_t i = 0; i < n; i++) {
    double v = lo + (hi - lo) * rg_unit(r);
    if (dt == TFS_FLOAT)
      ((float *)tfs_tensor_data(t))[i] = (float)(round(v * 16) / 16);
    else if (dt == TFS_INT32)
      ((int32_t *)tfs_tensor_data(t))[i] = (int32_t)floor(v);
    else if (dt == TFS_BOOL)
      ((uint8_t *)tfs_tensor_data(t))[i] = v > (lo + hi) / 2;
  }
  char *nm = rg_name(r, "c");
  tfs_output o = tfs_op_const(r->g, nm, t, st);
  free(nm);
  tfs_tensor_free(t);
  return o;
}

tfs_output rg_const_int(rg_graph *r, const int32_t *v, int n, int as_vector,
                        tfs_status *st) {
  int64_t d[1] = {n};
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, d, as_vector ? 1 : 0, v,
                                      sizeof(int32_t) * (size_t)n, st);
  if (!t) return (tfs_output){NULL, -1};
  char *nm = rg_name(r, "ci");
  tfs_output o = tfs_op_const(r->g, nm, t, st);
  free(nm);
  tfs_tensor_free(t);
  return o;
}

static void random_shape(rg_graph *r, int64_t *dims, int *rank, int max_rank) {
  *rank = rg_int(r, 0, max_rank);
  for (int i = 0; i < *rank; i++) dims[i] = rg_int(r, 1, 4);
}

/* A shape that broadcasts against v's: a suffix, some dims set to 1. */
static void broadcast_shape(rg_graph *r, const rg_value *v, int64_t *dims,
                            int *rank) {
  *rank = rg_int(r, 0, v->rank);
  for (int i = 0; i < *rank; i++) {
    int64_t d = v->dims[v->rank - *rank + i];
    dims[i] = rg_unit(r) < 0.3 ? 1 : d;
  }
}

tfs_output rg_act(rg_graph *r, tfs_output x, tfs_status *st) {
  static const char *const kActs[] = {"Relu",      "Relu6", "Elu",
                                      "LeakyRelu", "Tanh",  "Sigmoid"};
  const char *op = kActs[rg_int(r, 0, 5)];
  char *nm = rg_name(r, op);
  tfs_output o = tfs_op_unary(r->g, op, nm, x, st);
  free(nm);
  return o;
}

/* ---- generic templates
 * ------------------------------------------------------- */

static int t_unary(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0 || !g_nunary) return 0;
  const char *op;
  if (r->safe) {
    op = kSafeUnary[rg_int(
        r, 0, (int)(sizeof(kSafeUnary) / sizeof(kSafeUnary[0])) - 2)];
    if (!tfs_op_lookup(op)) return 0;
  } else {
    op = g_unary[rg_int(r, 0, g_nunary - 1)];
  }
  char *nm = rg_name(r, op);
  tfs_output o = tfs_op_unary(r->g, op, nm, r->values[i].o, st);
  free(nm);
  if (!o.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, o);
  return 1;
}

static int t_binary(rg_graph *r, tfs_status *st) {
  int use_int = !r->safe && rg_unit(r) < 0.25;
  tfs_dtype dt = use_int ? TFS_INT32 : TFS_FLOAT;
  int i = rg_pick(r, dt, 0, 4);
  if (i < 0) return 0;
  const char *op;
  if (use_int) {
    if (!g_nbinary_int) return 0;
    op = g_binary_int[rg_int(r, 0, g_nbinary_int - 1)];
  } else if (r->safe) {
    op = kSafeBinary[rg_int(r, 0, 5)];
  } else {
    if (!g_nbinary) return 0;
    op = g_binary[rg_int(r, 0, g_nbinary - 1)];
  }
  rg_value a = r->values[i];
  tfs_output b;
  int64_t dims[4];
  int rank;
  broadcast_shape(r, &a, dims, &rank);
  int j = rg_unit(r) < 0.5 ? rg_pick(r, dt, a.rank, a.rank) : -1;
  if (j >= 0 &&
      memcmp(r->values[j].dims, a.dims, sizeof(int64_t) * (size_t)a.rank) == 0)
    b = r->values[j].o;
  else
    b = use_int ? rg_const(r, dt, dims, rank, -5, 6, st)
                : rg_const(r, dt, dims, rank, -2, 2, st);
  if (!b.oper) return 0;
  char *nm = rg_name(r, op);
  tfs_output o = rg_unit(r) < 0.5 ? tfs_op_binary(r->g, op, nm, a.o, b, st)
                                  : tfs_op_binary(r->g, op, nm, b, a.o, st);
  free(nm);
  if (!o.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, o);
  return 1;
}

static int t_reduce(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 1, 4);
  if (i < 0) return 0;
  static const char *const kOps[] = {"Sum", "Mean", "Max", "Min", "Prod"};
  const char *op = kOps[rg_int(r, 0, r->safe ? 3 : 4)];
  int32_t axis = rg_int(r, -r->values[i].rank, r->values[i].rank - 1);
  tfs_output ax = rg_const_int(r, &axis, 1, rg_unit(r) < 0.5, st);
  tfs_op_desc *d = tfs_op_desc_new(r->g, op, NULL);
  tfs_op_desc_add_input(d, r->values[i].o);
  tfs_op_desc_add_input(d, ax);
  tfs_op_desc_set_attr_bool(d, "keep_dims", rg_unit(r) < 0.5);
  tfs_operation *op_ = tfs_op_desc_finish(d, st);
  if (!op_) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, (tfs_output){op_, 0});
  return 1;
}

static int t_transpose(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 2, 4);
  if (i < 0) return 0;
  int n = r->values[i].rank;
  int32_t perm[4] = {0, 1, 2, 3};
  for (int k = n - 1; k > 0; k--) {
    int j = rg_int(r, 0, k), t = perm[k];
    perm[k] = perm[j];
    perm[j] = t;
  }
  tfs_output x = r->values[i].o;
  int twice = rg_unit(r) < 0.4;
  for (int rep = 0; rep <= twice; rep++) {
    tfs_output p = rg_const_int(r, perm, n, 1, st);
    tfs_op_desc *d = tfs_op_desc_new(r->g, "Transpose", NULL);
    tfs_op_desc_add_input(d, x);
    tfs_op_desc_add_input(d, p);
    tfs_operation *op = tfs_op_desc_finish(d, st);
    if (!op) {
      tfs_status_clear(st);
      return 0;
    }
    x = (tfs_output){op, 0};
    if (twice && rep == 0) { /* invert: the pair cancels */
      int32_t inv[4];
      for (int k = 0; k < n; k++) inv[perm[k]] = k;
      memcpy(perm, inv, sizeof inv);
    }
  }
  rg_add_value(r, x);
  return 1;
}

static int t_reshape(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 1, 4);
  if (i < 0) return 0;
  rg_value v = r->values[i];
  int64_t n = 1;
  for (int k = 0; k < v.rank; k++) n *= v.dims[k];
  tfs_output x = v.o;
  int steps = rg_int(r, 1, 2);
  for (int s = 0; s < steps; s++) {
    int32_t shape[2];
    int rank = rg_int(r, 1, 2);
    if (rank == 1) {
      shape[0] = rg_unit(r) < 0.5 ? (int32_t)n : -1;
    } else {
      int64_t f = 1;
      for (int64_t d = 2; d <= n; d++)
        if (n % d == 0 && rg_unit(r) < 0.5) {
          f = d;
          break;
        }
      shape[0] = (int32_t)f;
      shape[1] = (int32_t)(n / f);
    }
    tfs_output sh;
    if (rg_unit(r) < 0.2 && s == 0) {
      sh = tfs_op_shape(r->g, NULL, v.o, st); /* reshape to itself */
    } else {
      sh = rg_const_int(r, shape, rank, 1, st);
    }
    char *nm = rg_name(r, "Reshape");
    x = tfs_op_reshape(r->g, nm, x, sh, st);
    free(nm);
    if (!x.oper) {
      tfs_status_clear(st);
      return 0;
    }
  }
  rg_add_value(r, x);
  return 1;
}

/* Shape / Size / Rank of a value, used as a float (Cast). */
static int t_shape(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  static const char *const kOps[] = {"Shape", "Size", "Rank"};
  const char *op = kOps[rg_int(r, 0, 2)];
  tfs_op_desc *d = tfs_op_desc_new(r->g, op, NULL);
  tfs_op_desc_add_input(d, r->values[i].o);
  tfs_operation *s = tfs_op_desc_finish(d, st);
  if (!s) {
    tfs_status_clear(st);
    return 0;
  }
  tfs_output f = tfs_op_cast(r->g, NULL, (tfs_output){s, 0}, TFS_FLOAT, st);
  if (!f.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, f);
  return 1;
}

/* Identity / StopGradient chains, NoOps and control edges. */
static int t_plumbing(rg_graph *r, tfs_status *st) {
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  tfs_output x = r->values[i].o;
  int kind = rg_int(r, 0, 3);
  if (kind == 0 || kind == 1) {
    int n = rg_int(r, 1, 3);
    for (int k = 0; k < n && x.oper; k++)
      x = tfs_op_unary(r->g, kind ? "StopGradient" : "Identity", NULL, x, st);
  } else {
    int j = rg_pick(r, TFS_FLOAT, 0, 4);
    tfs_operation *deps[2] = {r->values[j].o.oper, NULL};
    int nd = 1;
    if (kind == 3) { /* through a NoOp */
      deps[0] = tfs_op_group(r->g, NULL, deps, 1, st);
      if (deps[0] && rg_unit(r) < 0.5)
        deps[0] = tfs_op_group(r->g, NULL, deps, 1, st);
      nd = deps[0] ? 1 : 0;
    }
    x = tfs_op_with_dependencies(r->g, NULL, x, deps, nd, st);
  }
  if (!x.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, x);
  return 1;
}

/* The last op again on the same inputs (a duplicate for CSE). */
static int t_duplicate(rg_graph *r, tfs_status *st) {
  if (r->nvalues < 1) return 0;
  rg_value v = r->values[r->nvalues - 1];
  tfs_operation *op = v.o.oper;
  const char *type = tfs_operation_op_type(op);
  int nin = tfs_operation_num_inputs(op);
  if (nin < 1 || nin > 2 || strcmp(type, "Const") == 0) return 0;
  if (strcmp(type, "Placeholder") == 0) return 0;
  tfs_output ins[2];
  for (int k = 0; k < nin; k++)
    ins[k] = tfs_operation_input((tfs_input){op, k});
  tfs_op_desc *d = tfs_op_desc_new(r->g, type, NULL);
  for (int k = 0; k < nin; k++) tfs_op_desc_add_input(d, ins[k]);
  int na = tfs_operation_num_attrs(op);
  for (int k = 0; k < na; k++) {
    const char *an = tfs_operation_attr_name(op, k);
    tfs_attr_metadata md = tfs_operation_attr_metadata(op, an, st);
    if (md.is_list) continue;
    if (md.type == TFS_ATTR_KIND_TYPE)
      tfs_op_desc_set_attr_type(d, an, tfs_operation_attr_type(op, an, st));
    else if (md.type == TFS_ATTR_KIND_BOOL)
      tfs_op_desc_set_attr_bool(d, an, tfs_operation_attr_bool(op, an, st));
    else if (md.type == TFS_ATTR_KIND_FLOAT)
      tfs_op_desc_set_attr_float(d, an, tfs_operation_attr_float(op, an, st));
    else if (md.type == TFS_ATTR_KIND_INT)
      tfs_op_desc_set_attr_int(d, an, tfs_operation_attr_int(op, an, st));
  }
  tfs_status_clear(st);
  tfs_operation *dup = tfs_op_desc_finish(d, st);
  if (!dup) {
    tfs_status_clear(st);
    return 0;
  }
  if (tfs_operation_num_outputs(dup) < 1) return 1;
  /* combine both so each stays used */
  tfs_output sum = v.dt == TFS_FLOAT || v.dt == TFS_INT32
                       ? tfs_op_add(r->g, NULL, v.o, (tfs_output){dup, 0}, st)
                       : (tfs_output){dup, 0};
  if (!sum.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, sum);
  return 1;
}

/* A subgraph of constants only (constant folding). */
static int t_const_subgraph(rg_graph *r, tfs_status *st) {
  int64_t dims[4];
  int rank;
  random_shape(r, dims, &rank, 3);
  tfs_output a = rg_const(r, TFS_FLOAT, dims, rank, -2, 2, st);
  tfs_output b = rg_const(r, TFS_FLOAT, dims, rank, -2, 2, st);
  tfs_output x = tfs_op_binary(r->g, r->safe ? "Mul" : "Sub", NULL, a, b, st);
  if (x.oper && rg_unit(r) < 0.7)
    x = tfs_op_unary(r->g, r->safe ? "Tanh" : "Exp", NULL, x, st);
  if (!x.oper) {
    tfs_status_clear(st);
    return 0;
  }
  int i = rg_add_value(r, x);
  /* use it with a live value so it is not only fetched */
  int j = rg_pick(r, TFS_FLOAT, rank, 4);
  if (i >= 0 && j >= 0) {
    tfs_output y = tfs_op_add(r->g, NULL, r->values[j].o, x, st);
    if (y.oper)
      rg_add_value(r, y);
    else
      tfs_status_clear(st);
  }
  return 1;
}

static int t_cast_int(rg_graph *r, tfs_status *st) {
  if (r->safe) return 0;
  int i = rg_pick(r, TFS_FLOAT, 0, 4);
  if (i < 0) return 0;
  tfs_output c = tfs_op_cast(r->g, NULL, r->values[i].o, TFS_INT32, st);
  if (!c.oper) {
    tfs_status_clear(st);
    return 0;
  }
  rg_add_value(r, c);
  return 1;
}

/* ---- building
 * ------------------------------------------------------------------ */

typedef int (*template_fn)(rg_graph *r, tfs_status *st);

static const template_fn kGeneric[] = {
    t_unary, t_binary,   t_binary,    t_reduce,         t_transpose, t_reshape,
    t_shape, t_plumbing, t_duplicate, t_const_subgraph, t_cast_int};
#define NGENERIC ((int)(sizeof(kGeneric) / sizeof(kGeneric[0])))

static int make_inputs(rg_graph *r, tfs_status *st) {
  int nph = rg_int(r, 1, 3);
  for (int i = 0; i < nph; i++) {
    int64_t dims[4];
    int rank;
    random_shape(r, dims, &rank, 4);
    if (i == 0 && rank < 2)
      rank = 2, dims[0] = rg_int(r, 1, 3), dims[1] = rg_int(r, 2, 4);
    char *nm = rg_name(r, "x");
    tfs_output p = tfs_op_placeholder(r->g, nm, TFS_FLOAT, dims, rank, st);
    free(nm);
    if (!p.oper) return -1;
    tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, rank, st);
    if (!t) return -1;
    int64_t n = tfs_tensor_num_elements(t);
    for (int64_t k = 0; k < n; k++)
      ((float *)tfs_tensor_data(t))[k] = (float)(4 * rg_unit(r) - 2);
    r->feeds[r->nfeeds] = p;
    r->feed_values[r->nfeeds++] = t;
    rg_add_value(r, p);
  }
  return 0;
}

static void pick_fetches(rg_graph *r, tfs_status *st) {
  int want = rg_int(r, 1, 3);
  for (int tries = 0; tries < 20 && r->nfetches < want; tries++) {
    int i = r->nvalues - 1 - rg_int(r, 0, r->nvalues < 6 ? r->nvalues - 1 : 5);
    if (i < 0) break;
    tfs_output o = r->values[i].o;
    const char *type = tfs_operation_op_type(o.oper);
    if (strcmp(type, "Placeholder") == 0 || strcmp(type, "Const") == 0)
      continue;
    int dup = 0;
    for (int k = 0; k < r->nfetches; k++)
      dup |= r->fetches[k].oper == o.oper && r->fetches[k].index == o.index;
    if (dup) continue;
    if (rg_unit(r) < 0.25) { /* a fetched Identity must survive */
      tfs_output id = tfs_op_identity(r->g, NULL, o, st);
      if (id.oper) o = id;
      tfs_status_clear(st);
    }
    r->fetches[r->nfetches++] = o;
  }
}

int rg_build(rg_graph *r, uint64_t seed, int nodes, int safe, tfs_status *st) {
  pthread_once(&g_once, discover);
  memset(r, 0, sizeof(*r));
  r->rng = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
  if (!r->rng) r->rng = 1;
  for (int i = 0; i < 4; i++) rg_next(r);
  r->safe = safe;
  r->g = tfs_graph_new();
  if (!r->g || make_inputs(r, st)) return -1;
  int added = 0, nn = rg_nn_num_templates();
  for (int tries = 0; added < nodes && tries < nodes * 8; tries++) {
    int pick = rg_int(r, 0, NGENERIC + nn - 1);
    int ok = pick < NGENERIC ? kGeneric[pick](r, st)
                             : rg_nn_template(r, pick - NGENERIC, st);
    tfs_status_clear(st);
    added += ok;
  }
  pick_fetches(r, st);
  if (!r->nfetches) {
    tfs_status_set(st, TFS_INTERNAL, "random graph without a fetch");
    return -1;
  }
  tfs_status_clear(st);
  return 0;
}

void rg_free(rg_graph *r) {
  for (int i = 0; i < r->nfeeds; i++) tfs_tensor_free(r->feed_values[i]);
  tfs_graph_free(r->g);
  memset(r, 0, sizeof(*r));
}

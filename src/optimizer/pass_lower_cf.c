/*
 * optimizer/pass_lower_cf.c - lowering of functional control flow to TF1
 * control flow, as TensorFlow's LowerIfOpToSwitchMerge,
 * LowerCaseOpToSwitchMerge and LowerWhileOpToSwitchMerge do it, with the
 * branches, condition and body inlined (pass_inline.c): If and Case
 * become Switch / Merge, While becomes Enter / Merge / LoopCond / Switch /
 * NextIteration / Exit in a frame named after the node.  Also the export
 * of a graph with loops.  Part of the function optimizer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/fn_inline.h"
#include "optimizer/opt_util.h"

/* One lowering: the functional node and where its new nodes go. */
typedef struct lw {
  tfs_opt_ctx *c;
  tfs_ograph *g;
  int node;
  const char *name, *device;
} lw;

/* ---- building blocks ----------------------------------------------------- */

/* Adds node `op` named from "<node>/<what>"; `a` (may be NULL) is
 * consumed.  Returns its index or -1 with an error. */
static int add(lw *L, const char *what, const char *op, tfs_attrs *a, int nin,
               const tfs_oref *in, int nctrl, const int *ctrl) {
  char *base = tfs_asprintf("%s/%s", L->name, what);
  if (!base) {
    if (a) tfs_attrs_clear(a);
    TFS_OOM(L->c->st);
    return -1;
  }
  tfs_onode_spec spec = {.base = base, .op = op, .device = L->device,
                         .attrs = a, .nin = nin, .in = in, .nctrl = nctrl,
                         .ctrl = ctrl};
  int r = tfs_og__add(L->g, &spec, L->c->st);
  tfs_free(base);
  return r;
}

/* add() for an op whose only attr is its type attr `T` = t. */
static int add_t(lw *L, const char *what, const char *op, tfs_dtype t,
                 int nin, const tfs_oref *in, int nctrl, const int *ctrl) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_dtype_base(t))) {
    tfs_attrs_clear(&a);
    TFS_OOM(L->c->st);
    return -1;
  }
  return add(L, what, op, &a, nin, in, nctrl, ctrl);
}

/* Merge(a, b) (no control inputs); its output 0 or -1. */
static int add_merge(lw *L, const char *what, tfs_oref a, tfs_oref b) {
  tfs_attrs at;
  tfs_attrs_init(&at);
  tfs_oref in[2] = {a, b};
  if (tfs_opt__set_type(&at, "T", tfs_dtype_base(tfs_og__dtype(L->g, a))) ||
      tfs_opt__set_int(&at, "N", 2)) {
    tfs_attrs_clear(&at);
    TFS_OOM(L->c->st);
    return -1;
  }
  return add(L, what, "Merge", &at, 2, in, 0, NULL);
}

/* A Const of `dtype` holding v, of shape [n] (n >= 0) or a scalar (n < 0),
 * with a control input on `frame` (>= 0) so that it lives in that node's
 * frame and branch. */
static int add_const(lw *L, const char *what, tfs_dtype dtype, double v,
                     int n, int frame) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  if (n >= 0) {
    s.rank = 1;
    s.dims[0] = n;
  }
  tfs_tensor *t = tfs_opt__tensor(dtype, &s, L->c->st);
  char *base = tfs_asprintf("%s/%s", L->name, what);
  int r = -1;
  if (t && base) {
    for (int64_t k = 0; k < t->nelems; k++) tfs_opt__set(t, k, v);
    r = tfs_og__add_const(L->g, NULL, base, L->device, t, frame >= 0, &frame,
                          L->c->st);
  } else if (t) {
    TFS_OOM(L->c->st);
  }
  tfs_tensor_free(t);
  tfs_free(base);
  return r;
}

/* Dtypes whose zero the predicate rewrite compares with. */
static int zero_comparable(tfs_dtype t) {
  return t == TFS_BOOL || t == TFS_FLOAT || t == TFS_DOUBLE ||
         t == TFS_INT32 || t == TFS_INT64;
}

/* Whether tfs_lower's ToBool can be expressed for a value of dtype t
 * and rank (-1: unknown). */
static int to_bool_ok(tfs_dtype t, int rank) {
  t = tfs_dtype_base(t);
  return rank > 0 || zero_comparable(t);
}

/* ToBool(x) for x of unknown rank: Select(Rank(x) == 0,
 * Any(Reshape(x != 0, [-1]), 0), Size(x) > 0). */
static int to_bool_any_rank(lw *L, tfs_oref src, int nz, tfs_oref *out) {
  int fr = src.node;
  tfs_dtype t = tfs_dtype_base(tfs_og__dtype(L->g, src));
  int m1 = add_const(L, "to_bool/minus_one", TFS_INT32, -1, 1, fr);
  tfs_oref fin[2] = {{nz, 0}, {m1, 0}};
  int flat = m1 < 0 ? -1 : add_t(L, "to_bool/flat", "Reshape", TFS_BOOL, 2,
                                 fin, 0, NULL);
  int zi = flat < 0 ? -1 : add_const(L, "to_bool/zero_i", TFS_INT32, 0, -1,
                                     fr);
  if (zi < 0) return -1;
  tfs_oref ain[2] = {{flat, 0}, {zi, 0}};
  int anyv = add(L, "to_bool/any", "Any", NULL, 2, ain, 0, NULL);
  /* Size's out_type and Any's attrs: their defaults (int32, no keep_dims) */
  int size = anyv < 0 ? -1 : add_t(L, "to_bool/size", "Size", t, 1, &src, 0,
                                   NULL);
  if (size < 0) return -1;
  tfs_oref gin[2] = {{size, 0}, {zi, 0}};
  int ne = add_t(L, "to_bool/nonempty", "Greater", TFS_INT32, 2, gin, 0, NULL);
  int rank = ne < 0 ? -1 : add_t(L, "to_bool/rank", "Rank", t, 1, &src, 0,
                                 NULL);
  if (rank < 0) return -1;
  tfs_oref ein[2] = {{rank, 0}, {zi, 0}};
  int sc = add_t(L, "to_bool/is_scalar", "Equal", TFS_INT32, 2, ein, 0, NULL);
  if (sc < 0) return -1;
  tfs_oref sin[3] = {{sc, 0}, {anyv, 0}, {ne, 0}};
  int r = add_t(L, "to_bool", "Select", TFS_BOOL, 3, sin, 0, NULL);
  *out = (tfs_oref){r, 0};
  return r < 0 ? -1 : 0;
}

/* A bool scalar with TensorFlow's ToBool value of `src` (the If and
 * While kernels' rule: a scalar is its value, non-zero; any other tensor
 * is true when it has elements), built from ops every backend has.
 * Returns 0 (*out set), or -1 with an error. */
static int to_bool(lw *L, tfs_oref src, tfs_oref *out) {
  tfs_dtype t = tfs_dtype_base(tfs_og__dtype(L->g, src));
  int rank = tfs_og__shape(L->g, src)->rank;
  int fr = src.node;
  if (t == TFS_BOOL && rank == 0) {
    *out = src;
    return 0;
  }
  if (rank > 0) { /* true when it has elements */
    tfs_attrs a;
    tfs_attrs_init(&a);
    if (tfs_opt__set_type(&a, "out_type", TFS_INT32) ||
        tfs_opt__set_type(&a, "T", t)) {
      tfs_attrs_clear(&a);
      TFS_OOM(L->c->st);
      return -1;
    }
    int size = add(L, "to_bool/size", "Size", &a, 1, &src, 0, NULL);
    int zi = size < 0 ? -1 : add_const(L, "to_bool/zero", TFS_INT32, 0, -1,
                                       fr);
    if (zi < 0) return -1;
    tfs_oref gin[2] = {{size, 0}, {zi, 0}};
    int r = add_t(L, "to_bool", "Greater", TFS_INT32, 2, gin, 0, NULL);
    *out = (tfs_oref){r, 0};
    return r < 0 ? -1 : 0;
  }
  if (!zero_comparable(t)) {
    tfs_status_setf(L->c->st, TFS_INTERNAL,
                    "lowering '%s': no ToBool for a %s of unknown rank",
                    L->name, tfs_dtype_name(t));
    return -1;
  }
  int z = add_const(L, "to_bool/zero", t, 0, -1, fr);
  tfs_oref nin[2] = {src, {z, 0}};
  int nz = z < 0 ? -1 : add_t(L, "to_bool/nonzero", "NotEqual", t, 2, nin, 0,
                              NULL);
  if (nz < 0) return -1;
  if (rank == 0) {
    *out = (tfs_oref){nz, 0};
    return 0;
  }
  return to_bool_any_rank(L, src, nz, out);
}

/* Switch(pred, pred) with the node's control inputs, and its pivots. */
static int pivots(lw *L, tfs_oref pred, const int *ctl, int nctl, int *pf,
                  int *pt) {
  tfs_oref in[2] = {pred, pred};
  int sp = add_t(L, "switch_pred", "Switch", TFS_BOOL, 2, in, nctl, ctl);
  if (sp < 0) return -1;
  tfs_oref f = {sp, 0}, t = {sp, 1};
  *pf = add_t(L, "pivot_f", "Identity", TFS_BOOL, 1, &f, 0, NULL);
  *pt = *pf < 0 ? -1 : add_t(L, "pivot_t", "Identity", TFS_BOOL, 1, &t, 0,
                             NULL);
  return *pt < 0 ? -1 : 0;
}

/* Switches each of ins[0..n) on pred: false sides to fo, true sides to
 * to. */
static int switch_inputs(lw *L, const tfs_oref *ins, int n, tfs_oref pred,
                         tfs_oref *fo, tfs_oref *to) {
  for (int j = 0; j < n; j++) {
    tfs_oref in[2] = {ins[j], pred};
    int sw = add_t(L, "input", "Switch", tfs_og__dtype(L->g, ins[j]), 2, in, 0,
                   NULL);
    if (sw < 0) return -1;
    fo[j] = (tfs_oref){sw, 0};
    to[j] = (tfs_oref){sw, 1};
  }
  return 0;
}

/* Inlines body b as branch `what` of the node, fed by ins and anchored
 * at `pivot`; outs receives its results and *exec a node that is live
 * exactly when the branch ran, after its control outputs. */
static int branch(lw *L, const tfs_fn_body *b, const char *what,
                  const tfs_oref *ins, int pivot, tfs_oref *outs, int *exec) {
  char *base = tfs_asprintf("%s/%s", L->name, what);
  const char *prefix = base ? tfs_og__unique_name(L->g, base) : NULL;
  int *rets = tfs_malloc(sizeof(int) * (size_t)(b->nctrl + 1));
  int rc = -1;
  if (!prefix || !rets) {
    TFS_OOM(L->c->st);
    goto done;
  }
  tfs_inline_io io = {prefix, L->device, ins, pivot, outs, rets};
  if (tfs_fnopt__inline_body(L->c, b, &io)) goto done;
  *exec = pivot;
  if (b->nctrl) {
    char ew[48];
    snprintf(ew, sizeof ew, "%s_executed", what);
    tfs_oref p = {pivot, 0};
    *exec = add_t(L, ew, "Identity", TFS_BOOL, 1, &p, b->nctrl, rets);
    if (*exec < 0) goto done;
  }
  rc = 0;
done:
  tfs_free(base);
  tfs_free(rets);
  return rc;
}

/* ---- deciding ------------------------------------------------------------ */

static const tfs_func_attr *func_attr(const tfs_ograph *g, int i,
                                      const char *name) {
  const tfs_attr_value *v = tfs_attrs_find(g->n[i].attrs, name);
  return v && v->type == TFS_ATTR_FUNC && !v->is_list ? v->u.func : NULL;
}

static int is_if(const tfs_ograph *g, int i) {
  return tfs_og__is(g, i, "If") || tfs_og__is(g, i, "StatelessIf");
}
static int is_case(const tfs_ograph *g, int i) {
  return tfs_og__is(g, i, "Case") || tfs_og__is(g, i, "StatelessCase");
}
static int is_while(const tfs_ograph *g, int i) {
  return tfs_og__is(g, i, "While") || tfs_og__is(g, i, "StatelessWhile");
}

int tfs_lower__wants(tfs_opt_ctx *c, int i) {
  const tfs_ograph *g = c->g;
  if (!c->cfg->lower_control_flow || (g->n[i].flags & TFS_ON_FED)) return 0;
  if (!is_if(g, i) && !is_case(g, i) && !is_while(g, i)) return 0;
  int lower = 0;
  if (tfs_attrs_get_bool(g->n[i].attrs, "_lower_using_switch_merge", &lower) ||
      !lower)
    return 0;
  return !tfs_fnopt__xla_marked(g->n[i].attrs);
}

/* Instantiates f for the node; checks it takes nargs and returns nrets
 * (< 0: any) and has no TF1 control flow.  0, or -1 with a note. */
static int body_for(lw *L, const tfs_func_attr *f, int nargs, int nrets,
                    tfs_fn_body *b) {
  char *why = NULL;
  if (!f) {
    tfs_opt__note(L->c, "kept '%s' (a function attr is missing)", L->name);
    return -1;
  }
  if (tfs_fnopt__instantiate(L->c, f, b, &why)) {
    tfs_opt__note(L->c, "kept '%s' (%s)", L->name, why ? why : "error");
    tfs_free(why);
    return -1;
  }
  const char *bad = b->nargs != nargs || (nrets >= 0 && b->nrets != nrets)
                        ? "a function's signature does not match"
                    : tfs_fnopt__body_has_cf(b)
                        ? "a function has TF1 control flow"
                        : NULL;
  if (bad) {
    tfs_opt__note(L->c, "kept '%s' (%s)", L->name, bad);
    tfs_fn_body__clear(b);
    return -1;
  }
  return 0;
}

/* ---- If ------------------------------------------------------------------ */

static int lower_if(lw *L) {
  tfs_ograph *g = L->g;
  int i = L->node, nin = g->n[i].nin - 1, nout = g->n[i].nout;
  tfs_oref pred_in = g->n[i].in[0];
  if (!to_bool_ok(tfs_og__dtype(g, pred_in), tfs_og__shape(g, pred_in)->rank)) {
    tfs_opt__note(L->c, "kept '%s' (predicate of unknown rank)", L->name);
    return 0;
  }
  tfs_fn_body tb, eb;
  memset(&eb, 0, sizeof eb);
  if (body_for(L, func_attr(g, i, "then_branch"), nin, nout, &tb)) return 0;
  if (body_for(L, func_attr(g, i, "else_branch"), nin, nout, &eb)) {
    tfs_fn_body__clear(&tb);
    return 0;
  }
  int nctl = g->n[i].nctrl, rc = -1, pf, pt, te, fe;
  size_t sz = sizeof(tfs_oref) * (size_t)(nin + nout + 1);
  tfs_oref *ins = tfs_malloc(sz), *fi = tfs_malloc(sz), *ti = tfs_malloc(sz);
  tfs_oref *to = tfs_malloc(sz), *fo = tfs_malloc(sz), *outs = tfs_malloc(sz);
  int *ctl = tfs_malloc(sizeof(int) * (size_t)(nctl + 1));
  tfs_oref pred;
  if (!ins || !fi || !ti || !to || !fo || !outs || !ctl) {
    TFS_OOM(L->c->st);
    goto done;
  }
  if (nin) memcpy(ins, g->n[i].in + 1, sizeof(tfs_oref) * (size_t)nin);
  if (nctl) memcpy(ctl, g->n[i].ctrl, sizeof(int) * (size_t)nctl);
  if (to_bool(L, pred_in, &pred) || pivots(L, pred, ctl, nctl, &pf, &pt) ||
      switch_inputs(L, ins, nin, pred, fi, ti) ||
      branch(L, &tb, "then", ti, pt, to, &te) ||
      branch(L, &eb, "else", fi, pf, fo, &fe))
    goto done;
  for (int k = 0; k < nout; k++) { /* then first, as TensorFlow lowers */
    int m = add_merge(L, "output", to[k], fo[k]);
    if (m < 0) goto done;
    outs[k] = (tfs_oref){m, 0};
  }
  int ex = add_merge(L, "branch_executed", (tfs_oref){te, 0},
                     (tfs_oref){fe, 0});
  if (ex < 0 || tfs_fnopt__finish_node(L->c, i, outs, nout, &ex, 1)) goto done;
  rc = 1;
done:
  tfs_free(ins);
  tfs_free(fi);
  tfs_free(ti);
  tfs_free(to);
  tfs_free(fo);
  tfs_free(outs);
  tfs_free(ctl);
  tfs_fn_body__clear(&tb);
  tfs_fn_body__clear(&eb);
  return rc;
}

/* ---- Case ---------------------------------------------------------------- */

typedef struct case_lw {
  lw *L;
  tfs_fn_body *bodies;
  int nb, nin, nout;
} case_lw;

/* Branches k.. of a Case: branch k when idx == k, else the rest (the last
 * branch takes every other index, as the Case kernel does).  anchor: the
 * pivot this level runs under (-1 at the top); ctl: the Case's control
 * inputs (top level). */
static int case_level(case_lw *C, int k, tfs_oref idx, const tfs_oref *ins,
                      int anchor, const int *ctl, int nctl, tfs_oref *outs,
                      int *exec) {
  lw *L = C->L;
  char what[32];
  snprintf(what, sizeof what, "branch%d", k);
  if (k == C->nb - 1)
    return branch(L, &C->bodies[k], what, ins, anchor, outs, exec);
  size_t sz = sizeof(tfs_oref) * (size_t)(C->nin + C->nout + 1);
  tfs_oref *fi = tfs_malloc(sz), *ti = tfs_malloc(sz);
  tfs_oref *to = tfs_malloc(sz), *fo = tfs_malloc(sz);
  int rc = -1, pf, pt, te, fe;
  if (!fi || !ti || !to || !fo) {
    TFS_OOM(L->c->st);
    goto done;
  }
  int kc = add_const(L, "branch_index", TFS_INT32, k, -1,
                     anchor >= 0 ? anchor : idx.node);
  tfs_oref ein[2] = {idx, {kc, 0}};
  int eq = kc < 0 ? -1 : add_t(L, "is_branch", "Equal", TFS_INT32, 2, ein, 0,
                               NULL);
  if (eq < 0) goto done;
  tfs_oref pred = {eq, 0}, idx_t, idx_f;
  if (pivots(L, pred, ctl, nctl, &pf, &pt) ||
      switch_inputs(L, &idx, 1, pred, &idx_f, &idx_t) ||
      switch_inputs(L, ins, C->nin, pred, fi, ti) ||
      branch(L, &C->bodies[k], what, ti, pt, to, &te) ||
      case_level(C, k + 1, idx_f, fi, pf, NULL, 0, fo, &fe))
    goto done;
  for (int j = 0; j < C->nout; j++) {
    int m = add_merge(L, "output", to[j], fo[j]);
    if (m < 0) goto done;
    outs[j] = (tfs_oref){m, 0};
  }
  *exec = add_merge(L, "branch_executed", (tfs_oref){te, 0},
                    (tfs_oref){fe, 0});
  rc = *exec < 0 ? -1 : 0;
done:
  tfs_free(fi);
  tfs_free(ti);
  tfs_free(to);
  tfs_free(fo);
  return rc;
}

static int lower_case(lw *L) {
  tfs_ograph *g = L->g;
  int i = L->node, nin = g->n[i].nin - 1, nout = g->n[i].nout;
  const tfs_attr_value *bv = tfs_attrs_find(g->n[i].attrs, "branches");
  tfs_oref idx = g->n[i].in[0];
  if (!bv || bv->type != TFS_ATTR_FUNC || !bv->is_list || bv->u.list.n < 2 ||
      tfs_og__shape(g, idx)->rank != 0) {
    tfs_opt__note(L->c, "kept '%s' (one branch or a non-scalar index)",
                  L->name);
    return 0;
  }
  int nb = bv->u.list.n, made = 0, rc = -1, ex;
  const tfs_func_attr *fs = bv->u.list.v;
  tfs_fn_body *bodies = tfs_calloc((size_t)nb, sizeof(tfs_fn_body));
  tfs_oref *ins = tfs_malloc(sizeof(tfs_oref) * (size_t)(nin + 1));
  tfs_oref *outs = tfs_malloc(sizeof(tfs_oref) * (size_t)(nout + 1));
  int nctl = g->n[i].nctrl;
  int *ctl = tfs_malloc(sizeof(int) * (size_t)(nctl + 1));
  if (!bodies || !ins || !outs || !ctl) {
    TFS_OOM(L->c->st);
    goto done;
  }
  for (; made < nb; made++)
    if (body_for(L, &fs[made], nin, nout, &bodies[made])) {
      rc = 0;
      goto done;
    }
  if (nin) memcpy(ins, g->n[i].in + 1, sizeof(tfs_oref) * (size_t)nin);
  if (nctl) memcpy(ctl, g->n[i].ctrl, sizeof(int) * (size_t)nctl);
  case_lw C = {L, bodies, nb, nin, nout};
  if (case_level(&C, 0, idx, ins, -1, ctl, nctl, outs, &ex) ||
      tfs_fnopt__finish_node(L->c, i, outs, nout, &ex, 1))
    goto done;
  rc = 1;
done:
  for (int k = 0; bodies && k < made; k++) tfs_fn_body__clear(&bodies[k]);
  tfs_free(bodies);
  tfs_free(ins);
  tfs_free(outs);
  tfs_free(ctl);
  return rc;
}

/* ---- While --------------------------------------------------------------- */

typedef struct while_lw {
  lw *L;
  tfs_fn_body cb, bb;
  int n;
  tfs_oref *ins, *cur, *sw_t, *outs;
  int *merge, *exits, *ctl, nctl;
  unsigned char *inv; /* the body passes the variable on unchanged */
  int v0;             /* the first variable that changes */
} while_lw;

/* Return value k of body b is its argument k (through Identities). */
static int passes_through(const tfs_fn_body *b, int k) {
  const tfs_operation *op = b->rets[k].oper;
  int idx = b->rets[k].index;
  for (int hops = 0; hops < 16; hops++) {
    if (op == b->args[k].oper && idx == b->args[k].index) return 1;
    if (strcmp(op->def->name, "Identity") != 0 || op->ninputs != 1) return 0;
    idx = op->inputs[0].index;
    op = op->inputs[0].oper;
  }
  return 0;
}

/* Enter and Merge of each loop variable (the Merge's second input is set
 * to its NextIteration later); *frame_ctl the LoopControlInputs NoOp. */
static int while_enter(while_lw *W) {
  lw *L = W->L;
  tfs_ograph *g = L->g;
  int64_t par = 10;
  tfs_attrs_get_int(g->n[L->node].attrs, "parallel_iterations", &par);
  int lc = -1;
  if (W->nctl &&
      (lc = add(L, "LoopControlInputs", "NoOp", NULL, 0, NULL, W->nctl,
                W->ctl)) < 0)
    return -1;
  for (int j = 0; j < W->n; j++) {
    tfs_attrs a;
    tfs_attrs_init(&a);
    tfs_dtype t = tfs_dtype_base(tfs_og__dtype(g, W->ins[j]));
    if (tfs_opt__set_type(&a, "T", t) ||
        tfs_opt__set_string(&a, "frame_name", L->name) ||
        tfs_opt__set_bool(&a, "is_constant", W->inv[j]) ||
        tfs_opt__set_int(&a, "parallel_iterations", par)) {
      tfs_attrs_clear(&a);
      TFS_OOM(L->c->st);
      return -1;
    }
    int e = add(L, "Enter", "Enter", &a, 1, &W->ins[j], lc >= 0, &lc);
    if (e < 0) return -1;
    if (W->inv[j]) { /* every iteration reads the Enter */
      W->merge[j] = -1;
      W->cur[j] = (tfs_oref){e, 0};
      continue;
    }
    int m = add_merge(L, "Merge", (tfs_oref){e, 0}, (tfs_oref){e, 0});
    if (m < 0) return -1;
    /* the loop may change the shape: the While's own output shape */
    ((tfs_shape *)g->n[m].out_shapes)[0] = g->n[L->node].out_shapes[j];
    W->merge[j] = m;
    W->cur[j] = (tfs_oref){m, 0};
  }
  return 0;
}

/* The Identities inlining put around a function called from a loop
 * frame pass their inputs on: the condition then reads the Merges, the
 * body the Switches and the NextIterations the body's values, with the
 * liveness the Identities had, and an iteration runs two nodes fewer a
 * loop variable.  An Identity with control consumers or inputs it does
 * not share stays.  0, or -1 with an out-of-memory error. */
static int drop_io_identities(lw *L, const char *prefix, int nargs,
                              tfs_oref *out, int nrets) {
  tfs_ograph *g = L->g;
  for (int k = 0; k < nargs; k++) {
    char name[512];
    snprintf(name, sizeof name, "Func/%s/input/_%d", prefix, k);
    int i = tfs_og__find(g, name);
    if (i < 0 || !tfs_og__is(g, i, "Identity") || g->n[i].ncfan ||
        !tfs_og__removable(g, i))
      continue;
    if (tfs_og__forward(g, (tfs_oref){i, 0}, g->n[i].in[0])) {
      TFS_OOM(L->c->st);
      return -1;
    }
    tfs_og__kill(g, i);
  }
  for (int r = 0; r < nrets; r++) {
    int i = out[r].node;
    if (!tfs_og__is(g, i, "Identity") || g->n[i].nfan || g->n[i].ncfan ||
        g->n[i].nctrl || !tfs_og__removable(g, i))
      continue;
    out[r] = g->n[i].in[0];
    tfs_og__kill(g, i);
  }
  return 0;
}

/* Loop variable j does not change: the body's copy of it goes (`back`,
 * the Identities returning it), and the loop's output is the input once
 * the loop is done (an Identity waiting for the first changing
 * variable's Exit). */
static int while_invariant_out(while_lw *W, int j, tfs_oref back) {
  lw *L = W->L;
  tfs_ograph *g = L->g;
  for (int p = back.node; p >= 0 && tfs_og__is(g, p, "Identity") &&
                          !g->n[p].nfan && !g->n[p].ncfan &&
                          tfs_og__removable(g, p);) {
    int up = g->n[p].in[0].node;
    tfs_og__kill(g, p);
    p = up;
  }
  int ex = W->exits[W->v0];
  int id = add_t(L, "Invariant", "Identity", tfs_og__dtype(g, W->ins[j]), 1,
                 &W->ins[j], 1, &ex);
  if (id < 0) return -1;
  W->exits[j] = id;
  W->outs[j] = (tfs_oref){id, 0};
  return 0;
}

/* The condition, LoopCond, the Switches and Exits, the body and the
 * NextIterations closing the loop. */
static int while_loop(while_lw *W) {
  lw *L = W->L;
  tfs_ograph *g = L->g;
  tfs_oref cout, pred;
  int crets[64], brets[64];
  if (W->cb.nctrl > 64 || W->bb.nctrl > 64) {
    tfs_status_setf(L->c->st, TFS_UNIMPLEMENTED,
                    "lowering '%s': too many control outputs", L->name);
    return -1;
  }
  const char *cp, *bp;
  char *cbase = tfs_asprintf("%s/cond", L->name);
  char *bbase = tfs_asprintf("%s/body", L->name);
  cp = cbase ? tfs_og__unique_name(g, cbase) : NULL;
  bp = bbase ? tfs_og__unique_name(g, bbase) : NULL;
  tfs_free(cbase);
  tfs_free(bbase);
  if (!cp || !bp) {
    TFS_OOM(L->c->st);
    return -1;
  }
  tfs_inline_io cio = {cp, L->device, W->cur, W->merge[W->v0], &cout, crets};
  if (tfs_fnopt__inline_body(L->c, &W->cb, &cio) ||
      drop_io_identities(L, cp, W->n, &cout, 1) || to_bool(L, cout, &pred))
    return -1;
  int lcnd = add(L, "LoopCond", "LoopCond", NULL, 1, &pred, W->cb.nctrl,
                 crets);
  if (lcnd < 0) return -1;
  for (int j = 0; j < W->n; j++) {
    if (W->inv[j]) {
      W->sw_t[j] = W->cur[j];
      continue;
    }
    tfs_oref in[2] = {W->cur[j], {lcnd, 0}};
    int sw = add_t(L, "Switch", "Switch", tfs_og__dtype(g, W->cur[j]), 2, in,
                   0, NULL);
    tfs_oref f = {sw, 0};
    int ex = sw < 0 ? -1 : add_t(L, "Exit", "Exit", tfs_og__dtype(g, f), 1,
                                 &f, 0, NULL);
    if (ex < 0) return -1;
    W->exits[j] = ex;
    W->outs[j] = (tfs_oref){ex, 0};
    W->sw_t[j] = (tfs_oref){sw, 1};
  }
  int lbc = add_t(L, "loop_body_control", "Identity",
                  tfs_og__dtype(g, W->sw_t[W->v0]), 1, &W->sw_t[W->v0], 0,
                  NULL);
  if (lbc < 0) return -1;
  tfs_oref *bout = W->cur; /* reused: the Merges are known by index */
  tfs_inline_io bio = {bp, L->device, W->sw_t, lbc, bout, brets};
  if (tfs_fnopt__inline_body(L->c, &W->bb, &bio) ||
      drop_io_identities(L, bp, W->n, bout, W->n))
    return -1;
  for (int j = 0; j < W->n; j++) {
    if (W->inv[j]) {
      if (while_invariant_out(W, j, bout[j])) return -1;
      continue;
    }
    int nx = add_t(L, "NextIteration", "NextIteration",
                   tfs_og__dtype(g, bout[j]), 1, &bout[j], W->bb.nctrl, brets);
    if (nx < 0 || tfs_og__set_input(g, W->merge[j], 1, (tfs_oref){nx, 0})) {
      if (nx >= 0) TFS_OOM(L->c->st);
      return -1;
    }
  }
  return 0;
}

static int lower_while(lw *L) {
  tfs_ograph *g = L->g;
  int i = L->node, n = g->n[i].nin;
  while_lw W;
  memset(&W, 0, sizeof W);
  W.L = L;
  W.n = n;
  if (n < 1 || g->n[i].nout != n) {
    tfs_opt__note(L->c, "kept '%s' (no loop variables)", L->name);
    return 0;
  }
  if (body_for(L, func_attr(g, i, "cond"), n, 1, &W.cb)) return 0;
  if (body_for(L, func_attr(g, i, "body"), n, n, &W.bb)) {
    tfs_fn_body__clear(&W.cb);
    return 0;
  }
  const tfs_operation *cr = W.cb.rets[0].oper;
  int rc = -1;
  if (!to_bool_ok(cr->out_types[W.cb.rets[0].index],
                  cr->out_shapes[W.cb.rets[0].index].rank)) {
    tfs_opt__note(L->c, "kept '%s' (condition of unknown rank)", L->name);
    rc = 0;
    goto done;
  }
  size_t sz = sizeof(tfs_oref) * (size_t)(n + 1);
  W.nctl = g->n[i].nctrl;
  W.ins = tfs_malloc(sz);
  W.cur = tfs_malloc(sz);
  W.sw_t = tfs_malloc(sz);
  W.outs = tfs_malloc(sz);
  W.merge = tfs_malloc(sizeof(int) * (size_t)(n + 1));
  W.inv = tfs_calloc((size_t)n + 1, 1);
  W.exits = tfs_malloc(sizeof(int) * (size_t)(n + 1));
  W.ctl = tfs_malloc(sizeof(int) * (size_t)(W.nctl + 1));
  if (!W.ins || !W.cur || !W.sw_t || !W.outs || !W.merge || !W.exits ||
      !W.inv ||
      !W.ctl) {
    TFS_OOM(L->c->st);
    goto done;
  }
  memcpy(W.ins, g->n[i].in, sz - sizeof(tfs_oref));
  /* variables the body passes on are loop invariants (constant Enters),
   * as long as one variable changes */
  W.v0 = -1;
  for (int j = 0; j < n; j++) {
    W.inv[j] = (unsigned char)passes_through(&W.bb, j);
    if (!W.inv[j] && W.v0 < 0) W.v0 = j;
  }
  if (W.v0 < 0) {
    memset(W.inv, 0, (size_t)n);
    W.v0 = 0;
  }
  if (W.nctl) memcpy(W.ctl, g->n[i].ctrl, sizeof(int) * (size_t)W.nctl);
  if (while_enter(&W) || while_loop(&W) ||
      tfs_fnopt__finish_node(L->c, i, W.outs, n, W.exits, n))
    goto done;
  rc = 1;
done:
  tfs_free(W.ins);
  tfs_free(W.cur);
  tfs_free(W.sw_t);
  tfs_free(W.outs);
  tfs_free(W.merge);
  tfs_free(W.inv);
  tfs_free(W.exits);
  tfs_free(W.ctl);
  tfs_fn_body__clear(&W.cb);
  tfs_fn_body__clear(&W.bb);
  return rc;
}

int tfs_lower__node(tfs_opt_ctx *c, int i) {
  lw L = {c, c->g, i, c->g->n[i].name, c->g->n[i].device};
  if (is_if(c->g, i)) return lower_if(&L);
  if (is_case(c->g, i)) return lower_case(&L);
  return lower_while(&L);
}

/* ---- graphs with loops --------------------------------------------------- */

int tfs_lower__has_cf(const tfs_ograph *g) {
  for (int i = 0; i < g->nn; i++)
    if (!(g->n[i].flags & TFS_ON_DEAD) &&
        (g->n[i].def->flags & TFS_OP_CONTROL_FLOW))
      return 1;
  return 0;
}

/* Data input k of node i is a loop's back edge (NextIteration -> Merge). */
static int back_edge(const tfs_ograph *g, int i, int k) {
  int p = g->n[i].in[k].node;
  return (tfs_og__is(g, i, "Merge") || tfs_og__is(g, i, "RefMerge")) &&
         (tfs_og__is(g, p, "NextIteration") ||
          tfs_og__is(g, p, "RefNextIteration"));
}

/* A topological order of the live nodes, back edges left out; returns the
 * count or -1 (a cycle: an error). */
static int order_with_loops(tfs_ograph *g, int *order, tfs_status *st) {
  int *pending = tfs_calloc((size_t)g->nn + 1, sizeof(int));
  if (!pending) return TFS_OOM(st), -1;
  int head = 0, tail = 0;
  for (int i = 0; i < g->nn; i++) {
    if (g->n[i].flags & TFS_ON_DEAD) continue;
    pending[i] = g->n[i].nin + g->n[i].nctrl;
    for (int k = 0; k < g->n[i].nin; k++) pending[i] -= back_edge(g, i, k);
    if (!pending[i]) order[tail++] = i;
  }
  while (head < tail) {
    tfs_onode *n = &g->n[order[head++]];
    for (int j = 0; j < n->nfan; j++) {
      tfs_oref f = n->fan[j];
      if (!back_edge(g, f.node, f.port) && --pending[f.node] == 0)
        order[tail++] = f.node;
    }
    for (int j = 0; j < n->ncfan; j++)
      if (--pending[n->cfan[j]] == 0) order[tail++] = n->cfan[j];
  }
  tfs_free(pending);
  if (tail != g->nlive) {
    tfs_status_setf(st, TFS_INTERNAL,
                    "optimizer: the graph has a cycle that is not a loop "
                    "(%d of %d nodes ordered)", tail, g->nlive);
    return -1;
  }
  return tail;
}

/* Adds node n (inputs through made[], back edges left unset). */
static tfs_operation *export_node(tfs_graph *out, tfs_ograph *g, int i,
                                  tfs_operation **made, tfs_output *ins,
                                  tfs_operation **ctl, tfs_status *st) {
  tfs_onode *n = &g->n[i];
  for (int k = 0; k < n->nin; k++) {
    int back = back_edge(g, i, k);
    ins[k].oper = back ? NULL : made[n->in[k].node];
    ins[k].index = back ? -1 : n->in[k].port;
  }
  for (int k = 0; k < n->nctrl; k++) ctl[k] = made[n->ctrl[k]];
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_attrs_copy(&a, n->attrs)) return TFS_OOM(st), NULL;
  tfs_node_spec spec = {.name = n->name, .op_type = n->def->name,
                        .device = n->device, .attrs = &a, .ninputs = n->nin,
                        .inputs = ins, .ncontrol = n->nctrl,
                        .control_inputs = ctl};
  tfs_og__export_origins(g, i, &spec);
  tfs_operation *op = tfs_graph__add_node(out, &spec, st);
  tfs_attrs_clear(&a);
  if (!op)
    tfs_status_prependf(st, "optimizer: rebuilding node '%s': ", n->name);
  return op;
}

tfs_graph *tfs_lower__export(tfs_ograph *g, tfs_status *st) {
  int *order = tfs_malloc(sizeof(int) * (size_t)(g->nn + 1));
  tfs_operation **made = tfs_calloc((size_t)g->nn + 1, sizeof(void *));
  int maxin = 1, maxctl = 1;
  for (int i = 0; i < g->nn; i++) {
    if (g->n[i].nin > maxin) maxin = g->n[i].nin;
    if (g->n[i].nctrl > maxctl) maxctl = g->n[i].nctrl;
  }
  tfs_output *ins = tfs_malloc(sizeof(tfs_output) * (size_t)maxin);
  tfs_operation **ctl = tfs_malloc(sizeof(void *) * (size_t)maxctl);
  tfs_graph *out = tfs_graph_new();
  int ok = 0;
  if (!order || !made || !ins || !ctl || !out) {
    TFS_OOM(st);
    goto done;
  }
  int cnt = order_with_loops(g, order, st);
  if (cnt < 0) goto done;
  pthread_mutex_lock(&out->mu);
  int j = 0;
  for (; j < cnt; j++)
    if (!(made[order[j]] = export_node(out, g, order[j], made, ins, ctl, st)))
      break;
  /* the back edges, now that every NextIteration exists */
  for (int i = 0; j == cnt && i < g->nn; i++) {
    if (g->n[i].flags & TFS_ON_DEAD) continue;
    for (int k = 0; k < g->n[i].nin; k++) {
      if (!back_edge(g, i, k)) continue;
      tfs_output src = {made[g->n[i].in[k].node], g->n[i].in[k].port};
      if (tfs_graph__set_input(made[i], k, src, st)) j = -1;
    }
  }
  pthread_mutex_unlock(&out->mu);
  ok = j == cnt;
done:
  tfs_free(order);
  tfs_free(made);
  tfs_free(ins);
  tfs_free(ctl);
  if (!ok) {
    tfs_graph_free(out);
    return NULL;
  }
  tfs_status_clear(st);
  return out;
}

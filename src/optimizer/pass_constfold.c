/*
 * optimizer/pass_constfold.c - constant_folding: evaluates every node
 * whose inputs are all constants (deterministic, stateless, not fed, with
 * a CPU kernel) and replaces it by a Const, and materializes Shape /
 * ShapeN / Size / Rank of statically known shapes.  A single-output node
 * becomes a Const under its own name; extra outputs get
 * "ConstantFolding/<name>-folded-<port>" Consts.  Control inputs of the
 * node and of its constant inputs are kept.  A result over the size cap
 * (10 MiB, or OptimizerOptions.max_folded_constant_in_bytes) is not
 * created when it is larger than the constants it replaces.  Then, as
 * TensorFlow's constant folding does, a constant Mul after a Conv2D with
 * a constant filter goes into the filter (tfs_arith__mul_conv_push_down:
 * a batch norm's scale reaches the weights in float32, before auto mixed
 * precision would round both).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/util.h"
#include "optimizer/arith_weights.h"
#include "optimizer/const_eval.h"
#include "optimizer/opt_util.h"

typedef struct fold_state {
  tfs_opt_ctx *c;
  uint8_t *trusted; /* static shape of every output holds at run time */
  int n0;
  int folded, materialized, over_cap, failed, pushed;
  int *made; /* Consts this pass created */
  int nmade, made_cap;
} fold_state;

static int storable(tfs_dtype t) {
  return !tfs_dtype_is_ref(t) && t != TFS_RESOURCE && t != TFS_VARIANT &&
         tfs_dtype_is_valid(t);
}

/* Shapes are trusted unless a fed non-placeholder tensor (whose feed is
 * not checked against an inferred shape) lies upstream. */
static void compute_trust(fold_state *fs, const int *order, int cnt) {
  tfs_ograph *g = fs->c->g;
  int aggressive = fs->c->cfg->constfold_aggressive;
  for (int j = 0; j < cnt; j++) {
    int v = order[j];
    tfs_onode *n = &g->n[v];
    int ok = 1;
    if ((n->flags & TFS_ON_FED) && !aggressive &&
        !(n->def->flags & TFS_OP_PLACEHOLDER))
      ok = 0;
    for (int k = 0; k < n->nin && ok; k++) {
      int p = n->in[k].node;
      if (p < fs->n0 && !fs->trusted[p]) ok = 0;
    }
    fs->trusted[v] = (uint8_t)ok;
  }
}

static int note_made(fold_state *fs, int idx) {
  size_t cap = (size_t)fs->made_cap;
  if (tfs_grow((void **)&fs->made, &cap, (size_t)fs->nmade + 1, sizeof(int)))
    return -1;
  fs->made_cap = (int)cap;
  fs->made[fs->nmade++] = idx;
  return 0;
}

/* Control inputs the folded value must keep: the node's and its constant
 * inputs'. */
static int collect_ctrl(tfs_ograph *g, int v, int **out, int *n) {
  tfs_onode *nd = &g->n[v];
  int cap = nd->nctrl + 1;
  for (int k = 0; k < nd->nin; k++) cap += g->n[nd->in[k].node].nctrl;
  int *c = tfs_malloc(sizeof(int) * (size_t)cap);
  if (!c) return -1;
  int cnt = 0;
#define ADD(x)                                        \
  do {                                                \
    int x_ = (x), dup_ = 0;                           \
    for (int q = 0; q < cnt; q++) dup_ |= c[q] == x_; \
    if (!dup_) c[cnt++] = x_;                         \
  } while (0)
  for (int k = 0; k < nd->nctrl; k++) ADD(nd->ctrl[k]);
  for (int k = 0; k < nd->nin; k++) {
    tfs_onode *p = &g->n[nd->in[k].node];
    if (strcmp(p->def->name, "Const") != 0) continue;
    for (int j = 0; j < p->nctrl; j++) ADD(p->ctrl[j]);
  }
#undef ADD
  *out = c;
  *n = cnt;
  return 0;
}

/* Replaces node v's outputs by the constants `vals` (one per output). */
static int replace_with_consts(fold_state *fs, int v, tfs_tensor **vals) {
  tfs_opt_ctx *c = fs->c;
  tfs_ograph *g = c->g;
  int *ctrl = NULL, nctrl = 0;
  if (collect_ctrl(g, v, &ctrl, &nctrl)) {
    TFS_OOM(c->st);
    return -1;
  }
  int nin = g->n[v].nin;
  int *producers = tfs_malloc(sizeof(int) * (size_t)(nin + 1));
  if (!producers) {
    tfs_free(ctrl);
    TFS_OOM(c->st);
    return -1;
  }
  for (int k = 0; k < nin; k++) producers[k] = g->n[v].in[k].node;
  int rc = -1, first_made = g->nn;
  if (g->n[v].nout == 1) {
    tfs_attrs a;
    tfs_attrs_init(&a);
    tfs_attr_value val;
    tfs_attr_tensor(&val, vals[0]);
    if (tfs_attrs_set(&a, "value", &val) ||
        tfs_opt__set_type(&a, "dtype", vals[0]->dtype)) {
      tfs_attrs_clear(&a);
      TFS_OOM(c->st);
      goto done;
    }
    tfs_onode_spec spec = {.op = "Const",
                           .device = g->n[v].device,
                           .attrs = &a,
                           .nctrl = nctrl,
                           .ctrl = ctrl};
    int nw = tfs_og__replace(g, v, &spec, c->st);
    if (nw < 0 || note_made(fs, nw)) goto done;
  } else {
    const char *name = g->n[v].name;
    const char *device = g->n[v].device;
    for (int p = 0; p < g->n[v].nout; p++) {
      if (!tfs_og__port_uses(g, v, p)) continue;
      char *base = tfs_asprintf("ConstantFolding/%s-folded-%d", name, p);
      if (!base) {
        TFS_OOM(c->st);
        goto done;
      }
      int k =
          tfs_og__add_const(g, NULL, base, device, vals[p], nctrl, ctrl, c->st);
      tfs_free(base);
      if (k < 0 || note_made(fs, k)) goto done;
      if (tfs_og__add_origins(g, k, v)) goto oom;
      tfs_oref from = {v, p}, to = {k, 0};
      if (tfs_og__forward(g, from, to)) goto oom;
    }
    if (tfs_og__forward_ctrl(g, v, ctrl, nctrl)) goto oom;
    if (tfs_og__removable(g, v)) tfs_og__kill_unused(g, v);
  }
  for (int k = 0; k < nin; k++)
    if (tfs_og__live(g, producers[k])) tfs_og__kill_unused(g, producers[k]);
  /* the constants made stand for v and for the inputs folded away */
  for (int m = first_made; m < g->nn; m++) {
    if (!tfs_og__live(g, m)) continue;
    for (int k = 0; k < nin; k++)
      if (!tfs_og__live(g, producers[k]) &&
          tfs_og__add_origins(g, m, producers[k]))
        goto oom;
  }
  rc = 0;
  goto done;
oom:
  TFS_OOM(c->st);
done:
  tfs_free(ctrl);
  tfs_free(producers);
  return rc;
}

/* Shape / ShapeN / Size / Rank of known shapes; NULL when not known. */
static tfs_tensor **materialize(fold_state *fs, int v) {
  tfs_ograph *g = fs->c->g;
  tfs_onode *n = &g->n[v];
  const char *op = n->def->name;
  int is_shape = strcmp(op, "Shape") == 0 || strcmp(op, "ShapeN") == 0;
  int is_size = strcmp(op, "Size") == 0, is_rank = strcmp(op, "Rank") == 0;
  if (!is_shape && !is_size && !is_rank) return NULL;
  if ((is_size || is_rank) && n->nin != 1) return NULL;
  for (int k = 0; k < n->nin; k++) {
    int p = n->in[k].node;
    if (p < fs->n0 && !fs->trusted[p]) return NULL;
    const tfs_shape *s = tfs_og__shape(g, n->in[k]);
    if (s->rank < 0 || (!is_rank && !tfs_shape_is_fully_defined(s)))
      return NULL;
  }
  tfs_tensor **outs = tfs_calloc((size_t)n->nout + 1, sizeof(void *));
  if (!outs) return NULL;
  for (int k = 0; k < n->nout; k++) {
    const tfs_shape *s = tfs_og__shape(g, n->in[is_shape ? k : 0]);
    tfs_dtype dt = tfs_dtype_base(n->out_types[k]);
    tfs_shape os;
    if (is_shape)
      tfs_shape_1d(&os, s->rank);
    else
      tfs_shape_scalar(&os);
    outs[k] = tfs_opt__tensor(dt, &os, fs->c->st);
    if (!outs[k]) {
      tfs_optimizer__free_outputs(outs, n->nout);
      return NULL;
    }
    if (is_shape) {
      for (int d = 0; d < s->rank; d++)
        tfs_opt__set(outs[k], d, (double)s->dims[d]);
    } else if (is_size) {
      tfs_opt__set(outs[k], 0, (double)tfs_shape_num_elements(s));
    } else {
      tfs_opt__set(outs[k], 0, (double)s->rank);
    }
  }
  return outs;
}

static int foldable(fold_state *fs, int v) {
  tfs_ograph *g = fs->c->g;
  tfs_onode *n = &g->n[v];
  if (!tfs_og__replaceable(g, v) || n->nin == 0 || n->nout == 0) return 0;
  if (strcmp(n->def->name, "Const") == 0) return 0;
  if ((n->flags & TFS_ON_PRESERVED) && n->nout > 1) return 0;
  for (int k = 0; k < n->nout; k++)
    if (!storable(n->out_types[k])) return 0;
  return 1;
}

static int64_t input_bytes(tfs_ograph *g, int v) {
  int64_t total = 0;
  tfs_onode *n = &g->n[v];
  for (int k = 0; k < n->nin; k++) {
    const tfs_tensor *t = tfs_og__const_value(g, n->in[k]);
    if (t) total += (int64_t)t->nbytes;
  }
  return total;
}

/* Folds node v if it can; returns 0, or -1 on a fatal error. */
static int fold_one(fold_state *fs, int v) {
  tfs_opt_ctx *c = fs->c;
  tfs_ograph *g = c->g;
  if (!foldable(fs, v)) return 0;
  tfs_onode *n = &g->n[v];
  tfs_tensor **outs = materialize(fs, v);
  int materialized = outs != NULL;
  if (!outs) {
    tfs_tensor *ins[64];
    if (n->nin > 64) return 0;
    for (int k = 0; k < n->nin; k++) {
      ins[k] = (tfs_tensor *)tfs_og__const_value(g, n->in[k]);
      if (!ins[k]) return 0;
    }
    /* skip evaluation when the static size is already over the cap */
    int64_t cap = c->cfg->max_constant_bytes, in_bytes = input_bytes(g, v);
    for (int k = 0; k < n->nout; k++) {
      int64_t ne = tfs_shape_num_elements(&n->out_shapes[k]);
      int64_t es = (int64_t)tfs_dtype_size(n->out_types[k]);
      /* the output's bytes, saturated: a static shape of ~2^62 elements
       * overflowed the product */
      int64_t bytes = 0;
      if (ne > 0 && es && tfs_mul_overflow_i64(ne, es, &bytes))
        bytes = INT64_MAX;
      if (bytes > cap && bytes > in_bytes) {
        fs->over_cap++;
        return 0;
      }
    }
    tfs_status *est = tfs_status_new();
    if (!est) {
      TFS_OOM(c->st);
      return -1;
    }
    /* an output over both bounds is thrown away: never allocate one */
    outs = tfs_optimizer__eval(g, v, ins, cap > in_bytes ? cap : in_bytes,
                               est);
    tfs_status_free(est);
    if (!outs) {
      /* left for the run to report (or compute) */
      fs->failed++;
      return 0;
    }
    int64_t out_bytes = 0;
    for (int k = 0; k < n->nout; k++) out_bytes += (int64_t)outs[k]->nbytes;
    if (out_bytes > cap && out_bytes > in_bytes) {
      tfs_optimizer__free_outputs(outs, n->nout);
      fs->over_cap++;
      return 0;
    }
  }
  int nout = n->nout;
  int rc = replace_with_consts(fs, v, outs);
  tfs_optimizer__free_outputs(outs, nout);
  if (rc) return -1;
  if (materialized)
    fs->materialized++;
  else
    fs->folded++;
  return 0;
}

int tfs_pass__constfold(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  fold_state fs = {.c = c, .n0 = g->nn};
  int *order = tfs_malloc(sizeof(int) * ((size_t)g->nn + 1));
  fs.trusted = tfs_calloc((size_t)g->nn + 1, 1);
  int rc = -1;
  if (!order || !fs.trusted) {
    TFS_OOM(c->st);
    goto done;
  }
  int cnt = tfs_og__topo_order(g, order, c->st);
  if (cnt < 0) goto done;
  compute_trust(&fs, order, cnt);
  for (int j = 0; j < cnt; j++) {
    int v = order[j];
    if (!tfs_og__live(g, v)) continue;
    if (fold_one(&fs, v)) goto done;
  }
  for (int v = 0; v < g->nn; v++) {
    if (!tfs_og__live(g, v) || !tfs_og__is(g, v, "Mul")) continue;
    int r = tfs_arith__mul_conv_push_down(c, v);
    if (r < 0) goto done;
    fs.pushed += r;
  }
  int live_consts = 0;
  for (int k = 0; k < fs.nmade; k++) live_consts += tfs_og__live(g, fs.made[k]);
  if (fs.folded)
    tfs_opt__note(c, "folded %d node%s into %d constant%s", fs.folded,
                  fs.folded == 1 ? "" : "s", live_consts,
                  live_consts == 1 ? "" : "s");
  if (fs.materialized)
    tfs_opt__note(c, "materialized %d shape value%s", fs.materialized,
                  fs.materialized == 1 ? "" : "s");
  if (fs.failed)
    tfs_opt__note(c, "left %d node%s whose kernel failed (the run reports it)",
                  fs.failed, fs.failed == 1 ? "" : "s");
  if (fs.over_cap)
    tfs_opt__note(c, "left %d node%s over the %lld-byte constant cap",
                  fs.over_cap, fs.over_cap == 1 ? "" : "s",
                  (long long)c->cfg->max_constant_bytes);
  if (fs.pushed)
    tfs_opt__note(c, "Mul pushed into a convolution's filter: %d",
                  fs.pushed);
  c->changes += fs.folded + fs.materialized + fs.pushed;
  rc = g->oom ? (TFS_OOM(c->st), -1) : 0;
done:
  tfs_free(order);
  tfs_free(fs.trusted);
  tfs_free(fs.made);
  return rc;
}

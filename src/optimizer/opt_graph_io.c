/*
 * optimizer/opt_graph_io.c - the optimizer IR's borders: importing a
 * tfs_graph (borrowing its ops' data), exporting a new validated graph in
 * topological order, and creating nodes with dtypes and shapes inferred
 * from the op registry.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "ops/shape_ctx.h"
#include "optimizer/opt_graph.h"

int tfs_og__link_new(tfs_ograph *g, int i);
int tfs_og__touch(tfs_ograph *g);

static int grow_nodes(tfs_ograph *g, int need) {
  if (need <= g->cap) return 0;
  int ncap = g->cap < 16 ? 16 : g->cap * 2;
  while (ncap < need) ncap *= 2;
  tfs_onode *n = tfs_realloc(g->n, sizeof(tfs_onode) * (size_t)ncap);
  if (!n) return -1;
  g->n = n;
  g->cap = ncap;
  return 0;
}

/* ---- import -----------------------------------------------------------------
 */

/* Gives the imported nodes [first, nn) fan-out arrays of the exact size
 * in one block, so linking them allocates nothing per node. */
static int reserve_fans(tfs_ograph *g, int first) {
  size_t nfan = 0, ncfan = 0;
  for (int i = first; i < g->nn; i++) {
    tfs_onode *n = &g->n[i];
    for (int k = 0; k < n->nin; k++)
      if (n->in[k].node >= first) g->n[n->in[k].node].fancap--;
    for (int k = 0; k < n->nctrl; k++)
      if (n->ctrl[k] >= first) g->n[n->ctrl[k]].cfancap--;
    nfan += (size_t)n->nin;
    ncfan += (size_t)n->nctrl;
  }
  char *block = tfs_malloc(nfan * sizeof(tfs_oref) + ncfan * sizeof(int) + 16);
  void **blocks =
      tfs_realloc(g->blocks, sizeof(void *) * (size_t)(g->nblocks + 1));
  if (blocks) g->blocks = blocks;
  if (!block || !blocks) {
    tfs_free(block);
    for (int i = first; i < g->nn; i++) g->n[i].fancap = g->n[i].cfancap = 0;
    return -1;
  }
  g->blocks[g->nblocks++] = block;
  char *p = block;
  for (int i = first; i < g->nn; i++) {
    tfs_onode *n = &g->n[i];
    n->fan = (tfs_oref *)(void *)p;
    p += sizeof(tfs_oref) * (size_t)(-n->fancap);
  }
  for (int i = first; i < g->nn; i++) {
    tfs_onode *n = &g->n[i];
    n->cfan = (int *)(void *)p;
    p += sizeof(int) * (size_t)(-n->cfancap);
  }
  return 0;
}

int tfs_og__import(tfs_ograph *g, tfs_graph *src, const uint8_t *keep, int *map,
                   tfs_status *st) {
  size_t nops = src->nops;
  size_t nedges = 0;
  int count = 0;
  for (size_t i = 0; i < nops; i++) {
    if (keep && !keep[i]) continue;
    if (map[i] >= 0) continue;
    nedges += (size_t)src->ops[i]->ninputs + (size_t)src->ops[i]->ncontrol;
    count++;
  }
  if (tfs_og__touch(g) || grow_nodes(g, g->nn + count + 1)) goto oom;
  /* every imported input / control array lives in one block */
  char *block = tfs_malloc(nedges * sizeof(tfs_oref) + 16);
  void **blocks =
      tfs_realloc(g->blocks, sizeof(void *) * (size_t)(g->nblocks + 1));
  if (!block || !blocks) {
    tfs_free(block);
    if (blocks) g->blocks = blocks;
    goto oom;
  }
  g->blocks = blocks;
  g->blocks[g->nblocks++] = block;
  char *p = block;
  int first = g->nn, next = first;
  /* numbered first: an input rewired by tfs_graph_update_edge may come
   * from a later op */
  for (size_t i = 0; i < nops; i++)
    if ((!keep || keep[i]) && map[i] < 0) map[i] = next++;
  for (size_t i = 0; i < nops; i++) {
    if ((keep && !keep[i]) || map[i] < first) continue;
    tfs_operation *op = src->ops[i];
    int idx = g->nn;
    tfs_onode *n = &g->n[idx];
    memset(n, 0, sizeof(*n));
    n->name = op->name;
    n->def = op->def;
    /* most ops have no device: the shared "" spares a cache miss later */
    n->device = op->device && op->device[0] ? op->device : "";
    n->attrs = &op->attrs;
    n->in_types = op->in_types;
    n->out_types = op->out_types;
    n->out_shapes = op->out_shapes;
    n->nout = op->noutputs;
    n->src = op;
    n->norig = op->norig;
    n->orig = (const char *const *)op->orig_names;
    n->in = (tfs_oref *)(void *)p;
    p += sizeof(tfs_oref) * (size_t)op->ninputs;
    n->incap = -op->ninputs;
    for (int k = 0; k < op->ninputs; k++) {
      int m = map[op->inputs[k].oper->id];
      if (m < 0) {
        tfs_status_setf(st, TFS_INTERNAL,
                        "optimizer: input %d of node '%s' was not imported", k,
                        op->name);
        return -1;
      }
      n->in[k].node = m;
      n->in[k].port = op->inputs[k].index;
    }
    n->nin = op->ninputs;
    n->ctrl = (int *)(void *)p;
    n->ctrlcap = -op->ncontrol;
    for (int k = 0; k < op->ncontrol; k++) {
      int m = map[op->control_inputs[k]->id];
      if (m >= 0) n->ctrl[n->nctrl++] = m;
    }
    p += sizeof(tfs_oref) * (size_t)op->ncontrol; /* int slots, oref pace */
    n->flags = tfs_og__classify(op->def, op->in_types, op->ninputs,
                                op->out_types, op->noutputs);
    g->nn++;
    g->nlive++;
    if (tfs_map_put_str(&g->names, n->name, (void *)(intptr_t)(idx + 1)))
      goto oom;
  }
  if (reserve_fans(g, first)) goto oom;
  for (int i = first; i < g->nn; i++)
    if (tfs_og__link_new(g, i)) goto oom;
  tfs_status_clear(st);
  return 0;
oom:
  TFS_OOM(st);
  return -1;
}

/* ---- topological order -----------------------------------------------------
 */

int tfs_og__topo_order(tfs_ograph *g, int *order, tfs_status *st) {
  int *pending = tfs_calloc((size_t)g->nn + 1, sizeof(int));
  if (!pending) {
    TFS_OOM(st);
    return -1;
  }
  int head = 0, tail = 0;
  for (int i = 0; i < g->nn; i++) {
    tfs_onode *n = &g->n[i];
    if (n->flags & TFS_ON_DEAD) continue;
    pending[i] = n->nin + n->nctrl;
    if (!pending[i]) order[tail++] = i;
  }
  while (head < tail) {
    tfs_onode *n = &g->n[order[head++]];
    for (int j = 0; j < n->nfan; j++)
      if (--pending[n->fan[j].node] == 0) order[tail++] = n->fan[j].node;
    for (int j = 0; j < n->ncfan; j++)
      if (--pending[n->cfan[j]] == 0) order[tail++] = n->cfan[j];
  }
  tfs_free(pending);
  if (tail != g->nlive) {
    tfs_status_setf(st, TFS_INTERNAL,
                    "optimizer: the graph has a cycle (%d of %d nodes "
                    "ordered)",
                    tail, g->nlive);
    return -1;
  }
  return tail;
}

/* ---- export
 * ------------------------------------------------------------------ */

tfs_graph *tfs_og__export(tfs_ograph *g, tfs_status *st) {
  int *order = tfs_malloc(sizeof(int) * (size_t)(g->nn + 1));
  tfs_operation **made = tfs_calloc((size_t)g->nn + 1, sizeof(void *));
  tfs_output *ins = NULL;
  tfs_operation **ctl = NULL;
  size_t ins_cap = 0, ctl_cap = 0;
  tfs_graph *out = tfs_graph_new();
  if (!order || !made || !out) {
    TFS_OOM(st);
    goto fail;
  }
  int cnt = tfs_og__topo_order(g, order, st);
  if (cnt < 0) goto fail;
  pthread_mutex_lock(&out->mu);
  for (int j = 0; j < cnt; j++) {
    tfs_onode *n = &g->n[order[j]];
    if (tfs_grow((void **)&ins, &ins_cap, (size_t)n->nin + 1,
                 sizeof(tfs_output)) ||
        tfs_grow((void **)&ctl, &ctl_cap, (size_t)n->nctrl + 1,
                 sizeof(void *))) {
      pthread_mutex_unlock(&out->mu);
      TFS_OOM(st);
      goto fail;
    }
    for (int k = 0; k < n->nin; k++) {
      ins[k].oper = made[n->in[k].node];
      ins[k].index = n->in[k].port;
    }
    for (int k = 0; k < n->nctrl; k++) ctl[k] = made[n->ctrl[k]];
    tfs_attrs a;
    tfs_attrs_init(&a);
    if (tfs_attrs_copy(&a, n->attrs)) {
      pthread_mutex_unlock(&out->mu);
      TFS_OOM(st);
      goto fail;
    }
    tfs_node_spec spec = {
        .name = n->name,
        .op_type = n->def->name,
        .device = n->device,
        .attrs = &a,
        .ninputs = n->nin,
        .inputs = ins,
        .ncontrol = n->nctrl,
        .control_inputs = ctl,
    };
    tfs_og__export_origins(g, order[j], &spec);
    made[order[j]] = tfs_graph__add_node(out, &spec, st);
    tfs_attrs_clear(&a);
    if (!made[order[j]]) {
      pthread_mutex_unlock(&out->mu);
      tfs_status_prependf(st, "optimizer: rebuilding node '%s': ", n->name);
      goto fail;
    }
  }
  pthread_mutex_unlock(&out->mu);
  tfs_free(order);
  tfs_free(made);
  tfs_free(ins);
  tfs_free(ctl);
  tfs_status_clear(st);
  return out;
fail:
  tfs_free(order);
  tfs_free(made);
  tfs_free(ins);
  tfs_free(ctl);
  tfs_graph_free(out);
  return NULL;
}

/* ---- shape inference for new nodes
 * ------------------------------------------- */

typedef struct infer_user {
  tfs_ograph *g;
  const tfs_oref *in;
} infer_user;

/* Appends the partial value of the int vector s to out (TensorFlow's
 * ConstantPartialShape): a constant, Shape(x), GatherV2(Shape(x),
 * constant indices, 0), else as many unknown dims as s has elements;
 * -1 when not even that is known. */
static int og_partial_vec(tfs_ograph *g, tfs_oref s, tfs_shape *out) {
  const tfs_tensor *t = tfs_og__const_value(g, s);
  const tfs_shape *ss = tfs_og__shape(g, s);
  if (ss->rank != 1 || ss->dims[0] < 0 ||
      out->rank + ss->dims[0] > TFS_MAX_RANK)
    return -1;
  int n = (int)ss->dims[0], at = out->rank;
  for (int k = 0; k < n; k++) out->dims[at + k] = -1;
  out->rank += n;
  tfs_onode *p = &g->n[s.node];
  if (t && (t->dtype == TFS_INT32 || t->dtype == TFS_INT64)) {
    for (int k = 0; k < n; k++) {
      int64_t d = tfs_tensor__get_as_int64(t, k);
      out->dims[at + k] = d >= 0 ? d : -1;
    }
  } else if (!(p->flags & TFS_ON_FED) && strcmp(p->def->name, "Shape") == 0 &&
             p->nin == 1 && tfs_og__shape(g, p->in[0])->rank == n) {
    const tfs_shape *x = tfs_og__shape(g, p->in[0]);
    for (int k = 0; k < n; k++) out->dims[at + k] = x->dims[k];
  } else if (!(p->flags & TFS_ON_FED) &&
             strcmp(p->def->name, "GatherV2") == 0 && p->nin == 3) {
    int sp = tfs_og__producer(g, s.node, 0);
    const tfs_tensor *ix = tfs_og__const_value(g, p->in[1]);
    const tfs_tensor *ax = tfs_og__const_value(g, p->in[2]);
    const tfs_shape *x =
        sp >= 0 && strcmp(g->n[sp].def->name, "Shape") == 0 &&
                !(g->n[sp].flags & TFS_ON_FED) && g->n[sp].nin == 1
            ? tfs_og__shape(g, g->n[sp].in[0])
            : NULL;
    if (x && x->rank >= 0 && ix && ix->nelems == n && ax &&
        ax->nelems == 1 && tfs_tensor__get_as_int64(ax, 0) == 0 &&
        (ix->dtype == TFS_INT32 || ix->dtype == TFS_INT64))
      for (int k = 0; k < n; k++) {
        int64_t j = tfs_tensor__get_as_int64(ix, k);
        if (j >= 0 && j < x->rank) out->dims[at + k] = x->dims[j];
      }
  }
  return 0;
}

static int og_input_as_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  infer_user *u = c->user;
  tfs_ograph *g = u->g;
  tfs_oref s = u->in[i];
  tfs_onode *p = &g->n[s.node];
  if (p->flags & TFS_ON_FED) return -1;
  if (strcmp(p->def->name, "Shape") == 0 && p->nin == 1) {
    *out = *tfs_og__shape(g, p->in[0]);
    return out->rank < 0 ? -1 : 0;
  }
  if (strcmp(p->def->name, "Pack") == 0) {
    if (p->nin > TFS_MAX_RANK) return -1;
    out->rank = p->nin;
    for (int k = 0; k < p->nin; k++) {
      const tfs_tensor *v = tfs_og__const_value(g, p->in[k]);
      out->dims[k] = -1;
      if (v && v->nelems == 1 &&
          (v->dtype == TFS_INT32 || v->dtype == TFS_INT64)) {
        int64_t d = tfs_tensor__get_as_int64(v, 0);
        out->dims[k] = d >= 0 ? d : -1;
      }
    }
    return 0;
  }
  if (strcmp(p->def->name, "ConcatV2") == 0 && p->nin >= 2) {
    const tfs_tensor *ax = tfs_og__const_value(g, p->in[p->nin - 1]);
    if (!ax || ax->nelems != 1 || tfs_tensor__get_as_int64(ax, 0) != 0)
      return -1;
    out->rank = 0;
    for (int k = 0; k + 1 < p->nin; k++)
      if (og_partial_vec(g, p->in[k], out)) return -1;
    return 0;
  }
  return -1;
}

static int og_resource_shape(tfs_shape_ctx *c, int i, tfs_shape *out) {
  infer_user *u = c->user;
  tfs_onode *p = &u->g->n[u->in[i].node];
  if (strcmp(p->def->name, "VarHandleOp") != 0) return -1;
  const tfs_shape *s = tfs_attrs_get_shape(p->attrs, "shape");
  if (!s) return -1;
  *out = *s;
  return 0;
}

static int infer(tfs_ograph *g, const char *name, const tfs_op_def *def,
                 const tfs_attrs *attrs, int nin, const tfs_oref *in, int nout,
                 const tfs_dtype *out_types, tfs_shape *out_shapes,
                 tfs_status *st) {
  tfs_shape *shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(nin + 1));
  tfs_dtype *types = tfs_malloc(sizeof(tfs_dtype) * (size_t)(nin + 1));
  const tfs_tensor **consts = tfs_calloc((size_t)nin + 1, sizeof(void *));
  int rc = -1;
  if (!shapes || !types || !consts) {
    TFS_OOM(st);
    goto done;
  }
  for (int k = 0; k < nin; k++) {
    shapes[k] = *tfs_og__shape(g, in[k]);
    types[k] = tfs_og__dtype(g, in[k]);
    consts[k] = tfs_og__const_value(g, in[k]);
  }
  for (int k = 0; k < nout; k++) out_shapes[k].rank = -1;
  if (!def->shape_fn) {
    rc = 0;
    goto done;
  }
  infer_user u = {g, in};
  tfs_shape_ctx c = {
      .op = def,
      .node_name = name,
      .attrs = attrs,
      .ninputs = nin,
      .in_dtypes = types,
      .in_shapes = shapes,
      .in_consts = consts,
      .input_as_shape = og_input_as_shape,
      .resource_shape = og_resource_shape,
      .user = &u,
      .noutputs = nout,
      .out_dtypes = out_types,
      .out_shapes = out_shapes,
      .st = st,
  };
  rc = def->shape_fn(&c);
  if (rc)
    tfs_status_prependf(st, "optimizer: shape of new node '%s' (%s): ", name,
                        def->name);
done:
  tfs_free(shapes);
  tfs_free(types);
  tfs_free(consts);
  return rc;
}

/* ---- refreshing shapes ------------------------------------------------- */

/* *old with the dims `fresh` knows where old does not, when the two
 * agree on the rest (rank and known dims); 1 when that adds something. */
static int refine(const tfs_shape *old, const tfs_shape *fresh,
                  tfs_shape *out) {
  if (fresh->rank < 0) return 0;
  if (old->rank < 0) {
    *out = *fresh;
    return 1;
  }
  if (old->rank != fresh->rank) return 0;
  int more = 0;
  *out = *old;
  for (int d = 0; d < old->rank; d++) {
    if (old->dims[d] >= 0 && fresh->dims[d] >= 0 &&
        old->dims[d] != fresh->dims[d])
      return 0;
    if (old->dims[d] < 0 && fresh->dims[d] >= 0) {
      out->dims[d] = fresh->dims[d];
      more = 1;
    }
  }
  return more;
}

static int fully_known(const tfs_shape *s) {
  if (s->rank < 0) return 0;
  for (int d = 0; d < s->rank; d++)
    if (s->dims[d] < 0) return 0;
  return 1;
}

int tfs_og__refresh_shapes(tfs_ograph *g, tfs_status *st) {
  int *order = tfs_malloc(sizeof(int) * (size_t)(g->nn + 1));
  tfs_status *quiet = tfs_status_new();
  int changed = 0, rc = 0;
  if (!order || !quiet) goto oom;
  /* a graph with a loop keeps its shapes */
  int cnt = tfs_og__topo_order(g, order, quiet);
  for (int i = 0; i < cnt; i++) {
    tfs_onode *n = &g->n[order[i]];
    int known = 1;
    for (int k = 0; k < n->nout && known; k++)
      known = fully_known(&n->out_shapes[k]);
    /* (ops of many outputs, IdentityN and the like, keep theirs) */
    if (known || !n->def->shape_fn || n->nout > 16) continue;
    tfs_shape fresh[16], merged[16];
    if (infer(g, n->name, n->def, n->attrs, n->nin, n->in, n->nout,
              n->out_types, fresh, quiet)) {
      if (tfs_status_code(quiet) == TFS_RESOURCE_EXHAUSTED) goto oom;
      tfs_status_clear(quiet);
      continue;
    }
    int more = 0;
    for (int k = 0; k < n->nout; k++) {
      merged[k] = n->out_shapes[k];
      more |= refine(&n->out_shapes[k], &fresh[k], &merged[k]);
    }
    if (!more) continue;
    tfs_shape *keep = tfs_oarena__alloc(g->arena, sizeof(tfs_shape) *
                                                      (size_t)n->nout);
    if (!keep || tfs_og__touch(g)) goto oom;
    n = &g->n[order[i]]; /* the touch may have moved the nodes */
    memcpy(keep, merged, sizeof(tfs_shape) * (size_t)n->nout);
    n->out_shapes = keep;
    changed++;
  }
  goto done;
oom:
  TFS_OOM(st);
  rc = -1;
done:
  tfs_free(order);
  tfs_status_free(quiet);
  return rc ? -1 : changed;
}

/* ---- adding nodes
 * -------------------------------------------------------------- */

static int check_input_types(tfs_ograph *g, const char *name,
                             const tfs_op_def *def, const tfs_arg_layout *l,
                             const tfs_onode_spec *spec, tfs_status *st) {
  if (spec->nin != l->ninputs) {
    tfs_status_setf(st, TFS_INTERNAL,
                    "optimizer built node '%s' (%s) with %d inputs, "
                    "expected %d",
                    name, def->name, spec->nin, l->ninputs);
    return -1;
  }
  for (int k = 0; k < spec->nin; k++) {
    tfs_oref s = spec->in[k];
    if (!tfs_og__live(g, s.node) || s.port < 0 || s.port >= g->n[s.node].nout) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "optimizer built node '%s' with a bad input %d", name, k);
      return -1;
    }
    tfs_dtype a = tfs_og__dtype(g, s), e = l->in_types[k];
    if (a == e || e == tfs_dtype_base(a)) continue;
    tfs_status_setf(st, TFS_INTERNAL,
                    "optimizer built node '%s' (%s): input %d has dtype %s, "
                    "expected %s",
                    name, def->name, k, tfs_dtype_name(a), tfs_dtype_name(e));
    return -1;
  }
  return 0;
}

int tfs_og__add(tfs_ograph *g, const tfs_onode_spec *spec, tfs_status *st) {
  tfs_attrs local;
  tfs_attrs_init(&local);
  tfs_attrs *a = spec->attrs ? spec->attrs : &local;
  tfs_arg_layout l;
  memset(&l, 0, sizeof l);
  const tfs_op_def *def = tfs_op_lookup(spec->op);
  const char *name = spec->name;
  int idx = -1;
  if (!def) {
    tfs_op_not_registered(spec->op, st);
    goto done;
  }
  if (!name) name = tfs_og__unique_name(g, spec->base ? spec->base : spec->op);
  if (!name) goto oom;
  if (tfs_og__find(g, name) >= 0) {
    tfs_status_setf(st, TFS_INTERNAL,
                    "optimizer: node name '%s' is already used", name);
    goto done;
  }
  if (tfs_graph__add_defaults(def, a)) goto oom;
  if (tfs_graph__arg_layout(def, a, name, &l, st)) goto done;
  if (check_input_types(g, name, def, &l, spec, st)) goto done;
  tfs_oarena *ar = g->arena;
  char *aname = tfs_oarena__strdup(ar, name);
  char *adev = tfs_oarena__strdup(ar, spec->device ? spec->device : "");
  tfs_dtype *in_t =
      tfs_oarena__alloc(ar, sizeof(tfs_dtype) * (size_t)(l.ninputs + 1));
  tfs_dtype *out_t =
      tfs_oarena__alloc(ar, sizeof(tfs_dtype) * (size_t)(l.noutputs + 1));
  tfs_shape *out_s =
      tfs_oarena__alloc(ar, sizeof(tfs_shape) * (size_t)(l.noutputs + 1));
  if (!aname || !adev || !in_t || !out_t || !out_s) goto oom;
  if (l.ninputs)
    memcpy(in_t, l.in_types, sizeof(tfs_dtype) * (size_t)l.ninputs);
  if (l.noutputs)
    memcpy(out_t, l.out_types, sizeof(tfs_dtype) * (size_t)l.noutputs);
  if (infer(g, aname, def, a, spec->nin, spec->in, l.noutputs, out_t, out_s,
            st))
    goto done;
  const tfs_attrs *kept = tfs_oarena__keep_attrs(ar, a);
  if (!kept) goto oom;
  if (tfs_og__touch(g) || grow_nodes(g, g->nn + 1)) goto oom;
  idx = g->nn;
  tfs_onode *n = &g->n[idx];
  memset(n, 0, sizeof(*n));
  n->name = aname;
  n->def = def;
  n->device = adev;
  n->attrs = kept;
  n->in_types = in_t;
  n->out_types = out_t;
  n->out_shapes = out_s;
  n->nout = l.noutputs;
  n->flags = tfs_og__classify(def, in_t, l.ninputs, out_t, l.noutputs);
  n->in = tfs_malloc(sizeof(tfs_oref) * (size_t)(spec->nin + 1));
  n->ctrl = tfs_malloc(sizeof(int) * (size_t)(spec->nctrl + 1));
  n->incap = spec->nin + 1;
  n->ctrlcap = spec->nctrl + 1;
  g->nn++;
  g->nlive++;
  if (!n->in || !n->ctrl) goto oom_node;
  if (spec->nin) memcpy(n->in, spec->in, sizeof(tfs_oref) * (size_t)spec->nin);
  n->nin = spec->nin;
  for (int k = 0; k < spec->nctrl; k++) {
    int c = spec->ctrl[k], dup = 0;
    for (int j = 0; j < n->nctrl; j++) dup |= n->ctrl[j] == c;
    if (!dup && tfs_og__live(g, c) && !(g->n[c].flags & TFS_ON_FED))
      n->ctrl[n->nctrl++] = c;
  }
  if (tfs_map_put_str(&g->names, n->name, (void *)(intptr_t)(idx + 1)) ||
      tfs_og__link_new(g, idx))
    goto oom_node;
  for (int k = 0; k < spec->norig_from; k++)
    if (tfs_og__add_origins(g, idx, spec->orig_from[k])) goto oom_node;
  tfs_arg_layout_clear(&l);
  tfs_attrs_clear(&local);
  tfs_status_clear(st);
  return idx;
oom_node:
  g->oom = 1; /* half-linked: only a rollback repairs this */
oom:
  TFS_OOM(st);
  idx = -1;
done:
  tfs_arg_layout_clear(&l);
  tfs_attrs_clear(a);
  tfs_attrs_clear(&local);
  return idx;
}

int tfs_og__add_const(tfs_ograph *g, const char *name, const char *base,
                      const char *device, tfs_tensor *value, int nctrl,
                      const int *ctrl, tfs_status *st) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value v;
  tfs_attr_tensor(&v, value);
  if (tfs_attrs_set(&a, "value", &v)) {
    TFS_OOM(st);
    return -1;
  }
  tfs_attr_type_val(&v, value->dtype);
  if (tfs_attrs_set(&a, "dtype", &v)) {
    tfs_attrs_clear(&a);
    TFS_OOM(st);
    return -1;
  }
  tfs_onode_spec spec = {
      .name = name,
      .base = base,
      .op = "Const",
      .device = device,
      .attrs = &a,
      .nctrl = nctrl,
      .ctrl = ctrl,
  };
  return tfs_og__add(g, &spec, st);
}

/* Whether node nw can stand in for old: an output for every consumed
 * port of old, with old's dtype unless `retype`.  Sets st when not. */
static int outputs_cover(tfs_ograph *g, int old, int nw, int retype,
                         tfs_status *st) {
  const tfs_onode *o = &g->n[old], *n = &g->n[nw];
  for (int p = 0; p < o->nout; p++) {
    if (!tfs_og__port_uses(g, old, p)) continue;
    if (p >= n->nout) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "optimizer: replacement of '%s' (%s) lacks output %d",
                      o->name, n->def->name, p);
      return 0;
    }
    if (!retype && n->out_types[p] != o->out_types[p]) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "optimizer: replacement of '%s' (%s) has output %d of "
                      "type %s, its consumers expect %s",
                      o->name, n->def->name, p,
                      tfs_dtype_name(n->out_types[p]),
                      tfs_dtype_name(o->out_types[p]));
      return 0;
    }
  }
  return 1;
}

static int replace(tfs_ograph *g, int old, const tfs_onode_spec *spec,
                   int retype, tfs_status *st) {
  tfs_onode_spec s = *spec;
  /* the new node takes the name at once: old leaves the name map first
   * and gets it back if the new node cannot be made or cannot stand in */
  const char *keep_name = g->n[old].name;
  if (tfs_og__touch(g)) {
    if (spec->attrs) tfs_attrs_clear(spec->attrs);
    TFS_OOM(st);
    return -1;
  }
  tfs_map_remove(&g->names, keep_name, strlen(keep_name));
  s.name = keep_name;
  int nw = tfs_og__add(g, &s, st);
  if (nw >= 0 && !outputs_cover(g, old, nw, retype, st)) {
    tfs_og__kill(g, nw); /* no consumers yet: the graph is as before */
    nw = -1;
  }
  if (nw < 0) {
    if (tfs_map_put_str(&g->names, keep_name, (void *)(intptr_t)(old + 1)))
      g->oom = 1;
    return -1;
  }
  if (tfs_og__add_origins(g, nw, old)) goto oom;
  tfs_onode *o = &g->n[old];
  for (int p = 0; p < o->nout; p++) {
    if (!tfs_og__port_uses(g, old, p)) continue;
    tfs_oref from = {old, p}, to = {nw, p};
    if (tfs_og__forward(g, from, to)) goto oom;
  }
  if (tfs_og__forward_ctrl(g, old, &nw, 1)) goto oom;
  unsigned keep_flags = o->flags & TFS_ON_PRESERVED;
  tfs_og__kill(g, old);
  if (!(g->n[old].flags & TFS_ON_DEAD)) goto oom;
  g->n[nw].flags |= keep_flags;
  tfs_status_clear(st);
  return nw;
oom:
  g->oom = 1;
  TFS_OOM(st);
  return -1;
}

int tfs_og__replace(tfs_ograph *g, int old, const tfs_onode_spec *spec,
                    tfs_status *st) {
  return replace(g, old, spec, 0, st);
}

int tfs_og__replace_retyped(tfs_ograph *g, int old,
                            const tfs_onode_spec *spec, tfs_status *st) {
  return replace(g, old, spec, 1, st);
}

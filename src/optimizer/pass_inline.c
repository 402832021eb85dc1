/*
 * optimizer/pass_inline.c - the function optimizer (Grappler's
 * "function_optimizer"): inlines PartitionedCall and
 * StatefulPartitionedCall into the caller's graph (TensorFlow's
 * InlineFunctionBody layout: Func/<call>/input/_k Identities, the body
 * renamed <call>/<node>, Func/<call>/output/_k Identities, input and
 * output control NoOps) and, through pass_lower_cf.c, lowers If, Case and
 * While marked _lower_using_switch_merge to TF1 control flow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/function_lib.h"
#include "optimizer/fn_inline.h"
#include "optimizer/opt_util.h"
#include "optimizer/remap_util.h"

/* ---- the library --------------------------------------------------------- */

/* The private copy of the source graph's library (made on first use: the
 * caller holds src->mu, which instantiation would lock), or NULL. */
static tfs_graph *lib_graph(tfs_opt_ctx *c) {
  if (!c->src || !c->flib) return NULL;
  if (*c->flib) return *c->flib;
  if (tfs_flib__count(c->src) == 0) return NULL;
  tfs_graph *lg = tfs_graph_new();
  tfs_status *s = tfs_status_new();
  if (lg && s && tfs_flib__copy(lg, c->src, s) == 0) {
    *c->flib = lg;
    lg = NULL;
  }
  tfs_graph_free(lg);
  tfs_status_free(s);
  return *c->flib;
}

int tfs_fnopt__instantiate(tfs_opt_ctx *c, const tfs_func_attr *f,
                           tfs_fn_body *out, char **why) {
  *why = NULL;
  memset(out, 0, sizeof(*out));
  tfs_graph *lg = lib_graph(c);
  if (!lg) {
    *why = tfs_strdup("the graph's function library could not be read");
    return -1;
  }
  tfs_status *s = tfs_status_new();
  if (!s) return -1;
  int rc = tfs_fn_body__instantiate(lg, f->name, f->attrs, out, s);
  if (rc) *why = tfs_strdup(tfs_status_message(s));
  tfs_status_free(s);
  return rc;
}

const Tensorflow__FunctionDef *tfs_fnopt__fdef(tfs_opt_ctx *c,
                                                const char *name) {
  tfs_graph *lg = lib_graph(c);
  const tfs_flib_fn *fn = lg ? tfs_flib__find(lg, name) : NULL;
  return fn ? fn->pb : NULL;
}

int tfs_fnopt__body_has_cf(const tfs_fn_body *b) {
  for (size_t i = 0; i < b->graph->nops; i++)
    if (b->graph->ops[i]->def->flags & TFS_OP_CONTROL_FLOW) return 1;
  return 0;
}

/* A bool attr of a FunctionDef (absent: 0). */
static int fdef_bool(const Tensorflow__FunctionDef *fd, const char *key) {
  for (size_t i = 0; i < fd->n_attr; i++) {
    const Tensorflow__FunctionDef__AttrEntry *e = fd->attr[i];
    if (strcmp(e->key, key) == 0 && e->value &&
        e->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B)
      return e->value->b != 0;
  }
  return 0;
}

/* A string attr that is set and not empty, or a bool attr that is true. */
static int attr_set(const tfs_attrs *a, const char *name) {
  const tfs_attr_value *v = tfs_attrs_find(a, name);
  if (!v || v->is_list) return 0;
  if (v->type == TFS_ATTR_STRING) return v->u.s.len > 0;
  if (v->type == TFS_ATTR_BOOL) return v->u.b != 0;
  return 0;
}

int tfs_fnopt__xla_marked(const tfs_attrs *a) {
  return attr_set(a, "_xla_compile_id") || attr_set(a, "_XlaCluster") ||
         attr_set(a, "_tpu_replicate") || attr_set(a, "_XlaMustCompile");
}

/* ---- copying a body ------------------------------------------------------ */

/* Functional ops: a call or a functional control-flow op. */
static int is_functional(const tfs_op_def *def) {
  static const char *const kOps[] = {
      "PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf",
      "Case", "StatelessCase", "While", "StatelessWhile"};
  for (size_t k = 0; k < sizeof kOps / sizeof kOps[0]; k++)
    if (strcmp(def->name, kOps[k]) == 0) return 1;
  return 0;
}

/* Adds Identity(src) named from `base`, with an optional control input. */
static int add_identity(tfs_opt_ctx *c, const char *base, const char *device,
                        tfs_oref src, int ctrl) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_dtype_base(tfs_og__dtype(c->g, src)))) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_onode_spec spec = {.base = base, .op = "Identity", .device = device,
                         .attrs = &a, .nin = 1, .in = &src,
                         .nctrl = ctrl >= 0, .ctrl = &ctrl};
  return tfs_og__add(c->g, &spec, c->st);
}

/* Adds a copy of body op `op` (inputs through map[]) named prefix/name. */
static int copy_body_node(tfs_opt_ctx *c, const tfs_operation *op,
                          const int *map, const tfs_inline_io *io,
                          tfs_oref *ins, int *ctl) {
  for (int k = 0; k < op->ninputs; k++) {
    int m = map[op->inputs[k].oper->id];
    if (m < 0) {
      tfs_status_setf(c->st, TFS_INTERNAL,
                      "inlining into '%s': body node '%s' reads node '%s', "
                      "which comes later",
                      io->prefix, op->name, op->inputs[k].oper->name);
      return -1;
    }
    ins[k] = (tfs_oref){m, op->inputs[k].index};
  }
  int nctl = 0;
  for (int k = 0; k < op->ncontrol; k++)
    if (map[op->control_inputs[k]->id] >= 0)
      ctl[nctl++] = map[op->control_inputs[k]->id];
  /* the anchor gives input-less nodes (and calls, whose own bodies will
   * need it) the caller's frame and control inputs */
  if (io->anchor >= 0 &&
      ((op->ninputs == 0 && op->ncontrol == 0) ||
       (is_functional(op->def) && op->ncontrol == 0)))
    ctl[nctl++] = io->anchor;
  char *name = tfs_asprintf("%s/%s", io->prefix, op->name);
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (!name || tfs_attrs_copy(&a, &op->attrs)) {
    tfs_free(name);
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  const char *dev = op->device && op->device[0] ? op->device : io->device;
  tfs_onode_spec spec = {.base = name, .op = op->def->name, .device = dev,
                         .attrs = &a, .nin = op->ninputs, .in = ins,
                         .nctrl = nctl, .ctrl = ctl};
  int idx = tfs_og__add(c->g, &spec, c->st);
  tfs_free(name);
  return idx;
}

int tfs_fnopt__inline_body(tfs_opt_ctx *c, const tfs_fn_body *b,
                           tfs_inline_io *io) {
  tfs_graph *bg = b->graph;
  size_t n = bg->nops;
  int maxin = 1, maxctl = 2;
  for (size_t i = 0; i < n; i++) {
    if (bg->ops[i]->ninputs > maxin) maxin = bg->ops[i]->ninputs;
    if (bg->ops[i]->ncontrol + 1 > maxctl) maxctl = bg->ops[i]->ncontrol + 1;
  }
  int *map = tfs_malloc(sizeof(int) * (n + 1));
  tfs_oref *ins = tfs_malloc(sizeof(tfs_oref) * (size_t)maxin);
  int *ctl = tfs_malloc(sizeof(int) * (size_t)maxctl);
  char *base = NULL;
  int rc = -1;
  if (!map || !ins || !ctl) {
    TFS_OOM(c->st);
    goto done;
  }
  for (size_t i = 0; i <= n; i++) map[i] = -1;
  for (int k = 0; k < b->nargs; k++) {
    tfs_free(base);
    base = tfs_asprintf("Func/%s/input/_%d", io->prefix, k);
    int id = base ? add_identity(c, base, io->device, io->in[k], io->anchor)
                  : (TFS_OOM(c->st), -1);
    if (id < 0) goto done;
    map[b->args[k].oper->id] = id;
  }
  for (size_t i = 0; i < n; i++) {
    if (map[i] >= 0) continue; /* an argument */
    map[i] = copy_body_node(c, bg->ops[i], map, io, ins, ctl);
    if (map[i] < 0) goto done;
  }
  for (int r = 0; r < b->nrets; r++) {
    tfs_oref src = {map[b->rets[r].oper->id], b->rets[r].index};
    tfs_free(base);
    base = tfs_asprintf("Func/%s/output/_%d", io->prefix, r);
    int id = base ? add_identity(c, base, io->device, src, -1)
                  : (TFS_OOM(c->st), -1);
    if (id < 0) goto done;
    io->out[r] = (tfs_oref){id, 0};
  }
  for (int k = 0; k < b->nctrl; k++) io->ctrl[k] = map[b->ctrl[k]->id];
  rc = 0;
done:
  tfs_free(base);
  tfs_free(map);
  tfs_free(ins);
  tfs_free(ctl);
  return rc;
}

/* ---- which calls are inlined --------------------------------------------- */

/* Stateful ops whose effect nobody needs to wait for (TensorFlow's
 * IsExemptFromSideEffectsExecutionValidation, the part tfsess has). */
static int exempt_side_effect(const char *op) {
  static const char *const kOps[] = {
      "ReadVariableOp", "VarHandleOp", "Placeholder", "RandomUniform",
      "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
      "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson",
      "RandomPoissonV2"};
  for (size_t k = 0; k < sizeof kOps / sizeof kOps[0]; k++)
    if (strcmp(op, kOps[k]) == 0) return 1;
  return 0;
}

/* TensorFlow's ValidateSideEffectsExecution for a PartitionedCall: every
 * stateful body node must reach a control return, or inlining could
 * drop its effect.  Returns the name of one that does not, or NULL. */
static const char *unreached_side_effect(const tfs_fn_body *b) {
  size_t n = b->graph->nops;
  uint8_t *reach = tfs_calloc(n + 1, 1);
  if (!reach) return "(out of memory)";
  for (int k = 0; k < b->nctrl; k++) reach[b->ctrl[k]->id] = 1;
  /* ids are an execution order: one backward sweep closes the set */
  for (size_t i = n; i-- > 0;) {
    const tfs_operation *op = b->graph->ops[i];
    if (!reach[i]) continue;
    for (int k = 0; k < op->ninputs; k++) reach[op->inputs[k].oper->id] = 1;
    for (int k = 0; k < op->ncontrol; k++)
      reach[op->control_inputs[k]->id] = 1;
  }
  const char *bad = NULL;
  for (size_t i = 0; i < n && !bad; i++) {
    const tfs_operation *op = b->graph->ops[i];
    if ((op->def->flags & TFS_OP_STATEFUL) && !reach[i] &&
        !exempt_side_effect(op->def->name))
      bad = op->name;
  }
  tfs_free(reach);
  return bad;
}

/* Why call node i may not be inlined with body b, or NULL. */
static const char *body_mismatch(const tfs_ograph *g, int i,
                                 const tfs_fn_body *b) {
  const tfs_onode *n = &g->n[i];
  if (b->nargs != n->nin || b->nrets != n->nout)
    return "its inputs or outputs do not match the function's signature";
  for (int k = 0; k < n->nin; k++)
    if (tfs_dtype_base(n->in_types[k]) !=
        tfs_dtype_base(b->args[k].oper->out_types[b->args[k].index]))
      return "an input type does not match the function's argument";
  for (int k = 0; k < n->nout; k++)
    if (n->out_types[k] !=
        b->rets[k].oper->out_types[b->rets[k].index])
      return "an output type does not match the function's return value";
  if (tfs_fnopt__body_has_cf(b)) return "the body has TF1 control flow";
  return NULL;
}

/* Whether call node i may be inlined; a note says why not. */
static int may_inline(tfs_opt_ctx *c, int i, const tfs_func_attr **f,
                      tfs_func_attr *direct) {
  tfs_ograph *g = c->g;
  const tfs_onode *n = &g->n[i];
  if (tfs_flib__is_function_op(n->def)) {
    /* a node whose op type names the function: its attrs bind the
     * function's attr placeholders */
    direct->name = (char *)n->def->name;
    direct->attrs = (struct tfs_attrs *)n->attrs;
    *f = direct;
  } else {
    const tfs_attr_value *v = tfs_attrs_find(n->attrs, "f");
    *f = v && v->type == TFS_ATTR_FUNC && !v->is_list ? v->u.func : NULL;
  }
  if (!*f) return 0;
  if (n->flags & TFS_ON_FED) {
    tfs_opt__note(c, "kept fed call '%s'", n->name);
    return 0;
  }
  const Tensorflow__FunctionDef *fd = tfs_fnopt__fdef(c, (*f)->name);
  if (!fd) return 0; /* the run reports the missing function */
  /* TensorFlow keeps a call marked for XLA and compiles it.  tfsess has
   * no XLA: the body computes the same inlined, where the remapper can
   * fuse it with its neighbours (Keras's grouped convolutions are such
   * calls), so it is kept only for a graph TensorFlow will load, or for
   * a TPU; the _noinline that jit_compile puts beside the mark goes
   * with it. */
  int xla = tfs_fnopt__xla_marked(n->attrs) || fdef_bool(fd, "_XlaMustCompile");
  if (xla && (c->cfg->tf_compatible || attr_set(n->attrs, "_tpu_replicate"))) {
    tfs_opt__note(c, "kept '%s' (marked for XLA)", n->name);
    return 0;
  }
  if (!xla && fdef_bool(fd, "_noinline") && c->cfg->function_level < 2) {
    tfs_opt__note(c, "kept '%s' (function '%s' is _noinline)", n->name,
                  (*f)->name);
    return 0;
  }
  return 1;
}

/* Adds a NoOp named from `base` with control inputs ctl[0..n). */
static int add_noop(tfs_opt_ctx *c, const char *base, const char *device,
                    const int *ctl, int n) {
  tfs_onode_spec spec = {.base = base, .op = "NoOp", .device = device,
                         .nctrl = n, .ctrl = ctl};
  return tfs_og__add(c->g, &spec, c->st);
}

/* Replaces preserved node i, now without consumers, by an IdentityN of
 * outs (a NoOp when there are none) of its name that waits for `ctl`. */
static int keep_fetchable(tfs_opt_ctx *c, int i, const tfs_oref *outs,
                          int nout, const int *ctl, int nctl) {
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_dtype types[64];
  if (nout > 64) {
    tfs_status_setf(c->st, TFS_INTERNAL, "node '%s' has too many outputs",
                    c->g->n[i].name);
    return -1;
  }
  for (int k = 0; k < nout; k++) types[k] = tfs_og__dtype(c->g, outs[k]);
  if (nout && tfs_opt__set_types(&a, "T", types, nout)) {
    tfs_attrs_clear(&a);
    TFS_OOM(c->st);
    return -1;
  }
  tfs_onode_spec spec = {.op = nout ? "IdentityN" : "NoOp",
                         .device = c->g->n[i].device, .attrs = &a,
                         .nin = nout, .in = outs, .nctrl = nctl, .ctrl = ctl};
  return tfs_og__replace(c->g, i, &spec, c->st) < 0 ? -1 : 0;
}

int tfs_fnopt__finish_node(tfs_opt_ctx *c, int i, const tfs_oref *outs,
                           int nout, const int *ctl, int nctl) {
  tfs_ograph *g = c->g;
  for (int p = 0; p < nout; p++)
    if (tfs_og__forward(g, (tfs_oref){i, p}, outs[p])) goto oom;
  if (tfs_og__forward_ctrl(g, i, ctl, nctl)) goto oom;
  if (g->n[i].flags & TFS_ON_PRESERVED)
    return keep_fetchable(c, i, outs, nout, ctl, nctl);
  tfs_og__kill(g, i);
  if (!(g->n[i].flags & TFS_ON_DEAD)) goto oom;
  return 0;
oom:
  TFS_OOM(c->st);
  return -1;
}

/* Inlines call node i.  Returns 1 when inlined, 0 when kept, -1 on error. */
static int inline_call(tfs_opt_ctx *c, int i) {
  const tfs_func_attr *f;
  tfs_func_attr direct;
  if (!may_inline(c, i, &f, &direct)) return 0;
  tfs_fn_body b;
  char *why = NULL;
  tfs_ograph *g = c->g;
  if (tfs_fnopt__instantiate(c, f, &b, &why)) {
    tfs_opt__note(c, "kept '%s' (%s)", g->n[i].name, why ? why : "error");
    tfs_free(why);
    return 0;
  }
  const char *bad = body_mismatch(g, i, &b);
  const char *unreached = bad || c->cfg->function_level >= 2
                              ? NULL : unreached_side_effect(&b);
  if (bad || unreached) {
    if (bad)
      tfs_opt__note(c, "kept '%s' (%s)", g->n[i].name, bad);
    else
      tfs_opt__note(c, "kept '%s' (stateful node '%s' reaches no control "
                    "output)", g->n[i].name, unreached);
    tfs_fn_body__clear(&b);
    return 0;
  }
  const char *name = g->n[i].name, *device = g->n[i].device;
  int nin = g->n[i].nin, nout = g->n[i].nout, nctrl = g->n[i].nctrl;
  int rc = -1, anchor = -1, out_ctl = -1;
  tfs_oref *ins = tfs_malloc(sizeof(tfs_oref) * (size_t)(nin + 1));
  tfs_oref *outs = tfs_malloc(sizeof(tfs_oref) * (size_t)(nout + 1));
  int *rets = tfs_malloc(sizeof(int) * (size_t)(b.nctrl + 1));
  int *ctl = tfs_malloc(sizeof(int) * (size_t)(nctrl + 1));
  char *base = tfs_asprintf("Func/%s/input_control_node/_0", name);
  if (!ins || !outs || !rets || !ctl || !base) {
    TFS_OOM(c->st);
    goto done;
  }
  if (nin) memcpy(ins, g->n[i].in, sizeof(tfs_oref) * (size_t)nin);
  if (nctrl) memcpy(ctl, g->n[i].ctrl, sizeof(int) * (size_t)nctrl);
  if (nctrl && (anchor = add_noop(c, base, device, ctl, nctrl)) < 0) goto done;
  tfs_inline_io io = {name, device, ins, anchor, outs, rets};
  if (tfs_fnopt__inline_body(c, &b, &io)) goto done;
  if (g->n[i].ncfan || (g->n[i].flags & TFS_ON_PRESERVED)) {
    /* waits for the control outputs (or, without any, the inputs) */
    tfs_free(base);
    base = tfs_asprintf("Func/%s/output_control_node/_0", name);
    int n = b.nctrl ? b.nctrl : anchor >= 0;
    const int *from = b.nctrl ? rets : &anchor;
    if (!base || (out_ctl = add_noop(c, base, device, from, n)) < 0) {
      if (!base) TFS_OOM(c->st);
      goto done;
    }
  }
  rc = tfs_fnopt__finish_node(c, i, outs, nout, &out_ctl, out_ctl >= 0) ? -1
                                                                         : 1;
done:
  tfs_free(ins);
  tfs_free(outs);
  tfs_free(rets);
  tfs_free(ctl);
  tfs_free(base);
  tfs_fn_body__clear(&b);
  return rc;
}

/* PartitionedCall, StatefulPartitionedCall, or a node whose op type is a
 * library function's name (TensorFlow inlines all three). */
static int is_call(const tfs_ograph *g, int i) {
  return tfs_og__is(g, i, "PartitionedCall") ||
         tfs_og__is(g, i, "StatefulPartitionedCall") ||
         tfs_flib__is_function_op(g->n[i].def);
}

int tfs_pass__function(tfs_opt_ctx *c) {
  /* TensorFlow: nothing to do without a library */
  if (!c->cfg->function_level || !c->src || tfs_flib__count(c->src) == 0)
    return 0;
  int64_t inlined = 0, lowered = 0, fused = 0;
  /* nodes made here are appended and visited too: nested calls, and
   * If/While inside inlined bodies */
  for (int i = 0; i < c->g->nn; i++) {
    if (!tfs_og__live(c->g, i)) continue;
    int r = 0;
    if (tfs_lower__wants(c, i)) {
      /* a Keras LSTM loop is fused, not lowered (the remapper's rewrite,
       * made before the loop is gone) */
      r = tfs_remap__lstm_loop(c, i);
      if (r > 0) {
        fused++;
      } else if (r == 0) {
        r = tfs_lower__node(c, i);
        if (r > 0) lowered++;
      }
    } else if (is_call(c->g, i)) {
      r = inline_call(c, i);
      if (r > 0) inlined++;
    }
    if (r < 0) return -1;
  }
  if (inlined) tfs_opt__note(c, "inlined %lld calls", (long long)inlined);
  /* the calls' consumers were inferred from unknown shapes: the bodies
   * know them now, and later passes match on them */
  if ((inlined || lowered) && tfs_og__refresh_shapes(c->g, c->st) < 0)
    return -1;
  if (lowered)
    tfs_opt__note(c, "lowered %lld functional control-flow ops",
                  (long long)lowered);
  if (fused)
    tfs_opt__note(c, "fused %lld Keras LSTM loops into _TfsLstmSequence",
                  (long long)fused);
  c->changes += inlined + lowered + fused;
  return 0;
}

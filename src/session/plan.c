/*
 * session/plan.c - building a plan for one (feeds, fetches, targets)
 * signature: validation with TensorFlow's messages, pruning (fed tensors
 * cut the graph), execution order, slots, kernels, release counts, and
 * the executor's per-plan facts (roots, overlap, feed checks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "session/exec.h"
#include "session/plan_place.h"
#include "session/session_internal.h"

static void plan_free(tfs_plan *p) {
  if (!p) return;
  tfs_exec__free(p);
  for (int i = 0; i < p->nnodes; i++) {
    tfs_plan_node *n = &p->nodes[i];
    if (n->kdef && n->kdef->release && n->kstate) n->kdef->release(n->kstate);
    tfs_free(n->in_slots);
    tfs_free(n->in_flags);
    tfs_free(n->succ);
  }
  tfs_free(p->nodes);
  tfs_free(p->slot_uses);
  tfs_free(p->feeds);
  tfs_free(p->feed_slots);
  tfs_free(p->fetch_slots);
  tfs_free(p->fetch_deref);
  tfs_free(p->fetches);
  tfs_free(p->key);
  tfs_plan__free_devices(p);
  tfs_plan__opt_clear(&p->opt); /* after the kernels: they saw its Consts */
  tfs_free(p);
}

void tfs_plan__unref(tfs_plan *p) {
  if (p && atomic_fetch_sub(&p->refs, 1) == 1) plan_free(p);
}

static const char *tname(tfs_output o, char *buf, size_t cap) {
  snprintf(buf, cap, "%s:%d", o.oper->name, o.index);
  return buf;
}

/* ---- validation ---------------------------------------------------------- */

static int check_signature(tfs_session *s, const tfs_output *feeds,
                           int nfeeds, const tfs_output *fetches,
                           int nfetches, tfs_operation *const *targets,
                           int ntargets, tfs_status *st) {
  char buf[512];
  if (nfetches == 0 && ntargets == 0) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Must specify at least one target to fetch or execute.");
    return -1;
  }
  for (int i = 0; i < nfeeds; i++) {
    tfs_output f = feeds[i];
    if (!f.oper || f.oper->graph != s->graph) {
      tfs_status_setf(st, TFS_NOT_FOUND,
                      "FeedInputs: unable to find feed output %s",
                      f.oper ? tname(f, buf, sizeof buf) : "(null)");
      return -1;
    }
    if (f.index < 0 || f.index >= f.oper->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "FeedInputs: %s should have output index < %d",
                      tname(f, buf, sizeof buf), f.oper->noutputs);
      return -1;
    }
    for (int k = 0; k < i; k++) {
      if (feeds[k].oper == f.oper && feeds[k].index == f.index) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Endpoint \"%s\" fed more than once.",
                        tname(f, buf, sizeof buf));
        return -1;
      }
    }
  }
  for (int i = 0; i < nfetches; i++) {
    tfs_output f = fetches[i];
    if (!f.oper || f.oper->graph != s->graph) {
      tfs_status_setf(st, TFS_NOT_FOUND, "FetchOutputs node %s: not found",
                      f.oper ? tname(f, buf, sizeof buf) : "(null)");
      return -1;
    }
    if (f.oper->noutputs == 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Tried to fetch data for '%s', which produces no "
                      "output.  To run to a node but not fetch any data, "
                      "pass '%s' as an argument to the 'target_node_names' "
                      "argument of the Session::Run API.",
                      tname(f, buf, sizeof buf), buf);
      return -1;
    }
    if (f.index < 0 || f.index >= f.oper->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "FetchOutputs %s: output index too large, must be < %d",
                      tname(f, buf, sizeof buf), f.oper->noutputs);
      return -1;
    }
    for (int k = 0; k < nfeeds; k++) {
      if (feeds[k].oper == f.oper && feeds[k].index == f.index) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "%s is both fed and fetched.",
                        tname(f, buf, sizeof buf));
        return -1;
      }
    }
  }
  for (int i = 0; i < ntargets; i++) {
    if (!targets[i] || targets[i]->graph != s->graph) {
      tfs_status_setf(st, TFS_NOT_FOUND,
                      "PruneForTargets: Some target nodes not found: %s ",
                      targets[i] ? targets[i]->name : "(null)");
      return -1;
    }
  }
  return 0;
}

/* ---- building -------------------------------------------------------------- */

static int fed_index(const tfs_output *feeds, int nfeeds, tfs_output o) {
  for (int k = 0; k < nfeeds; k++)
    if (feeds[k].oper == o.oper && feeds[k].index == o.index) return k;
  return -1;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* ---- execution order ----------------------------------------------------- */

static int op_is(const tfs_operation *op, const char *a, const char *b) {
  return strcmp(op->def->name, a) == 0 || strcmp(op->def->name, b) == 0;
}

/* TensorFlow's back edge: a data edge into a Merge from a NextIteration.
 * The executor's frames order it (session/exec_cf.c); the plan does not
 * count it as a dependency. */
static int back_edge(const tfs_operation *src, const tfs_operation *dst) {
  return (dst->def->flags & TFS_OP_CONTROL_FLOW) &&
         op_is(dst, "Merge", "RefMerge") &&
         op_is(src, "NextIteration", "RefNextIteration");
}

/* Whether every input of ids[0..n) (sorted) comes from an earlier id, back
 * edges and fed inputs aside: true unless an input was rewired. */
static int id_order_ok(tfs_graph *g, const int *ids, int n,
                       const tfs_output *feeds, int nfeeds) {
  for (int i = 0; i < n; i++) {
    const tfs_operation *op = g->ops[ids[i]];
    for (int k = 0; k < op->ninputs; k++) {
      tfs_output src = op->inputs[k];
      if (src.oper->id > op->id && !back_edge(src.oper, op) &&
          fed_index(feeds, nfeeds, src) < 0)
        return 0;
    }
    for (int k = 0; k < op->ncontrol; k++)
      if (op->control_inputs[k]->id > op->id) return 0;
  }
  return 1;
}

/* TensorFlow's ValidateNoCycles message over the nodes left unordered. */
static void cycle_error(tfs_graph *g, const int *ids, int n,
                        const int *pending, int left, tfs_status *st) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  int shown = 0;
  for (int i = 0; i < n && shown < 3; i++) {
    if (!pending[i]) continue;
    tfs_strbuf_printf(&b, "%s%s", shown++ ? ", " : "", g->ops[ids[i]]->name);
  }
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "Graph is invalid, contains a cycle with %d nodes, "
                  "including: %s", left, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
}

/* Sorts ids[0..n) (in id order) into an execution order along their
 * edges, back edges left out.  0, or -1 with st set (a cycle, OOM). */
static int topo_sort(tfs_graph *g, int *ids, int n, const tfs_output *feeds,
                     int nfeeds, tfs_status *st) {
  int *pos = tfs_malloc(sizeof(int) * (g->nops + 1));
  int *pending = tfs_calloc((size_t)n + 1, sizeof(int));
  int *start = tfs_calloc((size_t)n + 2, sizeof(int));
  int *queue = tfs_malloc(sizeof(int) * ((size_t)n + 1));
  int *adj = NULL, rc = -1, head = 0, tail = 0;
  if (!pos || !pending || !start || !queue) goto oom;
  for (int i = 0; i < n; i++) pos[ids[i]] = i;
  /* twice over the edges: count, then fill the successor lists */
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      const tfs_operation *op = g->ops[ids[i]];
      for (int k = 0; k < op->ninputs + op->ncontrol; k++) {
        const tfs_operation *src;
        if (k < op->ninputs) {
          if (fed_index(feeds, nfeeds, op->inputs[k]) >= 0 ||
              back_edge(op->inputs[k].oper, op))
            continue;
          src = op->inputs[k].oper;
        } else {
          src = op->control_inputs[k - op->ninputs];
        }
        int j = pos[src->id];
        if (pass == 0) {
          start[j + 1]++;
          pending[i]++;
        } else {
          adj[start[j]++] = i;
        }
      }
    }
    if (pass == 1) break;
    for (int i = 0; i < n; i++) start[i + 1] += start[i];
    adj = tfs_malloc(sizeof(int) * ((size_t)start[n] + 1));
    if (!adj) goto oom;
  }
  /* start[j] now ends j's list; it begins where j - 1's ends */
  for (int i = 0; i < n; i++)
    if (!pending[i]) queue[tail++] = i;
  while (head < tail) {
    int i = queue[head++];
    for (int e = i ? start[i - 1] : 0; e < start[i]; e++)
      if (--pending[adj[e]] == 0) queue[tail++] = adj[e];
  }
  if (tail < n) {
    cycle_error(g, ids, n, pending, n - tail, st);
    goto done;
  }
  for (int i = 0; i < n; i++) queue[i] = ids[queue[i]];
  memcpy(ids, queue, sizeof(int) * (size_t)n);
  rc = 0;
  goto done;
oom:
  TFS_OOM(st);
done:
  tfs_free(pos);
  tfs_free(pending);
  tfs_free(start);
  tfs_free(queue);
  tfs_free(adj);
  return rc;
}

/* Marks what the fetches and targets need; returns their op ids in an
 * execution order (id order unless an input was rewired), or NULL with
 * st set (OOM, a cycle). */
static int *prune(tfs_graph *g, const tfs_output *feeds, int nfeeds,
                  const tfs_output *fetches, int nfetches,
                  tfs_operation *const *targets, int ntargets, int *count,
                  tfs_status *st) {
  uint8_t *mark = tfs_calloc(g->nops + 1, 1);
  int *stack = tfs_malloc(sizeof(int) * (g->nops + 1));
  int *ids = tfs_malloc(sizeof(int) * (g->nops + 1));
  int sp = 0, n = 0;
  if (!mark || !stack || !ids) goto oom;
#define PUSH(op)                        \
  do {                                  \
    if (!mark[(op)->id]) {              \
      mark[(op)->id] = 1;               \
      stack[sp++] = (op)->id;           \
    }                                   \
  } while (0)
  for (int i = 0; i < nfetches; i++) PUSH(fetches[i].oper);
  for (int i = 0; i < ntargets; i++) PUSH(targets[i]);
  while (sp) {
    tfs_operation *op = g->ops[stack[--sp]];
    ids[n++] = op->id;
    for (int i = 0; i < op->ninputs; i++)
      if (fed_index(feeds, nfeeds, op->inputs[i]) < 0)
        PUSH(op->inputs[i].oper);
    for (int i = 0; i < op->ncontrol; i++) PUSH(op->control_inputs[i]);
  }
#undef PUSH
  /* Operations are added after their inputs, so id order is an
   * execution order, unless an input was rewired. */
  qsort(ids, (size_t)n, sizeof(int), cmp_int);
  tfs_free(mark);
  tfs_free(stack);
  if (!id_order_ok(g, ids, n, feeds, nfeeds) &&
      topo_sort(g, ids, n, feeds, nfeeds, st)) {
    tfs_free(ids);
    return NULL;
  }
  *count = n;
  return ids;
oom:
  TFS_OOM(st);
  tfs_free(mark);
  tfs_free(stack);
  tfs_free(ids);
  return NULL;
}

static int prepare_kernel(tfs_plan_node *pn, const tfs_output *feeds,
                          int nfeeds, tfs_status *st) {
  tfs_operation *op = pn->op;
  const tfs_kernel_def *k =
      pn->device ? tfs_plan__device_kernel(pn, st)
                 : tfs_kernel_find(op->def, "CPU", &op->attrs, op->name, st);
  if (!k) return -1;
  pn->kdef = k;
  pn->expensive = (k->flags & TFS_KERNEL_EXPENSIVE) != 0;
  if (!k->prepare) return 0;
  int n = op->ninputs;
  tfs_dtype *in_types = tfs_malloc(sizeof(tfs_dtype) * (size_t)(n + 1));
  tfs_shape *in_shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(n + 1));
  const tfs_tensor **consts = tfs_calloc((size_t)(n + 1), sizeof(void *));
  const char **src_nodes = tfs_malloc(sizeof(char *) * (size_t)(n + 1));
  int *src_ports = tfs_malloc(sizeof(int) * (size_t)(n + 1));
  int rc = -1;
  if (!in_types || !in_shapes || !consts || !src_nodes || !src_ports) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    tfs_output src = op->inputs[i];
    in_types[i] = tfs_dtype_base(op->in_types[i]);
    in_shapes[i] = src.oper->out_shapes[src.index];
    src_nodes[i] = src.oper->name;
    src_ports[i] = src.index;
    /* a fed Const is not constant in this plan */
    consts[i] = fed_index(feeds, nfeeds, src) >= 0
                    ? NULL
                    : tfs_graph__const_value(src);
  }
  tfs_kernel_init ki = {
      .device = pn->device ? pn->device : tfs_device__cpu(),
      .node_name = op->name,
      .op = op->def,
      .attrs = &op->attrs,
      .ninputs = n,
      .in_types = in_types,
      .in_shapes = in_shapes,
      .in_consts = consts,
      .in_src_nodes = src_nodes,
      .in_src_ports = src_ports,
      .noutputs = op->noutputs,
      .out_types = op->out_types,
      .out_shapes = op->out_shapes,
      .kdata = k->data,
      .state = NULL,
      .st = st,
  };
  rc = pn->device ? tfs_plan__device_prepare(pn, k, &ki) : k->prepare(&ki);
  pn->kstate = ki.state;
done:
  tfs_free(in_types);
  tfs_free(in_shapes);
  tfs_free(consts);
  tfs_free(src_nodes);
  tfs_free(src_ports);
  return rc;
}

static int add_succ(tfs_plan_node *from, int to) {
  for (int i = 0; i < from->nsucc; i++)
    if (from->succ[i] == to) return 0;
  int32_t *s = tfs_realloc(from->succ, sizeof(int32_t) * (size_t)(from->nsucc + 1));
  if (!s) return -1;
  from->succ = s;
  from->succ[from->nsucc++] = to;
  return 1;
}

size_t tfs_plan__key_len(int nfeeds, int nfetches, int ntargets) {
  return 3 + 2 * (size_t)nfeeds + 2 * (size_t)nfetches + (size_t)ntargets;
}

void tfs_plan__key_fill(int32_t *k, const tfs_output *feeds, int nfeeds,
                        const tfs_output *fetches, int nfetches,
                        tfs_operation *const *targets, int ntargets) {
  size_t p = 0;
  k[p++] = nfeeds;
  k[p++] = nfetches;
  k[p++] = ntargets;
  for (int i = 0; i < nfeeds; i++) {
    k[p++] = feeds[i].oper ? feeds[i].oper->id : -1;
    k[p++] = feeds[i].index;
  }
  for (int i = 0; i < nfetches; i++) {
    k[p++] = fetches[i].oper ? fetches[i].oper->id : -1;
    k[p++] = fetches[i].index;
  }
  for (int i = 0; i < ntargets; i++) k[p++] = targets[i] ? targets[i]->id : -1;
}

/* Places the nodes the signature needs in the session's graph before the
 * optimizer sees them: *assigned (by op id; NULL when every node can only
 * be on CPU:0) names each one's device. */
static int preplace(tfs_session *s, const tfs_output *feeds, int nfeeds,
                    const tfs_output *fetches, int nfetches,
                    tfs_operation *const *targets, int ntargets,
                    const char ***assigned, int *control_flow,
                    tfs_status *st) {
  tfs_graph *g = s->graph;
  int n = 0, rc = -1;
  int *ids = prune(g, feeds, nfeeds, fetches, nfetches, targets, ntargets,
                   &n, st);
  tfs_operation **nodes = tfs_malloc(sizeof(tfs_operation *) * (size_t)(n + 1));
  const char **dev = tfs_malloc(sizeof(char *) * (size_t)(n + 1));
  const char **by_id = tfs_calloc(g->nops + 1, sizeof(char *));
  *assigned = NULL;
  if (!ids) goto done;
  if (!nodes || !dev || !by_id) {
    TFS_OOM(st);
    goto done;
  }
  /* TF1 control flow: the plan runs the graph as built, placed later
   * (docs/OPTIMIZER.md) */
  *control_flow = 0;
  for (int i = 0; i < n && !*control_flow; i++)
    *control_flow = (g->ops[ids[i]]->def->flags & TFS_OP_CONTROL_FLOW) != 0;
  if (*control_flow) {
    rc = 0;
    goto done;
  }
  for (int i = 0; i < n; i++) nodes[i] = g->ops[ids[i]];
  if (tfs_plan__preplace(s, nodes, n, dev, st)) goto done;
  rc = 0;
  if (n == 0 || !dev[0]) goto done; /* CPU:0 only */
  for (int i = 0; i < n; i++) by_id[ids[i]] = dev[i];
  *assigned = by_id;
  by_id = NULL;
done:
  tfs_free(ids);
  tfs_free(nodes);
  tfs_free(dev);
  tfs_free(by_id);
  return rc;
}

/* Resource limits and safe mode (limits.c) over the nodes a signature
 * needs in `g`: before the optimizer evaluates anything, and again on
 * its rewrite. */
static int check_limits(tfs_session *s, tfs_graph *g, const tfs_output *feeds,
                        int nfeeds, const tfs_output *fetches, int nfetches,
                        tfs_operation *const *targets, int ntargets,
                        tfs_status *st) {
  const tfs_session_limits *l = &s->limits;
  if (!l->safe_mode && l->graph_nodes <= 0) return 0;
  if (!l->safe_mode) return tfs_limits__check_plan(l, g, NULL, 0, g->nops, st);
  int n = 0;
  int *ids = prune(g, feeds, nfeeds, fetches, nfetches, targets, ntargets,
                   &n, st);
  tfs_operation **nodes = tfs_malloc(sizeof(tfs_operation *) * (size_t)(n + 1));
  int rc = -1;
  if (!ids) {
  } else if (!nodes) {
    TFS_OOM(st);
  } else {
    for (int i = 0; i < n; i++) nodes[i] = g->ops[ids[i]];
    rc = tfs_limits__check_plan(l, g, nodes, n, g->nops, st);
  }
  tfs_free(ids);
  tfs_free(nodes);
  return rc;
}

static void *make_key(const tfs_output *feeds, int nfeeds,
                      const tfs_output *fetches, int nfetches,
                      tfs_operation *const *targets, int ntargets,
                      size_t *len) {
  size_t n = tfs_plan__key_len(nfeeds, nfetches, ntargets);
  int32_t *k = tfs_malloc(n * sizeof(int32_t));
  if (!k) return NULL;
  tfs_plan__key_fill(k, feeds, nfeeds, fetches, nfetches, targets, ntargets);
  *len = n * sizeof(int32_t);
  return k;
}

static void (*_Atomic g_build_hook)(void *);
static void *_Atomic g_build_hook_arg;

void tfs_plan__set_build_hook(void (*fn)(void *arg), void *arg) {
  atomic_store(&g_build_hook_arg, arg);
  atomic_store(&g_build_hook, fn);
}

tfs_plan *tfs_plan__build(tfs_session *s, const tfs_output *feeds,
                          int nfeeds, const tfs_output *fetches,
                          int nfetches, tfs_operation *const *targets,
                          int ntargets, tfs_status *st) {
  void (*hook)(void *) = atomic_load(&g_build_hook);
  if (hook) hook(atomic_load(&g_build_hook_arg));
  if (check_signature(s, feeds, nfeeds, fetches, nfetches, targets, ntargets,
                      st))
    return NULL;
  tfs_graph *g = s->graph;
  tfs_plan *p = tfs_calloc(1, sizeof(*p));
  int *ids = NULL, *pos = NULL, *slot_base = NULL;
  const char **assigned = NULL;
  if (!p) goto oom;
  atomic_init(&p->refs, 1);
  p->key = make_key(feeds, nfeeds, fetches, nfetches, targets, ntargets,
                    &p->keylen);
  /* As TensorFlow: place, then optimize the placed graph (plan_place.c,
   * plan_optimize.c); from then on the signature names the rewrite's
   * nodes; the plan keeps the caller's feeds and fetches. */
  const tfs_output *user_feeds = feeds, *user_fetches = fetches;
  if (check_limits(s, g, feeds, nfeeds, fetches, nfetches, targets, ntargets,
                   st))
    goto fail;
  int preplaced = !s->no_optimizer, control_flow = 0;
  if (preplaced && preplace(s, feeds, nfeeds, fetches, nfetches, targets,
                            ntargets, &assigned, &control_flow, st))
    goto fail;
  preplaced &= !control_flow;
  if (!control_flow &&
      tfs_plan__optimize(s, &feeds, nfeeds, &fetches, nfetches, &targets,
                         ntargets, assigned, &p->opt, st))
    goto fail;
  tfs_free(assigned);
  assigned = NULL;
  if (p->opt.graph) {
    g = p->opt.graph;
    if (check_limits(s, g, feeds, nfeeds, fetches, nfetches, targets,
                     ntargets, st))
      goto fail;
  }
  int n = 0;
  ids = prune(g, feeds, nfeeds, fetches, nfetches, targets, ntargets, &n, st);
  if (!ids) goto fail;
  pos = tfs_malloc(sizeof(int) * (g->nops + 1));
  slot_base = tfs_malloc(sizeof(int) * (size_t)(n + 1));
  p->nodes = tfs_calloc((size_t)(n + 1), sizeof(tfs_plan_node));
  if (!p->key || !pos || !slot_base || !p->nodes) goto oom;
  for (size_t i = 0; i <= g->nops; i++) pos[i] = -1;
  p->nnodes = n;
  int nslots = 0;
  for (int i = 0; i < n; i++) {
    tfs_operation *op = g->ops[ids[i]];
    pos[op->id] = i;
    p->nodes[i].op = op;
    p->nodes[i].noutputs = op->noutputs;
    p->nodes[i].out_slot = nslots;
    slot_base[i] = nslots;
    nslots += op->noutputs;
  }
  /* devices (plan_place.c): nothing changes when all nodes are on CPU:0 */
  if (tfs_plan__place(s, p, preplaced, st)) goto fail;
  /* feeds get their own slots after the node outputs */
  p->nfeeds = nfeeds;
  p->feeds = tfs_malloc(sizeof(tfs_output) * (size_t)(nfeeds + 1));
  p->feed_slots = tfs_malloc(sizeof(int32_t) * (size_t)(nfeeds + 1));
  if (!p->feeds || !p->feed_slots) goto oom;
  for (int i = 0; i < nfeeds; i++) {
    p->feeds[i] = user_feeds[i];
    p->feed_slots[i] = nslots++;
  }
  p->nslots = nslots;
  p->slot_uses = tfs_calloc((size_t)(nslots + 1), sizeof(int32_t));
  if (!p->slot_uses) goto oom;

  for (int i = 0; i < n; i++) {
    tfs_plan_node *pn = &p->nodes[i];
    tfs_operation *op = pn->op;
    pn->ninputs = op->ninputs;
    pn->in_slots = tfs_malloc(sizeof(int32_t) * (size_t)(op->ninputs + 1));
    pn->in_flags = tfs_calloc((size_t)(op->ninputs + 1), 1);
    if (!pn->in_slots || !pn->in_flags) goto oom;
    for (int k = 0; k < op->ninputs; k++) {
      tfs_output src = op->inputs[k];
      int f = fed_index(feeds, nfeeds, src);
      int slot;
      if (f >= 0) {
        slot = p->feed_slots[f];
      } else {
        int sp = pos[src.oper->id];
        slot = slot_base[sp] + src.index;
        if (tfs_dtype_is_ref(src.oper->out_types[src.index]) &&
            !tfs_dtype_is_ref(op->in_types[k]))
          pn->in_flags[k] |= TFS_IN_DEREF;
        int r = back_edge(src.oper, op) ? 0 : add_succ(&p->nodes[sp], i);
        if (r < 0) goto oom;
        pn->npending += r;
      }
      pn->in_slots[k] = slot;
      p->slot_uses[slot]++;
    }
    for (int k = 0; k < op->ncontrol; k++) {
      int sp = pos[op->control_inputs[k]->id];
      int r = add_succ(&p->nodes[sp], i);
      if (r < 0) goto oom;
      pn->npending += r;
    }
    if (prepare_kernel(pn, feeds, nfeeds, st)) goto fail;
  }

  p->nfetches = nfetches;
  p->fetch_slots = tfs_malloc(sizeof(int32_t) * (size_t)(nfetches + 1));
  p->fetch_deref = tfs_calloc((size_t)(nfetches + 1), 1);
  p->fetches = tfs_malloc(sizeof(tfs_output) * (size_t)(nfetches + 1));
  if (!p->fetch_slots || !p->fetch_deref || !p->fetches) goto oom;
  for (int i = 0; i < nfetches; i++) {
    int sp = pos[fetches[i].oper->id];
    p->fetches[i] = user_fetches[i];
    p->fetch_slots[i] = slot_base[sp] + fetches[i].index;
    p->fetch_deref[i] =
        (uint8_t)tfs_dtype_is_ref(fetches[i].oper->out_types[fetches[i].index]);
    p->slot_uses[p->fetch_slots[i]]++;
  }
  tfs_free(ids);
  tfs_free(pos);
  tfs_free(slot_base);
  ids = pos = slot_base = NULL;
  if (p->devices && tfs_plan__add_copies(p, st)) goto fail;
  if (!tfs_exec__prepare(p, st)) goto fail;
  if (tfs_log_enabled(TFS_LOG_DEBUG))
    tfs_log(TFS_LOG_DEBUG, "plan: %d nodes, %d slots, %d feeds, %d fetches, "
            "%s", p->nnodes, p->nslots, nfeeds, nfetches,
            p->exec->overlap ? "parallel-capable" : "sequential");
  return p;
oom:
  TFS_OOM(st);
fail:
  tfs_free(ids);
  tfs_free(pos);
  tfs_free(slot_base);
  tfs_free(assigned);
  plan_free(p);
  return NULL;
}

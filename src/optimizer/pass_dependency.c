/*
 * optimizer/pass_dependency.c - dependency_optimizer: removes redundant
 * control edges (on a node that is also a data input, on an input-less
 * Const, or implied by another path, found by a bounded backward search),
 * turns nodes used only through control edges into NoOps, and bypasses
 * NoOps when that does not grow the edge count.  Preserved and
 * side-effecting nodes keep their role.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/opt_util.h"

#define SEARCH_LIMIT 256

typedef struct dep_state {
  tfs_ograph *g;
  int *mark; /* visit stamp per node */
  int stamp;
  int *stack;
  int *topo_pos; /* position in a topological order; -1 for new nodes */
} dep_state;

/* Whether `target` is an ancestor of some input of node v other than the
 * control edge ^target itself.  Explores at most SEARCH_LIMIT nodes and
 * never nodes before target in topological order; 0 when unsure. */
static int implied(dep_state *d, int v, int target) {
  tfs_ograph *g = d->g;
  tfs_onode *n = &g->n[v];
  int sp = 0, visited = 0;
  d->stamp++;
  int tpos = d->topo_pos[target];
  if (tpos < 0) return 0;
#define VISIT(x)                                             \
  do {                                                       \
    int x_ = (x);                                            \
    if (x_ == target) return 1;                              \
    if (d->mark[x_] != d->stamp && d->topo_pos[x_] > tpos) { \
      d->mark[x_] = d->stamp;                                \
      d->stack[sp++] = x_;                                   \
    }                                                        \
  } while (0)
  for (int k = 0; k < n->nin; k++) VISIT(n->in[k].node);
  for (int k = 0; k < n->nctrl; k++)
    if (n->ctrl[k] != target) VISIT(n->ctrl[k]);
  while (sp && visited < SEARCH_LIMIT) {
    tfs_onode *m = &g->n[d->stack[--sp]];
    visited++;
    for (int k = 0; k < m->nin; k++) VISIT(m->in[k].node);
    for (int k = 0; k < m->nctrl; k++) VISIT(m->ctrl[k]);
  }
#undef VISIT
  return 0;
}

static int is_const_source(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  return strcmp(n->def->name, "Const") == 0 && n->nctrl == 0;
}

/* Drops redundant control inputs of every node; returns how many. */
static int reduce_control_edges(dep_state *d) {
  tfs_ograph *g = d->g;
  int removed = 0;
  for (int v = 0; v < g->nn; v++) {
    tfs_onode *n = &g->n[v];
    if ((n->flags & TFS_ON_DEAD) || !n->nctrl) continue;
    for (int k = n->nctrl - 1; k >= 0; k--) {
      int c = n->ctrl[k];
      int redundant = is_const_source(g, c);
      for (int j = 0; j < n->nin && !redundant; j++)
        redundant = n->in[j].node == c;
      if (!redundant) redundant = implied(d, v, c);
      if (!redundant) continue;
      tfs_og__remove_ctrl(g, v, c);
      removed++;
    }
  }
  return removed;
}

/* A node whose outputs only feed control edges does no useful work: it
 * becomes a NoOp depending on its former inputs. */
static int control_only_to_noop(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  int cnt = n->nin + n->nctrl;
  int *ctrl = tfs_malloc(sizeof(int) * (size_t)(cnt + 1));
  if (!ctrl) {
    TFS_OOM(c->st);
    return -1;
  }
  int k = 0;
  for (int j = 0; j < n->nin; j++) ctrl[k++] = n->in[j].node;
  for (int j = 0; j < n->nctrl; j++) ctrl[k++] = n->ctrl[j];
  tfs_onode_spec spec = {
      .op = "NoOp", .device = n->device, .nctrl = k, .ctrl = ctrl};
  int r = tfs_og__replace(g, v, &spec, c->st);
  tfs_free(ctrl);
  return r;
}

/* Bypasses a NoOp: its control consumers depend on its control inputs
 * directly.  Only when edges do not grow. */
static int bypass_noop(tfs_opt_ctx *c, int v) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[v];
  int in = n->nctrl, out = n->ncfan;
  if (in > 1 && out > 1 && in * out > in + out) return 0;
  int *ctrl = tfs_malloc(sizeof(int) * (size_t)(in + 1));
  if (!ctrl) {
    TFS_OOM(c->st);
    return -1;
  }
  if (in) memcpy(ctrl, n->ctrl, sizeof(int) * (size_t)in);
  int rc = tfs_og__forward_ctrl(g, v, ctrl, in);
  tfs_free(ctrl);
  if (rc) {
    TFS_OOM(c->st);
    return -1;
  }
  tfs_og__kill(g, v);
  return 1;
}

int tfs_pass__dependency(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  dep_state d = {.g = g};
  int n0 = g->nn;
  d.mark = tfs_calloc((size_t)n0 + 1, sizeof(int));
  d.stack = tfs_malloc(sizeof(int) * ((size_t)n0 + 1) * 8);
  d.topo_pos = tfs_malloc(sizeof(int) * ((size_t)n0 + 1));
  int *order = tfs_malloc(sizeof(int) * ((size_t)n0 + 1));
  int rc = -1, to_noop = 0, bypassed = 0, edges = 0;
  if (!d.mark || !d.stack || !d.topo_pos || !order) {
    TFS_OOM(c->st);
    goto done;
  }
  /* 1. nodes used only by control edges -> NoOp */
  for (int v = 0; v < n0; v++) {
    tfs_onode *n = &g->n[v];
    if ((n->flags & TFS_ON_DEAD) || !tfs_og__removable(g, v)) continue;
    if (n->nfan || !n->ncfan || n->nout == 0) continue;
    if (strcmp(n->def->name, "Const") == 0) continue; /* handled below */
    if (control_only_to_noop(c, v) < 0) goto done;
    to_noop++;
  }
  /* 2. redundant control edges (positions of nodes made above: -1) */
  n0 = g->nn;
  int *mark = tfs_realloc(d.mark, sizeof(int) * ((size_t)n0 + 1));
  int *pos = tfs_realloc(d.topo_pos, sizeof(int) * ((size_t)n0 + 1));
  int *stack = tfs_realloc(d.stack, sizeof(int) * ((size_t)n0 + 1) * 8);
  int *ord = tfs_realloc(order, sizeof(int) * ((size_t)n0 + 1));
  if (mark) d.mark = mark;
  if (pos) d.topo_pos = pos;
  if (stack) d.stack = stack;
  if (ord) order = ord;
  if (!mark || !pos || !stack || !ord) {
    TFS_OOM(c->st);
    goto done;
  }
  memset(d.mark, 0, sizeof(int) * (size_t)n0);
  int cnt = tfs_og__topo_order(g, order, c->st);
  if (cnt < 0) goto done;
  for (int i = 0; i < n0; i++) d.topo_pos[i] = -1;
  for (int j = 0; j < cnt; j++) d.topo_pos[order[j]] = j;
  edges = reduce_control_edges(&d);
  /* 3. NoOps that only relay control */
  for (int v = 0; v < n0; v++) {
    tfs_onode *n = &g->n[v];
    if ((n->flags & TFS_ON_DEAD) || !tfs_og__removable(g, v)) continue;
    if (strcmp(n->def->name, "NoOp") != 0 || n->nin) continue;
    int r = bypass_noop(c, v);
    if (r < 0) goto done;
    bypassed += r;
  }
  if (to_noop)
    tfs_opt__note(c,
                  "turned %d node%s used only by control edges into "
                  "NoOps",
                  to_noop, to_noop == 1 ? "" : "s");
  if (edges)
    tfs_opt__note(c, "removed %d redundant control edge%s", edges,
                  edges == 1 ? "" : "s");
  if (bypassed)
    tfs_opt__note(c, "bypassed %d NoOp%s", bypassed, bypassed == 1 ? "" : "s");
  c->changes += to_noop + edges + bypassed;
  rc = g->oom ? (TFS_OOM(c->st), -1) : 0;
done:
  tfs_free(d.mark);
  tfs_free(d.stack);
  tfs_free(d.topo_pos);
  tfs_free(order);
  return rc;
}

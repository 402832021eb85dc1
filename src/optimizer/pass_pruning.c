/*
 * optimizer/pass_pruning.c - model_pruner: keeps only the transitive
 * fan-in of the preserved nodes (feeds, fetches, targets) and removes
 * trivial ops: StopGradient, Identity / single-input IdentityN that no
 * control edge touches, input-less NoOps, input-less Consts used only by
 * control edges, single-input AddN.  An IdentityN of several inputs of
 * which one output alone is read forwards that input (TensorFlow splits
 * off the inputs whose outputs reach no fetch, then drops the
 * single-input IdentityN: Keras's swish, x * sigmoid(x), ends in one that
 * passes its gradient's inputs too).  Never removes a preserved node, a
 * ref Identity, or a node whose removal would add edges.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/opt_util.h"

/* Removes live nodes outside the fan-in of the preserved ones. */
static int prune_unreachable(tfs_opt_ctx *c, int *removed) {
  tfs_ograph *g = c->g;
  *removed = 0;
  uint8_t *seen = tfs_calloc((size_t)g->nn + 1, 1);
  int *stack = tfs_malloc(sizeof(int) * ((size_t)g->nn + 1));
  if (!seen || !stack) {
    tfs_free(seen);
    tfs_free(stack);
    TFS_OOM(c->st);
    return -1;
  }
  int sp = 0, roots = 0;
  for (int i = 0; i < g->nn; i++) {
    if ((g->n[i].flags & (TFS_ON_DEAD | TFS_ON_PRESERVED)) ==
        TFS_ON_PRESERVED) {
      seen[i] = 1;
      stack[sp++] = i;
      roots++;
    }
  }
  while (sp) {
    tfs_onode *n = &g->n[stack[--sp]];
    for (int k = 0; k < n->nin; k++) {
      int p = n->in[k].node;
      if (!seen[p]) {
        seen[p] = 1;
        stack[sp++] = p;
      }
    }
    for (int k = 0; k < n->nctrl; k++) {
      int p = n->ctrl[k];
      if (!seen[p]) {
        seen[p] = 1;
        stack[sp++] = p;
      }
    }
  }
  if (roots && sp == 0) {
    /* an unreachable node's consumers are unreachable too: removing in
     * reverse topological order leaves no dangling edge */
    int *order = tfs_malloc(sizeof(int) * ((size_t)g->nn + 1));
    int cnt = order ? tfs_og__topo_order(g, order, c->st) : -1;
    if (!order) TFS_OOM(c->st);
    for (int j = cnt - 1; j >= 0; j--) {
      if (seen[order[j]]) continue;
      tfs_og__kill(g, order[j]);
      (*removed)++;
    }
    tfs_free(order);
    if (cnt < 0) {
      tfs_free(seen);
      tfs_free(stack);
      return -1;
    }
  }
  tfs_free(seen);
  tfs_free(stack);
  return 0;
}

static int driven_by_switch(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  for (int k = 0; k < n->nin; k++) {
    const char *op = g->n[n->in[k].node].def->name;
    if (strcmp(op, "Switch") == 0 || strcmp(op, "RefSwitch") == 0) return 1;
  }
  return 0;
}

static int feeds_merge(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  for (int j = 0; j < n->nfan; j++) {
    const char *op = g->n[n->fan[j].node].def->name;
    if (strcmp(op, "Merge") == 0 || strcmp(op, "RefMerge") == 0) return 1;
  }
  return 0;
}

enum { K_NONE, K_FORWARD, K_DROP };

/* The input an IdentityN forwards: its only one, or the only one whose
 * output is read; -1 when several are read (or none). */
static int identity_n_input(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  if (n->nin == 1) return 0;
  int used = -1;
  for (int p = 0; p < n->nout && p < n->nin; p++) {
    if (!tfs_og__port_uses(g, i, p)) continue;
    if (used >= 0) return -1;
    used = p;
  }
  return used;
}

/* What removing node i means: forward its input 0, or drop it (a node
 * with no data consumers and no inputs). */
static int trivial_kind(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  const char *op = n->def->name;
  if (!tfs_og__removable(g, i)) return K_NONE;
  if (strcmp(op, "StopGradient") == 0 && n->nin == 1) return K_FORWARD;
  if ((strcmp(op, "Identity") == 0 ||
       (strcmp(op, "IdentityN") == 0 && identity_n_input(g, i) >= 0))) {
    if (n->nctrl || n->ncfan || driven_by_switch(g, i) || feeds_merge(g, i))
      return K_NONE;
    return K_FORWARD;
  }
  if (strcmp(op, "NoOp") == 0 && n->nin == 0 && n->nctrl == 0) return K_DROP;
  if (strcmp(op, "Const") == 0 && n->nctrl == 0 && n->nfan == 0) return K_DROP;
  if (strcmp(op, "AddN") == 0 && n->nin == 1) return K_FORWARD;
  return K_NONE;
}

/* Node i and its input k lie on different devices. */
static int device_crossing(const tfs_ograph *g, int i, int k) {
  const tfs_onode *n = &g->n[i];
  return n->nin > k && strcmp(n->device, g->n[n->in[k].node].device) != 0;
}

int tfs_pass__pruning(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  int unreachable = 0;
  if (prune_unreachable(c, &unreachable)) return -1;
  int counts[3] = {0, 0, 0}; /* identities, stop gradients, others */
  int n0 = g->nn;
  for (int i = 0; i < n0; i++) {
    if (g->n[i].flags & TFS_ON_DEAD) continue;
    int kind = trivial_kind(g, i);
    if (kind == K_NONE) continue;
    tfs_onode *n = &g->n[i];
    if (kind == K_DROP) {
      /* control consumers simply lose the edge */
      if (tfs_og__forward_ctrl(g, i, NULL, 0)) goto oom;
      tfs_og__kill(g, i);
      counts[2]++;
      continue;
    }
    const char *op = n->def->name;
    /* the input forwarded: an IdentityN's read one, else input 0 */
    int p = strcmp(op, "IdentityN") == 0 ? identity_n_input(g, i) : 0;
    if (device_crossing(g, i, p)) continue;
    int in = 1 + n->nctrl, out = n->nfan + n->ncfan;
    if ((n->nctrl || n->ncfan) && in * out > in + out) continue;
    int which = strcmp(op, "StopGradient") == 0   ? 1
                : strncmp(op, "Identity", 8) == 0 ? 0
                                                  : 2;
    if (tfs_opt__bypass_port(c, i, p, n->in[p])) return -1;
    counts[which]++;
  }
  int total = counts[0] + counts[1] + counts[2];
  if (unreachable)
    tfs_opt__note(c, "pruned %d node%s outside the fetches' fan-in",
                  unreachable, unreachable == 1 ? "" : "s");
  if (total)
    tfs_opt__note(c,
                  "removed %d trivial node%s (%d Identity, %d "
                  "StopGradient, %d NoOp/Const/AddN)",
                  total, total == 1 ? "" : "s", counts[0], counts[1],
                  counts[2]);
  c->changes += unreachable + total;
  return 0;
oom:
  TFS_OOM(c->st);
  return -1;
}

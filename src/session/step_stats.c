/*
 * session/step_stats.c - freeing recorded step statistics, and naming
 * the user's nodes in the records of rewritten ones.
 */
#include "session/step_stats.h"

#include <limits.h>
#include <string.h>

#include "core/alloc.h"
#include "graph_builder/graph_internal.h"

void tfs_step_stats_clear(tfs_step_stats *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++) tfs_free(s->nodes[i].outputs);
  tfs_free(s->nodes);
  memset(s, 0, sizeof(*s));
  s->device = "/job:localhost/replica:0/task:0/device:CPU:0";
}

/* The original names a record stands for (0: the record as it is). */
static int orig_count(const tfs_node_stats *n) {
  const tfs_operation *op = n->op;
  if (!op || op->norig <= 0 || n->fused_into) return 0;
  if (op->norig == 1 && n->node_name &&
      strcmp(op->orig_names[0], n->node_name) == 0)
    return 0;
  return op->norig;
}

/* Index of the original name that keeps the time: the node's own name,
 * else the last. */
static int orig_root(const tfs_operation *op, const char *name) {
  for (int k = 0; name && k < op->norig; k++)
    if (strcmp(op->orig_names[k], name) == 0) return k;
  return op->norig - 1;
}

int tfs_step_stats__attribute_originals(tfs_step_stats *s) {
  if (!s || s->n <= 0) return 0;
  size_t total = 0;
  int any = 0;
  for (int i = 0; i < s->n; i++) {
    int k = orig_count(&s->nodes[i]);
    total += k ? (size_t)k : 1;
    any |= k > 0;
    if (total > (size_t)INT_MAX) return -1;
  }
  if (!any) return 0;
  tfs_node_stats *v = tfs_calloc(total, sizeof(tfs_node_stats));
  if (!v) return -1;
  size_t m = 0;
  for (int i = 0; i < s->n; i++) {
    const tfs_node_stats *n = &s->nodes[i];
    int cnt = orig_count(n);
    if (!cnt) {
      v[m++] = *n;
      continue;
    }
    const tfs_operation *op = n->op;
    int root = orig_root(op, n->node_name);
    for (int k = 0; k < cnt; k++) {
      tfs_node_stats *r = &v[m++];
      *r = *n;
      r->node_name = op->orig_names[k];
      r->fused_into = op->name;
      if (k == root) continue;
      r->op_start_rel_nanos = r->op_end_rel_nanos = 0;
      r->all_end_rel_nanos = 0;
      r->noutputs = 0;
      r->outputs = NULL;
    }
  }
  tfs_free(s->nodes);
  s->nodes = v;
  s->n = (int)m;
  s->cap = (int)m;
  return 0;
}

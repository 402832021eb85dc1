/*
 * optimizer/pass_debug_stripper.c - debug_stripper (off by default, as in
 * Grappler): Assert becomes a NoOp whose data inputs turn into control
 * inputs; CheckNumerics and Print become an Identity of their first
 * input; PrintV2 becomes a NoOp.  Names are kept, so targets still work.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "optimizer/opt_util.h"

/* The node as a NoOp with every input turned into a control input. */
static int to_noop(tfs_opt_ctx *c, int i) {
  tfs_ograph *g = c->g;
  tfs_onode *n = &g->n[i];
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
  int r = tfs_og__replace(g, i, &spec, c->st);
  tfs_free(ctrl);
  return r < 0 ? -1 : 0;
}

static int to_identity(tfs_opt_ctx *c, int i) {
  tfs_ograph *g = c->g;
  tfs_oref in[1] = {g->n[i].in[0]};
  tfs_attrs a;
  tfs_attrs_init(&a);
  if (tfs_opt__set_type(&a, "T", tfs_og__dtype(g, in[0]))) {
    TFS_OOM(c->st);
    return -1;
  }
  return tfs_opt__rebuild(c, i, "Identity", &a, 1, in) < 0 ? -1 : 0;
}

int tfs_pass__debug_stripper(tfs_opt_ctx *c) {
  tfs_ograph *g = c->g;
  int asserts = 0, checks = 0, prints = 0;
  int n0 = g->nn;
  for (int i = 0; i < n0; i++) {
    tfs_onode *n = &g->n[i];
    if (n->flags & (TFS_ON_DEAD | TFS_ON_FED)) continue;
    const char *op = n->def->name;
    int rc = 0;
    if (strcmp(op, "Assert") == 0) {
      rc = to_noop(c, i);
      asserts++;
    } else if (strcmp(op, "CheckNumerics") == 0 && n->nin == 1) {
      rc = to_identity(c, i);
      checks++;
    } else if (strcmp(op, "Print") == 0 && n->nin >= 1 &&
               n->out_types[0] == tfs_og__dtype(g, n->in[0])) {
      rc = to_identity(c, i);
      prints++;
    } else if (strcmp(op, "PrintV2") == 0 && n->nout == 0) {
      rc = to_noop(c, i);
      prints++;
    }
    if (rc) return -1;
  }
  int total = asserts + checks + prints;
  if (total)
    tfs_opt__note(c,
                  "stripped %d debug op%s (%d Assert, %d CheckNumerics, "
                  "%d Print)",
                  total, total == 1 ? "" : "s", asserts, checks, prints);
  c->changes += total;
  return 0;
}

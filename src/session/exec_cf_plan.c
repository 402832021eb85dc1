/*
 * session/exec_cf_plan.c - what the control-flow executor decides once
 * per plan (TensorFlow's ImmutableExecutorState): every node's out edges,
 * its frame (TensorFlow's BuildControlFlowInfo: a breadth-first walk from
 * the nodes without inputs, where an Enter leads into the frame its
 * frame_name names and an Exit back to the frame its Enter ran in), its
 * place in the frame's per-iteration state and its initial pending count
 * (a Merge waits for its control inputs and one live data input).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "session/exec_cf.h"

void tfs_cf__free(tfs_cf_plan *cf) {
  if (!cf) return;
  for (int i = 0; cf->nodes && i < cf->nnodes; i++)
    tfs_free(cf->nodes[i].edges);
  for (int f = 0; cf->frames && f < cf->nframes; f++)
    tfs_free(cf->frames[f].init_pending);
  tfs_free(cf->nodes);
  tfs_free(cf->frames);
  tfs_free(cf->slot_owner);
  tfs_free(cf->fetch_order);
  tfs_free(cf);
}

/* ---- edges -------------------------------------------------------------- */

/* The plan position of every operation of the plan's graph (copy nodes
 * have no id and no control edges). */
static int32_t *index_ops(const tfs_plan *p, int *len) {
  int maxid = 0;
  for (int i = 0; i < p->nnodes; i++)
    if (p->nodes[i].op->id > maxid) maxid = p->nodes[i].op->id;
  int32_t *idx = tfs_malloc(sizeof(int32_t) * ((size_t)maxid + 1));
  if (!idx) return NULL;
  for (int i = 0; i <= maxid; i++) idx[i] = -1;
  for (int i = 0; i < p->nnodes; i++)
    if (p->nodes[i].op->id >= 0) idx[p->nodes[i].op->id] = i;
  *len = maxid + 1;
  return idx;
}

/* The control inputs of node j as plan positions, -1 for one not in the
 * plan (never: pruning keeps them). */
static int ctrl_src(const int32_t *idx, int len, const tfs_operation *c) {
  return c->id >= 0 && c->id < len ? idx[c->id] : -1;
}

/* Out edges of every node, from the consumers' input slots and control
 * inputs; in_edges[j] counts node j's. */
static int build_edges(const tfs_plan *p, tfs_cf_plan *cf, int32_t *in_edges,
                       int32_t *in_ctrl) {
  int len = 0, rc = -1;
  int32_t *idx = index_ops(p, &len);
  int32_t *fill = tfs_calloc((size_t)p->nnodes + 1, sizeof(int32_t));
  if (!idx || !fill) goto done;
  for (int pass = 0; pass < 2; pass++) {
    for (int j = 0; j < p->nnodes; j++) {
      const tfs_plan_node *pn = &p->nodes[j];
      for (int k = 0; k < pn->ninputs + pn->op->ncontrol; k++) {
        int src, port = -1, input = -1;
        if (k < pn->ninputs) {
          int32_t slot = pn->in_slots[k];
          src = cf->slot_owner[slot];
          if (src < 0) {
            cf->nodes[j].fed_inputs = 1;
            continue;
          }
          port = slot - p->nodes[src].out_slot;
          input = k;
        } else {
          src = ctrl_src(idx, len, pn->op->control_inputs[k - pn->ninputs]);
          if (src < 0) continue;
        }
        tfs_cf_node *s = &cf->nodes[src];
        if (pass == 0) {
          s->nedges++;
          in_edges[j]++;
          if (input < 0) in_ctrl[j]++;
        } else {
          s->edges[fill[src]++] = (tfs_cf_edge){j, port, input};
        }
      }
    }
    if (pass == 1) break;
    for (int i = 0; i < p->nnodes; i++) {
      cf->nodes[i].edges =
          tfs_malloc(sizeof(tfs_cf_edge) * ((size_t)cf->nodes[i].nedges + 1));
      if (!cf->nodes[i].edges) goto done;
    }
  }
  rc = 0;
done:
  tfs_free(idx);
  tfs_free(fill);
  return rc;
}

/* ---- frames ------------------------------------------------------------- */

typedef struct walk {
  const tfs_plan *p;
  tfs_cf_plan *cf;
  int32_t *parent;  /* the Enter whose frame a node runs in; -1: root */
  int32_t *via;     /* the input that put a node in its frame */
  int cap;
} walk;

static int frame_named(walk *w, const char *name) {
  for (int f = 1; f < w->cf->nframes; f++)
    if (strcmp(w->cf->frames[f].name, name) == 0) return f;
  return -1;
}

/* The frame Enter node `e` leads into, created on first sight with the
 * Enter's parallel_iterations.  -1 with st set for a bad Enter. */
static int enter_frame(walk *w, int e, tfs_status *st) {
  const tfs_operation *op = w->p->nodes[e].op;
  size_t len = 0;
  const char *name = tfs_attrs_get_string(&op->attrs, "frame_name", &len);
  if (!name || len == 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Enter node {{node %s}} has an empty frame_name",
                    op->name);
    return -1;
  }
  int f = frame_named(w, name);
  if (f >= 0) return f;
  int64_t pi = 10;
  tfs_attrs_get_int(&op->attrs, "parallel_iterations", &pi);
  if (pi <= 0 || pi > INT32_MAX / 2) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "parallel_iterations must be a positive integer, but "
                    "Enter node {{node %s}} has %lld",
                    op->name, (long long)pi);
    return -1;
  }
  tfs_cf_plan *cf = w->cf;
  size_t cap = (size_t)w->cap;
  if (tfs_grow((void **)&cf->frames, &cap, (size_t)cf->nframes + 1,
               sizeof(tfs_cf_frame_info))) {
    TFS_OOM(st);
    return -1;
  }
  w->cap = (int)cap;
  f = cf->nframes++;
  memset(&cf->frames[f], 0, sizeof(cf->frames[f]));
  cf->frames[f].name = name;
  cf->frames[f].parent = cf->nodes[e].frame;
  cf->frames[f].parallel_iterations = (int)pi;
  return f;
}

/* Node d reached from node s (in frame f, under Enter `par`): d takes the
 * frame, or must already be in it. */
static int reach(walk *w, int s, int d, int f, int par, int32_t *queue,
                 int *tail, tfs_status *st) {
  tfs_cf_node *dn = &w->cf->nodes[d];
  if (dn->frame < 0) {
    dn->frame = f;
    w->parent[d] = par;
    w->via[d] = s;
    queue[(*tail)++] = d;
    return 0;
  }
  if (dn->frame == f) return 0;
  const tfs_cf_frame_info *fr = w->cf->frames;
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "{{node %s}} has inputs from different frames. The input "
                  "{{node %s}} is in frame '%s'. The input {{node %s}} is in "
                  "frame '%s'.",
                  w->p->nodes[d].op->name, w->p->nodes[s].op->name,
                  fr[f].name, w->p->nodes[w->via[d]].op->name,
                  fr[dn->frame].name);
  return -1;
}

/* TensorFlow's BuildControlFlowInfo over the plan. */
static int assign_frames(walk *w, const int32_t *in_edges, tfs_status *st) {
  const tfs_plan *p = w->p;
  tfs_cf_plan *cf = w->cf;
  int n = p->nnodes, head = 0, tail = 0, rc = -1;
  int32_t *queue = tfs_malloc(sizeof(int32_t) * ((size_t)n + 1));
  if (!queue) {
    TFS_OOM(st);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    w->parent[i] = -1;
    if (in_edges[i]) continue;
    cf->nodes[i].frame = 0;
    queue[tail++] = i;
  }
  while (head < tail) {
    int s = queue[head++];
    int f = cf->nodes[s].frame, par = w->parent[s];
    uint8_t kind = p->nodes[s].kind;
    if (kind == TFS_NODE_ENTER) {
      f = enter_frame(w, s, st);
      if (f < 0) goto done;
      cf->nodes[s].child = f;
      par = s;
    } else if (kind == TFS_NODE_EXIT) {
      if (par < 0) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Invalid Exit op: Cannot find a corresponding Enter "
                        "op.\n\t [[{{node %s}}]]", p->nodes[s].op->name);
        goto done;
      }
      f = cf->nodes[par].frame;
      par = w->parent[par];
    }
    for (int e = 0; e < cf->nodes[s].nedges; e++)
      if (reach(w, s, cf->nodes[s].edges[e].dst, f, par, queue, &tail, st))
        goto done;
  }
  rc = 0;
done:
  tfs_free(queue);
  return rc;
}

/* Local ids, input entries and initial pending counts per frame; Enter
 * counts per frame. */
static int lay_out_frames(const tfs_plan *p, tfs_cf_plan *cf,
                          const int32_t *in_edges, const int32_t *in_ctrl,
                          tfs_status *st) {
  for (int i = 0; i < p->nnodes; i++) {
    tfs_cf_node *cn = &cf->nodes[i];
    if (cn->frame < 0) cn->frame = 0; /* never reached: never runs */
    tfs_cf_frame_info *fr = &cf->frames[cn->frame];
    cn->local = fr->nnodes++;
    cn->in_start = fr->ninputs;
    fr->ninputs += p->nodes[i].ninputs;
    if (p->nodes[i].kind == TFS_NODE_ENTER && cn->child > 0)
      cf->frames[cn->child].nenters++;
  }
  /* Enters the walk did not reach still count, as in TensorFlow */
  for (int i = 0; i < p->nnodes; i++) {
    if (p->nodes[i].kind != TFS_NODE_ENTER || cf->nodes[i].child > 0)
      continue;
    size_t len = 0;
    const char *name =
        tfs_attrs_get_string(&p->nodes[i].op->attrs, "frame_name", &len);
    for (int f = 1; name && f < cf->nframes; f++)
      if (strcmp(cf->frames[f].name, name) == 0) cf->frames[f].nenters++;
  }
  for (int f = 0; f < cf->nframes; f++) {
    cf->frames[f].init_pending =
        tfs_calloc((size_t)cf->frames[f].nnodes + 1, sizeof(int32_t));
    if (!cf->frames[f].init_pending) {
      TFS_OOM(st);
      return -1;
    }
  }
  for (int i = 0; i < p->nnodes; i++) {
    const tfs_cf_node *cn = &cf->nodes[i];
    int32_t pending = in_edges[i];
    if (p->nodes[i].kind == TFS_NODE_MERGE) {
      if (cn->fed_inputs) {
        tfs_status_setf(st, TFS_UNIMPLEMENTED,
                        "Feeding an input of Merge node '%s' is not "
                        "supported", p->nodes[i].op->name);
        return -1;
      }
      /* bit 0: still waiting for a live data input */
      pending = 1 + 2 * in_ctrl[i];
    }
    cf->frames[cn->frame].init_pending[cn->local] = pending;
  }
  return 0;
}

/* ---- fetches ------------------------------------------------------------ */

/* The position of each fetch among the fetch names sorted, which is the
 * index TensorFlow's call frame reports ("Retval[1] does not have
 * value"). */
static int order_fetches(const tfs_plan *p, tfs_cf_plan *cf) {
  int n = p->nfetches, rc = -1;
  char **names = tfs_calloc((size_t)n + 1, sizeof(char *));
  cf->fetch_order = tfs_calloc((size_t)n + 1, sizeof(int32_t));
  if (!names || !cf->fetch_order) goto done;
  for (int i = 0; i < n; i++) {
    names[i] = tfs_asprintf("%s:%d", p->fetches[i].oper->name,
                            p->fetches[i].index);
    if (!names[i]) goto done;
  }
  for (int i = 0; i < n; i++) {
    int32_t pos = 0;
    for (int j = 0; j < n; j++) {
      int c = strcmp(names[j], names[i]);
      if (c < 0 || (c == 0 && j < i)) pos++;
    }
    cf->fetch_order[i] = pos;
    int owner = cf->slot_owner[p->fetch_slots[i]];
    if (owner >= 0) cf->nodes[owner].fetched = 1;
  }
  rc = 0;
done:
  for (int i = 0; names && i < n; i++) tfs_free(names[i]);
  tfs_free(names);
  return rc;
}

/* ---- the plan ------------------------------------------------------------ */

tfs_cf_plan *tfs_cf__prepare(const tfs_plan *p, tfs_status *st) {
  int n = p->nnodes;
  tfs_cf_plan *cf = tfs_calloc(1, sizeof(*cf));
  int32_t *in_edges = tfs_calloc((size_t)n + 1, sizeof(int32_t));
  int32_t *in_ctrl = tfs_calloc((size_t)n + 1, sizeof(int32_t));
  walk w = {p, cf, NULL, NULL, 1};
  w.parent = tfs_malloc(sizeof(int32_t) * ((size_t)n + 1));
  w.via = tfs_malloc(sizeof(int32_t) * ((size_t)n + 1));
  if (!cf || !in_edges || !in_ctrl || !w.parent || !w.via) goto oom;
  cf->nnodes = n;
  cf->nodes = tfs_calloc((size_t)n + 1, sizeof(tfs_cf_node));
  cf->slot_owner = tfs_malloc(sizeof(int32_t) * ((size_t)p->nslots + 1));
  cf->frames = tfs_calloc(1, sizeof(tfs_cf_frame_info));
  if (!cf->nodes || !cf->slot_owner || !cf->frames) goto oom;
  cf->nframes = 1;
  cf->frames[0].name = "";
  cf->frames[0].parent = -1;
  cf->frames[0].parallel_iterations = 1;
  for (int s = 0; s < p->nslots; s++) cf->slot_owner[s] = -1;
  for (int i = 0; i < n; i++) {
    cf->nodes[i].frame = -1;
    cf->nodes[i].child = -1;
    for (int k = 0; k < p->nodes[i].noutputs; k++)
      cf->slot_owner[p->nodes[i].out_slot + k] = i;
    if (p->nodes[i].kind == TFS_NODE_ENTER) {
      int c = 0;
      tfs_attrs_get_bool(&p->nodes[i].op->attrs, "is_constant", &c);
      cf->nodes[i].is_constant = (uint8_t)(c != 0);
    }
  }
  if (build_edges(p, cf, in_edges, in_ctrl) || order_fetches(p, cf))
    goto oom;
  if (assign_frames(&w, in_edges, st) ||
      lay_out_frames(p, cf, in_edges, in_ctrl, st))
    goto fail;
  tfs_free(in_edges);
  tfs_free(in_ctrl);
  tfs_free(w.parent);
  tfs_free(w.via);
  return cf;
oom:
  TFS_OOM(st);
fail:
  tfs_free(in_edges);
  tfs_free(in_ctrl);
  tfs_free(w.parent);
  tfs_free(w.via);
  tfs_cf__free(cf);
  return NULL;
}

/*
 * session/plan_place.c - devices in plans.  A session holds the device set
 * of its ConfigProto; a plan places its nodes when it is built (the placer
 * of src/device: requested devices, colocation, kernels per device type,
 * soft placement, the placement log), takes each node's kernel from its
 * device, and runs a copy node wherever a value changes memory space.  A
 * plan whose nodes all land on CPU:0 is built exactly as without devices.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "ops/shape_ctx.h"
#include "session/plan_place.h"
#include "tfsess/device.h"

/* ---- the session's devices ------------------------------------------- */

/* DirectSession's "Device mapping" message (stderr, as TensorFlow's
 * LOG(INFO)): one "NAME -> DESCRIPTION" line per device that has a
 * physical description. */
static void log_device_mapping(const tfs_device_set *ds) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  int any = 0;
  for (int i = 0; i < ds->n; i++) {
    const tfs_device *d = ds->devices[i];
    if (!d->desc[0]) continue;
    tfs_strbuf_printf(&b, "%s%s -> %s", any ? "\n" : "Device mapping:\n",
                      d->name, d->desc);
    any = 1;
  }
  const char *m = any ? tfs_strbuf_str(&b) : NULL;
  fprintf(stderr, "%s\n", m ? m : "Device mapping: no known devices.");
  tfs_strbuf_free(&b);
}

int tfs_session__devices_init(tfs_session *s, tfs_status *st) {
  s->devices = tfs_device_set__new(&s->opts.config, st);
  if (!s->devices) return -1;
  if (s->opts.config.log_device_placement) log_device_mapping(s->devices);
  return 0;
}

void tfs_session__devices_free(tfs_session *s) {
  tfs_device_set__free(s->devices);
  s->devices = NULL;
}

tfs_device_list *tfs_device_list_new(const tfs_session_options *opts,
                                     tfs_status *st) {
  tfs_config cfg;
  tfs_config__init(&cfg);
  if (opts) {
    /* Through the wire form: the options' layout stays the session's. */
    tfs_buffer *buf = tfs_buffer_new();
    if (!buf) {
      TFS_OOM(st);
      return NULL;
    }
    tfs_session_options_get_config(opts, buf, st);
    int rc = tfs_status_ok(st)
                 ? tfs_config__parse(buf->data, buf->length, &cfg, st)
                 : -1;
    tfs_buffer_free(buf);
    if (rc) return NULL;
  }
  tfs_device_list *l = tfs_device_list__from_config(&cfg, st);
  tfs_config__clear(&cfg);
  return l;
}

tfs_device_list *tfs_session_list_devices(tfs_session *s, tfs_status *st) {
  TFS_CHECK_ARG(s != NULL, st, NULL);
  return tfs_device_list__from_set(s->devices, st);
}

/* ---- placing a plan's nodes ------------------------------------------- */

/* TensorFlow's LogDeviceAssignment prints each line with printf and logs
 * it (stderr) as well. */
static void log_assignment(void *arg, const char *line) {
  (void)arg;
  printf("%s\n", line);
  fprintf(stderr, "%s\n", line);
}

/* The devices of the plan that queue work (a synchronize entry). */
static int collect_sync(tfs_plan_devices *pd, tfs_device *const *dev, int n) {
  pd->sync = tfs_malloc(sizeof(tfs_device *) * (size_t)(n + 1));
  if (!pd->sync) return -1;
  for (int i = 0; i < n; i++) {
    if (!dev[i]->iface->synchronize) continue;
    int seen = 0;
    for (int k = 0; k < pd->nsync && !seen; k++) seen = pd->sync[k] == dev[i];
    if (!seen) pd->sync[pd->nsync++] = dev[i];
  }
  return 0;
}

/* Whether the placer could only put every node on CPU:0, silently: the
 * session has no other device, the log is off, and every requested
 * device names CPU:0 ("/cpu:0", "/device:CPU:0", the full name...).  A
 * node without a CPU kernel then fails in kernel lookup with the same
 * "No OpKernel was registered ..." text. */
static int only_cpu0(const tfs_session *s, tfs_operation *const *nodes,
                     int n) {
  const tfs_device_set *ds = s->devices;
  if (ds->n != 1 || s->opts.config.log_device_placement) return 0;
  for (int i = 0; i < n; i++) {
    const char *req = nodes[i]->device;
    tfs_device_name spec;
    if (req && req[0] &&
        (tfs_device_name__parse(req, &spec) ||
         !tfs_device_name__matches(&spec, &ds->devices[0]->parsed)))
      return 0;
  }
  return 1;
}

/* Places nodes[0..n) into dev[] with the session's options, or (`settle`:
 * nodes of an optimized graph, whose devices were assigned before) with
 * soft placement and no log.  Returns 1 when all landed on CPU:0 (or
 * could only land there: dev[] is then not filled), 0 otherwise, -1 with
 * the placer's error. */
static int place_nodes(tfs_session *s, tfs_operation *const *nodes, int n,
                       int settle, tfs_device **dev, tfs_status *st) {
  if (n == 0 || only_cpu0(s, nodes, n)) return 1;
  tfs_placer_options po = {settle || s->opts.config.allow_soft_placement,
                           !settle && s->opts.config.log_device_placement,
                           log_assignment, NULL};
  if (tfs_placer__place((tfs_operation **)nodes, n, s->devices, &po, dev,
                        st))
    return -1;
  tfs_device *cpu0 = tfs_device__cpu();
  for (int i = 0; i < n; i++)
    if (dev[i] != cpu0) return 0;
  return 1;
}

int tfs_plan__preplace(tfs_session *s, tfs_operation *const *nodes, int n,
                       const char **assigned, tfs_status *st) {
  for (int i = 0; i < n; i++) assigned[i] = NULL;
  tfs_device **dev = tfs_malloc(sizeof(tfs_device *) * (size_t)(n + 1));
  if (!dev) {
    TFS_OOM(st);
    return -1;
  }
  int r = place_nodes(s, nodes, n, 0, dev, st);
  for (int i = 0; r == 0 && i < n; i++) assigned[i] = dev[i]->name;
  tfs_free(dev);
  return r < 0 ? -1 : 0;
}

int tfs_plan__place(tfs_session *s, tfs_plan *p, int settle,
                    tfs_status *st) {
  int n = p->nnodes, rc = -1;
  tfs_operation **nodes = tfs_malloc(sizeof(tfs_operation *) * (size_t)(n + 1));
  tfs_device **dev = tfs_malloc(sizeof(tfs_device *) * (size_t)(n + 1));
  if (!nodes || !dev) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < n; i++) nodes[i] = p->nodes[i].op;
  int r = place_nodes(s, nodes, n, settle, dev, st);
  if (r < 0) goto done;
  rc = 0;
  if (r == 1) goto done; /* all on CPU:0: the plan stays as it is */
  p->devices = tfs_calloc(1, sizeof(tfs_plan_devices));
  if (!p->devices || collect_sync(p->devices, dev, n)) {
    TFS_OOM(st);
    rc = -1;
    goto done;
  }
  for (int i = 0; i < n; i++) p->nodes[i].device = dev[i];
done:
  tfs_free(nodes);
  tfs_free(dev);
  return rc;
}

const tfs_kernel_def *tfs_plan__device_kernel(const tfs_plan_node *pn,
                                              tfs_status *st) {
  tfs_device *d = pn->device;
  const tfs_operation *op = pn->op;
  return d->iface->find_kernel(d, op->def, &op->attrs, op->name, st);
}

int tfs_plan__device_prepare(const tfs_plan_node *pn,
                             const tfs_kernel_def *k, tfs_kernel_init *ki) {
  return tfs_device__prepare_kernel(pn->device, k, ki);
}

int tfs_plan__sync_devices(const tfs_plan *p, tfs_status *st) {
  const tfs_plan_devices *pd = p->devices;
  for (int i = 0; pd && i < pd->nsync; i++) {
    tfs_device *d = pd->sync[i];
    if (d->iface->synchronize(d, st)) return -1;
  }
  return 0;
}

/* ---- copy nodes --------------------------------------------------------- */

/* The op the copy nodes stand for: Identity's signature and shape
 * function (memory planning reruns it), named "_Copy". */
static tfs_op_def g_copy_def;
static pthread_once_t g_copy_once = PTHREAD_ONCE_INIT;
static char g_copy_name[] = "_Copy";

static void copy_def_init(void) {
  const tfs_op_def *id = tfs_op_lookup("Identity");
  if (id) g_copy_def = *id;
  g_copy_def.name = g_copy_name;
  g_copy_def.shape_fn = tfs_shape_fn_unchanged;
}

static void copy_op_free(tfs_operation *op) {
  if (!op) return;
  tfs_free(op->name);
  tfs_free(op->device);
  tfs_attrs_clear(&op->attrs);
  tfs_free(op->inputs);
  tfs_free(op->in_types);
  tfs_free(op->out_types);
  tfs_free(op->out_shapes);
  tfs_free(op);
}

/* A copy of output `src` (dtype dt, partial shape) into `to` (NULL: host
 * memory), named after its source: "x/_copy_0_to_FAKE_0". */
static tfs_operation *copy_op_new(tfs_output src, tfs_dtype dt,
                                  const tfs_shape *shape,
                                  const tfs_device *to) {
  pthread_once(&g_copy_once, copy_def_init);
  tfs_operation *op = tfs_calloc(1, sizeof *op);
  if (!op) return NULL;
  tfs_attrs_init(&op->attrs);
  op->id = -1;
  op->def = &g_copy_def;
  op->name = to ? tfs_asprintf("%s/_copy_%d_to_%s_%d", src.oper->name,
                               src.index, to->type->name, to->id)
                : tfs_asprintf("%s/_copy_%d_to_host", src.oper->name,
                               src.index);
  op->device = tfs_strdup(to ? to->name : "");
  op->ninputs = op->noutputs = 1;
  op->inputs = tfs_malloc(sizeof(tfs_output));
  op->in_types = tfs_malloc(sizeof(tfs_dtype));
  op->out_types = tfs_malloc(sizeof(tfs_dtype));
  op->out_shapes = tfs_malloc(sizeof(tfs_shape));
  if (!op->name || !op->device || !op->inputs || !op->in_types ||
      !op->out_types || !op->out_shapes) {
    copy_op_free(op);
    return NULL;
  }
  op->inputs[0] = src;
  op->in_types[0] = dt;
  op->out_types[0] = tfs_dtype_base(dt);
  op->out_shapes[0] = *shape;
  return op;
}

/* One copy: the value of slot `src` into `to`, read by `nuse` consumer
 * inputs and fetches. */
typedef struct copy_req {
  int32_t src;
  tfs_device *to;       /* NULL: host memory */
  int producer;         /* plan node, or -1 for a feed */
  int feed;             /* the feed, when producer < 0 */
  int next;             /* next request on the same slot, or -1 */
  int nuse;
  int nsucc;
  int32_t *succ;        /* consumer nodes (old positions), distinct */
  int reader;           /* a variable read through a ref edge: the one
                           consumer (old position); else -1, shared */
} copy_req;

typedef struct copy_plan {
  tfs_plan *p;
  tfs_device **space;   /* per slot: where its value lives (NULL: host) */
  int *producer;        /* per slot: plan node or -1 (feed) */
  int *head;            /* per slot: first request or -1 */
  int n, cap;
  copy_req *req;
} copy_plan;

/* A device that computes in host memory counts as the host. */
static tfs_device *space_of(tfs_device *d) {
  return d && !d->host_memory ? d : NULL;
}

/* The request for slot s into `to`: shared by the consumers, except that
 * a variable read through a ref edge (reader >= 0) gets one of its own. */
static int find_or_add(copy_plan *cp, int32_t s, tfs_device *to, int reader) {
  for (int r = cp->head[s]; reader < 0 && r >= 0; r = cp->req[r].next)
    if (cp->req[r].to == to && cp->req[r].reader < 0) return r;
  size_t cap = (size_t)cp->cap;
  if (tfs_grow((void **)&cp->req, &cap, (size_t)cp->n + 1, sizeof(copy_req)))
    return -1;
  cp->cap = (int)cap;
  copy_req *r = &cp->req[cp->n];
  memset(r, 0, sizeof *r);
  r->src = s;
  r->to = to;
  r->reader = reader;
  r->producer = cp->producer[s];
  r->feed = -1;
  for (int f = 0; r->producer < 0 && f < cp->p->nfeeds; f++)
    if (cp->p->feed_slots[f] == s) r->feed = f;
  r->next = cp->head[s];
  cp->head[s] = cp->n;
  return cp->n++;
}

static int add_edge(int32_t **v, int *n, int32_t x) {
  for (int i = 0; i < *n; i++)
    if ((*v)[i] == x) return 0;
  int32_t *g = tfs_realloc(*v, sizeof(int32_t) * (size_t)(*n + 1));
  if (!g) return -1;
  *v = g;
  g[(*n)++] = x;
  return 1;
}

/* Where each slot's value lives: a node's outputs in its device's memory
 * unless the device keeps them on the host (memory types); feeds on the
 * host. */
static int slot_spaces(copy_plan *cp) {
  tfs_plan *p = cp->p;
  size_t ns = (size_t)p->nslots + 1;
  cp->space = tfs_calloc(ns, sizeof(tfs_device *));
  cp->producer = tfs_malloc(sizeof(int) * ns);
  cp->head = tfs_malloc(sizeof(int) * ns);
  if (!cp->space || !cp->producer || !cp->head) return -1;
  for (int s = 0; s < p->nslots; s++) cp->producer[s] = cp->head[s] = -1;
  for (int i = 0; i < p->nnodes; i++) {
    tfs_plan_node *pn = &p->nodes[i];
    uint64_t hin, hout;
    tfs_device__memory_types(pn->device, pn->op, &hin, &hout);
    for (int k = 0; k < pn->noutputs; k++) {
      cp->producer[pn->out_slot + k] = i;
      if (k >= 64 || !(hout >> k & 1))
        cp->space[pn->out_slot + k] = space_of(pn->device);
    }
  }
  return 0;
}

/* Routes every input and fetch whose value is in the wrong space through
 * a copy request (a consumer that read a variable's value through a ref
 * edge now reads the copy, which dereferences). */
static int route(copy_plan *cp) {
  tfs_plan *p = cp->p;
  for (int i = 0; i < p->nnodes; i++) {
    tfs_plan_node *pn = &p->nodes[i];
    uint64_t hin, hout;
    tfs_device__memory_types(pn->device, pn->op, &hin, &hout);
    for (int k = 0; k < pn->ninputs; k++) {
      int32_t s = pn->in_slots[k];
      tfs_device *have = (pn->in_flags[k] & TFS_IN_DEREF) ? NULL
                                                         : cp->space[s];
      tfs_device *need =
          k < 64 && (hin >> k & 1) ? NULL : space_of(pn->device);
      if (have == need) continue;
      int r = find_or_add(cp, s, need,
                          (pn->in_flags[k] & TFS_IN_DEREF) ? i : -1);
      if (r < 0) return -1;
      copy_req *q = &cp->req[r];
      if (add_edge(&q->succ, &q->nsucc, i) < 0) return -1;
      q->nuse++;
      pn->in_slots[k] = -1 - r; /* resolved to the copy's slot below */
      pn->in_flags[k] &= (uint8_t)~TFS_IN_DEREF;
      p->slot_uses[s]--;
    }
  }
  for (int f = 0; f < p->nfetches; f++) {
    int32_t s = p->fetch_slots[f];
    if (p->fetch_deref[f] || !cp->space[s]) continue;
    int r = find_or_add(cp, s, NULL, -1);
    if (r < 0) return -1;
    cp->req[r].nuse++;
    p->fetch_slots[f] = -1 - r;
    p->slot_uses[s]--;
  }
  return 0;
}

/* The copy node of request r (its succ: consumers' new positions). */
static int make_copy_node(copy_plan *cp, int r, const int *newpos,
                          tfs_plan_node *out, tfs_status *st) {
  tfs_plan *p = cp->p;
  copy_req *q = &cp->req[r];
  tfs_output src;
  tfs_dtype dt;
  const tfs_shape *shape;
  if (q->producer >= 0) {
    tfs_plan_node *pn = &p->nodes[q->producer];
    src = (tfs_output){pn->op, q->src - pn->out_slot};
    dt = pn->op->out_types[src.index];
    shape = &pn->op->out_shapes[src.index];
  } else {
    src = p->feeds[q->feed];
    dt = tfs_dtype_base(src.oper->out_types[src.index]);
    shape = &src.oper->out_shapes[src.index];
  }
  out->op = p->devices->copy_ops[r] = copy_op_new(src, dt, shape, q->to);
  out->in_slots = tfs_malloc(sizeof(int32_t));
  out->in_flags = tfs_calloc(1, 1);
  out->succ = q->succ; /* taken */
  out->nsucc = q->nsucc;
  q->succ = NULL;
  if (!out->op || !out->in_slots || !out->in_flags) {
    TFS_OOM(st);
    return -1;
  }
  out->kdef = &tfs_device_copy_kernel;
  out->kstate = q->to;
  out->reader = q->reader >= 0 ? p->nodes[q->reader].op : NULL;
  out->ninputs = out->noutputs = 1;
  out->in_slots[0] = q->src;
  if (tfs_dtype_is_ref(dt)) out->in_flags[0] = TFS_IN_DEREF;
  out->out_slot = p->nslots + r;
  out->npending = q->producer >= 0 ? 1 : 0;
  out->device = q->to ? q->to
                      : q->producer >= 0 ? p->nodes[q->producer].device
                                         : tfs_device__cpu();
  for (int k = 0; k < out->nsucc; k++) out->succ[k] = newpos[out->succ[k]];
  return 0;
}

/* A copy that reads a variable for one consumer reads it when that
 * consumer could: after every other node the consumer waits for (its
 * control inputs: a read ordered after an update sees the update), as a
 * read on the variable's own device would.  Edges from those nodes (old
 * positions) to copy r (position n + r until renumbered).  Returns -1 on
 * OOM. */
static int reader_edges(copy_plan *cp, int r, tfs_plan_node *copy) {
  tfs_plan *p = cp->p;
  int c = cp->req[r].reader, n = p->nnodes;
  if (c < 0) return 0;
  for (int j = 0; j < n; j++) {
    if (j == c || j == cp->req[r].producer) continue;
    const tfs_plan_node *pj = &p->nodes[j];
    int before = 0;
    for (int k = 0; k < pj->nsucc && !before; k++) before = pj->succ[k] == c;
    if (!before) continue;
    int added = add_edge(&p->nodes[j].succ, &p->nodes[j].nsucc, n + r);
    if (added < 0) return -1;
    copy->npending += added;
  }
  return 0;
}

/* Positions in the new order: feed copies, then each node followed by its
 * copies, except that a copy reading a variable for one node goes just
 * before that node (after everything it waits for).  newpos[i] for node
 * i, newpos[n + r] for copy r. */
static void new_order(const copy_plan *cp, int *newpos) {
  int n = cp->p->nnodes, at = 0;
  for (int r = 0; r < cp->n; r++)
    if (cp->req[r].producer < 0 && cp->req[r].reader < 0) newpos[n + r] = at++;
  for (int i = 0; i < n; i++) {
    for (int r = 0; r < cp->n; r++)
      if (cp->req[r].reader == i) newpos[n + r] = at++;
    newpos[i] = at++;
    for (int r = 0; r < cp->n; r++)
      if (cp->req[r].producer == i && cp->req[r].reader < 0)
        newpos[n + r] = at++;
  }
}

/* Builds the copy nodes and the new node array; the plan changes only
 * once nothing can fail any more. */
static int reorder(copy_plan *cp, tfs_status *st) {
  tfs_plan *p = cp->p;
  int n = p->nnodes, nc = cp->n, total = n + nc, rc = -1;
  int *newpos = tfs_malloc(sizeof(int) * (size_t)(total + 1));
  tfs_plan_node *nodes = tfs_calloc((size_t)total + 1, sizeof(tfs_plan_node));
  int32_t *uses = tfs_realloc(p->slot_uses,
                              sizeof(int32_t) * (size_t)(p->nslots + nc + 1));
  if (uses) p->slot_uses = uses;
  p->devices->copy_ops = tfs_calloc((size_t)nc + 1, sizeof(tfs_operation *));
  if (!newpos || !nodes || !uses || !p->devices->copy_ops) {
    TFS_OOM(st);
    goto done;
  }
  p->devices->ncopies = nc;
  new_order(cp, newpos);
  for (int r = 0; r < nc; r++) {
    if (make_copy_node(cp, r, newpos, &nodes[newpos[n + r]], st)) goto done;
    /* the producer's edge to its copy (position n + r until renumbered) */
    int pr = cp->req[r].producer;
    if ((pr >= 0 &&
         add_edge(&p->nodes[pr].succ, &p->nodes[pr].nsucc, n + r) < 0) ||
        reader_edges(cp, r, &nodes[newpos[n + r]]) < 0) {
      TFS_OOM(st);
      goto done;
    }
  }
  /* nothing fails from here on */
  for (int r = 0; r < nc; r++) {
    p->slot_uses[p->nslots + r] = cp->req[r].nuse;
    p->slot_uses[cp->req[r].src]++;
  }
  for (int i = 0; i < n; i++) {
    tfs_plan_node *pn = &nodes[newpos[i]];
    *pn = p->nodes[i];
    for (int k = 0; k < pn->ninputs; k++) /* -1 - r: copy r's slot */
      if (pn->in_slots[k] < 0)
        pn->in_slots[k] = p->nslots - 1 - pn->in_slots[k];
    for (int k = 0; k < pn->nsucc; k++) pn->succ[k] = newpos[pn->succ[k]];
  }
  for (int r = 0; r < nc; r++) {
    const tfs_plan_node *c = &nodes[newpos[n + r]];
    for (int k = 0; k < c->nsucc; k++) nodes[c->succ[k]].npending++;
  }
  for (int f = 0; f < p->nfetches; f++)
    if (p->fetch_slots[f] < 0)
      p->fetch_slots[f] = p->nslots - 1 - p->fetch_slots[f];
  tfs_free(p->nodes);
  p->nodes = nodes;
  nodes = NULL;
  p->nnodes = total;
  p->nslots += nc;
  rc = 0;
done:
  if (nodes) { /* failed: the plan keeps its nodes; the copies go */
    for (int r = 0; newpos && r < nc; r++) {
      tfs_plan_node *c = &nodes[newpos[n + r]];
      tfs_free(c->in_slots);
      tfs_free(c->in_flags);
      tfs_free(c->succ);
    }
    tfs_free(nodes);
  }
  tfs_free(newpos);
  return rc;
}

int tfs_plan__add_copies(tfs_plan *p, tfs_status *st) {
  copy_plan cp;
  memset(&cp, 0, sizeof cp);
  cp.p = p;
  int rc = -1;
  if (slot_spaces(&cp) || route(&cp)) {
    TFS_OOM(st);
    goto done;
  }
  rc = cp.n ? reorder(&cp, st) : 0;
done:
  for (int r = 0; r < cp.n; r++) tfs_free(cp.req[r].succ);
  tfs_free(cp.req);
  tfs_free(cp.space);
  tfs_free(cp.producer);
  tfs_free(cp.head);
  return rc;
}

void tfs_plan__free_devices(tfs_plan *p) {
  tfs_plan_devices *pd = p->devices;
  if (!pd) return;
  for (int i = 0; pd->copy_ops && i < pd->ncopies; i++)
    copy_op_free(pd->copy_ops[i]);
  tfs_free(pd->copy_ops);
  tfs_free(pd->sync);
  tfs_free(pd);
  p->devices = NULL;
}

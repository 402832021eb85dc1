/*
 * session/exec_cf.c - the executor of plans with TF1 control flow, with
 * TensorFlow's rules (core/common_runtime/propagator_state.cc): values
 * flow along edges into per-iteration input entries; a node runs when its
 * pending count reaches zero, dead when an input is dead (a NULL value),
 * and a dead node runs no kernel, its outputs are dead.  A Merge runs on
 * its first live data input, dead when every data input is dead.  Enter
 * moves a value into iteration 0 of a child frame (one per frame name and
 * parent iteration), or into every iteration for a loop invariant;
 * NextIteration into the next iteration, at most parallel_iterations of
 * them outstanding; Exit back to the parent frame.  An iteration's state
 * is recycled as soon as it is done, so a loop's memory does not grow
 * with its iteration count.  One thread runs the ready nodes in order.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "session/exec_cf.h"

#define MAX_STACK_IO 16

typedef struct cf_iter cf_iter;
typedef struct cf_frame cf_frame;

/* The state of one iteration of one frame instance. */
struct cf_iter {
  int64_t num;
  int outstanding_ops;     /* scheduled nodes not finished */
  int outstanding_frames;  /* child frames entered from it, not done */
  cf_frame *children;
  cf_iter *next_free;
  tfs_tensor **inputs;     /* frame's ninputs; NULL: none or dead */
  int32_t *pending;        /* frame's nnodes */
  int32_t *dead;           /* frame's nnodes: dead inputs seen */
};

typedef struct cf_value {
  int32_t node;
  tfs_tensor *t;           /* NULL: dead */
} cf_value;

typedef struct cf_vec {
  int n, cap;
  cf_value *v;
} cf_vec;

/* One instance of a frame: the root, or a loop entered from one
 * iteration of its parent. */
struct cf_frame {
  const tfs_cf_frame_info *fi;
  int fidx;
  int P;                   /* parallel_iterations */
  cf_frame *parent;
  cf_iter *parent_it;
  cf_frame *sibling;       /* next child frame of parent_it */
  cf_frame *prev, *next;   /* every live frame of the run */
  int64_t iteration_count; /* the highest iteration started */
  int num_outstanding_iterations;
  int num_pending_inputs;  /* Enters that have not fired */
  cf_iter **ring;          /* P + 1 iterations, by number mod P + 1 */
  cf_vec next_roots;       /* NextIteration values waiting for room */
  cf_vec invariants;       /* loop invariants, for every iteration */
  cf_vec dead_exits;       /* Exits dead in the highest iteration */
};

typedef struct cf_task {
  int32_t node;
  uint8_t dead;
  cf_frame *f;
  cf_iter *it;
} cf_task;

typedef struct cf_run {
  tfs_exec_run *x;
  const tfs_plan *p;
  const tfs_cf_plan *cf;
  tfs_status *st;
  cf_task *q;              /* ready nodes, a ring */
  size_t qcap, qhead, qlen;
  cf_iter **free_iters;    /* per frame info: recycled iteration states */
  cf_frame *frames;
  int64_t live_iters, peak_iters;
} cf_run;

static _Atomic int64_t g_peak_iters;

int64_t tfs_cf__last_peak_iterations(void) {
  return atomic_load(&g_peak_iters);
}

static int oom(cf_run *r) {
  TFS_OOM(r->st);
  return -1;
}

/* ---- iterations and frames ----------------------------------------------- */

static cf_iter *iter_new(cf_run *r, cf_frame *f, int64_t num) {
  const tfs_cf_frame_info *fi = f->fi;
  cf_iter *it = r->free_iters[f->fidx];
  if (it) {
    r->free_iters[f->fidx] = it->next_free;
  } else {
    size_t ni = (size_t)fi->ninputs, nn = (size_t)fi->nnodes;
    size_t sz = sizeof(cf_iter) + ni * sizeof(tfs_tensor *) +
                2 * nn * sizeof(int32_t);
    it = tfs_malloc(sz);
    if (!it) return NULL;
    it->inputs = (tfs_tensor **)(it + 1);
    it->pending = (int32_t *)(it->inputs + ni);
    it->dead = it->pending + nn;
    memset(it->inputs, 0, ni * sizeof(tfs_tensor *));
  }
  it->num = num;
  it->outstanding_ops = 0;
  it->outstanding_frames = 0;
  it->children = NULL;
  it->next_free = NULL;
  memcpy(it->pending, fi->init_pending, sizeof(int32_t) * (size_t)fi->nnodes);
  memset(it->dead, 0, sizeof(int32_t) * (size_t)fi->nnodes);
  f->ring[num % (f->P + 1)] = it;
  if (++r->live_iters > r->peak_iters) r->peak_iters = r->live_iters;
  return it;
}

/* Recycles an iteration; its inputs are released (a node that never ran
 * leaves its entries behind). */
static void iter_free(cf_run *r, cf_frame *f, cf_iter *it) {
  for (int i = 0; i < f->fi->ninputs; i++) {
    tfs_tensor_free(it->inputs[i]);
    it->inputs[i] = NULL;
  }
  f->ring[it->num % (f->P + 1)] = NULL;
  it->next_free = r->free_iters[f->fidx];
  r->free_iters[f->fidx] = it;
  r->live_iters--;
}

static cf_iter *iter_at(const cf_frame *f, int64_t num) {
  return f->ring[num % (f->P + 1)];
}

static void vec_clear(cf_vec *v) {
  for (int i = 0; i < v->n; i++) tfs_tensor_free(v->v[i].t);
  v->n = 0;
}

/* Appends (node, t), taking the reference t. */
static int vec_push(cf_vec *v, int32_t node, tfs_tensor *t) {
  size_t cap = (size_t)v->cap;
  if (tfs_grow((void **)&v->v, &cap, (size_t)v->n + 1, sizeof(cf_value))) {
    tfs_tensor_free(t);
    return -1;
  }
  v->cap = (int)cap;
  v->v[v->n++] = (cf_value){node, t};
  return 0;
}

static cf_frame *frame_new(cf_run *r, int fidx, cf_frame *parent,
                           cf_iter *parent_it) {
  cf_frame *f = tfs_calloc(1, sizeof(*f));
  if (!f) return NULL;
  f->fi = &r->cf->frames[fidx];
  f->fidx = fidx;
  f->P = f->fi->parallel_iterations;
  f->ring = tfs_calloc((size_t)f->P + 1, sizeof(cf_iter *));
  if (!f->ring || !iter_new(r, f, 0)) {
    tfs_free(f->ring);
    tfs_free(f);
    return NULL;
  }
  f->parent = parent;
  f->parent_it = parent_it;
  f->num_outstanding_iterations = 1;
  f->num_pending_inputs = f->fi->nenters;
  f->next = r->frames;
  if (r->frames) r->frames->prev = f;
  r->frames = f;
  if (parent_it) {
    f->sibling = parent_it->children;
    parent_it->children = f;
    parent_it->outstanding_frames++;
  }
  return f;
}

static void frame_free(cf_run *r, cf_frame *f) {
  for (int i = 0; i <= f->P; i++)
    if (f->ring[i]) iter_free(r, f, f->ring[i]);
  vec_clear(&f->next_roots);
  vec_clear(&f->invariants);
  tfs_free(f->next_roots.v);
  tfs_free(f->invariants.v);
  tfs_free(f->dead_exits.v);
  tfs_free(f->ring);
  if (f->prev) f->prev->next = f->next;
  else r->frames = f->next;
  if (f->next) f->next->prev = f->prev;
  if (f->parent_it) {
    cf_frame **pp = &f->parent_it->children;
    while (*pp && *pp != f) pp = &(*pp)->sibling;
    if (*pp) *pp = f->sibling;
  }
  tfs_free(f);
}

/* ---- the ready queue ---------------------------------------------------- */

static int push(cf_run *r, int32_t node, int dead, cf_frame *f, cf_iter *it) {
  if (r->qlen == r->qcap) {
    size_t cap = r->qcap ? 2 * r->qcap : 64;
    cf_task *q = tfs_malloc(sizeof(cf_task) * cap);
    if (!q) return oom(r);
    for (size_t i = 0; i < r->qlen; i++)
      q[i] = r->q[(r->qhead + i) % r->qcap];
    tfs_free(r->q);
    r->q = q;
    r->qcap = cap;
    r->qhead = 0;
  }
  r->q[(r->qhead + r->qlen++) % r->qcap] =
      (cf_task){node, (uint8_t)(dead != 0), f, it};
  it->outstanding_ops++;
  return 0;
}

/* ---- propagation (TensorFlow's ActivateNodes) ---------------------------- */

/* Delivers node n's outputs (NULL entries dead; all dead when `dead`) to
 * its consumers in iteration `it` of frame f, scheduling those that
 * become ready. */
static int activate(cf_run *r, int32_t n, int dead, cf_frame *f, cf_iter *it,
                    tfs_tensor *const *out) {
  const tfs_plan *p = r->p;
  const tfs_cf_node *cn = &r->cf->nodes[n];
  int src_enter = p->nodes[n].kind == TFS_NODE_ENTER;
  for (int e = 0; e < cn->nedges; e++) {
    const tfs_cf_edge *ed = &cn->edges[e];
    const tfs_cf_node *dn = &r->cf->nodes[ed->dst];
    const tfs_plan_node *dp = &p->nodes[ed->dst];
    int32_t *pend = &it->pending[dn->local], *dcnt = &it->dead[dn->local];
    tfs_tensor *v = ed->input >= 0 && !dead ? out[ed->port] : NULL;
    int ready, dst_dead = 0, need_input = 0;
    if (dp->kind == TFS_NODE_MERGE) {
      if (ed->input < 0) { /* control inputs count 2 each */
        *pend -= 2;
        dst_dead = *dcnt == dp->ninputs;
        ready = *pend == 0 || (*pend == 1 && dst_dead);
      } else if (v) { /* only the first live input counts */
        int count = *pend;
        need_input = count & 1;
        *pend = count & ~1;
        ready = count == 1;
      } else {
        (*dcnt)++;
        /* a dead Enter: a loop in an untaken branch (as TensorFlow) */
        dst_dead = *dcnt == dp->ninputs || src_enter;
        ready = *pend == 1 && dst_dead;
      }
    } else {
      if (dead || (ed->input >= 0 && !v)) (*dcnt)++;
      ready = --*pend == 0;
      dst_dead = *dcnt > 0;
      need_input = v != NULL;
    }
    if (need_input) {
      tfs_tensor **slot = &it->inputs[dn->in_start + ed->input];
      tfs_tensor_free(*slot);
      *slot = tfs_tensor_ref(v);
    }
    if (!ready) continue;
    if (dp->kind == TFS_NODE_CONTROL_TRIGGER) dst_dead = 0;
    if (push(r, ed->dst, dst_dead, f, it)) return -1;
  }
  return 0;
}

static int activate_one(cf_run *r, int32_t n, cf_frame *f, cf_iter *it,
                        tfs_tensor *t) {
  tfs_tensor *out[1] = {t};
  return activate(r, n, t == NULL, f, it, out);
}

/* TensorFlow's IncrementIteration: starts the next iteration, with the
 * deferred NextIteration values and every loop invariant. */
static cf_iter *increment_iteration(cf_run *r, cf_frame *f) {
  cf_iter *it = iter_new(r, f, f->iteration_count + 1);
  if (!it) {
    oom(r);
    return NULL;
  }
  f->iteration_count++;
  f->num_outstanding_iterations++;
  f->dead_exits.n = 0;
  int failed = 0;
  for (int i = 0; i < f->next_roots.n && !failed; i++)
    failed = activate_one(r, f->next_roots.v[i].node, f, it,
                          f->next_roots.v[i].t) != 0;
  vec_clear(&f->next_roots);
  for (int i = 0; i < f->invariants.n && !failed; i++)
    failed = activate_one(r, f->invariants.v[i].node, f, it,
                          f->invariants.v[i].t) != 0;
  return failed ? NULL : it;
}

static int iteration_done(const cf_frame *f, const cf_iter *it) {
  if (it->outstanding_ops || it->outstanding_frames) return 0;
  if (it->num == 0) return f->num_pending_inputs == 0;
  return iter_at(f, it->num - 1) == NULL;
}

/* TensorFlow's CleanupIterations: deletes the done iterations from `it`
 * on, starting a deferred one for each.  Returns 1 when the frame is
 * done, -1 on failure. */
static int cleanup_iterations(cf_run *r, cf_frame *f, cf_iter *it) {
  int64_t cur = it->num;
  while (cur <= f->iteration_count && iteration_done(f, it)) {
    iter_free(r, f, it);
    f->num_outstanding_iterations--;
    cur++;
    if (f->next_roots.n && !increment_iteration(r, f)) return -1;
    if (cur <= f->iteration_count) it = iter_at(f, cur);
  }
  return f->num_pending_inputs == 0 && f->num_outstanding_iterations == 0;
}

static int decrement_outstanding(cf_run *r, cf_frame *f, cf_iter *it) {
  if (--it->outstanding_ops) return 0;
  return cleanup_iterations(r, f, it);
}

/* TensorFlow's DeleteFrame: the dead Exits of a finished frame reach the
 * parent iteration dead, then the frame goes. */
static int delete_frame(cf_run *r, cf_frame *f) {
  cf_frame *pf = f->parent;
  cf_iter *pit = f->parent_it;
  const tfs_plan *p = r->p;
  for (int i = 0; pf && i < f->dead_exits.n; i++) {
    const tfs_cf_node *cn = &r->cf->nodes[f->dead_exits.v[i].node];
    for (int e = 0; e < cn->nedges; e++) {
      const tfs_cf_edge *ed = &cn->edges[e];
      const tfs_cf_node *dn = &r->cf->nodes[ed->dst];
      const tfs_plan_node *dp = &p->nodes[ed->dst];
      int32_t *pend = &pit->pending[dn->local], *dcnt = &pit->dead[dn->local];
      int ready, dst_dead = 1;
      if (dp->kind == TFS_NODE_MERGE && ed->input >= 0) {
        (*dcnt)++;
        dst_dead = *dcnt == dp->ninputs;
        ready = *pend == 1 && dst_dead;
      } else if (dp->kind == TFS_NODE_MERGE) {
        *pend -= 2;
        dst_dead = *dcnt == dp->ninputs;
        ready = *pend == 0 || (*pend == 1 && dst_dead);
      } else {
        (*dcnt)++;
        ready = --*pend == 0;
      }
      if (!ready) continue;
      if (dp->kind == TFS_NODE_CONTROL_TRIGGER) dst_dead = 0;
      if (push(r, ed->dst, dst_dead, pf, pit)) return -1;
    }
  }
  frame_free(r, f);
  return 0;
}

/* A frame is done: delete it, and clean up its parents as they finish
 * with it (TensorFlow's CleanupFramesIterations). */
static int frame_done(cf_run *r, cf_frame *f) {
  while (f) {
    cf_frame *pf = f->parent;
    cf_iter *pit = f->parent_it;
    if (delete_frame(r, f)) return -1;
    if (!pf) return 0;
    pit->outstanding_frames--;
    int done = cleanup_iterations(r, pf, pit);
    if (done < 0) return -1;
    f = done ? pf : NULL;
  }
  return 0;
}

/* The child frame Enter node n leads into from iteration `it` of f. */
static cf_frame *child_frame(cf_run *r, int32_t n, cf_frame *f,
                             cf_iter *it) {
  int fidx = r->cf->nodes[n].child;
  for (cf_frame *c = it->children; c; c = c->sibling)
    if (c->fidx == fidx) return c;
  cf_frame *c = frame_new(r, fidx, f, it);
  if (!c) oom(r);
  return c;
}

/* TensorFlow's AddLoopInv: a loop invariant reaches every iteration
 * started so far and, kept, every later one. */
static int add_loop_inv(cf_run *r, int32_t n, cf_frame *c, tfs_tensor *t) {
  if (vec_push(&c->invariants, n, t ? tfs_tensor_ref(t) : NULL))
    return oom(r);
  for (int i = 0; i <= c->P; i++)
    if (c->ring[i] && activate_one(r, n, c, c->ring[i], t)) return -1;
  return 0;
}

/* TensorFlow's PropagateOutputs for the node of task t. */
static int propagate(cf_run *r, const cf_task *t, tfs_tensor *const *out) {
  cf_frame *f = t->f;
  cf_iter *it = t->it;
  int32_t n = t->node;
  int rc = 0;
  switch (r->p->nodes[n].kind) {
  case TFS_NODE_ENTER: {
    cf_frame *c = child_frame(r, n, f, it);
    if (!c) return -1;
    if (r->cf->nodes[n].is_constant)
      rc = add_loop_inv(r, n, c, t->dead ? NULL : out[0]);
    else
      rc = activate(r, n, t->dead, c, c->ring[0], out);
    c->num_pending_inputs--;
    break;
  }
  case TFS_NODE_EXIT:
    if (!t->dead)
      rc = activate(r, n, 0, f->parent, f->parent_it, out);
    else if (it->num == f->iteration_count)
      rc = vec_push(&f->dead_exits, n, NULL) ? oom(r) : 0;
    break;
  case TFS_NODE_NEXT_ITERATION:
    if (t->dead) break; /* the loop stops here */
    if (it->num == f->iteration_count &&
        f->num_outstanding_iterations == f->P) {
      rc = vec_push(&f->next_roots, n, tfs_tensor_ref(out[0])) ? oom(r) : 0;
    } else {
      cf_iter *next = it->num == f->iteration_count
                          ? increment_iteration(r, f)
                          : iter_at(f, it->num + 1);
      rc = next ? activate(r, n, 0, f, next, out) : -1;
    }
    break;
  default:
    rc = activate(r, n, t->dead, f, it, out);
    break;
  }
  if (rc) return -1;
  int done = decrement_outstanding(r, f, it);
  if (done < 0) return -1;
  return done ? frame_done(r, f) : 0;
}

/* ---- running one node ---------------------------------------------------- */

/* Runs node n's kernel on `in` (owned; entries a kernel forwards are
 * taken) into `out`.  The forwarding kinds pass their input on without a
 * kernel call.  0, or -1 with r->st set. */
static int run_kernel(cf_run *r, int32_t n, tfs_tensor **in,
                      tfs_tensor **out) {
  const tfs_plan_node *pn = &r->p->nodes[n];
  int ni = pn->ninputs, no = pn->noutputs, rc = -1, big = ni > MAX_STACK_IO;
  tfs_tensor *tmp_stack[MAX_STACK_IO], *arg_stack[MAX_STACK_IO];
  tfs_tensor **slot_stack[MAX_STACK_IO];
  tfs_tensor **temps = big ? tfs_calloc((size_t)ni, sizeof(void *))
                           : tmp_stack;
  tfs_tensor **args = big ? tfs_calloc((size_t)ni, sizeof(void *))
                          : arg_stack;
  tfs_tensor ***slots = big ? tfs_calloc((size_t)ni, sizeof(void *))
                            : slot_stack;
  uint64_t forwardable = 0;
  if (!temps || !args || !slots) {
    oom(r);
    goto out;
  }
  for (int k = 0; k < ni; k++) temps[k] = NULL;
  for (int k = 0; k < ni; k++) {
    slots[k] = &in[k];
    args[k] = in[k];
    if (in[k] && (pn->in_flags[k] & TFS_IN_DEREF)) {
      temps[k] = tfs_exec__deref(in[k], pn, pn->op->inputs[k], r->st);
      if (!temps[k]) goto out;
      args[k] = temps[k];
      slots[k] = NULL;
    } else if (k < 64 && in[k]) {
      forwardable |= 1ull << k;
    }
  }
  switch (pn->kind) {
  case TFS_NODE_ENTER:
  case TFS_NODE_EXIT:
  case TFS_NODE_NEXT_ITERATION:
  case TFS_NODE_LOOP_COND: /* forwarders: hand the input on */
    out[0] = temps[0] ? temps[0] : in[0];
    if (temps[0]) temps[0] = NULL;
    else in[0] = NULL;
    rc = 0;
    goto out;
  default:
    break;
  }
  tfs_kernel_ctx ctx = {
      .node_name = pn->name,
      .op_name = pn->op_name,
      .state = pn->kstate,
      .ninputs = ni,
      .inputs = args,
      .input_slots = slots,
      .forwardable = forwardable,
      .noutputs = no,
      .outputs = out,
      .out_types = pn->out_types,
      .run = &r->x->run,
      .st = r->st,
      .failed = 0,
      .node = n,
      .alloc_cursor = 0,
      .scratch_used = 0,
  };
  pn->kdef->compute(&ctx);
  if (ctx.failed) goto out;
  rc = 0;
  if (pn->kind == TFS_NODE_SWITCH) goto out; /* one output is dead */
  for (int k = 0; k < no && rc == 0; k++) {
    if (out[k]) continue;
    const tfs_cf_node *cn = &r->cf->nodes[n];
    int wanted = cn->fetched;
    for (int e = 0; e < cn->nedges; e++) wanted |= cn->edges[e].port == k;
    if (!wanted) continue;
    tfs_status_setf(r->st, TFS_INTERNAL,
                    "Kernel for %s did not produce output %d\n\t "
                    "[[{{node %s}}]]",
                    pn->op->def->name, k, pn->op->name);
    rc = -1;
  }
out:
  for (int k = 0; temps && k < ni; k++) tfs_tensor_free(temps[k]);
  if (big) {
    tfs_free(temps);
    tfs_free(args);
    tfs_free(slots);
  }
  return rc;
}

/* Keeps the fetched outputs of node n in their slots, where the run's
 * fetches are collected from.  A fetch inside a loop produced twice is
 * TensorFlow's call-frame error. */
static int capture(cf_run *r, int32_t n, tfs_tensor *const *out) {
  const tfs_plan *p = r->p;
  const tfs_plan_node *pn = &p->nodes[n];
  for (int k = 0; k < pn->noutputs; k++) {
    if (!out[k]) continue;
    int32_t slot = pn->out_slot + k;
    for (int i = 0; i < p->nfetches; i++) {
      if (p->fetch_slots[i] != slot) continue;
      tfs_tensor **s = &r->x->rs->slots[slot];
      if (*s) {
        tfs_status_setf(r->st, TFS_INTERNAL,
                        "Retval[%d] has already been set.",
                        r->cf->fetch_order[i]);
        return -1;
      }
      *s = tfs_tensor_ref(out[k]);
      break;
    }
  }
  return 0;
}

/* Step stats read a node's outputs from its slots: lend them. */
static void record(cf_run *r, int32_t n, tfs_tensor *const *out,
                   int64_t wall, int64_t t0) {
  const tfs_plan_node *pn = &r->p->nodes[n];
  tfs_tensor **slots = r->x->rs->slots + pn->out_slot;
  tfs_tensor *saved[MAX_STACK_IO];
  int no = pn->noutputs < MAX_STACK_IO ? pn->noutputs : MAX_STACK_IO;
  for (int k = 0; k < no; k++) {
    saved[k] = slots[k];
    slots[k] = out[k];
  }
  tfs_exec__record(r->x, n, wall, wall, t0, tfs_now_ns(), 0);
  for (int k = 0; k < no; k++) slots[k] = saved[k];
}

/* Runs (or, dead, skips) the node of task t and passes its outputs on. */
static int process(cf_run *r, const cf_task *t) {
  const tfs_plan_node *pn = &r->p->nodes[t->node];
  const tfs_cf_node *cn = &r->cf->nodes[t->node];
  int ni = pn->ninputs, no = pn->noutputs, rc = -1;
  tfs_tensor *in_stack[MAX_STACK_IO], *out_stack[MAX_STACK_IO];
  tfs_tensor **in = ni > MAX_STACK_IO
                        ? tfs_malloc(sizeof(void *) * (size_t)ni) : in_stack;
  tfs_tensor **out = no > MAX_STACK_IO
                         ? tfs_calloc((size_t)no, sizeof(void *)) : out_stack;
  if (!in || !out) {
    oom(r);
    goto done_alloc;
  }
  for (int k = 0; k < no; k++) out[k] = NULL;
  tfs_tensor **entries = t->it->inputs + cn->in_start;
  for (int k = 0; k < ni; k++) {
    int32_t slot = pn->in_slots[k];
    if (cn->fed_inputs && r->cf->slot_owner[slot] < 0) {
      in[k] = tfs_tensor_ref(r->x->rs->slots[slot]);
    } else {
      in[k] = entries[k];
      entries[k] = NULL;
    }
  }
  if (!t->dead) {
    int64_t wall = 0, t0 = 0;
    if (r->x->stats) {
      wall = tfs_now_wall_us() * 1000;
      t0 = tfs_now_ns();
    }
    if (run_kernel(r, t->node, in, out)) goto done;
    if (r->x->stats) record(r, t->node, out, wall, t0);
    if (cn->fetched && capture(r, t->node, out)) goto done;
  }
  rc = propagate(r, t, out);
done:
  for (int k = 0; k < ni; k++) tfs_tensor_free(in[k]);
  for (int k = 0; k < no; k++) tfs_tensor_free(out[k]);
done_alloc:
  if (in && in != in_stack) tfs_free(in);
  if (out && out != out_stack) tfs_free(out);
  return rc;
}

/* ---- a run --------------------------------------------------------------- */

/* A fetch no live value reached: DirectSession's error, naming the
 * fetch's place among the sorted fetch names. */
static int check_fetches(cf_run *r) {
  const tfs_plan *p = r->p;
  int first = -1;
  for (int i = 0; i < p->nfetches; i++) {
    if (r->x->rs->slots[p->fetch_slots[i]]) continue;
    if (first < 0 || r->cf->fetch_order[i] < r->cf->fetch_order[first])
      first = i;
  }
  if (first < 0) return 0;
  tfs_status_setf(r->st, TFS_INVALID_ARGUMENT,
                  "Retval[%d] does not have value",
                  r->cf->fetch_order[first]);
  return -1;
}

int tfs_cf__run(tfs_exec_run *x, tfs_status *st) {
  const tfs_plan *p = x->p;
  cf_run r = {.x = x, .p = p, .cf = p->exec->cf, .st = st};
  int rc = -1;
  r.free_iters = tfs_calloc((size_t)r.cf->nframes, sizeof(cf_iter *));
  cf_frame *root = r.free_iters ? frame_new(&r, 0, NULL, NULL) : NULL;
  if (!root) {
    oom(&r);
    goto done;
  }
  cf_iter *it0 = root->ring[0];
  for (int i = 0; i < p->nnodes; i++) {
    const tfs_cf_node *cn = &r.cf->nodes[i];
    if (cn->frame == 0 && it0->pending[cn->local] == 0 &&
        push(&r, i, 0, root, it0))
      goto done;
  }
  /* nothing to run: the root frame is done at once */
  if (r.qlen == 0 && frame_done(&r, root)) goto done;
  while (r.qlen) {
    if (tfs_exec__check_abort(x, st)) goto done;
    cf_task t = r.q[r.qhead];
    r.qhead = (r.qhead + 1) % r.qcap;
    r.qlen--;
    if (process(&r, &t)) goto done;
  }
  rc = check_fetches(&r);
done:
  while (r.frames) frame_free(&r, r.frames);
  for (int f = 0; r.free_iters && f < r.cf->nframes; f++) {
    while (r.free_iters[f]) {
      cf_iter *it = r.free_iters[f];
      r.free_iters[f] = it->next_free;
      tfs_free(it);
    }
  }
  tfs_free(r.free_iters);
  tfs_free(r.q);
  atomic_store(&g_peak_iters, r.peak_iters);
  if (tfs_log_enabled(TFS_LOG_DEBUG))
    tfs_log(TFS_LOG_DEBUG, "control flow run: at most %lld iteration "
            "states live", (long long)r.peak_iters);
  return rc;
}

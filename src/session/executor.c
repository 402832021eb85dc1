/*
 * session/executor.c - runs a plan.  Feeds go into their slots; nodes run
 * in plan order on the caller's thread (the fast path: straight loop, no
 * atomics, planned memory), or through the inter-op pool when the plan has
 * expensive nodes that can overlap (exec_parallel.c); each intermediate is
 * released after its last use; fetches come back as new references.
 */

/*
 * Cancellation (session close) and timeouts end a run with TensorFlow's
 * errors and leak nothing.  Run states (slot arrays) are pooled per plan.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "core/status.h"
#include "placeholder/placeholder.h"
#include "session/exec.h"
#include "session/plan_place.h"

#define MAX_STACK_IO 16

/* Use counts are copied from the plan's int32 array. */
_Static_assert(sizeof(atomic_int) == sizeof(int32_t), "atomic_int size");

/* ---- plan-time facts -------------------------------------------------------- */

static int node_kind(const tfs_operation *op) {
  static const struct {
    const char *name;
    int kind;
  } k[] = {
      {"Switch", TFS_NODE_SWITCH},        {"RefSwitch", TFS_NODE_SWITCH},
      {"Merge", TFS_NODE_MERGE},          {"RefMerge", TFS_NODE_MERGE},
      {"Enter", TFS_NODE_ENTER},          {"RefEnter", TFS_NODE_ENTER},
      {"Exit", TFS_NODE_EXIT},            {"RefExit", TFS_NODE_EXIT},
      {"NextIteration", TFS_NODE_NEXT_ITERATION},
      {"RefNextIteration", TFS_NODE_NEXT_ITERATION},
      {"LoopCond", TFS_NODE_LOOP_COND},
      {"ControlTrigger", TFS_NODE_CONTROL_TRIGGER},
  };
  for (size_t i = 0; i < TFS_ARRAY_LEN(k); i++)
    if (strcmp(op->def->name, k[i].name) == 0) return k[i].kind;
  return TFS_NODE_PLAIN;
}

/* Whether two expensive nodes can run at the same time: give each
 * expensive node its depth (expensive nodes on the longest path ending at
 * it); if all depths differ, the expensive nodes form one chain. */
static int expensive_overlap(const tfs_plan *p) {
  int n = p->nnodes, found = 0;
  int *depth = tfs_calloc((size_t)n + 1, sizeof(int));
  uint8_t *seen = tfs_calloc((size_t)n + 2, 1);
  if (!depth || !seen) {
    tfs_free(depth);
    tfs_free(seen);
    return 1;
  }
  for (int i = 0; i < n && !found; i++) {
    const tfs_plan_node *pn = &p->nodes[i];
    int d = depth[i] + (pn->expensive ? 1 : 0);
    if (pn->expensive) {
      if (d <= n && seen[d]) found = 1;
      if (d <= n) seen[d] = 1;
    }
    for (int k = 0; k < pn->nsucc; k++)
      if (depth[pn->succ[k]] < d) depth[pn->succ[k]] = d;
  }
  tfs_free(depth);
  tfs_free(seen);
  return found;
}

tfs_plan_exec *tfs_exec__prepare(tfs_plan *p, tfs_status *st) {
  tfs_plan_exec *e = tfs_calloc(1, sizeof(*e));
  if (!e) goto oom;
  pthread_mutex_init(&e->mp_mu, NULL);
  p->exec = e;
  e->roots = tfs_malloc(sizeof(int32_t) * (size_t)(p->nnodes + 1));
  e->feed_dtypes = tfs_malloc(sizeof(tfs_dtype) * (size_t)(p->nfeeds + 1));
  e->feed_declared =
      tfs_calloc((size_t)p->nfeeds + 1, sizeof(const tfs_shape *));
  if (!e->roots || !e->feed_dtypes || !e->feed_declared) goto oom;
  for (int i = 0; i < p->nnodes; i++) {
    tfs_plan_node *pn = &p->nodes[i];
    pn->name = pn->op->name;
    pn->op_name = pn->op->def->name;
    pn->out_types = pn->op->out_types;
    pn->kind = (uint8_t)node_kind(pn->op);
    /* without a Switch nothing is dead: a ControlTrigger is a NoOp */
    if (pn->kind != TFS_NODE_PLAIN && pn->kind != TFS_NODE_CONTROL_TRIGGER)
      e->control_flow = 1;
    if (pn->npending == 0) e->roots[e->nroots++] = i;
    if (pn->kdef && (pn->kdef->flags & TFS_KERNEL_BLOCKING)) e->blocking = 1;
  }
  for (int i = 0; i < p->nfeeds; i++) {
    const tfs_operation *op = p->feeds[i].oper;
    e->feed_dtypes[i] = tfs_dtype_base(op->out_types[p->feeds[i].index]);
    e->feed_declared[i] = tfs_placeholder__declared_shape(op);
  }
  /* a kernel that may wait for another run stays on the caller's thread */
  e->overlap = e->blocking ? 0 : expensive_overlap(p);
  if (e->control_flow) { /* exec_cf.c: one thread, no memory plans */
    e->overlap = 0;
    e->memplan_off = 1;
    e->cf = tfs_cf__prepare(p, st);
    if (!e->cf) return NULL;
  }
  return e;
oom:
  TFS_OOM(st);
  return NULL;
}

static void state_free(tfs_run_state *rs) {
  if (!rs) return;
  tfs_arena__free(rs->arena);
  tfs_free(rs);
}

void tfs_exec__free(tfs_plan *p) {
  tfs_plan_exec *e = p->exec;
  if (!e) return;
  for (int i = 0; i < TFS_RUN_STATE_CACHE; i++)
    state_free(atomic_load(&e->states[i]));
  tfs_mem__free_plans(e);
  tfs_cf__free(e->cf);
  pthread_mutex_destroy(&e->mp_mu);
  tfs_free(e->roots);
  tfs_free(e->feed_dtypes);
  tfs_free(e->feed_declared);
  tfs_free(e);
  p->exec = NULL;
}

/* ---- run states: one allocation per concurrent run, then reused ------------- */

tfs_run_state *tfs_exec__take_state(tfs_plan *p) {
  tfs_plan_exec *e = p->exec;
  for (int i = 0; i < TFS_RUN_STATE_CACHE; i++) {
    if (!atomic_load_explicit(&e->states[i], memory_order_relaxed)) continue;
    tfs_run_state *rs = atomic_exchange_explicit(&e->states[i], NULL,
                                                 memory_order_acquire);
    if (rs) return rs;
  }
  size_t ns = (size_t)p->nslots + 1, nn = (size_t)p->nnodes + 1;
  size_t off_slots = (sizeof(tfs_run_state) + 63) & ~(size_t)63;
  size_t off_uses = off_slots + ns * sizeof(tfs_tensor *);
  size_t off_pend = off_uses + ns * sizeof(atomic_int);
  size_t off_tasks = (off_pend + nn * sizeof(atomic_int) + 63) & ~(size_t)63;
  size_t total = off_tasks + nn * sizeof(tfs_node_task);
  char *mem = tfs_calloc(1, total);
  if (!mem) return NULL;
  tfs_run_state *rs = (tfs_run_state *)mem;
  rs->slots = (tfs_tensor **)(mem + off_slots);
  rs->uses = (atomic_int *)(mem + off_uses);
  rs->pending = (atomic_int *)(mem + off_pend);
  rs->tasks = (tfs_node_task *)(mem + off_tasks);
  return rs;
}

void tfs_exec__give_state(tfs_plan *p, tfs_run_state *rs) {
  tfs_plan_exec *e = p->exec;
  for (int i = 0; i < TFS_RUN_STATE_CACHE; i++) {
    tfs_run_state *expect = NULL;
    if (atomic_compare_exchange_strong_explicit(&e->states[i], &expect, rs,
                                                memory_order_release,
                                                memory_order_relaxed))
      return;
  }
  state_free(rs);
}

/* ---- one node ----------------------------------------------------------------- */

static inline void release_slot(tfs_run_state *rs, int32_t slot,
                                 int parallel) {
  atomic_int *u = &rs->uses[slot];
  int left;
  if (parallel) {
    left = atomic_fetch_sub_explicit(u, 1, memory_order_acq_rel) - 1;
  } else {
    left = atomic_load_explicit(u, memory_order_relaxed) - 1;
    atomic_store_explicit(u, left, memory_order_relaxed);
  }
  if (left == 0) {
    tfs_tensor *t = rs->slots[slot];
    rs->slots[slot] = NULL;
    tfs_tensor_free(t);
  }
}

void tfs_exec__skip_node(tfs_exec_run *x, int i, int parallel) {
  const tfs_plan_node *pn = &x->p->nodes[i];
  for (int k = 0; k < pn->ninputs; k++)
    release_slot(x->rs, pn->in_slots[k], parallel);
}

int tfs_exec__run_node(tfs_exec_run *x, int i, int parallel, tfs_status *st) {
  const tfs_plan_node *pn = &x->p->nodes[i];
  tfs_run_state *rs = x->rs;
  tfs_tensor **slots = rs->slots;
  tfs_tensor *in_stack[MAX_STACK_IO], *out_stack[MAX_STACK_IO];
  tfs_tensor **in_slot_stack[MAX_STACK_IO];
  tfs_tensor *tmp_stack[MAX_STACK_IO];
  int ni = pn->ninputs, no = pn->noutputs;
  int big_in = ni > MAX_STACK_IO, big_out = no > MAX_STACK_IO;
  tfs_tensor **inputs =
      big_in ? tfs_malloc(sizeof(void *) * (size_t)ni) : in_stack;
  tfs_tensor ***in_slots =
      big_in ? tfs_malloc(sizeof(void *) * (size_t)ni) : in_slot_stack;
  tfs_tensor **temps =
      big_in ? tfs_calloc((size_t)ni, sizeof(void *)) : tmp_stack;
  tfs_tensor **outputs =
      big_out ? tfs_malloc(sizeof(void *) * (size_t)no) : out_stack;
  int rc = -1;
  if (!inputs || !in_slots || !temps || !outputs) {
    TFS_OOM(st);
    goto out;
  }
  for (int k = 0; k < no; k++) outputs[k] = NULL;
  uint64_t forwardable = 0;
  for (int k = 0; k < ni; k++) {
    int32_t s = pn->in_slots[k];
    tfs_tensor *t = slots[s];
    in_slots[k] = NULL;
    temps[k] = NULL;
    if (TFS_UNLIKELY(pn->in_flags[k] & TFS_IN_DEREF)) {
      temps[k] = tfs_exec__deref(t, pn, pn->op->inputs[k], st);
      if (!temps[k]) {
        for (int q = 0; q < k; q++) tfs_tensor_free(temps[q]);
        goto out;
      }
      t = temps[k];
    } else {
      in_slots[k] = &slots[s];
      /* Only reader left: the kernel may take the buffer. */
      if (k < 64 &&
          atomic_load_explicit(&rs->uses[s], memory_order_acquire) == 1)
        forwardable |= 1ull << k;
    }
    inputs[k] = t;
  }
  tfs_kernel_ctx ctx = {
      .node_name = pn->name,
      .op_name = pn->op_name,
      .state = pn->kstate,
      .ninputs = ni,
      .inputs = inputs,
      .input_slots = in_slots,
      .forwardable = forwardable,
      .noutputs = no,
      .outputs = outputs,
      .out_types = pn->out_types,
      .run = &x->run,
      .st = st,
      .failed = 0,
      .node = i,
      .alloc_cursor = 0,
      .scratch_used = 0,
  };
  pn->kdef->compute(&ctx);
  for (int k = 0; k < ni; k++) tfs_tensor_free(temps[k]);
  if (ctx.failed) {
    for (int k = 0; k < no; k++) tfs_tensor_free(outputs[k]);
    goto out;
  }
  for (int k = 0; k < no; k++) {
    int32_t s = pn->out_slot + k;
    int wanted = atomic_load_explicit(&rs->uses[s], memory_order_relaxed) > 0;
    if (!outputs[k] && wanted) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "Kernel for %s did not produce output %d\n\t "
                      "[[{{node %s}}]]",
                      pn->op->def->name, k, pn->op->name);
      for (int q = k; q < no; q++) tfs_tensor_free(outputs[q]);
      goto out;
    }
    if (wanted)
      slots[s] = outputs[k];
    else
      tfs_tensor_free(outputs[k]);
  }
  for (int k = 0; k < ni; k++) release_slot(rs, pn->in_slots[k], parallel);
  rc = 0;
out:
  if (big_in) {
    tfs_free(inputs);
    tfs_free(in_slots);
    tfs_free(temps);
  }
  if (big_out) tfs_free(outputs);
  return rc;
}

/* ---- step stats ----------------------------------------------------------------- */

void tfs_exec__record(tfs_exec_run *x, int i, int64_t ready_wall_ns,
                      int64_t start_wall_ns, int64_t start, int64_t end,
                      int parallel) {
  const tfs_plan_node *pn = &x->p->nodes[i];
  tfs_step_stats *stats = x->stats;
  tfs_node_output_stats *outs =
      tfs_calloc((size_t)(pn->noutputs + 1), sizeof(tfs_node_output_stats));
  int nouts = 0;
  for (int k = 0; outs && k < pn->noutputs; k++) {
    const tfs_tensor *t = x->rs->slots[pn->out_slot + k];
    if (!t || tfs_dtype_is_ref(t->dtype)) continue;
    tfs_node_output_stats *o = &outs[nouts++];
    o->slot = k;
    o->dtype = t->dtype;
    o->shape = t->shape;
    o->bytes = (int64_t)t->nbytes;
    o->ptr = (uint64_t)(uintptr_t)t->data;
  }
  if (parallel) pthread_mutex_lock(&x->stats_mu);
  size_t cap = (size_t)stats->cap;
  if (!outs || tfs_grow((void **)&stats->nodes, &cap, (size_t)stats->n + 1,
                        sizeof(tfs_node_stats))) {
    stats->oom = 1;
    if (parallel) pthread_mutex_unlock(&x->stats_mu);
    tfs_free(outs);
    return;
  }
  stats->cap = (int)cap;
  tfs_node_stats *ns = &stats->nodes[stats->n++];
  memset(ns, 0, sizeof(*ns));
  ns->node_name = pn->op->name;
  ns->op_type = pn->op->def->name;
  ns->op = pn->op;
  ns->device = pn->device ? pn->device->name : NULL;
  ns->all_start_nanos = start_wall_ns;
  ns->scheduled_nanos = ready_wall_ns;
  ns->op_start_rel_nanos = 0;
  ns->op_end_rel_nanos = end - start;
  ns->all_end_rel_nanos = end - start;
  ns->thread_id = tfs_thread_id();
  ns->noutputs = nouts;
  ns->outputs = outs;
  if (parallel) pthread_mutex_unlock(&x->stats_mu);
}

/* ---- cancellation and timeouts ---------------------------------------------------- */

int tfs_exec__check_abort(tfs_exec_run *x, tfs_status *st) {
  if (TFS_UNLIKELY(atomic_load_explicit(&x->s->exec->closing,
                                        memory_order_relaxed))) {
    tfs_status_set(st, TFS_CANCELLED, "Run call was cancelled");
    return -1;
  }
  if (x->deadline_ns && tfs_now_ns() >= x->deadline_ns) {
    tfs_status_set(st, TFS_DEADLINE_EXCEEDED,
                   "Timed out waiting for notification");
    return -1;
  }
  return 0;
}

/* tfs_run's check_abort: the run's deadline and the session's close. */
static int run_check_abort(tfs_run *run, tfs_status *st) {
  return tfs_exec__check_abort(run->exec, st);
}

/* ---- a run ------------------------------------------------------------------------ */

static int check_feeds(const tfs_plan *p, tfs_tensor *const *feeds,
                       tfs_status *st) {
  const tfs_plan_exec *e = p->exec;
  for (int i = 0; i < p->nfeeds; i++) {
    const tfs_tensor *t = feeds[i];
    if (TFS_LIKELY(t && t->dtype == e->feed_dtypes[i] &&
                   (!e->feed_declared[i] ||
                    tfs_shape_is_compatible(e->feed_declared[i], &t->shape))))
      continue;
    if (tfs_placeholder__validate_feed(p->feeds[i], t, i, st)) return -1;
  }
  return 0;
}

static int run_sequential(tfs_exec_run *x, tfs_status *st) {
  const tfs_plan *p = x->p;
  int mem = x->trace || x->mp;
  for (int i = 0; i < p->nnodes; i++) {
    if (tfs_exec__check_abort(x, st)) return -1;
    if (!x->stats) {
      if (tfs_exec__run_node(x, i, 0, st)) return -1;
    } else {
      int64_t wall = tfs_now_wall_us() * 1000, t0 = tfs_now_ns();
      if (tfs_exec__run_node(x, i, 0, st)) return -1;
      tfs_exec__record(x, i, wall, wall, t0, tfs_now_ns(), 0);
    }
    if (mem) tfs_mem__after_node(x, i);
  }
  return 0;
}

static int collect_fetches(tfs_exec_run *x, tfs_tensor **fetch_values,
                           tfs_status *st) {
  const tfs_plan *p = x->p;
  for (int i = 0; i < p->nfetches; i++) {
    tfs_tensor *t = x->rs->slots[p->fetch_slots[i]];
    tfs_tensor *val;
    if (p->fetch_deref[i]) {
      tfs_variable *v = tfs_tensor__ref_target(t);
      val = v ? tfs_variable_read(v) : tfs_tensor_ref(t);
      if (!val) {
        tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                        "Attempting to use uninitialized value %s\n\t "
                        "[[{{node %s}}]]",
                        p->fetches[i].oper->name, p->fetches[i].oper->name);
        return -1;
      }
    } else {
      if (x->trace) tfs_mem__fetched(x, t);
      val = tfs_tensor__retainable(t, st);
      if (!val) return -1;
    }
    fetch_values[i] = val;
  }
  return 0;
}

/* The run's deadline on the monotonic clock, 0 for none.  Timeouts come
 * from RunOptions and ConfigProto as any int64: one whose deadline lies
 * beyond INT64_MAX nanoseconds (about 292 years of uptime) is no
 * practical deadline, not one that wrapped into the past. */
static int64_t deadline_of(const tfs_session *s, const tfs_run_options *ro) {
  int64_t ms = ro && ro->timeout_in_ms > 0 ? ro->timeout_in_ms
                                           : s->exec->operation_timeout_ms;
  int64_t ns, deadline;
  if (ms <= 0 || tfs_mul_overflow_i64(ms, 1000000, &ns) ||
      tfs_add_overflow_i64(tfs_now_ns(), ns, &deadline))
    return 0;
  return deadline;
}

static void plan_run(tfs_session *s, tfs_plan *p, const tfs_run_options *ro,
                     tfs_tensor *const *feed_values, tfs_tensor **taken,
                     tfs_tensor **fetch_values, tfs_step_stats *stats,
                     tfs_status *st) {
  for (int i = 0; i < p->nfetches; i++) fetch_values[i] = NULL;
  tfs_session_exec *sx = s->exec;
  int pool_index = ro ? ro->inter_op_thread_pool : 0;
  if (pool_index < -1 || pool_index >= sx->npools) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Invalid inter_op_thread_pool: %d", pool_index);
    return;
  }
  if (check_feeds(p, feed_values, st)) return;
  tfs_run_state *rs = tfs_exec__take_state(p);
  if (!rs) {
    TFS_OOM(st);
    return;
  }
  tfs_exec_run x;
  x.s = s;
  x.p = p;
  x.rs = rs;
  x.stats = stats;
  x.trace = NULL;
  x.mp = NULL;
  x.deviated = 0;
  x.deadline_ns = deadline_of(s, ro);
  x.st = st;
  x.run = (tfs_run){
      .resources = s->resources,
      .intra_pool = sx->intra,
      .log = NULL,
      .step_id = atomic_fetch_add(&s->next_step, 1),
      .alloc = NULL,
      .exec = &x,
      .limits = s->limits.any_run_limit ? &s->limits.run : NULL,
      .fnrt = &s->fnrt,
      .check_abort = run_check_abort,
      .deadline_ns = x.deadline_ns,
  };
  memcpy(rs->uses, p->slot_uses, sizeof(int32_t) * (size_t)p->nslots);
  /* taken: the slots get the caller's references (the entries are
   * cleared once the memory plan has read the feeds' shapes) */
  for (int i = 0; i < p->nfeeds; i++)
    rs->slots[p->feed_slots[i]] =
        taken ? taken[i] : tfs_tensor_ref(feed_values[i]);
  /* -1: the caller's thread (RunOptions.inter_op_thread_pool) */
  tfs_threadpool *pool = pool_index >= 0 ? sx->pools[pool_index] : NULL;
  int parallel = pool && p->exec->overlap && sx->overlap;
  int ok, sequential = !parallel && !p->exec->control_flow;
  if (sequential) tfs_mem__begin(&x, feed_values);
  for (int i = 0; taken && i < p->nfeeds; i++) taken[i] = NULL;
  if (parallel) {
    tfs_exec__run_parallel(&x, pool);
    ok = tfs_status_ok(st);
  } else if (TFS_UNLIKELY(p->exec->control_flow)) {
    ok = tfs_cf__run(&x, st) == 0; /* exec_cf.c */
  } else {
    ok = run_sequential(&x, st) == 0;
  }
  if (ok) ok = collect_fetches(&x, fetch_values, st) == 0;
  if (ok && TFS_UNLIKELY(p->devices != NULL)) /* sync_on_finish */
    ok = tfs_plan__sync_devices(p, st) == 0;
  for (int i = 0; i < p->nslots; i++) {
    tfs_tensor_free(rs->slots[i]);
    rs->slots[i] = NULL;
  }
  /* the step's resources (TensorArrays) end with it, as TensorFlow's */
  tfs_step_container_free(atomic_load(&x.run.step));
  if (!parallel) tfs_mem__end(&x, ok);
  tfs_exec__give_state(p, rs);
  if (!ok) {
    for (int i = 0; i < p->nfetches; i++) {
      tfs_tensor_free(fetch_values[i]);
      fetch_values[i] = NULL;
    }
    return;
  }
  tfs_status_clear(st);
}

void tfs_plan__run(tfs_session *s, tfs_plan *p, const tfs_run_options *ro,
                   tfs_tensor *const *feed_values, tfs_tensor **fetch_values,
                   tfs_step_stats *stats, tfs_status *st) {
  plan_run(s, p, ro, feed_values, NULL, fetch_values, stats, st);
}

void tfs_plan__run_taking(tfs_session *s, tfs_plan *p,
                          const tfs_run_options *ro, tfs_tensor **feed_values,
                          tfs_tensor **fetch_values, tfs_status *st) {
  plan_run(s, p, ro, feed_values, feed_values, fetch_values, NULL, st);
}

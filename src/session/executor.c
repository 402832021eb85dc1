/*
 * session/executor.c - runs a plan: feeds into their slots, nodes in order,
 * each intermediate released after its last use, fetches handed back as
 * new references.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "placeholder/placeholder.h"
#include "session/session_internal.h"

#define MAX_STACK_IO 16

/* Reads the variable behind a ref slot value.  NULL with an error when
 * it is uninitialised. */
static tfs_tensor *deref(const tfs_tensor *t, const tfs_plan_node *pn,
                         tfs_output src, tfs_status *st) {
  tfs_variable *v = tfs_tensor__ref_target(t);
  if (!v) return tfs_tensor_ref((tfs_tensor *)t); /* a fed plain value */
  tfs_tensor *val = tfs_variable_read(v);
  if (!val) {
    if (src.index)
      tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                      "Attempting to use uninitialized value %s:%d\n\t "
                      "[[{{node %s}}]]",
                      src.oper->name, src.index, pn->op->name);
    else
      tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                      "Attempting to use uninitialized value %s\n\t "
                      "[[{{node %s}}]]",
                      src.oper->name, pn->op->name);
  }
  return val;
}

static void release_slot(tfs_tensor **slots, int32_t *uses, int32_t slot) {
  if (--uses[slot] == 0) {
    tfs_tensor_free(slots[slot]);
    slots[slot] = NULL;
  }
}

/* Runs one node.  Returns 0 or -1 with st set. */
static int run_node(tfs_run *run, const tfs_plan_node *pn,
                    tfs_tensor **slots, int32_t *uses, tfs_status *st) {
  tfs_tensor *in_stack[MAX_STACK_IO], *out_stack[MAX_STACK_IO];
  tfs_tensor **in_slot_stack[MAX_STACK_IO];
  tfs_tensor *tmp_stack[MAX_STACK_IO];
  int ni = pn->ninputs, no = pn->noutputs;
  tfs_tensor **inputs = ni <= MAX_STACK_IO ? in_stack
                                           : tfs_malloc(sizeof(void *) * (size_t)ni);
  tfs_tensor ***in_slots = ni <= MAX_STACK_IO
                               ? in_slot_stack
                               : tfs_malloc(sizeof(void *) * (size_t)ni);
  tfs_tensor **temps = ni <= MAX_STACK_IO ? tmp_stack
                                          : tfs_malloc(sizeof(void *) * (size_t)ni);
  tfs_tensor **outputs = no <= MAX_STACK_IO
                             ? out_stack
                             : tfs_malloc(sizeof(void *) * (size_t)no);
  int rc = -1;
  if (!inputs || !in_slots || !temps || !outputs) {
    TFS_OOM(st);
    goto out;
  }
  memset(outputs, 0, sizeof(void *) * (size_t)no);
  memset(temps, 0, sizeof(void *) * (size_t)ni);
  uint64_t forwardable = 0;
  for (int i = 0; i < ni; i++) {
    int32_t s = pn->in_slots[i];
    tfs_tensor *t = slots[s];
    in_slots[i] = NULL;
    if (pn->in_flags[i] & TFS_IN_DEREF) {
      temps[i] = deref(t, pn, pn->op->inputs[i], st);
      if (!temps[i]) {
        for (int k = 0; k < i; k++) tfs_tensor_free(temps[k]);
        goto out;
      }
      t = temps[i];
    } else {
      in_slots[i] = &slots[s];
      if (uses[s] == 1 && i < 64) forwardable |= 1ull << i;
    }
    inputs[i] = t;
  }
  tfs_kernel_ctx ctx = {
      .node_name = pn->op->name,
      .op_name = pn->op->def->name,
      .state = pn->kstate,
      .ninputs = ni,
      .inputs = inputs,
      .input_slots = in_slots,
      .forwardable = forwardable,
      .noutputs = no,
      .outputs = outputs,
      .out_types = pn->op->out_types,
      .run = run,
      .st = st,
      .failed = 0,
  };
  pn->kdef->compute(&ctx);
  for (int i = 0; i < ni; i++) tfs_tensor_free(temps[i]);
  if (ctx.failed) {
    for (int i = 0; i < no; i++) tfs_tensor_free(outputs[i]);
    goto out;
  }
  for (int i = 0; i < no; i++) {
    int32_t s = pn->out_slot + i;
    if (!outputs[i] && uses[s] > 0) {
      tfs_status_setf(st, TFS_INTERNAL,
                      "Kernel for %s did not produce output %d\n\t "
                      "[[{{node %s}}]]",
                      pn->op->def->name, i, pn->op->name);
      for (int k = i; k < no; k++) tfs_tensor_free(outputs[k]);
      goto out;
    }
    if (uses[s] > 0)
      slots[s] = outputs[i];
    else
      tfs_tensor_free(outputs[i]);
  }
  for (int i = 0; i < ni; i++) release_slot(slots, uses, pn->in_slots[i]);
  rc = 0;
out:
  if (inputs != in_stack) tfs_free(inputs);
  if (in_slots != in_slot_stack) tfs_free(in_slots);
  if (temps != tmp_stack) tfs_free(temps);
  if (outputs != out_stack) tfs_free(outputs);
  return rc;
}

/* Appends one node's record to `stats`. */
static void record(tfs_step_stats *stats, const tfs_plan_node *pn,
                   tfs_tensor *const *slots, int64_t start_wall,
                   int64_t start, int64_t end) {
  size_t cap = (size_t)stats->cap;
  if (tfs_grow((void **)&stats->nodes, &cap, (size_t)stats->n + 1,
               sizeof(tfs_node_stats)))
    return;
  stats->cap = (int)cap;
  tfs_node_stats *ns = &stats->nodes[stats->n++];
  memset(ns, 0, sizeof(*ns));
  ns->node_name = pn->op->name;
  ns->op_type = pn->op->def->name;
  ns->all_start_nanos = start_wall;
  ns->scheduled_nanos = start_wall;
  ns->op_start_rel_nanos = 0;
  ns->op_end_rel_nanos = end - start;
  ns->all_end_rel_nanos = end - start;
  ns->outputs = tfs_calloc((size_t)(pn->noutputs + 1),
                           sizeof(tfs_node_output_stats));
  if (!ns->outputs) return;
  for (int i = 0; i < pn->noutputs; i++) {
    const tfs_tensor *t = slots[pn->out_slot + i];
    if (!t || tfs_dtype_is_ref(t->dtype)) continue;
    tfs_node_output_stats *o = &ns->outputs[ns->noutputs++];
    o->slot = i;
    o->dtype = t->dtype;
    o->shape = t->shape;
    o->bytes = (int64_t)t->nbytes;
  }
}

void tfs_plan__run(tfs_session *s, tfs_plan *p, const tfs_run_options *ro,
                   tfs_tensor *const *feed_values, tfs_tensor **fetch_values,
                   tfs_step_stats *stats, tfs_status *st) {
  (void)ro;
  for (int i = 0; i < p->nfeeds; i++)
    if (tfs_placeholder__validate_feed(p->feeds[i], feed_values[i], i, st))
      return;
  tfs_tensor **slots = tfs_calloc((size_t)(p->nslots + 1), sizeof(void *));
  int32_t *uses = tfs_malloc(sizeof(int32_t) * (size_t)(p->nslots + 1));
  if (!slots || !uses) {
    tfs_free(slots);
    tfs_free(uses);
    TFS_OOM(st);
    return;
  }
  memcpy(uses, p->slot_uses, sizeof(int32_t) * (size_t)p->nslots);
  for (int i = 0; i < p->nfeeds; i++)
    slots[p->feed_slots[i]] = tfs_tensor_ref(feed_values[i]);
  tfs_run run = {
      .resources = s->resources,
      .intra_pool = NULL,
      .log = NULL,
      .step_id = atomic_fetch_add(&s->next_step, 1),
  };
  int ok = 1;
  for (int i = 0; i < p->nnodes && ok; i++) {
    if (!stats) {
      ok = run_node(&run, &p->nodes[i], slots, uses, st) == 0;
      continue;
    }
    int64_t wall = tfs_now_wall_us() * 1000, t0 = tfs_now_ns();
    ok = run_node(&run, &p->nodes[i], slots, uses, st) == 0;
    if (ok) record(stats, &p->nodes[i], slots, wall, t0, tfs_now_ns());
  }
  for (int i = 0; ok && i < p->nfetches; i++) {
    tfs_tensor *t = slots[p->fetch_slots[i]];
    tfs_tensor *val;
    if (p->fetch_deref[i]) {
      tfs_variable *v = tfs_tensor__ref_target(t);
      val = v ? tfs_variable_read(v) : tfs_tensor_ref(t);
      if (!val) {
        tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                        "Attempting to use uninitialized value %s\n\t "
                        "[[{{node %s}}]]",
                        p->fetches[i].oper->name, p->fetches[i].oper->name);
        ok = 0;
        break;
      }
    } else {
      val = tfs_tensor__retainable(t, st);
      if (!val) {
        ok = 0;
        break;
      }
    }
    fetch_values[i] = val;
  }
  for (int i = 0; i < p->nslots; i++) tfs_tensor_free(slots[i]);
  tfs_free(slots);
  tfs_free(uses);
  if (!ok) {
    for (int i = 0; i < p->nfetches; i++) {
      tfs_tensor_free(fetch_values[i]);
      fetch_values[i] = NULL;
    }
    return;
  }
  tfs_status_clear(st);
}

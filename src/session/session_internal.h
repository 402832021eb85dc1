/*
 * session/session_internal.h - the session, its options and its plans.
 *
 * A plan is what one (feeds, fetches, targets) signature runs: the pruned
 * nodes in execution order, each with its kernel and prepared state, input
 * slot indices, output slots, consumer counts (for releasing intermediates
 * after their last use), pending counts and successors (for a parallel
 * executor).  Slots hold tensor references during a run.
 */
#ifndef TFS_SESSION_SESSION_INTERNAL_H
#define TFS_SESSION_SESSION_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "config_proto/config.h"
#include "core/hashmap.h"
#include "core/resource_mgr.h"
#include "graph_builder/graph_internal.h"
#include "kernels/kernel.h"
#include "session/step_stats.h"
#include "tfsess/session.h"

/* Everything ConfigProto holds (threads, placement, timeouts, GPU, graph
 * and rewriter options): config.intra_op_parallelism_threads,
 * config.allow_soft_placement, ...  The session keeps a deep copy. */
struct tfs_session_options {
  tfs_config config;
};

enum {
  TFS_IN_DEREF = 1u << 0 /* read a ref edge's variable value */
};

/* What the executor must do besides running a node's kernel.  Room for
 * TF1 control flow (CONTROL_FLOW_CHECKPOINTS.md): a plan without these
 * kinds runs on the plain executor and pays nothing for them (a dead
 * value will be a sentinel in its slot, not a per-slot flag). */
enum {
  TFS_NODE_PLAIN = 0,
  TFS_NODE_SWITCH, TFS_NODE_MERGE, TFS_NODE_ENTER, TFS_NODE_EXIT,
  TFS_NODE_NEXT_ITERATION, TFS_NODE_LOOP_COND, TFS_NODE_CONTROL_TRIGGER
};

typedef struct tfs_plan_node {
  tfs_operation *op;
  const tfs_kernel_def *kdef;
  void *kstate;
  int ninputs;
  int32_t *in_slots;
  uint8_t *in_flags;
  int noutputs;
  int32_t out_slot;      /* outputs use out_slot .. out_slot+noutputs-1 */
  int npending;          /* distinct predecessors in the plan */
  int nsucc;
  int32_t *succ;         /* distinct successors (node indices) */
  uint8_t expensive;
  uint8_t kind;          /* TFS_NODE_* */
} tfs_plan_node;

typedef struct tfs_plan {
  atomic_int refs;
  void *key;             /* signature bytes (owned) */
  size_t keylen;
  int nnodes;
  tfs_plan_node *nodes;  /* execution order */
  int nslots;
  int32_t *slot_uses;    /* consumer inputs + fetches per slot */
  int nfeeds;
  tfs_output *feeds;
  int32_t *feed_slots;
  int nfetches;
  int32_t *fetch_slots;
  uint8_t *fetch_deref;
  tfs_output *fetches;
  struct tfs_plan_exec *exec; /* executor caches (session/exec.h) */
} tfs_plan;

struct tfs_session {
  tfs_graph *graph;
  tfs_session_options opts;
  pthread_mutex_t mu;
  pthread_cond_t idle;
  tfs_map plans;                /* guarded by: mu */
  tfs_resource_mgr *resources;  /* guarded by: mu (lifetime) */
  int closed;                   /* guarded by: mu */
  int active_runs;              /* guarded by: mu */
  atomic_llong next_step;
  struct tfs_session_exec *exec; /* pools, timeout, cancellation */
};

/* Builds the plan for a signature.  Caller holds s->graph->mu.  Errors are
 * TensorFlow's feed/fetch messages. */
tfs_plan *tfs_plan__build(tfs_session *s, const tfs_output *feeds,
                          int nfeeds, const tfs_output *fetches,
                          int nfetches, tfs_operation *const *targets,
                          int ntargets, tfs_status *st);
void tfs_plan__unref(tfs_plan *p);

/* Runs a plan once.  feed_values are validated against the plan's feeds
 * first.  `ro` may be NULL (defaults); when `stats` is not NULL every
 * node's timings and outputs are recorded into it. */
void tfs_plan__run(tfs_session *s, tfs_plan *p, const tfs_run_options *ro,
                   tfs_tensor *const *feed_values, tfs_tensor **fetch_values,
                   tfs_step_stats *stats, tfs_status *st);

#endif

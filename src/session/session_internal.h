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
#include "session/limits.h"
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

/* What the executor must do besides running a node's kernel: TF1 control
 * flow (CONTROL_FLOW_CHECKPOINTS.md).  A plan with any of these kinds but
 * ControlTrigger runs on the control-flow executor (exec_cf.c: dead
 * values, frames, iterations); a plan without them runs on the plain
 * executor and pays nothing for them. */
enum {
  TFS_NODE_PLAIN = 0,
  TFS_NODE_SWITCH, TFS_NODE_MERGE, TFS_NODE_ENTER, TFS_NODE_EXIT,
  TFS_NODE_NEXT_ITERATION, TFS_NODE_LOOP_COND, TFS_NODE_CONTROL_TRIGGER
};

typedef struct tfs_plan_node {
  tfs_operation *op;
  const tfs_kernel_def *kdef;
  void *kstate;
  /* op's name, its def's name and out_types, copied here when the plan
   * is complete (tfs_exec__prepare) so that running the node does not
   * chase op and op->def (cache misses each step of a loop whose
   * products stream through L2) */
  const char *name;
  const char *op_name;
  const tfs_dtype *out_types;
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
  struct tfs_device *device; /* NULL: CPU:0, and so in every node of a plan
                                whose nodes are all there (plan_place.h) */
  const tfs_operation *reader; /* a copy that reads a variable through a
                                  ref edge: the node it reads for (named
                                  in its errors); else NULL */
} tfs_plan_node;

/* The optimizer's rewrite a plan runs (plan_optimize.c). */
typedef struct tfs_plan_opt {
  tfs_graph *graph;        /* owned; NULL: the plan runs the session's graph */
  tfs_output *feeds;       /* the signature, found by name in `graph` */
  tfs_output *fetches;
  tfs_operation **targets;
} tfs_plan_opt;

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
  struct tfs_plan_devices *devices; /* NULL when every node is on CPU:0;
                                       else copies (plan_place.h) */
  tfs_plan_opt opt;      /* nodes[].op live in opt.graph when it is set;
                            feeds and fetches above are the caller's */
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
  struct tfs_device_set *devices; /* what plans place nodes on; fixed at
                                     creation (plan_place.h) */
  tfs_session_limits limits; /* resolved from opts at creation */
  /* function runtime (function_call.c): instances by call key */
  pthread_mutex_t fn_mu;
  tfs_map fn_instances;      /* guarded by: fn_mu */
  tfs_fn_runtime fnrt;       /* handed to kernels through tfs_run */
  int fn_depth;              /* 0; n for the body of an n-deep call */
  int no_optimizer;  /* set before the first plan: plans run the graph as
                        built (eager one-node plans: TensorFlow runs eager
                        ops without Grappler) */
};

/* The function runtime: init at creation, free at close (after the last
 * run).  function_call.c. */
void tfs_session__functions_init(tfs_session *s);
void tfs_session__functions_free(tfs_session *s);

/* How many function instances s holds; *with_consts (may be NULL):
 * how many of them have arguments made constants (resolve_consts).
 * Takes s->fn_mu.  For tests. */
int tfs_session__function_instances(tfs_session *s, int *with_consts);

/* Builds the plan for a signature.  Caller holds s->graph->mu (graph edits
 * wait) but not s->mu (runs of cached plans go on), and has marked itself
 * active (tfs_session__enter) so that a close waits for it.  Errors are
 * TensorFlow's feed/fetch messages. */
tfs_plan *tfs_plan__build(tfs_session *s, const tfs_output *feeds,
                          int nfeeds, const tfs_output *fetches,
                          int nfetches, tfs_operation *const *targets,
                          int ntargets, tfs_status *st);
void tfs_plan__unref(tfs_plan *p);

/* The plan cache's key of a signature: key_len int32 values, filled by
 * key_fill (feed, fetch and target ids and indexes, with the counts). */
size_t tfs_plan__key_len(int nfeeds, int nfetches, int ntargets);
void tfs_plan__key_fill(int32_t *key, const tfs_output *feeds, int nfeeds,
                        const tfs_output *fetches, int nfetches,
                        tfs_operation *const *targets, int ntargets);

/* Tests: fn(arg) runs at the start of every plan build in the process
 * (NULL: none).  Thread-safe. */
void tfs_plan__set_build_hook(void (*fn)(void *arg), void *arg);

/* Marks a run or a plan build active, so that tfs_session_close waits
 * for it; returns 0, or -1 with "Session has been closed." (CANCELLED).
 * tfs_session__leave ends it. */
int tfs_session__enter(tfs_session *s, tfs_status *st);
void tfs_session__leave(tfs_session *s);

/* The graph a plan for this signature is built from (plan_optimize.c):
 * unless s->no_optimizer, the optimizer rewrites what the signature needs
 * under the session's ConfigProto rewrite_options merged with the
 * process-wide options.  When it produced a graph, *po owns it and
 * *feeds, *fetches, *targets are replaced by the same names in it (arrays
 * owned by *po); otherwise *po is empty and the arguments are untouched.
 * `assigned` (by op id, may be NULL) holds the devices the signature's
 * nodes were placed on (tfs_plan__preplace): the optimizer sees a placed
 * graph, as Grappler does.  Returns 0, or -1 with st set only when a pass
 * failed under fail_on_optimizer_errors.  Caller holds s->graph->mu. */
int tfs_plan__optimize(tfs_session *s, const tfs_output **feeds, int nfeeds,
                       const tfs_output **fetches, int nfetches,
                       tfs_operation *const **targets, int ntargets,
                       const char *const *assigned, tfs_plan_opt *po,
                       tfs_status *st);
/* Frees what *po owns and empties it. */
void tfs_plan__opt_clear(tfs_plan_opt *po);

/* Runs a plan once.  feed_values are validated against the plan's feeds
 * first.  `ro` may be NULL (defaults); when `stats` is not NULL every
 * node's timings and outputs are recorded into it. */
void tfs_plan__run(tfs_session *s, tfs_plan *p, const tfs_run_options *ro,
                   tfs_tensor *const *feed_values, tfs_tensor **fetch_values,
                   tfs_step_stats *stats, tfs_status *st);
/* tfs_plan__run (no stats) that takes the references in feed_values
 * once the feeds are valid, setting the entries to NULL: a feed the run
 * then holds alone may be changed in place or reused by a kernel.  On an
 * error before that the entries are left to the caller. */
void tfs_plan__run_taking(tfs_session *s, tfs_plan *p,
                          const tfs_run_options *ro, tfs_tensor **feed_values,
                          tfs_tensor **fetch_values, tfs_status *st);

#endif

/*
 * compat_eager/eager_internal.h - contexts, values, op calls, the eager
 * one-node-plan cache and traced functions, shared by the files of the
 * compat_eager module.
 */
#ifndef TFS_COMPAT_EAGER_INTERNAL_H
#define TFS_COMPAT_EAGER_INTERNAL_H

#include <pthread.h>

#include "core/hashmap.h"
#include "graph_builder/graph_internal.h"
#include "session/session_internal.h"
#include "tfsess/eager.h"
#include "tfsess/function.h"
#include "tfsess/ops.h"

#include <stdio.h>

#define TFS_CPU_DEVICE "/job:localhost/replica:0/task:0/device:CPU:0"

struct tfs_value {
  tfs_ctx *ctx;
  int owned_by_ctx;       /* graph/tracing values: freed with the context */
  tfs_tensor *tensor;     /* eager */
  tfs_output out;         /* symbolic */
  tfs_value *next_owned;  /* ctx's list of owned values */
};

/* Tracing state of a function graph being built. */
typedef struct tfs_trace {
  tfs_ctx *eager;              /* the context the function runs on */
  int ncaptures, captures_cap;
  tfs_tensor **capture_values; /* resource handles fed at every call */
  tfs_output *capture_outputs; /* their placeholders in the trace graph */
  tfs_operation *last_stateful;/* orders side effects in program order */
} tfs_trace;

struct tfs_ctx {
  tfs_ctx_kind kind;
  tfs_graph *graph;            /* eager: private; graph: the user's;
                                  tracing: the function's */
  int owns_graph;
  tfs_session *session;        /* eager: runs the cached one-node plans */
  tfs_session_options opts;
  pthread_rwlock_t cache_lock; /* eager cache */
  tfs_map cache;               /* 16-byte fingerprint -> entry */
  tfs_map fast;                /* typed-op key -> tfs_eager_fast (below) */
  pthread_mutex_t build_mu;    /* eager: one cache miss built at a time */
  tfs_value *owned;            /* graph/tracing: values to free */
  tfs_trace *trace;            /* tracing only */
  int64_t next_var;            /* unique variable names (eager) */
};

/* One cached eager op: its one-node plan. */
typedef struct tfs_eager_entry {
  uint8_t key[16];
  tfs_plan *plan;
  int noutputs;
} tfs_eager_entry;

/* The typed-op fast path (tfs_unary/tfs_binary on eager values).  For
 * those calls the attrs follow from the op and the input dtypes (type
 * attrs inferred, the rest defaults) and the device is the default, so
 * the exact bytes of (op, input dtypes and shapes) identify the cached
 * one-node plan: a hit skips the attrs, the defaults and the
 * fingerprint.  The key is exact (compared, not hashed only). */
#define TFS_EAGER_FAST_MAX 160
typedef struct tfs_eager_fast {
  tfs_eager_entry *entry;      /* owned by ctx->cache */
  size_t len;
  unsigned char key[];
} tfs_eager_fast;

/* Writes the fast key of (def, inputs) into buf (TFS_EAGER_FAST_MAX
 * bytes); returns its length, or 0 when the call has no fast key. */
size_t tfs_eager__fast_key(const tfs_op_def *def, tfs_tensor *const *in,
                           int n, unsigned char *buf);
/* The entry for a fast key, or NULL. */
tfs_eager_entry *tfs_eager__fast_get(tfs_ctx *c, const unsigned char *key,
                                     size_t len);

/* Initialises a call on the stack (as tfs_op_call_new without the
 * lookup and the allocation); release with tfs_op_call__clear. */
void tfs_op_call__init(tfs_op_call *call, tfs_ctx *c, const tfs_op_def *def);
void tfs_op_call__clear(tfs_op_call *call);

struct tfs_op_call {
  tfs_ctx *ctx;
  const tfs_op_def *def;
  char *device;
  tfs_attrs attrs;
  tfs_value **inputs;          /* inline_inputs until it outgrows them */
  int ninputs, inputs_cap;
  int args_given;
  int defaults_filled;
  const unsigned char *fast_key; /* set by the typed-op fast path: */
  size_t fast_len;               /* register the entry under it */
  tfs_value *inline_inputs[6];
  /* The first failure of an attr setter, which return nothing (as
   * TFE_OpSetAttr* do): execute reports it.  attr_code TFS_OK: none. */
  tfs_code attr_code;
  char attr_error[192];
};

/* ---- values ---------------------------------------------------------- */

/* A value owned by the caller (eager) holding a new reference to t. */
tfs_value *tfs_eager__value(tfs_ctx *c, tfs_tensor *t, tfs_status *st);
/* The same, taking over the caller's reference to t (released on
 * failure too). */
tfs_value *tfs_eager__value_take(tfs_ctx *c, tfs_tensor *t, tfs_status *st);
/* A value owned by the context (graph/tracing) for output o. */
tfs_value *tfs_eager__symbolic(tfs_ctx *c, tfs_output o, tfs_status *st);

/* ---- execution ------------------------------------------------------- */

/* Eager execution through the one-node-plan cache.  `inputs` hold
 * tensors; the attrs are complete (defaults filled).  On a cache miss
 * `check` validates the call (and gives the output count) before the
 * one-node plan is built.  On entry *outputs is a caller's array of
 * TFS_EAGER_OUT_STACK entries; when the op has more outputs it is
 * replaced by a malloc'd array (the caller frees it when it differs from
 * its own).  It receives new tensor references, *noutputs their count. */
#define TFS_EAGER_OUT_STACK 8
int tfs_eager__execute(tfs_op_call *call, tfs_tensor **inputs,
                       int (*check)(tfs_op_call *call, tfs_status *st),
                       tfs_tensor ***outputs, int *noutputs, tfs_status *st);

/* Graph and tracing execution: adds the node; outputs are symbolic. */
int tfs_eager__add_node(tfs_op_call *call, tfs_value **outputs,
                        int noutputs, tfs_status *st);

/* Tracing: the graph output standing for value v (capturing values of the
 * eager context).  Returns {NULL,-1} with an error. */
tfs_output tfs_trace__input(tfs_ctx *c, tfs_value *v, tfs_status *st);

/* Runs a plan of a private session (for functions). */
void tfs_eager__run_plan(tfs_session *s, tfs_plan *p,
                         tfs_tensor *const *feeds, tfs_tensor **fetches,
                         tfs_status *st);

/* A session on g sharing the variables of `with` (the eager context's
 * session). */
tfs_session *tfs_eager__shared_session(tfs_graph *g, tfs_session *with,
                                       tfs_status *st);

/* Tracing contexts (function.c). */
tfs_ctx *tfs_trace__ctx_new(tfs_ctx *eager, tfs_status *st);

#endif

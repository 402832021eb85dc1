/*
 * tfsess/session.h - sessions: run a graph with feeds, fetches and
 * targets.
 *
 * Lifecycle: build a graph; create a session on it with options; call
 * tfs_session_run as often as needed (from several threads at once if you
 * like); tfs_session_close (optional) then tfs_session_free.  The session
 * keeps its graph alive: tfs_graph_free before tfs_session_free is fine.
 *
 * Each distinct (feeds, fetches, targets) signature is planned once: the
 * graph is pruned to what the fetches and targets need (a fed tensor cuts
 * the graph there), kernels are prepared and an order fixed; later runs
 * with the same signature reuse the plan.  Variables live in the session:
 * two sessions on one graph have separate values.
 *
 * Threads: tfs_session_run may be called concurrently on one session.
 * Other functions take the session from one thread at a time.
 */
#ifndef TFSESS_SESSION_H
#define TFSESS_SESSION_H

#include <stdint.h>

#include "buffer.h"
#include "common.h"
#include "graph.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

typedef struct tfs_session_options tfs_session_options;
typedef struct tfs_session tfs_session;

/* ---- options ------------------------------------------------------------- */

/* Returns new options with TensorFlow's defaults (0 threads = one per
 * core, soft placement off); caller frees with tfs_session_options_free.
 * NULL only when memory runs out. */
TFS_API tfs_session_options *tfs_session_options_new(void);
TFS_API void tfs_session_options_free(tfs_session_options *o);

/* Size of the intra-op pool (work inside one kernel) and of the inter-op
 * pool (independent kernels at once).  0: one per core.  A negative
 * inter-op count runs everything on the caller's thread. */
TFS_API void tfs_session_options_set_intra_op_threads(tfs_session_options *o,
                                                      int n);
TFS_API void tfs_session_options_set_inter_op_threads(tfs_session_options *o,
                                                      int n);
/* Place an op on another device when the requested one is missing or has
 * no kernel for it. */
TFS_API void tfs_session_options_set_allow_soft_placement(
    tfs_session_options *o, int allow);
/* Print one line per node naming its device when a plan is built. */
TFS_API void tfs_session_options_set_log_device_placement(
    tfs_session_options *o, int log);

/* Sets every option from TensorFlow ConfigProto bytes (threads, soft
 * placement, device placement log, operation timeout, GPU and graph /
 * rewriter options).  Fields tfsess does not use are ignored, as
 * TensorFlow ignores unknown fields.  INVALID_ARGUMENT "Unparseable
 * ConfigProto" when the bytes do not parse. */
TFS_API void tfs_session_options_set_config(tfs_session_options *o,
                                            const void *proto, size_t len,
                                            tfs_status *st);
/* Serializes the options as ConfigProto bytes into `out` (which must be
 * empty; freed by tfs_buffer_free). */
TFS_API void tfs_session_options_get_config(const tfs_session_options *o,
                                            tfs_buffer *out, tfs_status *st);

/* ---- GPU options (ConfigProto.gpu_options) ------------------------------- */

/* TensorFlow's GPUOptions, read when a session first creates the
 * process's GPU devices (devices are process-wide: the first session's
 * options fix them; docs/DEVICES.md).  All of them travel in the
 * ConfigProto bytes of get_config / set_config.  Like every other option
 * setter, these take the options from one thread at a time. */

/* Which of the GPUs the process sees become the session's GPU:0, GPU:1,
 * ..., as gpu_options.visible_device_list: "1" or "2,0".  The string is
 * copied; NULL or "" clears the list (every GPU, in order).  The list is
 * checked when devices are made: tfs_session_new and tfs_device_list_new
 * fail with TensorFlow's messages ("'visible_device_list' listed an
 * invalid Device id '3' but visible device count is 1").  Errors:
 * INVALID_ARGUMENT when o is NULL, RESOURCE_EXHAUSTED (the options are
 * then unchanged).  Does not take ownership of any argument. */
TFS_API void tfs_session_options_set_visible_device_list(
    tfs_session_options *o, const char *list, tfs_status *st);
/* The list set above or by set_config; NULL when none is set (or o is
 * NULL).  Borrowed, valid until the options are next changed or freed. */
TFS_API const char *tfs_session_options_visible_device_list(
    const tfs_session_options *o);

/* gpu_options.allow_growth: a GPU's allocator takes memory as it is
 * needed (2 MiB, doubling) instead of reserving most of the device at
 * its first allocation, so that processes can share a GPU.  The
 * environment variable TF_FORCE_GPU_ALLOW_GROWTH=true or false overrides
 * it, as in TensorFlow.  Off by default; any non-zero value turns it on. */
TFS_API void tfs_session_options_set_allow_growth(tfs_session_options *o,
                                                  int allow);
TFS_API int tfs_session_options_allow_growth(const tfs_session_options *o);

/* gpu_options.per_process_gpu_memory_fraction: the share of each GPU's
 * total memory its allocator may use; 0 (the default): what is free at
 * creation less a reserve. */
TFS_API void tfs_session_options_set_per_process_gpu_memory_fraction(
    tfs_session_options *o, double fraction);
TFS_API double tfs_session_options_per_process_gpu_memory_fraction(
    const tfs_session_options *o);

/* ---- resource limits and safe mode (docs/SECURITY.md) -------------------- */

/* What a session may ask for.  Each limit is checked before the memory
 * or the work is taken; going over gives RESOURCE_EXHAUSTED naming the
 * node and the size. */
typedef enum tfs_limit {
  TFS_LIMIT_TENSOR_BYTES = 0, /* bytes of one tensor a kernel allocates
                                 (an output or its scratch space) */
  TFS_LIMIT_RUN_BYTES = 1,    /* bytes of all outputs one run allocates */
  TFS_LIMIT_GRAPH_NODES = 2,  /* nodes of the graph a plan is built from
                                 (the session's graph and its rewrite) */
  TFS_LIMIT_NESTING = 3,      /* deepest message nesting of the protobufs a
                                 session parses (RunOptions); at most and
                                 by default 100, as TensorFlow's parser */
  TFS_LIMIT_OP_ELEMENTS = 4   /* elements of one output of one op */
} tfs_limit;
#define TFS_LIMIT_COUNT 5

/* Sets a limit: value > 0 is the limit, 0 the default, < 0 no limit.
 * Defaults: none (as TensorFlow), but nesting 100; in safe mode, for
 * limits left at 0: 1 GiB per tensor, 4 GiB per run, 1,000,000 graph
 * nodes, nesting 32, 2^28 elements per op output.  Unknown `which`:
 * ignored. */
TFS_API void tfs_session_options_set_limit(tfs_session_options *o,
                                           tfs_limit which, int64_t value);
/* The limit in force for these options (0: none). */
TFS_API int64_t tfs_session_options_limit(const tfs_session_options *o,
                                          tfs_limit which);

/* Safe mode for graphs from untrusted sources: the safe defaults above,
 * and ops that read or write files, run host code or reach the network
 * (ReadFile, WriteFile, SaveV2, RestoreV2, MatchingFiles, PrintV2 to a
 * file, ...) are refused when a plan is built, PERMISSION_DENIED naming
 * the node and the op, unless their type is allowed with
 * tfs_session_options_allow_op.  Off by default. */
TFS_API void tfs_session_options_set_safe_mode(tfs_session_options *o,
                                               int on);
TFS_API int tfs_session_options_safe_mode(const tfs_session_options *o);
/* Lets op type `op_type` through safe mode (copied).  RESOURCE_EXHAUSTED
 * when memory runs out. */
TFS_API void tfs_session_options_allow_op(tfs_session_options *o,
                                          const char *op_type,
                                          tfs_status *st);

/* All of these options travel in ConfigProto bytes (get_config /
 * set_config, TF_SetConfig) as field 7600, a message TensorFlow does not
 * know and keeps as an unknown field (docs/SECURITY.md has its layout). */

TFS_API int tfs_session_options_intra_op_threads(const tfs_session_options *o);
TFS_API int tfs_session_options_inter_op_threads(const tfs_session_options *o);
TFS_API int tfs_session_options_allow_soft_placement(
    const tfs_session_options *o);
TFS_API int tfs_session_options_log_device_placement(
    const tfs_session_options *o);

/* ---- sessions ----------------------------------------------------------- */

/* Returns a new session on `g` (NULL options: defaults); caller frees with
 * tfs_session_free.  Does not take ownership of g or opts; the session
 * keeps g alive until it is freed. */
TFS_API tfs_session *tfs_session_new(tfs_graph *g,
                                     const tfs_session_options *opts,
                                     tfs_status *st);

/* Runs the graph.  feeds[i] is set to feed_values[i] (not taken: the caller
 * keeps its tensors and may reuse them); fetch_values[i] receives a new
 * tensor for fetches[i], owned by the caller, valid after the session and
 * the graph are gone; targets are run for their effects only.  Every
 * fetch_values[i] is set to NULL first and stays NULL on error.
 * Errors are TensorFlow's (e.g. "You must feed a value for placeholder
 * tensor 'x' with dtype float and shape [?,3]").  Thread-safe. */
TFS_API void tfs_session_run(tfs_session *s, const tfs_output *feeds,
                             tfs_tensor *const *feed_values, int nfeeds,
                             const tfs_output *fetches,
                             tfs_tensor **fetch_values, int nfetches,
                             tfs_operation *const *targets, int ntargets,
                             tfs_status *st);

/* tfs_session_run with TensorFlow RunOptions bytes (NULL or empty: none;
 * trace_level, timeout_in_ms, inter_op_thread_pool are honoured) and,
 * when run_metadata is not NULL, RunMetadata bytes written into it (it
 * must be empty: "Passing non-empty run_metadata is invalid."); with
 * tracing on they hold step_stats (per node: start, end, outputs,
 * device), naming the caller's nodes: a node the optimizer fused or
 * folded is reported under each node it replaced, the kernel's time on
 * its own name and zero-length records for the others (label
 * "a = _FusedMatMul(x, w, b) [fused into c]").  "Unparseable RunOptions
 * proto" for bad bytes. */
TFS_API void tfs_session_run_ex(tfs_session *s,
                                const tfs_buffer *run_options,
                                const tfs_output *feeds,
                                tfs_tensor *const *feed_values, int nfeeds,
                                const tfs_output *fetches,
                                tfs_tensor **fetch_values, int nfetches,
                                tfs_operation *const *targets, int ntargets,
                                tfs_buffer *run_metadata, tfs_status *st);

/* Stops new runs ("Session has been closed.") and releases the variables.
 * Idempotent. */
TFS_API void tfs_session_close(tfs_session *s, tfs_status *st);

/* Frees the session (closing it if needed).  Accepts NULL. */
TFS_API void tfs_session_free(tfs_session *s);

/* Scope-style use: creates a session on `g`, calls body(session, user),
 * then closes and frees the session whatever body did (Python's
 * `with tf.Session() as sess:`).  Returns body's result, or -1 when the
 * session could not be created (st holds why).  body reports its own
 * errors through `user` or its return value. */
typedef int (*tfs_session_body)(tfs_session *s, void *user);
TFS_API int tfs_session_with(tfs_graph *g, const tfs_session_options *opts,
                             tfs_session_body body, void *user,
                             tfs_status *st);

/* Number of cached plans (one per distinct run signature). */
TFS_API int tfs_session_num_plans(tfs_session *s);

TFS_END_DECLS

#endif /* TFSESS_SESSION_H */

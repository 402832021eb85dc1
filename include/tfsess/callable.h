/*
 * tfsess/callable.h - callables: a (feeds, fetches, targets) signature
 * planned once and run many times with tensors passed in declared order,
 * no name or signature lookups (TensorFlow's Session::MakeCallable,
 * RunCallable and ReleaseCallable).  The fastest way to run a graph
 * repeatedly.
 */

/*
 * Lifecycle: tfs_session_make_callable, then tfs_callable_run as often as
 * needed, then tfs_callable_free.  A callable does not keep its session
 * alive: once the session is closed or freed, runs fail with CANCELLED
 * "Session has been closed." and tfs_callable_free is still required.
 *
 * Threads: tfs_callable_run may be called from many threads at once on
 * the same callable (each run gets its own slots and memory arena).
 * tfs_callable_free must not race with runs of the same callable.
 */
#ifndef TFSESS_CALLABLE_H
#define TFSESS_CALLABLE_H

#include "common.h"
#include "graph.h"
#include "session.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

typedef struct tfs_callable tfs_callable;
typedef struct tfs_callable_options tfs_callable_options;

/* Returns new options (no timeout of its own, inter-op pool allowed);
 * caller frees with tfs_callable_options_free.  NULL only when memory runs
 * out. */
TFS_API tfs_callable_options *tfs_callable_options_new(void);
TFS_API void tfs_callable_options_free(tfs_callable_options *o);

/* RunOptions.timeout_in_ms for every run (0: the session's
 * operation_timeout_in_ms).  A run that takes longer fails with
 * DEADLINE_EXCEEDED "Timed out waiting for notification". */
TFS_API void tfs_callable_options_set_timeout_in_ms(tfs_callable_options *o,
                                                    int64_t ms);
/* Non-zero: every node runs on the calling thread
 * (RunOptions.inter_op_thread_pool = -1). */
TFS_API void tfs_callable_options_set_run_in_caller_thread(
    tfs_callable_options *o, int on);

/* Returns a new callable for the signature; caller frees with
 * tfs_callable_free.  Does not take ownership of any argument; `opts` may
 * be NULL.  The graph is pruned and planned now, with the same errors as
 * tfs_session_run (e.g. "Must specify at least one target to fetch or
 * execute.").  CANCELLED "Session has been closed." on a closed session. */
TFS_API tfs_callable *tfs_session_make_callable(
    tfs_session *s, const tfs_output *feeds, int nfeeds,
    const tfs_output *fetches, int nfetches, tfs_operation *const *targets,
    int ntargets, const tfs_callable_options *opts, tfs_status *st);

/* Runs the callable: feed_values[i] feeds the i-th declared feed (not
 * taken: the caller keeps its tensors); fetch_values[i] receives a new
 * tensor for the i-th declared fetch, owned by the caller, NULL on error.
 * Errors: INVALID_ARGUMENT "Expected 2 feed tensors, but got 1" (and the
 * same for fetches); "`fetch_tensors` must be provided when the callable
 * has one or more outputs."; the feed checks of tfs_session_run; kernel
 * errors; CANCELLED when the session is closed.  Thread-safe. */
TFS_API void tfs_callable_run(tfs_callable *c,
                              tfs_tensor *const *feed_values, int nfeeds,
                              tfs_tensor **fetch_values, int nfetches,
                              tfs_status *st);

/* Number of declared feeds / fetches. */
TFS_API int tfs_callable_num_feeds(const tfs_callable *c);
TFS_API int tfs_callable_num_fetches(const tfs_callable *c);

/* Releases the callable (ReleaseCallable).  Accepts NULL. */
TFS_API void tfs_callable_free(tfs_callable *c);

TFS_END_DECLS

#endif /* TFSESS_CALLABLE_H */

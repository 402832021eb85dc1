/*
 * session/limits.h - a session's resource limits and safe mode, resolved
 * from its options (ConfigProto field 7600, TfsessLimits): the checks a
 * plan makes (graph size, ops that reach the file system or the process)
 * and the limits the kernels' context applies to every allocation.
 * docs/SECURITY.md says what each limit bounds.
 */
#ifndef TFS_SESSION_LIMITS_H
#define TFS_SESSION_LIMITS_H

#include <stdint.h>

#include "config_proto/config.h"
#include "graph_builder/graph_internal.h"
#include "kernels/kernel.h"
#include "tfsess/status.h"

/* The defaults of safe mode, used for every limit left at 0. */
#define TFS_SAFE_TENSOR_BYTES ((int64_t)1 << 30)
#define TFS_SAFE_RUN_BYTES ((int64_t)4 << 30)
#define TFS_SAFE_GRAPH_NODES ((int64_t)1000000)
#define TFS_SAFE_NESTING ((int64_t)32)
#define TFS_SAFE_OP_ELEMENTS ((int64_t)1 << 28)

/* Limits in force (0: none, but nesting which is always 1..100). */
typedef struct tfs_session_limits {
  int safe_mode;
  int64_t graph_nodes;
  int nesting;
  tfs_run_limits run;   /* handed to kernels; all 0: none */
  int any_run_limit;    /* run has a non-zero field */
  int nallowed;         /* safe mode's allow-list (borrowed from the */
  char *const *allowed; /* session's config) */
} tfs_session_limits;

/* Resolves `c` into *out.  `out` borrows c's allow-list: c must outlive
 * it. */
void tfs_limits__resolve(const tfs_config_limits *c, tfs_session_limits *out);

/* The effective value of limit `which` (tfs_limit) in `c`; 0: none. */
int64_t tfs_limits__effective(const tfs_config_limits *c, int which);

/* What `op` does outside the graph when it does ("reads files", "writes
 * files", "runs code in the process", ...), or NULL.  Decided by op type
 * and, for PrintV2 and the debug ops, by where their attrs send the
 * output. */
const char *tfs_limits__host_access(const tfs_operation *op);

/* Checks a plan's nodes before anything runs: the graph's size against
 * graph_nodes (`graph_size`: nodes in the graph the plan comes from) and,
 * in safe mode, every node that reaches the file system or the process
 * unless its op type is allow-listed (PERMISSION_DENIED naming the node
 * and the op), also inside the functions of g's library that the nodes
 * call.  Returns 0 or -1 with the status set. */
int tfs_limits__check_plan(const tfs_session_limits *l, const tfs_graph *g,
                           tfs_operation *const *nodes, int n,
                           size_t graph_size, tfs_status *st);

#endif /* TFS_SESSION_LIMITS_H */

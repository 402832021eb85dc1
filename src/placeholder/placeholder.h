/*
 * placeholder/placeholder.h - what feeding a tensor must satisfy: the dtype
 * of the output it replaces and, for Placeholder and
 * PlaceholderWithDefault, the declared partial shape.
 */
#ifndef TFS_PLACEHOLDER_PLACEHOLDER_H
#define TFS_PLACEHOLDER_PLACEHOLDER_H

#include "graph_builder/graph_internal.h"

/* 0 when `value` may be fed to `feed` (feed number `index` of the run);
 * else -1 with TensorFlow's message ("Expects arg[0] to be float but
 * string is provided", or "Cannot feed value of shape [2] for Tensor x:0,
 * which has shape [3]"). */
int tfs_placeholder__validate_feed(tfs_output feed, const tfs_tensor *value,
                                   int index, tfs_status *st);

/* What an op is as a placeholder (its TFS_OP_PLACEHOLDER flag). */
typedef enum tfs_placeholder_kind {
  TFS_PH_NONE = 0,    /* not a placeholder */
  TFS_PH_REQUIRED,    /* Placeholder: a run must feed it */
  TFS_PH_WITH_DEFAULT /* PlaceholderWithDefault: its input unless fed */
} tfs_placeholder_kind;

tfs_placeholder_kind tfs_placeholder__kind(const tfs_op_def *def);

/* Non-zero for an op a run must feed (Placeholder). */
static inline int tfs_placeholder__is_placeholder(const tfs_operation *op) {
  return tfs_placeholder__kind(op->def) == TFS_PH_REQUIRED;
}

/* The partial shape a fed value must have: the placeholder's declared
 * shape attr, or NULL when op is no placeholder or declares none.
 * Borrowed from op's attrs. */
const tfs_shape *tfs_placeholder__declared_shape(const tfs_operation *op);

#endif

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

/* Non-zero for Placeholder-like ops (must be fed or have a default). */
int tfs_placeholder__is_placeholder(const tfs_operation *op);

#endif

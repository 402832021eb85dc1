/*
 * placeholder/feed.c - placeholder semantics: which ops are placeholders
 * (the TFS_OP_PLACEHOLDER flag), and what a fed tensor must satisfy: the
 * dtype of the fed output, and for Placeholder / PlaceholderWithDefault the
 * declared (partial) shape.
 */
#include <string.h>

#include "core/status.h"
#include "placeholder/placeholder.h"

int tfs_placeholder__validate_feed(tfs_output feed, const tfs_tensor *value,
                                   int index, tfs_status *st) {
  tfs_operation *op = feed.oper;
  if (!value) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Feed value %d for '%s:%d' is NULL", index, op->name,
                    feed.index);
    return -1;
  }
  tfs_dtype want = tfs_dtype_base(op->out_types[feed.index]);
  if (value->dtype != want) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Expects arg[%d] to be %s but %s is provided", index,
                    tfs_dtype_name(want), tfs_dtype_name(value->dtype));
    return -1;
  }
  const tfs_shape *declared = tfs_placeholder__declared_shape(op);
  if (declared && !tfs_shape_is_compatible(declared, &value->shape)) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot feed value of shape %s for Tensor %s:%d, which "
                    "has shape %s",
                    tfs_shape_str(&value->shape, a, sizeof a), op->name,
                    feed.index, tfs_shape_str(declared, b, sizeof b));
    return -1;
  }
  return 0;
}

tfs_placeholder_kind tfs_placeholder__kind(const tfs_op_def *def) {
  if (!def || !(def->flags & TFS_OP_PLACEHOLDER)) return TFS_PH_NONE;
  return def->ninputs == 0 ? TFS_PH_REQUIRED : TFS_PH_WITH_DEFAULT;
}

const tfs_shape *tfs_placeholder__declared_shape(const tfs_operation *op) {
  if (tfs_placeholder__kind(op->def) == TFS_PH_NONE) return NULL;
  return tfs_attrs_get_shape(&op->attrs, "shape");
}

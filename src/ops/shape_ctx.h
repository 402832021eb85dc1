/*
 * ops/shape_ctx.h - the context a shape function works in: input dtypes,
 * partial shapes and (when known) constant input values; it writes output
 * partial shapes.  Shape functions are pure: they see no graph, only this.
 */
#ifndef TFS_OPS_SHAPE_CTX_H
#define TFS_OPS_SHAPE_CTX_H

#include "ops/op_def.h"

typedef struct tfs_shape_ctx {
  const tfs_op_def *op;
  const char *node_name;
  const tfs_attrs *attrs;
  int ninputs;
  const tfs_dtype *in_dtypes;   /* may be ref types */
  const tfs_shape *in_shapes;
  const tfs_tensor *const *in_consts; /* NULL entries: not a constant */
  /* Partial value of int32/int64 vector input i read as a shape (e.g. the
   * output of a Shape op); may be NULL.  Returns 0 when it found one. */
  int (*input_as_shape)(struct tfs_shape_ctx *c, int i, tfs_shape *out);
  /* Declared shape of the variable behind resource input i (from its
   * VarHandleOp); may be NULL.  Returns 0 when it found one. */
  int (*resource_shape)(struct tfs_shape_ctx *c, int i, tfs_shape *out);
  void *user;
  int noutputs;
  const tfs_dtype *out_dtypes;
  tfs_shape *out_shapes;        /* pre-set to unknown rank */
  tfs_status *st;
} tfs_shape_ctx;

/* Records an INVALID_ARGUMENT message (the caller adds the node context)
 * and returns -1. */
int tfs_sc_error(tfs_shape_ctx *c, const char *fmt, ...) TFS_PRINTF(2, 3);

/* Constant value of input i, or NULL. */
static inline const tfs_tensor *tfs_sc_const(tfs_shape_ctx *c, int i) {
  return c->in_consts ? c->in_consts[i] : NULL;
}

/* Input i's shape must have rank r (when known): "Shape must be rank 2 but
 * is rank 3".  r is an int64 so that values read from tensors and attrs
 * are compared as they are, never truncated. */
int tfs_sc_with_rank(tfs_shape_ctx *c, int i, int64_t r);
int tfs_sc_with_rank_at_least(tfs_shape_ctx *c, int i, int64_t r);

/* Input i must be able to hold axis `axis` (TensorFlow's
 * WithRankAtLeast(axis < 0 ? -axis : axis + 1)), for any int64 axis. */
int tfs_sc_with_rank_for_axis(tfs_shape_ctx *c, int i, int64_t axis);

/* TensorFlow's InferenceContext::Add and Multiply on dims: -1 (unknown)
 * propagates, a result above INT64_MAX is an error ("Dimension size
 * overflow from adding 6 and 9223372036854775802", "Negative dimension
 * size caused by overflow when multiplying ..."). */
int tfs_sc_add_dim(tfs_shape_ctx *c, int64_t a, int64_t b, int64_t *out);
int tfs_sc_mul_dim(tfs_shape_ctx *c, int64_t a, int64_t b, int64_t *out);

/* Merges two dims ("Dimensions must be equal, but are 3 and 4"). */
int tfs_sc_merge_dim(tfs_shape_ctx *c, int64_t a, int64_t b, int64_t *out);

/* Reads input i (an int32/int64 vector, or a scalar -1 for unknown rank)
 * as a partial shape: from a constant, from the input_as_shape hook, else
 * as a shape of known rank (when the vector's length is known) with
 * unknown dims, else unknown.  Negative values mean unknown dims. */
int tfs_sc_input_as_shape(tfs_shape_ctx *c, int i, tfs_shape *out);

/* Reads a constant int32/int64 scalar input; -1 if not constant. */
int tfs_sc_const_scalar(tfs_shape_ctx *c, int i, int64_t *out);

/* Canonical axis: a in [-rank, rank) -> [0, rank); error otherwise. */
int tfs_sc_axis(tfs_shape_ctx *c, int64_t a, int rank, int64_t *out);

/* Common shape functions. */
int tfs_shape_fn_unknown(tfs_shape_ctx *c);
int tfs_shape_fn_scalar(tfs_shape_ctx *c);
int tfs_shape_fn_unchanged(tfs_shape_ctx *c);     /* out[*] = in[0] */
int tfs_shape_fn_broadcast(tfs_shape_ctx *c);     /* numpy broadcast 0,1 */
int tfs_shape_fn_no_outputs(tfs_shape_ctx *c);
int tfs_shape_fn_reduction(tfs_shape_ctx *c);     /* input, axes, keep_dims */
int tfs_shape_fn_matmul(tfs_shape_ctx *c);
int tfs_shape_fn_bias_add(tfs_shape_ctx *c);
int tfs_shape_fn_dtype_shape_attr(tfs_shape_ctx *c); /* from attr "shape" */

#endif

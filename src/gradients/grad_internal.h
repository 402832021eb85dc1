/*
 * gradients/grad_internal.h - what gradient functions are given and the
 * builders they write their subgraphs with.
 *
 * A gradient function receives the forward operation, the summed
 * gradient of each of its outputs (dy, never "none": an output without
 * one gets ZerosLike before the call) and fills dx, one entry per data
 * input, pre-set to TFS_GRAD_NONE ("no gradient").  It builds its
 * operations with the tfs_gb_* helpers below, which stop doing anything
 * once c->st holds an error, so a function may chain calls and let the
 * caller look at the status once.
 */
#ifndef TFS_GRADIENTS_GRAD_INTERNAL_H
#define TFS_GRADIENTS_GRAD_INTERNAL_H

#include <stdint.h>

#include "graph_builder/graph_internal.h"
#include "tfsess/gradients.h"

#define TFS_GRAD_NONE ((tfs_output){NULL, -1})

typedef struct tfs_gctx {
  tfs_graph *g;
  tfs_status *st; /* first error sticks */
} tfs_gctx;

typedef void (*tfs_grad_fn)(tfs_gctx *c, tfs_operation *op,
                            const tfs_output *dy, tfs_output *dx);

typedef struct tfs_grad_entry {
  const char *op_type;
  tfs_grad_fn fn; /* NULL: registered as having no gradient */
} tfs_grad_entry;

/* The registry, sorted by op type.  Returns the entry or NULL. */
const tfs_grad_entry *tfs_grad__lookup(const char *op_type);

/* Per-family tables the registry merges (grad_math.c, grad_array.c,
 * grad_reduce.c, grad_index.c, grad_nn.c); each sets *n. */
const tfs_grad_entry *tfs_grad__math_table(int *n);
const tfs_grad_entry *tfs_grad__array_table(int *n);
const tfs_grad_entry *tfs_grad__reduce_table(int *n);
const tfs_grad_entry *tfs_grad__index_table(int *n);
const tfs_grad_entry *tfs_grad__nn_table(int *n);

static inline int tfs_gb_ok(const tfs_gctx *c) { return tfs_status_ok(c->st); }
static inline int tfs_gb_valid(tfs_output o) { return o.oper != NULL; }

/* ---- builders: each returns output 0 of a new op, or TFS_GRAD_NONE once
 * an error is recorded in c->st ------------------------------------------ */

/* A description of a new `type` op (named after the type under the
 * current scope), NULL once failed; finish with tfs_gb_finish. */
tfs_op_desc *tfs_gb_desc(tfs_gctx *c, const char *type);
/* Finishes d; the new op or NULL (error recorded). */
tfs_operation *tfs_gb_finish(tfs_gctx *c, tfs_op_desc *d);
tfs_output tfs_gb_out(tfs_operation *op, int index);

tfs_output tfs_gb_unary(tfs_gctx *c, const char *type, tfs_output x);
tfs_output tfs_gb_binary(tfs_gctx *c, const char *type, tfs_output x,
                         tfs_output y);
/* A scalar Const of `dt` (real, complex or integer) holding v. */
tfs_output tfs_gb_scalar(tfs_gctx *c, tfs_dtype dt, double v);
/* int32 Consts: a vector of n values, a scalar. */
tfs_output tfs_gb_i32_vec(tfs_gctx *c, const int32_t *v, int n);
tfs_output tfs_gb_i32(tfs_gctx *c, int32_t v);
/* Shape(x) as int32, or folded to a Const when x's shape is known. */
tfs_output tfs_gb_shape(tfs_gctx *c, tfs_output x);
tfs_output tfs_gb_reshape(tfs_gctx *c, tfs_output x, tfs_output shape);
tfs_output tfs_gb_reduce(tfs_gctx *c, const char *type, tfs_output x,
                         tfs_output axes, int keep_dims);
tfs_output tfs_gb_sum(tfs_gctx *c, tfs_output x, tfs_output axes,
                      int keep_dims);
tfs_output tfs_gb_cast(tfs_gctx *c, tfs_output x, tfs_dtype to);
tfs_output tfs_gb_transpose(tfs_gctx *c, tfs_output x, tfs_output perm);
tfs_output tfs_gb_matmul(tfs_gctx *c, const char *type, tfs_output a,
                         tfs_output b, int adj_a, int adj_b);
tfs_output tfs_gb_addn(tfs_gctx *c, const tfs_output *xs, int n);
tfs_output tfs_gb_fill(tfs_gctx *c, tfs_output dims, tfs_output value);
/* Conj(x) for complex x, x itself otherwise. */
tfs_output tfs_gb_conj(tfs_gctx *c, tfs_output x);
/* The dtype of an output. */
tfs_dtype tfs_gb_dtype(tfs_output o);
/* The inferred shape of an output (borrowed). */
const tfs_shape *tfs_gb_shape_of(tfs_output o);
/* Input k of op. */
tfs_output tfs_gb_in(const tfs_operation *op, int k);

/* The gradients of a broadcasting binary op z = f(x, y) given
 * gx = dz * df/dx and gy = dz * df/dy at z's shape: each summed over the
 * dimensions broadcasting added and reshaped to its input's shape
 * (BroadcastGradientArgs, Sum, Reshape; nothing when both static shapes
 * are known and equal).  gx or gy may be TFS_GRAD_NONE. */
void tfs_gb_unbroadcast(tfs_gctx *c, tfs_output x, tfs_output y,
                        tfs_output gx, tfs_output gy, tfs_output *dx,
                        tfs_output *dy);

/* Records an error naming the forward op: "<op type> gradient for node
 * '<name>': <msg>". */
void tfs_gb_fail(tfs_gctx *c, const tfs_operation *op, tfs_code code,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif /* TFS_GRADIENTS_GRAD_INTERNAL_H */

/*
 * tfsess/gradients.h - symbolic gradients: adds to a graph the operations
 * that compute the partial derivatives of some outputs with respect to
 * others, as TensorFlow's TF_AddGradients and tf.gradients do.
 *
 * The derivative built is d(sum of every y, each weighted by its seed)/dx:
 * with no seeds every y is weighted by ones (OnesLike(y)), so for a scalar
 * loss the result is the ordinary gradient.  Gradients that reach an
 * output along several paths are summed with AddN.  Each operation's
 * gradient comes from a registry keyed by op type (the ops TensorFlow
 * differentiates, see tfs_gradient_kind); ops registered as having no
 * gradient (comparisons, Shape, StopGradient, ...) stop the propagation.
 *
 * No gating: as in TensorFlow's C++ builder, the gradient of one input
 * can be ready while other gradients that read the same variables are
 * still being computed.  Ops that update variables in place should wait
 * for every gradient (control dependencies on all of them, as TensorFlow's
 * optimizers' gate_gradients does; see examples/train_digits.c), or a
 * session running nodes in parallel may update a variable that is still
 * being read.
 *
 * Threads: like every graph edit, call from one thread at a time per
 * graph.  Sessions already created on the graph see the new operations in
 * their next plans.
 */
#ifndef TFSESS_GRADIENTS_H
#define TFSESS_GRADIENTS_H

#include "common.h"
#include "graph.h"
#include "status.h"

TFS_BEGIN_DECLS

/* Adds the gradient subgraph of y[0..ny) with respect to x[0..nx) to g
 * and writes the gradient of each x to dy[0..nx).
 *
 * prefix: the name scope of the new operations, under the graph's current
 * scope.  NULL picks "gradients", made unique ("gradients_1", ...) as
 * TensorFlow does.  A given prefix must not name an existing operation
 * or the start of one ("prefix [P] conflicts with existing node in the
 * graph named [N]", INVALID_ARGUMENT).
 *
 * dx: NULL, or one seed per y (its dtype and shape those of y).  NULL
 * seeds each y with OnesLike(y).
 *
 * dy: filled with the gradient outputs, owned by the graph.  An x that no
 * gradient reaches (every path crosses an op without a gradient) gets
 * {NULL, -1}, which is not an error, as in TensorFlow.
 *
 * Errors, with TensorFlow's texts:
 *  - an x that the y's do not depend on through data edges: "Cannot
 *    compute the partial derivative for node 'X' as it's unreachable from
 *    the output node(s)." (INVALID_ARGUMENT);
 *  - an op on the way with no registered gradient: "No gradient defined
 *    for op: OP. ..." (NOT_FOUND);
 *  - a gradient function's own checks (unsupported attrs, dtypes).
 * On error the graph is left as it was before the call and dy is
 * untouched. */
TFS_API void tfs_gradients(tfs_graph *g, const char *prefix,
                           const tfs_output *y, int ny, const tfs_output *x,
                           int nx, const tfs_output *dx, tfs_output *dy,
                           tfs_status *st);

/* What the registry knows of `op_type`: 1 when it has a gradient
 * function, 0 when it is registered as having none (its inputs get no
 * gradient), -1 when it is not registered (differentiating through it is
 * NOT_FOUND).  Thread-safe. */
TFS_API int tfs_gradient_kind(const char *op_type);

/* The i-th registered op type in name order, or NULL past the end; with
 * tfs_gradient_kind, how a program lists the registry.  The string is
 * static.  Thread-safe. */
TFS_API const char *tfs_gradient_op_type(int i);

TFS_END_DECLS

#endif /* TFSESS_GRADIENTS_H */

/*
 * tfsess/ops.h - typed builders for common ops in a graph.
 *
 * Each builder adds one operation and returns its output.  `name` may be
 * NULL for a unique name made from the op type under the graph's current
 * name scope.  On failure the returned output has oper == NULL and `st`
 * holds the error.  Builders chain: when an input has oper == NULL (the
 * result of an earlier failure), the builder adds nothing, returns
 * {NULL, -1} and leaves `st` as it is, so a sequence of builders can be
 * checked once at the end.
 */
#ifndef TFSESS_OPS_H
#define TFSESS_OPS_H

#include "common.h"
#include "graph.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

/* A Const holding `value` (a new reference is kept; the caller keeps
 * its own). */
TFS_API tfs_output tfs_op_const(tfs_graph *g, const char *name,
                                tfs_tensor *value, tfs_status *st);
/* Scalar constants. */
TFS_API tfs_output tfs_op_const_float(tfs_graph *g, const char *name,
                                      float v, tfs_status *st);
TFS_API tfs_output tfs_op_const_int32(tfs_graph *g, const char *name,
                                      int32_t v, tfs_status *st);
/* A Placeholder of `dtype` and partial shape dims[0..ndims) (-1: unknown
 * dim; ndims -1: unknown rank). */
TFS_API tfs_output tfs_op_placeholder(tfs_graph *g, const char *name,
                                      tfs_dtype dtype, const int64_t *dims,
                                      int ndims, tfs_status *st);
TFS_API tfs_output tfs_op_placeholder_with_default(tfs_graph *g,
                                                   const char *name,
                                                   tfs_output input,
                                                   const int64_t *dims,
                                                   int ndims,
                                                   tfs_status *st);
TFS_API tfs_output tfs_op_identity(tfs_graph *g, const char *name,
                                   tfs_output x, tfs_status *st);

/* Binary elementwise ops with numpy broadcasting. */
TFS_API tfs_output tfs_op_add(tfs_graph *g, const char *name, tfs_output x,
                              tfs_output y, tfs_status *st);
TFS_API tfs_output tfs_op_sub(tfs_graph *g, const char *name, tfs_output x,
                              tfs_output y, tfs_status *st);
TFS_API tfs_output tfs_op_mul(tfs_graph *g, const char *name, tfs_output x,
                              tfs_output y, tfs_status *st);
TFS_API tfs_output tfs_op_div(tfs_graph *g, const char *name, tfs_output x,
                              tfs_output y, tfs_status *st);
TFS_API tfs_output tfs_op_realdiv(tfs_graph *g, const char *name,
                                  tfs_output x, tfs_output y,
                                  tfs_status *st);
TFS_API tfs_output tfs_op_pow(tfs_graph *g, const char *name, tfs_output x,
                              tfs_output y, tfs_status *st);
TFS_API tfs_output tfs_op_maximum(tfs_graph *g, const char *name,
                                  tfs_output x, tfs_output y,
                                  tfs_status *st);
TFS_API tfs_output tfs_op_minimum(tfs_graph *g, const char *name,
                                  tfs_output x, tfs_output y,
                                  tfs_status *st);

/* Any op of the form "y = Op(x)" with type attr T (Neg, Square, Sqrt,
 * Exp, Log, Tanh, Sigmoid, Relu, Softmax, ...). */
TFS_API tfs_output tfs_op_unary(tfs_graph *g, const char *op_type,
                                const char *name, tfs_output x,
                                tfs_status *st);
/* Any op of the form "z = Op(x, y)" with type attr T. */
TFS_API tfs_output tfs_op_binary(tfs_graph *g, const char *op_type,
                                 const char *name, tfs_output x,
                                 tfs_output y, tfs_status *st);

TFS_API tfs_output tfs_op_matmul(tfs_graph *g, const char *name,
                                 tfs_output a, tfs_output b,
                                 int transpose_a, int transpose_b,
                                 tfs_status *st);
TFS_API tfs_output tfs_op_bias_add(tfs_graph *g, const char *name,
                                   tfs_output value, tfs_output bias,
                                   tfs_status *st);
/* Sum / Mean over `axes` (an int32 tensor output). */
TFS_API tfs_output tfs_op_sum(tfs_graph *g, const char *name,
                              tfs_output input, tfs_output axes,
                              int keep_dims, tfs_status *st);
TFS_API tfs_output tfs_op_mean(tfs_graph *g, const char *name,
                               tfs_output input, tfs_output axes,
                               int keep_dims, tfs_status *st);
TFS_API tfs_output tfs_op_reshape(tfs_graph *g, const char *name,
                                  tfs_output tensor, tfs_output shape,
                                  tfs_status *st);
TFS_API tfs_output tfs_op_cast(tfs_graph *g, const char *name,
                               tfs_output x, tfs_dtype dst, tfs_status *st);
TFS_API tfs_output tfs_op_shape(tfs_graph *g, const char *name,
                                tfs_output x, tfs_status *st);
TFS_API tfs_output tfs_op_fill(tfs_graph *g, const char *name,
                               tfs_output dims, tfs_output value,
                               tfs_status *st);

/* Assert(condition, data...): fails the run with "assertion failed: ..."
 * when condition is false.  Returns the operation (to use as a control
 * input), NULL on failure. */
TFS_API tfs_operation *tfs_op_assert(tfs_graph *g, const char *name,
                                     tfs_output condition,
                                     const tfs_output *data, int ndata,
                                     tfs_status *st);
/* A NoOp that depends on `deps` (TensorFlow's tf.group). */
TFS_API tfs_operation *tfs_op_group(tfs_graph *g, const char *name,
                                    tfs_operation *const *deps, int ndeps,
                                    tfs_status *st);
/* Identity of x that runs only after `deps` (tf.control_dependencies). */
TFS_API tfs_output tfs_op_with_dependencies(tfs_graph *g, const char *name,
                                            tfs_output x,
                                            tfs_operation *const *deps,
                                            int ndeps, tfs_status *st);

/* TF1 variables: VariableV2 of dtype/shape, and Assign/AssignAdd on it. */
TFS_API tfs_output tfs_op_variable(tfs_graph *g, const char *name,
                                   tfs_dtype dtype, const int64_t *dims,
                                   int ndims, tfs_status *st);
TFS_API tfs_output tfs_op_assign(tfs_graph *g, const char *name,
                                 tfs_output ref, tfs_output value,
                                 tfs_status *st);
TFS_API tfs_output tfs_op_assign_add(tfs_graph *g, const char *name,
                                     tfs_output ref, tfs_output value,
                                     tfs_status *st);

/* Resource variables: VarHandleOp, ReadVariableOp, AssignVariableOp,
 * AssignAddVariableOp. */
TFS_API tfs_output tfs_op_var_handle(tfs_graph *g, const char *name,
                                     tfs_dtype dtype, const int64_t *dims,
                                     int ndims, tfs_status *st);
TFS_API tfs_output tfs_op_read_variable(tfs_graph *g, const char *name,
                                        tfs_output handle, tfs_dtype dtype,
                                        tfs_status *st);
TFS_API tfs_operation *tfs_op_assign_variable(tfs_graph *g,
                                              const char *name,
                                              tfs_output handle,
                                              tfs_output value,
                                              tfs_status *st);
TFS_API tfs_operation *tfs_op_assign_add_variable(tfs_graph *g,
                                                  const char *name,
                                                  tfs_output handle,
                                                  tfs_output value,
                                                  tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_OPS_H */

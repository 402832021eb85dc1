/*
 * tfsess/eager.h - TensorFlow 2's way of working on top of the session
 * engine: contexts, value handles, a generic op call, typed op functions
 * and variables.
 *
 * A context is one of three kinds:
 *   - eager: ops run at once.  Each distinct (op, attrs, input dtypes and
 *     shapes, device) is planned once as a one-node graph and cached; a
 *     cache hit does no graph work at all.
 *   - graph: ops add nodes to a graph you own (TF1 style).
 *   - tracing: ops add nodes to a traced function's graph (function.h);
 *     you only meet such a context inside a function body.
 * The typed op functions (tfs_add, tfs_matmul, ...) and the generic op call
 * work the same in all three, so a function body is written once.
 *
 * Values: a value is a concrete tensor (eager) or a symbolic output (graph,
 * tracing).  Values an eager context returns are yours: free them with
 * tfs_value_free.  Values made in a graph or tracing context belong to the
 * context (they die with it or with the trace); tfs_value_free on them does
 * nothing, so a function body may free its intermediates or not.
 *
 * Errors come at once, in TensorFlow's eager wording, e.g. "cannot compute
 * Add as input #1(zero-based) was expected to be a float tensor but is a
 * int32 tensor".
 *
 * Threads: one eager context may be used from many threads at once.  A
 * graph or tracing context is used by one thread.
 */
#ifndef TFSESS_EAGER_H
#define TFSESS_EAGER_H

#include "common.h"
#include "graph.h"
#include "session.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

typedef struct tfs_ctx tfs_ctx;
typedef struct tfs_value tfs_value;
typedef struct tfs_op_call tfs_op_call;
typedef struct tfs_var tfs_var;

typedef enum tfs_ctx_kind {
  TFS_CTX_EAGER = 0,
  TFS_CTX_GRAPH = 1,
  TFS_CTX_TRACING = 2
} tfs_ctx_kind;

/* ---- contexts ------------------------------------------------------------ */

/* Returns a new eager context; `opts` (may be NULL) as for a session:
 * threads, soft placement, device placement log, optimizer options.
 * Caller frees with tfs_ctx_free. */
TFS_API tfs_ctx *tfs_eager_ctx_new(const tfs_session_options *opts,
                                   tfs_status *st);

/* Returns a new context whose ops add nodes to `g` (not taken; it must
 * outlive the context).  Caller frees with tfs_ctx_free. */
TFS_API tfs_ctx *tfs_graph_ctx_new(tfs_graph *g, tfs_status *st);

/* Frees the context and the values it owns.  Accepts NULL.  Eager values
 * the caller still holds stay valid (they own their tensors). */
TFS_API void tfs_ctx_free(tfs_ctx *c);

TFS_API tfs_ctx_kind tfs_ctx_get_kind(const tfs_ctx *c);

/* Eager: number of cached one-node plans (distinct op signatures). */
TFS_API int tfs_ctx_cache_size(tfs_ctx *c);

/* ---- values ---------------------------------------------------------------- */

/* A value holding `t` (a new reference is taken; the caller keeps its
 * own).  In a graph or tracing context the tensor becomes a Const. */
TFS_API tfs_value *tfs_value_new(tfs_ctx *c, tfs_tensor *t, tfs_status *st);

/* Scalar and vector conveniences (float32, int32). */
TFS_API tfs_value *tfs_value_float(tfs_ctx *c, float v, tfs_status *st);
TFS_API tfs_value *tfs_value_int32(tfs_ctx *c, int32_t v, tfs_status *st);
TFS_API tfs_value *tfs_value_floats(tfs_ctx *c, const int64_t *dims,
                                    int ndims, const float *data,
                                    tfs_status *st);

/* Releases an eager value; no-op for values a context owns.  Accepts
 * NULL. */
TFS_API void tfs_value_free(tfs_value *v);

/* The concrete tensor of an eager value: a new reference (caller frees
 * with tfs_tensor_free).  FAILED_PRECONDITION for a symbolic value. */
TFS_API tfs_tensor *tfs_value_resolve(const tfs_value *v, tfs_status *st);

TFS_API tfs_dtype tfs_value_dtype(const tfs_value *v);
/* Rank, -1 when unknown (symbolic values). */
TFS_API int tfs_value_num_dims(const tfs_value *v);
/* Size of dimension i, -1 when unknown. */
TFS_API int64_t tfs_value_dim(const tfs_value *v, int i);
/* Device name: "/job:localhost/replica:0/task:0/device:CPU:0".  Static. */
TFS_API const char *tfs_value_device(const tfs_value *v);
/* The graph output behind a symbolic value ({NULL, -1} for eager). */
TFS_API tfs_output tfs_value_output(const tfs_value *v);
/* The context a value belongs to. */
TFS_API tfs_ctx *tfs_value_ctx(const tfs_value *v);

/* ---- the generic op call ------------------------------------------------- */

/* Starts a call of op `op_type` (NOT_FOUND "Op type not registered ..."
 * for an unknown op).  Caller frees with tfs_op_call_free. */
TFS_API tfs_op_call *tfs_op_call_new(tfs_ctx *c, const char *op_type,
                                     tfs_status *st);
TFS_API void tfs_op_call_free(tfs_op_call *call);

/* Inputs in the order of the op's input arguments; a list argument takes
 * one tfs_op_call_add_input_list call.  Type attrs are inferred from the
 * inputs.  As in TensorFlow's eager API the first value set for an attr
 * wins: an inferred attr is not overridden by a later explicit set. */
TFS_API void tfs_op_call_add_input(tfs_op_call *call, tfs_value *v,
                                   tfs_status *st);
TFS_API void tfs_op_call_add_input_list(tfs_op_call *call,
                                        tfs_value *const *vs, int n,
                                        tfs_status *st);
TFS_API void tfs_op_call_set_device(tfs_op_call *call, const char *device);
TFS_API void tfs_op_call_set_attr_int(tfs_op_call *call, const char *name,
                                      int64_t v);
TFS_API void tfs_op_call_set_attr_float(tfs_op_call *call, const char *name,
                                        float v);
TFS_API void tfs_op_call_set_attr_bool(tfs_op_call *call, const char *name,
                                       int v);
TFS_API void tfs_op_call_set_attr_type(tfs_op_call *call, const char *name,
                                       tfs_dtype v);
TFS_API void tfs_op_call_set_attr_string(tfs_op_call *call, const char *name,
                                         const void *v, size_t len);
/* ndims -1: unknown rank. */
TFS_API void tfs_op_call_set_attr_shape(tfs_op_call *call, const char *name,
                                        const int64_t *dims, int ndims);
/* Takes a new reference to t. */
TFS_API void tfs_op_call_set_attr_tensor(tfs_op_call *call, const char *name,
                                         tfs_tensor *t);
TFS_API void tfs_op_call_set_attr_int_list(tfs_op_call *call,
                                           const char *name,
                                           const int64_t *v, int n);
TFS_API void tfs_op_call_set_attr_float_list(tfs_op_call *call,
                                             const char *name,
                                             const float *v, int n);
TFS_API void tfs_op_call_set_attr_bool_list(tfs_op_call *call,
                                            const char *name,
                                            const unsigned char *v, int n);
TFS_API void tfs_op_call_set_attr_type_list(tfs_op_call *call,
                                            const char *name,
                                            const tfs_dtype *v, int n);
TFS_API void tfs_op_call_set_attr_string_list(tfs_op_call *call,
                                              const char *name,
                                              const void *const *v,
                                              const size_t *lens, int n);
TFS_API void tfs_op_call_set_attr_shape_list(tfs_op_call *call,
                                             const char *name,
                                             const int64_t *const *dims,
                                             const int *ndims, int n);
TFS_API void tfs_op_call_set_attr_func_name(tfs_op_call *call,
                                            const char *name,
                                            const char *fn, size_t len);

/* Number of outputs the call will produce (valid once its inputs and
 * attrs are set); -1 with an error if that cannot be known yet. */
TFS_API int tfs_op_call_num_outputs(tfs_op_call *call, tfs_status *st);

/* Runs (eager) or adds (graph, tracing) the op.  Fills outputs[0..n) with
 * new values, n = the op's output count, which must be <= max; *n_out
 * receives it.  Returns 0, or -1 with an error.  The call may be executed
 * again (TFE_Execute allows it). */
TFS_API int tfs_op_call_execute(tfs_op_call *call, tfs_value **outputs,
                                int max, int *n_out, tfs_status *st);

/* ---- typed op functions (all three kinds of context) ------------------------
 * Each returns a new value, or NULL with an error.  A NULL input (from an
 * earlier failure) makes them return NULL without touching st, so calls
 * chain and are checked once. */
TFS_API tfs_value *tfs_add(tfs_ctx *c, tfs_value *x, tfs_value *y,
                           tfs_status *st);
TFS_API tfs_value *tfs_sub(tfs_ctx *c, tfs_value *x, tfs_value *y,
                           tfs_status *st);
TFS_API tfs_value *tfs_mul(tfs_ctx *c, tfs_value *x, tfs_value *y,
                           tfs_status *st);
TFS_API tfs_value *tfs_div(tfs_ctx *c, tfs_value *x, tfs_value *y,
                           tfs_status *st);
TFS_API tfs_value *tfs_maximum(tfs_ctx *c, tfs_value *x, tfs_value *y,
                               tfs_status *st);
TFS_API tfs_value *tfs_minimum(tfs_ctx *c, tfs_value *x, tfs_value *y,
                               tfs_status *st);
TFS_API tfs_value *tfs_pow(tfs_ctx *c, tfs_value *x, tfs_value *y,
                           tfs_status *st);
TFS_API tfs_value *tfs_matmul(tfs_ctx *c, tfs_value *a, tfs_value *b,
                              int transpose_a, int transpose_b,
                              tfs_status *st);
TFS_API tfs_value *tfs_bias_add(tfs_ctx *c, tfs_value *v, tfs_value *b,
                                tfs_status *st);
/* "y = Op(x)" ops with attr T: "Neg", "Exp", "Relu", "Softmax", ... */
TFS_API tfs_value *tfs_unary(tfs_ctx *c, const char *op_type, tfs_value *x,
                             tfs_status *st);
TFS_API tfs_value *tfs_binary(tfs_ctx *c, const char *op_type, tfs_value *x,
                              tfs_value *y, tfs_status *st);
TFS_API tfs_value *tfs_relu(tfs_ctx *c, tfs_value *x, tfs_status *st);
TFS_API tfs_value *tfs_tanh(tfs_ctx *c, tfs_value *x, tfs_status *st);
TFS_API tfs_value *tfs_sigmoid(tfs_ctx *c, tfs_value *x, tfs_status *st);
TFS_API tfs_value *tfs_softmax(tfs_ctx *c, tfs_value *x, tfs_status *st);
TFS_API tfs_value *tfs_reduce_sum(tfs_ctx *c, tfs_value *x,
                                  const int32_t *axes, int naxes,
                                  int keep_dims, tfs_status *st);
TFS_API tfs_value *tfs_reduce_mean(tfs_ctx *c, tfs_value *x,
                                   const int32_t *axes, int naxes,
                                   int keep_dims, tfs_status *st);
TFS_API tfs_value *tfs_reshape(tfs_ctx *c, tfs_value *x,
                               const int64_t *shape, int n, tfs_status *st);
TFS_API tfs_value *tfs_cast(tfs_ctx *c, tfs_value *x, tfs_dtype dst,
                            tfs_status *st);
TFS_API tfs_value *tfs_identity(tfs_ctx *c, tfs_value *x, tfs_status *st);

/* tf.print: formats the values as TensorFlow does (StringFormat with
 * "{}" placeholders separated by spaces) and prints them to stderr with a
 * newline (PrintV2).  Runs at once when eager and on every call inside a
 * traced function.  Returns 0 or -1. */
TFS_API int tfs_print(tfs_ctx *c, tfs_value *const *values, int n,
                      tfs_status *st);

/* Fails (INVALID_ARGUMENT "assertion failed: [message] [...]") when the
 * bool scalar `condition` is false; in a traced function the check runs
 * on every call.  Returns 0 or -1. */
TFS_API int tfs_assert(tfs_ctx *c, tfs_value *condition, const char *message,
                       tfs_value *const *data, int ndata, tfs_status *st);

/* ---- variables ------------------------------------------------------------
 * Resource variables owned by an eager context.  Traced functions that use
 * a variable capture it: the function reads and writes the same value. */

/* Creates a variable initialised to `initial` (its dtype and shape fix
 * the variable's); `name` may be NULL.  Caller frees with tfs_var_free
 * (the value lives as long as the context). */
TFS_API tfs_var *tfs_var_new(tfs_ctx *eager, tfs_value *initial,
                             const char *name, tfs_status *st);
TFS_API void tfs_var_free(tfs_var *v);
TFS_API const char *tfs_var_name(const tfs_var *v);

/* Reads the current value (eager: now; tracing: on each call). */
TFS_API tfs_value *tfs_var_read(tfs_ctx *c, tfs_var *v, tfs_status *st);
/* Assigns / adds; returns 0 or -1. */
TFS_API int tfs_var_assign(tfs_ctx *c, tfs_var *v, tfs_value *value,
                           tfs_status *st);
TFS_API int tfs_var_assign_add(tfs_ctx *c, tfs_var *v, tfs_value *delta,
                               tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_EAGER_H */

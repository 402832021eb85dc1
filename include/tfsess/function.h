/*
 * tfsess/function.h - traced functions: TensorFlow 2's tf.function in C.
 *
 * A function wraps a body written against the op API of eager.h.  Calling
 * it computes the call's signature (per input: dtype and shape), looks up
 * a concrete function for it, traces on a miss (the body runs once with a
 * tracing context: its ops become a graph; plain C side effects in the body
 * happen only then), plans that graph once as a callable and runs it.
 *
 * Retracing follows TensorFlow: a new dtype or shape traces again; an
 * input signature with unknown (-1) dimensions covers every call that fits
 * it (a call that does not fit fails); with reduce_retracing, dimensions
 * that vary are widened to unknown after the first retrace.  When many
 * calls retrace, a warning is printed once on stderr.
 *
 * Stateful ops in a body (variable assignments, tfs_print, tfs_assert) run
 * on every call, in program order.
 *
 * Threads: calling one function from several threads at once is safe.
 */
#ifndef TFSESS_FUNCTION_H
#define TFSESS_FUNCTION_H

#include "buffer.h"
#include "common.h"
#include "eager.h"
#include "status.h"

TFS_BEGIN_DECLS

typedef struct tfs_function tfs_function;

/* The body: reads inputs[0..ninputs), writes up to max_outputs values to
 * outputs and their count to *noutputs; returns 0, or -1 with an error in
 * st (which fails the call).  `c` is a tracing context. */
typedef int (*tfs_function_body)(tfs_ctx *c, tfs_value *const *inputs,
                                 int ninputs, tfs_value **outputs,
                                 int max_outputs, int *noutputs, void *user,
                                 tfs_status *st);

/* One entry of an input signature: dtype and partial shape (ndims -1:
 * unknown rank; -1 in dims: unknown dimension).  dims is copied. */
typedef struct tfs_tensor_spec {
  tfs_dtype dtype;
  int ndims;
  const int64_t *dims;
} tfs_tensor_spec;

typedef struct tfs_function_options {
  const char *name;                       /* NULL: "function" */
  const tfs_tensor_spec *input_signature; /* NULL: none */
  int num_inputs_in_signature;
  int reduce_retracing;
  int optimize;                           /* run the graph optimizer (1) */
} tfs_function_options;

/* Creates a function on eager context `c` (kept alive by the caller while
 * the function lives).  `opts` may be NULL.  Caller frees with
 * tfs_function_free. */
TFS_API tfs_function *tfs_function_new(tfs_ctx *c, tfs_function_body body,
                                       void *user,
                                       const tfs_function_options *opts,
                                       tfs_status *st);
TFS_API void tfs_function_free(tfs_function *f);

/* Calls the function with eager values; fills outputs[0..n) with new eager
 * values (caller frees each with tfs_value_free) and returns n, or -1 with
 * an error (outputs untouched).  An input that does not fit a declared
 * input signature fails with INVALID_ARGUMENT. */
TFS_API int tfs_function_call(tfs_function *f, tfs_value *const *inputs,
                              int ninputs, tfs_value **outputs,
                              int max_outputs, tfs_status *st);

/* How many times the body has been traced. */
TFS_API int tfs_function_trace_count(const tfs_function *f);
/* Number of concrete functions cached. */
TFS_API int tfs_function_num_concrete(const tfs_function *f);

/* The i-th concrete function (in tracing order) as a GraphDef that
 * `tfsess run` and TensorFlow can run: placeholders "args_0", "args_1", ...
 * for the inputs (as TensorFlow names positional arguments), outputs as
 * Identity nodes "Identity", "Identity_1", ...; `out` must be empty.
 * Functions that capture variables export their handles as resource
 * placeholders "captured_0", ... */
TFS_API void tfs_function_concrete_graphdef(const tfs_function *f, int i,
                                            tfs_buffer *out, tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_FUNCTION_H */

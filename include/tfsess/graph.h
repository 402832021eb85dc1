/*
 * tfsess/graph.h - building graphs: operations, their inputs and attrs,
 * name scopes, lookups and shape queries.
 *
 * Lifetime: a graph owns its operations.  An operation pointer stays valid
 * until the graph is freed, and adding operations never invalidates
 * existing ones.  tfs_graph_free on a graph that sessions still use only
 * marks it; the last session to go frees it.
 *
 * Threads: build a graph from one thread at a time.  Reading a graph
 * (lookups, queries) is safe alongside sessions running on it.  A graph
 * may keep growing after sessions were created on it; their next plans see
 * the new operations, and operations never change once added, except an
 * input rewired with tfs_graph_update_edge.
 */
#ifndef TFSESS_GRAPH_H
#define TFSESS_GRAPH_H

#include "buffer.h"
#include "common.h"
#include "dtype.h"
#include "status.h"
#include "tensor.h"

TFS_BEGIN_DECLS

typedef struct tfs_graph tfs_graph;
typedef struct tfs_operation tfs_operation;
typedef struct tfs_op_desc tfs_op_desc;

/* An output port (an edge's source) and an input port (its destination).
 * Same layout as TensorFlow's TF_Output / TF_Input. */
typedef struct tfs_output {
  tfs_operation *oper;
  int index;
} tfs_output;

typedef struct tfs_input {
  tfs_operation *oper;
  int index;
} tfs_input;

/* Kinds of attribute, numbered as TensorFlow's TF_AttrType. */
typedef enum tfs_attr_kind {
  TFS_ATTR_KIND_STRING = 0,
  TFS_ATTR_KIND_INT = 1,
  TFS_ATTR_KIND_FLOAT = 2,
  TFS_ATTR_KIND_BOOL = 3,
  TFS_ATTR_KIND_TYPE = 4,
  TFS_ATTR_KIND_SHAPE = 5,
  TFS_ATTR_KIND_TENSOR = 6,
  TFS_ATTR_KIND_PLACEHOLDER = 7,
  TFS_ATTR_KIND_FUNC = 8
} tfs_attr_kind;

/* ---- graphs --------------------------------------------------------- */

/* Returns a new empty graph; caller frees with tfs_graph_free.  NULL only
 * when memory runs out. */
TFS_API tfs_graph *tfs_graph_new(void);

/* Frees the graph and its operations, or, while sessions use it, marks it
 * to be freed by the last one.  Accepts NULL. */
TFS_API void tfs_graph_free(tfs_graph *g);

/* Number of operations. */
TFS_API size_t tfs_graph_num_operations(tfs_graph *g);

/* The operation named `name` (no ":index"), or NULL.  Borrowed. */
TFS_API tfs_operation *tfs_graph_operation_by_name(tfs_graph *g,
                                                   const char *name);

/* Resolves a tensor name "op" or "op:index".  NOT_FOUND when no such
 * operation, INVALID_ARGUMENT for a bad or out-of-range index; the
 * returned oper is NULL then. */
TFS_API tfs_output tfs_graph_output_by_name(tfs_graph *g, const char *name,
                                            tfs_status *st);

/* Iterates operations in insertion order: start with *pos = 0; each call
 * returns the next operation (and leaves *pos as its 1-based position) or
 * NULL at the end. */
TFS_API tfs_operation *tfs_graph_next_operation(tfs_graph *g, size_t *pos);

/* Inferred rank of an output, -1 when unknown. */
TFS_API int tfs_graph_tensor_num_dims(tfs_graph *g, tfs_output out,
                                      tfs_status *st);

/* Inferred dims of an output into dims[0..ndims) (-1: unknown dim).
 * INVALID_ARGUMENT "Expected rank is N but actual rank is M" when ndims
 * differs from the rank. */
TFS_API void tfs_graph_tensor_shape(tfs_graph *g, tfs_output out,
                                    int64_t *dims, int ndims,
                                    tfs_status *st);

/* Pushes a name scope: operations created with a NULL name, and names
 * made by tfs_graph_unique_name, get the prefix "scope/". */
TFS_API void tfs_graph_push_scope(tfs_graph *g, const char *scope,
                                  tfs_status *st);
TFS_API void tfs_graph_pop_scope(tfs_graph *g);

/* A name not yet used in the graph, made from `base` under the current
 * scope: "scope/base", then "scope/base_1", ...  Returns a malloc'd
 * string the caller frees with free(); NULL when memory runs out. */
TFS_API char *tfs_graph_unique_name(tfs_graph *g, const char *base);

/* ---- building operations ---------------------------------------------- */

/* Starts describing an operation of type `op_type` named `name` (NULL
 * picks a unique name from the op type under the current scope).  Never
 * NULL except when memory runs out; errors (unknown op type, ...) are
 * reported by tfs_op_desc_finish. */
TFS_API tfs_op_desc *tfs_op_desc_new(tfs_graph *g, const char *op_type,
                                     const char *name);

/* Inputs, in the order of the op's input arguments.  A list argument
 * (N * T, list(type)) takes one tfs_op_desc_add_input_list call. */
TFS_API void tfs_op_desc_add_input(tfs_op_desc *d, tfs_output input);
TFS_API void tfs_op_desc_add_input_list(tfs_op_desc *d,
                                        const tfs_output *inputs, int n);
TFS_API void tfs_op_desc_add_control_input(tfs_op_desc *d,
                                           tfs_operation *op);
TFS_API void tfs_op_desc_set_device(tfs_op_desc *d, const char *device);
/* Adds `loc:@name` of `op` to the `_class` colocation attr. */
TFS_API void tfs_op_desc_colocate_with(tfs_op_desc *d, tfs_operation *op);

/* Attribute setters.  Values are copied.  As in TensorFlow, an attr set
 * twice (or inferred from an input and set) must agree; a conflict is
 * reported at finish. */
TFS_API void tfs_op_desc_set_attr_string(tfs_op_desc *d, const char *name,
                                         const void *value, size_t len);
TFS_API void tfs_op_desc_set_attr_string_list(tfs_op_desc *d,
                                              const char *name,
                                              const void *const *values,
                                              const size_t *lengths, int n);
TFS_API void tfs_op_desc_set_attr_int(tfs_op_desc *d, const char *name,
                                      int64_t value);
TFS_API void tfs_op_desc_set_attr_int_list(tfs_op_desc *d, const char *name,
                                           const int64_t *values, int n);
TFS_API void tfs_op_desc_set_attr_float(tfs_op_desc *d, const char *name,
                                        float value);
TFS_API void tfs_op_desc_set_attr_float_list(tfs_op_desc *d,
                                             const char *name,
                                             const float *values, int n);
TFS_API void tfs_op_desc_set_attr_bool(tfs_op_desc *d, const char *name,
                                       int value);
TFS_API void tfs_op_desc_set_attr_bool_list(tfs_op_desc *d, const char *name,
                                            const unsigned char *values,
                                            int n);
TFS_API void tfs_op_desc_set_attr_type(tfs_op_desc *d, const char *name,
                                       tfs_dtype value);
TFS_API void tfs_op_desc_set_attr_type_list(tfs_op_desc *d, const char *name,
                                            const tfs_dtype *values, int n);
/* ndims -1: unknown rank; dims may be NULL for a scalar (ndims 0); -1 in
 * dims: unknown dimension. */
TFS_API void tfs_op_desc_set_attr_shape(tfs_op_desc *d, const char *name,
                                        const int64_t *dims, int ndims);
TFS_API void tfs_op_desc_set_attr_shape_list(tfs_op_desc *d,
                                             const char *name,
                                             const int64_t *const *dims,
                                             const int *ndims, int n);
/* Takes a new reference to `value` (does not take the caller's). */
TFS_API void tfs_op_desc_set_attr_tensor(tfs_op_desc *d, const char *name,
                                         tfs_tensor *value, tfs_status *st);
TFS_API void tfs_op_desc_set_attr_tensor_list(tfs_op_desc *d,
                                              const char *name,
                                              tfs_tensor *const *values,
                                              int n, tfs_status *st);
TFS_API void tfs_op_desc_set_attr_func_name(tfs_op_desc *d, const char *name,
                                            const char *value, size_t len);
TFS_API void tfs_op_desc_set_attr_placeholder(tfs_op_desc *d,
                                              const char *name,
                                              const char *placeholder);

/* Validates the description against the op's definition (TensorFlow's
 * messages: "Input 'y' passed int32 expected float while building NodeDef
 * 'mul' using Op<...>", "Duplicate node name in graph: 'x'", shape
 * errors), infers output shapes and adds the operation.  Always frees
 * `d`.  Returns the operation (owned by the graph) or NULL with an
 * error, in which case the graph is unchanged. */
TFS_API tfs_operation *tfs_op_desc_finish(tfs_op_desc *d, tfs_status *st);

/* Frees a description without adding anything.  Accepts NULL. */
TFS_API void tfs_op_desc_free(tfs_op_desc *d);

/* Makes `new_src` input dst.index of dst.oper, as TensorFlow's
 * TF_UpdateEdge: how a while loop gets its back edge, NextIteration ->
 * Merge input 1, once the NextIteration exists.  The new input's dtype
 * must be the input's ("Input 1 of node m was passed int32 from n:0
 * incompatible with expected float.") and its shape compatible with the
 * current input's ("Cannot update edge, incompatible shapes: [2] and
 * [3]."); an index out of range is OUT_OF_RANGE ("Cannot update edge.
 * Input index [2] is greater than the number of total inputs [2].").
 * dst's output shapes stay as they were inferred.  Plans a session built
 * before the change keep the old edge; new signatures see the new one.
 * Does not take ownership of any argument. */
TFS_API void tfs_graph_update_edge(tfs_graph *g, tfs_output new_src,
                                   tfs_input dst, tfs_status *st);

/* ---- operation queries ------------------------------------------------ */

/* Borrowed strings valid while the graph lives. */
TFS_API const char *tfs_operation_name(const tfs_operation *op);
TFS_API const char *tfs_operation_op_type(const tfs_operation *op);
TFS_API const char *tfs_operation_device(const tfs_operation *op);

TFS_API int tfs_operation_num_inputs(const tfs_operation *op);
TFS_API int tfs_operation_num_outputs(const tfs_operation *op);
TFS_API tfs_dtype tfs_operation_input_type(tfs_input in);
TFS_API tfs_dtype tfs_operation_output_type(tfs_output out);
/* The producer of an input; {NULL, -1} for a bad index. */
TFS_API tfs_output tfs_operation_input(tfs_input in);
/* Length of the named input/output argument list; -1 and
 * INVALID_ARGUMENT for an unknown name. */
TFS_API int tfs_operation_input_list_length(const tfs_operation *op,
                                            const char *arg_name,
                                            tfs_status *st);
TFS_API int tfs_operation_output_list_length(const tfs_operation *op,
                                             const char *arg_name,
                                             tfs_status *st);
TFS_API int tfs_operation_output_num_consumers(tfs_output out);
/* Fills up to max consumers; returns how many there are in all. */
TFS_API int tfs_operation_output_consumers(tfs_output out,
                                           tfs_input *consumers, int max);
TFS_API int tfs_operation_num_control_inputs(const tfs_operation *op);
TFS_API int tfs_operation_control_inputs(const tfs_operation *op,
                                         tfs_operation **out, int max);
TFS_API int tfs_operation_num_control_outputs(const tfs_operation *op);
TFS_API int tfs_operation_control_outputs(const tfs_operation *op,
                                          tfs_operation **out, int max);

/* Attribute metadata: kind, whether a list and its length (list_size),
 * total_size (bytes of all strings / elements of all shapes, as TF's
 * TF_AttrMetadata).  INVALID_ARGUMENT "Operation 'x' has no attr named
 * 'y'." when missing. */
typedef struct tfs_attr_metadata {
  unsigned char is_list;
  int64_t list_size;
  tfs_attr_kind type;
  int64_t total_size;
} tfs_attr_metadata;
TFS_API tfs_attr_metadata tfs_operation_attr_metadata(
    const tfs_operation *op, const char *name, tfs_status *st);

/* Attribute getters: INVALID_ARGUMENT when missing or of another kind. */
TFS_API int64_t tfs_operation_attr_int(const tfs_operation *op,
                                       const char *name, tfs_status *st);
TFS_API float tfs_operation_attr_float(const tfs_operation *op,
                                       const char *name, tfs_status *st);
TFS_API int tfs_operation_attr_bool(const tfs_operation *op,
                                    const char *name, tfs_status *st);
TFS_API tfs_dtype tfs_operation_attr_type(const tfs_operation *op,
                                          const char *name, tfs_status *st);
/* Borrowed bytes (valid while the graph lives), length in *len. */
TFS_API const char *tfs_operation_attr_string(const tfs_operation *op,
                                              const char *name, size_t *len,
                                              tfs_status *st);
/* Rank (-1 unknown) and up to max dims. */
TFS_API int tfs_operation_attr_shape(const tfs_operation *op,
                                     const char *name, int64_t *dims,
                                     int max, tfs_status *st);
/* Returns a new tensor reference (caller frees). */
TFS_API tfs_tensor *tfs_operation_attr_tensor(const tfs_operation *op,
                                              const char *name,
                                              tfs_status *st);
/* Copies up to max list elements; returns the list length. */
TFS_API int tfs_operation_attr_int_list(const tfs_operation *op,
                                        const char *name, int64_t *values,
                                        int max, tfs_status *st);
TFS_API int tfs_operation_attr_float_list(const tfs_operation *op,
                                          const char *name, float *values,
                                          int max, tfs_status *st);
TFS_API int tfs_operation_attr_bool_list(const tfs_operation *op,
                                         const char *name,
                                         unsigned char *values, int max,
                                         tfs_status *st);
TFS_API int tfs_operation_attr_type_list(const tfs_operation *op,
                                         const char *name, tfs_dtype *values,
                                         int max, tfs_status *st);
/* Number of attrs and the i-th name (borrowed), sorted by name. */
TFS_API int tfs_operation_num_attrs(const tfs_operation *op);
TFS_API const char *tfs_operation_attr_name(const tfs_operation *op, int i);

/* ---- function library ------------------------------------------------- */

/* A graph carries a library of functions (TensorFlow FunctionDefs): the
 * bodies that PartitionedCall, StatefulPartitionedCall and the functional
 * control-flow ops run.  GraphDef import adds the GraphDef's library and
 * export writes it back unchanged. */

/* Adds a FunctionDef given as serialized bytes (borrowed).  Adding an
 * identical function again changes nothing; INVALID_ARGUMENT "Cannot add
 * function 'f' because a different function with the same name already
 * exists." for a different one, "... because an op with the same name
 * already exists." for the name of an op, "Invalid FunctionDef" for
 * bytes that do not parse.  Thread-safe. */
TFS_API void tfs_graph_add_function(tfs_graph *g, const void *fdef,
                                    size_t len, tfs_status *st);

/* Number of functions in g's library.  Thread-safe. */
TFS_API int tfs_graph_num_functions(tfs_graph *g);

/* Name of function i (0 <= i < tfs_graph_num_functions, in the order
 * added), or NULL for a bad index.  Borrowed: valid while the graph
 * lives.  Thread-safe. */
TFS_API const char *tfs_graph_function_name(tfs_graph *g, int i);

/* The FunctionDef bytes of function `name` into the empty buffer `out`
 * (freed by tfs_buffer_free): the bytes it was added with.  NOT_FOUND
 * "Function 'name' is not in the graph's library." when absent.
 * Thread-safe. */
TFS_API void tfs_graph_get_function_def(tfs_graph *g, const char *name,
                                        tfs_buffer *out,
                                        tfs_status *st);

TFS_END_DECLS

#endif /* TFSESS_GRAPH_H */

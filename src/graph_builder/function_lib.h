/*
 * graph_builder/function_lib.h - a graph's function library: the
 * FunctionDefs and gradient pairs a GraphDef's `library` carries (or the
 * API adds), kept as parsed messages for instantiation and as bytes for
 * export, so a GraphDef read and written again keeps its library
 * unchanged.  Instantiation (function_inst.c) turns one function with its
 * attrs bound into a graph of its own.
 *
 * Threads: every function here expects the caller to hold g->mu, except
 * where it says it locks.
 */
#ifndef TFS_GRAPH_BUILDER_FUNCTION_LIB_H
#define TFS_GRAPH_BUILDER_FUNCTION_LIB_H

#include <stddef.h>

#include "config_proto/pb_util.h"
#include "core/attr_value.h"
#include "graph_builder/graph_internal.h"
#include "proto/function.pb-c.h"

typedef struct tfs_flib_fn {
  char *name;
  Tensorflow__FunctionDef *pb; /* owned (tfs_pb__free) */
  uint8_t *bytes;              /* its serialized form (owned) */
  size_t len;
} tfs_flib_fn;

typedef struct tfs_flib_grad {
  char *fn, *grad; /* GradientDef: function_name, gradient_func */
} tfs_flib_grad;

struct tfs_flib {
  int n, cap;
  tfs_flib_fn *fns;
  int ngrad, gradcap;
  tfs_flib_grad *grads;
};

/* Frees a library (NULL is fine). */
void tfs_flib__free(struct tfs_flib *l);

/* Adds a FunctionDef given as bytes.  An identical function already there
 * is fine (nothing changes); another one of that name is
 * INVALID_ARGUMENT "Cannot add function 'f' because a different function
 * with the same name already exists."; a name of a registered op is
 * refused too, as TensorFlow refuses it.  Returns 0 or -1. */
int tfs_flib__add_bytes(tfs_graph *g, const void *data, size_t len,
                        tfs_status *st);

/* Records `grad` as the gradient function of `fn` (a GradientDef);
 * INVALID_ARGUMENT when fn already has another one. */
int tfs_flib__add_gradient(tfs_graph *g, const char *fn, const char *grad,
                           tfs_status *st);

/* Adds every function and gradient of `lib` (a GraphDef's library).  On
 * failure the library is as it was. */
int tfs_flib__import(tfs_graph *g, const Tensorflow__FunctionDefLibrary *lib,
                     tfs_status *st);

/* Number of functions; tfs_flib__truncate drops the ones added after
 * there were n (an import's rollback; gradients likewise to ngrad). */
int tfs_flib__count(const tfs_graph *g);
void tfs_flib__truncate(tfs_graph *g, int n, int ngrad);

/* The function named `name`, or NULL. */
const tfs_flib_fn *tfs_flib__find(const tfs_graph *g, const char *name);

/* The gradient function registered for `name`, or NULL. */
const char *tfs_flib__gradient(const tfs_graph *g, const char *name);

/* The library as a message in `a` for a GraphDef (borrows the
 * library's messages: pack before the graph changes); *out stays NULL
 * when the library is empty.  -1 on OOM. */
int tfs_flib__export(const tfs_graph *g, tfs_pb_arena *a,
                     Tensorflow__FunctionDefLibrary **out);

/* Copies every function and gradient of `from` into `to` (which may
 * already hold some; identical ones are skipped).  Locks neither graph:
 * the caller holds from->mu and owns `to`. */
int tfs_flib__copy(tfs_graph *to, const tfs_graph *from, tfs_status *st);

/* Calls fn(node, arg) for every node of function `name` and,
 * recursively, of the functions its nodes name by op type or through
 * func attrs (each function once).  Stops at and returns fn's first
 * non-zero result; 0 otherwise (an unknown function is skipped); -1 when
 * memory runs out. */
int tfs_flib__walk_nodes(const tfs_graph *g, const char *name,
                         int (*fn)(const Tensorflow__NodeDef *node, void *arg),
                         void *arg);

/* The op definition of a node of type `type` in g: the registry's, or,
 * for a type that names a function of g's library, the function's
 * signature as an op (TensorFlow calls a function by its name as an op
 * type; the node's attrs bind the signature's attrs).  A function's
 * definition is interned for the life of the process (keyed by its
 * signature), never folded, stateful when the signature is, and has no
 * shape function (outputs of unknown shape).  A `type` that is the very
 * name string of such a definition (a node copied from another graph)
 * resolves without a library.  NULL with TensorFlow's "Op type not
 * registered" error (or RESOURCE_EXHAUSTED).  Caller holds g->mu when g
 * may change meanwhile; g may be NULL (registry only). */
const tfs_op_def *tfs_graph__lookup_op(const tfs_graph *g, const char *type,
                                       tfs_status *st);

/* Whether `def` is a function's signature made an op by
 * tfs_graph__lookup_op (its nodes call the function). */
int tfs_flib__is_function_op(const tfs_op_def *def);

#endif /* TFS_GRAPH_BUILDER_FUNCTION_LIB_H */

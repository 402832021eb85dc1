/*
 * graph_builder/function_inst.h - instantiating a library function: its
 * body with the attrs of one call bound, as a graph of its own that runs
 * like any other (one Placeholder per argument, the body's nodes, the
 * return values and control returns found by name).
 */
#ifndef TFS_GRAPH_BUILDER_FUNCTION_INST_H
#define TFS_GRAPH_BUILDER_FUNCTION_INST_H

#include "core/attr_value.h"
#include "graph_builder/graph_internal.h"

typedef struct tfs_fn_body {
  tfs_graph *graph;       /* owned: the body, with a copy of the library */
  int nargs;
  tfs_output *args;       /* the Placeholder of each input argument */
  int nrets;
  tfs_output *rets;       /* each output argument's value */
  int nctrl;
  tfs_operation **ctrl;   /* control_ret nodes, in signature order */
  int stateful;           /* signature is_stateful or a stateful node */
  unsigned char *const_args; /* per argument, 1 when args[i] is a Const
                                holding the value given to
                                tfs_fn_body__instantiate_consts (not to be
                                fed); NULL when none is */
} tfs_fn_body;

/* Instantiates function `name` of g's library with `binding` (the call's
 * attrs; may be NULL) filling the body's attr placeholders and the
 * signature's type attrs.  Locks g->mu while it reads the library.
 * Errors: NOT_FOUND "Function 'f' is not defined." for an unknown name;
 * INVALID_ARGUMENT naming the function and the node or attr for a body
 * that does not resolve; the import's errors for the body's nodes.
 * Returns 0 (out filled; clear with tfs_fn_body__clear) or -1. */
int tfs_fn_body__instantiate(tfs_graph *g, const char *name,
                             const tfs_attrs *binding, tfs_fn_body *out,
                             tfs_status *st);

/* tfs_fn_body__instantiate with the values of some arguments known:
 * values[i] (i < nvalues; NULL: not known) makes argument i a Const
 * holding a copy of it instead of a Placeholder, when the body returns
 * that argument as is at the same position (a While body's loop
 * invariant, so every iteration sees the value again) and its dtype is
 * the argument's; out->const_args says which were.  Other values are
 * ignored.  Same errors. */
int tfs_fn_body__instantiate_consts(tfs_graph *g, const char *name,
                                    const tfs_attrs *binding,
                                    const struct tfs_tensor *const *values,
                                    int nvalues, tfs_fn_body *out,
                                    tfs_status *st);

/* Which of the first n arguments of function `name` in g's library the
 * body returns as is at the same position (out[i] = 1; a While body's
 * loop invariants).  Returns how many, 0 when the function is unknown.
 * Locks g->mu. */
int tfs_fn_body__returned_args(tfs_graph *g, const char *name,
                               unsigned char *out, int n);

/* Frees what a body owns and zeroes it.  Accepts a zeroed body. */
void tfs_fn_body__clear(tfs_fn_body *b);

#endif /* TFS_GRAPH_BUILDER_FUNCTION_INST_H */

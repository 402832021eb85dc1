/*
 * graph_builder/graph_internal.h - the graph and operation structs, and the
 * internal entry points that the op builder, the GraphDef importer, the
 * optimizer and the session share.
 *
 * Lifetime: the graph owns its operations; an operation pointer stays valid
 * until the graph is freed and adding operations never moves existing
 * ones.  Operations are immutable once added, except their consumer lists
 * (appended to as later operations use them) and an input rewired by
 * tfs_graph__set_input (a while loop's back edge NextIteration -> Merge,
 * tfs_graph_update_edge): an input may then come from a later operation,
 * so insertion order is an execution order only where no input was
 * rewired (plans check, and sort when it is not).  A graph with live sessions
 * is freed when the last session goes (tfs_graph__release).
 *
 * Threads: building is single-threaded by contract; graph->mu serialises
 * additions against sessions that read the graph to build plans.  Lock
 * order: graph->mu before any session lock.
 */
#ifndef TFS_GRAPH_BUILDER_GRAPH_INTERNAL_H
#define TFS_GRAPH_BUILDER_GRAPH_INTERNAL_H

#include <pthread.h>

#include "core/attr_value.h"
#include "core/hashmap.h"
#include "ops/op_def.h"
#include "tfsess/graph.h"

typedef struct tfs_consumer_list {
  int n, cap;
  tfs_input *v;
} tfs_consumer_list;

struct tfs_operation {
  tfs_graph *graph;
  int id;                     /* index in insertion order */
  char *name;
  const tfs_op_def *def;
  char *device;               /* requested device, "" if none */
  tfs_attrs attrs;            /* complete: defaults filled */
  int ninputs;
  tfs_output *inputs;         /* producer of each flat input */
  tfs_dtype *in_types;        /* expected dtype of each input (ref kept) */
  int ncontrol;
  tfs_operation **control_inputs;
  int noutputs;
  tfs_dtype *out_types;
  tfs_shape *out_shapes;      /* inferred partial shapes */
  int *in_arg_start, *in_arg_len;   /* per op-def input arg */
  int *out_arg_start, *out_arg_len; /* per op-def output arg */
  tfs_consumer_list *consumers;     /* per output */
  int ncontrol_out, control_out_cap;
  tfs_operation **control_outputs;
  /* NodeDef.experimental_debug_info.original_node_names: the user's nodes
   * an optimizer rewrite replaced by this one (owned; norig 0: none) */
  int norig;
  char **orig_names;
};

struct tfs_graph {
  pthread_mutex_t mu;
  tfs_operation **ops;        /* guarded by: mu (appends) */
  size_t nops, cap;
  tfs_map by_name;            /* name -> op; guarded by: mu */
  tfs_map name_uses;          /* unique-name counters; keys owned below */
  char **name_keys;
  size_t nname_keys, name_keys_cap;
  char **scopes;              /* name scope stack */
  int nscopes, scopes_cap;
  int nsessions;              /* guarded by: mu */
  int free_requested;         /* guarded by: mu */
  struct tfs_flib *lib;       /* function library (function_lib.h); NULL:
                                 empty; guarded by: mu */
  int has_versions;           /* 0: producer TFS_GRAPH_DEF_VERSION and
                                 min_consumer 0, as a new TensorFlow graph */
  int producer, min_consumer; /* TensorFlow's Graph::versions(): imports
                                 keep the lowest producer and the highest
                                 min_consumer; exports write them; guarded
                                 by: mu */
};

/* Everything needed to add one node; the importer and the op builder fill
 * it.  Borrowed pointers; tfs_graph__add_node copies what it keeps. */
typedef struct tfs_node_spec {
  const char *name;
  const char *op_type;
  const char *device;
  tfs_attrs *attrs;            /* consumed: cleared on return */
  int ninputs;
  const tfs_output *inputs;    /* an entry {NULL, -1}: a back edge into a
                                  Merge the importer sets afterwards
                                  (tfs_graph__set_input); its shape is
                                  unknown until then, as in TensorFlow */
  int ncontrol;
  tfs_operation *const *control_inputs;
  int norig;                   /* original node names (copied) */
  const char *const *orig_names;
} tfs_node_spec;

/* Validates a node against its op definition (attrs present, kinds and
 * allowed values, input count and dtypes), infers output shapes and adds
 * it.  Errors are TensorFlow's messages.  Caller holds g->mu. */
tfs_operation *tfs_graph__add_node(tfs_graph *g, tfs_node_spec *spec,
                                   tfs_status *st);

/* Copies orig_names[0..n) into op's original node names (replacing
 * any); 0, or -1 on OOM with op's names unchanged. */
int tfs_graph__set_orig_names(tfs_operation *op, int n,
                              const char *const *orig_names);
/* Frees op's original node names. */
void tfs_graph__free_orig_names(tfs_operation *op);

/* Makes `src` input k of `op` (TensorFlow's Graph::UpdateEdge, or the
 * importer's back edge into a Merge, whose input was NULL until then):
 * checks the dtype ("Input 1 of node m was passed int32 from n:0
 * incompatible with expected float."), moves `op` from the old
 * producer's consumers to src's.  Output shapes of `op` are kept (as
 * TensorFlow keeps them).  Returns 0, or -1 with st set and nothing
 * changed.  Caller holds the graph's mu. */
int tfs_graph__set_input(tfs_operation *op, int k, tfs_output src,
                         tfs_status *st);

/* Fills attrs missing from `a` with op-def defaults (no validation). */
int tfs_graph__add_defaults(const tfs_op_def *def, tfs_attrs *a);

/* Computes argument layout and dtypes of a node from its op def and
 * complete attrs.  Returns 0 or -1 with an error. */
typedef struct tfs_arg_layout {
  int ninputs, noutputs;
  int *in_start, *in_len, *out_start, *out_len; /* per arg */
  tfs_dtype *in_types, *out_types;              /* flat */
} tfs_arg_layout;
int tfs_graph__arg_layout(const tfs_op_def *def, const tfs_attrs *attrs,
                          const char *node_name, tfs_arg_layout *out,
                          tfs_status *st);
void tfs_arg_layout_clear(tfs_arg_layout *l);

/* TensorFlow's "{{node NAME}} = Op[attrs](inputs)" summary. */
/* Sets attr `name` of d to a copy of from's value of it; nothing when
 * `from` has no such attr.  A conflict with a value already set is
 * reported by tfs_op_desc_finish, as with the public setters. */
void tfs_op_desc__copy_attr(tfs_op_desc *d, const tfs_operation *from,
                            const char *name);

char *tfs_graph__summarize_node(const tfs_operation *op);

/* "{{node NAME}}" */
#define TFS_NODE_FMT "{{node %s}}"

/* Removes the last `n` operations added (import rollback).  Caller holds
 * g->mu; the operations must have no consumers outside the removed set. */
void tfs_graph__truncate(tfs_graph *g, size_t nops);

/* Session bookkeeping (tfs_graph_free is deferred while sessions live). */
void tfs_graph__retain(tfs_graph *g);
void tfs_graph__release(tfs_graph *g);

/* Parses "name", "name:3" into *name_len / *index; returns -1 if the
 * index part is malformed. */
int tfs_graph__parse_tensor_name(const char *s, size_t *name_len,
                                 int *index);

/* Constant value of an output if its producer is a Const (borrowed). */
const tfs_tensor *tfs_graph__const_value(tfs_output o);

#endif

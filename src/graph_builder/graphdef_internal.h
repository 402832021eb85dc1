/*
 * graph_builder/graphdef_internal.h - internal NodeDef / GraphDef / OpDef
 * serializers behind tfsess/graphdef.h, shared with the TF C API layer
 * (TF_OperationToNodeDef, TF_GraphGetOpDef, TF_GetAllOpList).
 */
#ifndef TFS_GRAPH_BUILDER_GRAPHDEF_INTERNAL_H
#define TFS_GRAPH_BUILDER_GRAPHDEF_INTERNAL_H

#include "config_proto/pb_util.h"
#include "graph_builder/graph_internal.h"
#include "proto/graph.pb-c.h"
#include "proto/op_def.pb-c.h"

/* The GraphDef version of the TensorFlow release tfsess mirrors (2.21's
 * TF_GRAPH_DEF_VERSION): exported GraphDefs say producer 2474, and
 * imports check min_consumer / bad_consumers against it. */
#define TFS_GRAPH_DEF_VERSION 2474
#define TFS_GRAPH_DEF_VERSION_MIN_PRODUCER 0

/* The NodeDef of `op` (name, op, inputs "x" / "x:k" / "^c", device, every
 * attr sorted by name), allocated in `a`; it borrows op's strings and
 * tensors.  NULL with an error when memory runs out.  Caller holds the
 * graph's mutex or otherwise keeps the graph from changing. */
Tensorflow__NodeDef *tfs_graph__node_def_proto(const tfs_operation *op,
                                               tfs_pb_arena *a,
                                               tfs_status *st);

/* Serialized NodeDef of `op` into the empty buffer `out` (tfs_buffer_free
 * releases).  Takes the graph's mutex. */
int tfs_graph__node_def(tfs_operation *op, tfs_buffer *out, tfs_status *st);

/* The OpDef of a registered op (arguments, attrs with kinds, defaults,
 * minimums and allowed values, flags), allocated in `a`. */
Tensorflow__OpDef *tfs_op_def__to_proto(const tfs_op_def *def,
                                        tfs_pb_arena *a, tfs_status *st);
int tfs_op_def__serialize(const tfs_op_def *def, tfs_buffer *out,
                          tfs_status *st);

/* Every registered op, sorted by name, as a serialized OpList. */
int tfs_op_list__serialize(tfs_buffer *out, tfs_status *st);

#endif

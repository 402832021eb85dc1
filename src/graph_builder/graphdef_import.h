/*
 * graph_builder/graphdef_import.h - the records behind tfs_import_options
 * and tfs_import_results (tfsess/graphdef.h), shared by the option
 * setters (import_options.c) and the importer (graphdef_import.c).
 */
#ifndef TFS_GRAPH_BUILDER_GRAPHDEF_IMPORT_H
#define TFS_GRAPH_BUILDER_GRAPHDEF_IMPORT_H

#include "graph_builder/graph_internal.h"
#include "tfsess/graphdef.h"
#include "proto/graph.pb-c.h"

/* src_name:src_index in the GraphDef becomes dst; src_index -1 is the
 * control input "^src_name" (dst.index is -1 too when set through
 * tfs_import_options_remap_control_dependency). */
typedef struct tfs_import_mapping {
  char *src_name;
  int src_index;
  tfs_output dst;
} tfs_import_mapping;

typedef struct tfs_import_return {
  char *name;
  int index;
} tfs_import_return;

struct tfs_import_options {
  char *prefix;          /* NULL or "": none */
  char *default_device;  /* NULL or "": none */
  int uniquify_names, uniquify_prefix;
  int nmap, mapcap;
  tfs_import_mapping *map;
  int ndeps, depcap;
  tfs_operation **deps;
  int nret_out, ret_out_cap;
  tfs_import_return *ret_out;
  int nret_ops, ret_ops_cap;
  char **ret_ops;
  int max_nesting;       /* 0: TFS_PB_MAX_DEPTH */
  int64_t max_nodes;     /* 0: no limit */
  int oom;               /* a setter ran out of memory: import fails */
};

struct tfs_import_results {
  int nout;
  tfs_output *outputs;
  int nops;
  tfs_operation **ops;
  int nmissing;
  char **missing_names;
  int *missing_idx;
};

/* tfs_graph_import_graphdef on a GraphDef already parsed (the graph of a
 * SavedModel's MetaGraphDef): the same checks, results and errors, but
 * `gd` stays the caller's. */
tfs_import_results *tfs_graph__import_parsed(tfs_graph *g,
                                             const Tensorflow__GraphDef *gd,
                                             const tfs_import_options *opts,
                                             tfs_status *st);

#endif

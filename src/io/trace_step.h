/*
 * io/trace_step.h - the step statistics of a traced run, read back from its
 * RunMetadata bytes into plain C: what the Chrome trace writer
 * (trace_json.c) and the command line's per-op profile consume.  Reading
 * the RunMetadata rather than the executor's records means whatever the
 * session reports there (node names, timeline labels, devices) is what
 * the trace shows.
 */
#ifndef TFS_IO_TRACE_STEP_H
#define TFS_IO_TRACE_STEP_H

#include <stdint.h>

#include "core/shape.h"
#include "tfsess/graph.h"
#include "tfsess/status.h"

typedef struct tfs_trace_output {
  int slot;
  tfs_dtype dtype;
  tfs_shape shape; /* rank -1: unknown */
} tfs_trace_output;

/* One input of a node, from its timeline label ("x", "y:1"); control
 * inputs ("^c") are left out. */
typedef struct tfs_trace_input {
  const char *node; /* the producing node's name */
  int slot;
  const tfs_trace_output *out; /* the producer's output in this step, or
                                  NULL (not executed: a fed placeholder) */
} tfs_trace_input;

/* One node execution (a NodeExecStats).  Strings are borrowed from the
 * step and live as long as it does. */
typedef struct tfs_trace_node {
  const char *name;   /* node_name */
  const char *op;     /* the op type: the graph's node of that name when a
                         graph was given and holds it, else `kernel` */
  const char *kernel; /* the op named by the timeline label
                         ("name = Op(...)"): what ran; "" without one */
  const char *label;  /* timeline_label, "" when empty */
  const char *device; /* the DeviceStepStats' device */
  int device_index;   /* into tfs_trace_step.devices */
  uint32_t tid;       /* thread_id */
  int64_t start_ns;   /* wall clock since the epoch (all_start) */
  int64_t dur_ns;     /* all_end_rel */
  int noutputs, ninputs;
  tfs_trace_output *outputs;
  tfs_trace_input *inputs;
} tfs_trace_node;

typedef struct tfs_trace_step {
  int n;
  tfs_trace_node *nodes; /* in the RunMetadata's order */
  int ndevices;
  const char **devices;
  void *priv; /* the parsed message and the strings made from it */
} tfs_trace_step;

/* Reads the step statistics of RunMetadata bytes; `g` (may be NULL)
 * gives the nodes' op types.  Returns 0, or -1 with INVALID_ARGUMENT for
 * bytes that are no RunMetadata, FAILED_PRECONDITION when they hold no
 * step statistics (the run was not traced), RESOURCE_EXHAUSTED when
 * memory runs out.  Free with tfs_trace__clear either way. */
int tfs_trace__read(const void *run_metadata, size_t len, tfs_graph *g,
                    tfs_trace_step *out, tfs_status *st);
void tfs_trace__clear(tfs_trace_step *t);

#endif /* TFS_IO_TRACE_STEP_H */

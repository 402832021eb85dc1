/*
 * session/step_stats.h - what one run records when tracing is on, in plain
 * C: per node its start and end times, thread and outputs.  The executor
 * fills it; config_proto turns it into RunMetadata.step_stats bytes.
 */
#ifndef TFS_SESSION_STEP_STATS_H
#define TFS_SESSION_STEP_STATS_H

#include <stdint.h>

#include "core/shape.h"

typedef struct tfs_node_output_stats {
  int slot;
  tfs_dtype dtype;
  tfs_shape shape;
  int64_t bytes;             /* allocated bytes of the output */
  uint64_t ptr;              /* data address (AllocationDescription.ptr):
                                equal for an output reusing an input */
} tfs_node_output_stats;

struct tfs_operation;

typedef struct tfs_node_stats {
  const char *node_name;     /* borrowed from the graph */
  const char *op_type;       /* borrowed */
  const struct tfs_operation *op; /* borrowed: the node, whose inputs the
                                     timeline label lists; may be NULL */
  const char *device;        /* where it ran (borrowed, process-wide);
                                NULL: tfs_step_stats.device */
  int64_t all_start_nanos;   /* wall clock, since the epoch */
  int64_t op_start_rel_nanos;
  int64_t op_end_rel_nanos;
  int64_t all_end_rel_nanos;
  int64_t scheduled_nanos;   /* wall clock when it became ready */
  uint32_t thread_id;
  int noutputs;
  tfs_node_output_stats *outputs; /* owned */
  const char *fused_into;    /* NULL, or (borrowed) the name of the node
                                that ran when node_name is one of the
                                user's nodes it replaced (see
                                tfs_step_stats__attribute_originals) */
} tfs_node_stats;

typedef struct tfs_step_stats {
  const char *device;        /* "/job:localhost/replica:0/task:0/device:CPU:0" */
  int n, cap;
  tfs_node_stats *nodes;     /* owned */
  int oom;                   /* memory ran out while recording: the stats
                                are incomplete (RESOURCE_EXHAUSTED when
                                they are written) */
} tfs_step_stats;

/* Options of one run (RunOptions). */
typedef struct tfs_run_options {
  int trace_level;           /* 0 NO_TRACE ... 3 FULL_TRACE */
  int64_t timeout_in_ms;     /* 0: the session's operation_timeout_in_ms */
  int inter_op_thread_pool;  /* index into session_inter_op_thread_pool;
                                -1: the caller's thread */
} tfs_run_options;

void tfs_step_stats_clear(tfs_step_stats *s);

/* Names the user's nodes: a record of a node that carries original node
 * names (an optimizer rewrite, NodeDef experimental_debug_info) becomes
 * one record per original name, in their order, each with fused_into set
 * to the node that ran.  The record whose name is the node's own name
 * (else the last one: the end of the fused chain) keeps the whole time and
 * the outputs; the others start at the same time and last zero
 * nanoseconds.  Other records are unchanged.  Returns 0, or -1 when
 * memory runs out (the stats are unchanged). */
int tfs_step_stats__attribute_originals(tfs_step_stats *s);

#endif

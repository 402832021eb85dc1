/*
 * session/exec_cf.h - the control-flow executor's plan-time facts: which
 * frame (while loop) each node runs in, its edges, its initial pending
 * count, where its inputs live in an iteration's state.  Built once per
 * plan with TF1 control flow (exec_cf_plan.c) and read by every run of it
 * (exec_cf.c).  Nothing here is public API.
 */
#ifndef TFS_SESSION_EXEC_CF_H
#define TFS_SESSION_EXEC_CF_H

#include "session/exec.h"

/* One out edge of a node: output `port` to input `input` of `dst`; a
 * control edge has port and input -1. */
typedef struct tfs_cf_edge {
  int32_t dst;
  int32_t port;
  int32_t input;
} tfs_cf_edge;

/* A frame as the graph declares it: the root (index 0) or one frame_name
 * of Enter nodes.  A run creates one instance per parent iteration it is
 * entered from. */
typedef struct tfs_cf_frame_info {
  const char *name;        /* the frame_name attr (borrowed); "" root */
  int parent;              /* frame the first Enter runs in; -1 root */
  int nnodes;              /* nodes in the frame (local ids 0..nnodes) */
  int ninputs;             /* input entries of those nodes */
  int nenters;             /* Enter nodes into this frame */
  int parallel_iterations; /* from the first Enter, as TensorFlow */
  int32_t *init_pending;   /* nnodes: pending count a new iteration
                              starts with (TensorFlow's PendingCounts) */
} tfs_cf_frame_info;

typedef struct tfs_cf_node {
  int32_t frame;           /* the frame the node runs in */
  int32_t local;           /* its index in that frame */
  int32_t in_start;        /* its first input entry in an iteration */
  int32_t nedges;
  tfs_cf_edge *edges;      /* out edges, by consumer then input */
  int32_t child;           /* Enter: the frame it enters; else -1 */
  uint8_t is_constant;     /* Enter: a loop invariant */
  uint8_t fed_inputs;      /* some input is a feed (read from its slot) */
  uint8_t fetched;         /* some output is fetched */
} tfs_cf_node;

struct tfs_cf_plan {
  int nnodes;
  tfs_cf_node *nodes;      /* by plan position */
  int nframes;
  tfs_cf_frame_info *frames;
  int32_t *slot_owner;     /* nslots: the node producing a slot; -1 for
                              a feed's */
  int32_t *fetch_order;    /* nfetches: position of each fetch among the
                              fetch names sorted ("Retval[i]") */
};

#endif

/*
 * config_proto/run_metadata.c - RunOptions bytes into tfs_run_options, and
 * the step statistics of a traced run out as RunMetadata bytes (one
 * DeviceStepStats for the CPU, a NodeExecStats per node with microsecond
 * and nanosecond times and its outputs' TensorDescriptions).
 */
#include "config_proto/run_metadata.h"

#include <stdio.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/status.h"
#include "graph_builder/tensor_proto.h"
#include "proto/config.pb-c.h"

#define CPU_DEVICE "/job:localhost/replica:0/task:0/device:CPU:0"

int tfs_run_options__parse(const void *data, size_t len,
                           tfs_run_options *out, tfs_status *st) {
  memset(out, 0, sizeof(*out));
  if (len == 0) return 0;
  int oom;
  Tensorflow__RunOptions *ro = (Tensorflow__RunOptions *)tfs_pb__unpack(
      &tensorflow__run_options__descriptor, data, len, &oom);
  if (!ro) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "Unparseable RunOptions proto");
    return -1;
  }
  out->trace_level = (int)ro->trace_level;
  out->timeout_in_ms = ro->timeout_in_ms;
  out->inter_op_thread_pool = ro->inter_op_thread_pool;
  tfs_pb__free(&ro->base);
  return 0;
}

static Tensorflow__NodeOutput *output_out(const tfs_node_output_stats *o,
                                          tfs_pb_arena *a) {
  Tensorflow__NodeOutput *no = tfs_pb_arena_alloc(a, sizeof(*no));
  Tensorflow__TensorDescription *td = tfs_pb_arena_alloc(a, sizeof(*td));
  Tensorflow__AllocationDescription *ad = tfs_pb_arena_alloc(a, sizeof(*ad));
  if (!no || !td || !ad) return NULL;
  tensorflow__node_output__init(no);
  tensorflow__tensor_description__init(td);
  tensorflow__allocation_description__init(ad);
  no->slot = o->slot;
  no->tensor_description = td;
  td->dtype = (Tensorflow__DataType)o->dtype;
  td->shape = tfs_shape__to_proto(&o->shape, a);
  if (!td->shape) return NULL;
  if (o->bytes > 0) {
    ad->requested_bytes = o->bytes;
    ad->allocated_bytes = o->bytes;
    ad->allocator_name = "cpu";
    td->allocation_description = ad;
  }
  return no;
}

static Tensorflow__NodeExecStats *node_out(const tfs_node_stats *n,
                                           tfs_pb_arena *a) {
  Tensorflow__NodeExecStats *ns = tfs_pb_arena_alloc(a, sizeof(*ns));
  if (!ns) return NULL;
  tensorflow__node_exec_stats__init(ns);
  const char *name = n->node_name ? n->node_name : "";
  ns->node_name = (char *)name;
  ns->all_start_nanos = n->all_start_nanos;
  ns->op_start_rel_nanos = n->op_start_rel_nanos;
  ns->op_end_rel_nanos = n->op_end_rel_nanos;
  ns->all_end_rel_nanos = n->all_end_rel_nanos;
  ns->scheduled_nanos = n->scheduled_nanos;
  ns->all_start_micros = n->all_start_nanos / 1000;
  ns->op_start_rel_micros = n->op_start_rel_nanos / 1000;
  ns->op_end_rel_micros = n->op_end_rel_nanos / 1000;
  ns->all_end_rel_micros = n->all_end_rel_nanos / 1000;
  ns->scheduled_micros = n->scheduled_nanos / 1000;
  ns->thread_id = n->thread_id;
  if (n->op_type) {
    /* TensorFlow's "name = Op(inputs)"; the inputs are not recorded */
    size_t len = strlen(name) + strlen(n->op_type) + 8;
    ns->timeline_label = tfs_pb_arena_alloc(a, len);
    if (!ns->timeline_label) return NULL;
    snprintf(ns->timeline_label, len, "%s = %s()", name, n->op_type);
  }
  if (n->noutputs > 0) {
    ns->output = tfs_pb_arena_array(a, (size_t)n->noutputs, sizeof(void *));
    if (!ns->output) return NULL;
    for (int i = 0; i < n->noutputs; i++)
      if (!(ns->output[i] = output_out(&n->outputs[i], a))) return NULL;
    ns->n_output = (size_t)n->noutputs;
  }
  return ns;
}

int tfs_run_metadata__serialize(const tfs_step_stats *stats, tfs_buffer *out,
                                tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__RunMetadata md = TENSORFLOW__RUN_METADATA__INIT;
  Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
  Tensorflow__DeviceStepStats dev = TENSORFLOW__DEVICE_STEP_STATS__INIT;
  Tensorflow__DeviceStepStats *devs[1] = {&dev};
  int rc = -1;
  if (stats) {
    md.step_stats = &ss;
    ss.dev_stats = devs;
    ss.n_dev_stats = 1;
    dev.device = (char *)(stats->device ? stats->device : CPU_DEVICE);
    if (stats->n > 0) {
      dev.node_stats =
          tfs_pb_arena_array(&a, (size_t)stats->n, sizeof(void *));
      if (!dev.node_stats) goto oom;
      for (int i = 0; i < stats->n; i++)
        if (!(dev.node_stats[i] = node_out(&stats->nodes[i], &a))) goto oom;
      dev.n_node_stats = (size_t)stats->n;
    }
  }
  rc = tfs_pb__pack(&md.base, out, st);
  tfs_pb_arena_free(&a);
  return rc;
oom:
  tfs_pb_arena_free(&a);
  TFS_OOM(st);
  return -1;
}

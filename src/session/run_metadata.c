/*
 * session/run_metadata.c - RunOptions bytes into tfs_run_options, and
 * the step statistics of a traced run out as RunMetadata bytes (one
 * DeviceStepStats per device a node ran on, CPU:0 first; a NodeExecStats
 * per node with microsecond and nanosecond times and its outputs'
 * TensorDescriptions).
 */
#include "session/run_metadata.h"

#include <stdio.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "graph_builder/graph_internal.h"
#include "graph_builder/tensor_proto.h"
#include "proto/config.pb-c.h"

#define CPU_DEVICE "/job:localhost/replica:0/task:0/device:CPU:0"

int tfs_run_options__parse(const void *data, size_t len, int max_depth,
                           tfs_run_options *out, tfs_status *st) {
  memset(out, 0, sizeof(*out));
  if (len == 0) return 0;
  int oom;
  Tensorflow__RunOptions *ro = (Tensorflow__RunOptions *)tfs_pb__unpack_nested(
      &tensorflow__run_options__descriptor, data, len, max_depth, &oom);
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

/* The allocator of a node's outputs: TensorFlow's "cpu", or the device's
 * caching allocator ("GPU_0_bfc") for a node on another device type;
 * NULL when memory runs out. */
static const char *allocator_name(const char *device, tfs_pb_arena *a) {
  const char *t = device ? strstr(device, "/device:") : NULL;
  if (!t || strncmp(t + 8, "CPU:", 4) == 0) return "cpu";
  const char *colon = strrchr(t + 8, ':');
  if (!colon) return "cpu";
  size_t len = (size_t)(colon - (t + 8)) + strlen(colon) + 8;
  char *name = tfs_pb_arena_alloc(a, len);
  if (name)
    snprintf(name, len, "%.*s_%s_bfc", (int)(colon - (t + 8)), t + 8,
             colon + 1);
  return name;
}

static Tensorflow__NodeOutput *output_out(const tfs_node_output_stats *o,
                                          const char *device,
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
    ad->allocator_name = (char *)allocator_name(device, a);
    if (!ad->allocator_name) return NULL;
    ad->ptr = o->ptr;
    td->allocation_description = ad;
  }
  return no;
}

/* TensorFlow's label: "name = Op(x, y:1, ^c)", the NodeDef's inputs.
 * For one of the user's nodes a rewrite replaced, the kernel that ran:
 * "conv/Conv2D = _FusedConv2D(x, w, b) [fused into conv/Relu]", the
 * node that ran only named when it is not this one. */
static char *timeline_label(const tfs_node_stats *n, const char *name,
                            tfs_pb_arena *a) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "%s = %s(", name, n->op_type);
  const tfs_operation *op = n->op;
  for (int i = 0; op && i < op->ninputs; i++) {
    tfs_output in = op->inputs[i];
    tfs_strbuf_printf(&b, "%s%s", i ? ", " : "", in.oper->name);
    if (in.index) tfs_strbuf_printf(&b, ":%d", in.index);
  }
  for (int i = 0; op && i < op->ncontrol; i++)
    tfs_strbuf_printf(&b, "%s^%s", i || op->ninputs ? ", " : "",
                      op->control_inputs[i]->name);
  tfs_strbuf_puts(&b, ")");
  if (n->fused_into && strcmp(n->fused_into, name) != 0)
    tfs_strbuf_printf(&b, " [fused into %s]", n->fused_into);
  char *s = b.oom ? NULL : tfs_pb_arena_strdup(a, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return s;
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
  if (n->op_type && !(ns->timeline_label = timeline_label(n, name, a)))
    return NULL;
  if (n->noutputs > 0) {
    ns->output = tfs_pb_arena_array(a, (size_t)n->noutputs, sizeof(void *));
    if (!ns->output) return NULL;
    for (int i = 0; i < n->noutputs; i++)
      if (!(ns->output[i] = output_out(&n->outputs[i], n->device, a)))
        return NULL;
    ns->n_output = (size_t)n->noutputs;
  }
  return ns;
}

/* The device a node ran on. */
static const char *node_device(const tfs_step_stats *s,
                               const tfs_node_stats *n) {
  if (n->device) return n->device;
  return s->device ? s->device : CPU_DEVICE;
}

/* One DeviceStepStats per device, as TensorFlow's: the step's device
 * (CPU:0) first, always, then the others in order of their first node. */
static int device_stats_out(const tfs_step_stats *stats,
                            Tensorflow__StepStats *ss, tfs_pb_arena *a) {
  size_t n = (size_t)stats->n;
  const char **names = tfs_pb_arena_array(a, n + 1, sizeof(char *));
  Tensorflow__DeviceStepStats **devs =
      tfs_pb_arena_array(a, n + 1, sizeof(void *));
  if (!names || !devs) return -1;
  size_t nd = 1;
  names[0] = stats->device ? stats->device : CPU_DEVICE;
  for (size_t i = 0; i < n; i++) {
    const char *d = node_device(stats, &stats->nodes[i]);
    size_t k = 0;
    while (k < nd && strcmp(names[k], d) != 0) k++;
    if (k == nd) names[nd++] = d;
  }
  for (size_t k = 0; k < nd; k++) {
    Tensorflow__DeviceStepStats *dev = tfs_pb_arena_alloc(a, sizeof(*dev));
    if (!dev) return -1;
    tensorflow__device_step_stats__init(dev);
    dev->device = (char *)names[k];
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++)
      cnt += strcmp(node_device(stats, &stats->nodes[i]), names[k]) == 0;
    if (cnt) {
      dev->node_stats = tfs_pb_arena_array(a, cnt, sizeof(void *));
      if (!dev->node_stats) return -1;
      for (size_t i = 0; i < n; i++) {
        if (strcmp(node_device(stats, &stats->nodes[i]), names[k]) != 0)
          continue;
        dev->node_stats[dev->n_node_stats] = node_out(&stats->nodes[i], a);
        if (!dev->node_stats[dev->n_node_stats++]) return -1;
      }
    }
    devs[k] = dev;
  }
  ss->dev_stats = devs;
  ss->n_dev_stats = nd;
  return 0;
}

int tfs_run_metadata__serialize(const tfs_step_stats *stats, tfs_buffer *out,
                                tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__RunMetadata md = TENSORFLOW__RUN_METADATA__INIT;
  Tensorflow__StepStats ss = TENSORFLOW__STEP_STATS__INIT;
  int rc = -1;
  if (stats) {
    if (stats->oom) goto oom; /* a node's record was lost */
    md.step_stats = &ss;
    if (device_stats_out(stats, &ss, &a)) goto oom;
  }
  rc = tfs_pb__pack(&md.base, out, st);
  tfs_pb_arena_free(&a);
  return rc;
oom:
  tfs_pb_arena_free(&a);
  TFS_OOM(st);
  return -1;
}

/*
 * io/trace_step.c - RunMetadata bytes into a tfs_trace_step: one record per
 * NodeExecStats with its device, thread, times, outputs, and the inputs
 * and op its timeline label names ("name = Op(x, y:1, ^c)", TensorFlow's
 * format), each input joined to its producer's output in the same step.
 */
#include "io/trace_step.h"

#include <stdio.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/status.h"
#include "proto/config.pb-c.h"

typedef struct trace_priv {
  Tensorflow__RunMetadata *md;
  tfs_pb_arena arena;
} trace_priv;

static void read_output(const Tensorflow__NodeOutput *no,
                        tfs_trace_output *o) {
  o->slot = no->slot;
  o->dtype = TFS_FLOAT;
  tfs_shape_unknown(&o->shape);
  const Tensorflow__TensorDescription *td = no->tensor_description;
  if (!td) return;
  o->dtype = (tfs_dtype)td->dtype;
  const Tensorflow__TensorShapeProto *sp = td->shape;
  if (!sp || sp->unknown_rank || sp->n_dim > TFS_MAX_RANK) return;
  o->shape.rank = (int32_t)sp->n_dim;
  for (size_t i = 0; i < sp->n_dim; i++)
    o->shape.dims[i] = sp->dim[i]->size < -1 ? -1 : sp->dim[i]->size;
}

/* The op and inputs of "name = Op(a, b:1, ^c)".  A label of another
 * form leaves the kernel "" and no inputs.  Returns 0, -1 on OOM. */
static int parse_label(tfs_trace_node *n, tfs_pb_arena *a) {
  n->kernel = "";
  const char *eq = strstr(n->label, " = ");
  if (!eq) return 0;
  const char *op = eq + 3, *open = strchr(op, '(');
  size_t oplen = open ? (size_t)(open - op) : strlen(op);
  if (!(n->kernel = tfs_pb_arena_strndup(a, op, oplen))) return -1;
  if (!open) return 0;
  const char *close = strrchr(open, ')');
  if (!close) close = open + strlen(open);
  int cap = 1;
  for (const char *p = open + 1; p < close; p++) cap += *p == ',';
  n->inputs = tfs_pb_arena_array(a, (size_t)cap, sizeof(tfs_trace_input));
  if (!n->inputs) return -1;
  for (const char *p = open + 1; p < close;) {
    while (p < close && *p == ' ') p++;
    const char *e = p;
    while (e < close && *e != ',') e++;
    if (e > p && *p != '^') {
      const char *colon = e;
      while (colon > p && colon[-1] != ':') colon--;
      int slot = 0;
      size_t len = (size_t)(e - p);
      if (colon > p && colon < e) {
        int ok = 1;
        for (const char *q = colon; q < e; q++) ok &= *q >= '0' && *q <= '9';
        if (ok && e - colon < 9) {
          sscanf(colon, "%d", &slot);
          len = (size_t)(colon - 1 - p);
        }
      }
      tfs_trace_input *in = &n->inputs[n->ninputs++];
      if (!(in->node = tfs_pb_arena_strndup(a, p, len))) return -1;
      in->slot = slot;
    }
    p = e + 1;
  }
  return 0;
}

/* Microseconds as nanoseconds, saturating (hostile RunMetadata may hold
 * any int64). */
static int64_t us_to_ns(int64_t us) {
  if (us > INT64_MAX / 1000) return INT64_MAX;
  if (us < INT64_MIN / 1000) return INT64_MIN;
  return us * 1000;
}

static int read_node(const Tensorflow__NodeExecStats *ns, tfs_graph *g,
                     tfs_trace_node *n, tfs_pb_arena *a) {
  n->name = ns->node_name ? ns->node_name : "";
  n->label = ns->timeline_label ? ns->timeline_label : "";
  n->tid = ns->thread_id;
  n->start_ns = ns->all_start_nanos ? ns->all_start_nanos
                                    : us_to_ns(ns->all_start_micros);
  n->dur_ns = ns->all_end_rel_nanos ? ns->all_end_rel_nanos
                                    : us_to_ns(ns->all_end_rel_micros);
  if (n->dur_ns < 0) n->dur_ns = 0;
  if (parse_label(n, a)) return -1;
  n->op = n->kernel;
  tfs_operation *op = g ? tfs_graph_operation_by_name(g, n->name) : NULL;
  if (op) n->op = tfs_operation_op_type(op);
  if (ns->n_output) {
    n->outputs = tfs_pb_arena_array(a, ns->n_output, sizeof(tfs_trace_output));
    if (!n->outputs) return -1;
    for (size_t i = 0; i < ns->n_output; i++)
      read_output(ns->output[i], &n->outputs[i]);
    n->noutputs = (int)ns->n_output;
  }
  return 0;
}

static const tfs_trace_output *output_of(const tfs_trace_node *p,
                                         int slot) {
  for (int o = 0; o < p->noutputs; o++)
    if (p->outputs[o].slot == slot) return &p->outputs[o];
  return NULL;
}

/* Joins every input to the output its producer recorded in this step:
 * the producer's first execution, or the first one that recorded that
 * slot (a node in a loop runs more than once).  Returns 0, -1 on OOM. */
static int join_inputs(tfs_trace_step *t) {
  tfs_map first = TFS_MAP_INIT; /* node name -> its first record */
  for (int i = 0; i < t->n; i++)
    if (!tfs_map_get_str(&first, t->nodes[i].name) &&
        tfs_map_put_str(&first, t->nodes[i].name, &t->nodes[i])) {
      tfs_map_free(&first);
      return -1;
    }
  for (int i = 0; i < t->n; i++) {
    tfs_trace_node *n = &t->nodes[i];
    for (int k = 0; k < n->ninputs; k++) {
      tfs_trace_input *in = &n->inputs[k];
      const tfs_trace_node *p = tfs_map_get_str(&first, in->node);
      if (!p) continue;
      in->out = output_of(p, in->slot);
      for (int j = (int)(p - t->nodes) + 1; !in->out && j < t->n; j++)
        if (strcmp(t->nodes[j].name, in->node) == 0)
          in->out = output_of(&t->nodes[j], in->slot);
    }
  }
  tfs_map_free(&first);
  return 0;
}

int tfs_trace__read(const void *run_metadata, size_t len, tfs_graph *g,
                    tfs_trace_step *out, tfs_status *st) {
  memset(out, 0, sizeof(*out));
  trace_priv *pv = tfs_calloc(1, sizeof(*pv));
  if (!pv) goto oom;
  out->priv = pv;
  int oom = 0;
  pv->md = (Tensorflow__RunMetadata *)tfs_pb__unpack(
      &tensorflow__run_metadata__descriptor, run_metadata, len, &oom);
  if (!pv->md) {
    if (oom) goto oom;
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "Unparseable RunMetadata proto");
    return -1;
  }
  const Tensorflow__StepStats *ss = pv->md->step_stats;
  if (!ss) {
    tfs_status_set(st, TFS_FAILED_PRECONDITION,
                   "RunMetadata holds no step_stats: the run was not traced "
                   "(RunOptions.trace_level FULL_TRACE)");
    return -1;
  }
  size_t total = 0;
  for (size_t d = 0; d < ss->n_dev_stats; d++)
    total += ss->dev_stats[d]->n_node_stats;
  out->devices = tfs_pb_arena_array(&pv->arena, ss->n_dev_stats + 1,
                                    sizeof(char *));
  out->nodes = tfs_pb_arena_array(&pv->arena, total + 1,
                                  sizeof(tfs_trace_node));
  if (!out->devices || !out->nodes) goto oom;
  for (size_t d = 0; d < ss->n_dev_stats; d++) {
    const Tensorflow__DeviceStepStats *ds = ss->dev_stats[d];
    const char *dev = ds->device ? ds->device : "";
    out->devices[out->ndevices++] = dev;
    for (size_t i = 0; i < ds->n_node_stats; i++) {
      tfs_trace_node *n = &out->nodes[out->n++];
      n->device = dev;
      n->device_index = (int)d;
      if (read_node(ds->node_stats[i], g, n, &pv->arena)) goto oom;
    }
  }
  if (join_inputs(out)) goto oom;
  return 0;
oom:
  TFS_OOM(st);
  return -1;
}

void tfs_trace__clear(tfs_trace_step *t) {
  if (!t) return;
  trace_priv *pv = t->priv;
  if (pv) {
    if (pv->md) tfs_pb__free(&pv->md->base);
    tfs_pb_arena_free(&pv->arena);
    tfs_free(pv);
  }
  memset(t, 0, sizeof(*t));
}

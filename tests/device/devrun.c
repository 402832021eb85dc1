/*
 * tests/device/devrun.c - the reference multi-device runner: placement,
 * per-device kernels prepared on their device, copies between memory
 * spaces, and a run over the nodes in id order.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "devrun.h"

struct dr_graph {
  tfs_graph *g;
  int n;
  tfs_operation **nodes;   /* id order */
  tfs_device **dev;
  const tfs_kernel_def **k;
  void **state;
  int *pos;                /* operation id -> node index or -1 */
  size_t npos;
  tfs_device_set *ds;
  int nfeeds;
  tfs_output feeds[DR_MAX_FEEDS];
  int64_t copies;
};

static int fed(const dr_graph *r, tfs_output o) {
  for (int i = 0; i < r->nfeeds; i++)
    if (r->feeds[i].oper == o.oper && r->feeds[i].index == o.index) return i;
  return -1;
}

/* Prepares node i's kernel on its device, as the plan builder would. */
static int prepare(dr_graph *r, int i, tfs_status *st) {
  tfs_operation *op = r->nodes[i];
  tfs_device *d = r->dev[i];
  const tfs_kernel_def *k =
      d->iface->find_kernel(d, op->def, &op->attrs, op->name, st);
  if (!k) return -1;
  r->k[i] = k;
  int n = op->ninputs;
  tfs_dtype types[TFS_MAX_RANK * 4];
  tfs_shape shapes[TFS_MAX_RANK * 4];
  const tfs_tensor *consts[TFS_MAX_RANK * 4];
  if (n > TFS_MAX_RANK * 4) {
    tfs_status_set(st, TFS_UNIMPLEMENTED, "too many inputs for devrun");
    return -1;
  }
  for (int j = 0; j < n; j++) {
    tfs_output src = op->inputs[j];
    types[j] = tfs_dtype_base(op->in_types[j]);
    shapes[j] = src.oper->out_shapes[src.index];
    consts[j] = fed(r, src) >= 0 ? NULL : tfs_graph__const_value(src);
  }
  tfs_kernel_init ki = {
      .node_name = op->name, .op = op->def, .attrs = &op->attrs,
      .ninputs = n, .in_types = types, .in_shapes = shapes,
      .in_consts = consts, .noutputs = op->noutputs,
      .out_types = op->out_types, .out_shapes = op->out_shapes,
      .kdata = k->data, .st = st};
  int rc = tfs_device__prepare_kernel(d, k, &ki);
  r->state[i] = ki.state;
  return rc;
}

dr_graph *dr_graph_new(tfs_graph *g, const tfs_config *cfg, int soft,
                       const tfs_output *feeds, int nfeeds, tfs_status *st) {
  dr_graph *r = tfs_calloc(1, sizeof *r);
  if (!r) return NULL;
  r->g = g;
  r->nfeeds = nfeeds < DR_MAX_FEEDS ? nfeeds : DR_MAX_FEEDS;
  if (r->nfeeds > 0)
    memcpy(r->feeds, feeds, sizeof(tfs_output) * (size_t)r->nfeeds);
  size_t nops = tfs_graph_num_operations(g);
  r->nodes = tfs_calloc(nops + 1, sizeof(void *));
  r->dev = tfs_calloc(nops + 1, sizeof(void *));
  r->k = tfs_calloc(nops + 1, sizeof(void *));
  r->state = tfs_calloc(nops + 1, sizeof(void *));
  r->pos = tfs_malloc(sizeof(int) * (nops + 1));
  r->ds = tfs_device_set__new(cfg, st);
  if (!r->nodes || !r->dev || !r->k || !r->state || !r->pos || !r->ds)
    goto fail;
  r->npos = nops + 1;
  for (size_t i = 0; i <= nops; i++) r->pos[i] = -1;
  size_t it = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(g, &it))) {
    tfs_output o = {op, 0};
    if (op->noutputs == 1 && fed(r, o) >= 0) continue;
    r->pos[op->id] = r->n;
    r->nodes[r->n++] = op;
  }
  tfs_placer_options po = {soft, 0, NULL, NULL};
  if (tfs_placer__place(r->nodes, r->n, r->ds, &po, r->dev, st)) goto fail;
  for (int i = 0; i < r->n; i++)
    if (prepare(r, i, st)) goto fail;
  return r;
fail:
  dr_graph_free(r);
  return NULL;
}

void dr_graph_free(dr_graph *r) {
  if (!r) return;
  for (int i = 0; i < r->n; i++)
    if (r->k && r->k[i] && r->k[i]->release && r->state[i])
      r->k[i]->release(r->state[i]);
  tfs_device_set__free(r->ds);
  tfs_free(r->nodes);
  tfs_free(r->dev);
  tfs_free(r->k);
  tfs_free(r->state);
  tfs_free(r->pos);
  tfs_free(r);
}

tfs_device *dr_graph_device(const dr_graph *r, const char *name) {
  for (int i = 0; i < r->n; i++)
    if (strcmp(r->nodes[i]->name, name) == 0) return r->dev[i];
  return NULL;
}

int64_t dr_graph_copies(const dr_graph *r) { return r->copies; }

/* The value of `src` in the memory space a consumer on `d` reads for its
 * input `k` (the _Copy kernel's work); a new reference. */
static tfs_tensor *in_space(dr_graph *r, tfs_tensor *v, tfs_device *d,
                            const tfs_operation *op, int k, tfs_status *st) {
  tfs_device *want = tfs_device__input_space(d, op, k);
  if (want && want->host_memory) want = NULL;
  if (tfs_device__tensor_device(v) == want) return tfs_tensor_ref(v);
  r->copies++;
  tfs_tensor *in[1] = {v}, *out[1] = {NULL};
  tfs_dtype ot[1] = {v->dtype};
  tfs_kernel_ctx c = {.node_name = op->name, .op_name = "_Copy",
                      .state = want, .ninputs = 1, .inputs = in,
                      .noutputs = 1, .outputs = out, .out_types = ot,
                      .st = st};
  tfs_device_copy_kernel.compute(&c);
  return c.failed ? NULL : out[0];
}

static int run_node(dr_graph *r, int i, tfs_tensor ***slots,
                    tfs_tensor *const *feed_values, tfs_status *st) {
  tfs_operation *op = r->nodes[i];
  int n = op->ninputs, rc = -1;
  tfs_tensor **in = tfs_calloc((size_t)n + 1, sizeof(void *));
  tfs_tensor **out = tfs_calloc((size_t)op->noutputs + 1, sizeof(void *));
  if (!in || !out) goto done;
  for (int k = 0; k < n; k++) {
    tfs_output src = op->inputs[k];
    int f = fed(r, src);
    tfs_tensor *v = f >= 0 ? feed_values[f]
                           : slots[r->pos[src.oper->id]][src.index];
    if (!v || !(in[k] = in_space(r, v, r->dev[i], op, k, st))) goto done;
  }
  tfs_kernel_ctx c = {.node_name = op->name, .op_name = op->def->name,
                      .state = r->state[i], .ninputs = n, .inputs = in,
                      .noutputs = op->noutputs, .outputs = out,
                      .out_types = op->out_types, .st = st};
  r->k[i]->compute(&c);
  if (c.failed) goto done;
  slots[i] = out;
  out = NULL;
  rc = 0;
done:
  for (int k = 0; in && k < n; k++) tfs_tensor_free(in[k]);
  for (int k = 0; out && k < op->noutputs; k++) tfs_tensor_free(out[k]);
  tfs_free(in);
  tfs_free(out);
  return rc;
}

int dr_graph_run(dr_graph *r, tfs_tensor *const *feed_values,
                 const tfs_output *fetches, int nfetches, tfs_tensor **out,
                 tfs_status *st) {
  tfs_tensor ***slots = tfs_calloc((size_t)r->n + 1, sizeof(void *));
  int rc = -1;
  if (!slots) {
    TFS_OOM(st);
    return -1;
  }
  for (int i = 0; i < nfetches; i++) out[i] = NULL;
  for (int i = 0; i < r->n; i++)
    if (run_node(r, i, slots, feed_values, st)) goto done;
  for (int i = 0; i < nfetches; i++) {
    int p = fetches[i].oper ? r->pos[fetches[i].oper->id] : -1;
    tfs_tensor *v = p >= 0 ? slots[p][fetches[i].index] : NULL;
    if (!v) {
      tfs_status_set(st, TFS_INVALID_ARGUMENT, "fetch not computed");
      goto done;
    }
    if (!(out[i] = tfs_device__copy_tensor(v, NULL, st))) goto done;
  }
  rc = tfs_device_set__synchronize(r->ds, st);
done:
  for (int i = 0; i < r->n; i++) {
    for (int k = 0; slots[i] && k < r->nodes[i]->noutputs; k++)
      tfs_tensor_free(slots[i][k]);
    tfs_free(slots[i]);
  }
  tfs_free(slots);
  if (rc)
    for (int i = 0; i < nfetches; i++) {
      tfs_tensor_free(out[i]);
      out[i] = NULL;
    }
  return rc;
}

int dr_run_op(const char *op, dr_attr_fn attrs, const void *arg,
              const char *device, const tfs_config *cfg,
              tfs_tensor *const *in, int nin, tfs_tensor **out, int nout,
              tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  int rc = -1;
  tfs_output inputs[16];
  if (!g || nin > 16 || nout > 16) goto done;
  for (int i = 0; i < nin; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    tfs_op_desc *d = tfs_op_desc_new(g, "Const", name);
    tfs_op_desc_set_attr_tensor(d, "value", in[i], st);
    tfs_op_desc_set_attr_type(d, "dtype", tfs_tensor_dtype(in[i]));
    tfs_op_desc_set_device(d, "/cpu:0");
    inputs[i] = (tfs_output){tfs_op_desc_finish(d, st), 0};
    if (!inputs[i].oper) goto done;
  }
  tfs_op_desc *d = tfs_op_desc_new(g, op, "op");
  for (int i = 0; i < nin; i++) tfs_op_desc_add_input(d, inputs[i]);
  if (attrs) attrs(d, arg);
  if (device) tfs_op_desc_set_device(d, device);
  tfs_operation *node = tfs_op_desc_finish(d, st);
  if (!node) goto done;
  dr_graph *r = dr_graph_new(g, cfg, 0, NULL, 0, st);
  if (!r) goto done;
  tfs_output fetches[16];
  for (int i = 0; i < nout; i++) fetches[i] = (tfs_output){node, i};
  rc = dr_graph_run(r, NULL, fetches, nout, out, st);
  dr_graph_free(r);
done:
  tfs_graph_free(g);
  return rc;
}

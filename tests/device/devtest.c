/*
 * tests/device/devtest.c - node builders and the placement driver shared
 * by the device suites.
 */
#include <string.h>

#include "devtest.h"

tfs_output dt_node(tfs_graph *g, const char *op, const char *name,
                   const char *device, const tfs_output *in, int nin,
                   tfs_dtype T, const char *coloc) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  for (int i = 0; i < nin; i++) tfs_op_desc_add_input(d, in[i]);
  if (device) tfs_op_desc_set_device(d, device);
  if (T) tfs_op_desc_set_attr_type(d, "T", T);
  if (coloc) {
    char cls[128];
    snprintf(cls, sizeof cls, "loc:@%s", coloc);
    const void *v[1] = {cls};
    size_t len[1] = {strlen(cls)};
    tfs_op_desc_set_attr_string_list(d, "_class", v, len, 1);
  }
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return (tfs_output){o, 0};
}

tfs_output dt_const(tfs_graph *g, const char *name, const char *device,
                    float v) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_scalar_float(v);
  tfs_op_desc *d = tfs_op_desc_new(g, "Const", name);
  tfs_op_desc_set_attr_tensor(d, "value", t, st);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  if (device) tfs_op_desc_set_device(d, device);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(t);
  tfs_status_free(st);
  return (tfs_output){o, 0};
}

tfs_output dt_placeholder(tfs_graph *g, const char *name, tfs_dtype dt) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", name);
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return (tfs_output){o, 0};
}

static void capture(void *arg, const char *line) {
  dt_placement *p = arg;
  size_t used = strlen(p->log);
  snprintf(p->log + used, sizeof p->log - used, "%s\n", line);
}

tfs_code dt_place_on(tfs_graph *g, const tfs_device_set *ds, int soft,
                     int log, dt_placement *p) {
  memset(p, 0, sizeof *p);
  p->st = tfs_status_new();
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(g, &pos)) && p->n < DT_MAX_NODES)
    p->nodes[p->n++] = op;
  tfs_placer_options o = {soft, log, capture, p};
  tfs_placer__place(p->nodes, p->n, ds, &o, p->dev, p->st);
  return tfs_status_code(p->st);
}

tfs_code dt_place(tfs_graph *g, const tfs_config *cfg, int soft, int log,
                  dt_placement *p) {
  tfs_fake_device_register();
  tfs_status *st = tfs_status_new();
  tfs_device_set *ds = tfs_device_set__new(cfg, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  tfs_code c = dt_place_on(g, ds, soft, log, p);
  tfs_device_set__free(ds);
  return c;
}

const tfs_config *dt_no_gpu(const tfs_config *cfg) {
  static tfs_config c;
  static tfs_config_device_count dc[8];
  static char gpu[] = "GPU";
  int n = 0;
  if (cfg)
    c = *cfg;
  else
    tfs_config__init(&c);
  for (int i = 0; cfg && i < cfg->ndevice_count && n < 7; i++)
    if (strcmp(cfg->device_count[i].type, "GPU") != 0)
      dc[n++] = cfg->device_count[i];
  dc[n++] = (tfs_config_device_count){gpu, 0};
  c.ndevice_count = n;
  c.device_count = dc;
  return &c;
}

void dt_placement_clear(dt_placement *p) { tfs_status_free(p->st); }

const char *dt_device(const dt_placement *p, const char *name) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(tfs_operation_name(p->nodes[i]), name) == 0)
      return p->dev[i] ? p->dev[i]->name : "";
  return "";
}

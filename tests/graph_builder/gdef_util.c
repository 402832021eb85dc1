/*
 * tests/graph_builder/gdef_util.c - helpers of the GraphDef tests (see
 * gdef_util.h).
 */
#include <stdlib.h>

#include "gdef_util.h"

/* ---- fixtures ------------------------------------------------------------ */

tfs_buffer *gd_load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "tests/data/wire/%s", name);
  static char data[1 << 16];
  size_t n = tu_read_src(path, data, sizeof data);
  return tfs_buffer_new_copy(data, n);
}

/* ---- building GraphDefs by hand ------------------------------------------ */

void gdb_init(gdb *b) {
  memset(b, 0, sizeof *b);
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  Tensorflow__VersionDef ver = TENSORFLOW__VERSION_DEF__INIT;
  b->gd = gd;
  b->ver = ver;
  b->gd.node = b->nodes;
}

void gdb_free(gdb *b) { tfs_pb_arena_free(&b->a); }

/* A node; `inputs` is a comma-separated list ("x,y:1,^c") or NULL. */
Tensorflow__NodeDef *gd_node(gdb *b, const char *name, const char *op,
                             const char *inputs) {
  Tensorflow__NodeDef *n = tfs_pb_arena_alloc(&b->a, sizeof(*n));
  tensorflow__node_def__init(n);
  n->name = tfs_pb_arena_strdup(&b->a, name);
  n->op = tfs_pb_arena_strdup(&b->a, op);
  n->input = tfs_pb_arena_array(&b->a, 16, sizeof(char *));
  n->attr = tfs_pb_arena_array(&b->a, 16, sizeof(void *));
  for (const char *p = inputs; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    n->input[n->n_input++] = tfs_pb_arena_strndup(&b->a, p, len);
    p = e ? e + 1 : p + len;
  }
  b->nodes[b->gd.n_node++] = n;
  return n;
}

void gd_attr(gdb *b, Tensorflow__NodeDef *n, const char *key,
             Tensorflow__AttrValue *v) {
  Tensorflow__NodeDef__AttrEntry *e = tfs_pb_arena_alloc(&b->a, sizeof(*e));
  tensorflow__node_def__attr_entry__init(e);
  e->key = tfs_pb_arena_strdup(&b->a, key);
  e->value = v;
  n->attr[n->n_attr++] = e;
}

Tensorflow__AttrValue *gd_av(gdb *b) {
  Tensorflow__AttrValue *v = tfs_pb_arena_alloc(&b->a, sizeof(*v));
  tensorflow__attr_value__init(v);
  return v;
}

Tensorflow__AttrValue *gd_av_type(gdb *b, int dt) {
  Tensorflow__AttrValue *v = gd_av(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  v->type = (Tensorflow__DataType)dt;
  return v;
}

Tensorflow__AttrValue *gd_av_int(gdb *b, int64_t i) {
  Tensorflow__AttrValue *v = gd_av(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  v->i = i;
  return v;
}

Tensorflow__AttrValue *gd_av_strlist(gdb *b, const char *s) {
  Tensorflow__AttrValue *v = gd_av(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = tfs_pb_arena_alloc(&b->a, sizeof(*v->list));
  tensorflow__attr_value__list_value__init(v->list);
  v->list->s = tfs_pb_arena_alloc(&b->a, sizeof(ProtobufCBinaryData));
  v->list->s[0].data = (uint8_t *)tfs_pb_arena_strdup(&b->a, s);
  v->list->s[0].len = strlen(s);
  v->list->n_s = 1;
  return v;
}

/* A TensorProto of dtype dt and shape dims[0..rank). */
Tensorflow__TensorProto *gd_tensor(gdb *b, int dt, int rank,
                                   const int64_t *dims) {
  Tensorflow__TensorProto *t = tfs_pb_arena_alloc(&b->a, sizeof(*t));
  tensorflow__tensor_proto__init(t);
  t->dtype = (Tensorflow__DataType)dt;
  t->tensor_shape = tfs_pb_arena_alloc(&b->a, sizeof(*t->tensor_shape));
  tensorflow__tensor_shape_proto__init(t->tensor_shape);
  t->tensor_shape->dim = tfs_pb_arena_array(&b->a, 4, sizeof(void *));
  for (int i = 0; i < rank; i++) {
    Tensorflow__TensorShapeProto__Dim *d =
        tfs_pb_arena_alloc(&b->a, sizeof(*d));
    tensorflow__tensor_shape_proto__dim__init(d);
    d->size = dims[i];
    t->tensor_shape->dim[t->tensor_shape->n_dim++] = d;
  }
  return t;
}

Tensorflow__AttrValue *gd_av_tensor(gdb *b, Tensorflow__TensorProto *t) {
  Tensorflow__AttrValue *v = gd_av(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  v->tensor = t;
  return v;
}

Tensorflow__NodeDef *gd_placeholder(gdb *b, const char *name, int dt) {
  Tensorflow__NodeDef *n = gd_node(b, name, "Placeholder", NULL);
  gd_attr(b, n, "dtype", gd_av_type(b, dt));
  return n;
}

Tensorflow__NodeDef *gd_identity(gdb *b, const char *name, const char *inputs) {
  Tensorflow__NodeDef *n = gd_node(b, name, "Identity", inputs);
  gd_attr(b, n, "T", gd_av_type(b, TFS_FLOAT));
  return n;
}

tfs_buffer *gd_pack(gdb *b) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *buf = tfs_buffer_new();
  tfs_pb__pack(&b->gd.base, buf, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return buf;
}

tfs_import_results *gd_import(tfs_graph *g, gdb *b, const tfs_import_options *o,
                              tfs_status *st) {
  tfs_buffer *buf = gd_pack(b);
  tfs_import_results *r =
      tfs_graph_import_graphdef(g, buf->data, buf->length, o, st);
  tfs_buffer_free(buf);
  return r;
}

/* A graph holding one Placeholder "pre" (float). */
tfs_graph *gd_graph_with_pre(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", "pre");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return g;
}

/* Import must fail with `code` and a message containing `msg`, and leave
 * the graph (one "pre" node) as it was. */
void gd_expect_reject_opts(gdb *b, const tfs_import_options *o, tfs_code code,
                           const char *msg) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = gd_graph_with_pre();
  tfs_import_results *r = gd_import(g, b, o, st);
  CU_ASSERT_PTR_NULL(r);
  TFS_ASSERT_ERROR(st, code, msg);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
  CU_ASSERT_EQUAL(g->ops[0]->consumers[0].n, 0);
  CU_ASSERT_EQUAL(g->ops[0]->ncontrol_out, 0);
  tfs_import_results_free(r);
  tfs_graph_free(g);
  tfs_status_free(st);
}

void gd_expect_reject(gdb *b, const char *msg) {
  gd_expect_reject_opts(b, NULL, TFS_INVALID_ARGUMENT, msg);
}

/* Same operations in the same order with the same op types, devices,
 * attrs, inputs and control inputs. */
void gd_assert_same_graph(tfs_graph *x, tfs_graph *y) {
  CU_ASSERT_EQUAL_FATAL(x->nops, y->nops);
  for (size_t i = 0; i < x->nops; i++) {
    tfs_operation *a = x->ops[i], *b = y->ops[i];
    CU_ASSERT_STRING_EQUAL(a->name, b->name);
    CU_ASSERT_PTR_EQUAL(a->def, b->def);
    CU_ASSERT_STRING_EQUAL(a->device, b->device);
    CU_ASSERT_TRUE(tfs_attrs_equal(&a->attrs, &b->attrs));
    CU_ASSERT_EQUAL_FATAL(a->ninputs, b->ninputs);
    for (int k = 0; k < a->ninputs; k++) {
      CU_ASSERT_STRING_EQUAL(a->inputs[k].oper->name, b->inputs[k].oper->name);
      CU_ASSERT_EQUAL(a->inputs[k].index, b->inputs[k].index);
    }
    CU_ASSERT_EQUAL_FATAL(a->ncontrol, b->ncontrol);
    for (int k = 0; k < a->ncontrol; k++)
      CU_ASSERT_STRING_EQUAL(a->control_inputs[k]->name,
                             b->control_inputs[k]->name);
  }
}

tfs_buffer *gd_export(tfs_graph *g) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  tfs_graph_to_graphdef(g, b, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return b;
}

tfs_graph *gd_import_buffer(const tfs_buffer *b) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r =
      tfs_graph_import_graphdef(g, b->data, b->length, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_status_free(st);
  return g;
}

/*
 * tests/graph_builder/test_graphdef.c - GraphDef import and export: graphs
 * TensorFlow wrote (tests/data/wire), hand-built GraphDefs for every
 * option and every rejection (message text, graph left unchanged),
 * export / re-import round trips, NodeDef and OpList serializers, and
 * random corruption of valid bytes.
 */
#include <math.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "gdef_util.h"

/* ---- graphs TensorFlow wrote --------------------------------------------- */

static void run_mlp(tfs_graph *g) {
  tfs_buffer *xb = gd_load("mlp_x.f32"), *yb = gd_load("mlp_y.f32");
  int64_t dims[2] = {5, 3};
  tfs_tensor *x = tu_floats(dims, 2, xb->data);
  tfs_status *st = tfs_status_new();
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output in = {tfs_graph_operation_by_name(g, "x"), 0};
  tfs_output out = {tfs_graph_operation_by_name(g, "y"), 0};
  tfs_tensor *y = tu_run1(s, out, &in, &x, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(y);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(y), 10);
  const float *got = tfs_tensor_data(y), *want = yb->data;
  for (int i = 0; i < 10; i++)
    CU_ASSERT_DOUBLE_EQUAL(got[i], want[i], 1e-5 * fabs(want[i]) + 1e-7);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  tfs_session_free(s);
  tfs_status_free(st);
  tfs_buffer_free(xb);
  tfs_buffer_free(yb);
}

static const tfs_tensor *const_of(tfs_graph *g, const char *name) {
  tfs_operation *op = tfs_graph_operation_by_name(g, name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(op);
  return tfs_attrs_get_tensor(&op->attrs, "value");
}

static void test_tf_graph_imports_and_runs(void) {
  tfs_buffer *b = gd_load("graph_mlp.pb");
  tfs_graph *g = gd_import_buffer(b);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 20);
  run_mlp(g);
  /* constants in every encoding TensorFlow writes */
  const tfs_tensor *t = const_of(g, "splat");
  CU_ASSERT_EQUAL(t->nelems, 6);
  for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(((float *)t->data)[i], 0.5f);
  t = const_of(g, "i64");
  CU_ASSERT(((int64_t *)t->data)[0] == 1 && ((int64_t *)t->data)[2] == 3);
  CU_ASSERT_EQUAL(*(int32_t *)const_of(g, "scalar_i32")->data, 7);
  t = const_of(g, "bools");
  CU_ASSERT(((uint8_t *)t->data)[0] == 1 && ((uint8_t *)t->data)[1] == 0);
  t = const_of(g, "strs");
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 0, NULL), "ab");
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 1, NULL), "");
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 2, NULL), "xyz");
  CU_ASSERT_EQUAL(((uint16_t *)const_of(g, "halves")->data)[0], 0x3e00);
  CU_ASSERT_EQUAL(*(uint16_t *)const_of(g, "half_scalar")->data, 0x4200);
  t = const_of(g, "cplx");
  CU_ASSERT(((float *)t->data)[0] == 1 && ((float *)t->data)[1] == 2);
  t = const_of(g, "empty");
  CU_ASSERT(t->shape.rank == 2 && t->shape.dims[0] == 0 && t->nelems == 0);
  /* `_`-prefixed attrs are kept; colocation too */
  tfs_operation *x = tfs_graph_operation_by_name(g, "x");
  CU_ASSERT_PTR_NOT_NULL(tfs_attrs_find(&x->attrs, "_output_shapes"));
  tfs_operation *yc = tfs_graph_operation_by_name(g, "y_copy");
  const tfs_attr_value *cls = tfs_attrs_find(&yc->attrs, "_class");
  CU_ASSERT_PTR_NOT_NULL_FATAL(cls);
  CU_ASSERT_STRING_EQUAL(((tfs_bytes *)cls->u.list.v)[0].ptr, "loc:@y");
  /* control input */
  tfs_operation *done = tfs_graph_operation_by_name(g, "done");
  CU_ASSERT_EQUAL(done->ncontrol, 1);
  CU_ASSERT_STRING_EQUAL(done->control_inputs[0]->name, "y");
  tfs_graph_free(g);
  tfs_buffer_free(b);
}

static void test_tf_graph_with_defaults_stripped(void) {
  tfs_buffer *full = gd_load("graph_mlp.pb");
  tfs_buffer *stripped = gd_load("graph_mlp_stripped.pb");
  CU_ASSERT(stripped->length < full->length);
  tfs_graph *a = gd_import_buffer(full), *b = gd_import_buffer(stripped);
  /* defaults (MatMul transpose_a/b, BiasAdd data_format) filled in */
  tfs_operation *mm = tfs_graph_operation_by_name(b, "MatMul");
  int v = -1;
  CU_ASSERT_EQUAL(tfs_attrs_get_bool(&mm->attrs, "transpose_a", &v), 0);
  CU_ASSERT_EQUAL(v, 0);
  tfs_operation *ba = tfs_graph_operation_by_name(b, "BiasAdd");
  CU_ASSERT_STRING_EQUAL(tfs_attrs_get_string(&ba->attrs, "data_format", NULL),
                         "NHWC");
  for (size_t i = 0; i < a->nops; i++) {
    tfs_operation *op = a->ops[i];
    tfs_operation *other = tfs_graph_operation_by_name(b, op->name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(other);
    for (int k = 0; k < op->attrs.n; k++) {
      const char *nm = op->attrs.e[k].name;
      if (nm[0] == '_') continue;
      const tfs_attr_value *ov = tfs_attrs_find(&other->attrs, nm);
      CU_ASSERT_PTR_NOT_NULL_FATAL(ov);
      CU_ASSERT_TRUE(tfs_attr_value_equal(&op->attrs.e[k].value, ov));
    }
  }
  run_mlp(b);
  tfs_graph_free(a);
  tfs_graph_free(b);
  tfs_buffer_free(full);
  tfs_buffer_free(stripped);
}

static void test_export_reimports_identically(void) {
  tfs_buffer *in = gd_load("graph_mlp.pb");
  tfs_graph *g1 = gd_import_buffer(in);
  tfs_buffer *e1 = gd_export(g1);
  tfs_graph *g2 = gd_import_buffer(e1);
  gd_assert_same_graph(g1, g2);
  tfs_buffer *e2 = gd_export(g2);
  CU_ASSERT_EQUAL_FATAL(e1->length, e2->length);
  CU_ASSERT_EQUAL(memcmp(e1->data, e2->data, e1->length), 0);
  /* exported bytes say which TensorFlow version they are for */
  Tensorflow__GraphDef *gd =
      tensorflow__graph_def__unpack(NULL, e1->length, e1->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd->versions);
  CU_ASSERT_EQUAL(gd->versions->producer, 2474);
  CU_ASSERT_EQUAL(gd->n_node, 20);
  CU_ASSERT_STRING_EQUAL(gd->node[0]->name, "x");
  tensorflow__graph_def__free_unpacked(gd, NULL);
  run_mlp(g2);
  tfs_graph_free(g1);
  tfs_graph_free(g2);
  tfs_buffer_free(in);
  tfs_buffer_free(e1);
  tfs_buffer_free(e2);
}

/* ---- hand-built GraphDefs: what import accepts --------------------------- */

static void test_any_order_no_versions(void) {
  gdb b;
  gdb_init(&b);
  gd_identity(&b, "z", "y:0,^c"); /* consumers first */
  gd_identity(&b, "y", "x");
  gd_node(&b, "c", "NoOp", NULL);
  gd_placeholder(&b, "x", TFS_FLOAT);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = gd_import(g, &b, NULL, st);
  TFS_ASSERT_OK(st);
  /* added in topological order, ties in GraphDef order */
  CU_ASSERT_STRING_EQUAL(g->ops[0]->name, "c");
  CU_ASSERT_STRING_EQUAL(g->ops[1]->name, "x");
  CU_ASSERT_STRING_EQUAL(g->ops[2]->name, "y");
  CU_ASSERT_STRING_EQUAL(g->ops[3]->name, "z");
  tfs_operation *z = g->ops[3];
  CU_ASSERT_EQUAL(z->ninputs, 1);
  CU_ASSERT_PTR_EQUAL(z->inputs[0].oper, g->ops[2]);
  CU_ASSERT_EQUAL(z->ncontrol, 1);
  CU_ASSERT_PTR_EQUAL(z->control_inputs[0], g->ops[0]);
  tfs_import_results_free(r);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_devices_and_underscore_attrs(void) {
  gdb b;
  gdb_init(&b);
  Tensorflow__NodeDef *x = gd_placeholder(&b, "x", TFS_FLOAT);
  x->device = "/job:localhost/replica:0/task:0/device:CPU:0";
  Tensorflow__NodeDef *y = gd_identity(&b, "y", "x");
  gd_attr(&b, y, "_class", gd_av_strlist(&b, "loc:@x"));
  gd_attr(&b, y, "_custom", gd_av_int(&b, 5));
  Tensorflow__AttrValue *unset = gd_av(&b); /* an `_` attr without a value */
  gd_attr(&b, y, "_empty", unset);
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_options_set_default_device(o, "/device:CPU:0");
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = gd_import(g, &b, o, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(g->ops[0]->device,
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  CU_ASSERT_STRING_EQUAL(g->ops[1]->device, "/device:CPU:0");
  int64_t i = 0;
  CU_ASSERT_EQUAL(tfs_attrs_get_int(&g->ops[1]->attrs, "_custom", &i), 0);
  CU_ASSERT_EQUAL(i, 5);
  CU_ASSERT_PTR_NOT_NULL(tfs_attrs_find(&g->ops[1]->attrs, "_class"));
  CU_ASSERT_PTR_NULL(tfs_attrs_find(&g->ops[1]->attrs, "_empty"));
  tfs_import_results_free(r);
  tfs_import_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_prefix(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__NodeDef *y = gd_identity(&b, "y", "x");
  gd_attr(&b, y, "_class", gd_av_strlist(&b, "loc:@x"));
  gd_node(&b, "n", "NoOp", "^y");
  tfs_import_options *o = tfs_import_options_new();
  tfs_status *st = tfs_status_new();
  for (int slash = 0; slash < 2; slash++) {
    tfs_import_options_set_prefix(o, slash ? "imp/" : "imp");
    tfs_graph *g = tfs_graph_new();
    tfs_import_results *r = gd_import(g, &b, o, st);
    TFS_ASSERT_OK(st);
    tfs_operation *iy = tfs_graph_operation_by_name(g, "imp/y");
    CU_ASSERT_PTR_NOT_NULL_FATAL(iy);
    CU_ASSERT_STRING_EQUAL(iy->inputs[0].oper->name, "imp/x");
    const tfs_attr_value *cls = tfs_attrs_find(&iy->attrs, "_class");
    CU_ASSERT_STRING_EQUAL(((tfs_bytes *)cls->u.list.v)[0].ptr, "loc:@imp/x");
    tfs_operation *n = tfs_graph_operation_by_name(g, "imp/n");
    CU_ASSERT_PTR_EQUAL(n->control_inputs[0], iy);
    tfs_import_results_free(r);
    tfs_graph_free(g);
  }
  /* the same GraphDef twice under one prefix: uniquify_prefix */
  tfs_graph *g = tfs_graph_new();
  tfs_import_options_set_prefix(o, "imp");
  tfs_import_options_set_uniquify_prefix(o, 1);
  tfs_import_results_free(gd_import(g, &b, o, st));
  TFS_ASSERT_OK(st);
  tfs_import_results_free(gd_import(g, &b, o, st));
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, "imp_1/y"));
  tfs_operation *y1 = tfs_graph_operation_by_name(g, "imp_1/y");
  CU_ASSERT_STRING_EQUAL(y1->inputs[0].oper->name, "imp_1/x");
  tfs_graph_free(g);
  tfs_import_options_free(o);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_uniquify_names(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "pre", TFS_FLOAT);
  Tensorflow__NodeDef *y = gd_identity(&b, "y", "pre");
  gd_attr(&b, y, "_class", gd_av_strlist(&b, "loc:@pre"));
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_options_set_uniquify_names(o, 1);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = gd_graph_with_pre();
  tfs_import_results *r = gd_import(g, &b, o, st);
  TFS_ASSERT_OK(st);
  tfs_operation *pre1 = tfs_graph_operation_by_name(g, "pre_1");
  CU_ASSERT_PTR_NOT_NULL_FATAL(pre1);
  tfs_operation *iy = tfs_graph_operation_by_name(g, "y");
  CU_ASSERT_PTR_EQUAL(iy->inputs[0].oper, pre1);
  const tfs_attr_value *cls = tfs_attrs_find(&iy->attrs, "_class");
  CU_ASSERT_STRING_EQUAL(((tfs_bytes *)cls->u.list.v)[0].ptr, "loc:@pre_1");
  tfs_import_results_free(r);
  tfs_graph_free(g);
  tfs_import_options_free(o);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_input_map_and_missing(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "x");
  gd_identity(&b, "y2", "x:0");
  tfs_status *st = tfs_status_new();
  tfs_graph *g = gd_graph_with_pre();
  tfs_output pre = {tfs_graph_operation_by_name(g, "pre"), 0};
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_options_set_prefix(o, "i");
  tfs_import_options_add_input_mapping(o, "x", 0, pre);
  tfs_import_options_add_input_mapping(o, "nope", 0, pre);
  tfs_import_options_add_input_mapping(o, "x", 4, pre);
  tfs_import_options_add_return_output(o, "x", 0); /* mapped: pre */
  tfs_import_options_add_return_output(o, "y", 0);
  tfs_import_options_add_return_operation(o, "y2");
  CU_ASSERT_EQUAL(tfs_import_options_num_return_outputs(o), 2);
  CU_ASSERT_EQUAL(tfs_import_options_num_return_operations(o), 1);
  tfs_import_results *r = gd_import(g, &b, o, st);
  TFS_ASSERT_OK(st);
  tfs_operation *y = tfs_graph_operation_by_name(g, "i/y");
  CU_ASSERT_PTR_EQUAL(y->inputs[0].oper, pre.oper);
  CU_ASSERT_PTR_EQUAL(tfs_graph_operation_by_name(g, "i/y2")->inputs[0].oper,
                      pre.oper);
  CU_ASSERT_PTR_NOT_NULL(tfs_graph_operation_by_name(g, "i/x"));
  int n;
  tfs_output *outs;
  tfs_import_results_return_outputs(r, &n, &outs);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_PTR_EQUAL(outs[0].oper, pre.oper);
  CU_ASSERT_PTR_EQUAL(outs[1].oper, y);
  tfs_operation **ops;
  tfs_import_results_return_operations(r, &n, &ops);
  CU_ASSERT_EQUAL_FATAL(n, 1);
  CU_ASSERT_STRING_EQUAL(tfs_operation_name(ops[0]), "i/y2");
  const char **names;
  int *idx;
  tfs_import_results_missing_unused_input_mappings(r, &n, &names, &idx);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_STRING_EQUAL(names[0], "nope");
  CU_ASSERT_EQUAL(idx[0], 0);
  CU_ASSERT_STRING_EQUAL(names[1], "x");
  CU_ASSERT_EQUAL(idx[1], 4);
  tfs_import_results_free(r);
  tfs_import_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_control_remap_and_dependencies(void) {
  gdb b;
  gdb_init(&b);
  gd_node(&b, "a", "NoOp", NULL);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "x,^a");
  gd_node(&b, "b", "NoOp", "^a");
  tfs_status *st = tfs_status_new();
  tfs_graph *g = gd_graph_with_pre();
  tfs_operation *pre = tfs_graph_operation_by_name(g, "pre");
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_options_set_prefix(o, "i");
  tfs_import_options_remap_control_dependency(o, "a", pre);
  tfs_import_options_add_control_dependency(o, pre);
  tfs_import_results *r = gd_import(g, &b, o, st);
  TFS_ASSERT_OK(st);
  /* nodes without inputs from the GraphDef get ^pre */
  tfs_operation *a = tfs_graph_operation_by_name(g, "i/a");
  tfs_operation *x = tfs_graph_operation_by_name(g, "i/x");
  tfs_operation *y = tfs_graph_operation_by_name(g, "i/y");
  tfs_operation *bb = tfs_graph_operation_by_name(g, "i/b");
  CU_ASSERT(a->ncontrol == 1 && a->control_inputs[0] == pre);
  CU_ASSERT(x->ncontrol == 1 && x->control_inputs[0] == pre);
  /* ^a became ^pre; y inherits the dependency through x */
  CU_ASSERT(y->ncontrol == 1 && y->control_inputs[0] == pre);
  CU_ASSERT(bb->ncontrol == 1 && bb->control_inputs[0] == pre);
  tfs_import_results_free(r);
  tfs_import_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

/* ---- rejections ---------------------------------------------------------- */

static void test_reject_bytes(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = gd_graph_with_pre();
  static const uint8_t garbage[] = {0x0a, 0x05, 0x0a, 0x03, 'a'};
  CU_ASSERT_PTR_NULL(
      tfs_graph_import_graphdef(g, garbage, sizeof garbage, NULL, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Invalid GraphDef");
  static const uint8_t group[] = {0x0b, 0x0c};
  CU_ASSERT_PTR_NULL(tfs_graph_import_graphdef(g, group, 2, NULL, st));
  TFS_ASSERT_MESSAGE(st, "Invalid GraphDef");
  /* empty bytes: an empty graph, fine */
  tfs_import_results *r = tfs_graph_import_graphdef(g, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_reject_nodes(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_node(&b, "y", "Bogus", "x");
  gd_expect_reject_opts(&b, NULL, TFS_NOT_FOUND,
                        "Node 'y': Op type not registered 'Bogus' in binary "
                        "running on ");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "z");
  gd_expect_reject(&b, "Node 'y': Unknown input node 'z'");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "x:3");
  gd_expect_reject(&b,
                   "Node 'y': Connecting to invalid output 3 of source "
                   "node x which has 1 outputs.");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_placeholder(&b, "i", TFS_INT32);
  Tensorflow__NodeDef *mul = gd_node(&b, "mul", "Mul", "x,i");
  gd_attr(&b, mul, "T", gd_av_type(&b, TFS_FLOAT));
  gd_expect_reject(&b,
                   "Input 1 of node mul was passed int32 from i:0 "
                   "incompatible with expected float.");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__NodeDef *y = gd_node(&b, "y", "Identity", "x");
  gd_attr(&b, y, "T", gd_av_int(&b, 3));
  gd_expect_reject(&b,
                   "AttrValue had value with type 'int' when 'type' "
                   "expected\n\t for attr 'T'\n\t; NodeDef: {{node y}}; "
                   "Op<name=Identity; signature=input:T -> output:T; "
                   "attr=T:type>");
  gdb_free(&b);

  gdb_init(&b);
  gd_identity(&b, "a", "b");
  gd_identity(&b, "b", "c");
  gd_identity(&b, "c", "b");
  gd_expect_reject(&b, "3 nodes in a cycle: b -> c -> b");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_expect_reject(&b, "Node 'x' is not unique");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "pre", TFS_FLOAT);
  gd_expect_reject(&b, "Node name 'pre' already exists in the Graph");
  gdb_free(&b);

  gdb_init(&b);
  gd_node(&b, "a!", "NoOp", NULL);
  gd_expect_reject(&b, "Node 'a!': Node name contains invalid characters");
  gdb_free(&b);

  gdb_init(&b);
  gd_node(&b, "_a", "NoOp", NULL);
  gd_expect_reject(&b, "Node '_a': Node name contains invalid characters");
  gdb_free(&b);

  gdb_init(&b);
  gd_node(&b, "x", "", NULL);
  gd_expect_reject(&b, "Node 'x' does not specify an operation");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "^x,x");
  gd_expect_reject(&b,
                   "Node 'y': Control dependencies must come after regular "
                   "dependencies");
  gdb_free(&b);

  gdb_init(&b);
  gd_node(&b, "x", "Placeholder", NULL); /* dtype has no default */
  gd_expect_reject(&b, "NodeDef missing attr 'dtype' from Op<name=Placeholder");
  gdb_free(&b);

  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__NodeDef *c = gd_identity(&b, "y", "x");
  gd_attr(&b, c, "_class", gd_av_strlist(&b, "loc:@nowhere"));
  gd_expect_reject(&b,
                   "Node 'y' expects to be colocated with unknown node "
                   "'nowhere'");
  gdb_free(&b);
}

static void test_reject_tensors(void) {
  gdb b;
  int64_t d3[1] = {3}, dneg[1] = {-3};
  int64_t dbig[2] = {(int64_t)1 << 62, (int64_t)1 << 62};
  struct {
    int rank;
    const int64_t *dims;
    const char *msg;
  } cases[] = {
      {1, d3,
       "Node 'c': attr 'value': Cannot parse tensor from proto: "
       "tensor_content has 4 bytes but a float tensor of shape [3] "
       "needs 12"},
      {1, dneg, "Node 'c': attr 'value': Shape [-3] is not fully defined"},
      {2, dbig,
       "Node 'c': attr 'value': Shape [4611686018427387904,"
       "4611686018427387904] is too large (more than 2**63 - 1 "
       "entries)"},
  };
  for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++) {
    gdb_init(&b);
    Tensorflow__NodeDef *n = gd_node(&b, "c", "Const", NULL);
    Tensorflow__TensorProto *t =
        gd_tensor(&b, TFS_FLOAT, cases[i].rank, cases[i].dims);
    t->tensor_content.data = (uint8_t *)"\0\0\0\0";
    t->tensor_content.len = 4;
    gd_attr(&b, n, "dtype", gd_av_type(&b, TFS_FLOAT));
    gd_attr(&b, n, "value", gd_av_tensor(&b, t));
    gd_expect_reject(&b, cases[i].msg);
    gdb_free(&b);
  }
  /* a Placeholder shape below -1 */
  gdb_init(&b);
  Tensorflow__NodeDef *x = gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__AttrValue *s = gd_av(&b);
  s->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  s->shape = gd_tensor(&b, TFS_FLOAT, 1, dneg)->tensor_shape;
  gd_attr(&b, x, "shape", s);
  gd_expect_reject(&b,
                   "Node 'x': attr 'shape': Shape [-3] has dimensions with "
                   "values below -1 (where -1 means unknown)");
  gdb_free(&b);
}

/* What TensorFlow's NodeDef validation says, word for word (TensorFlow
 * 2.21's import_graph_def gives the same texts). */
static void test_reject_against_op_definitions(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_node(&b, "y", "Bogus", "x");
  gd_expect_reject_opts(&b, NULL, TFS_NOT_FOUND,
                        ". Make sure the Op and Kernel are registered in the "
                        "binary running in this process. Note that if you "
                        "are loading a saved graph which used ops from "
                        "tf.contrib (e.g. `tf.contrib.resampler`), accessing "
                        "should be done before importing the graph, as "
                        "contrib ops are lazily registered when the module "
                        "is first accessed.");
  gdb_free(&b);

  gdb_init(&b);
  gd_node(&b, "x", "Placeholder", NULL);
  gd_expect_reject(&b,
                   "NodeDef missing attr 'dtype' from Op<name=Placeholder; "
                   "signature= -> output:dtype; attr=dtype:type; "
                   "attr=shape:shape,default=<unknown>>; NodeDef: {{node x}}");
  gdb_free(&b);

  /* one input too many */
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "x,x");
  gd_expect_reject(&b,
                   "NodeDef expected inputs 'float' do not match 2 inputs "
                   "specified; Op<name=Identity; signature=input:T -> "
                   "output:T; attr=T:type>; NodeDef: {{node y}}");
  gdb_free(&b);

  /* one input too few */
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__NodeDef *mul = gd_node(&b, "y", "Mul", "x");
  gd_attr(&b, mul, "T", gd_av_type(&b, TFS_FLOAT));
  gd_expect_reject(&b,
                   "NodeDef expected inputs 'float, float' do not match 1 "
                   "inputs specified; Op<name=Mul; signature=x:T, y:T -> "
                   "z:T; attr=T:type,allowed=[");
  gdb_free(&b);

  /* a type outside the op's allowed list */
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_STRING);
  Tensorflow__NodeDef *relu = gd_node(&b, "y", "Relu", "x");
  gd_attr(&b, relu, "T", gd_av_type(&b, TFS_STRING));
  gd_expect_reject(&b,
                   "Value for attr 'T' of string is not in the list of "
                   "allowed values: float, double, int32, uint8, int16, "
                   "int8, int64, bfloat16, uint16, half, uint32, uint64, "
                   "qint8\n\t; NodeDef: {{node y}}; Op<name=Relu; "
                   "signature=features:T -> activations:T; "
                   "attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, "
                   "DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16, "
                   "DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64, DT_QINT8]>");
  gdb_free(&b);

  /* an int attr below its minimum */
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__NodeDef *addn = gd_node(&b, "y", "AddN", "x");
  gd_attr(&b, addn, "T", gd_av_type(&b, TFS_FLOAT));
  gd_attr(&b, addn, "N", gd_av_int(&b, 0));
  gd_expect_reject(&b,
                   "Value for attr 'N' of 0 must be at least minimum 1\n\t; "
                   "NodeDef: {{node y}}; Op<name=AddN; "
                   "signature=inputs:N*T -> sum:T; attr=N:int,min=1; ");
  gdb_free(&b);

  /* a list where a shape belongs */
  gdb_init(&b);
  Tensorflow__NodeDef *x = gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__AttrValue *ints = gd_av(&b);
  ints->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  ints->list = tfs_pb_arena_alloc(&b.a, sizeof(*ints->list));
  tensorflow__attr_value__list_value__init(ints->list);
  static int64_t one[1] = {1};
  ints->list->i = one;
  ints->list->n_i = 1;
  gd_attr(&b, x, "shape", ints);
  gd_expect_reject(&b,
                   "AttrValue had value with type 'list(int)' when 'shape' "
                   "expected\n\t for attr 'shape'\n\t; NodeDef: {{node x}}; "
                   "Op<name=Placeholder; signature= -> output:dtype; "
                   "attr=dtype:type; attr=shape:shape,default=<unknown>>");
  gdb_free(&b);
}

/* TensorFlow 2.21 keeps an attr its op does not declare (a GraphDef from a
 * newer producer may carry one) and runs the node; so does tfsess, and the
 * attr survives export. */
static void test_undeclared_attr_is_kept(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  Tensorflow__NodeDef *y = gd_identity(&b, "y", "x");
  gd_attr(&b, y, "newer_attr", gd_av_int(&b, 1));
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(gd_import(g, &b, NULL, st));
  TFS_ASSERT_OK(st);
  tfs_operation *op = tfs_graph_operation_by_name(g, "y");
  CU_ASSERT_PTR_NOT_NULL_FATAL(op);
  int64_t v = 0;
  CU_ASSERT_EQUAL(tfs_attrs_get_int(&op->attrs, "newer_attr", &v), 0);
  CU_ASSERT_EQUAL(v, 1);
  tfs_buffer *e = gd_export(g);
  tfs_graph *g2 = gd_import_buffer(e);
  gd_assert_same_graph(g, g2);
  int64_t dims[1] = {2};
  float xv[2] = {1.5f, -2};
  tfs_tensor *xt = tu_floats(dims, 1, xv);
  tfs_session *s = tfs_session_new(g2, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output in = {tfs_graph_operation_by_name(g2, "x"), 0};
  tfs_output out = {tfs_graph_operation_by_name(g2, "y"), 0};
  tfs_tensor *got = tu_run1(s, out, &in, &xt, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(got);
  CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(got))[1], -2.0f);
  tfs_tensor_free(got);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g2);
  tfs_buffer_free(e);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_reject_versions_and_options(void) {
  gdb b;
  gdb_init(&b);
  gd_node(&b, "a", "NoOp", NULL);
  b.gd.versions = &b.ver;
  b.ver.producer = 5;
  b.ver.min_consumer = 3000;
  gd_expect_reject(&b,
                   "GraphDef min consumer version 3000 above current "
                   "version 2474 for TensorFlow 2.21.0.  Please upgrade "
                   "TensorFlow.");
  b.ver.min_consumer = 0;
  int32_t bad[1] = {2474};
  b.ver.bad_consumers = bad;
  b.ver.n_bad_consumers = 1;
  gd_expect_reject(&b,
                   "GraphDef disallows consumer version 2474.  Please "
                   "upgrade TensorFlow: this version is likely buggy.");
  b.ver.n_bad_consumers = 0;
  b.ver.producer = -5;
  gd_expect_reject(&b,
                   "GraphDef producer version -5 below min producer 0 "
                   "supported by TensorFlow 2.21.0.  Please regenerate "
                   "your graph.");
  b.ver.producer = 5;

  tfs_import_options *o = tfs_import_options_new();
  tfs_import_options_set_prefix(o, "bad!");
  gd_expect_reject_opts(&b, o, TFS_INVALID_ARGUMENT,
                        "Imported node name prefix 'bad!/' would lead to "
                        "invalid node names");
  tfs_import_options_free(o);

  o = tfs_import_options_new();
  tfs_import_options_add_return_output(o, "nope", 0);
  gd_expect_reject_opts(&b, o, TFS_INVALID_ARGUMENT,
                        "Requested return tensor 'nope:0' not found in graph "
                        "def");
  tfs_import_options_free(o);
  o = tfs_import_options_new();
  tfs_import_options_add_return_output(o, "a", 1);
  gd_expect_reject_opts(&b, o, TFS_INVALID_ARGUMENT,
                        "Invalid return output 1 of node 'a', which has 0 "
                        "output(s)");
  tfs_import_options_free(o);
  o = tfs_import_options_new();
  tfs_import_options_add_return_operation(o, "nope");
  gd_expect_reject_opts(&b, o, TFS_INVALID_ARGUMENT,
                        "Requested return node 'nope' not found in graph def");
  tfs_import_options_free(o);

  /* operations from another graph */
  tfs_graph *other = gd_graph_with_pre();
  tfs_output foreign = {tfs_graph_operation_by_name(other, "pre"), 0};
  o = tfs_import_options_new();
  tfs_import_options_add_input_mapping(o, "a", 0, foreign);
  gd_expect_reject_opts(&b, o, TFS_INVALID_ARGUMENT,
                        "node '(unknown)' in input_map does not exist in graph "
                        "(input_map entry: a:0->(unknown):0)");
  tfs_import_options_free(o);
  o = tfs_import_options_new();
  tfs_import_options_add_control_dependency(o, foreign.oper);
  gd_expect_reject_opts(&b, o, TFS_INVALID_ARGUMENT,
                        "node '(unknown)' in control_dependencies does not "
                        "exist in graph");
  tfs_import_options_free(o);
  tfs_graph_free(other);
  gdb_free(&b);
}

/* ---- robustness ---------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Every prefix and 1,000 bit-flipped copies of GraphDefs TensorFlow
 * wrote: an import succeeds (and exports) or fails with an error and
 * leaves the graph as it was; never a crash or a leak (the sanitizer
 * build checks). */
static void test_corrupted_bytes_never_crash(void) {
  static const char *files[] = {"graph_mlp.pb", "graph_mlp_stripped.pb"};
  tfs_status *st = tfs_status_new();
  int accepted = 0, rejected = 0;
  for (size_t f = 0; f < TFS_ARRAY_LEN(files); f++) {
    tfs_buffer *good = gd_load(files[f]);
    const uint8_t *src = good->data;
    uint8_t *buf = malloc(good->length);
    for (size_t iter = 0; iter < good->length + 1000; iter++) {
      size_t len = good->length;
      memcpy(buf, src, len);
      if (iter < good->length) {
        len = iter; /* truncation */
      } else {
        int flips = 1 + (int)(rnd() % 3);
        for (int k = 0; k < flips; k++)
          buf[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8));
      }
      tfs_graph *g = gd_graph_with_pre();
      tfs_import_results *r = tfs_graph_import_graphdef(g, buf, len, NULL, st);
      if (r) {
        accepted++;
        tfs_buffer *e = gd_export(g);
        tfs_buffer_free(e);
      } else {
        rejected++;
        CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
        CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
        CU_ASSERT_EQUAL(g->ops[0]->consumers[0].n, 0);
      }
      tfs_import_results_free(r);
      tfs_graph_free(g);
    }
    free(buf);
    tfs_buffer_free(good);
  }
  CU_ASSERT(accepted > 0 && rejected > 0);
  tfs_status_free(st);
}

static void test_out_of_memory_leaves_graph_unchanged(void) {
  tfs_buffer *good = gd_load("graph_mlp.pb");
  tfs_status *st = tfs_status_new();
  int done = 0;
  for (long n = 1; !done && n < 100000; n += (n < 400 ? 1 : 37)) {
    tfs_graph *g = gd_graph_with_pre();
    tfs_alloc_fail_at(n);
    tfs_import_results *r =
        tfs_graph_import_graphdef(g, good->data, good->length, NULL, st);
    long used = tfs_alloc_fail_at(0);
    if (r) {
      done = used < n;
      CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 21);
    } else {
      CU_ASSERT_EQUAL(tfs_status_code(st), TFS_RESOURCE_EXHAUSTED);
      CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 1);
    }
    tfs_import_results_free(r);
    tfs_graph_free(g);
  }
  CU_ASSERT_TRUE(done);
  tfs_buffer_free(good);
  tfs_status_free(st);
}

/* ---- export -------------------------------------------------------------- */

static void test_export_errors_and_pruned(void) {
  gdb b;
  gdb_init(&b);
  gd_placeholder(&b, "x", TFS_FLOAT);
  gd_identity(&b, "y", "x");
  gd_node(&b, "c", "NoOp", NULL);
  gd_identity(&b, "z", "y,^c");
  gd_identity(&b, "other", "x");
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(gd_import(g, &b, NULL, st));
  TFS_ASSERT_OK(st);
  tfs_buffer *out = tfs_buffer_new();
  out->data = "x";
  tfs_graph_to_graphdef(g, out, st);
  TFS_ASSERT_MESSAGE(st, "Passing non-empty TF_Buffer is invalid.");
  out->data = NULL;
  tfs_output z = {tfs_graph_operation_by_name(g, "z"), 0};
  tfs_graph_to_graphdef_pruned(g, &z, 1, NULL, 0, out, st);
  TFS_ASSERT_OK(st);
  Tensorflow__GraphDef *gd =
      tensorflow__graph_def__unpack(NULL, out->length, out->data);
  CU_ASSERT_EQUAL_FATAL(gd->n_node, 4);
  const char *want[4] = {"x", "y", "c", "z"};
  for (int i = 0; i < 4; i++)
    CU_ASSERT_STRING_EQUAL(gd->node[i]->name, want[i]);
  CU_ASSERT_EQUAL(gd->node[3]->n_input, 2);
  CU_ASSERT_STRING_EQUAL(gd->node[3]->input[0], "y");
  CU_ASSERT_STRING_EQUAL(gd->node[3]->input[1], "^c");
  tensorflow__graph_def__free_unpacked(gd, NULL);
  tfs_buffer_free(out);
  out = tfs_buffer_new();
  tfs_output bad = {tfs_graph_operation_by_name(g, "z"), 3};
  tfs_graph_to_graphdef_pruned(g, &bad, 1, NULL, 0, out, st);
  TFS_ASSERT_MESSAGE(st, "fetch 0 is not an output of this graph");
  tfs_buffer_free(out);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

static void test_node_def_and_op_list(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = gd_graph_with_pre();
  tfs_op_desc *d = tfs_op_desc_new(g, "MatMul", "mm");
  tfs_output pre = {tfs_graph_operation_by_name(g, "pre"), 0};
  tfs_op_desc_add_input(d, pre);
  tfs_op_desc_add_input(d, pre);
  tfs_op_desc_set_device(d, "/device:CPU:0");
  tfs_op_desc_add_control_input(d, pre.oper);
  tfs_operation *mm = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_buffer *b = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_graph__node_def(mm, b, st), 0);
  Tensorflow__NodeDef *nd =
      tensorflow__node_def__unpack(NULL, b->length, b->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(nd);
  CU_ASSERT_STRING_EQUAL(nd->name, "mm");
  CU_ASSERT_STRING_EQUAL(nd->op, "MatMul");
  CU_ASSERT_STRING_EQUAL(nd->device, "/device:CPU:0");
  CU_ASSERT_EQUAL_FATAL(nd->n_input, 3);
  CU_ASSERT_STRING_EQUAL(nd->input[2], "^pre");
  /* every attr, sorted: T, transpose_a, transpose_b (+ what the registry
   * adds) */
  CU_ASSERT(nd->n_attr >= 3);
  for (size_t i = 1; i < nd->n_attr; i++)
    CU_ASSERT(strcmp(nd->attr[i - 1]->key, nd->attr[i]->key) < 0);
  tensorflow__node_def__free_unpacked(nd, NULL);
  tfs_buffer_free(b);

  b = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_op_list__serialize(b, st), 0);
  Tensorflow__OpList *l = tensorflow__op_list__unpack(NULL, b->length, b->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  int n;
  tfs_op_all(&n);
  CU_ASSERT_EQUAL(l->n_op, (size_t)n);
  const Tensorflow__OpDef *m = NULL;
  for (size_t i = 0; i < l->n_op; i++)
    if (strcmp(l->op[i]->name, "MatMul") == 0) m = l->op[i];
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(m->n_input_arg, 2);
  CU_ASSERT_STRING_EQUAL(m->input_arg[0]->name, "a");
  CU_ASSERT_STRING_EQUAL(m->input_arg[0]->type_attr, "T");
  CU_ASSERT_STRING_EQUAL(m->output_arg[0]->name, "product");
  int found = 0;
  for (size_t i = 0; i < m->n_attr; i++) {
    const Tensorflow__OpDef__AttrDef *a = m->attr[i];
    if (strcmp(a->name, "transpose_a") == 0) {
      found++;
      CU_ASSERT_STRING_EQUAL(a->type, "bool");
      CU_ASSERT_PTR_NOT_NULL_FATAL(a->default_value);
      CU_ASSERT_EQUAL(a->default_value->value_case,
                      TENSORFLOW__ATTR_VALUE__VALUE_B);
    } else if (strcmp(a->name, "T") == 0) {
      found++;
      CU_ASSERT_STRING_EQUAL(a->type, "type");
      CU_ASSERT_PTR_NOT_NULL_FATAL(a->allowed_values);
      CU_ASSERT(a->allowed_values->list->n_type > 0);
    }
  }
  CU_ASSERT_EQUAL(found, 2);
  tensorflow__op_list__free_unpacked(l, NULL);
  tfs_buffer_free(b);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* The producer version and min_consumer of exported bytes. */
static void export_versions(tfs_graph *g, int *producer, int *min_consumer) {
  tfs_buffer *e = gd_export(g);
  Tensorflow__GraphDef *gd =
      tensorflow__graph_def__unpack(NULL, e->length, e->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gd->versions);
  *producer = gd->versions->producer;
  *min_consumer = gd->versions->min_consumer;
  tensorflow__graph_def__free_unpacked(gd, NULL);
  tfs_buffer_free(e);
}

/* As TensorFlow's graph, tfsess's keeps the lowest producer and the highest
 * min_consumer of what it imported, and exports them: a PlaceholderV2 of a
 * producer 21 GraphDef (the op was removed at version 23) stays loadable
 * in TensorFlow after a re-export.  A graph built with the API, or before
 * any import, says TensorFlow 2.21's version. */
static void test_export_keeps_versions(void) {
  tfs_graph *g = tfs_graph_new();
  int producer = -1, min_consumer = -1;
  export_versions(g, &producer, &min_consumer);
  CU_ASSERT_EQUAL(producer, 2474);
  CU_ASSERT_EQUAL(min_consumer, 0);
  gdb b;
  gdb_init(&b);
  Tensorflow__NodeDef *p = gd_node(&b, "p", "PlaceholderV2", NULL);
  gd_attr(&b, p, "dtype", gd_av_type(&b, TFS_FLOAT));
  Tensorflow__TensorShapeProto unknown = TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  unknown.unknown_rank = 1;
  Tensorflow__AttrValue *shape = gd_av(&b);
  shape->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  shape->shape = &unknown;
  gd_attr(&b, p, "shape", shape);
  b.gd.versions = &b.ver;
  b.ver.producer = 21;
  b.ver.min_consumer = 3;
  tfs_status *st = tfs_status_new();
  tfs_import_results_free(gd_import(g, &b, NULL, st));
  TFS_ASSERT_OK(st);
  export_versions(g, &producer, &min_consumer);
  CU_ASSERT_EQUAL(producer, 21);
  CU_ASSERT_EQUAL(min_consumer, 3);
  /* a second import: the lower producer and the higher min_consumer */
  b.ver.producer = 100;
  b.ver.min_consumer = 7;
  tfs_import_options *o = tfs_import_options_new();
  tfs_import_options_set_prefix(o, "second");
  tfs_import_results_free(gd_import(g, &b, o, st));
  TFS_ASSERT_OK(st);
  export_versions(g, &producer, &min_consumer);
  CU_ASSERT_EQUAL(producer, 21);
  CU_ASSERT_EQUAL(min_consumer, 7);
  /* the export reimports with the same versions */
  tfs_buffer *e = gd_export(g);
  tfs_graph *g2 = gd_import_buffer(e);
  export_versions(g2, &producer, &min_consumer);
  CU_ASSERT_EQUAL(producer, 21);
  CU_ASSERT_EQUAL(min_consumer, 7);
  /* a GraphDef without versions is producer 0, as in TensorFlow */
  b.gd.versions = NULL;
  tfs_import_options_set_prefix(o, "third");
  tfs_import_results_free(gd_import(g2, &b, o, st));
  TFS_ASSERT_OK(st);
  export_versions(g2, &producer, &min_consumer);
  CU_ASSERT_EQUAL(producer, 0);
  CU_ASSERT_EQUAL(min_consumer, 7);
  tfs_import_options_free(o);
  tfs_graph_free(g2);
  tfs_buffer_free(e);
  tfs_graph_free(g);
  tfs_status_free(st);
  gdb_free(&b);
}

static const tfs_test_case tf_cases[] = {
    {"imports_and_runs", test_tf_graph_imports_and_runs},
    {"defaults_stripped", test_tf_graph_with_defaults_stripped},
    {"export_reimports_identically", test_export_reimports_identically},
    {NULL, NULL}};
static const tfs_test_case import_cases[] = {
    {"any_order_no_versions", test_any_order_no_versions},
    {"devices_and_underscore_attrs", test_devices_and_underscore_attrs},
    {"prefix", test_prefix},
    {"uniquify_names", test_uniquify_names},
    {"input_map_and_missing", test_input_map_and_missing},
    {"control_remap_and_dependencies", test_control_remap_and_dependencies},
    {"undeclared_attr_is_kept", test_undeclared_attr_is_kept},
    {NULL, NULL}};
static const tfs_test_case reject_cases[] = {
    {"bytes", test_reject_bytes},
    {"nodes", test_reject_nodes},
    {"tensors", test_reject_tensors},
    {"against_op_definitions", test_reject_against_op_definitions},
    {"versions_and_options", test_reject_versions_and_options},
    {"corrupted_bytes_never_crash", test_corrupted_bytes_never_crash},
    {"out_of_memory", test_out_of_memory_leaves_graph_unchanged},
    {NULL, NULL}};
static const tfs_test_case export_cases[] = {
    {"errors_and_pruned", test_export_errors_and_pruned},
    {"node_def_and_op_list", test_node_def_and_op_list},
    {"keeps_versions", test_export_keeps_versions},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"tf_graphs", tf_cases},
                                          {"import", import_cases},
                                          {"reject", reject_cases},
                                          {"export", export_cases},
                                          {NULL, NULL}};

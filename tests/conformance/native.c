/*
 * tests/conformance/native.c - graphs built with tfsess's own builder API
 * (not imported from TensorFlow), run in tfsess and written as
 * conformance cases (graph.pb exported by tfsess, feeds, tfsess's outputs)
 * under $TFS_EXPORT_DIR/native/.  scripts/gen_fixtures then runs them in
 * TensorFlow to check that what tfsess exports loads and runs there.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "conformance.h"
#include "iotest.h"

typedef struct {
  const char *feeds[4];
  tfs_tensor *feed_values[4];
  const char *fetches[4];
  const char *inits[2];
  int runs;
} native_case;

static tfs_tensor *floats(const int64_t *dims, int nd, const float *v) {
  tfs_status *st = tfs_status_new();
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  tfs_tensor *t = tfs_tensor_new_copy(TFS_FLOAT, dims, nd, v,
                                      (size_t)n * sizeof(float), st);
  tfs_status_free(st);
  return t;
}

static int write_case(tfs_graph *g, const char *root, const char *name,
                      native_case *c, char *err, size_t cap) {
  tfs_status *st = tfs_status_new();
  char dir[4096], path[4300];
  snprintf(dir, sizeof dir, "%s/native/%s", root, name);
  snprintf(path, sizeof path, "mkdir -p '%s'", dir);
  int rc = system(path) == 0 ? 0 : -1;
  if (rc) snprintf(err, cap, "cannot create %s", dir);
  tfs_buffer gd = {NULL, 0, NULL};
  if (!rc) tfs_graph_to_graphdef(g, &gd, st);
  snprintf(path, sizeof path, "%s/graph.pb", dir);
  if (!rc && (!tfs_status_ok(st) || it_write_file(path, gd.data, gd.length))) {
    snprintf(err, cap, "%s: export: %s", name, tfs_status_message(st));
    rc = -1;
  }
  if (gd.data_deallocator) gd.data_deallocator((void *)gd.data, gd.length);
  tfs_session *s = rc ? NULL : tfs_session_new(g, NULL, st);
  FILE *m = NULL;
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  if (s) m = fopen(path, "w");
  if (!m) rc = -1;
  if (m) fprintf(m, "# written by tfsess (tests/conformance/native.c)\n");
  for (int i = 0; m && i < 2 && c->inits[i]; i++) {
    tfs_operation *op = tfs_graph_operation_by_name(g, c->inits[i]);
    tfs_session_run(s, NULL, NULL, 0, NULL, NULL, 0, &op, 1, st);
    fprintf(m, "init %s\n", c->inits[i]);
  }
  tfs_output feeds[4], fetches[4];
  tfs_tensor *out[4] = {NULL};
  int nf = 0, nt = 0;
  for (; m && nf < 4 && c->feeds[nf]; nf++) {
    feeds[nf] = tfs_graph_output_by_name(g, c->feeds[nf], st);
    snprintf(path, sizeof path, "%s/feed%d.npy", dir, nf);
    tfs_npy_write(path, c->feed_values[nf], st);
    fprintf(m, "feed %s feed%d.npy\n", c->feeds[nf], nf);
  }
  for (; m && nt < 4 && c->fetches[nt]; nt++)
    fetches[nt] = tfs_graph_output_by_name(g, c->fetches[nt], st);
  if (m && c->runs > 1) fprintf(m, "run %d\n", c->runs);
  for (int k = 0; m && tfs_status_ok(st) && k < (c->runs ? c->runs : 1); k++) {
    for (int i = 0; i < nt; i++) tfs_tensor_free(out[i]);
    tfs_session_run(s, feeds, c->feed_values, nf, fetches, out, nt, NULL, 0,
                    st);
  }
  for (int i = 0; m && tfs_status_ok(st) && i < nt; i++) {
    snprintf(path, sizeof path, "%s/fetch%d.npy", dir, i);
    tfs_npy_write(path, out[i], st);
    fprintf(m, "fetch %s fetch%d.npy\n", c->fetches[i], i);
  }
  if (!rc && !tfs_status_ok(st)) {
    snprintf(err, cap, "%s: %s", name, tfs_status_message(st));
    rc = -1;
  }
  if (m) fclose(m);
  for (int i = 0; i < nt; i++) tfs_tensor_free(out[i]);
  for (int i = 0; i < nf; i++) tfs_tensor_free(c->feed_values[i]);
  tfs_session_free(s);
  tfs_status_free(st);
  return rc;
}

static tfs_graph *mlp(native_case *c, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  static const float w[12] = {0.5f, -1, 2,  0.25f, 1,     -0.5f,
                              1.5f, 0,  -2, 1,     0.75f, 0.1f};
  static const float b[3] = {0.1f, -0.2f, 0.3f},
                     x[8] = {1, 2, 3, 4, -1, 0, 1, 0.5f};
  int64_t wd[] = {4, 3}, bd[] = {3}, xd[] = {-1, 4}, xv[] = {2, 4};
  tfs_tensor *wt = floats(wd, 2, w), *bt = floats(bd, 1, b);
  tfs_output in = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_output h = tfs_op_bias_add(
      g, "dense/BiasAdd",
      tfs_op_matmul(g, "dense/MatMul", in,
                    tfs_op_const(g, "dense/kernel", wt, st), 0, 0, st),
      tfs_op_const(g, "dense/bias", bt, st), st);
  tfs_output p = tfs_op_unary(g, "Softmax", "probs",
                              tfs_op_unary(g, "Relu", "dense/Relu", h, st), st);
  tfs_op_mean(g, "mean", p, tfs_op_const_int32(g, "axis", 0, st), 0, st);
  tfs_tensor_free(wt);
  tfs_tensor_free(bt);
  *c = (native_case){
      {"x:0"}, {floats(xv, 2, x)}, {"probs:0", "mean:0"}, {NULL}, 1};
  return g;
}

static tfs_graph *counter(native_case *c, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  tfs_output v = tfs_op_variable(g, "counter", TFS_INT32, NULL, 0, st);
  tfs_output a = tfs_op_assign(g, "counter/Assign", v,
                               tfs_op_const_int32(g, "zero", 0, st), st);
  tfs_operation *aop = a.oper;
  tfs_op_group(g, "init", &aop, 1, st);
  tfs_op_assign_add(g, "increment", v, tfs_op_const_int32(g, "one", 1, st), st);
  *c = (native_case){{NULL}, {NULL}, {"increment:0"}, {"init"}, 3};
  return g;
}

static tfs_graph *guarded(native_case *c, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_INT32, NULL, 0, st);
  tfs_output y = tfs_op_placeholder(g, "y", TFS_INT32, NULL, 0, st);
  tfs_tensor *msg = tfs_tensor_scalar_string("divisor must be positive", 24);
  tfs_output data[2] = {tfs_op_const(g, "msg", msg, st), y};
  tfs_operation *check =
      tfs_op_assert(g, "assert_positive",
                    tfs_op_binary(g, "Greater", NULL, y,
                                  tfs_op_const_int32(g, "zero", 0, st), st),
                    data, 2, st);
  tfs_op_div(g, "quotient", tfs_op_with_dependencies(g, NULL, x, &check, 1, st),
             y, st);
  tfs_tensor_free(msg);
  *c = (native_case){{"x:0", "y:0"},
                     {tfs_tensor_scalar_int32(17), tfs_tensor_scalar_int32(5)},
                     {"quotient:0"},
                     {NULL},
                     1};
  return g;
}

static tfs_graph *resource(native_case *c, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  int64_t d[] = {2};
  tfs_tensor *init = floats(d, 1, (float[]){1.5f, -2});
  tfs_output h = tfs_op_var_handle(g, "v", TFS_FLOAT, d, 1, st);
  tfs_operation *a = tfs_op_assign_variable(
      g, "v/Assign", h, tfs_op_const(g, "v/init", init, st), st);
  tfs_op_group(g, "init", &a, 1, st);
  tfs_tensor *step = floats(d, 1, (float[]){0.25f, 1});
  tfs_operation *add = tfs_op_assign_add_variable(
      g, "add", h, tfs_op_const(g, "step", step, st), st);
  tfs_tensor_free(step);
  /* the read goes through a handle that waits for the add: a control
   * dependency on the Identity of the value alone would let the read run
   * before the add (TensorFlow sometimes does) */
  tfs_output later = tfs_op_with_dependencies(g, "v/after_add", h, &add, 1, st);
  tfs_op_with_dependencies(g, "after",
                           tfs_op_read_variable(g, "read", later, TFS_FLOAT,
                                                st),
                           &add, 1, st);
  tfs_tensor_free(init);
  *c = (native_case){{NULL}, {NULL}, {"after:0"}, {"init"}, 2};
  return g;
}

static tfs_tensor *int32s(int64_t n, const int32_t *v) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, &n, 1, v,
                                      (size_t)n * sizeof(int32_t), st);
  tfs_status_free(st);
  return t;
}

static tfs_output const_ints(tfs_graph *g, const char *name, int64_t n,
                             const int32_t *v, tfs_status *st) {
  tfs_tensor *t = int32s(n, v);
  tfs_output o = tfs_op_const(g, name, t, st);
  tfs_tensor_free(t);
  return o;
}

/* Attrs of every kind TensorFlow's AttrValue has (tfsess's setters make
 * all but a list of functions), as `_`-prefixed attrs on an Identity,
 * which TensorFlow keeps without looking into them; then real ops whose
 * own attrs are floats, ints, bools, types, type lists and int lists. */
static void set_every_attr_kind(tfs_op_desc *d, tfs_status *st) {
  static const void *strs[2] = {"a", "bc"};
  static const size_t lens[2] = {1, 2};
  static const int64_t ints[3] = {1, -2, 3}, dims[2] = {2, -1};
  static const float floats[2] = {0.25f, -1};
  static const unsigned char bools[2] = {1, 0};
  static const tfs_dtype types[2] = {TFS_FLOAT, TFS_STRING};
  const int64_t *shapes[2] = {dims, NULL};
  const int ranks[2] = {2, -1};
  tfs_tensor *t[2] = {int32s(2, (const int32_t[]){3, 4}),
                      tfs_tensor_scalar_string("text", 4)};
  tfs_op_desc_set_attr_string(d, "_s", "text", 4);
  tfs_op_desc_set_attr_int(d, "_i", -7);
  tfs_op_desc_set_attr_float(d, "_f", 0.5f);
  tfs_op_desc_set_attr_bool(d, "_b", 1);
  tfs_op_desc_set_attr_type(d, "_type", TFS_INT64);
  tfs_op_desc_set_attr_shape(d, "_shape", dims, 2);
  tfs_op_desc_set_attr_shape(d, "_shape_unknown_rank", NULL, -1);
  tfs_op_desc_set_attr_tensor(d, "_tensor", t[0], st);
  tfs_op_desc_set_attr_func_name(d, "_func", "some_function", 13);
  tfs_op_desc_set_attr_placeholder(d, "_placeholder", "T");
  tfs_op_desc_set_attr_string_list(d, "_list_s", strs, lens, 2);
  tfs_op_desc_set_attr_int_list(d, "_list_i", ints, 3);
  tfs_op_desc_set_attr_float_list(d, "_list_f", floats, 2);
  tfs_op_desc_set_attr_bool_list(d, "_list_b", bools, 2);
  tfs_op_desc_set_attr_type_list(d, "_list_type", types, 2);
  tfs_op_desc_set_attr_shape_list(d, "_list_shape", shapes, ranks, 2);
  tfs_op_desc_set_attr_tensor_list(d, "_list_tensor", t, 2, st);
  tfs_op_desc_set_attr_int_list(d, "_list_empty", NULL, 0);
  tfs_tensor_free(t[0]);
  tfs_tensor_free(t[1]);
}

static tfs_graph *every_attr_kind(native_case *c, tfs_status *st) {
  tfs_graph *g = tfs_graph_new();
  int64_t xd[] = {-1, 3}, xv[] = {2, 3};
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 2, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Identity", "tagged");
  tfs_op_desc_add_input(d, x);
  set_every_attr_kind(d, st);
  tfs_output tagged = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "LeakyRelu", "leaky");
  tfs_op_desc_add_input(d, tagged);
  tfs_op_desc_set_attr_float(d, "alpha", 0.25f);
  tfs_output leaky = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "StridedSlice", "columns");
  tfs_op_desc_add_input(d, leaky);
  tfs_op_desc_add_input(d, const_ints(g, "begin", 2, (int32_t[]){0, 1}, st));
  tfs_op_desc_add_input(d, const_ints(g, "end", 2, (int32_t[]){0, 3}, st));
  tfs_op_desc_add_input(d, const_ints(g, "strides", 2, (int32_t[]){1, 1}, st));
  tfs_op_desc_set_attr_int(d, "begin_mask", 1);
  tfs_op_desc_set_attr_int(d, "end_mask", 1);
  tfs_output cols = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "Cast", "as_int");
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_type(d, "DstT", TFS_INT32);
  tfs_op_desc_set_attr_bool(d, "Truncate", 1);
  tfs_output as_int = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "ExpandDims", "expanded");
  tfs_op_desc_add_input(d, as_int);
  tfs_op_desc_add_input(d, tfs_op_const_int32(g, "axis", 2, st));
  tfs_output expanded = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "Squeeze", "squeezed");
  tfs_op_desc_add_input(d, expanded);
  tfs_op_desc_set_attr_int_list(d, "squeeze_dims", (int64_t[]){-1}, 1);
  tfs_output squeezed = {tfs_op_desc_finish(d, st), 0};
  tfs_output both[2] = {cols, squeezed};
  d = tfs_op_desc_new(g, "IdentityN", "both");
  tfs_op_desc_add_input_list(d, both, 2);
  tfs_op_desc_finish(d, st);
  static const float xs[6] = {1.5f, -2, 3.25f, -0.5f, 0, 7};
  *c = (native_case){
      {"x:0"}, {floats(xv, 2, xs)}, {"both:0", "both:1"}, {NULL}, 1};
  return g;
}

int tc_write_native_cases(const char *root, char *err, size_t cap) {
  static const struct {
    const char *name;
    tfs_graph *(*build)(native_case *c, tfs_status *st);
  } kCases[] = {{"mlp", mlp},
                {"counter", counter},
                {"guarded_division", guarded},
                {"resource", resource},
                {"every_attr_kind", every_attr_kind}};
  tfs_status *st = tfs_status_new();
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < sizeof kCases / sizeof kCases[0]; i++) {
    native_case c;
    memset(&c, 0, sizeof c);
    tfs_graph *g = kCases[i].build(&c, st);
    if (!tfs_status_ok(st)) {
      snprintf(err, cap, "%s: build: %s", kCases[i].name,
               tfs_status_message(st));
      rc = -1;
      for (int k = 0; k < 4; k++) tfs_tensor_free(c.feed_values[k]);
    } else {
      rc = write_case(g, root, kCases[i].name, &c, err, cap);
    }
    tfs_graph_free(g);
  }
  tfs_status_free(st);
  return rc;
}

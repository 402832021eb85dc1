/*
 * tests/graph_builder/test_functions.c - function libraries and calls:
 * the library a GraphDef carries (import, export, the API's add / list /
 * get with TensorFlow's errors), PartitionedCall on functions with attr
 * placeholders instantiated per binding, recursion bounded by the
 * nesting limit, and safe mode looking inside function bodies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_proto/pb_util.h"
#include "proto/graph.pb-c.h"
#include "testutil.h"

#ifndef TFS_TEST_SRCDIR
#define TFS_TEST_SRCDIR "."
#endif

static tfs_status *st;

/* ---- building GraphDefs with a library ---------------------------------- */

typedef struct gb {
  tfs_pb_arena a;
} gb;

static Tensorflow__AttrValue *av_type(gb *b, Tensorflow__DataType t) {
  Tensorflow__AttrValue *v = tfs_pb_arena_alloc(&b->a, sizeof(*v));
  tensorflow__attr_value__init(v);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  v->type = t;
  return v;
}

static Tensorflow__AttrValue *av_types(gb *b, int n, Tensorflow__DataType t) {
  Tensorflow__AttrValue *v = tfs_pb_arena_alloc(&b->a, sizeof(*v));
  Tensorflow__AttrValue__ListValue *l = tfs_pb_arena_alloc(&b->a, sizeof(*l));
  tensorflow__attr_value__init(v);
  tensorflow__attr_value__list_value__init(l);
  l->type = tfs_pb_arena_array(&b->a, (size_t)n + 1, sizeof(*l->type));
  for (int i = 0; i < n; i++) l->type[i] = t;
  l->n_type = (size_t)n;
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = l;
  return v;
}

static Tensorflow__AttrValue *av_str(gb *b, const char *s) {
  Tensorflow__AttrValue *v = tfs_pb_arena_alloc(&b->a, sizeof(*v));
  tensorflow__attr_value__init(v);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)s;
  v->s.len = strlen(s);
  return v;
}

static Tensorflow__AttrValue *av_placeholder(gb *b, const char *name) {
  Tensorflow__AttrValue *v = tfs_pb_arena_alloc(&b->a, sizeof(*v));
  tensorflow__attr_value__init(v);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;
  v->placeholder = (char *)name;
  return v;
}

/* func attr: name with an optional binding T = t */
static Tensorflow__AttrValue *av_func(gb *b, const char *name,
                                      Tensorflow__DataType t) {
  Tensorflow__AttrValue *v = tfs_pb_arena_alloc(&b->a, sizeof(*v));
  Tensorflow__NameAttrList *f = tfs_pb_arena_alloc(&b->a, sizeof(*f));
  tensorflow__attr_value__init(v);
  tensorflow__name_attr_list__init(f);
  f->name = (char *)name;
  if (t != TENSORFLOW__DATA_TYPE__DT_INVALID) {
    Tensorflow__NameAttrList__AttrEntry *e =
        tfs_pb_arena_alloc(&b->a, sizeof(*e));
    tensorflow__name_attr_list__attr_entry__init(e);
    e->key = "T";
    e->value = av_type(b, t);
    f->attr = tfs_pb_arena_array(&b->a, 1, sizeof(void *));
    f->attr[0] = e;
    f->n_attr = 1;
  }
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
  v->func = f;
  return v;
}

static Tensorflow__NodeDef *node(gb *b, const char *name, const char *op,
                                 const char *in0, const char *in1) {
  Tensorflow__NodeDef *n = tfs_pb_arena_alloc(&b->a, sizeof(*n));
  tensorflow__node_def__init(n);
  n->name = (char *)name;
  n->op = (char *)op;
  n->input = tfs_pb_arena_array(&b->a, 2, sizeof(char *));
  if (in0) n->input[n->n_input++] = (char *)in0;
  if (in1) n->input[n->n_input++] = (char *)in1;
  n->attr = tfs_pb_arena_array(&b->a, 8, sizeof(void *));
  return n;
}

static void attr(gb *b, Tensorflow__NodeDef *n, const char *key,
                 Tensorflow__AttrValue *v) {
  Tensorflow__NodeDef__AttrEntry *e = tfs_pb_arena_alloc(&b->a, sizeof(*e));
  tensorflow__node_def__attr_entry__init(e);
  e->key = (char *)key;
  e->value = v;
  n->attr[n->n_attr++] = e;
}

static Tensorflow__OpDef__ArgDef *arg(gb *b, const char *name,
                                      Tensorflow__DataType t,
                                      const char *type_attr) {
  Tensorflow__OpDef__ArgDef *a = tfs_pb_arena_alloc(&b->a, sizeof(*a));
  tensorflow__op_def__arg_def__init(a);
  a->name = (char *)name;
  a->type = t;
  if (type_attr) a->type_attr = (char *)type_attr;
  return a;
}

/* A function `name` with one input and, when `out` is not NULL, one
 * output whose value is `ret`; body nodes[0..n); signature attr "T" (a
 * type) when with_t. */
static Tensorflow__FunctionDef *fn(gb *b, const char *name,
                                   Tensorflow__OpDef__ArgDef *in,
                                   Tensorflow__OpDef__ArgDef *out,
                                   const char *ret, Tensorflow__NodeDef **nodes,
                                   int n, int with_t) {
  Tensorflow__FunctionDef *f = tfs_pb_arena_alloc(&b->a, sizeof(*f));
  Tensorflow__OpDef *sig = tfs_pb_arena_alloc(&b->a, sizeof(*sig));
  tensorflow__function_def__init(f);
  tensorflow__op_def__init(sig);
  sig->name = (char *)name;
  sig->input_arg = tfs_pb_arena_array(&b->a, 1, sizeof(void *));
  sig->input_arg[0] = in;
  sig->n_input_arg = 1;
  if (out) {
    sig->output_arg = tfs_pb_arena_array(&b->a, 1, sizeof(void *));
    sig->output_arg[0] = out;
    sig->n_output_arg = 1;
    Tensorflow__FunctionDef__RetEntry *r =
        tfs_pb_arena_alloc(&b->a, sizeof(*r));
    tensorflow__function_def__ret_entry__init(r);
    r->key = out->name;
    r->value = (char *)ret;
    f->ret = tfs_pb_arena_array(&b->a, 1, sizeof(void *));
    f->ret[0] = r;
    f->n_ret = 1;
  }
  if (with_t) {
    Tensorflow__OpDef__AttrDef *ad = tfs_pb_arena_alloc(&b->a, sizeof(*ad));
    tensorflow__op_def__attr_def__init(ad);
    ad->name = "T";
    ad->type = "type";
    sig->attr = tfs_pb_arena_array(&b->a, 1, sizeof(void *));
    sig->attr[0] = ad;
    sig->n_attr = 1;
  }
  f->signature = sig;
  f->node_def = nodes;
  f->n_node_def = (size_t)n;
  return f;
}

static Tensorflow__NodeDef **list1(gb *b, Tensorflow__NodeDef *n) {
  Tensorflow__NodeDef **l = tfs_pb_arena_array(&b->a, 1, sizeof(void *));
  l[0] = n;
  return l;
}

/* Imports a GraphDef of `nodes` with library `fns` into a new graph. */
static tfs_graph *import(gb *b, Tensorflow__NodeDef **nodes, int n,
                         Tensorflow__FunctionDef **fns, int nf) {
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  Tensorflow__FunctionDefLibrary lib = TENSORFLOW__FUNCTION_DEF_LIBRARY__INIT;
  gd.node = nodes;
  gd.n_node = (size_t)n;
  lib.function = fns;
  lib.n_function = (size_t)nf;
  gd.library = &lib;
  size_t len = protobuf_c_message_get_packed_size(&gd.base);
  uint8_t *bytes = malloc(len + 1);
  protobuf_c_message_pack(&gd.base, bytes);
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, bytes, len, NULL, st);
  free(bytes);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  return g;
}

static Tensorflow__NodeDef *call(gb *b, const char *name, const char *input,
                                 const char *f, Tensorflow__DataType bind,
                                 Tensorflow__DataType tin, int nout) {
  Tensorflow__NodeDef *c = node(b, name, "PartitionedCall", input, NULL);
  attr(b, c, "Tin", av_types(b, 1, tin));
  attr(b, c, "Tout", av_types(b, nout, tin));
  attr(b, c, "f", av_func(b, f, bind));
  return c;
}

static Tensorflow__NodeDef *placeholder(gb *b, const char *name,
                                        Tensorflow__DataType t) {
  Tensorflow__NodeDef *p = node(b, name, "Placeholder", NULL, NULL);
  attr(b, p, "dtype", av_type(b, t));
  return p;
}

/* ---- tests --------------------------------------------------------------- */

/* identity(x: T) -> y: T with the body's Identity typed by a placeholder
 * attr, called with T = float and T = int32: two instances. */
static void test_attr_placeholders(void) {
  st = tfs_status_new();
  gb b = {TFS_PB_ARENA_INIT};
  const Tensorflow__DataType F = TENSORFLOW__DATA_TYPE__DT_FLOAT,
                             I = TENSORFLOW__DATA_TYPE__DT_INT32,
                             NONE = TENSORFLOW__DATA_TYPE__DT_INVALID;
  Tensorflow__NodeDef *id = node(&b, "i", "Identity", "x", NULL);
  attr(&b, id, "T", av_placeholder(&b, "T"));
  Tensorflow__FunctionDef *f =
      fn(&b, "ident", arg(&b, "x", NONE, "T"), arg(&b, "y", NONE, "T"),
         "i:output:0", list1(&b, id), 1, 1);
  Tensorflow__NodeDef *nodes[4] = {
      placeholder(&b, "xf", F), placeholder(&b, "xi", I),
      call(&b, "cf", "xf", "ident", F, F, 1),
      call(&b, "ci", "xi", "ident", I, I, 1)};
  tfs_graph *g = import(&b, nodes, 4, &f, 1);
  CU_ASSERT_EQUAL(tfs_graph_num_functions(g), 1);
  CU_ASSERT_STRING_EQUAL(tfs_graph_function_name(g, 0), "ident");
  CU_ASSERT_PTR_NULL(tfs_graph_function_name(g, 1));
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output feeds[2] = {tfs_graph_output_by_name(g, "xf", 0),
                         tfs_graph_output_by_name(g, "xi", 0)};
  tfs_output fetches[2] = {tfs_graph_output_by_name(g, "cf", 0),
                           tfs_graph_output_by_name(g, "ci", 0)};
  int64_t two = 2;
  float fv[2] = {1.5f, -2.0f};
  int32_t iv[2] = {7, 9};
  tfs_tensor *in[2] = {tu_floats(&two, 1, fv), tu_int32s(&two, 1, iv)};
  tfs_tensor *out[2];
  tfs_session_run(s, feeds, in, 2, fetches, out, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(out[0]), TFS_FLOAT);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(out[1]), TFS_INT32);
  CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(out[0]))[1], -2.0f);
  CU_ASSERT_EQUAL(((const int32_t *)tfs_tensor_data(out[1]))[0], 7);
  for (int i = 0; i < 2; i++) {
    tfs_tensor_free(in[i]);
    tfs_tensor_free(out[i]);
  }
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_pb_arena_free(&b.a);
  tfs_status_free(st);
}

/* rec(x) calls rec(x): stopped by the nesting limit, not the stack. */
static void test_recursion_is_bounded(void) {
  st = tfs_status_new();
  gb b = {TFS_PB_ARENA_INIT};
  const Tensorflow__DataType F = TENSORFLOW__DATA_TYPE__DT_FLOAT,
                             NONE = TENSORFLOW__DATA_TYPE__DT_INVALID;
  Tensorflow__NodeDef *inner = call(&b, "again", "x", "rec", NONE, F, 1);
  Tensorflow__FunctionDef *f =
      fn(&b, "rec", arg(&b, "x", F, NULL), arg(&b, "y", F, NULL),
         "again:output:0", list1(&b, inner), 1, 0);
  Tensorflow__NodeDef *nodes[2] = {placeholder(&b, "x", F),
                                   call(&b, "top", "x", "rec", NONE, F, 1)};
  tfs_graph *g = import(&b, nodes, 2, &f, 1);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_limit(o, TFS_LIMIT_NESTING, 8);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_output x = tfs_graph_output_by_name(g, "x", 0);
  tfs_output top = tfs_graph_output_by_name(g, "top", 0);
  tfs_tensor *v = tfs_tensor_scalar_float(1.0f);
  char msg[2048];
  CU_ASSERT_EQUAL(tu_run_error(s, top, &x, &v, 1, msg, sizeof msg),
                  TFS_RESOURCE_EXHAUSTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Function 'rec': calls nest deeper "
                                     "than the session's limit of 8"));
  tfs_tensor_free(v);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_pb_arena_free(&b.a);
  tfs_status_free(st);
}

/* A function whose body prints to a file: safe mode refuses the call. */
static void test_safe_mode_sees_bodies(void) {
  st = tfs_status_new();
  gb b = {TFS_PB_ARENA_INIT};
  const Tensorflow__DataType S = TENSORFLOW__DATA_TYPE__DT_STRING,
                             NONE = TENSORFLOW__DATA_TYPE__DT_INVALID;
  char path[64], stream[80];
  snprintf(path, sizeof path, "/tmp/tfs_fn_%d.txt", (int)getpid());
  snprintf(stream, sizeof stream, "file://%s", path);
  unlink(path);
  Tensorflow__NodeDef *pr = node(&b, "p", "PrintV2", "x", NULL);
  attr(&b, pr, "output_stream", av_str(&b, stream));
  Tensorflow__FunctionDef *f = fn(&b, "write_it", arg(&b, "x", S, NULL),
                                  NULL, NULL, list1(&b, pr), 1, 0);
  /* the print is a control output, as tf.function makes it one */
  f->signature->control_output = tfs_pb_arena_array(&b.a, 1, sizeof(char *));
  f->signature->control_output[0] = "p";
  f->signature->n_control_output = 1;
  Tensorflow__FunctionDef__ControlRetEntry *cr =
      tfs_pb_arena_alloc(&b.a, sizeof(*cr));
  tensorflow__function_def__control_ret_entry__init(cr);
  cr->key = "p";
  cr->value = "p";
  f->control_ret = tfs_pb_arena_array(&b.a, 1, sizeof(void *));
  f->control_ret[0] = cr;
  f->n_control_ret = 1;
  Tensorflow__NodeDef *c = call(&b, "call", "text", "write_it", NONE, S, 0);
  c->op = "StatefulPartitionedCall";
  Tensorflow__NodeDef *nodes[2] = {placeholder(&b, "text", S), c};
  tfs_graph *g = import(&b, nodes, 2, &f, 1);
  tfs_operation *op = tfs_graph_operation_by_name(g, "call");
  tfs_output text = tfs_graph_output_by_name(g, "text", 0);
  const char *hello = "hello";
  tfs_tensor *v = tfs_tensor_new_strings(NULL, 0, &hello, NULL, st);
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_safe_mode(o, 1);
  tfs_session *s = tfs_session_new(g, o, st);
  tfs_session_run(s, &text, &v, 1, NULL, NULL, 0, &op, 1, st);
  TFS_ASSERT_MESSAGE(st, "Node 'p' in function 'write_it' (called by node "
                         "'call') (op PrintV2) writes files, which safe mode "
                         "refuses; allow the op type in the session's "
                         "options to run it");
  CU_ASSERT_EQUAL(access(path, F_OK), -1);
  tfs_session_free(s);
  /* out of safe mode the call runs its body */
  s = tfs_session_new(g, NULL, st);
  tfs_session_run(s, &text, &v, 1, NULL, NULL, 0, &op, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(access(path, F_OK), 0);
  unlink(path);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_tensor_free(v);
  tfs_graph_free(g);
  tfs_pb_arena_free(&b.a);
  tfs_status_free(st);
}

static uint8_t *read_file(const char *rel, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", TFS_TEST_SRCDIR, rel);
  FILE *f = fopen(path, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc(*len + 1);
  CU_ASSERT_EQUAL(fread(d, 1, *len, f), *len);
  fclose(f);
  return d;
}

/* A TensorFlow GraphDef with three functions: listed, got back byte for
 * byte, added again (no change), and TensorFlow's conflict errors. */
static void test_library_api(void) {
  st = tfs_status_new();
  size_t len;
  uint8_t *pb = read_file("tests/conformance/functions/call_nested/graph.pb",
                          &len);
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, pb, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  free(pb);
  int n = tfs_graph_num_functions(g);
  CU_ASSERT_EQUAL(n, 3);
  const char *name = tfs_graph_function_name(g, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(name);
  tfs_buffer *def = tfs_buffer_new();
  tfs_graph_get_function_def(g, name, def, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT(def->length > 0);
  /* the same bytes again: nothing changes */
  tfs_graph_add_function(g, def->data, def->length, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_graph_num_functions(g), n);
  tfs_graph *g2 = tfs_graph_new();
  tfs_graph_add_function(g2, def->data, def->length, st);
  TFS_ASSERT_OK(st);
  tfs_graph_add_function(g2, "\xff\xff", 2, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Invalid FunctionDef");
  tfs_buffer *other = tfs_buffer_new();
  tfs_graph_get_function_def(g, tfs_graph_function_name(g, 1), other, st);
  TFS_ASSERT_OK(st);
  tfs_buffer *empty = tfs_buffer_new();
  tfs_graph_get_function_def(g, "no_such_fn", empty, st);
  TFS_ASSERT_MESSAGE(st, "Function 'no_such_fn' is not in the graph's "
                         "library.");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_NOT_FOUND);
  tfs_buffer_free(empty);
  /* function 1's body under function 0's name: a conflict */
  gb b = {TFS_PB_ARENA_INIT};
  Tensorflow__FunctionDef *fd = tensorflow__function_def__unpack(
      NULL, other->length, other->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fd);
  char *saved = fd->signature->name;
  fd->signature->name = (char *)name;
  size_t n2 = tensorflow__function_def__get_packed_size(fd);
  uint8_t *renamed = malloc(n2);
  tensorflow__function_def__pack(fd, renamed);
  tfs_graph_add_function(g2, renamed, n2, st);
  char want[512];
  snprintf(want, sizeof want, "Cannot add function '%s' because a different "
           "function with the same name already exists.", name);
  TFS_ASSERT_MESSAGE(st, want);
  /* and under the name of an op */
  fd->signature->name = "MatMul";
  n2 = tensorflow__function_def__get_packed_size(fd);
  renamed = realloc(renamed, n2);
  tensorflow__function_def__pack(fd, renamed);
  tfs_graph_add_function(g2, renamed, n2, st);
  TFS_ASSERT_MESSAGE(st, "Cannot add function 'MatMul' because an op with "
                         "the same name already exists.");
  fd->signature->name = saved;
  tensorflow__function_def__free_unpacked(fd, NULL);
  free(renamed);
  CU_ASSERT_EQUAL(tfs_graph_num_functions(g2), 1);
  /* export keeps the library: a reimport lists the same functions */
  tfs_buffer *out = tfs_buffer_new();
  tfs_graph_to_graphdef(g, out, st);
  TFS_ASSERT_OK(st);
  tfs_graph *g3 = tfs_graph_new();
  r = tfs_graph_import_graphdef(g3, out->data, out->length, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  CU_ASSERT_EQUAL(tfs_graph_num_functions(g3), n);
  for (int i = 0; i < n; i++)
    CU_ASSERT_STRING_EQUAL(tfs_graph_function_name(g3, i),
                           tfs_graph_function_name(g, i));
  tfs_buffer_free(out);
  tfs_buffer_free(other);
  tfs_buffer_free(def);
  tfs_graph_free(g3);
  tfs_graph_free(g2);
  tfs_graph_free(g);
  tfs_pb_arena_free(&b.a);
  tfs_status_free(st);
}

static const tfs_test_case fn_cases[] = {
    {"library_api", test_library_api},
    {"attr_placeholders", test_attr_placeholders},
    {"recursion_is_bounded", test_recursion_is_bounded},
    {"safe_mode_sees_bodies", test_safe_mode_sees_bodies},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"functions", fn_cases},
                                          {NULL, NULL}};

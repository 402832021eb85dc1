/*
 * tests/graph_builder/test_graphdef_text.c - text GraphDefs (.pbtxt): the
 * text writer (tfs_pb__print_text) against TensorFlow 2.21's own text of
 * the same protos, byte for byte (number and string formats, map order,
 * Any), and the public API (tfs_graph_import_graphdef_text,
 * tfs_graph_to_graphdef_text): TensorFlow-written text GraphDefs of
 * conformance cases (tests/data/pbtxt/graphs, written by
 * scripts/fixtures/gen_pbtxt_graphs.py) import to the same graph as their
 * binary twins and run to TensorFlow's outputs, and the text tfsess
 * prints for the graph is what text_format.MessageToString prints for
 * the GraphDef tfsess exports.
 *
 * TFS_PBTXT_EXPORT_DIR=DIR writes each case's exported GraphDef to
 * DIR/GROUP.CASE.export.pb (for the generator's --exports step) instead
 * of comparing with the .export.pbtxt fixtures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance.h"
#include "config_proto/pb_text.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "proto/config.pb-c.h"
#include "proto/graph.pb-c.h"
#include "proto/meta_graph.pb-c.h"
#include "proto/tensor.pb-c.h"
#include "testutil.h"

#ifndef TFS_TEST_SRCDIR
#define TFS_TEST_SRCDIR "."
#endif

/* keep in sync with CASES in scripts/fixtures/gen_pbtxt_graphs.py */
static const char *const CASES[] = {
    "constants/f16_half_val",  "constants/f32_float_val",
    "constants/f64_double_val", "constants/str_string_val",
    "constants/u64_uint64_val", "control/while_nested",
    "control/cond_true",       "functional/function_for_and_if",
    "functional/case_1",       "functions/call_nested",
    "mlp/mlp_softmax",         "keras/conv_bn_relu",
    NULL};

static char *read_file(const char *rel, size_t *len) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", TFS_TEST_SRCDIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) fprintf(stderr, "\n  cannot open %s\n", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  CU_ASSERT_EQUAL_FATAL(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

/* The case's text fixture name: "functions/call_nested" ->
 * tests/data/pbtxt/graphs/functions.call_nested<suffix>. */
static void fixture_path(char *out, size_t cap, const char *c,
                         const char *suffix) {
  char flat[256];
  snprintf(flat, sizeof flat, "%s", c);
  for (char *p = flat; *p; p++)
    if (*p == '/') *p = '.';
  snprintf(out, cap, "tests/data/pbtxt/graphs/%s%s", flat, suffix);
}

/* Reports the first differing line of two texts. */
static int same_text(const char *what, const char *got, size_t gl,
                     const char *want, size_t wl) {
  if (gl == wl && memcmp(got, want, gl) == 0) return 1;
  size_t i = 0, line = 1, start = 0;
  while (i < gl && i < wl && got[i] == want[i]) {
    if (got[i] == '\n') {
      line++;
      start = i + 1;
    }
    i++;
  }
  fprintf(stderr, "\n  %s: line %zu differs:\n    got  %.80s\n    want %.80s\n",
          what, line, got + start, want + start);
  return 0;
}

static char *print_msg(const ProtobufCMessage *m, size_t *len) {
  tfs_status *st = tfs_status_new();
  tfs_buffer b = {NULL, 0, NULL};
  CU_ASSERT_EQUAL(tfs_pb__print_text(m, &b, st), 0);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  *len = b.length;
  return (char *)b.data; /* malloc'd by tfsess's allocator: tfs_free */
}

static void free_text(char *t, size_t len) {
  (void)len;
  tfs_free(t);
}

/* ---- the writer ---------------------------------------------------------- */

static void test_numbers_and_strings(void) {
  static const char in[] =
      "dtype: 1234 float_val: [0.1, 1e-45, 3e-8, 1e30, 1.0, 123456789.0, "
      "-0.0, 0.0001, 1e-5, 3.4028234663852886e38, 16777217.0, 1e16, 0.3] "
      "double_val: [0.1, 1e16, 1e15, -1.5e-7, 5e-324, "
      "1.7976931348623157e308, 123.456, 1152921504606846976] "
      "string_val: \"a\\000\\177\\200\\377\\\"'\\\\\\n\\r\\t ~\" "
      "scomplex_val: [nan, -inf] int64_val: -9223372036854775808 "
      "uint64_val: 18446744073709551615";
  /* what text_format.MessageToString prints for the same TensorProto */
  static const char want[] =
      "dtype: 1234\n"
      "float_val: 0.1\n"
      "float_val: 1.4013e-45\n"
      "float_val: 3e-08\n"
      "float_val: 1e+30\n"
      "float_val: 1.0\n"
      "float_val: 123456790.0\n"
      "float_val: -0.0\n"
      "float_val: 0.0001\n"
      "float_val: 1e-05\n"
      "float_val: 3.4028235e+38\n"
      "float_val: 16777216.0\n"
      "float_val: 1e+16\n"
      "float_val: 0.3\n"
      "double_val: 0.1\n"
      "double_val: 1e+16\n"
      "double_val: 1000000000000000.0\n"
      "double_val: -1.5e-07\n"
      "double_val: 5e-324\n"
      "double_val: 1.7976931348623157e+308\n"
      "double_val: 123.456\n"
      "double_val: 1.152921504606847e+18\n"
      "string_val: \"a\\000\\177\\200\\377\\\"\\'\\\\\\n\\r\\t ~\"\n"
      "scomplex_val: nan\n"
      "scomplex_val: -inf\n"
      "int64_val: -9223372036854775808\n"
      "uint64_val: 18446744073709551615\n";
  tfs_status *st = tfs_status_new();
  ProtobufCMessage *m = tfs_pb__parse_text(
      &tensorflow__tensor_proto__descriptor, in, strlen(in), NULL, st);
  TFS_ASSERT_OK(st);
  size_t len;
  char *text = print_msg(m, &len);
  CU_ASSERT_TRUE(same_text("TensorProto", text, len, want, strlen(want)));
  free_text(text, len);
  tfs_pb__free(m);
  tfs_status_free(st);
}

static void test_maps_any_and_empty(void) {
  static const char in[] =
      "device_count { key: 'b' value: 2 } device_count { key: 'a' value: 1 }"
      " device_count { key: 'c' value: 0 } device_count { key: '' value: 3 }";
  static const char want[] =
      "device_count {\n  value: 3\n}\n"
      "device_count {\n  key: \"a\"\n  value: 1\n}\n"
      "device_count {\n  key: \"b\"\n  value: 2\n}\n"
      "device_count {\n  key: \"c\"\n}\n";
  tfs_status *st = tfs_status_new();
  ProtobufCMessage *m = tfs_pb__parse_text(
      &tensorflow__config_proto__descriptor, in, strlen(in), NULL, st);
  TFS_ASSERT_OK(st);
  size_t len;
  char *text = print_msg(m, &len);
  CU_ASSERT_TRUE(same_text("ConfigProto", text, len, want, strlen(want)));
  free_text(text, len);
  tfs_pb__free(m);

  /* an Any of a known type is expanded, one of an unknown type is not */
  static const char any_in[] =
      "any_list { value: [ "
      "{ [type.googleapis.com/tensorflow.TensorProto] { dtype: DT_INT32 "
      "int_val: 7 } }, "
      "{ type_url: 'type.googleapis.com/x.Unknown' value: '\\001' } ] }";
  static const char any_want[] =
      "any_list {\n"
      "  value {\n"
      "    [type.googleapis.com/tensorflow.TensorProto] {\n"
      "      dtype: DT_INT32\n"
      "      int_val: 7\n"
      "    }\n"
      "  }\n"
      "  value {\n"
      "    type_url: \"type.googleapis.com/x.Unknown\"\n"
      "    value: \"\\001\"\n"
      "  }\n"
      "}\n";
  m = tfs_pb__parse_text(&tensorflow__collection_def__descriptor, any_in,
                         strlen(any_in), NULL, st);
  TFS_ASSERT_OK(st);
  text = print_msg(m, &len);
  CU_ASSERT_TRUE(same_text("CollectionDef", text, len, any_want,
                           strlen(any_want)));
  free_text(text, len);
  tfs_pb__free(m);

  /* an empty message prints nothing; the buffer must be empty */
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  text = print_msg(&gd.base, &len);
  CU_ASSERT_EQUAL(len, 0);
  CU_ASSERT_PTR_NOT_NULL(text);
  free_text(text, len);
  tfs_buffer full = {"x", 1, NULL};
  CU_ASSERT_EQUAL(tfs_pb__print_text(&gd.base, &full, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "non-empty");
  tfs_status_free(st);
}

/* A binary proto printed by the writer equals TensorFlow's text of it. */
static void check_printed(const char *bin_rel, const char *txt_rel) {
  size_t bl, tl;
  char *bin = read_file(bin_rel, &bl);
  char *want = read_file(txt_rel, &tl);
  ProtobufCMessage *m =
      tfs_pb__unpack(&tensorflow__graph_def__descriptor, bin, bl, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  size_t len;
  char *text = print_msg(m, &len);
  CU_ASSERT_TRUE(same_text(txt_rel, text, len, want, tl));
  free_text(text, len);
  tfs_pb__free(m);
  free(bin);
  free(want);
}

static void test_tensorflow_graphs_printed(void) {
  check_printed("tests/data/pbtxt/attrs_graph.pb",
                "tests/data/pbtxt/attrs_graph.pbtxt");
  for (int i = 0; CASES[i]; i++) {
    char bin[512], txt[512];
    snprintf(bin, sizeof bin, "tests/conformance/%s/graph.pb", CASES[i]);
    fixture_path(txt, sizeof txt, CASES[i], ".pbtxt");
    check_printed(bin, txt);
  }
}

/* ---- the public API ------------------------------------------------------ */

static tfs_graph *import_text(const char *text, size_t len) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r =
      tfs_graph_import_graphdef_text(g, text, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_status_free(st);
  return g;
}

static tfs_graph *import_bin(const char *data, size_t len) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef(g, data, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_status_free(st);
  return g;
}

static tfs_output find_output(tfs_graph *g, const char *name) {
  char op[256];
  snprintf(op, sizeof op, "%s", name);
  char *colon = strrchr(op, ':');
  int index = 0;
  if (colon) {
    *colon = 0;
    index = atoi(colon + 1);
  }
  tfs_output o = {tfs_graph_operation_by_name(g, op), index};
  if (!o.oper) fprintf(stderr, "\n  no operation %s\n", op);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o.oper);
  return o;
}

/* Runs the case's feeds and fetches on g and compares with TensorFlow's
 * outputs; the fetched tensors go to got (caller frees). */
static void run_case(tfs_graph *g, const char *dir, const tc_manifest *m,
                     tfs_tensor **got) {
  tfs_status *st = tfs_status_new();
  tfs_output feeds[TC_MAX_ITEMS], fetches[TC_MAX_ITEMS];
  tfs_tensor *vals[TC_MAX_ITEMS];
  char path[2048];
  for (int i = 0; i < m->nfeeds; i++) {
    feeds[i] = find_output(g, m->feeds[i].name);
    snprintf(path, sizeof path, "%s/%s", dir, m->feeds[i].file);
    vals[i] = tfs_npy_read(path, st);
    TFS_ASSERT_OK(st);
  }
  for (int i = 0; i < m->nfetches; i++)
    fetches[i] = find_output(g, m->fetches[i].name);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_session_run(s, feeds, vals, m->nfeeds, fetches, got, m->nfetches,
                  NULL, 0, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < m->nfetches; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->fetches[i].file);
    tfs_tensor *want = tfs_npy_read(path, st);
    TFS_ASSERT_OK(st);
    char err[512];
    int rc = tc_compare(got[i], want, m->fetches[i].rtol, m->fetches[i].atol,
                        err, sizeof err);
    if (rc) fprintf(stderr, "\n  %s %s: %s\n", dir, m->fetches[i].name, err);
    CU_ASSERT_EQUAL(rc, 0);
    tfs_tensor_free(want);
  }
  for (int i = 0; i < m->nfeeds; i++) tfs_tensor_free(vals[i]);
  tfs_session_free(s);
  tfs_status_free(st);
}

static void export_bin(tfs_graph *g, tfs_buffer *b) {
  tfs_status *st = tfs_status_new();
  tfs_graph_to_graphdef(g, b, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
}

/* Writes the case's export for gen_pbtxt_graphs.py --exports. */
static void dump_export(const char *dump, const char *c, const tfs_buffer *b) {
  char rel[512], path[2048];
  fixture_path(rel, sizeof rel, c, ".export.pb");
  snprintf(path, sizeof path, "%s/%s", dump, strrchr(rel, '/') + 1);
  FILE *f = fopen(path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(fwrite(b->data, 1, b->length, f), b->length);
  fclose(f);
}

static void check_case(const char *c) {
  char dir[2048], rel[512], err[512];
  snprintf(dir, sizeof dir, "%s/tests/conformance/%s", TFS_TEST_SRCDIR, c);
  tc_manifest m;
  int rc = tc_manifest_parse(dir, &m, err, sizeof err);
  CU_ASSERT_EQUAL_FATAL(rc, 0);
  size_t bl, tl;
  snprintf(rel, sizeof rel, "tests/conformance/%s/graph.pb", c);
  char *bin = read_file(rel, &bl);
  fixture_path(rel, sizeof rel, c, ".pbtxt");
  char *text = read_file(rel, &tl);
  tfs_graph *gt = import_text(text, tl), *gb = import_bin(bin, bl);
  /* the same graph: the same export, but for the order of map entries in
   * function bodies, which a library keeps as they came (the binary's
   * order; the text lists them sorted), so compared as text */
  tfs_buffer et = {NULL, 0, NULL}, tb = {NULL, 0, NULL};
  export_bin(gt, &et);
  tfs_status *st = tfs_status_new();
  tfs_graph_to_graphdef_text(gb, &tb, st);
  TFS_ASSERT_OK(st);
  /* and the same outputs, TensorFlow's */
  tfs_tensor *ot[TC_MAX_ITEMS] = {NULL}, *ob[TC_MAX_ITEMS] = {NULL};
  run_case(gt, dir, &m, ot);
  run_case(gb, dir, &m, ob);
  for (int i = 0; i < m.nfetches; i++) {
    CU_ASSERT_EQUAL(tc_compare(ot[i], ob[i], 0, 0, err, sizeof err), 0);
    tfs_tensor_free(ot[i]);
    tfs_tensor_free(ob[i]);
  }
  /* the text tfsess prints is TensorFlow's text of the exported GraphDef,
   * and reads back as the same graph */
  tfs_buffer pt = {NULL, 0, NULL};
  tfs_graph_to_graphdef_text(gt, &pt, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_TRUE(same_text(c, pt.data, pt.length, tb.data, tb.length));
  CU_ASSERT_EQUAL(((const char *)pt.data)[pt.length], 0);
  const char *dump = getenv("TFS_PBTXT_EXPORT_DIR");
  if (dump && *dump) {
    dump_export(dump, c, &et);
  } else {
    size_t wl;
    fixture_path(rel, sizeof rel, c, ".export.pbtxt");
    char *want = read_file(rel, &wl);
    CU_ASSERT_TRUE(same_text(rel, pt.data, pt.length, want, wl));
    free(want);
  }
  tfs_graph *g2 = import_text(pt.data, pt.length);
  tfs_buffer e2 = {NULL, 0, NULL};
  export_bin(g2, &e2);
  CU_ASSERT_TRUE(e2.length == et.length &&
                 memcmp(e2.data, et.data, et.length) == 0);
  if (e2.data_deallocator) e2.data_deallocator((void *)e2.data, e2.length);
  if (pt.data_deallocator) pt.data_deallocator((void *)pt.data, pt.length);
  if (et.data_deallocator) et.data_deallocator((void *)et.data, et.length);
  if (tb.data_deallocator) tb.data_deallocator((void *)tb.data, tb.length);
  tfs_graph_free(g2);
  tfs_graph_free(gt);
  tfs_graph_free(gb);
  tfs_status_free(st);
  tc_manifest_free(&m);
  free(bin);
  free(text);
}

static void test_tensorflow_text_graphs(void) {
  for (int i = 0; CASES[i]; i++) check_case(CASES[i]);
}

/* The GraphDef with an attr of every AttrValue kind: its text and its
 * binary import alike (TensorFlow's importer refuses its list attr of
 * mixed kinds, so do both, with the same message). */
static void test_every_attr_kind(void) {
  size_t bl, tl;
  char *bin = read_file("tests/data/pbtxt/attrs_graph.pb", &bl);
  char *text = read_file("tests/data/pbtxt/attrs_graph.pbtxt", &tl);
  tfs_status *st = tfs_status_new(), *st2 = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_import_results *r = tfs_graph_import_graphdef_text(g, text, tl, NULL,
                                                         st);
  CU_ASSERT_PTR_NULL(r);
  r = tfs_graph_import_graphdef(g, bin, bl, NULL, st2);
  CU_ASSERT_PTR_NULL(r);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(tfs_status_code(st2), TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(tfs_status_message(st), tfs_status_message(st2));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "AttrValue had a list with values of more than one type");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 0);
  tfs_graph_free(g);
  tfs_status_free(st);
  tfs_status_free(st2);
  free(bin);
  free(text);
}

static void test_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  static const char bad[] = "node {\n  name: \"a\"\n  op: 7\n}\n";
  tfs_import_results *r =
      tfs_graph_import_graphdef_text(g, bad, strlen(bad), NULL, st);
  CU_ASSERT_PTR_NULL(r);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Invalid GraphDef text: 3:");
  CU_ASSERT_EQUAL(tfs_graph_num_operations(g), 0);
  static const char unknown_op[] = "node { name: 'a' op: 'NoSuchOp' }";
  r = tfs_graph_import_graphdef_text(g, unknown_op, strlen(unknown_op), NULL,
                                     st);
  CU_ASSERT_PTR_NULL(r);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "NoSuchOp");
  /* empty text: an empty GraphDef */
  r = tfs_graph_import_graphdef_text(g, NULL, 0, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_buffer full = {"x", 1, NULL};
  tfs_graph_to_graphdef_text(g, &full, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Passing non-empty TF_Buffer is invalid.");
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const tfs_test_case writer_cases[] = {
    {"numbers_and_strings", test_numbers_and_strings},
    {"maps_any_and_empty", test_maps_any_and_empty},
    {"tensorflow_graphs_printed", test_tensorflow_graphs_printed},
    {NULL, NULL}};
static const tfs_test_case api_cases[] = {
    {"tensorflow_text_graphs", test_tensorflow_text_graphs},
    {"every_attr_kind", test_every_attr_kind},
    {"errors", test_errors},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"writer", writer_cases},
                                          {"api", api_cases},
                                          {NULL, NULL}};

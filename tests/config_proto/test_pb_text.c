/*
 * tests/config_proto/test_pb_text.c - the protobuf text-format parser
 * (tfs_pb__parse_text): each piece of syntax, each error message with its
 * line and column, hostile input (truncation, deep nesting, huge numbers,
 * garbage, failed allocations), and TensorFlow 2.21's own text output
 * (tests/data/pbtxt, scripts/fixtures/gen_pbtxt.py) compared field by
 * field with the binary protos it was printed from.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "config_proto/pb_text.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "proto/attr_value.pb-c.h"
#include "proto/config.pb-c.h"
#include "proto/fingerprint.pb-c.h"
#include "proto/function.pb-c.h"
#include "proto/graph.pb-c.h"
#include "proto/meta_graph.pb-c.h"
#include "proto/node_def.pb-c.h"
#include "proto/saved_model.pb-c.h"
#include "proto/tensor.pb-c.h"
#include "proto/tensor_slice.pb-c.h"
#include "testutil.h"

#ifndef TFS_TEST_SRCDIR
#define TFS_TEST_SRCDIR "."
#endif

static ProtobufCMessage *parse(const ProtobufCMessageDescriptor *d,
                               const char *text, tfs_status *st) {
  return tfs_pb__parse_text(d, text, strlen(text), NULL, st);
}

/* Parses text as type d, expecting INVALID_ARGUMENT with exactly msg. */
#define EXPECT_ERROR(d, text, msg)                                \
  do {                                                            \
    tfs_status *st_ = tfs_status_new();                           \
    ProtobufCMessage *m_ = parse((d), (text), st_);               \
    CU_ASSERT_PTR_NULL(m_);                                       \
    tfs_pb__free(m_);                                             \
    CU_ASSERT_EQUAL(tfs_status_code(st_), TFS_INVALID_ARGUMENT);  \
    TFS_ASSERT_MESSAGE(st_, (msg));                               \
    tfs_status_free(st_);                                         \
  } while (0)

static void *parse_ok(const ProtobufCMessageDescriptor *d, const char *text) {
  tfs_status *st = tfs_status_new();
  ProtobufCMessage *m = parse(d, text, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  tfs_status_free(st);
  return m;
}

#define TENSOR(text) \
  ((Tensorflow__TensorProto *)parse_ok(&tensorflow__tensor_proto__descriptor, \
                                       (text)))
#define ATTR(text) \
  ((Tensorflow__AttrValue *)parse_ok(&tensorflow__attr_value__descriptor, \
                                     (text)))
#define FREE(m) tfs_pb__free((ProtobufCMessage *)(m))

static const ProtobufCMessageDescriptor *const TP =
    &tensorflow__tensor_proto__descriptor;
static const ProtobufCMessageDescriptor *const AV =
    &tensorflow__attr_value__descriptor;
static const ProtobufCMessageDescriptor *const ND =
    &tensorflow__node_def__descriptor;

/* ---- syntax -------------------------------------------------------------- */

static void test_scalars_messages_and_maps(void) {
  Tensorflow__NodeDef *n = parse_ok(ND,
      "# a node\n"
      "name: \"a/b\"  # trailing comment\n"
      "op: 'Const'\n"
      "input: \"x\" input: \"^y\";\n"
      "device: \"/cpu:0\",\n"
      "attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
      "attr: { key: \"shape\" value: < shape < dim { size: -1 } "
      "dim: { size: 3 name: \"c\" } > > }\n"
      "attr < key: \"n\" value { i: 7 } >\n");
  CU_ASSERT_STRING_EQUAL(n->name, "a/b");
  CU_ASSERT_STRING_EQUAL(n->op, "Const");
  CU_ASSERT_EQUAL_FATAL(n->n_input, 2);
  CU_ASSERT_STRING_EQUAL(n->input[1], "^y");
  CU_ASSERT_STRING_EQUAL(n->device, "/cpu:0");
  CU_ASSERT_EQUAL_FATAL(n->n_attr, 3);
  CU_ASSERT_STRING_EQUAL(n->attr[0]->key, "dtype");
  CU_ASSERT_EQUAL(n->attr[0]->value->value_case,
                  TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
  CU_ASSERT_EQUAL(n->attr[0]->value->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
  Tensorflow__TensorShapeProto *s = n->attr[1]->value->shape;
  CU_ASSERT_EQUAL_FATAL(s->n_dim, 2);
  CU_ASSERT_EQUAL(s->dim[0]->size, -1);
  CU_ASSERT_STRING_EQUAL(s->dim[1]->name, "c");
  CU_ASSERT_EQUAL(n->attr[2]->value->i, 7);
  FREE(n);
  /* empty input, empty message, whitespace only */
  n = parse_ok(ND, "");
  CU_ASSERT_STRING_EQUAL(n->name, "");
  FREE(n);
  n = parse_ok(ND, " \t\r\n# only a comment");
  FREE(n);
  Tensorflow__AttrValue *a = ATTR("list {}");
  CU_ASSERT_EQUAL(a->value_case, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  CU_ASSERT_PTR_NOT_NULL(a->list);
  FREE(a);
  /* a proto3 field still at its default may be given again, as in
   * protobuf (HasField is false for it) */
  n = parse_ok(ND, "name: \"\" name: \"x\"");
  CU_ASSERT_STRING_EQUAL(n->name, "x");
  FREE(n);
}

static void test_repeated_lists(void) {
  Tensorflow__TensorProto *t = TENSOR(
      "int_val: [1, -2, 0x10] int_val: 3 int_val: []\n"
      "string_val: ['a', \"b\" 'c']\n"
      "tensor_shape { dim [{size: 1}, {size: 2}, <size: 3>] }\n"
      "float_val: [] bool_val: [true, f, 1]");
  CU_ASSERT_EQUAL_FATAL(t->n_int_val, 4);
  CU_ASSERT_EQUAL(t->int_val[0], 1);
  CU_ASSERT_EQUAL(t->int_val[1], -2);
  CU_ASSERT_EQUAL(t->int_val[2], 16);
  CU_ASSERT_EQUAL(t->int_val[3], 3);
  CU_ASSERT_EQUAL_FATAL(t->n_string_val, 2);
  CU_ASSERT_EQUAL(t->string_val[1].len, 2);
  CU_ASSERT_EQUAL(memcmp(t->string_val[1].data, "bc", 2), 0);
  CU_ASSERT_EQUAL_FATAL(t->tensor_shape->n_dim, 3);
  CU_ASSERT_EQUAL(t->tensor_shape->dim[2]->size, 3);
  CU_ASSERT_EQUAL(t->n_float_val, 0);
  CU_ASSERT_EQUAL_FATAL(t->n_bool_val, 3);
  CU_ASSERT_TRUE(t->bool_val[0] && !t->bool_val[1] && t->bool_val[2]);
  FREE(t);
  /* many elements: the arrays grow */
  size_t cap = 20 * 1000 + 16, k = 0;
  char *big = malloc(cap);
  for (int i = 0; i < 1000; i++)
    k += (size_t)snprintf(big + k, cap - k, "int64_val: %d ", i * 3);
  t = TENSOR(big);
  CU_ASSERT_EQUAL_FATAL(t->n_int64_val, 1000);
  CU_ASSERT_EQUAL(t->int64_val[999], 2997);
  FREE(t);
  free(big);
}

static void test_integers(void) {
  Tensorflow__TensorProto *t = TENSOR(
      "int_val: 2147483647 int_val: -2147483648 int_val: 0x7fffffff "
      "int_val: -0x80000000 int_val: 017 int_val: 0 int_val: - 5\n"
      "int64_val: 9223372036854775807 int64_val: -9223372036854775808 "
      "int64_val: 0X7FFFFFFFFFFFFFFF int64_val: 0777777777777777777777\n"
      "uint32_val: 4294967295 uint32_val: 0xffffffff\n"
      "uint64_val: 18446744073709551615 uint64_val: 0xFFFFFFFFFFFFFFFF "
      "uint64_val: 01777777777777777777777\n"
      "version_number: 1 dtype: 3");
  CU_ASSERT_EQUAL(t->int_val[0], INT32_MAX);
  CU_ASSERT_EQUAL(t->int_val[1], INT32_MIN);
  CU_ASSERT_EQUAL(t->int_val[2], INT32_MAX);
  CU_ASSERT_EQUAL(t->int_val[3], INT32_MIN);
  CU_ASSERT_EQUAL(t->int_val[4], 15);
  CU_ASSERT_EQUAL(t->int_val[6], -5);
  CU_ASSERT_EQUAL(t->int64_val[0], INT64_MAX);
  CU_ASSERT_EQUAL(t->int64_val[1], INT64_MIN);
  CU_ASSERT_EQUAL(t->int64_val[2], INT64_MAX);
  CU_ASSERT_EQUAL(t->int64_val[3], INT64_MAX);
  CU_ASSERT_EQUAL(t->uint32_val[1], UINT32_MAX);
  CU_ASSERT_EQUAL(t->uint64_val[0], UINT64_MAX);
  CU_ASSERT_EQUAL(t->uint64_val[1], UINT64_MAX);
  CU_ASSERT_EQUAL(t->uint64_val[2], UINT64_MAX);
  CU_ASSERT_EQUAL(t->dtype, TENSORFLOW__DATA_TYPE__DT_INT32);
  FREE(t);
  EXPECT_ERROR(TP, "int_val: 2147483648",
               "1:10: Integer out of range (2147483648)");
  EXPECT_ERROR(TP, "int_val: -2147483649",
               "1:11: Integer out of range (2147483649)");
  EXPECT_ERROR(TP, "int_val: 0x80000000",
               "1:10: Integer out of range (0x80000000)");
  EXPECT_ERROR(TP, "int64_val: 9223372036854775808",
               "1:12: Integer out of range (9223372036854775808)");
  EXPECT_ERROR(TP, "int64_val: -9223372036854775809",
               "1:13: Integer out of range (9223372036854775809)");
  EXPECT_ERROR(TP, "uint32_val: 4294967296",
               "1:13: Integer out of range (4294967296)");
  EXPECT_ERROR(TP, "uint64_val: 18446744073709551616",
               "1:13: Integer out of range (18446744073709551616)");
  EXPECT_ERROR(TP, "uint64_val: 99999999999999999999999999999999999999",
               "1:13: Integer out of range "
               "(99999999999999999999999999999999999999)");
  EXPECT_ERROR(TP, "uint32_val: -1", "1:13: Expected integer, got: -");
  EXPECT_ERROR(TP, "int_val: 1.5", "1:10: Expected integer, got: 1.5");
  EXPECT_ERROR(TP, "int_val: \"1\"", "1:10: Expected integer, got: \"1\"");
  EXPECT_ERROR(TP, "int_val: 09", "1:11: Numbers starting with leading zero "
                                  "must be in octal.");
  EXPECT_ERROR(TP, "int_val: 0x", "1:12: \"0x\" must be followed by hex "
                                  "digits.");
  EXPECT_ERROR(TP, "int_val: 12abc",
               "1:12: Need space between number and identifier.");
  EXPECT_ERROR(TP, "int_val: 0x1.5",
               "1:13: Hex and octal numbers must be integers.");
}

static void test_floats(void) {
  Tensorflow__TensorProto *t = TENSOR(
      "float_val: [1.5, -2.5e3, 1E-2, .5, 2., 3f, 1.25F, 7, -0, inf, -INF, "
      "Infinity, -infinity, nan, NaN, 1e39, -1e39, 1e-50, "
      "99999999999999999999999]\n"
      "double_val: [1e308, -1e-320, 0.1, 18446744073709551615, "
      "1e400, -nan]");
  CU_ASSERT_EQUAL_FATAL(t->n_float_val, 19);
  float *f = t->float_val;
  CU_ASSERT_EQUAL(f[0], 1.5f);
  CU_ASSERT_EQUAL(f[1], -2500.0f);
  CU_ASSERT_EQUAL(f[2], 0.01f);
  CU_ASSERT_EQUAL(f[3], 0.5f);
  CU_ASSERT_EQUAL(f[4], 2.0f);
  CU_ASSERT_EQUAL(f[5], 3.0f);
  CU_ASSERT_EQUAL(f[6], 1.25f);
  CU_ASSERT_EQUAL(f[7], 7.0f);
  CU_ASSERT_TRUE(f[8] == 0 && signbit(f[8]));
  CU_ASSERT_TRUE(isinf(f[9]) && f[9] > 0);
  CU_ASSERT_TRUE(isinf(f[10]) && f[10] < 0);
  CU_ASSERT_TRUE(isinf(f[11]) && isinf(f[12]) && f[12] < 0);
  CU_ASSERT_TRUE(isnan(f[13]) && isnan(f[14]));
  CU_ASSERT_TRUE(isinf(f[15]) && f[15] > 0); /* past FLT_MAX */
  CU_ASSERT_TRUE(isinf(f[16]) && f[16] < 0);
  CU_ASSERT_EQUAL(f[17], 0.0f);
  CU_ASSERT_EQUAL(f[18], 1e23f);
  double *d = t->double_val;
  CU_ASSERT_EQUAL(d[0], 1e308);
  CU_ASSERT_EQUAL(d[1], -1e-320);
  CU_ASSERT_EQUAL(d[2], 0.1);
  CU_ASSERT_EQUAL(d[3], 18446744073709551615.0);
  CU_ASSERT_TRUE(isinf(d[4]));
  CU_ASSERT_TRUE(isnan(d[5]));
  FREE(t);
  EXPECT_ERROR(TP, "float_val: 0x10", "1:12: Expect a decimal number, got: "
                                      "0x10");
  EXPECT_ERROR(TP, "float_val: 010",
               "1:12: Expect a decimal number, got: 010");
  EXPECT_ERROR(TP, "float_val: Foo", "1:12: Expected double, got: foo");
  EXPECT_ERROR(TP, "double_val: \"1\"",
               "1:13: Expected double, got: \"1\"");
  EXPECT_ERROR(TP, "double_val: 1e", "1:15: \"e\" must be followed by "
                                     "exponent.");
  EXPECT_ERROR(TP, "double_val: 1.5.2",
               "1:16: Already saw decimal point or exponent; can't have "
               "another one.");
}

static void test_bools_and_enums(void) {
  Tensorflow__TensorProto *t = TENSOR(
      "bool_val: [true, True, t, 1, false, False, f, 0]");
  CU_ASSERT_EQUAL_FATAL(t->n_bool_val, 8);
  for (int i = 0; i < 8; i++) CU_ASSERT_EQUAL(t->bool_val[i], i < 4);
  FREE(t);
  EXPECT_ERROR(TP, "bool_val: yes",
               "1:14: Invalid value for boolean field \"bool_val\". Value: "
               "\"yes\".");
  EXPECT_ERROR(TP, "bool_val: 2", "1:11: Integer out of range (2)");
  EXPECT_ERROR(TP, "bool_val: \"true\"",
               "1:11: Expected identifier, got: \"true\"");
  t = TENSOR("dtype: DT_STRING");
  CU_ASSERT_EQUAL(t->dtype, TENSORFLOW__DATA_TYPE__DT_STRING);
  FREE(t);
  t = TENSOR("dtype: 101");
  CU_ASSERT_EQUAL(t->dtype, TENSORFLOW__DATA_TYPE__DT_FLOAT_REF);
  FREE(t);
  /* proto3 enums are open: an unknown number is kept */
  t = TENSOR("dtype: 4242");
  CU_ASSERT_EQUAL((int)t->dtype, 4242);
  FREE(t);
  t = TENSOR("dtype: -7");
  CU_ASSERT_EQUAL((int)t->dtype, -7);
  FREE(t);
  EXPECT_ERROR(TP, "dtype: DT_NOPE",
               "1:15: Unknown enumeration value of \"DT_NOPE\" for field "
               "\"dtype\".");
  EXPECT_ERROR(TP, "dtype: dt_float",
               "1:16: Unknown enumeration value of \"dt_float\" for field "
               "\"dtype\".");
  EXPECT_ERROR(TP, "dtype: \"DT_FLOAT\"",
               "1:8: Expected integer or identifier, got: \"DT_FLOAT\"");
  EXPECT_ERROR(TP, "dtype: 2147483648",
               "1:8: Integer out of range (2147483648)");
}

static void test_strings_and_bytes(void) {
  Tensorflow__TensorProto *t = TENSOR(
      "string_val: \"\\n\\t\\r\\\\\\'\\\"\\?\\a\\b\\f\\v\"\n"
      "string_val: '\\0\\01\\101\\377\\x41\\x4a\\xff\\x7'\n"
      "string_val: \"\\u00e9\\u4e2d\\U0001F600\\ud83d\\ude00\"\n"
      "string_val: 'single \"quoted\"' \"+\" 'joined'\n"
      "string_val: \"# not a comment\"\n"
      "tensor_content: \"\\000\\001\\002\\377\"");
  CU_ASSERT_EQUAL_FATAL(t->n_string_val, 5);
  ProtobufCBinaryData *s = t->string_val;
  CU_ASSERT_EQUAL(s[0].len, 11);
  CU_ASSERT_EQUAL(memcmp(s[0].data, "\n\t\r\\'\"?\a\b\f\v", 11), 0);
  CU_ASSERT_EQUAL(s[1].len, 8);
  CU_ASSERT_EQUAL(memcmp(s[1].data, "\0\1A\377AJ\377\7", 8), 0);
  const char *utf8 = "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xf0\x9f\x98\x80";
  CU_ASSERT_EQUAL(s[2].len, strlen(utf8));
  CU_ASSERT_EQUAL(memcmp(s[2].data, utf8, strlen(utf8)), 0);
  CU_ASSERT_EQUAL(s[3].len, strlen("single \"quoted\"+joined"));
  CU_ASSERT_EQUAL(memcmp(s[3].data, "single \"quoted\"+joined", s[3].len), 0);
  CU_ASSERT_EQUAL(s[4].len, 15);
  CU_ASSERT_EQUAL(t->tensor_content.len, 4);
  CU_ASSERT_EQUAL(memcmp(t->tensor_content.data, "\0\1\2\377", 4), 0);
  FREE(t);
  Tensorflow__NodeDef *n = parse_ok(ND, "name: \"caf\\303\\251\" 'x' op: ''");
  CU_ASSERT_STRING_EQUAL(n->name, "caf\xc3\xa9x");
  CU_ASSERT_STRING_EQUAL(n->op, "");
  FREE(n);
  EXPECT_ERROR(ND, "name: \"abc", "1:11: Unexpected end of string.");
  EXPECT_ERROR(ND, "name: 'abc\ndef'",
               "1:11: String literals cannot cross line boundaries.");
  EXPECT_ERROR(ND, "name: \"a\\qb\"",
               "1:10: Invalid escape sequence in string literal.");
  EXPECT_ERROR(ND, "name: \"\\xg\"",
               "1:10: Expected hex digits for escape sequence.");
  EXPECT_ERROR(ND, "name: \"\\u12\"",
               "1:10: Expected four hex digits for \\u escape sequence.");
  EXPECT_ERROR(ND, "name: \"\\U00110000\"",
               "1:10: Expected eight hex digits up to 10ffff for \\U escape "
               "sequence");
  EXPECT_ERROR(ND, "name: 5", "1:7: Expected string, got: 5");
  EXPECT_ERROR(ND, "name: x", "1:7: Expected string, got: x");
}

static void test_oneofs_and_duplicates(void) {
  Tensorflow__AttrValue *a = ATTR("func { name: \"f\" }");
  CU_ASSERT_EQUAL(a->value_case, TENSORFLOW__ATTR_VALUE__VALUE_FUNC);
  CU_ASSERT_STRING_EQUAL(a->func->name, "f");
  FREE(a);
  a = ATTR("s: \"\\001x\"");
  CU_ASSERT_EQUAL(a->value_case, TENSORFLOW__ATTR_VALUE__VALUE_S);
  CU_ASSERT_EQUAL(a->s.len, 2);
  FREE(a);
  /* a oneof member at zero is still set */
  a = ATTR("i: 0");
  CU_ASSERT_EQUAL(a->value_case, TENSORFLOW__ATTR_VALUE__VALUE_I);
  FREE(a);
  EXPECT_ERROR(AV, "i: 1\nf: 2.0",
               "2:2: Field \"f\" is specified along with field \"i\", "
               "another member of oneof \"value\".");
  EXPECT_ERROR(AV, "list {}\n  s: 'x'",
               "2:4: Field \"s\" is specified along with field \"list\", "
               "another member of oneof \"value\".");
  EXPECT_ERROR(AV, "i: 0 i: 0",
               "1:7: Non-repeated field \"i\" is specified multiple times.");
  EXPECT_ERROR(ND, "name: \"a\" name: \"b\"",
               "1:15: Non-repeated field \"name\" is specified multiple "
               "times.");
  EXPECT_ERROR(TP, "tensor_shape {} tensor_shape {}",
               "1:30: Non-repeated field \"tensor_shape\" is specified "
               "multiple times.");
  EXPECT_ERROR(&tensorflow__collection_def__descriptor,
               "node_list { value: 'a' } bytes_list { }",
               "1:37: Field \"bytes_list\" is specified along with field "
               "\"node_list\", another member of oneof \"kind\".");
  EXPECT_ERROR(&tensorflow__tensor_info__descriptor,
               "coo_sparse {} composite_tensor {}",
               "1:32: Field \"composite_tensor\" is specified along with "
               "field \"coo_sparse\", another member of oneof \"encoding\".");
}

static void test_syntax_errors(void) {
  EXPECT_ERROR(&tensorflow__saved_model__descriptor,
               "saved_model_schema_version: 1\n\n  foo: 1",
               "3:6: Message type \"tensorflow.SavedModel\" has no field "
               "named \"foo\".");
  EXPECT_ERROR(ND, "attr { key: 'a' value { i: 1 }",
               "1:31: Expected identifier, got: ");
  EXPECT_ERROR(ND, "attr { key: 'a' >", "1:17: Expected \"}\", found \">\".");
  EXPECT_ERROR(ND, "attr < key: 'a' }", "1:17: Expected \">\", found \"}\".");
  EXPECT_ERROR(ND, "}", "1:1: Expected identifier, got: }");
  EXPECT_ERROR(ND, "name \"x\"", "1:6: Expected \":\", found \"\"x\"\".");
  EXPECT_ERROR(ND, "attr: 5", "1:7: Expected \"{\", found \"5\".");
  EXPECT_ERROR(ND, "name: 'a' ,, op: 'b'",
               "1:12: Expected identifier, got: ,");
  EXPECT_ERROR(TP, "int_val: [1 2]", "1:13: Expected \",\", found \"2\".");
  EXPECT_ERROR(TP, "int_val: [1,", "1:13: Expected integer, got: ");
  EXPECT_ERROR(TP, "version_number: [1]",
               "1:17: Expected integer, got: [");
  EXPECT_ERROR(ND, "name: 'a'\n\t@", "2:9: Expected identifier, got: @");
  EXPECT_ERROR(ND, "name: 'a' \x01",
               "1:11: Invalid control characters encountered in text.");
  EXPECT_ERROR(ND, "name: 'a' \xc3\xa9",
               "1:11: Interpreting non ascii codepoint 195.");
  EXPECT_ERROR(ND, "[tensorflow.ext] { }",
               "1:18: Extension \"tensorflow.ext\" is not defined or is not "
               "an extension of \"tensorflow.NodeDef\".");
  EXPECT_ERROR(ND, "42: 1", "1:1: Expected identifier, got: 42");
}

/* ---- Any ----------------------------------------------------------------- */

static void test_any_expansion(void) {
  Tensorflow__MetaGraphDef *mg = parse_ok(
      &tensorflow__meta_graph_def__descriptor,
      "meta_info_def {\n"
      "  any_info {\n"
      "    [type.googleapis.com/tensorflow.AssetFileDef] {\n"
      "      tensor_info { name: \"Const:0\" dtype: DT_STRING }\n"
      "      filename: \"vocab.txt\"\n"
      "    }\n"
      "  }\n"
      "}\n"
      "collection_def { key: 'c' value { any_list { value [\n"
      "  {[type.googleapis.com/tensorflow.TensorShapeProto]: <dim {size: 4}>},"
      "  {type_url: 'x/y' value: '\\001'}] } } }");
  Tensorflow__AnyValue *any = mg->meta_info_def->any_info;
  CU_ASSERT_STRING_EQUAL(any->type_url,
                         "type.googleapis.com/tensorflow.AssetFileDef");
  Tensorflow__AssetFileDef *af = tensorflow__asset_file_def__unpack(
      &tfs_pb__allocator, any->value.len, any->value.data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(af);
  CU_ASSERT_STRING_EQUAL(af->filename, "vocab.txt");
  CU_ASSERT_STRING_EQUAL(af->tensor_info->name, "Const:0");
  FREE(af);
  Tensorflow__CollectionDef__AnyList *al =
      mg->collection_def[0]->value->any_list;
  CU_ASSERT_EQUAL_FATAL(al->n_value, 2);
  CU_ASSERT_STRING_EQUAL(al->value[0]->type_url,
                         "type.googleapis.com/tensorflow.TensorShapeProto");
  static const uint8_t shape_bytes[] = {0x12, 0x02, 0x08, 0x04};
  CU_ASSERT_EQUAL(al->value[0]->value.len, sizeof shape_bytes);
  CU_ASSERT_EQUAL(memcmp(al->value[0]->value.data, shape_bytes, 4), 0);
  CU_ASSERT_STRING_EQUAL(al->value[1]->type_url, "x/y");
  FREE(mg);
  const ProtobufCMessageDescriptor *anyd = &tensorflow__any_value__descriptor;
  EXPECT_ERROR(anyd, "[type.googleapis.com/tensorflow.Nope] {}",
               "1:39: Could not find type "
               "\"type.googleapis.com/tensorflow.Nope\" stored in "
               "google.protobuf.Any.");
  EXPECT_ERROR(anyd, "[type.googleapis.com/tensorflow.VersionDef] "
                     "{ producer: 1 } [a/tensorflow.VersionDef] {}",
               "1:89: Non-repeated Any specified multiple times.");
  EXPECT_ERROR(anyd, "[type.googleapis.com/tensorflow.VersionDef] { x: 1 }",
               "1:48: Message type \"tensorflow.VersionDef\" has no field "
               "named \"x\".");
  EXPECT_ERROR(anyd, "[tensorflow.VersionDef] {}",
               "1:23: Expected \"/\", found \"]\".");
  CU_ASSERT_PTR_NOT_NULL(tfs_pb__find_message("tensorflow.NameAttrList", 23));
  CU_ASSERT_PTR_EQUAL(
      tfs_pb__find_message("tensorflow.TensorSliceProto.Extent", 34),
      &tensorflow__tensor_slice_proto__extent__descriptor);
  CU_ASSERT_PTR_NULL(tfs_pb__find_message("tensorflow.Nope", 15));
}

/* ---- skipped fields ------------------------------------------------------ */

static void test_skip_fields(void) {
  static const char *const skip[] = {"tensorflow.NodeDef.experimental_debug",
                                     "tensorflow.NodeDef.x", NULL};
  const char *text =
      "name: 'n'\n"
      "experimental_debug { original_node_names: 'a' nested < deep { a: 1 }"
      " > [type.googleapis.com/tensorflow.Foo] { b: -inf } }\n"
      "x: -1.5e3 x: 'a' \"b\", x: [1, -2, 'three', {k: v}, <>, nan];\n"
      "x: { } x: -Infinity x: ident x: [ {a: 1} ]\n"
      "op: 'NoOp'";
  tfs_status *st = tfs_status_new();
  Tensorflow__NodeDef *n = (Tensorflow__NodeDef *)tfs_pb__parse_text(
      ND, text, strlen(text), skip, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(n->name, "n");
  CU_ASSERT_STRING_EQUAL(n->op, "NoOp");
  FREE(n);
  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"x: -foo", "1:5: Invalid float number: foo"},
      {"x: }", "1:4: Cannot skip field value, unexpected token: }"},
      {"x: [[1]]", "1:5: Cannot skip field value, unexpected token: ["},
      {"x { a: 1 ", "1:10: Expected identifier, got: "},
      {"x: [1 2]", "1:7: Expected \",\", found \"2\"."},
      {"y: 1", "1:2: Message type \"tensorflow.NodeDef\" has no field named "
               "\"y\"."},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ProtobufCMessage *m = tfs_pb__parse_text(ND, bad[i].text,
                                             strlen(bad[i].text), skip, st);
    CU_ASSERT_PTR_NULL(m);
    TFS_ASSERT_MESSAGE(st, bad[i].msg);
  }
  tfs_status_free(st);
}

/* ---- hostile input ------------------------------------------------------- */

static char *repeat(const char *a, int n, const char *mid, const char *b) {
  size_t la = strlen(a), lb = strlen(b), lm = strlen(mid);
  char *s = malloc((la + lb) * (size_t)n + lm + 1);
  char *p = s;
  for (int i = 0; i < n; i++, p += la) memcpy(p, a, la);
  memcpy(p, mid, lm);
  p += lm;
  for (int i = 0; i < n; i++, p += lb) memcpy(p, b, lb);
  *p = '\0';
  return s;
}

static void test_nesting_limit(void) {
  tfs_status *st = tfs_status_new();
  /* func -> attr entry -> value is 3 levels: 33 times and a list is 100,
   * protobuf's limit; one more is too deep */
  const char *lvl = "func { attr { key: 'k' value { ";
  char *ok = repeat(lvl, 33, "list { }", "} } } ");
  ProtobufCMessage *m = parse(AV, ok, st);
  TFS_ASSERT_OK(st);
  tfs_pb__free(m);
  free(ok);
  char *deep = repeat(lvl, 33, "list { func { } }", "} } } ");
  m = parse(AV, deep, st);
  CU_ASSERT_PTR_NULL(m);
  TFS_ASSERT_MESSAGE(st, "1:1036: Message is too deep, the parser exceeded "
                         "the configured recursion limit of 100.");
  free(deep);
  /* hostile depth, also in skipped and Any blocks, never recurses past the
   * limit */
  static const char *const skip[] = {"tensorflow.NodeDef.x", NULL};
  char *skipped = repeat("x { ", 200000, "", "} ");
  m = tfs_pb__parse_text(ND, skipped, strlen(skipped), skip, st);
  CU_ASSERT_PTR_NULL(m);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "1:403: Message is too deep");
  free(skipped);
  char *braces = repeat("{", 200000, "", "");
  m = tfs_pb__parse_text(ND, braces, strlen(braces), skip, st);
  CU_ASSERT_PTR_NULL(m);
  TFS_ASSERT_MESSAGE(st, "1:1: Expected identifier, got: {");
  free(braces);
  char *anys = repeat("any_info { [a/tensorflow.MetaGraphDef.MetaInfoDef] { ",
                      60, "", "} } ");
  m = parse(&tensorflow__meta_graph_def__meta_info_def__descriptor, anys, st);
  CU_ASSERT_PTR_NULL(m);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Message is too deep");
  free(anys);
  char *lists = repeat("[", 100000, "", "]");
  memcpy(lists, "x: ", 3);
  m = tfs_pb__parse_text(ND, lists, strlen(lists), skip, st);
  CU_ASSERT_PTR_NULL(m);
  TFS_ASSERT_MESSAGE(st, "1:5: Cannot skip field value, unexpected token: [");
  free(lists);
  tfs_status_free(st);
}

static uint8_t *read_file(const char *rel, size_t *len) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", TFS_TEST_SRCDIR, rel);
  FILE *f = fopen(path, "rb");
  if (!f) fprintf(stderr, "\n  cannot open %s\n", path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc((size_t)n + 1);
  CU_ASSERT_EQUAL_FATAL(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

static void test_truncated_and_garbage(void) {
  size_t len;
  char *text = (char *)read_file("tests/data/pbtxt/attrs_graph.pbtxt", &len);
  tfs_status *st = tfs_status_new();
  int ok = 0;
  for (size_t cut = 0; cut < len; cut++) {
    /* an exact-size copy, so a read past the end shows in the sanitizers */
    char *copy = malloc(cut ? cut : 1);
    memcpy(copy, text, cut);
    ProtobufCMessage *m = tfs_pb__parse_text(
        &tensorflow__graph_def__descriptor, copy, cut, NULL, st);
    if (m) ok++;
    else
      CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
    tfs_pb__free(m);
    free(copy);
  }
  /* prefixes ending between top-level nodes parse */
  CU_ASSERT_TRUE(ok > 5);
  /* flipped bytes and random printable noise */
  srand(7);
  for (int i = 0; i < 3000; i++) {
    char *copy = malloc(len);
    memcpy(copy, text, len);
    static const char syms[] = " {}<>[]:;,-'\"\\#";
    for (int k = 0; k < 4; k++)
      copy[rand() % (int)len] =
          (char)(rand() % 2 ? rand() % 256 : syms[rand() % 16]);
    ProtobufCMessage *m = tfs_pb__parse_text(
        &tensorflow__graph_def__descriptor, copy, len, NULL, st);
    if (!m) CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
    tfs_pb__free(m);
    free(copy);
  }
  free(text);
  tfs_status_free(st);
}

static void test_out_of_memory(void) {
  const char *text =
      "name: 'n' op: 'Const' input: ['a', 'b', 'c', 'd', 'e']\n"
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "tensor_shape { dim { size: 2 } } float_val: [1, 2] "
      "tensor_content: '\\001\\002' } } }\n"
      "attr { key: 'l' value { list { s: ['x', 'y'] shape {} } } }\n";
  tfs_status *st = tfs_status_new();
  int done = 0;
  for (long n = 1; n < 500 && !done; n++) {
    tfs_alloc_fail_at(n);
    ProtobufCMessage *m = parse(ND, text, st);
    tfs_alloc_fail_at(0);
    if (m) {
      done = 1;
      TFS_ASSERT_OK(st);
      tfs_pb__free(m);
    } else {
      CU_ASSERT_EQUAL(tfs_status_code(st), TFS_RESOURCE_EXHAUSTED);
    }
  }
  CU_ASSERT_TRUE(done);
  /* the Any path too */
  const char *any = "[t/tensorflow.VersionDef] { producer: 3 bad_consumers: "
                    "[1, 2, 3, 4, 5] }";
  done = 0;
  for (long n = 1; n < 100 && !done; n++) {
    tfs_alloc_fail_at(n);
    ProtobufCMessage *m = parse(&tensorflow__any_value__descriptor, any, st);
    tfs_alloc_fail_at(0);
    if (m) done = 1;
    else
      CU_ASSERT_EQUAL(tfs_status_code(st), TFS_RESOURCE_EXHAUSTED);
    tfs_pb__free(m);
  }
  CU_ASSERT_TRUE(done);
  tfs_status_free(st);
}

/* ---- TensorFlow's text against its binary -------------------------------- */

static int compare(const ProtobufCMessage *a, const ProtobufCMessage *b,
                   const char *path, int quiet);

static int is_map_entry(const ProtobufCFieldDescriptor *f) {
  if (f->type != PROTOBUF_C_TYPE_MESSAGE) return 0;
  const ProtobufCMessageDescriptor *d = f->descriptor;
  size_t n = strlen(d->short_name);
  return d->n_fields == 2 && d->fields[0].id == 1 && d->fields[1].id == 2 &&
         n > 5 && strcmp(d->short_name + n - 5, "Entry") == 0;
}

/* Compares one value of field f at pa and pb. */
static int compare_value(const ProtobufCFieldDescriptor *f, const void *pa,
                         const void *pb, const char *path, int quiet) {
  int diff = 0;
  switch (f->type) {
    case PROTOBUF_C_TYPE_MESSAGE:
      return compare(*(ProtobufCMessage *const *)pa,
                     *(ProtobufCMessage *const *)pb, path, quiet);
    case PROTOBUF_C_TYPE_STRING:
      diff = strcmp(*(char *const *)pa, *(char *const *)pb) != 0;
      break;
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *x = pa, *y = pb;
      diff = x->len != y->len ||
             (x->len && memcmp(x->data, y->data, x->len) != 0);
      break;
    }
    case PROTOBUF_C_TYPE_FLOAT:
      diff = !(isnan(*(const float *)pa) && isnan(*(const float *)pb)) &&
             memcmp(pa, pb, sizeof(float)) != 0;
      break;
    case PROTOBUF_C_TYPE_DOUBLE:
      diff = !(isnan(*(const double *)pa) && isnan(*(const double *)pb)) &&
             memcmp(pa, pb, sizeof(double)) != 0;
      break;
    case PROTOBUF_C_TYPE_BOOL:
      diff = !*(const protobuf_c_boolean *)pa !=
             !*(const protobuf_c_boolean *)pb;
      break;
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      diff = memcmp(pa, pb, 8) != 0;
      break;
    default:
      diff = memcmp(pa, pb, 4) != 0;
  }
  if (diff && !quiet) fprintf(stderr, "\n  differs: %s\n", path);
  return diff;
}

static size_t elem_size(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_MESSAGE: case PROTOBUF_C_TYPE_STRING:
      return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    default: return 4;
  }
}

static int compare_repeated(const ProtobufCMessage *a,
                            const ProtobufCMessage *b,
                            const ProtobufCFieldDescriptor *f,
                            const char *path, int quiet) {
  size_t na = *(const size_t *)((const char *)a + f->quantifier_offset);
  size_t nb = *(const size_t *)((const char *)b + f->quantifier_offset);
  const char *xa = *(char *const *)((const char *)a + f->offset);
  const char *xb = *(char *const *)((const char *)b + f->offset);
  if (na != nb) {
    if (!quiet)
      fprintf(stderr, "\n  %s: %zu elements, not %zu\n", path, na, nb);
    return 1;
  }
  size_t es = elem_size(f);
  char sub[512];
  int diff = 0;
  for (size_t i = 0; i < na; i++) {
    snprintf(sub, sizeof sub, "%.400s[%zu]", path, i);
    if (!is_map_entry(f)) {
      diff += compare_value(f, xa + i * es, xb + i * es, sub, quiet);
      continue;
    }
    /* map entries match by key, in any order */
    const ProtobufCMessage *ea = ((ProtobufCMessage *const *)xa)[i];
    const ProtobufCMessageDescriptor *ed = f->descriptor;
    const ProtobufCFieldDescriptor *kf = &ed->fields[0];
    size_t j = 0;
    for (; j < nb; j++) {
      const ProtobufCMessage *eb = ((ProtobufCMessage *const *)xb)[j];
      if (!compare_value(kf, (const char *)ea + kf->offset,
                         (const char *)eb + kf->offset, sub, 1))
        break;
    }
    if (j == nb) {
      if (!quiet) fprintf(stderr, "\n  %s: key not in the other map\n", sub);
      diff++;
    } else {
      diff += compare(ea, ((ProtobufCMessage *const *)xb)[j], sub, quiet);
    }
  }
  return diff;
}

static int compare_any(const ProtobufCMessage *a, const ProtobufCMessage *b,
                       const char *path, int quiet) {
  const Tensorflow__AnyValue *x = (const void *)a, *y = (const void *)b;
  if (strcmp(x->type_url, y->type_url) != 0) return 1;
  const char *name = strrchr(x->type_url, '/');
  name = name ? name + 1 : x->type_url;
  const ProtobufCMessageDescriptor *d =
      tfs_pb__find_message(name, strlen(name));
  if (!d) return compare_value(&a->descriptor->fields[1], &x->value,
                               &y->value, path, quiet);
  ProtobufCMessage *ux = tfs_pb__unpack(d, x->value.data, x->value.len, NULL);
  ProtobufCMessage *uy = tfs_pb__unpack(d, y->value.data, y->value.len, NULL);
  int diff = !ux || !uy ? 1 : compare(ux, uy, path, quiet);
  tfs_pb__free(ux);
  tfs_pb__free(uy);
  return diff;
}

/* Differences between two messages of one type, unknown fields ignored. */
static int compare(const ProtobufCMessage *a, const ProtobufCMessage *b,
                   const char *path, int quiet) {
  if (!a || !b) {
    if ((!a) != (!b) && !quiet)
      fprintf(stderr, "\n  %s: present in one only\n", path);
    return (!a) != (!b);
  }
  if (a->descriptor == &tensorflow__any_value__descriptor)
    return compare_any(a, b, path, quiet);
  const ProtobufCMessageDescriptor *d = a->descriptor;
  int diff = 0;
  char sub[512];
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    snprintf(sub, sizeof sub, "%.400s.%.80s", path, f->name);
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      uint32_t ca = *(const uint32_t *)((const char *)a + f->quantifier_offset);
      uint32_t cb = *(const uint32_t *)((const char *)b + f->quantifier_offset);
      if (ca != cb) {
        if (!quiet) fprintf(stderr, "\n  %s: oneof case differs\n", sub);
        diff++;
        continue;
      }
      if (ca != f->id) continue;
    }
    if (f->label == PROTOBUF_C_LABEL_REPEATED)
      diff += compare_repeated(a, b, f, sub, quiet);
    else
      diff += compare_value(f, (const char *)a + f->offset,
                            (const char *)b + f->offset, sub, quiet);
  }
  return diff;
}

/* ---- the integer kinds tfsess's schemas do not use ----------------------- */

/* A hand-written protobuf-c type with sint / fixed / sfixed fields and a
 * proto2-style has_ flag, laid out as protoc-c lays out its structs. */
typedef struct {
  ProtobufCMessage base;
  protobuf_c_boolean has_s32;
  int32_t s32;      /* 1: optional sint32 (has_ flag) */
  uint32_t f32;     /* 2: fixed32 */
  int64_t sf64;     /* 3: sfixed64 */
  size_t n_s64;
  int64_t *s64;     /* 4: repeated sint64 */
  uint64_t f64;     /* 5: fixed64 */
  int32_t sf32;     /* 6: sfixed32 */
} Kinds;

static const ProtobufCMessageDescriptor kinds_descriptor;

static void kinds_init(ProtobufCMessage *m) {
  memset(m, 0, sizeof(Kinds));
  m->descriptor = &kinds_descriptor;
}

static const ProtobufCFieldDescriptor kinds_fields[] = {
    {"s32", 1, PROTOBUF_C_LABEL_OPTIONAL, PROTOBUF_C_TYPE_SINT32,
     offsetof(Kinds, has_s32), offsetof(Kinds, s32), NULL, NULL, 0, 0, NULL,
     NULL},
    {"f32", 2, PROTOBUF_C_LABEL_NONE, PROTOBUF_C_TYPE_FIXED32, 0,
     offsetof(Kinds, f32), NULL, NULL, 0, 0, NULL, NULL},
    {"sf64", 3, PROTOBUF_C_LABEL_NONE, PROTOBUF_C_TYPE_SFIXED64, 0,
     offsetof(Kinds, sf64), NULL, NULL, 0, 0, NULL, NULL},
    {"s64", 4, PROTOBUF_C_LABEL_REPEATED, PROTOBUF_C_TYPE_SINT64,
     offsetof(Kinds, n_s64), offsetof(Kinds, s64), NULL, NULL, 0, 0, NULL,
     NULL},
    {"f64", 5, PROTOBUF_C_LABEL_NONE, PROTOBUF_C_TYPE_FIXED64, 0,
     offsetof(Kinds, f64), NULL, NULL, 0, 0, NULL, NULL},
    {"sf32", 6, PROTOBUF_C_LABEL_NONE, PROTOBUF_C_TYPE_SFIXED32, 0,
     offsetof(Kinds, sf32), NULL, NULL, 0, 0, NULL, NULL},
};
/* f32 f64 s32 s64 sf32 sf64 */
static const unsigned kinds_by_name[] = {1, 4, 0, 3, 5, 2};
static const ProtobufCIntRange kinds_ranges[] = {{1, 0}, {0, 6}};
static const ProtobufCMessageDescriptor kinds_descriptor = {
    PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC, "test.Kinds", "Kinds", "Kinds",
    "test", sizeof(Kinds), 6, kinds_fields, kinds_by_name, 1, kinds_ranges,
    kinds_init, NULL, NULL, NULL};

static void test_integer_kinds(void) {
  Kinds *k = parse_ok(&kinds_descriptor,
                      "s32: -2147483648 f32: 0xffffffff sf64: "
                      "-9223372036854775808 s64: [-1, 9223372036854775807] "
                      "f64: 18446744073709551615 sf32: -0x80000000");
  CU_ASSERT_TRUE(k->has_s32);
  CU_ASSERT_EQUAL(k->s32, INT32_MIN);
  CU_ASSERT_EQUAL(k->f32, UINT32_MAX);
  CU_ASSERT_EQUAL(k->sf64, INT64_MIN);
  CU_ASSERT_EQUAL_FATAL(k->n_s64, 2);
  CU_ASSERT_EQUAL(k->s64[0], -1);
  CU_ASSERT_EQUAL(k->f64, UINT64_MAX);
  CU_ASSERT_EQUAL(k->sf32, INT32_MIN);
  /* the layout is what protobuf-c packs and unpacks */
  size_t n = protobuf_c_message_get_packed_size(&k->base);
  uint8_t *buf = malloc(n);
  CU_ASSERT_EQUAL(protobuf_c_message_pack(&k->base, buf), n);
  ProtobufCMessage *back = tfs_pb__unpack(&kinds_descriptor, buf, n, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(back);
  CU_ASSERT_EQUAL(compare(&k->base, back, "Kinds", 0), 0);
  tfs_pb__free(back);
  free(buf);
  FREE(k);
  /* a has_ flag makes a zero value present */
  k = parse_ok(&kinds_descriptor, "s32: 0");
  CU_ASSERT_TRUE(k->has_s32);
  FREE(k);
  const ProtobufCMessageDescriptor *kd = &kinds_descriptor;
  EXPECT_ERROR(kd, "s32: 0 s32: 1",
               "1:11: Non-repeated field \"s32\" is specified multiple "
               "times.");
  EXPECT_ERROR(kd, "s32: 2147483648", "1:6: Integer out of range "
                                      "(2147483648)");
  EXPECT_ERROR(kd, "sf32: -2147483649", "1:8: Integer out of range "
                                        "(2147483649)");
  EXPECT_ERROR(kd, "f32: 4294967296", "1:6: Integer out of range "
                                      "(4294967296)");
  EXPECT_ERROR(kd, "f32: -1", "1:6: Expected integer, got: -");
  EXPECT_ERROR(kd, "f64: -1", "1:6: Expected integer, got: -");
  EXPECT_ERROR(kd, "sf64: 9223372036854775808",
               "1:7: Integer out of range (9223372036854775808)");
  EXPECT_ERROR(kd, "s64: [1, 0x8000000000000000]",
               "1:10: Integer out of range (0x8000000000000000)");
}

static void check_text_matches_binary(const char *txt_rel,
                                      const char *pb_rel,
                                      const ProtobufCMessageDescriptor *d,
                                      const char *const *skip) {
  size_t tl, bl;
  char *text = (char *)read_file(txt_rel, &tl);
  uint8_t *bin = read_file(pb_rel, &bl);
  tfs_status *st = tfs_status_new();
  ProtobufCMessage *mt = tfs_pb__parse_text(d, text, tl, skip, st);
  TFS_ASSERT_OK(st);
  ProtobufCMessage *mb = tfs_pb__unpack(d, bin, bl, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mt);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mb);
  CU_ASSERT_EQUAL(compare(mt, mb, d->short_name, 0), 0);
  /* the comparer sees a difference */
  if (d == &tensorflow__graph_def__descriptor) {
    Tensorflow__GraphDef *g = (Tensorflow__GraphDef *)mt;
    CU_ASSERT_TRUE_FATAL(g->n_node > 0);
    g->node[0]->name[0] ^= 1;
    CU_ASSERT_NOT_EQUAL(compare(mt, mb, "", 1), 0);
  }
  tfs_pb__free(mt);
  tfs_pb__free(mb);
  tfs_status_free(st);
  free(text);
  free(bin);
}

static void test_saved_models_from_tensorflow(void) {
  static const char *const skip[] = {
      "tensorflow.MetaGraphDef.object_graph_def", NULL};
  static const char *const models[] = {"tf1_simple", "module", "tf1_builder"};
  for (int i = 0; i < 3; i++) {
    char txt[256], pb[256];
    snprintf(txt, sizeof txt, "tests/data/pbtxt/%s.pbtxt", models[i]);
    snprintf(pb, sizeof pb, "tests/data/saved_models/%s/model/saved_model.pb",
             models[i]);
    check_text_matches_binary(txt, pb, &tensorflow__saved_model__descriptor,
                              skip);
  }
  /* without the skip list the unmodelled field is an error */
  size_t tl;
  char *text = (char *)read_file("tests/data/pbtxt/module.pbtxt", &tl);
  tfs_status *st = tfs_status_new();
  ProtobufCMessage *m = tfs_pb__parse_text(
      &tensorflow__saved_model__descriptor, text, tl, NULL, st);
  CU_ASSERT_PTR_NULL(m);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   ": Message type \"tensorflow.MetaGraphDef\" has no field "
                   "named \"object_graph_def\".");
  tfs_status_free(st);
  free(text);
}

static void test_graph_attrs_from_tensorflow(void) {
  check_text_matches_binary("tests/data/pbtxt/attrs_graph.pbtxt",
                            "tests/data/pbtxt/attrs_graph.pb",
                            &tensorflow__graph_def__descriptor, NULL);
}

static const tfs_test_case syntax_cases[] = {
    {"scalars_messages_and_maps", test_scalars_messages_and_maps},
    {"repeated_lists", test_repeated_lists},
    {"integers", test_integers},
    {"integer_kinds", test_integer_kinds},
    {"floats", test_floats},
    {"bools_and_enums", test_bools_and_enums},
    {"strings_and_bytes", test_strings_and_bytes},
    {"oneofs_and_duplicates", test_oneofs_and_duplicates},
    {"syntax_errors", test_syntax_errors},
    {"any_expansion", test_any_expansion},
    {"skip_fields", test_skip_fields},
    {NULL, NULL}};
static const tfs_test_case hostile_cases[] = {
    {"nesting_limit", test_nesting_limit},
    {"truncated_and_garbage", test_truncated_and_garbage},
    {"out_of_memory", test_out_of_memory},
    {NULL, NULL}};
static const tfs_test_case tf_cases[] = {
    {"saved_models_from_tensorflow", test_saved_models_from_tensorflow},
    {"graph_attrs_from_tensorflow", test_graph_attrs_from_tensorflow},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"syntax", syntax_cases},
                                          {"hostile", hostile_cases},
                                          {"tensorflow", tf_cases},
                                          {NULL, NULL}};

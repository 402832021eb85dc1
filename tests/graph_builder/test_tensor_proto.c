/*
 * tests/graph_builder/test_tensor_proto.c - TensorProto, TensorShapeProto
 * and AttrValue conversion: every dtype both ways, TensorFlow's decoding
 * rules (splat, zeros, packed / unpacked), size and shape errors, nesting
 * limits on hostile bytes.
 */
#include <limits.h>
#include <stdlib.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/attr_value.h"
#include "core/tensor.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/tensor_proto.h"
#include "testutil.h"

/* Serialized TensorProto bytes of t (asserting success). */
static tfs_buffer *to_bytes(const tfs_tensor *t) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  tfs_tensor__serialize_proto(t, b, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return b;
}

static Tensorflow__TensorProto *unpack_tensor(const tfs_buffer *b) {
  return tensorflow__tensor_proto__unpack(NULL, b->length, b->data);
}

/* ---- every dtype, both ways ---------------------------------------------- */

static void test_tensor_roundtrip_every_dtype(void) {
  static const tfs_dtype dts[] = {
      TFS_FLOAT,  TFS_DOUBLE,  TFS_INT32,     TFS_UINT8,  TFS_INT16,
      TFS_INT8,   TFS_COMPLEX64, TFS_INT64,   TFS_BOOL,   TFS_QINT8,
      TFS_QUINT8, TFS_QINT32,  TFS_BFLOAT16,  TFS_QINT16, TFS_QUINT16,
      TFS_UINT16, TFS_COMPLEX128, TFS_HALF,   TFS_UINT32, TFS_UINT64};
  tfs_status *st = tfs_status_new();
  for (size_t i = 0; i < TFS_ARRAY_LEN(dts); i++) {
    for (int rank = 0; rank <= 2; rank += 2) {
      int64_t dims[2] = {2, 3};
      tfs_tensor *t = tfs_tensor_new(dts[i], dims, rank, st);
      TFS_ASSERT_OK(st);
      uint8_t *d = tfs_tensor_data(t);
      for (size_t k = 0; k < tfs_tensor_byte_size(t); k++)
        d[k] = dts[i] == TFS_BOOL ? (uint8_t)(k % 2) : (uint8_t)(k * 37 + 11);
      tfs_buffer *b = to_bytes(t);
      Tensorflow__TensorProto *p = unpack_tensor(b);
      CU_ASSERT_PTR_NOT_NULL_FATAL(p);
      CU_ASSERT_EQUAL((int)p->dtype, (int)dts[i]);
      /* as TensorFlow writes them: a typed field for one element, raw
       * bytes for more */
      if (rank == 0) {
        CU_ASSERT_EQUAL(p->tensor_content.len, 0);
      } else {
        CU_ASSERT_EQUAL(p->tensor_content.len, tfs_tensor_byte_size(t));
      }
      tfs_tensor *back = tfs_tensor__from_proto(p, st);
      TFS_ASSERT_OK(st);
      CU_ASSERT_EQUAL(tfs_tensor_dtype(back), dts[i]);
      CU_ASSERT_EQUAL(tfs_tensor_ndims(back), rank);
      CU_ASSERT_EQUAL(tfs_tensor_byte_size(back), tfs_tensor_byte_size(t));
      CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(back), d,
                             tfs_tensor_byte_size(t)), 0);
      tensorflow__tensor_proto__free_unpacked(p, NULL);
      tfs_buffer_free(b);
      tfs_tensor_free(back);
      tfs_tensor_free(t);
    }
  }
  tfs_status_free(st);
}

static void test_tensor_strings_and_resources(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[1] = {3};
  const char *strs[3] = {"a", "", "a longer string than twenty-two bytes"};
  tfs_tensor *t = tfs_tensor_new_strings(dims, 1, strs, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_buffer *b = to_bytes(t);
  Tensorflow__TensorProto *p = unpack_tensor(b);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->n_string_val, 3);
  CU_ASSERT_EQUAL(p->tensor_content.len, 0);
  tfs_tensor *back = tfs_tensor__from_proto(p, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < 3; i++)
    CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(back, i, NULL), strs[i]);
  tensorflow__tensor_proto__free_unpacked(p, NULL);
  tfs_buffer_free(b);
  tfs_tensor_free(back);
  tfs_tensor_free(t);

  /* TensorFlow's string-list encoding in tensor_content */
  static const uint8_t enc[] = {0x08, 0x07, 0x12, 0x04, 0x12, 0x02, 0x08,
                                0x02, 0x22, 0x05, 0x02, 0x01, 'a', 'b', 'c'};
  back = tfs_tensor__parse_proto(enc, sizeof enc, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(back, 0, NULL), "ab");
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(back, 1, NULL), "c");
  tfs_tensor_free(back);
  static const uint8_t bad_enc[] = {0x08, 0x07, 0x12, 0x04, 0x12, 0x02,
                                    0x08, 0x02, 0x22, 0x03, 0x02, 0x05, 'a'};
  CU_ASSERT_PTR_NULL(tfs_tensor__parse_proto(bad_enc, sizeof bad_enc, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Cannot parse tensor from proto: tensor_content of a "
                   "string tensor of shape [2] is not a valid string list");

  /* resource handles keep container, name, type and dtype/shape */
  tfs_shape vs;
  tfs_shape_2d(&vs, 2, -1);
  tfs_resource_handle *h =
      tfs_resource_handle_new("c", "v", "Var", TFS_FLOAT, &vs);
  tfs_tensor *r = tfs_tensor__resource(h, st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  b = to_bytes(r);
  back = tfs_tensor__parse_proto(b->data, b->length, st);
  TFS_ASSERT_OK(st);
  const tfs_resource_handle *h2 = tfs_tensor__handle(back, 0);
  CU_ASSERT_STRING_EQUAL(h2->container, "c");
  CU_ASSERT_STRING_EQUAL(h2->name, "v");
  CU_ASSERT_STRING_EQUAL(h2->type_name, "Var");
  CU_ASSERT_EQUAL(h2->dtype, TFS_FLOAT);
  CU_ASSERT_TRUE(tfs_shape_equal(&h2->shape, &vs));
  tfs_buffer_free(b);
  tfs_tensor_free(back);
  tfs_tensor_free(r);
  tfs_status_free(st);
}

static void test_tensor_splats_written_compactly(void) {
  tfs_status *st = tfs_status_new();
  int64_t dims[1] = {1000};
  float v[1000];
  for (int i = 0; i < 1000; i++) v[i] = i < 2 ? (float)i : 0.5f;
  tfs_tensor *t = tu_floats(dims, 1, v);
  tfs_buffer *b = to_bytes(t);
  Tensorflow__TensorProto *p = unpack_tensor(b);
  CU_ASSERT_EQUAL(p->tensor_content.len, 0);
  CU_ASSERT_EQUAL_FATAL(p->n_float_val, 3);
  CU_ASSERT(p->float_val[0] == 0 && p->float_val[1] == 1 &&
            p->float_val[2] == 0.5f);
  tfs_tensor *back = tfs_tensor__from_proto(p, st);
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(back), v, sizeof v), 0);
  tensorflow__tensor_proto__free_unpacked(p, NULL);
  tfs_buffer_free(b);
  tfs_tensor_free(back);
  tfs_tensor_free(t);
  /* no long run at the end: raw bytes */
  for (int i = 0; i < 1000; i++) v[i] = (float)i;
  t = tu_floats(dims, 1, v);
  b = to_bytes(t);
  p = unpack_tensor(b);
  CU_ASSERT_EQUAL(p->tensor_content.len, sizeof v);
  CU_ASSERT_EQUAL(p->n_float_val, 0);
  tensorflow__tensor_proto__free_unpacked(p, NULL);
  tfs_buffer_free(b);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

/* ---- TensorFlow's decoding rules ----------------------------------------- */

/* float tensor of shape [n] from a proto with the given float_val. */
static tfs_tensor *floats_from(int64_t n, float *vals, size_t nvals,
                               tfs_status *st) {
  Tensorflow__TensorProto p = TENSORFLOW__TENSOR_PROTO__INIT;
  Tensorflow__TensorShapeProto s = TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  Tensorflow__TensorShapeProto__Dim d =
      TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT;
  Tensorflow__TensorShapeProto__Dim *dp = &d;
  d.size = n;
  s.dim = &dp;
  s.n_dim = 1;
  p.dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  p.tensor_shape = &s;
  p.float_val = vals;
  p.n_float_val = nvals;
  return tfs_tensor__from_proto(&p, st);
}

static void test_tensor_splat_and_zeros(void) {
  tfs_status *st = tfs_status_new();
  float two[2] = {1, 2}, three[3] = {4, 5, 6};
  tfs_tensor *t = floats_from(4, two, 2, st);
  TFS_ASSERT_OK(st);
  const float *v = tfs_tensor_data(t);
  CU_ASSERT(v[0] == 1 && v[1] == 2 && v[2] == 2 && v[3] == 2);
  tfs_tensor_free(t);
  t = floats_from(3, NULL, 0, st); /* empty list: zeros */
  v = tfs_tensor_data(t);
  CU_ASSERT(v[0] == 0 && v[1] == 0 && v[2] == 0);
  tfs_tensor_free(t);
  t = floats_from(2, three, 3, st); /* extra values are ignored */
  v = tfs_tensor_data(t);
  CU_ASSERT(v[0] == 4 && v[1] == 5);
  tfs_tensor_free(t);

  /* complex pairs splat; half_val holds bit patterns; strings splat */
  static const uint8_t cplx[] = {0x08, 0x08, 0x12, 0x04, 0x12, 0x02, 0x08,
                                 0x03, 0x4a, 0x08, 0, 0, 0x80, 0x3f,
                                 0, 0, 0, 0x40};
  t = tfs_tensor__parse_proto(cplx, sizeof cplx, st);
  TFS_ASSERT_OK(st);
  v = tfs_tensor_data(t);
  CU_ASSERT(v[0] == 1 && v[1] == 2 && v[4] == 1 && v[5] == 2);
  tfs_tensor_free(t);
  static const uint8_t half[] = {0x08, 0x13, 0x12, 0x04, 0x12, 0x02,
                                 0x08, 0x02, 0x6a, 0x02, 0x80, 0x78};
  t = tfs_tensor__parse_proto(half, sizeof half, st);
  TFS_ASSERT_OK(st);
  const uint16_t *h = tfs_tensor_data(t);
  CU_ASSERT(h[0] == 0x3c00 && h[1] == 0x3c00); /* 1.0 */
  tfs_tensor_free(t);
  static const uint8_t strs[] = {0x08, 0x07, 0x12, 0x04, 0x12, 0x02,
                                 0x08, 0x03, 0x42, 0x01, 'a', 0x42,
                                 0x02, 'b', 'c'};
  t = tfs_tensor__parse_proto(strs, sizeof strs, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 2, NULL), "bc");
  tfs_tensor_free(t);
  /* nothing to read for zero elements, whatever the proto holds */
  static const uint8_t empty[] = {0x08, 0x03, 0x12, 0x04, 0x12, 0x02, 0x08,
                                  0x00, 0x22, 0x04, 1, 0, 0, 0};
  t = tfs_tensor__parse_proto(empty, sizeof empty, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 0);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_tensor_packed_and_unpacked(void) {
  /* int32 [3] = {5, 6, 7}: unpacked (tag 0x38 per value), packed (0x3a) */
  static const uint8_t unpacked[] = {0x08, 0x03, 0x12, 0x04, 0x12, 0x02,
                                     0x08, 0x03, 0x38, 0x05, 0x38, 0x06,
                                     0x38, 0x07};
  static const uint8_t packed[] = {0x08, 0x03, 0x12, 0x04, 0x12, 0x02, 0x08,
                                   0x03, 0x3a, 0x03, 0x05, 0x06, 0x07};
  /* float [2] = {1, 2}: unpacked fixed32 (0x2d), packed (0x2a) */
  static const uint8_t funpacked[] = {0x08, 0x01, 0x12, 0x04, 0x12, 0x02,
                                      0x08, 0x02, 0x2d, 0, 0, 0x80, 0x3f,
                                      0x2d, 0, 0, 0, 0x40};
  static const uint8_t fpacked[] = {0x08, 0x01, 0x12, 0x04, 0x12, 0x02,
                                    0x08, 0x02, 0x2a, 0x08, 0, 0, 0x80,
                                    0x3f, 0, 0, 0, 0x40};
  tfs_status *st = tfs_status_new();
  const uint8_t *ints[2] = {unpacked, packed};
  size_t ilen[2] = {sizeof unpacked, sizeof packed};
  for (int i = 0; i < 2; i++) {
    tfs_tensor *t = tfs_tensor__parse_proto(ints[i], ilen[i], st);
    TFS_ASSERT_OK(st);
    const int32_t *v = tfs_tensor_data(t);
    CU_ASSERT(v[0] == 5 && v[1] == 6 && v[2] == 7);
    tfs_tensor_free(t);
  }
  const uint8_t *fl[2] = {funpacked, fpacked};
  size_t flen[2] = {sizeof funpacked, sizeof fpacked};
  for (int i = 0; i < 2; i++) {
    tfs_tensor *t = tfs_tensor__parse_proto(fl[i], flen[i], st);
    TFS_ASSERT_OK(st);
    const float *v = tfs_tensor_data(t);
    CU_ASSERT(v[0] == 1.0f && v[1] == 2.0f);
    tfs_tensor_free(t);
  }
  tfs_status_free(st);
}

/* ---- errors -------------------------------------------------------------- */

static void expect_tensor_error(const uint8_t *bytes, size_t len,
                                const char *msg) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor__parse_proto(bytes, len, st);
  CU_ASSERT_PTR_NULL(t);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, msg);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_tensor_errors(void) {
  static const uint8_t content[] = {0x08, 0x01, 0x12, 0x04, 0x12, 0x02,
                                    0x08, 0x03, 0x22, 0x04, 0, 0, 0, 0};
  expect_tensor_error(content, sizeof content,
                      "Cannot parse tensor from proto: tensor_content has 4 "
                      "bytes but a float tensor of shape [3] needs 12");
  static const uint8_t neg[] = {0x08, 0x01, 0x12, 0x0d, 0x12, 0x0b, 0x08,
                                0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0x01};
  expect_tensor_error(neg, sizeof neg, "Shape [-3] is not fully defined");
  /* dims 2^62 x 2^62 */
  static const uint8_t big[] = {0x08, 0x01, 0x12, 0x18,
                                0x12, 0x0a, 0x08, 0x80, 0x80, 0x80, 0x80,
                                0x80, 0x80, 0x80, 0x80, 0x40,
                                0x12, 0x0a, 0x08, 0x80, 0x80, 0x80, 0x80,
                                0x80, 0x80, 0x80, 0x80, 0x40};
  expect_tensor_error(big, sizeof big,
                      "Shape [4611686018427387904,4611686018427387904] is "
                      "too large (more than 2**63 - 1 entries)");
  static const uint8_t bad_dtype[] = {0x08, 0x63};
  expect_tensor_error(bad_dtype, sizeof bad_dtype,
                      "Cannot parse tensor from proto: 99 is not a valid "
                      "tensor dtype");
  static const uint8_t ref_dtype[] = {0x08, 0x65};
  expect_tensor_error(ref_dtype, sizeof ref_dtype,
                      "101 is not a valid tensor dtype");
  static const uint8_t invalid_dtype[] = {0x10 /* no dtype at all */, 0};
  expect_tensor_error(invalid_dtype, 0, "0 is not a valid tensor dtype");
  static const uint8_t variant[] = {0x08, 0x15};
  expect_tensor_error(variant, sizeof variant,
                      "tensors of dtype variant are not supported");
  /* a 2-byte float_val asking for 2^33 floats: refused, not allocated */
  static const uint8_t bomb[] = {0x08, 0x01, 0x12, 0x08, 0x12, 0x06, 0x08,
                                 0x80, 0x80, 0x80, 0x80, 0x20, 0x2a, 0x04,
                                 0, 0, 0, 0};
  expect_tensor_error(bomb, sizeof bomb,
                      "a float tensor of shape [8589934592] would take "
                      "34359738368 bytes, more than the 4294967296 tfsess "
                      "expands from a *_val list");
  static const uint8_t garbage[] = {0x08, 0x01, 0x12, 0x09, 0x12};
  expect_tensor_error(garbage, sizeof garbage, "Unparseable TensorProto");
}

/* Allocations protobuf-c makes to unpack these TensorProto bytes. */
static long allocs_to_unpack(const uint8_t *bytes, size_t len) {
  tfs_alloc_fail_at(LONG_MAX); /* counts, never fails */
  ProtobufCMessage *m =
      tfs_pb__unpack(&tensorflow__tensor_proto__descriptor, bytes, len, NULL);
  long n = tfs_alloc_fail_at(0);
  CU_ASSERT_PTR_NOT_NULL(m);
  tfs_pb__free(m);
  return n;
}

/* A string tensor_content is checked against the bytes present before
 * anything is sized by the shape: 14 bytes claiming 10^8 strings made a
 * 2.4 GB allocation before they were refused. */
static void test_tensor_content_sized_by_bytes(void) {
  static const uint8_t bomb[] = {0x08, 0x07, 0x12, 0x07, 0x12, 0x05, 0x08,
                                 0x80, 0xc2, 0xd7, 0x2f, 0x22, 0x01, 0x00};
  expect_tensor_error(bomb, sizeof bomb,
                      "Cannot parse tensor from proto: tensor_content of a "
                      "string tensor of shape [100000000] is not a valid "
                      "string list");
  /* the first allocation after the unpack is the error message (failing
   * it leaves INVALID_ARGUMENT), not the tensor (RESOURCE_EXHAUSTED) */
  tfs_status *st = tfs_status_new();
  long unpack = allocs_to_unpack(bomb, sizeof bomb);
  tfs_alloc_fail_at(unpack + 1);
  tfs_tensor *t = tfs_tensor__parse_proto(bomb, sizeof bomb, st);
  tfs_alloc_fail_at(0);
  CU_ASSERT_PTR_NULL(t);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  /* one length byte per element is the least: three empty strings */
  static const uint8_t empties[] = {0x08, 0x07, 0x12, 0x04, 0x12, 0x02, 0x08,
                                    0x03, 0x22, 0x03, 0x00, 0x00, 0x00};
  t = tfs_tensor__parse_proto(empties, sizeof empties, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 3);
  CU_ASSERT_STRING_EQUAL(tfs_tensor_string_at(t, 2, NULL), "");
  tfs_tensor_free(t);
  /* a length past the bytes that follow */
  static const uint8_t over[] = {0x08, 0x07, 0x12, 0x04, 0x12, 0x02, 0x08,
                                 0x02, 0x22, 0x03, 0x05, 0x00, 'a'};
  expect_tensor_error(over, sizeof over,
                      "tensor_content of a string tensor of shape [2] is "
                      "not a valid string list");
  /* numeric tensor_content must match shape x element size exactly */
  static const uint8_t f[] = {0x08, 0x01, 0x12, 0x07, 0x12, 0x05, 0x08,
                              0x80, 0xc2, 0xd7, 0x2f, 0x22, 0x01, 0x00};
  expect_tensor_error(f, sizeof f,
                      "tensor_content has 1 bytes but a float tensor of "
                      "shape [100000000] needs 400000000");
  /* resource handles are allocated one by one: 2^27 of them from an
   * empty resource_handle_val count against the expansion limit */
  static const uint8_t handles[] = {0x08, 0x14, 0x12, 0x07, 0x12, 0x05,
                                    0x08, 0x80, 0x80, 0x80, 0x40};
  expect_tensor_error(handles, sizeof handles,
                      "a resource tensor of shape [134217728] would take");
  tfs_status_free(st);
}

static void test_shape_protos(void) {
  tfs_status *st = tfs_status_new();
  tfs_shape s;
  char buf[TFS_SHAPE_STRLEN];
  static const uint8_t unknown[] = {0x18, 0x01};
  CU_ASSERT_EQUAL(tfs_shape__parse_proto(unknown, sizeof unknown, &s, st), 0);
  CU_ASSERT_EQUAL(s.rank, -1);
  static const uint8_t partial[] = {0x12, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                                    0x12, 0x02, 0x08, 0x03};
  CU_ASSERT_EQUAL(tfs_shape__parse_proto(partial, sizeof partial, &s, st), 0);
  CU_ASSERT_STRING_EQUAL(tfs_shape_str(&s, buf, sizeof buf), "[?,3]");
  tfs_buffer *b = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_shape__serialize_proto(&s, b, st), 0);
  CU_ASSERT_EQUAL(b->length, sizeof partial);
  CU_ASSERT_EQUAL(memcmp(b->data, partial, sizeof partial), 0);
  tfs_buffer_free(b);
  static const uint8_t below[] = {0x12, 0x0b, 0x08, 0xfe, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  CU_ASSERT_EQUAL(tfs_shape__parse_proto(below, sizeof below, &s, st), -1);
  TFS_ASSERT_MESSAGE(st, "Shape [-2] has dimensions with values below -1 "
                         "(where -1 means unknown)");
  static const uint8_t both[] = {0x12, 0x02, 0x08, 0x01, 0x18, 0x01};
  CU_ASSERT_EQUAL(tfs_shape__parse_proto(both, sizeof both, &s, st), -1);
  TFS_ASSERT_MESSAGE(st, "An unknown shape must not have any dimensions set.");
  uint8_t many[17 * 4];
  for (int i = 0; i < 17; i++) {
    many[4 * i] = 0x12;
    many[4 * i + 1] = 0x02;
    many[4 * i + 2] = 0x08;
    many[4 * i + 3] = 0x01;
  }
  CU_ASSERT_EQUAL(tfs_shape__parse_proto(many, sizeof many, &s, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "has too many dimensions (tfsess supports at most 16)");
  CU_ASSERT_EQUAL(tfs_shape__parse_proto("\x12", 1, &s, st), -1);
  TFS_ASSERT_MESSAGE(st, "Unparseable TensorShapeProto");
  tfs_status_free(st);
}

/* ---- AttrValue ----------------------------------------------------------- */

static void attr_roundtrip(tfs_attr_value *v) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  tfs_attr_value back;
  CU_ASSERT_EQUAL(tfs_attr_value__serialize(v, b, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_attr_value__parse(b->data, b->length, NULL, &back, st),
                  0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_TRUE(tfs_attr_value_equal(v, &back));
  tfs_attr_value_clear(&back);
  tfs_attr_value_clear(v);
  tfs_buffer_free(b);
  tfs_status_free(st);
}

static void test_attr_value_every_kind(void) {
  tfs_attr_value v;
  tfs_attr_int(&v, -5);
  attr_roundtrip(&v);
  tfs_attr_float(&v, 0.25f);
  attr_roundtrip(&v);
  tfs_attr_bool(&v, 1);
  attr_roundtrip(&v);
  tfs_attr_type_val(&v, TFS_HALF);
  attr_roundtrip(&v);
  tfs_attr_string(&v, "a\0b", 3);
  attr_roundtrip(&v);
  tfs_shape s;
  tfs_shape_2d(&s, -1, 4);
  tfs_attr_shape(&v, &s);
  attr_roundtrip(&v);
  tfs_shape_unknown(&s);
  tfs_attr_shape(&v, &s);
  attr_roundtrip(&v);
  tfs_tensor *t = tfs_tensor_scalar_int64(42);
  tfs_attr_tensor(&v, t);
  attr_roundtrip(&v);
  tfs_attr_placeholder(&v, "T");
  attr_roundtrip(&v);
  int64_t ints[3] = {1, -2, 3};
  tfs_attr_list(&v, TFS_ATTR_INT, 3, ints);
  attr_roundtrip(&v);
  tfs_dtype types[2] = {TFS_FLOAT, TFS_INT32};
  tfs_attr_list(&v, TFS_ATTR_TYPE, 2, types);
  attr_roundtrip(&v);
  uint8_t bools[2] = {1, 0};
  tfs_attr_list(&v, TFS_ATTR_BOOL, 2, bools);
  attr_roundtrip(&v);
  tfs_bytes strs[2] = {{"loc:@a", 6}, {"", 0}};
  tfs_attr_list(&v, TFS_ATTR_STRING, 2, strs);
  attr_roundtrip(&v);
  tfs_tensor *tl[2] = {t, t};
  tfs_attr_list(&v, TFS_ATTR_TENSOR, 2, tl);
  attr_roundtrip(&v);
  tfs_attr_list(&v, TFS_ATTR_STRING, 0, NULL); /* list {} */
  attr_roundtrip(&v);
  /* func with nested attrs */
  tfs_attr_func(&v, "f", 1);
  v.u.func->attrs = tfs_calloc(1, sizeof(tfs_attrs));
  tfs_attrs_init(v.u.func->attrs);
  tfs_attr_value inner;
  tfs_attr_type_val(&inner, TFS_DOUBLE);
  tfs_attrs_set(v.u.func->attrs, "T", &inner);
  attr_roundtrip(&v);
  tfs_tensor_free(t);
}

static void test_attr_value_rules_and_errors(void) {
  tfs_status *st = tfs_status_new();
  tfs_attr_value v;
  const tfs_op_def *cast = tfs_op_lookup("Cast");
  const tfs_op_def *ph = tfs_op_lookup("Placeholder");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ph);
  /* `list {}` takes its kind from the op definition */
  static const uint8_t empty_list[] = {0x0a, 0x00};
  const tfs_attr_def *shape_def = tfs_op_def_attr(ph, "shape");
  tfs_attr_def list_type = *shape_def;
  list_type.type = TFS_ATTR_TYPE;
  list_type.is_list = 1;
  CU_ASSERT_EQUAL(tfs_attr_value__parse(empty_list, 2, &list_type, &v, st),
                  0);
  CU_ASSERT_STRING_EQUAL(tfs_attr_type_string(&v), "list(type)");
  tfs_attr_value_clear(&v);
  CU_ASSERT_EQUAL(tfs_attr_value__parse(empty_list, 2, NULL, &v, st), 0);
  CU_ASSERT_STRING_EQUAL(tfs_attr_type_string(&v), "list(string)");
  tfs_attr_value_clear(&v);
  /* a list mixing kinds */
  static const uint8_t mixed2[] = {0x0a, 0x05, 0x1a, 0x01, 0x01, 0x30, 0x01};
  CU_ASSERT_EQUAL(tfs_attr_value__parse(mixed2, sizeof mixed2, NULL, &v, st),
                  -1);
  TFS_ASSERT_MESSAGE(st,
                     "AttrValue had a list with values of more than one type");
  /* no value at all */
  if (cast) {
    const tfs_attr_def *trunc = tfs_op_def_attr(cast, "Truncate");
    CU_ASSERT_EQUAL(tfs_attr_value__parse("", 0, trunc, &v, st), -1);
    TFS_ASSERT_MESSAGE(st, "AttrValue missing value with expected type 'bool'");
  }
  CU_ASSERT_EQUAL(tfs_attr_value__parse("", 0, NULL, &v, st), -1);
  TFS_ASSERT_MESSAGE(st, "AttrValue has no value");
  CU_ASSERT_EQUAL(tfs_attr_value__parse("\x0a\x05", 2, NULL, &v, st), -1);
  TFS_ASSERT_MESSAGE(st, "Unparseable AttrValue proto");
  /* a bad tensor inside a list says what is wrong */
  static const uint8_t bad_tensor[] = {0x0a, 0x04, 0x42, 0x02, 0x08, 0x63};
  CU_ASSERT_EQUAL(tfs_attr_value__parse(bad_tensor, sizeof bad_tensor, NULL,
                                        &v, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "99 is not a valid tensor dtype");
  tfs_status_free(st);
}

/* AttrValue{func: NameAttrList{attr {key: "a" value: <inner>}}} nested
 * `depth` times, built from the inside out. */
static uint8_t *nested_attr(int depth, size_t *len) {
  size_t cap = (size_t)depth * 20 + 16, start = cap;
  uint8_t *buf = malloc(cap);
  size_t n = 0; /* bytes used, at buf[start..cap) */
#define PUT(byte) (buf[--start] = (uint8_t)(byte), n++)
#define PUT_LEN(v)                                                          \
  do {                                                                      \
    uint8_t tmp_[10];                                                       \
    int k_ = 0;                                                             \
    size_t x_ = (v);                                                        \
    do {                                                                    \
      tmp_[k_++] = (uint8_t)((x_ & 0x7f) | (x_ > 0x7f ? 0x80 : 0));         \
      x_ >>= 7;                                                             \
    } while (x_);                                                           \
    while (k_) PUT(tmp_[--k_]);                                             \
  } while (0)
  for (int i = 0; i < depth; i++) {
    size_t inner = n;
    PUT_LEN(inner); /* entry.value */
    PUT(0x12);
    PUT('a');       /* entry.key */
    PUT(0x01);
    PUT(0x0a);
    PUT_LEN(n);     /* NameAttrList.attr */
    PUT(0x12);
    PUT_LEN(n);     /* AttrValue.func */
    PUT(0x52);
  }
#undef PUT
#undef PUT_LEN
  memmove(buf, buf + start, n);
  *len = n;
  return buf;
}

static void test_attr_value_nesting_limit(void) {
  tfs_status *st = tfs_status_new();
  tfs_attr_value v;
  size_t len;
  uint8_t *ok = nested_attr(20, &len);
  CU_ASSERT_EQUAL(tfs_attr_value__parse(ok, len, NULL, &v, st), 0);
  TFS_ASSERT_OK(st);
  tfs_attr_value_clear(&v);
  free(ok);
  /* 100000 levels would overflow protobuf-c's recursive parser */
  uint8_t *deep = nested_attr(100000, &len);
  CU_ASSERT_EQUAL(tfs_attr_value__parse(deep, len, NULL, &v, st), -1);
  TFS_ASSERT_MESSAGE(st, "Unparseable AttrValue proto");
  free(deep);
  tfs_status_free(st);
}

static void test_out_of_memory_everywhere(void) {
  /* every allocation of a parse and a serialize fails in turn: errors,
   * never crashes or leaks */
  int64_t dims[2] = {2, 2};
  const char *strs[4] = {"a", "b", "c", "a string longer than 22 bytes"};
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new_strings(dims, 2, strs, NULL, st);
  tfs_buffer *good = to_bytes(t);
  for (long n = 1; n < 200; n++) {
    tfs_alloc_fail_at(n);
    tfs_tensor *back = tfs_tensor__parse_proto(good->data, good->length, st);
    tfs_buffer *b = tfs_buffer_new();
    int rc = tfs_tensor__serialize_proto(t, b, st);
    long used = tfs_alloc_fail_at(0);
    tfs_buffer_free(b);
    tfs_tensor_free(back);
    (void)rc;
    if (used < n) break;
  }
  tfs_buffer_free(good);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static const tfs_test_case tensor_cases[] = {
    {"roundtrip_every_dtype", test_tensor_roundtrip_every_dtype},
    {"strings_and_resources", test_tensor_strings_and_resources},
    {"splats_written_compactly", test_tensor_splats_written_compactly},
    {"splat_and_zeros", test_tensor_splat_and_zeros},
    {"packed_and_unpacked", test_tensor_packed_and_unpacked},
    {"errors", test_tensor_errors},
    {"content_sized_by_bytes", test_tensor_content_sized_by_bytes},
    {"out_of_memory", test_out_of_memory_everywhere},
    {NULL, NULL}};
static const tfs_test_case shape_cases[] = {
    {"protos", test_shape_protos}, {NULL, NULL}};
static const tfs_test_case attr_cases[] = {
    {"every_kind", test_attr_value_every_kind},
    {"rules_and_errors", test_attr_value_rules_and_errors},
    {"nesting_limit", test_attr_value_nesting_limit},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"tensor_proto", tensor_cases},
    {"shape_proto", shape_cases},
    {"attr_proto", attr_cases},
    {NULL, NULL}};

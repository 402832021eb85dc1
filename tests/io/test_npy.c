/*
 * tests/io/test_npy.c - .npy and .npz: files NumPy wrote (every layout and
 * byte order), round trips of every dtype, the row-wise reader and writer,
 * every rejection with its message, and fuzzing with truncations, byte
 * flips and failed allocations.
 */
#include <math.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/util.h"
#include "iotest.h"
#include "testutil.h"
#include "tfs_config.h"

static tfs_tensor *read_data(const char *name, tfs_status *st) {
  char rel[256];
  snprintf(rel, sizeof rel, "tests/io/data/%s", name);
  return tfs_npy_read(it_src(rel), st);
}

static void assert_shape(const tfs_tensor *t, int nd, const int64_t *dims) {
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_ndims(t), nd);
  for (int i = 0; i < nd; i++) CU_ASSERT_EQUAL(tfs_tensor_dim(t, i), dims[i]);
}

/* ---- files NumPy wrote --------------------------------------------------- */

static void test_npy_reads_numpy_float_files(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = read_data("f32_c.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_FLOAT);
  assert_shape(t, 2, (int64_t[]){2, 3});
  const float *f = tfs_tensor_data(t);
  for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(f[i], i / 4.0f);
  tfs_tensor_free(t);

  t = read_data("f64_be.npy", st); /* big-endian: swapped on read */
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_DOUBLE);
  assert_shape(t, 2, (int64_t[]){3, 2});
  const double *d = tfs_tensor_data(t);
  for (int i = 0; i < 6; i++) CU_ASSERT_EQUAL(d[i], i * 1.5);
  tfs_tensor_free(t);

  t = read_data("f16.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_HALF);
  const uint16_t *h = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(tfs_half_to_float(h[0]), 1.5f);
  CU_ASSERT_EQUAL(tfs_half_to_float(h[1]), -2.25f);
  CU_ASSERT_EQUAL(tfs_half_to_float(h[2]), 65504.0f);
  tfs_tensor_free(t);

  t = read_data("c64_be.npy", st); /* complex: each half swapped */
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_COMPLEX64);
  f = tfs_tensor_data(t);
  CU_ASSERT_EQUAL(f[0], 1.0f);
  CU_ASSERT_EQUAL(f[1], 2.0f);
  CU_ASSERT_EQUAL(f[2], 0.0f);
  CU_ASSERT_EQUAL(f[3], -3.5f);
  tfs_tensor_free(t);

  t = read_data("empty.npy", st);
  TFS_ASSERT_OK(st);
  assert_shape(t, 2, (int64_t[]){0, 4});
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_npy_reads_numpy_fortran_order(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = read_data("i32_fortran.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_INT32);
  assert_shape(t, 3, (int64_t[]){2, 3, 4});
  const int32_t *v = tfs_tensor_data(t);
  for (int i = 0; i < 24; i++) CU_ASSERT_EQUAL(v[i], i);
  tfs_tensor_free(t);

  t = read_data("i16_be_fortran.npy", st); /* both at once */
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_INT16);
  assert_shape(t, 2, (int64_t[]){3, 4});
  const int16_t *s = tfs_tensor_data(t);
  for (int i = 0; i < 12; i++) CU_ASSERT_EQUAL(s[i], i - 5);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_npy_reads_numpy_other_dtypes(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = read_data("bool.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_BOOL);
  const uint8_t *b = tfs_tensor_data(t);
  CU_ASSERT(b[0] == 1 && b[1] == 0 && b[2] == 1);
  tfs_tensor_free(t);

  t = read_data("u64_scalar.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_UINT64);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(t), 0);
  CU_ASSERT_EQUAL(*(const uint64_t *)tfs_tensor_data(t), (1ull << 63) + 5);
  tfs_tensor_free(t);

  t = read_data("bytes.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_STRING);
  size_t len;
  const char *s = tfs_tensor_string_at(t, 0, &len);
  CU_ASSERT(len == 2 && memcmp(s, "ab", 2) == 0);
  tfs_tensor_string_at(t, 1, &len);
  CU_ASSERT_EQUAL(len, 0);
  s = tfs_tensor_string_at(t, 2, &len);
  CU_ASSERT(len == 3 && memcmp(s, "xyz", 3) == 0);
  tfs_tensor_free(t);

  t = read_data("v2.npy", st); /* format 2.0: 4-byte header length */
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_INT64);
  CU_ASSERT_EQUAL(((const int64_t *)tfs_tensor_data(t))[4], 4);
  tfs_tensor_free(t);
  t = read_data("v3.npy", st); /* format 3.0: utf-8 header */
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_UINT8);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(t), 4);
  tfs_tensor_free(t);

  t = read_data("unicode.npy", st);
  CU_ASSERT_PTR_NULL(t);
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED,
                   "unicode.npy: dtype '<U2' (unicode strings) is not "
                   "supported; save byte strings (dtype 'S') instead");
  tfs_status_free(st);
}

/* ---- round trips --------------------------------------------------------- */

static void test_npy_roundtrip_every_dtype(void) {
  static const tfs_dtype dts[] = {
      TFS_FLOAT,  TFS_DOUBLE, TFS_HALF,      TFS_INT8,      TFS_INT16,
      TFS_INT32,  TFS_INT64,  TFS_UINT8,     TFS_UINT16,    TFS_UINT32,
      TFS_UINT64, TFS_BOOL,   TFS_COMPLEX64, TFS_COMPLEX128};
  tfs_status *st = tfs_status_new();
  int64_t dims[] = {3, 2, 2};
  for (size_t k = 0; k < TFS_ARRAY_LEN(dts); k++) {
    tfs_tensor *t = tfs_tensor_new(dts[k], dims, 3, st);
    TFS_ASSERT_OK(st);
    uint8_t *p = tfs_tensor_data(t);
    for (size_t i = 0; i < tfs_tensor_byte_size(t); i++)
      p[i] = dts[k] == TFS_BOOL ? (uint8_t)(i % 3 == 0) : (uint8_t)(i * 7 + k);
    tfs_npy_write(it_tmp("rt.npy"), t, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *r = tfs_npy_read(it_tmp("rt.npy"), st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_tensor_dtype(r), dts[k]);
    assert_shape(r, 3, dims);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(r), p, tfs_tensor_byte_size(t)), 0);
    /* NumPy's layout: the data starts at a multiple of 64 bytes. */
    size_t len;
    uint8_t *raw = it_read_file(it_tmp("rt.npy"), &len);
    CU_ASSERT_EQUAL((len - tfs_tensor_byte_size(t)) % 64, 0);
    CU_ASSERT_EQUAL(raw[len - tfs_tensor_byte_size(t) - 1], '\n');
    free(raw);
    tfs_tensor_free(r);
    tfs_tensor_free(t);
  }
  tfs_status_free(st);
}

static void test_npy_writes_numpys_header_text(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(TFS_INT32, (int64_t[]){4}, 1, st);
  tfs_buffer b = {NULL, 0, NULL};
  tfs_npy_write_buffer(t, &b, st);
  TFS_ASSERT_OK(st);
  const char *h = (const char *)b.data;
  CU_ASSERT_EQUAL(memcmp(h, "\x93NUMPY\x01\x00\x76\x00", 10), 0);
  const char *want =
      "{'descr': '<i4', 'fortran_order': False, "
      "'shape': (4,), }";
  CU_ASSERT_EQUAL(memcmp(h + 10, want, strlen(want)), 0);
  CU_ASSERT_EQUAL(b.length, 128 + 16);
  b.data_deallocator((void *)b.data, b.length);
  tfs_tensor_free(t);

  tfs_buffer nonempty = {"x", 1, NULL};
  t = tfs_tensor_scalar_float(1);
  tfs_npy_write_buffer(t, &nonempty, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "non-empty");
  tfs_tensor_free(t);

  t = tfs_tensor_new(TFS_BFLOAT16, (int64_t[]){2}, 1, st);
  tfs_npy_write(it_tmp("bf.npy"), t, st);
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED,
                   "cannot write a bfloat16 tensor as .npy (NumPy has no "
                   "such dtype)");
  tfs_tensor_free(t);
  tfs_status_free(st);
}

static void test_npy_roundtrip_strings_and_scalars(void) {
  tfs_status *st = tfs_status_new();
  const char *strs[] = {"alpha", "", "a much longer string than 22 bytes"};
  tfs_tensor *t = tfs_tensor_new_strings((int64_t[]){3}, 1, strs, NULL, st);
  tfs_npy_write(it_tmp("s.npy"), t, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *r = tfs_npy_read(it_tmp("s.npy"), st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < 3; i++) {
    size_t len;
    const char *s = tfs_tensor_string_at(r, i, &len);
    CU_ASSERT(len == strlen(strs[i]) && memcmp(s, strs[i], len) == 0);
  }
  tfs_tensor_free(r);
  tfs_tensor_free(t);

  t = tfs_tensor_scalar_double(-0.125);
  tfs_npy_write(it_tmp("d.npy"), t, st);
  r = tfs_npy_read(it_tmp("d.npy"), st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(r), 0);
  CU_ASSERT_EQUAL(*(const double *)tfs_tensor_data(r), -0.125);
  tfs_tensor_free(r);
  tfs_tensor_free(t);
  tfs_status_free(st);
}

/* ---- headers ------------------------------------------------------------- */

/* Builds a v1.0 .npy in buf from hl bytes of header text (NULs allowed)
 * plus `data_len` zero bytes. */
static size_t make_npy_n(uint8_t *buf, const char *header, size_t hl,
                         size_t data_len) {
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (uint8_t)hl;
  buf[9] = (uint8_t)(hl >> 8);
  memcpy(buf + 10, header, hl);
  memset(buf + 10 + hl, 0, data_len);
  return 10 + hl + data_len;
}

/* Builds a v1.0 .npy in buf from header text plus `data_len` zero bytes. */
static size_t make_npy(uint8_t *buf, const char *header, size_t data_len) {
  return make_npy_n(buf, header, strlen(header), data_len);
}

static void test_npy_accepts_header_variants(void) {
  static const struct {
    const char *header;
    int ndims;
    int64_t d0;
  } ok[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", 2, 2},
      {"{\"shape\": (5,), \"descr\": \"<f4\", \"fortran_order\": False}", 1, 5},
      {"{'descr':'<f4','fortran_order':True,'shape':(2L, 3L)}  \n", 2, 2},
      {"{'descr': '=f4', 'fortran_order': False, 'shape': (), }", 0, 0},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,2,1,) }", 3, 1},
  };
  tfs_status *st = tfs_status_new();
  uint8_t buf[512];
  for (size_t i = 0; i < TFS_ARRAY_LEN(ok); i++) {
    size_t n = make_npy(buf, ok[i].header, 64);
    tfs_tensor *t = tfs_npy_read_buffer(buf, n, "h.npy", st);
    if (!t) fprintf(stderr, "\n  header %zu: %s\n", i, tfs_status_message(st));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_EQUAL(tfs_tensor_ndims(t), ok[i].ndims);
    if (ok[i].ndims) CU_ASSERT_EQUAL(tfs_tensor_dim(t, 0), ok[i].d0);
    tfs_tensor_free(t);
  }
  tfs_status_free(st);
}

static void test_npy_rejects_bad_headers(void) {
  static const struct {
    const char *header;
    tfs_code code;
    const char *msg;
  } bad[] = {
      {"{'descr': '<f4', 'fortran_order': False}", TFS_INVALID_ARGUMENT,
       "bad.npy: malformed .npy header: no 'shape' key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
       TFS_INVALID_ARGUMENT, "malformed .npy header: unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
       "'shape': ()}",
       TFS_INVALID_ARGUMENT, "key 'descr' appears twice"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (2,)}",
       TFS_UNIMPLEMENTED,
       "bad.npy: dtype '|O' (Python objects) is not supported: object "
       "arrays need pickle"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
       TFS_UNIMPLEMENTED, "structured dtypes (record arrays) are not"},
      {"{'descr': '<f3', 'fortran_order': False, 'shape': (2,)}",
       TFS_UNIMPLEMENTED, "bad.npy: dtype '<f3' is not supported"},
      {"{'descr': '<M8[s]', 'fortran_order': False, 'shape': (2,)}",
       TFS_UNIMPLEMENTED, "dtype '<M8[s]' is not supported"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
       TFS_INVALID_ARGUMENT,
       "expected a non-negative dimension in the shape at column"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
       TFS_INVALID_ARGUMENT, "bad.npy: shape has more than 16 dimensions"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999, 99999999999)}",
       TFS_INVALID_ARGUMENT, "shape in the .npy header overflows"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(99999999999999999999,)}",
       TFS_INVALID_ARGUMENT, "dimension too large"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,)}",
       TFS_INVALID_ARGUMENT, "expected True or False at column 35"},
      {"{'descr': '<f4' 'fortran_order': False}", TFS_INVALID_ARGUMENT,
       "expected ',' or '}'"},
      {"['descr']", TFS_INVALID_ARGUMENT, "expected '{' at column 1"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
       TFS_INVALID_ARGUMENT, "unexpected text after the dict"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
       TFS_INVALID_ARGUMENT, "expected ',' or '}'"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
       TFS_INVALID_ARGUMENT, "malformed .npy header"},
  };
  tfs_status *st = tfs_status_new();
  uint8_t buf[512];
  for (size_t i = 0; i < TFS_ARRAY_LEN(bad); i++) {
    size_t n = make_npy(buf, bad[i].header, 8);
    tfs_tensor *t = tfs_npy_read_buffer(buf, n, "bad.npy", st);
    CU_ASSERT_PTR_NULL(t);
    tfs_tensor_free(t);
    TFS_ASSERT_ERROR(st, bad[i].code, bad[i].msg);
  }
  tfs_status_free(st);
}

static void test_npy_rejects_bad_files(void) {
  tfs_status *st = tfs_status_new();
  uint8_t buf[512];
  size_t n = make_npy(buf,
                      "{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (3, 4)}",
                      20);
  CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, n, "short.npy", st));
  TFS_ASSERT_MESSAGE(st,
                     "short.npy: data is truncated: shape [3,4] of "
                     "'<f4' needs 48 bytes after the header, the file "
                     "has 20");
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_DATA_LOSS);
  it_write_file(it_tmp("short.npy"), buf, n);
  CU_ASSERT_PTR_NULL(tfs_npy_read(it_tmp("short.npy"), st));
  TFS_ASSERT_ERROR(st, TFS_DATA_LOSS, "short.npy: data is truncated");

  CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, 30, "cut.npy", st));
  TFS_ASSERT_ERROR(st, TFS_DATA_LOSS, "cut.npy: truncated .npy header");
  CU_ASSERT_PTR_NULL(tfs_npy_read_buffer("PK\3\4xxxxxxxx", 12, "z.npy", st));
  TFS_ASSERT_MESSAGE(st,
                     "z.npy: not a .npy file (it does not start with the "
                     "magic \"\\x93NUMPY\")");
  memcpy(buf, "\x93NUMPY\x04\x00", 8);
  CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, n, "v4.npy", st));
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED,
                   "v4.npy: .npy format version 4.0 is not supported");

  CU_ASSERT_PTR_NULL(tfs_npy_read(it_tmp("missing.npy"), st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "missing.npy: cannot open: No such file");
  CU_ASSERT_PTR_NULL(tfs_npy_read(it_tmpdir(), st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, ": is a directory");
  tfs_tensor *t = tfs_tensor_scalar_float(1);
  tfs_npy_write(it_tmp("no/such/dir.npy"), t, st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "dir.npy: cannot open for writing");
  tfs_tensor_free(t);
  tfs_status_free(st);
}

/* Byte strings of width 0 ('|S0', '|S', '>a') made the data size check
 * vacuous: 128 bytes gave 10^8 strings, and in Fortran order a shape of
 * 2 * 10^12 elements looped for ever.  Refused unless the array is
 * empty; so are NULs inside quoted header strings. */
static void test_npy_rejects_zero_width_elements(void) {
  static const char *descrs[] = {"|S0", "|S", ">a"};
  tfs_status *st = tfs_status_new();
  uint8_t buf[512];
  char header[200], msg[200];
  for (size_t i = 0; i < TFS_ARRAY_LEN(descrs); i++) {
    for (int fortran = 0; fortran < 2; fortran++) {
      snprintf(header, sizeof header,
               "{'descr': '%s', 'fortran_order': %s, 'shape': %s}",
               descrs[i], fortran ? "True" : "False",
               fortran ? "(1000000000000, 2)" : "(100000000,)");
      size_t n = make_npy(buf, header, 128 - 10 - strlen(header));
      snprintf(msg, sizeof msg,
               "z.npy: dtype '%s' has elements of 0 bytes, which cannot "
               "hold a non-empty array", descrs[i]);
      CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, n, "z.npy", st));
      TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, msg);
      it_write_file(it_tmp("z.npy"), buf, n);
      CU_ASSERT_PTR_NULL(tfs_npy_read(it_tmp("z.npy"), st));
      TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "has elements of 0 bytes");
    }
  }
  /* an empty array needs no bytes: fine */
  size_t n = make_npy(buf,
                      "{'descr': '|S0', 'fortran_order': False, "
                      "'shape': (0, 3)}",
                      0);
  tfs_tensor *t = tfs_npy_read_buffer(buf, n, "e.npy", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_STRING);
  assert_shape(t, 2, (int64_t[]){0, 3});
  tfs_tensor_free(t);
  /* a NUL in a key or a value would end the C string early */
  static const char nul_key[] =
      "{'descr\0x': '<f4', 'fortran_order': False, 'shape': (2,)}";
  static const char nul_descr[] =
      "{'descr': '<f4\0x', 'fortran_order': False, 'shape': (2,)}";
  n = make_npy_n(buf, nul_key, sizeof nul_key - 1, 8);
  CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, n, "k.npy", st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "k.npy: malformed .npy header: unexpected string "
                   "contents at column 8");
  n = make_npy_n(buf, nul_descr, sizeof nul_descr - 1, 8);
  CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, n, "k.npy", st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "unexpected string contents");
  tfs_status_free(st);
}

/* The header's size check follows NumPy: the non-zero dims times the
 * element size must fit, even when a 0 dim empties the array (it used to
 * multiply left to right, so (0, 2^62, 4) passed and the row reader's
 * own product wrapped). */
static void test_npy_sizes_checked_with_zero_dims(void) {
  tfs_status *st = tfs_status_new();
  uint8_t buf[512];
  static const char *huge[] = {
      "{'descr': '<f4', 'fortran_order': False, "
      "'shape': (0, 4611686018427387904, 4)}",
      "{'descr': '<f4', 'fortran_order': True, "
      "'shape': (4611686018427387904, 0, 4)}",
      "{'descr': '|u1', 'fortran_order': False, "
      "'shape': (0, 4611686018427387904, 4)}",
  };
  for (size_t i = 0; i < TFS_ARRAY_LEN(huge); i++) {
    size_t n = make_npy(buf, huge[i], 0);
    CU_ASSERT_PTR_NULL(tfs_npy_read_buffer(buf, n, "big.npy", st));
    TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                     "big.npy: shape in the .npy header overflows");
    it_write_file(it_tmp("big.npy"), buf, n);
    CU_ASSERT_PTR_NULL(tfs_npy_reader_open(it_tmp("big.npy"), st));
    TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                     "shape in the .npy header overflows");
  }
  /* rows of 2^62 bytes fit int64: an empty array of them is fine */
  size_t n = make_npy(buf,
                      "{'descr': '|u1', 'fortran_order': False, "
                      "'shape': (0, 1152921504606846976, 4)}",
                      0);
  int64_t want[3] = {0, INT64_C(1) << 60, 4};
  tfs_tensor *t = tfs_npy_read_buffer(buf, n, "empty.npy", st);
  TFS_ASSERT_OK(st);
  assert_shape(t, 3, want);
  tfs_tensor_free(t);
  it_write_file(it_tmp("empty.npy"), buf, n);
  tfs_npy_reader *r = tfs_npy_reader_open(it_tmp("empty.npy"), st);
  TFS_ASSERT_OK(st);
  t = tfs_npy_reader_read_rows(r, 0, 0, st);
  TFS_ASSERT_OK(st);
  assert_shape(t, 3, want);
  tfs_tensor_free(t);
  CU_ASSERT_PTR_NULL(tfs_npy_reader_read_rows(r, 0, 1, st));
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "are outside the file's 0 rows");
  tfs_npy_reader_free(r);
  tfs_status_free(st);
}

/* ---- row-wise reader and writer ------------------------------------------ */

static void test_npy_reader_reads_row_ranges(void) {
  static const char *files[] = {"i32_fortran.npy", "f64_be.npy",
                                "i16_be_fortran.npy", "f32_c.npy"};
  tfs_status *st = tfs_status_new();
  for (size_t k = 0; k < TFS_ARRAY_LEN(files); k++) {
    char rel[128];
    snprintf(rel, sizeof rel, "tests/io/data/%s", files[k]);
    tfs_tensor *whole = tfs_npy_read(it_src(rel), st);
    tfs_npy_reader *r = tfs_npy_reader_open(it_src(rel), st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_npy_reader_dtype(r), tfs_tensor_dtype(whole));
    CU_ASSERT_EQUAL(tfs_npy_reader_ndims(r), tfs_tensor_ndims(whole));
    int64_t rows = tfs_npy_reader_dims(r)[0];
    size_t row_bytes = tfs_tensor_byte_size(whole) / (size_t)rows;
    for (int64_t s = 0; s < rows; s++) {
      for (int64_t c = 0; s + c <= rows; c++) {
        tfs_tensor *part = tfs_npy_reader_read_rows(r, s, c, st);
        TFS_ASSERT_OK(st);
        CU_ASSERT_EQUAL(tfs_tensor_dim(part, 0), c);
        CU_ASSERT_EQUAL(
            memcmp(tfs_tensor_data(part),
                   (uint8_t *)tfs_tensor_data(whole) + s * row_bytes,
                   (size_t)c * row_bytes),
            0);
        tfs_tensor_free(part);
      }
    }
    CU_ASSERT_PTR_NULL(tfs_npy_reader_read_rows(r, rows - 1, 2, st));
    TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "are outside the file's");
    CU_ASSERT_PTR_NULL(tfs_npy_reader_read_rows(r, -1, 1, st));
    TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "rows [-1, 0)");
    tfs_npy_reader_free(r);
    tfs_tensor_free(whole);
  }
  tfs_npy_reader *r =
      tfs_npy_reader_open(it_src("tests/io/data/u64_scalar.npy"), st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NULL(tfs_npy_reader_read_rows(r, 0, 1, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "holds a scalar, which has no rows");
  tfs_npy_reader_free(r);
  CU_ASSERT_PTR_NULL(
      tfs_npy_reader_open(it_src("tests/io/data/bytes.npy"), st));
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED, "cannot be read row by row");
  tfs_npy_reader_free(NULL);
  tfs_status_free(st);
}

static void test_npy_writer_appends_rows(void) {
  tfs_status *st = tfs_status_new();
  int64_t row[] = {3};
  tfs_npy_writer *w =
      tfs_npy_writer_open(it_tmp("w.npy"), TFS_FLOAT, row, 1, st);
  TFS_ASSERT_OK(st);
  float next = 0;
  for (int b = 0; b < 3; b++) {
    int64_t dims[] = {b == 2 ? 1 : 4, 3};
    tfs_tensor *t = tfs_tensor_new(TFS_FLOAT, dims, 2, st);
    float *f = tfs_tensor_data(t);
    for (int64_t i = 0; i < dims[0] * 3; i++) f[i] = next++;
    tfs_npy_writer_append(w, t, st);
    TFS_ASSERT_OK(st);
    tfs_tensor_free(t);
  }
  CU_ASSERT_EQUAL(tfs_npy_writer_rows(w), 9);
  tfs_tensor *bad = tfs_tensor_new(TFS_FLOAT, (int64_t[]){2, 4}, 2, st);
  tfs_npy_writer_append(w, bad, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "w.npy: cannot append float [2,4] rows to a file of "
                   "float [?,3]");
  tfs_tensor_free(bad);
  bad = tfs_tensor_new(TFS_INT32, (int64_t[]){2, 3}, 2, st);
  tfs_npy_writer_append(w, bad, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "cannot append int32 [2,3] rows");
  tfs_tensor_free(bad);
  tfs_npy_writer_close(w, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *r = tfs_npy_read(it_tmp("w.npy"), st);
  TFS_ASSERT_OK(st);
  assert_shape(r, 2, (int64_t[]){9, 3});
  const float *f = tfs_tensor_data(r);
  for (int i = 0; i < 27; i++) CU_ASSERT_EQUAL(f[i], (float)i);
  tfs_tensor_free(r);

  w = tfs_npy_writer_open(it_tmp("w0.npy"), TFS_INT64, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_npy_writer_close(w, st); /* no rows at all: shape (0,) */
  r = tfs_npy_read(it_tmp("w0.npy"), st);
  TFS_ASSERT_OK(st);
  assert_shape(r, 1, (int64_t[]){0});
  tfs_tensor_free(r);

  CU_ASSERT_PTR_NULL(
      tfs_npy_writer_open(it_tmp("s.npy"), TFS_STRING, NULL, 0, st));
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED, "cannot be written row by row");
  CU_ASSERT_PTR_NULL(
      tfs_npy_writer_open(it_tmp("r.npy"), TFS_RESOURCE, NULL, 0, st));
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED, "cannot write a resource tensor");
  tfs_npy_writer_free(NULL);
  tfs_status_free(st);
}

/* ---- .npz ---------------------------------------------------------------- */

static void test_npz_reads_numpy_archives(void) {
  tfs_status *st = tfs_status_new();
  tfs_npz *z = tfs_npz_read(it_src("tests/io/data/stored.npz"), st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_npz_count(z), 2);
  CU_ASSERT_STRING_EQUAL(tfs_npz_name(z, 0), "x");
  CU_ASSERT_STRING_EQUAL(tfs_npz_name(z, 1), "y");
  CU_ASSERT_PTR_NULL(tfs_npz_name(z, 2));
  tfs_tensor *y = tfs_npz_find(z, "y");
  CU_ASSERT_PTR_NOT_NULL_FATAL(y);
  CU_ASSERT_EQUAL(((const int64_t *)tfs_tensor_data(y))[2], 3);
  CU_ASSERT_PTR_NULL(tfs_npz_find(z, "nope"));
  tfs_npz_free(z);

  z = tfs_npz_read(it_src("tests/io/data/deflated.npz"), st);
#ifdef TFS_HAVE_ZLIB
  TFS_ASSERT_OK(st);
  tfs_tensor *x = tfs_npz_find(z, "x");
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(x))[5], 1.25f);
  size_t len;
  const char *s = tfs_tensor_string_at(tfs_npz_find(z, "labels"), 1, &len);
  CU_ASSERT(len == 3 && memcmp(s, "dog", 3) == 0);
#else
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED, "has no zlib");
#endif
  tfs_npz_free(z);
  tfs_status_free(st);
}

static void test_npz_roundtrip(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *a = tfs_tensor_new(TFS_FLOAT, (int64_t[]){50, 4}, 2, st);
  tfs_tensor *b = tfs_tensor_scalar_int64(-7);
  const char *strs[] = {"x", "yy"};
  tfs_tensor *c = tfs_tensor_new_strings((int64_t[]){2}, 1, strs, NULL, st);
  const char *names[] = {"a", "b/c", "strs"};
  const tfs_tensor *ts[] = {a, b, c};
  for (int compress = 0; compress < 2; compress++) {
#ifndef TFS_HAVE_ZLIB
    if (compress) break;
#endif
    tfs_npz_write(it_tmp("rt.npz"), names, ts, 3, compress, st);
    TFS_ASSERT_OK(st);
    tfs_npz *z = tfs_npz_read(it_tmp("rt.npz"), st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_npz_count(z), 3);
    CU_ASSERT_STRING_EQUAL(tfs_npz_name(z, 1), "b/c");
    CU_ASSERT_EQUAL(tfs_tensor_byte_size(tfs_npz_tensor(z, 0)), 800);
    CU_ASSERT_EQUAL(*(const int64_t *)tfs_tensor_data(tfs_npz_find(z, "b/c")),
                    -7);
    size_t len;
    tfs_tensor_string_at(tfs_npz_find(z, "strs"), 1, &len);
    CU_ASSERT_EQUAL(len, 2);
    tfs_npz_free(z);
  }
  const char *dup[] = {"a", "a"};
  tfs_npz_write(it_tmp("dup.npz"), dup, ts, 2, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "array name 'a' appears twice");
  tfs_tensor_free(a);
  tfs_tensor_free(b);
  tfs_tensor_free(c);
  tfs_status_free(st);
}

static uint32_t zip_crc(const uint8_t *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

static void test_npz_rejects_bad_archives(void) {
  tfs_status *st = tfs_status_new();
  size_t len;
  uint8_t *z = it_read_file(it_src("tests/io/data/stored.npz"), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(z);
  it_write_file(it_tmp("bad.npz"), z, 10);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("bad.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "bad.npz: not a valid .npz (zip) archive: too short");
  it_write_file(it_tmp("bad.npz"), z, len - 30);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("bad.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "no end-of-central-directory record");
  /* A flipped byte inside the first entry's array data. */
  z[30 + 5 + 128 + 3] ^= 0x40;
  it_write_file(it_tmp("bad.npz"), z, len);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("bad.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_DATA_LOSS,
                   "bad.npz: entry 'x.npy': CRC-32 mismatch");
  free(z);
  /* An entry that is not .npy names the entry. */
  tfs_tensor *t = tfs_tensor_scalar_float(2);
  const char *names[] = {"p"};
  const tfs_tensor *ts[] = {t};
  tfs_npz_write(it_tmp("p.npz"), names, ts, 1, 0, st);
  TFS_ASSERT_OK(st);
  z = it_read_file(it_tmp("p.npz"), &len);
  memcpy(z + 30 + 5, "XXXXXX", 6); /* clobber the magic... */
  it_write_file(it_tmp("p.npz"), z, len);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("p.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_DATA_LOSS, "p.npz: entry 'p.npy': CRC-32 mismatch");
  /* ...and fix the CRCs (local header and central directory). */
  uint32_t usize = z[22] | z[23] << 8, crc = zip_crc(z + 35, usize);
  for (int k = 0; k < 4; k++) {
    z[14 + k] = (uint8_t)(crc >> (8 * k));
    z[35 + usize + 16 + k] = (uint8_t)(crc >> (8 * k));
  }
  it_write_file(it_tmp("p.npz"), z, len);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("p.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "p.npz: entry 'p.npy': not a .npy file");
  free(z);
  tfs_tensor_free(t);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("none.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "none.npz: cannot open");
  tfs_status_free(st);
}

/* A zero-width byte-string entry is refused through .npz as well. */
static void test_npz_rejects_zero_width_elements(void) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_scalar_float(2);
  const char *names[] = {"p"};
  const tfs_tensor *ts[] = {t};
  tfs_npz_write(it_tmp("s0.npz"), names, ts, 1, 0, st);
  TFS_ASSERT_OK(st);
  size_t len;
  uint8_t *z = it_read_file(it_tmp("s0.npz"), &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(z);
  /* the entry's .npy (header of 128 bytes, 4 of data) replaced by one of
   * the same size, then the CRCs fixed */
  uint32_t usize = z[22] | z[23] << 8;
  CU_ASSERT_EQUAL_FATAL(usize, 132);
  uint8_t npy[132];
  char header[119];
  snprintf(header, sizeof header, "%-117s\n",
           "{'descr': '|S0', 'fortran_order': True, "
           "'shape': (1000000000000, 2)}");
  CU_ASSERT_EQUAL_FATAL(make_npy(npy, header, 4), 132);
  memcpy(z + 35, npy, sizeof npy);
  uint32_t crc = zip_crc(z + 35, usize);
  for (int k = 0; k < 4; k++) {
    z[14 + k] = (uint8_t)(crc >> (8 * k));
    z[35 + usize + 16 + k] = (uint8_t)(crc >> (8 * k));
  }
  it_write_file(it_tmp("s0.npz"), z, len);
  free(z);
  CU_ASSERT_PTR_NULL(tfs_npz_read(it_tmp("s0.npz"), st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "s0.npz: entry 'p.npy': dtype '|S0' has elements of 0 "
                   "bytes");
  tfs_tensor_free(t);
  tfs_status_free(st);
}

/* ---- fuzzing ------------------------------------------------------------- */

/* Mutates `src` into `dst`: a truncation, or 1-4 random byte changes. */
static size_t mutate(uint8_t *dst, const uint8_t *src, size_t len,
                     uint64_t *rng) {
  memcpy(dst, src, len);
  if (it_rand(rng) % 3 == 0) return (size_t)(it_rand(rng) % (len + 1));
  int flips = 1 + (int)(it_rand(rng) % 4);
  for (int i = 0; i < flips; i++) {
    size_t at = (size_t)(it_rand(rng) % len);
    uint64_t how = it_rand(rng);
    dst[at] = how & 1 ? (uint8_t)(dst[at] ^ (1u << (how >> 1) % 8))
                      : (uint8_t)(how >> 8);
  }
  return len;
}

static void check_outcome(tfs_tensor *t, tfs_status *st, const char *name) {
  if (t) {
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_OK);
    tfs_tensor_free(t);
  } else {
    CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), name));
  }
}

static void test_npy_fuzz_truncations_and_flips(void) {
  static const char *files[] = {"f32_c.npy", "f64_be.npy", "i32_fortran.npy",
                                "bytes.npy", "v2.npy",     "c64_be.npy"};
  tfs_status *st = tfs_status_new();
  uint64_t rng = 12345;
  for (size_t k = 0; k < TFS_ARRAY_LEN(files); k++) {
    char rel[128];
    snprintf(rel, sizeof rel, "tests/io/data/%s", files[k]);
    size_t len;
    uint8_t *src = it_read_file(it_src(rel), &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    uint8_t *buf = malloc(len);
    for (int it = 0; it < 3000; it++) {
      size_t n = mutate(buf, src, len, &rng);
      tfs_tensor *t = tfs_npy_read_buffer(buf, n, "fuzz.npy", st);
      check_outcome(t, st, "fuzz.npy");
      if (it % 100 == 0) { /* and through the file reader */
        it_write_file(it_tmp("fuzz.npy"), buf, n);
        check_outcome(tfs_npy_read(it_tmp("fuzz.npy"), st), st, "fuzz.npy");
      }
    }
    free(buf);
    free(src);
  }
  tfs_status_free(st);
}

static void test_npz_fuzz_truncations_and_flips(void) {
  static const char *files[] = {"stored.npz", "deflated.npz"};
  tfs_status *st = tfs_status_new();
  uint64_t rng = 777;
  for (size_t k = 0; k < TFS_ARRAY_LEN(files); k++) {
    char rel[128];
    snprintf(rel, sizeof rel, "tests/io/data/%s", files[k]);
    size_t len;
    uint8_t *src = it_read_file(it_src(rel), &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    uint8_t *buf = malloc(len);
    for (int it = 0; it < 600; it++) {
      size_t n = mutate(buf, src, len, &rng);
      it_write_file(it_tmp("fuzz.npz"), buf, n);
      tfs_npz *z = tfs_npz_read(it_tmp("fuzz.npz"), st);
      if (z) {
        CU_ASSERT_EQUAL(tfs_status_code(st), TFS_OK);
        tfs_npz_free(z);
      } else {
        CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(st), "fuzz.npz"));
      }
    }
    free(buf);
    free(src);
  }
  tfs_status_free(st);
}

/* Every allocation of a read and a write fails in turn: no crash, no leak
 * (the sanitizer build checks), and RESOURCE_EXHAUSTED reported. */
static void test_npy_survives_failed_allocations(void) {
  tfs_status *st = tfs_status_new();
  char path[4096], npz[4096];
  snprintf(path, sizeof path, "%s", it_src("tests/io/data/i16_be_fortran.npy"));
  snprintf(npz, sizeof npz, "%s", it_src("tests/io/data/stored.npz"));
  for (long n = 1; n < 40; n++) {
    tfs_alloc_fail_at(n);
    tfs_tensor *t = tfs_npy_read(path, st);
    tfs_alloc_fail_at(0);
    if (!t) TFS_ASSERT_ERROR(st, TFS_RESOURCE_EXHAUSTED, "");
    tfs_tensor_free(t);
    tfs_alloc_fail_at(n);
    tfs_npz *z = tfs_npz_read(npz, st);
    tfs_alloc_fail_at(0);
    if (!z) CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
    tfs_npz_free(z);
  }
  tfs_status_free(st);
}

static const tfs_test_case npy_cases[] = {
    {"reads_numpy_float_files", test_npy_reads_numpy_float_files},
    {"reads_numpy_fortran_order", test_npy_reads_numpy_fortran_order},
    {"reads_numpy_other_dtypes", test_npy_reads_numpy_other_dtypes},
    {"roundtrip_every_dtype", test_npy_roundtrip_every_dtype},
    {"writes_numpys_header_text", test_npy_writes_numpys_header_text},
    {"roundtrip_strings_and_scalars", test_npy_roundtrip_strings_and_scalars},
    {"accepts_header_variants", test_npy_accepts_header_variants},
    {"rejects_bad_headers", test_npy_rejects_bad_headers},
    {"rejects_bad_files", test_npy_rejects_bad_files},
    {"rejects_zero_width_elements", test_npy_rejects_zero_width_elements},
    {"sizes_checked_with_zero_dims", test_npy_sizes_checked_with_zero_dims},
    {"reader_reads_row_ranges", test_npy_reader_reads_row_ranges},
    {"writer_appends_rows", test_npy_writer_appends_rows},
    {"fuzz_truncations_and_flips", test_npy_fuzz_truncations_and_flips},
    {"survives_failed_allocations", test_npy_survives_failed_allocations},
    {NULL, NULL}};

static const tfs_test_case npz_cases[] = {
    {"reads_numpy_archives", test_npz_reads_numpy_archives},
    {"roundtrip", test_npz_roundtrip},
    {"rejects_bad_archives", test_npz_rejects_bad_archives},
    {"rejects_zero_width_elements", test_npz_rejects_zero_width_elements},
    {"fuzz_truncations_and_flips", test_npz_fuzz_truncations_and_flips},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"npy", npy_cases}, {"npz", npz_cases}, {NULL, NULL}};

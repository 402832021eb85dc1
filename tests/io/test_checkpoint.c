/*
 * tests/io/test_checkpoint.c - V2 checkpoints (tfsess/checkpoint.h)
 * against the ones TensorFlow 2.21 wrote in tests/data/checkpoints
 * (scripts/fixtures/gen_checkpoints.py): every dtype's values, an index
 * of several blocks, partitioned variables assembled from their slices,
 * an object-based checkpoint; tfsess's writer reproducing TensorFlow's
 * files byte for byte; round trips; and corrupt, truncated and missing
 * files, each with TensorFlow's message.
 */
#include <stdlib.h>
#include <string.h>

#include "iotest.h"
#include "io/tensor_bundle.h"
#include "testutil.h"

/* tests/data/checkpoints/NAME/FILE */
static const char *fixture(const char *name, const char *file) {
  static char buf[4096];
  char rel[256];
  snprintf(rel, sizeof rel, "tests/data/checkpoints/%s/%s", name, file);
  snprintf(buf, sizeof buf, "%s", it_src(rel));
  return buf;
}

static const char *ckpt(const char *name) { return fixture(name, "ckpt"); }
static const char *values(const char *name) {
  return fixture(name, "values.npz");
}

/* bfloat16 bits to float */
static float bf16(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Compares t with the .npz's value: same shape, same bytes (strings
 * element by element; bfloat16 against its float value). */
static int same(const tfs_tensor *t, const tfs_tensor *want) {
  if (tfs_tensor_ndims(t) != tfs_tensor_ndims(want)) return 0;
  for (int i = 0; i < tfs_tensor_ndims(t); i++)
    if (tfs_tensor_dim(t, i) != tfs_tensor_dim(want, i)) return 0;
  int64_t n = tfs_tensor_num_elements(t);
  if (tfs_tensor_dtype(t) == TFS_BFLOAT16) {
    const uint16_t *a = tfs_tensor_data(t);
    const float *b = tfs_tensor_data(want);
    for (int64_t i = 0; i < n; i++)
      if (bf16(a[i]) != b[i]) return 0;
    return 1;
  }
  if (tfs_tensor_dtype(t) != tfs_tensor_dtype(want)) return 0;
  if (tfs_tensor_dtype(t) == TFS_STRING) {
    for (int64_t i = 0; i < n; i++) {
      size_t la, lb;
      const char *a = tfs_tensor_string_at(t, i, &la);
      const char *b = tfs_tensor_string_at(want, i, &lb);
      if (la != lb || memcmp(a, b, la)) return 0;
    }
    return 1;
  }
  return memcmp(tfs_tensor_data(t), tfs_tensor_data(want),
                tfs_tensor_byte_size(t)) == 0;
}

/* Every tensor of the .npz is in the checkpoint with its value. */
static void check_values(const char *name, int count) {
  tfs_status *st = tfs_status_new();
  tfs_bundle_reader *r = tfs_bundle_reader_open(ckpt(name), st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_bundle_reader_count(r), count);
  tfs_npz *z = tfs_npz_read(values(name), st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < tfs_npz_count(z); i++) {
    char key[256];
    snprintf(key, sizeof key, "%s", tfs_npz_name(z, i));
    char *dot = strstr(key, ".bf16");
    if (dot) *dot = 0;
    tfs_tensor *t = tfs_bundle_reader_read(r, key, st);
    TFS_ASSERT_OK(st);
    int ok = same(t, tfs_npz_tensor(z, i));
    if (!ok) fprintf(stderr, "\n  %s: %s differs\n", name, key);
    CU_ASSERT(ok);
    int k = tfs_bundle_reader_find(r, key);
    CU_ASSERT(k >= 0);
    CU_ASSERT_EQUAL(tfs_bundle_reader_dtype(r, k), tfs_tensor_dtype(t));
    CU_ASSERT_EQUAL(tfs_bundle_reader_shape(r, k, NULL), tfs_tensor_ndims(t));
    tfs_tensor_free(t);
  }
  tfs_npz_free(z);
  tfs_bundle_reader_free(r);
  tfs_status_free(st);
}

static void test_read_mixed(void) { check_values("mixed", 21); }
static void test_read_many_blocks(void) { check_values("many", 3000); }
static void test_read_partitioned(void) { check_values("partitioned", 3); }
static void test_read_object_based(void) { check_values("object", 3); }

/* Empty tensors take no bytes: one at the offset of the next tensor
 * was written before it. */
static int64_t data_order(const tfs_bundle_reader *r, int i) {
  const int64_t *dims;
  int nd = tfs_bundle_reader_shape(r, i, &dims);
  int64_t n = 1;
  for (int d = 0; d < nd; d++) n *= dims[d];
  return 2 * tfs_bundle__offset(r, i) + (n != 0);
}

/* Rewrites a TensorFlow checkpoint with tfsess's writer, in the order of
 * its data file, and compares both files byte for byte. */
static void rewrite_same_bytes(const char *name) {
  tfs_status *st = tfs_status_new();
  tfs_bundle_reader *r = tfs_bundle_reader_open(ckpt(name), st);
  TFS_ASSERT_OK(st);
  int n = tfs_bundle_reader_count(r);
  int *order = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++) /* insertion sort by offset */
    for (int j = i; j > 0 && data_order(r, order[j - 1]) >
                                 data_order(r, order[j]);
         j--) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  const char *out = it_tmp(name);
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s", out);
  tfs_bundle_writer *w = tfs_bundle_writer_open(prefix, st);
  TFS_ASSERT_OK(st);
  for (int i = 0; i < n; i++) {
    const char *key = tfs_bundle_reader_name(r, order[i]);
    tfs_tensor *t = tfs_bundle_reader_read(r, key, st);
    TFS_ASSERT_OK(st);
    tfs_bundle_writer_add(w, key, t, st);
    TFS_ASSERT_OK(st);
    tfs_tensor_free(t);
  }
  tfs_bundle_writer_finish(w, st);
  TFS_ASSERT_OK(st);
  tfs_bundle_writer_free(w);
  const char *suffix[] = {".index", ".data-00000-of-00001"};
  for (int k = 0; k < 2; k++) {
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s%s", ckpt(name), suffix[k]);
    snprintf(b, sizeof b, "%s%s", prefix, suffix[k]);
    size_t la, lb;
    uint8_t *da = it_read_file(a, &la), *db = it_read_file(b, &lb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(da);
    CU_ASSERT_PTR_NOT_NULL_FATAL(db);
    int ok = la == lb && memcmp(da, db, la) == 0;
    if (!ok)
      fprintf(stderr, "\n  %s%s: %zu bytes written, TensorFlow wrote %zu\n",
              name, suffix[k], lb, la);
    CU_ASSERT(ok);
    free(da);
    free(db);
  }
  free(order);
  tfs_bundle_reader_free(r);
  tfs_status_free(st);
}

static void test_write_mixed_bytes(void) { rewrite_same_bytes("mixed"); }
static void test_write_many_bytes(void) { rewrite_same_bytes("many"); }
static void test_write_object_bytes(void) { rewrite_same_bytes("object"); }

/* Writes, reads back; the data of a failed writer never replaces a
 * checkpoint. */
static void test_round_trip_and_errors(void) {
  tfs_status *st = tfs_status_new();
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s", it_tmp("rt"));
  tfs_bundle_writer *w = tfs_bundle_writer_open(prefix, st);
  TFS_ASSERT_OK(st);
  int64_t dims[2] = {2, 3};
  float v[6] = {1, 2, 3, 4, 5, 6};
  tfs_tensor *a = tfs_tensor_new_copy(TFS_FLOAT, dims, 2, v, sizeof v, st);
  const char *strs[3] = {"x", "", "yz"};
  tfs_tensor *s = tfs_tensor_new_strings(dims + 1, 1, strs, NULL, st);
  tfs_bundle_writer_add(w, "b", a, st);
  tfs_bundle_writer_add(w, "a", s, st);
  TFS_ASSERT_OK(st);
  tfs_bundle_writer_add(w, "b", a, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Adding duplicate key: b");
  tfs_status_clear(st);
  tfs_bundle_writer_finish(w, st);
  TFS_ASSERT_OK(st);
  tfs_bundle_writer_free(w);

  tfs_bundle_reader *r = tfs_bundle_reader_open(prefix, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_bundle_reader_count(r), 2);
  CU_ASSERT_STRING_EQUAL(tfs_bundle_reader_name(r, 0), "a");
  tfs_tensor *b = tfs_bundle_reader_read(r, "b", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT(same(b, a));
  tfs_tensor_free(b);
  b = tfs_bundle_reader_read(r, "a", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT(same(b, s));
  tfs_tensor_free(b);
  CU_ASSERT_PTR_NULL(tfs_bundle_reader_read(r, "nope", st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "Key nope not found in checkpoint");
  tfs_status_clear(st);
  tfs_bundle_reader_free(r);

  /* an abandoned writer leaves the checkpoint as it was */
  w = tfs_bundle_writer_open(prefix, st);
  tfs_bundle_writer_add(w, "c", a, st);
  tfs_bundle_writer_free(w);
  r = tfs_bundle_reader_open(prefix, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_bundle_reader_find(r, "c"), -1);
  tfs_bundle_reader_free(r);
  tfs_tensor_free(a);
  tfs_tensor_free(s);
  tfs_status_free(st);
}

/* Copies a fixture checkpoint to the scratch directory with byte `at` of
 * one of its files (".index" or ".data-00000-of-00001") xored (at >= 0;
 * -2: the last byte), and that file cut to `cut` bytes (cut >= 0). */
static const char *damaged(const char *file, long at, long cut) {
  static char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s", it_tmp("damaged"));
  const char *suffix[] = {".index", ".data-00000-of-00001"};
  for (int k = 0; k < 2; k++) {
    char src[4200], dst[4200];
    snprintf(src, sizeof src, "%s%s", ckpt("mixed"), suffix[k]);
    snprintf(dst, sizeof dst, "%s%s", prefix, suffix[k]);
    size_t n;
    uint8_t *d = it_read_file(src, &n);
    if (!strcmp(suffix[k], file)) {
      if (at >= 0 || at == -2) d[at == -2 ? (long)n - 1 : at] ^= 0x40;
      if (cut >= 0) n = (size_t)cut;
    }
    it_write_file(dst, d, n);
    free(d);
  }
  return prefix;
}

static void expect_open_error(const char *prefix, tfs_code code,
                              const char *text) {
  tfs_status *st = tfs_status_new();
  CU_ASSERT_PTR_NULL(tfs_bundle_reader_open(prefix, st));
  TFS_ASSERT_ERROR(st, code, text);
  tfs_status_free(st);
}

static void test_damaged_files(void) {
  expect_open_error(it_tmp("no_such"), TFS_NOT_FOUND,
                    "Unsuccessful TensorSliceReader constructor: Failed to "
                    "find any matching files for ");
  expect_open_error(damaged(".index", -2, -1), TFS_DATA_LOSS,
                    "not an sstable (bad magic number)");
  expect_open_error(damaged(".index", -1, 20), TFS_DATA_LOSS,
                    "file is too short to be an sstable");
  expect_open_error(damaged(".index", 5, -1), TFS_DATA_LOSS,
                    "block checksum mismatch");
  /* a flipped data byte: the index opens, the tensor's CRC fails */
  size_t n;
  char idx[4200];
  snprintf(idx, sizeof idx, "%s.index", ckpt("mixed"));
  free(it_read_file(idx, &n));
  tfs_status *st = tfs_status_new();
  for (long at = 0; at < 669; at += 37) {
    tfs_bundle_reader *r =
        tfs_bundle_reader_open(damaged(".data-00000-of-00001", at, -1), st);
    TFS_ASSERT_OK(st);
    int bad = 0;
    for (int i = 0; i < tfs_bundle_reader_count(r); i++) {
      tfs_tensor *t = tfs_bundle_reader_read(r, tfs_bundle_reader_name(r, i),
                                             st);
      if (!t) {
        bad++;
        CU_ASSERT_EQUAL(tfs_status_code(st), TFS_DATA_LOSS);
        CU_ASSERT(strstr(tfs_status_message(st), "Checksum does not match") ||
                  strstr(tfs_status_message(st), "corrupt string tensor"));
        tfs_status_clear(st);
      }
      tfs_tensor_free(t);
    }
    CU_ASSERT_EQUAL(bad, 1);
    tfs_bundle_reader_free(r);
  }
  /* a data file cut short */
  tfs_bundle_reader *r =
      tfs_bundle_reader_open(damaged(".data-00000-of-00001", -1, 100), st);
  TFS_ASSERT_OK(st);
  int truncated = 0;
  for (int i = 0; i < tfs_bundle_reader_count(r); i++) {
    tfs_tensor *t = tfs_bundle_reader_read(r, tfs_bundle_reader_name(r, i), st);
    if (!t) {
      truncated += strstr(tfs_status_message(st), "truncated") != NULL;
      tfs_status_clear(st);
    }
    tfs_tensor_free(t);
  }
  CU_ASSERT(truncated > 0);
  tfs_bundle_reader_free(r);
  tfs_status_free(st);
}

/* Every byte of a small index flipped in turn: an error or a checkpoint
 * that reads, never a crash. */
static void test_every_index_byte(void) {
  char idx[4200];
  snprintf(idx, sizeof idx, "%s.index", ckpt("object"));
  size_t n;
  uint8_t *orig = it_read_file(idx, &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(orig);
  char prefix[4096], path[4200];
  snprintf(prefix, sizeof prefix, "%s", it_tmp("flip"));
  snprintf(path, sizeof path, "%s.index", prefix);
  tfs_status *st = tfs_status_new();
  for (size_t at = 0; at < n; at++) {
    orig[at] ^= 0x81;
    it_write_file(path, orig, n);
    orig[at] ^= 0x81;
    tfs_bundle_reader *r = tfs_bundle_reader_open(prefix, st);
    CU_ASSERT(r != NULL || tfs_status_code(st) != TFS_OK);
    tfs_status_clear(st);
    tfs_bundle_reader_free(r);
  }
  tfs_status_free(st);
  free(orig);
}

static void test_slice_keys(void) {
  /* OrderedCode of (0, "w", rank 2, 0, -1, 3, 2): as TensorFlow writes
   * the key of w's slice [:, 3:5] */
  uint8_t key[64];
  int64_t start[2] = {0, 3}, len[2] = {-1, 2};
  size_t n = tfs_bundle__slice_key("w", 2, start, len, key, sizeof key);
  const uint8_t want[] = {0x00, 'w', 0x00, 0x01, 0x01, 0x02,
                          0x80, 0x7f, 0x83, 0x82};
  CU_ASSERT_EQUAL(n, sizeof want);
  CU_ASSERT(n == sizeof want && memcmp(key, want, n) == 0);
  /* values of two and more bytes */
  int64_t s2[1] = {1000}, l2[1] = {-100000};
  n = tfs_bundle__slice_key("", 1, s2, l2, key, sizeof key);
  const uint8_t want2[] = {0x00, 0x00, 0x01, 0x01, 0x01,
                           0xc3, 0xe8, 0x1e, 0x79, 0x60};
  CU_ASSERT_EQUAL(n, sizeof want2);
  CU_ASSERT(n == sizeof want2 && memcmp(key, want2, n) == 0);
}

static const tfs_test_case kCases[] = {
    {"read_mixed", test_read_mixed},
    {"read_many_blocks", test_read_many_blocks},
    {"read_partitioned", test_read_partitioned},
    {"read_object_based", test_read_object_based},
    {"write_mixed_bytes", test_write_mixed_bytes},
    {"write_many_bytes", test_write_many_bytes},
    {"write_object_bytes", test_write_object_bytes},
    {"round_trip_and_errors", test_round_trip_and_errors},
    {"damaged_files", test_damaged_files},
    {"every_index_byte", test_every_index_byte},
    {"slice_keys", test_slice_keys},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"checkpoint", kCases},
    {NULL, NULL},
};

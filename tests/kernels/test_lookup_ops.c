/*
 * tests/kernels/test_lookup_ops.c - lookup tables and string hash buckets
 * on hostile input: a vocabulary size far beyond the file, delimiters of
 * other lengths, lines and fields too long for any number, a directory or
 * a missing file as the vocabulary, integer fields out of range, bucket
 * counts of 0 and of 2^63 - 1, a SipHash key of the wrong length; the
 * hashes against their published test values; and ScaleAndTranslate
 * (the resampler of tf.image.resize with antialias) asked for outputs of
 * 2^31 - 1 squared pixels, scales of 1e-30 and infinity, NaN
 * translations.  Each must give a bounded
 * result or TensorFlow's error, never an abort or an out-of-bounds
 * access.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "arraytest.h"
#include "backends/cpu/string_hash.h"

/* ---- the hashes -------------------------------------------------------- */

static void test_hash_vectors(void) {
  /* FarmHash: the empty string hashes to its k2 constant */
  CU_ASSERT_EQUAL(tfs_farmhash_fingerprint64("", 0), 0x9ae16a3b2f90404fULL);
  /* SipHash-2-4's reference vector: key 00..0f, message 00..0e */
  char msg[15];
  for (int i = 0; i < 15; i++) msg[i] = (char)i;
  uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
  CU_ASSERT_EQUAL(tfs_siphash24(k0, k1, msg, 15), 0xa129ca6149be45e5ULL);
  CU_ASSERT_EQUAL(tfs_siphash24(k0, k1, msg, 0), 0x726fdb47dd0e0e31ULL);
}

static void test_bucket_counts(void) {
  const char *s[] = {"a", "", "longer string"};
  at_attr zero[] = {AT_INT("num_buckets", 0), {NULL, 0, 0, NULL, NULL, 0, 0}};
  at_call c0 = {"StringToHashBucketFast", zero, 0, 0, NULL};
  tfs_tensor *in0[] = {at_strs(1, D(3), s)};
  at_expect_error(&c0, in0, 1, TFS_INVALID_ARGUMENT, "num_buckets");

  at_attr big[] = {AT_INT("num_buckets", INT64_MAX),
                   {NULL, 0, 0, NULL, NULL, 0, 0}};
  at_call c1 = {"StringToHashBucketFast", big, 0, 0, NULL};
  tfs_tensor *in1[] = {at_strs(1, D(3), s)};
  tfs_tensor *o = at_eval(&c1, in1, 1);
  CU_ASSERT_PTR_NOT_NULL(o);
  if (o) {
    const int64_t *v = tfs_tensor_data(o);
    for (int i = 0; i < 3; i++) CU_ASSERT_TRUE(v[i] >= 0);
    /* the empty string: k2 modulo 2^63 - 1 */
    CU_ASSERT_EQUAL((uint64_t)v[1], 0x9ae16a3b2f90404fULL % INT64_MAX);
  }
  tfs_tensor_free(o);

  at_attr key1[] = {AT_INT("num_buckets", 3), AT_LIST("key", 1, 5),
                    {NULL, 0, 0, NULL, NULL, 0, 0}};
  at_call c2 = {"StringToHashBucketStrong", key1, 0, 0, NULL};
  tfs_tensor *in2[] = {at_strs(1, D(3), s)};
  at_expect_error(&c2, in2, 1, TFS_INVALID_ARGUMENT,
                  "Key must have 2 elements");
}

/* ---- text-file tables -------------------------------------------------- */

typedef struct {
  tfs_graph *g;
  tfs_session *s;
  tfs_output path, keys, find;
  tfs_operation *init;
} text_graph;

static tfs_output out0(tfs_operation *op) {
  tfs_output o = {op, 0};
  return o;
}

static tfs_operation *placeholder(tfs_graph *g, const char *name,
                                  tfs_dtype dt, tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", name);
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  return tfs_op_desc_finish(d, st);
}

/* HashTableV2 (kdt -> vdt) filled from the file fed to "path"; "out"
 * looks up "keys" (default 0 / ""). */
static int text_graph_new(text_graph *t, tfs_dtype kdt, tfs_dtype vdt,
                          int64_t ki, int64_t vi, int64_t vocab_size,
                          const char *delim, size_t dlen) {
  tfs_status *st = tfs_status_new();
  memset(t, 0, sizeof *t);
  t->g = tfs_graph_new();
  tfs_op_desc *d = tfs_op_desc_new(t->g, "HashTableV2", "T");
  tfs_op_desc_set_attr_type(d, "key_dtype", kdt);
  tfs_op_desc_set_attr_type(d, "value_dtype", vdt);
  tfs_operation *table = tfs_op_desc_finish(d, st);
  t->path = out0(placeholder(t->g, "path", TFS_STRING, st));
  t->keys = out0(placeholder(t->g, "keys", kdt, st));
  d = tfs_op_desc_new(t->g, "InitializeTableFromTextFileV2", "init");
  tfs_op_desc_add_input(d, out0(table));
  tfs_op_desc_add_input(d, t->path);
  tfs_op_desc_set_attr_int(d, "key_index", ki);
  tfs_op_desc_set_attr_int(d, "value_index", vi);
  tfs_op_desc_set_attr_int(d, "vocab_size", vocab_size);
  tfs_op_desc_set_attr_string(d, "delimiter", delim, dlen);
  t->init = tfs_op_desc_finish(d, st);
  tfs_tensor *def = tfs_tensor_new(vdt, NULL, 0, st); /* 0 or "" */
  d = tfs_op_desc_new(t->g, "Const", "default");
  tfs_op_desc_set_attr_tensor(d, "value", def, st);
  tfs_op_desc_set_attr_type(d, "dtype", vdt);
  tfs_operation *dop = tfs_op_desc_finish(d, st);
  tfs_tensor_free(def);
  d = tfs_op_desc_new(t->g, "LookupTableFindV2", "out");
  tfs_op_desc_add_input(d, out0(table));
  tfs_op_desc_add_input(d, t->keys);
  tfs_op_desc_add_input(d, out0(dop));
  t->find = out0(tfs_op_desc_finish(d, st));
  if (tfs_status_ok(st)) t->s = tfs_session_new(t->g, NULL, st);
  int ok = tfs_status_ok(st);
  if (!ok) fprintf(stderr, "\n  graph: %s\n", tfs_status_message(st));
  tfs_status_free(st);
  return ok ? 0 : -1;
}

static void text_graph_free(text_graph *t) {
  tfs_session_free(t->s);
  tfs_graph_free(t->g);
}

/* Runs the initializer on `file`; its status in st. */
static void run_init(text_graph *t, const char *file, tfs_status *st) {
  tfs_tensor *p = tfs_tensor_scalar_string(file, strlen(file));
  tfs_session_run(t->s, &t->path, &p, 1, NULL, NULL, 0, &t->init, 1, st);
  tfs_tensor_free(p);
}

static char g_file[64];

static const char *write_file(const char *data, size_t len) {
  snprintf(g_file, sizeof g_file, "/tmp/tfs_vocab_XXXXXX");
  int fd = mkstemp(g_file);
  if (fd < 0) return NULL;
  ssize_t n = write(fd, data, len);
  close(fd);
  return n == (ssize_t)len ? g_file : NULL;
}

static void expect_init(tfs_dtype kdt, tfs_dtype vdt, int64_t ki, int64_t vi,
                        int64_t vocab, const char *delim, const char *data,
                        size_t len, tfs_code code, const char *needle) {
  text_graph t;
  if (text_graph_new(&t, kdt, vdt, ki, vi, vocab, delim, strlen(delim))) {
    CU_FAIL("graph");
    text_graph_free(&t);
    return;
  }
  const char *f = data ? write_file(data, len) : "/nonexistent/vocab.txt";
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  tfs_status *st = tfs_status_new();
  run_init(&t, f, st);
  if (code == TFS_OK) {
    if (!tfs_status_ok(st))
      fprintf(stderr, "\n  init: %s\n", tfs_status_message(st));
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_OK);
  } else {
    TFS_ASSERT_ERROR(st, code, needle);
  }
  tfs_status_free(st);
  if (data) unlink(f);
  text_graph_free(&t);
}

static void test_text_huge_vocab_size(void) {
  const char v[] = "a\nb\nc\n";
  expect_init(TFS_STRING, TFS_INT64, -2, -1, INT64_MAX, "\t", v,
              sizeof v - 1, TFS_INVALID_ARGUMENT,
              ": expected 9223372036854775807 but got 3");
}

static void test_text_bad_delimiters(void) {
  const char v[] = "a\nb\n";
  expect_init(TFS_STRING, TFS_INT64, -2, -1, -1, "", v, sizeof v - 1,
              TFS_INVALID_ARGUMENT, "delimiter should be only 1 char");
  expect_init(TFS_STRING, TFS_INT64, -2, -1, -1, "\t\t", v, sizeof v - 1,
              TFS_INVALID_ARGUMENT, "delimiter should be only 1 char");
  /* a delimiter the file never holds: one column */
  expect_init(TFS_STRING, TFS_INT64, 0, 1, -1, "|", v, sizeof v - 1,
              TFS_INVALID_ARGUMENT, ": expected at least 2 got 1");
}

static void test_text_long_lines(void) {
  size_t n = 1 << 20;
  char *big = malloc(n + 8);
  CU_ASSERT_PTR_NOT_NULL_FATAL(big);
  memset(big, '7', n);
  memcpy(big + n, "\nx\n", 3);
  /* a megabyte key is fine; a megabyte of digits is no int64 */
  expect_init(TFS_STRING, TFS_INT64, -2, -1, -1, "\t", big, n + 3, TFS_OK,
              NULL);
  expect_init(TFS_INT64, TFS_INT64, -2, -1, -1, "\t", big, n + 3,
              TFS_INVALID_ARGUMENT, "in line 0 is not a valid int64.");
  free(big);
  const char v[] = "x\t99999999999\n";
  expect_init(TFS_STRING, TFS_INT32, 0, 1, -1, "\t", v, sizeof v - 1,
              TFS_INVALID_ARGUMENT,
              "Field 99999999999 in line 0 is not a valid int32.");
  const char w[] = "x\t1e999999\n";
  expect_init(TFS_STRING, TFS_FLOAT, 0, 1, -1, "\t", w, sizeof w - 1, TFS_OK,
              NULL);
}

static void test_text_bad_files(void) {
  expect_init(TFS_STRING, TFS_INT64, -2, -1, -1, "\t", NULL, 0,
              TFS_NOT_FOUND, "No such file or directory");
  const char nul[] = "a\0b\nc\n";
  expect_init(TFS_STRING, TFS_INT64, -2, -1, -1, "\t", nul, sizeof nul - 1,
              TFS_OK, NULL);
  /* a directory reads as nothing */
  text_graph t;
  if (text_graph_new(&t, TFS_STRING, TFS_INT64, -2, -1, -1, "\t", 1) == 0) {
    tfs_status *st = tfs_status_new();
    run_init(&t, "/tmp", st);
    CU_ASSERT_NOT_EQUAL(tfs_status_code(st), TFS_OK);
    tfs_status_free(st);
  }
  text_graph_free(&t);
}

/* A lookup before and after a failed initialisation. */
static void test_find_after_failed_init(void) {
  text_graph t;
  if (text_graph_new(&t, TFS_STRING, TFS_INT64, 0, 1, -1, "\t", 1)) {
    text_graph_free(&t);
    CU_FAIL("graph");
    return;
  }
  const char v[] = "a\t1\nb\tx\n";
  const char *f = write_file(v, sizeof v - 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  tfs_status *st = tfs_status_new();
  run_init(&t, f, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Field x in line 1");
  const char *k[] = {"a"};
  tfs_tensor *keys = at_strs(1, D(1), k), *out = NULL;
  tfs_session_run(t.s, &t.keys, &keys, 1, &t.find, &out, 1, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION, "Table not initialized.");
  tfs_tensor_free(out);
  tfs_tensor_free(keys);
  tfs_status_free(st);
  unlink(f);
  text_graph_free(&t);
}

/* ---- ScaleAndTranslate ------------------------------------------------ */

static tfs_code scale_run(int32_t h, int32_t w, float s0, float s1, float t0,
                          float t1, tfs_tensor **out) {
  at_attr attrs[] = {AT_STR("kernel_type", "lanczos5"),
                     {NULL, 0, 0, NULL, NULL, 0, 0}};
  at_call c = {"ScaleAndTranslate", attrs, 0, 0, NULL};
  float img[2 * 3 * 2];
  for (int i = 0; i < 12; i++) img[i] = (float)i;
  tfs_tensor *in[] = {at_f32(4, D(1, 2, 3, 2), img),
                      at_i32(1, D(2), I32(h, w)), at_f32(1, D(2), F32(s0, s1)),
                      at_f32(1, D(2), F32(t0, t1))};
  tfs_code code = at_run(&c, in, 4, out, 1);
  at_free(in, 4);
  return code;
}

static void test_scale_hostile(void) {
  tfs_tensor *o = NULL;
  /* (2^31 - 1)^2 pixels: refused, not allocated */
  CU_ASSERT_NOT_EQUAL(scale_run(INT32_MAX, INT32_MAX, 1, 1, 0, 0, &o),
                      TFS_OK);
  tfs_tensor_free(o);
  o = NULL;
  /* a kernel stretched 1e30 times: spans bounded by the input */
  CU_ASSERT_EQUAL(scale_run(3, 2, 1e-30f, 1e-30f, 0, 0, &o), TFS_OK);
  tfs_tensor_free(o);
  o = NULL;
  /* NaN and infinite translations sample nothing: zeros */
  CU_ASSERT_EQUAL(scale_run(3, 2, INFINITY, 2, NAN, INFINITY, &o), TFS_OK);
  CU_ASSERT_EQUAL(o ? tfs_tensor_num_elements(o) : 0, 12);
  for (int64_t i = 0; o && i < tfs_tensor_num_elements(o); i++)
    CU_ASSERT_EQUAL(((const float *)tfs_tensor_data(o))[i], 0.0f);
  tfs_tensor_free(o);
}

static const tfs_test_case kCases[] = {
    {"hash_vectors", test_hash_vectors},
    {"bucket_counts", test_bucket_counts},
    {"text_huge_vocab_size", test_text_huge_vocab_size},
    {"text_bad_delimiters", test_text_bad_delimiters},
    {"text_long_lines", test_text_long_lines},
    {"text_bad_files", test_text_bad_files},
    {"find_after_failed_init", test_find_after_failed_init},
    {"scale_hostile", test_scale_hostile},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"lookup_ops", kCases},
    {NULL, NULL},
};

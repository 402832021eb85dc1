/*
 * tests/kernels/test_example_proto.c - the tf.Example wire decoder of
 * the ParseExample kernels on hostile bytes: every prefix of a valid
 * Example, every byte of it replaced by values that change wire types,
 * lengths and varint continuation, varints of 11 bytes, lengths near
 * 2^32 and groups.  Each must decode or be refused, never read outside
 * the buffer (the sanitizer build checks), and never report more values
 * than its bytes can hold.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "backends/cpu/example_proto.h"

/* x: float_list [1, 2] packed, i: int64_list [5, -1] packed, s:
 * bytes_list ["ab", ""]. */
static const uint8_t kValid[] = {
    0x0a, 0x38,                                     /* features */
    0x0a, 0x11, 0x0a, 0x01, 'x', 0x12, 0x0c,        /* entry x */
    0x12, 0x0a, 0x0a, 0x08, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00,
    0x40,
    0x0a, 0x14, 0x0a, 0x01, 'i', 0x12, 0x0f,        /* entry i */
    0x1a, 0x0d, 0x0a, 0x0b, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0x01,
    0x0a, 0x0d, 0x0a, 0x01, 's', 0x12, 0x08,        /* entry s */
    0x0a, 0x06, 0x0a, 0x02, 'a', 'b', 0x0a, 0x00,
};

/* Decodes every list of p[0..n) into a growing and a fixed sink;
 * returns the parse result (0 or 1). */
static int decode_all(const uint8_t *p, size_t n) {
  tfs_ex_entries e = {0};
  int rc = tfs_ex_parse(p, n, &e);
  CU_ASSERT(rc == 0 || rc == 1);
  for (size_t k = 0; rc == 0 && k < e.n; k++) {
    const tfs_ex_entry *x = &e.v[k];
    CU_ASSERT(x->klen <= n && x->flen <= n);
    if (x->klen) CU_ASSERT(x->key >= (const char *)p &&
                           x->key + x->klen <= (const char *)p + n);
    if (x->flen) CU_ASSERT(x->feat >= p && x->feat + x->flen <= p + n);
    tfs_dtype dt;
    if (tfs_ex_feature_dtype(x->feat, x->flen, &dt) || dt == TFS_INVALID)
      continue;
    tfs_ex_sink grow = {.growing = 1};
    int r = tfs_ex_read_list(x->feat, x->flen, dt, &grow);
    CU_ASSERT(r == 0 || r == 1);
    if (r == 0) CU_ASSERT(grow.len <= x->flen);
    free(grow.data);
    int64_t buf[4];
    tfs_ex_str sbuf[4];
    tfs_ex_sink fixed = {.data = dt == TFS_STRING ? (void *)sbuf
                                                  : (void *)buf,
                         .cap = 2};
    r = tfs_ex_read_list(x->feat, x->flen, dt, &fixed);
    CU_ASSERT(r == 0 || r == 1);
    for (size_t j = 0; r == 0 && dt == TFS_STRING && j < fixed.count &&
                       j < fixed.cap; j++)
      CU_ASSERT(sbuf[j].p >= (const char *)p &&
                sbuf[j].p + sbuf[j].n <= (const char *)p + n);
  }
  tfs_ex_entries_free(&e);
  return rc;
}

/* Copies into a heap buffer of exactly n bytes, so that a read past the
 * end is caught by the sanitizers. */
static int decode_exact(const uint8_t *p, size_t n) {
  uint8_t *b = malloc(n ? n : 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  if (n) memcpy(b, p, n);
  int rc = decode_all(b, n);
  free(b);
  return rc;
}

static void test_valid(void) {
  tfs_ex_entries e = {0};
  CU_ASSERT_EQUAL(tfs_ex_parse(kValid, sizeof kValid, &e), 0);
  CU_ASSERT_EQUAL(e.n, 3);
  if (e.n == 3) {
    tfs_dtype dt;
    CU_ASSERT_EQUAL(tfs_ex_feature_dtype(e.v[1].feat, e.v[1].flen, &dt), 0);
    CU_ASSERT_EQUAL(dt, TFS_INT64);
    tfs_ex_sink s = {.growing = 1};
    CU_ASSERT_EQUAL(tfs_ex_read_list(e.v[1].feat, e.v[1].flen, dt, &s), 0);
    CU_ASSERT_EQUAL(s.len, 2);
    if (s.len == 2) {
      CU_ASSERT_EQUAL(((int64_t *)s.data)[0], 5);
      CU_ASSERT_EQUAL(((int64_t *)s.data)[1], -1);
    }
    free(s.data);
    /* a fixed sink of one value counts both and keeps the first */
    float one[1];
    tfs_ex_sink f = {.data = one, .cap = 1};
    CU_ASSERT_EQUAL(tfs_ex_read_list(e.v[0].feat, e.v[0].flen, TFS_FLOAT,
                                     &f), 0);
    CU_ASSERT_EQUAL(f.count, 2);
    CU_ASSERT_EQUAL(one[0], 1.0f);
  }
  tfs_ex_entries_free(&e);
}

static void test_prefixes(void) {
  for (size_t n = 0; n <= sizeof kValid; n++) decode_exact(kValid, n);
}

static void test_mutations(void) {
  static const uint8_t kBytes[] = {0x00, 0x01, 0x08, 0x0a, 0x0b, 0x0d,
                                   0x12, 0x1a, 0x7f, 0x80, 0xff};
  uint8_t b[sizeof kValid];
  for (size_t i = 0; i < sizeof kValid; i++) {
    for (size_t k = 0; k < sizeof kBytes; k++) {
      memcpy(b, kValid, sizeof b);
      b[i] = kBytes[k];
      decode_exact(b, sizeof b);
    }
  }
}

static void test_hostile_lengths(void) {
  /* an 11-byte varint, a length of 2^32 - 1, a group, a truncated fixed64 */
  static const uint8_t kLong[] = {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0x01};
  static const uint8_t kHuge[] = {0x0a, 0x08, 0x0a, 0x06, 0x0a, 0xff,
                                  0xff, 0xff, 0xff, 0x0f};
  static const uint8_t kGroup[] = {0x0b, 0x0c};
  static const uint8_t kFixed[] = {0x11, 0x01, 0x02};
  CU_ASSERT_EQUAL(decode_exact(kLong, sizeof kLong), 1);
  CU_ASSERT_EQUAL(decode_exact(kHuge, sizeof kHuge), 1);
  CU_ASSERT_EQUAL(decode_exact(kGroup, sizeof kGroup), 1);
  CU_ASSERT_EQUAL(decode_exact(kFixed, sizeof kFixed), 1);
  /* a packed float run claiming 2^32 - 1 bytes inside a 3-byte list */
  static const uint8_t kFeat[] = {0x12, 0x07, 0x0a, 0xff, 0xff, 0xff,
                                  0xff, 0x0f, 0x01};
  tfs_ex_sink s = {.growing = 1};
  CU_ASSERT_EQUAL(tfs_ex_read_list(kFeat, sizeof kFeat, TFS_FLOAT, &s), 1);
  free(s.data);
}

static const tfs_test_case kCases[] = {
    {"valid", test_valid},
    {"prefixes", test_prefixes},
    {"mutations", test_mutations},
    {"hostile_lengths", test_hostile_lengths},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"example_proto", kCases},
    {NULL, NULL},
};

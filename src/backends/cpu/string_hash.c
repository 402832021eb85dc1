/*
 * backends/cpu/string_hash.c - FarmHash Fingerprint64, SipHash-2-4 and
 * TensorFlow's Hash64 (written from the algorithms' published
 * descriptions), and the StringToHashBucket and Fingerprint kernels
 * built on them.
 */
#include "backends/cpu/string_hash.h"

#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"

static inline uint64_t fetch64(const char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint64_t fetch32(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

static inline uint64_t rot64(uint64_t v, int s) {
  return s == 0 ? v : (v >> s) | (v << (64 - s));
}

/* ---- FarmHash (the "na" variant, which Fingerprint64 is) ---------------- */

static const uint64_t K0 = 0xc3a5c85c97cb3127ULL;
static const uint64_t K1 = 0xb492b66fbe98f273ULL;
static const uint64_t K2 = 0x9ae16a3b2f90404fULL;

static inline uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

static inline uint64_t hash_len16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

static uint64_t hash_len0to16(const char *s, size_t len) {
  if (len >= 8) {
    uint64_t mul = K2 + len * 2;
    uint64_t a = fetch64(s) + K2;
    uint64_t b = fetch64(s + len - 8);
    uint64_t c = rot64(b, 37) * mul + a;
    uint64_t d = (rot64(a, 25) + b) * mul;
    return hash_len16(c, d, mul);
  }
  if (len >= 4) {
    uint64_t mul = K2 + len * 2;
    uint64_t a = fetch32(s);
    return hash_len16(len + (a << 3), fetch32(s + len - 4), mul);
  }
  if (len > 0) {
    uint8_t a = (uint8_t)s[0], b = (uint8_t)s[len >> 1],
            c = (uint8_t)s[len - 1];
    uint32_t y = (uint32_t)a + ((uint32_t)b << 8);
    uint32_t z = (uint32_t)len + ((uint32_t)c << 2);
    return shift_mix(y * K2 ^ z * K0) * K2;
  }
  return K2;
}

static uint64_t hash_len17to32(const char *s, size_t len) {
  uint64_t mul = K2 + len * 2;
  uint64_t a = fetch64(s) * K1;
  uint64_t b = fetch64(s + 8);
  uint64_t c = fetch64(s + len - 8) * mul;
  uint64_t d = fetch64(s + len - 16) * K2;
  return hash_len16(rot64(a + b, 43) + rot64(c, 30) + d,
                    a + rot64(b + K2, 18) + c, mul);
}

static uint64_t hash_len33to64(const char *s, size_t len) {
  uint64_t mul = K2 + len * 2;
  uint64_t a = fetch64(s) * K2;
  uint64_t b = fetch64(s + 8);
  uint64_t c = fetch64(s + len - 8) * mul;
  uint64_t d = fetch64(s + len - 16) * K2;
  uint64_t y = rot64(a + b, 43) + rot64(c, 30) + d;
  uint64_t z = hash_len16(y, a + rot64(b + K2, 18) + c, mul);
  uint64_t e = fetch64(s + 16) * mul;
  uint64_t f = fetch64(s + 24);
  uint64_t g = (y + fetch64(s + len - 32)) * mul;
  uint64_t h = (z + fetch64(s + len - 24)) * mul;
  return hash_len16(rot64(e + f, 43) + rot64(g, 30) + h,
                    e + rot64(f + a, 18) + g, mul);
}

typedef struct {
  uint64_t first, second;
} pair64;

static pair64 weak_hash32(const char *s, uint64_t a, uint64_t b) {
  uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16),
           z = fetch64(s + 24);
  a += w;
  b = rot64(b + a + z, 21);
  uint64_t c = a;
  a += x;
  a += y;
  b += rot64(a, 44);
  return (pair64){a + z, b + c};
}

uint64_t tfs_farmhash_fingerprint64(const char *s, size_t len) {
  const uint64_t seed = 81;
  if (len <= 16) return hash_len0to16(s, len);
  if (len <= 32) return hash_len17to32(s, len);
  if (len <= 64) return hash_len33to64(s, len);
  uint64_t x = seed, y = seed * K1 + 113, z = shift_mix(y * K2 + 113) * K2;
  pair64 v = {0, 0}, w = {0, 0};
  x = x * K2 + fetch64(s);
  const char *end = s + ((len - 1) / 64) * 64;
  const char *last64 = end + ((len - 1) & 63) - 63;
  do {
    x = rot64(x + y + v.first + fetch64(s + 8), 37) * K1;
    y = rot64(y + v.second + fetch64(s + 48), 42) * K1;
    x ^= w.second;
    y += v.first + fetch64(s + 40);
    z = rot64(z + w.first, 33) * K1;
    v = weak_hash32(s, v.second * K1, x + w.first);
    w = weak_hash32(s + 32, z + w.second, y + fetch64(s + 16));
    uint64_t t = z;
    z = x;
    x = t;
    s += 64;
  } while (s != end);
  uint64_t mul = K1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = rot64(x + y + v.first + fetch64(s + 8), 37) * mul;
  y = rot64(y + v.second + fetch64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + fetch64(s + 40);
  z = rot64(z + w.first, 33) * mul;
  v = weak_hash32(s, v.second * mul, x + w.first);
  w = weak_hash32(s + 32, z + w.second, y + fetch64(s + 16));
  uint64_t t = z;
  z = x;
  x = t;
  return hash_len16(hash_len16(v.first, w.first, mul) + shift_mix(y) * K0 + z,
                    hash_len16(v.second, w.second, mul) + x, mul);
}

/* ---- SipHash-2-4 -------------------------------------------------------- */

#define SIPROUND                                                           \
  do {                                                                     \
    v0 += v1;                                                              \
    v1 = rot64(v1, 51);                                                    \
    v1 ^= v0;                                                              \
    v0 = rot64(v0, 32);                                                    \
    v2 += v3;                                                              \
    v3 = rot64(v3, 48);                                                    \
    v3 ^= v2;                                                              \
    v0 += v3;                                                              \
    v3 = rot64(v3, 43);                                                    \
    v3 ^= v0;                                                              \
    v2 += v1;                                                              \
    v1 = rot64(v1, 47);                                                    \
    v1 ^= v2;                                                              \
    v2 = rot64(v2, 32);                                                    \
  } while (0)
/* (rot64 rotates right: right by 64-n is left by n = 13, 16, 21, 17) */

uint64_t tfs_siphash24(uint64_t k0, uint64_t k1, const char *s, size_t len) {
  uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL,
           v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
  size_t full = len & ~(size_t)7;
  for (size_t i = 0; i < full; i += 8) {
    uint64_t m = fetch64(s + i);
    v3 ^= m;
    SIPROUND;
    SIPROUND;
    v0 ^= m;
  }
  uint64_t b = (uint64_t)len << 56;
  for (size_t i = 0; i < (len & 7); i++)
    b |= (uint64_t)(uint8_t)s[full + i] << (8 * i);
  v3 ^= b;
  SIPROUND;
  SIPROUND;
  v0 ^= b;
  v2 ^= 0xff;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  SIPROUND;
  return v0 ^ v1 ^ v2 ^ v3;
}

/* ---- TensorFlow's Hash64 ------------------------------------------------ */

uint64_t tfs_tf_hash64(const char *s, size_t n, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  uint64_t h = seed ^ (n * m);
  while (n >= 8) {
    uint64_t k = fetch64(s);
    s += 8;
    n -= 8;
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;) h ^= (uint64_t)(uint8_t)s[i] << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

/* ---- the kernels -------------------------------------------------------- */

typedef enum { H_LEGACY, H_FAST, H_STRONG } hash_kind;

typedef struct {
  hash_kind kind;
  int64_t buckets;
  uint64_t k0, k1;
} hash_state;

static int hash_prepare(tfs_kernel_init *ki) {
  hash_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->kind = (hash_kind)(intptr_t)ki->kdata;
  s->buckets = 0;
  tfs_attrs_get_int(ki->attrs, "num_buckets", &s->buckets);
  if (s->buckets < 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Value for attr 'num_buckets' of %lld must be at "
                        "least minimum 1",
                        (long long)s->buckets);
  if (s->kind == H_STRONG) {
    int n = 0;
    const int64_t *key = tfs_attrs_get_int_list(ki->attrs, "key", &n);
    if (!key || n != 2)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Key must have 2 elements");
    s->k0 = (uint64_t)key[0];
    s->k1 = (uint64_t)key[1];
  }
  return 0;
}

static void hash_compute(tfs_kernel_ctx *c) {
  const hash_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  int64_t *out = o->data;
  const tfs_tstring *str = tfs_tensor__strings(in);
  for (int64_t i = 0; i < in->nelems; i++) {
    const char *p = tfs_tstring_data(&str[i]);
    size_t n = tfs_tstring_size(&str[i]);
    uint64_t h = s->kind == H_FAST     ? tfs_farmhash_fingerprint64(p, n)
                 : s->kind == H_STRONG ? tfs_siphash24(s->k0, s->k1, p, n)
                                       : tfs_tf_hash64(p, n, 0xDECAFCAFFEULL);
    out[i] = (int64_t)(h % (uint64_t)s->buckets);
  }
}

/* ---- Fingerprint ------------------------------------------------------ */

static void put_le64(uint8_t *o, uint64_t v) {
  for (int i = 0; i < 8; i++) o[i] = (uint8_t)(v >> (8 * i));
}

/* Row i of data (dim 0) fingerprinted as bytes: the row's bytes for
 * fixed-size dtypes; for strings, the string's fingerprint when each row
 * holds one, else the fingerprint of the row's string fingerprints (8
 * little-endian bytes each), as TensorFlow does. */
static void fingerprint_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0], *m = c->inputs[1];
  char sh[TFS_SHAPE_STRLEN];
  if (m->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "`method` should be a scalar string: %s",
                  tfs_shape_str(&m->shape, sh, sizeof sh));
    return;
  }
  tfs_tstring *ms = tfs_tensor__strings(m);
  size_t mlen = tfs_tstring_size(ms);
  const char *mp = tfs_tstring_data(ms);
  if (mlen != 10 || memcmp(mp, "farmhash64", 10) != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Unsupported fingerprint method: %.*s",
                  (int)(mlen > 100 ? 100 : mlen), mp);
    return;
  }
  if (in->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "`data` should have at least one dimension: %s",
                  tfs_shape_str(&in->shape, sh, sizeof sh));
    return;
  }
  const int64_t rows = in->shape.dims[0];
  tfs_shape os = {2, {rows, 8}};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || rows == 0) return;
  uint8_t *out = o->data;
  const int64_t per = in->nelems / rows;
  if (in->dtype != TFS_STRING) {
    const size_t rb = (size_t)per * tfs_dtype_size(in->dtype);
    for (int64_t i = 0; i < rows; i++)
      put_le64(out + 8 * i, tfs_farmhash_fingerprint64(
                                (const char *)in->data + (size_t)i * rb, rb));
    return;
  }
  const tfs_tstring *s = tfs_tensor__strings(in);
  uint8_t *tmp = per == 1 ? NULL
                          : tfs_kctx_scratch(c, (size_t)in->nelems * 8);
  if (per != 1 && !tmp) return;
  for (int64_t i = 0; i < in->nelems; i++) {
    uint64_t h = tfs_farmhash_fingerprint64(tfs_tstring_data(&s[i]),
                                            tfs_tstring_size(&s[i]));
    put_le64(per == 1 ? out + 8 * i : tmp + 8 * i, h);
  }
  for (int64_t i = 0; per != 1 && i < rows; i++)
    put_le64(out + 8 * i,
             tfs_farmhash_fingerprint64((const char *)tmp + 8 * per * i,
                                        (size_t)per * 8));
}

const tfs_kernel_def tfs_cpu_kernels_string_hash[] = {
    {"Fingerprint", "CPU", "T",
     TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING) |
         TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128),
     NULL, fingerprint_compute, NULL, 0, NULL},
    {"StringToHashBucket", "CPU", NULL, 0, hash_prepare, hash_compute,
     tfs_free, 0, (const void *)(intptr_t)H_LEGACY},
    {"StringToHashBucketFast", "CPU", NULL, 0, hash_prepare, hash_compute,
     tfs_free, 0, (const void *)(intptr_t)H_FAST},
    {"StringToHashBucketStrong", "CPU", NULL, 0, hash_prepare, hash_compute,
     tfs_free, 0, (const void *)(intptr_t)H_STRONG},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

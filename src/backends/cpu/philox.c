/*
 * backends/cpu/philox.c - Philox4x32-10 and the distributions of the
 * random ops on it, value for value as TensorFlow's CPU kernels draw them
 * (see philox.h for the layout of a fill).
 *
 * The float transforms use the C library's logf, sqrtf and sincosf, as
 * TensorFlow's Linux build does, so the normals match it bit for bit on
 * the same C library.
 */
#define _GNU_SOURCE /* sincos, sincosf */
#include <math.h>
#include <string.h>

#include "core/half.h"
#include "backends/cpu/philox.h"

/* ---- the generator ----------------------------------------------------- */

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void tfs_philox_block(const uint32_t key[2], const uint32_t ctr[4],
                      uint32_t out[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
    uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

void tfs_philox_seeded(tfs_philox *g, uint64_t seed, uint64_t seed2) {
  g->key[0] = (uint32_t)seed;
  g->key[1] = (uint32_t)(seed >> 32);
  g->ctr[0] = 0;
  g->ctr[1] = 0;
  g->ctr[2] = (uint32_t)seed2;
  g->ctr[3] = (uint32_t)(seed2 >> 32);
}

void tfs_philox_skip(tfs_philox *g, uint64_t n) {
  uint64_t lo = ((uint64_t)g->ctr[1] << 32 | g->ctr[0]) + n;
  int carry = lo < n;
  g->ctr[0] = (uint32_t)lo;
  g->ctr[1] = (uint32_t)(lo >> 32);
  if (carry) {
    uint64_t hi = ((uint64_t)g->ctr[3] << 32 | g->ctr[2]) + 1;
    g->ctr[2] = (uint32_t)hi;
    g->ctr[3] = (uint32_t)(hi >> 32);
  }
}

void tfs_philox_from_seed(tfs_philox *g, uint64_t seed0, uint64_t seed1) {
  /* fixed scrambling key, so that weak seeds (small integers) in either
   * half still give unrelated streams */
  static const uint32_t scramble[2] = {0x3ec8f720u, 0x02461e29u};
  uint32_t ctr[4] = {(uint32_t)seed0, (uint32_t)(seed0 >> 32),
                     (uint32_t)seed1, (uint32_t)(seed1 >> 32)};
  uint32_t mix[4];
  tfs_philox_block(scramble, ctr, mix);
  g->key[0] = mix[0];
  g->key[1] = mix[1];
  g->ctr[0] = 0;
  g->ctr[1] = 0;
  g->ctr[2] = mix[2];
  g->ctr[3] = mix[3];
}

void tfs_philox_from_key_counter(tfs_philox *g, uint64_t key,
                                 const uint64_t counter[2]) {
  g->key[0] = (uint32_t)key;
  g->key[1] = (uint32_t)(key >> 32);
  g->ctr[0] = (uint32_t)counter[0];
  g->ctr[1] = (uint32_t)(counter[0] >> 32);
  g->ctr[2] = (uint32_t)counter[1];
  g->ctr[3] = (uint32_t)(counter[1] >> 32);
}

void tfs_philox_to_key_counter(const tfs_philox *g, uint64_t *key,
                               uint64_t counter[2]) {
  *key = (uint64_t)g->key[1] << 32 | g->key[0];
  counter[0] = (uint64_t)g->ctr[1] << 32 | g->ctr[0];
  counter[1] = (uint64_t)g->ctr[3] << 32 | g->ctr[2];
}

/* ---- transforms -------------------------------------------------------- */

/* [0, 1): the low 23 bits as the mantissa of a number in [1, 2), minus 1 */
static inline float unit_float(uint32_t x) {
  uint32_t bits = 0x3f800000u | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}

/* [0, 1) from 52 bits: the low 20 bits of hi above all 32 of lo */
static inline double unit_double(uint32_t hi, uint32_t lo) {
  uint64_t bits = 0x3ff0000000000000ull |
                  ((uint64_t)(hi & 0xfffffu) << 32 | lo);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

/* Box-Muller: a pair of normals from two words.  The angle is formed in
 * double (2 pi as a double times the float) and rounded to float. */
static inline void box_muller_float(uint32_t x0, uint32_t x1, float *f0,
                                    float *f1) {
  float u1 = unit_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = (float)(2.0 * M_PI * (double)unit_float(x1));
  const float r = sqrtf(-2.0f * logf(u1));
  float s, co;
  sincosf(v1, &s, &co);
  *f0 = s * r;
  *f1 = co * r;
}

static inline void box_muller_double(const uint32_t x[4], double *d0,
                                     double *d1) {
  double u1 = unit_double(x[0], x[1]);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * unit_double(x[2], x[3]);
  const double r = sqrt(-2.0 * log(u1));
  double s, co;
  sincos(v1, &s, &co);
  *d0 = s * r;
  *d1 = co * r;
}

/* stores a float-computed value as element i of a 16- or 32-bit array */
static inline void put_float(tfs_dtype dt, void *buf, int i, float v) {
  if (dt == TFS_FLOAT)
    ((float *)buf)[i] = v;
  else if (dt == TFS_HALF)
    ((uint16_t *)buf)[i] = tfs_float_to_half(v);
  else
    ((uint16_t *)buf)[i] = tfs_float_to_bf16(v);
}

static inline int is_wide(tfs_dtype dt) {
  return dt == TFS_DOUBLE || dt == TFS_INT64 || dt == TFS_UINT64;
}

/* ---- one group --------------------------------------------------------- */

static void uniform_group(tfs_dtype dt, const uint32_t w[4], void *buf) {
  switch (dt) {
    case TFS_DOUBLE:
      for (int i = 0; i < 2; i++)
        ((double *)buf)[i] = unit_double(w[2 * i], w[2 * i + 1]);
      break;
    case TFS_HALF: /* 10 random mantissa bits: exact as a float */
      for (int i = 0; i < 4; i++)
        put_float(dt, buf, i, (float)(w[i] & 0x3ffu) * (1.0f / 1024));
      break;
    case TFS_BFLOAT16: /* 7 random mantissa bits */
      for (int i = 0; i < 4; i++)
        put_float(dt, buf, i, (float)(w[i] & 0x7fu) * (1.0f / 128));
      break;
    default:
      for (int i = 0; i < 4; i++) ((float *)buf)[i] = unit_float(w[i]);
  }
}

static void normal_group(tfs_dtype dt, const uint32_t w[4], void *buf) {
  if (dt == TFS_DOUBLE) {
    box_muller_double(w, &((double *)buf)[0], &((double *)buf)[1]);
    return;
  }
  for (int i = 0; i < 4; i += 2) {
    float f0, f1;
    box_muller_float(w[i], w[i + 1], &f0, &f1);
    put_float(dt, buf, i, f0);
    put_float(dt, buf, i + 1, f1);
  }
}

static void int_group(const tfs_rand_spec *s, const uint32_t w[4],
                      void *buf) {
  int full = s->dist == TFS_RAND_FULL_INT;
  if (is_wide(s->dtype)) {
    for (int i = 0; i < 2; i++) {
      uint64_t bits = (uint64_t)w[2 * i + 1] << 32 | w[2 * i];
      ((uint64_t *)buf)[i] =
          full ? bits : (uint64_t)s->lo + bits % s->range;
    }
  } else {
    for (int i = 0; i < 4; i++)
      ((uint32_t *)buf)[i] =
          full ? w[i] : (uint32_t)s->lo + w[i] % (uint32_t)s->range;
  }
}

typedef tfs_philox_stream word_stream;

static inline uint32_t next_word(word_stream *ws) {
  return tfs_philox_next32(ws);
}

/* Normals with |x| < 2 until the group is full, pairs drawn in turn. */
static void truncated_group(tfs_dtype dt, word_stream *ws, void *buf,
                            int gsize) {
  int k = 0;
  for (;;) {
    if (dt == TFS_DOUBLE) {
      uint32_t x[4];
      for (int i = 0; i < 4; i++) x[i] = next_word(ws);
      double d[2];
      box_muller_double(x, &d[0], &d[1]);
      for (int i = 0; i < 2; i++) {
        if (fabs(d[i]) < 2.0) {
          ((double *)buf)[k++] = d[i];
          if (k == gsize) return;
        }
      }
    } else {
      uint32_t x0 = next_word(ws), x1 = next_word(ws);
      float f[2];
      box_muller_float(x0, x1, &f[0], &f[1]);
      for (int i = 0; i < 2; i++) {
        if (fabsf(f[i]) < 2.0f) {
          put_float(dt, buf, k++, f[i]);
          if (k == gsize) return;
        }
      }
    }
  }
}

float tfs_philox_unit_float(uint32_t x) { return unit_float(x); }

double tfs_philox_unit_double(uint32_t hi, uint32_t lo) {
  return unit_double(hi, lo);
}

/* ---- the fill ---------------------------------------------------------- */

typedef struct {
  const tfs_philox *g;
  const tfs_rand_spec *s;
  unsigned char *out;
  int64_t n;
  int gsize;
  size_t esize;
} fill_job;

static void fill_groups(void *arg, int64_t b, int64_t e) {
  const fill_job *j = arg;
  const tfs_rand_spec *s = j->s;
  for (int64_t grp = b; grp < e; grp++) {
    union { /* one group: at most 4 elements, of at most 8 bytes */
      float f[4];
      double d[2];
      uint16_t h[4];
      uint32_t u32[4];
      uint64_t u64[2];
    } buf;
    if (s->dist == TFS_RAND_TRUNCATED) {
      word_stream ws;
      ws.g = *j->g;
      ws.used = 4;
      tfs_philox_skip(&ws.g, (uint64_t)grp * (uint64_t)j->gsize * 64u);
      truncated_group(s->dtype, &ws, &buf, j->gsize);
    } else {
      tfs_philox g = *j->g;
      uint32_t w[4];
      tfs_philox_skip(&g, (uint64_t)grp);
      tfs_philox_block(g.key, g.ctr, w);
      if (s->dist == TFS_RAND_UNIFORM)
        uniform_group(s->dtype, w, &buf);
      else if (s->dist == TFS_RAND_NORMAL)
        normal_group(s->dtype, w, &buf);
      else
        int_group(s, w, &buf);
    }
    int64_t first = grp * j->gsize;
    int64_t cnt = j->n - first < j->gsize ? j->n - first : j->gsize;
    memcpy(j->out + (size_t)first * j->esize, &buf, (size_t)cnt * j->esize);
  }
}

void tfs_rand_fill(tfs_kernel_ctx *c, const tfs_philox *g,
                   const tfs_rand_spec *spec, void *out, int64_t n) {
  if (n <= 0) return;
  fill_job j;
  j.g = g;
  j.s = spec;
  j.out = out;
  j.n = n;
  j.gsize = is_wide(spec->dtype) ? 2 : 4;
  j.esize = tfs_dtype_size(spec->dtype);
  int64_t groups = (n + j.gsize - 1) / j.gsize;
  int64_t cost = spec->dist == TFS_RAND_TRUNCATED ? 300
                 : spec->dist == TFS_RAND_NORMAL  ? 150
                                                  : 30;
  tfs_kctx_parallel_for(c, groups, cost, fill_groups, &j);
}

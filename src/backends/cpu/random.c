/*
 * backends/cpu/random.c - RandomUniform, RandomStandardNormal,
 * TruncatedNormal and RandomUniformInt on a Philox4x32-10 counter-based
 * generator (Salmon et al., SC'11), seeded from TensorFlow's seed/seed2.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/half.h"
#include "backends/cpu/cpu_tables.h"

/* As in TensorFlow: seed and seed2 both 0 pick a random key; otherwise the
 * key comes from them, so a fresh session draws the same values.  Each
 * run reserves a range of counters from the kernel's state, so later runs
 * continue the stream.  Element i of a run depends only on its counter,
 * which makes the output independent of how the work is split over
 * threads.  Values are not bit-identical to TensorFlow's. */

/* ---- Philox4x32-10 ---------------------------------------------------- */

typedef struct {
  uint32_t v[4];
} philox_block;

static inline void mulhilo(uint32_t a, uint32_t b, uint32_t *hi,
                           uint32_t *lo) {
  uint64_t p = (uint64_t)a * b;
  *hi = (uint32_t)(p >> 32);
  *lo = (uint32_t)p;
}

static philox_block philox(const uint32_t key_in[2], const uint32_t ctr[4]) {
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  uint32_t k0 = key_in[0], k1 = key_in[1];
  for (int r = 0; r < 10; r++) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(0xD2511F53u, c0, &hi0, &lo0);
    mulhilo(0xCD9E8D57u, c2, &hi1, &lo1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  philox_block b = {{c0, c1, c2, c3}};
  return b;
}

/* ---- kernel state ------------------------------------------------------ */

enum { K_UNIFORM, K_NORMAL, K_TRUNCATED, K_INT };

typedef struct {
  int kind;
  uint32_t key[2];
  uint32_t stream;          /* counter word 3: the rest of the seeds */
  _Atomic uint64_t next;    /* first counter of the next run */
} rng_state;

static uint64_t fresh_seed(void) {
  uint64_t s = 0;
  if (getentropy(&s, sizeof s) == 0 && s) return s;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^
         (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&s;
}

static int rng_prepare(tfs_kernel_init *ki) {
  rng_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const char *op = ki->op->name;
  s->kind = strcmp(op, "RandomUniform") == 0          ? K_UNIFORM
            : strcmp(op, "RandomStandardNormal") == 0 ? K_NORMAL
            : strcmp(op, "TruncatedNormal") == 0      ? K_TRUNCATED
                                                      : K_INT;
  int64_t seed = 0, seed2 = 0;
  tfs_attrs_get_int(ki->attrs, "seed", &seed);
  tfs_attrs_get_int(ki->attrs, "seed2", &seed2);
  uint64_t a = (uint64_t)seed, b = (uint64_t)seed2;
  if (a == 0 && b == 0) {
    a = fresh_seed();
    b = fresh_seed();
  }
  s->key[0] = (uint32_t)a;
  s->key[1] = (uint32_t)b;
  s->stream = (uint32_t)(a >> 32) ^ (uint32_t)(b >> 32) * 0x85EBCA6Bu;
  atomic_init(&s->next, 0);
  ki->state = s;
  return 0;
}

/* ---- value transforms ----------------------------------------------- */

static inline float u32_to_float01(uint32_t u) { /* [0, 1) */
  uint32_t bits = 0x3f800000u | (u >> 9);
  float f;
  memcpy(&f, &bits, 4);
  return f - 1.0f;
}
static inline double u64_to_double01(uint64_t u) { /* [0, 1) */
  uint64_t bits = 0x3ff0000000000000ull | (u >> 12);
  double d;
  memcpy(&d, &bits, 8);
  return d - 1.0;
}
/* Box-Muller on (0, 1] x [0, 1): two normals from two uniforms */
static inline void box_muller(double u1, double u2, double *z0, double *z1) {
  double r = sqrt(-2.0 * log(u1));
  double t = 6.283185307179586 * u2;
  *z0 = r * cos(t);
  *z1 = r * sin(t);
}

typedef struct {
  const rng_state *s;
  uint64_t first;    /* counter of element/block 0 of this run */
  tfs_dtype dt;
  void *out;
  int64_t n;
  int64_t lo;        /* RandomUniformInt */
  uint64_t range;
} rng_job;

static philox_block block_at(const rng_job *j, uint64_t idx, uint32_t sub) {
  uint32_t ctr[4] = {(uint32_t)idx, (uint32_t)(idx >> 32), sub,
                     j->s->stream};
  return philox(j->s->key, ctr);
}

static void store_real(const rng_job *j, int64_t i, double v) {
  switch (j->dt) {
    case TFS_FLOAT: ((float *)j->out)[i] = (float)v; break;
    case TFS_DOUBLE: ((double *)j->out)[i] = v; break;
    case TFS_HALF: ((uint16_t *)j->out)[i] = tfs_float_to_half((float)v); break;
    default: ((uint16_t *)j->out)[i] = tfs_float_to_bf16((float)v); break;
  }
}

/* uniform [0, 1) in the output type: the mantissa is filled with random
 * bits, so the value never rounds up to 1 */
static void uniform_one(const rng_job *j, int64_t i, uint32_t u,
                        uint64_t u64) {
  switch (j->dt) {
    case TFS_DOUBLE: ((double *)j->out)[i] = u64_to_double01(u64); break;
    case TFS_HALF:
      ((uint16_t *)j->out)[i] = tfs_float_to_half(
          tfs_half_to_float((uint16_t)(0x3c00u | (u >> 22))) - 1.0f);
      break;
    case TFS_BFLOAT16:
      ((uint16_t *)j->out)[i] = tfs_float_to_bf16(
          tfs_bf16_to_float((uint16_t)(0x3f80u | (u >> 25))) - 1.0f);
      break;
    default: ((float *)j->out)[i] = u32_to_float01(u); break;
  }
}

/* A uniform value in [0, range) without modulo bias: candidates below
 * 2^N mod range are rejected (N = 32 or 64 by the range), drawing more
 * from the element's sub-streams when all of a block's are. */
static uint64_t uniform_below(const rng_job *j, uint64_t idx, philox_block r) {
  uint64_t range = j->range;
  for (uint32_t sub = 1;; sub++) {
    if (range >> 32) {
      uint64_t threshold = (0 - range) % range;
      for (int k = 0; k < 4; k += 2) {
        uint64_t u = (uint64_t)r.v[k] << 32 | r.v[k + 1];
        if (u >= threshold) return u % range;
      }
    } else {
      uint32_t r32 = (uint32_t)range, threshold = (0u - r32) % r32;
      for (int k = 0; k < 4; k++)
        if (r.v[k] >= threshold) return r.v[k] % r32;
    }
    if (sub == 0xffffffffu) return 0; /* unreachable in practice */
    r = block_at(j, idx, sub);
  }
}

/* Elements [b, e) of the run; each element owns counter first + i. */
static void rng_range(void *arg, int64_t b, int64_t e) {
  const rng_job *j = arg;
  for (int64_t i = b; i < e; i++) {
    philox_block r = block_at(j, j->first + (uint64_t)i, 0);
    uint64_t w = (uint64_t)r.v[0] << 32 | r.v[1];
    switch (j->s->kind) {
      case K_UNIFORM:
        uniform_one(j, i, r.v[0], w);
        break;
      case K_NORMAL: {
        double z0, z1;
        box_muller(1.0 - u64_to_double01(w),
                   u64_to_double01((uint64_t)r.v[2] << 32 | r.v[3]), &z0,
                   &z1);
        store_real(j, i, z0);
        break;
      }
      case K_TRUNCATED: {
        /* redraw (from sub-streams of this element) until |z| < 2 */
        double z = 0, z0, z1;
        for (uint32_t sub = 0;; sub++) {
          if (sub) r = block_at(j, j->first + (uint64_t)i, sub);
          box_muller(1.0 - u64_to_double01((uint64_t)r.v[0] << 32 | r.v[1]),
                     u64_to_double01((uint64_t)r.v[2] << 32 | r.v[3]), &z0,
                     &z1);
          if (fabs(z0) < 2.0) { z = z0; break; }
          if (fabs(z1) < 2.0) { z = z1; break; }
          if (sub == 0xffffffffu) break; /* unreachable in practice */
        }
        store_real(j, i, z);
        break;
      }
      default: { /* K_INT */
        uint64_t x = (uint64_t)j->lo + uniform_below(j, j->first + (uint64_t)i,
                                                     r);
        if (j->dt == TFS_INT32)
          ((int32_t *)j->out)[i] = (int32_t)(uint32_t)x;
        else
          ((int64_t *)j->out)[i] = (int64_t)x;
      }
    }
  }
}

/* ---- compute -------------------------------------------------------- */

static int output_shape(tfs_kernel_ctx *c, tfs_shape *os) {
  const tfs_tensor *shape = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  if (shape->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape must be a vector of "
                  "{int32,int64}, got shape %s",
                  tfs_shape_str(&shape->shape, b, sizeof b));
    return -1;
  }
  if (shape->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "shape has %lld dimensions; at "
                  "most %d are supported", (long long)shape->nelems,
                  TFS_MAX_RANK);
    return -1;
  }
  os->rank = (int)shape->nelems;
  for (int i = 0; i < os->rank; i++) {
    os->dims[i] = tfs_tensor__get_as_int64(shape, i);
    if (os->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)os->dims[i]);
      return -1;
    }
  }
  int64_t n;
  if (tfs_shape_num_elements_checked(os, &n, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

static int int_bounds(tfs_kernel_ctx *c) {
  char b[TFS_SHAPE_STRLEN];
  for (int k = 1; k <= 2; k++) {
    const tfs_tensor *t = c->inputs[k];
    if (t->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be 0-D, got shape %s",
                    k == 1 ? "minval" : "maxval",
                    tfs_shape_str(&t->shape, b, sizeof b));
      return -1;
    }
  }
  return 0;
}

static void rng_compute(tfs_kernel_ctx *c) {
  rng_state *s = c->state;
  rng_job j;
  memset(&j, 0, sizeof j);
  j.s = s;
  j.dt = c->out_types[0];
  tfs_shape os;
  if (output_shape(c, &os)) return;
  if (s->kind == K_INT && int_bounds(c)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  if (s->kind == K_INT) {
    int64_t lo = tfs_tensor__get_as_int64(c->inputs[1], 0);
    int64_t hi = tfs_tensor__get_as_int64(c->inputs[2], 0);
    if (lo >= hi) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Need minval < maxval, got "
                    "%lld >= %lld", (long long)lo, (long long)hi);
      return;
    }
    j.lo = lo;
    j.range = (uint64_t)hi - (uint64_t)lo;
  }
  j.out = o->data;
  j.n = o->nelems;
  j.first = atomic_fetch_add(&s->next, (uint64_t)o->nelems);
  int64_t cost = s->kind == K_UNIFORM || s->kind == K_INT ? 10 : 60;
  tfs_kctx_parallel_for(c, o->nelems, cost, rng_range, &j);
}

#define DT(x) TFS_DT_BIT(TFS_##x)

const tfs_kernel_def tfs_cpu_kernels_random[] = {
    {"RandomUniform", "CPU", "dtype", TFS_DT_FLOATS, rng_prepare,
     rng_compute, free, 0, NULL},
    {"RandomStandardNormal", "CPU", "dtype", TFS_DT_FLOATS, rng_prepare,
     rng_compute, free, 0, NULL},
    {"TruncatedNormal", "CPU", "dtype", TFS_DT_FLOATS, rng_prepare,
     rng_compute, free, 0, NULL},
    {"RandomUniformInt", "CPU", "Tout", DT(INT32) | DT(INT64), rng_prepare,
     rng_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * backends/cpu/random.c - the stateful random ops RandomUniform,
 * RandomStandardNormal, TruncatedNormal and RandomUniformInt: TensorFlow's
 * values for the same seed and seed2 attrs (philox.h), run after run.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/philox.h"

/* As in TensorFlow's GuardedPhiloxRandom: seed and seed2 both 0 pick a
 * random key; otherwise the key is seed and the high counter words are
 * seed2, so a fresh session draws TensorFlow's values.  Each run takes
 * the generator as it is and moves it on by 256 blocks per element, so
 * the next run of the same node continues the stream as TensorFlow's.
 * The sampling ops (random_sampling.c, image_sample_bbox.c) hold the same
 * guarded generator and reserve what TensorFlow's kernels reserve. */

enum { K_UNIFORM, K_NORMAL, K_TRUNCATED, K_INT };

typedef struct {
  int kind;
  tfs_rand_guard guard;
} rng_state;

static uint64_t fresh_seed(void) {
  uint64_t s = 0;
  if (getentropy(&s, sizeof s) == 0 && s) return s;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^
         (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&s;
}

void tfs_rand_guard_init(tfs_rand_guard *g, const tfs_attrs *attrs) {
  int64_t seed = 0, seed2 = 0;
  tfs_attrs_get_int(attrs, "seed", &seed);
  tfs_attrs_get_int(attrs, "seed2", &seed2);
  uint64_t a = (uint64_t)seed, b = (uint64_t)seed2;
  if (a == 0 && b == 0) {
    a = fresh_seed();
    b = fresh_seed();
  }
  tfs_philox_seeded(&g->gen, a, b);
  pthread_mutex_init(&g->mu, NULL);
}

void tfs_rand_guard_destroy(tfs_rand_guard *g) {
  pthread_mutex_destroy(&g->mu);
}

tfs_philox tfs_rand_guard_reserve(tfs_rand_guard *g, uint64_t blocks) {
  pthread_mutex_lock(&g->mu);
  tfs_philox r = g->gen;
  tfs_philox_skip(&g->gen, blocks);
  pthread_mutex_unlock(&g->mu);
  return r;
}

static int rng_prepare(tfs_kernel_init *ki) {
  rng_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const char *op = ki->op->name;
  s->kind = strcmp(op, "RandomUniform") == 0          ? K_UNIFORM
            : strcmp(op, "RandomStandardNormal") == 0 ? K_NORMAL
            : strcmp(op, "TruncatedNormal") == 0      ? K_TRUNCATED
                                                      : K_INT;
  tfs_rand_guard_init(&s->guard, ki->attrs);
  ki->state = s;
  return 0;
}

static void rng_release(void *state) {
  rng_state *s = state;
  if (!s) return;
  tfs_rand_guard_destroy(&s->guard);
  tfs_free(s);
}

/* ---- compute -------------------------------------------------------- */

int tfs_rand_output_shape(tfs_kernel_ctx *c, const tfs_tensor *shape,
                          tfs_shape *os) {
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
  /* dim by dim, as TensorFlow's MakeShape: a negative dim or an element
   * count past int64, whichever comes first */
  os->rank = (int)shape->nelems;
  int64_t n = 1;
  for (int i = 0; i < os->rank; i++) {
    os->dims[i] = tfs_tensor__get_as_int64(shape, i);
    if (os->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)os->dims[i]);
      return -1;
    }
    if (n != 0 && os->dims[i] > INT64_MAX / n) {
      for (int k = i + 1; k < os->rank; k++)
        os->dims[k] = tfs_tensor__get_as_int64(shape, k);
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Shape %s would have more "
                    "than 2**63 - 1 elements",
                    tfs_shape_str(os, b, sizeof b));
      return -1;
    }
    n *= os->dims[i];
  }
  return 0;
}

int tfs_rand_check_bounds(tfs_kernel_ctx *c, int first) {
  char b[TFS_SHAPE_STRLEN];
  for (int k = first; k <= first + 1; k++) {
    const tfs_tensor *t = c->inputs[k];
    if (t->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be 0-D, got shape %s",
                    k == first ? "minval" : "maxval",
                    tfs_shape_str(&t->shape, b, sizeof b));
      return -1;
    }
  }
  return 0;
}

static void rng_compute(tfs_kernel_ctx *c) {
  rng_state *s = c->state;
  tfs_rand_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.dtype = c->out_types[0];
  spec.dist = s->kind == K_UNIFORM  ? TFS_RAND_UNIFORM
              : s->kind == K_NORMAL ? TFS_RAND_NORMAL
              : s->kind == K_INT    ? TFS_RAND_INT
                                    : TFS_RAND_TRUNCATED;
  tfs_shape os;
  if (s->kind == K_INT && tfs_rand_check_bounds(c, 1)) return;
  if (tfs_rand_output_shape(c, c->inputs[0], &os)) return;
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
    spec.lo = lo;
    spec.range = (uint64_t)hi - (uint64_t)lo;
  }
  tfs_philox g =
      tfs_rand_guard_reserve(&s->guard, tfs_rand_reserve(o->nelems));
  tfs_rand_fill(c, &g, &spec, o->data, o->nelems);
}

#define DT(x) TFS_DT_BIT(TFS_##x)

const tfs_kernel_def tfs_cpu_kernels_random[] = {
    {"RandomUniform", "CPU", "dtype", TFS_DT_FLOATS, rng_prepare,
     rng_compute, rng_release, 0, NULL},
    {"RandomStandardNormal", "CPU", "dtype", TFS_DT_FLOATS, rng_prepare,
     rng_compute, rng_release, 0, NULL},
    {"TruncatedNormal", "CPU", "dtype", TFS_DT_FLOATS, rng_prepare,
     rng_compute, rng_release, 0, NULL},
    {"RandomUniformInt", "CPU", "Tout", DT(INT32) | DT(INT64), rng_prepare,
     rng_compute, rng_release, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * backends/cpu/random_stateless.c - the stateless random ops: the V1
 * family seeded by a [2] seed, the V2 family driven by key, counter and
 * alg, and the ops that make a key and counter from a seed.  The values
 * are TensorFlow's CPU ones (philox.h); only the Philox algorithm exists
 * on the CPU, which is also what "auto select" (alg 3) picks there.
 */
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/philox.h"

enum { RNG_ALG_PHILOX = 1, RNG_ALG_AUTO_SELECT = 3 };

/* what a kernel draws, from its op name (tfs_kernel_def.data) */
static const tfs_rand_dist kUniform = TFS_RAND_UNIFORM;
static const tfs_rand_dist kNormal = TFS_RAND_NORMAL;
static const tfs_rand_dist kTruncated = TFS_RAND_TRUNCATED;
static const tfs_rand_dist kInt = TFS_RAND_INT;
static const tfs_rand_dist kFullInt = TFS_RAND_FULL_INT;

static int dist_prepare(tfs_kernel_init *ki) {
  ki->state = (void *)ki->kdata;
  return 0;
}

/* The [2] seed input: "seed must have shape [2], not [3]". */
static int check_seed_shape(tfs_kernel_ctx *c, const tfs_tensor *seed) {
  if (seed->shape.rank == 1 && seed->shape.dims[0] == 2) return 0;
  char b[TFS_SHAPE_STRLEN];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "seed must have shape [2], not %s",
                tfs_shape_str(&seed->shape, b, sizeof b));
  return -1;
}

/* The generator for a seed (int32 seeds widen with their sign). */
static int seed_generator(tfs_kernel_ctx *c, const tfs_tensor *seed,
                          tfs_philox *g) {
  tfs_dtype dt = seed->dtype;
  if (dt != TFS_INT32 && dt != TFS_INT64) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Invalid seed type: %s",
                  tfs_dtype_name(dt));
    return -1;
  }
  tfs_philox_from_seed(g, (uint64_t)tfs_tensor__get_as_int64(seed, 0),
                       (uint64_t)tfs_tensor__get_as_int64(seed, 1));
  return 0;
}

/* minval (input `first`) < maxval, filling the range of spec. */
static int int_range(tfs_kernel_ctx *c, int first, tfs_rand_spec *spec) {
  if (tfs_rand_check_bounds(c, first)) return -1;
  int64_t lo = tfs_tensor__get_as_int64(c->inputs[first], 0);
  int64_t hi = tfs_tensor__get_as_int64(c->inputs[first + 1], 0);
  if (lo >= hi) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Need minval < maxval, got %lld >= %lld", (long long)lo,
                  (long long)hi);
    return -1;
  }
  spec->lo = lo;
  spec->range = (uint64_t)hi - (uint64_t)lo;
  return 0;
}

/* ---- V1: shape, seed[, minval, maxval] --------------------------------- */

static void stateless_compute(tfs_kernel_ctx *c) {
  tfs_rand_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.dist = *(const tfs_rand_dist *)c->state;
  spec.dtype = c->out_types[0];
  tfs_shape os;
  if (tfs_rand_output_shape(c, c->inputs[0], &os)) return;
  if (check_seed_shape(c, c->inputs[1])) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  tfs_philox g;
  if (seed_generator(c, c->inputs[1], &g)) return;
  if (spec.dist == TFS_RAND_INT && int_range(c, 2, &spec)) return;
  tfs_rand_fill(c, &g, &spec, o->data, o->nelems);
}

/* ---- V2: shape, key, counter, alg[, minval, maxval] -------------------- */

int tfs_rand_key_counter_alg(tfs_kernel_ctx *c) {
  const tfs_tensor *key = c->inputs[1], *ctr = c->inputs[2];
  const tfs_tensor *alg_t = c->inputs[3];
  char b[TFS_SHAPE_STRLEN];
  if (alg_t->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input 3 (0-based) must have shape [], not %s",
                  tfs_shape_str(&alg_t->shape, b, sizeof b));
    return -1;
  }
  int alg = (int)tfs_tensor__get_as_int64(alg_t, 0);
  if (alg == RNG_ALG_AUTO_SELECT) alg = RNG_ALG_PHILOX;
  if (!(key->shape.rank == 1 && key->shape.dims[0] == 1)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "key must have shape [1], not %s. (Note that batched "
                  "keys are not supported yet.)",
                  tfs_shape_str(&key->shape, b, sizeof b));
    return -1;
  }
  /* TensorFlow 2.21 asks for at least `alg` counter words (1 for Philox
   * and auto select); algorithms it does not know fail later */
  int64_t need = alg;
  if (!(ctr->shape.rank == 1 && ctr->shape.dims[0] >= need)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "counter must be a vector with length at least %lld; got "
                  "shape: %s. (Note that batched counters are not "
                  "supported yet.)",
                  (long long)need, tfs_shape_str(&ctr->shape, b, sizeof b));
    return -1;
  }
  return alg;
}

static void stateless_v2_compute(tfs_kernel_ctx *c) {
  tfs_rand_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.dist = *(const tfs_rand_dist *)c->state;
  spec.dtype = c->out_types[0];
  int alg = tfs_rand_key_counter_alg(c);
  if (alg < 0) return;
  tfs_shape os;
  if (tfs_rand_output_shape(c, c->inputs[0], &os)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  if (spec.dist == TFS_RAND_INT && int_range(c, 4, &spec)) return;
  tfs_philox g;
  if (tfs_rand_key_counter_generator(c, alg, &g)) return;
  tfs_rand_fill(c, &g, &spec, o->data, o->nelems);
}

int tfs_rand_key_counter_generator(tfs_kernel_ctx *c, int alg,
                                   tfs_philox *g) {
  if (alg != RNG_ALG_PHILOX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Unsupported algorithm id: %d",
                  alg);
    return -1;
  }
  const uint64_t *key = c->inputs[1]->data;
  const tfs_tensor *ctr_t = c->inputs[2];
  /* a counter of one word: TensorFlow reads past its end; the missing
   * high word is 0 here */
  uint64_t ctr[2] = {((const uint64_t *)ctr_t->data)[0],
                     ctr_t->nelems > 1 ? ((const uint64_t *)ctr_t->data)[1]
                                       : 0};
  tfs_philox_from_key_counter(g, key[0], ctr);
  return 0;
}

/* ---- key and counter from a seed --------------------------------------- */

static void get_key_counter_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *seed = c->inputs[0];
  if (check_seed_shape(c, seed)) return;
  tfs_shape s1 = {.rank = 1, .dims = {1}}, s2 = {.rank = 1, .dims = {2}};
  tfs_tensor *key = tfs_kctx_alloc_output(c, 0, &s1);
  tfs_tensor *ctr = key ? tfs_kctx_alloc_output(c, 1, &s2) : NULL;
  if (!ctr) return;
  tfs_tensor *alg = NULL;
  if (c->noutputs == 3) {
    tfs_shape s0 = {.rank = 0};
    alg = tfs_kctx_alloc_output(c, 2, &s0);
    if (!alg) return;
  }
  tfs_philox g;
  if (seed_generator(c, seed, &g)) return;
  tfs_philox_to_key_counter(&g, (uint64_t *)key->data,
                            (uint64_t *)ctr->data);
  if (alg) *(int32_t *)alg->data = RNG_ALG_PHILOX;
}

static void get_alg_compute(tfs_kernel_ctx *c) {
  tfs_shape s0 = {.rank = 0};
  tfs_tensor *alg = tfs_kctx_alloc_output(c, 0, &s0);
  if (alg) *(int32_t *)alg->data = RNG_ALG_PHILOX;
}

#define DT(x) TFS_DT_BIT(TFS_##x)
#define INTS (DT(INT32) | DT(INT64))
#define ALL_INTS (INTS | DT(UINT32) | DT(UINT64))
#define V1(op, types, d)                                                 \
  {op, "CPU", "dtype", types, dist_prepare, stateless_compute, NULL, 0, \
   &d}
#define V2(op, types, d)                                          \
  {op, "CPU", "dtype", types, dist_prepare, stateless_v2_compute, \
   NULL, 0, &d}

const tfs_kernel_def tfs_cpu_kernels_random_stateless[] = {
    V1("StatelessRandomUniform", TFS_DT_FLOATS, kUniform),
    V1("StatelessRandomNormal", TFS_DT_FLOATS, kNormal),
    V1("StatelessTruncatedNormal", TFS_DT_FLOATS, kTruncated),
    V1("StatelessRandomUniformInt", INTS, kInt),
    V1("StatelessRandomUniformFullInt", ALL_INTS, kFullInt),
    V2("StatelessRandomUniformV2", TFS_DT_FLOATS, kUniform),
    V2("StatelessRandomNormalV2", TFS_DT_FLOATS, kNormal),
    V2("StatelessTruncatedNormalV2", TFS_DT_FLOATS, kTruncated),
    V2("StatelessRandomUniformIntV2", INTS, kInt),
    V2("StatelessRandomUniformFullIntV2", ALL_INTS, kFullInt),
    {"StatelessRandomGetKeyCounterAlg", "CPU", NULL, 0, NULL,
     get_key_counter_compute, NULL, 0, NULL},
    {"StatelessRandomGetKeyCounter", "CPU", NULL, 0, NULL,
     get_key_counter_compute, NULL, 0, NULL},
    {"StatelessRandomGetAlg", "CPU", NULL, 0, NULL, get_alg_compute, NULL,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * backends/cpu/random_sampling.c - RandomShuffle, StatelessShuffle,
 * Multinomial and StatelessMultinomial: TensorFlow's CPU values for the
 * same seeds (philox.h), run after run for the stateful ones.
 *
 * RandomShuffle reserves ceil((rows - 1) / 4) blocks per run and swaps
 * row i with row i + (word % (rows - i)) for i = 0 .. rows - 2, one
 * 32-bit word per swap, the words in stream order; StatelessShuffle does
 * the same from its key and counter.
 *
 * Multinomial reserves batch * ceil4(num_samples) * 2 * 256 blocks per
 * run (computed in int32 as TensorFlow does) and draws each sample as a
 * double from two consecutive words.  TensorFlow splits the rows into
 * blocks for its intra-op threads (Shard, then Eigen's parallelFor, from
 * a cost estimate per row); a block starting at row s moves the stream
 * on by s * (num_samples + 3) / 4 blocks and its rows then draw in turn.
 * The values thus depend on the thread count: here the blocks are
 * computed as TensorFlow's for the session's intra-op pool size, which
 * gives TensorFlow's values when both use the same count (by default the
 * number of cores); small inputs (under about 2e5 estimated cycles) are
 * one block whatever the count.
 */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/threadpool.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/philox.h"

/* ---- stateful state ------------------------------------------------------ */

static int guard_prepare(tfs_kernel_init *ki) {
  tfs_rand_guard *g = tfs_calloc(1, sizeof(*g));
  if (!g) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_rand_guard_init(g, ki->attrs);
  ki->state = g;
  return 0;
}

static void guard_release(void *state) {
  tfs_rand_guard *g = state;
  if (!g) return;
  tfs_rand_guard_destroy(g);
  tfs_free(g);
}

/* The generator of a [2] seed (int32 seeds widen with their sign), after
 * TensorFlow's "seed must have shape [2]" check.  Returns 0 or -1. */
static int seed_generator(tfs_kernel_ctx *c, const tfs_tensor *seed,
                          tfs_philox *g) {
  if (!(seed->shape.rank == 1 && seed->shape.dims[0] == 2)) {
    char b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "seed must have shape [2], not %s",
                  tfs_shape_str(&seed->shape, b, sizeof b));
    return -1;
  }
  if (seed->dtype != TFS_INT32 && seed->dtype != TFS_INT64) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Invalid seed type: %s",
                  tfs_dtype_name(seed->dtype));
    return -1;
  }
  tfs_philox_from_seed(g, (uint64_t)tfs_tensor__get_as_int64(seed, 0),
                       (uint64_t)tfs_tensor__get_as_int64(seed, 1));
  return 0;
}

/* ---- RandomShuffle ------------------------------------------------------- */

/* The shuffle from the guard's stream (stateful) or from *fixed. */
static void shuffle_run(tfs_kernel_ctx *c, const tfs_philox *fixed,
                        tfs_rand_guard *guard) {
  const tfs_tensor *in = c->inputs[0];
  if (in->nelems <= 1 || in->shape.dims[0] <= 1) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
    return;
  }
  int64_t rows = in->shape.dims[0];
  int64_t row_elems = in->nelems / rows;
  int64_t *perm = tfs_kctx_scratch(c, (size_t)rows * sizeof(int64_t));
  if (!perm) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  tfs_philox g =
      guard ? tfs_rand_guard_reserve(guard,
                                     tfs_rand_reserve32((uint64_t)rows - 1))
            : *fixed;
  tfs_philox_stream s;
  tfs_philox_stream_init(&s, &g);
  for (int64_t i = 0; i < rows; i++) perm[i] = i;
  for (int64_t i = 0; i + 1 < rows; i++) {
    /* TensorFlow takes the count of rows left as a uint32 */
    uint32_t n = (uint32_t)(rows - i);
    uint32_t w = tfs_philox_next32(&s);
    int64_t j = i + (n ? (int64_t)(w % n) : (int64_t)w);
    if (j >= rows) j = i;
    int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  tfs_elem e = tfs_elem_of(in->dtype);
  size_t row_bytes = (size_t)row_elems * e.size;
  const unsigned char *src = in->data;
  unsigned char *dst = o->data;
  for (int64_t i = 0; i < rows; i++) {
    if (tfs_elem_copy(e, dst + (size_t)i * row_bytes,
                      src + (size_t)perm[i] * row_bytes, row_elems)) {
      tfs_arr_oom(c);
      return;
    }
  }
}

static void shuffle_compute(tfs_kernel_ctx *c) {
  shuffle_run(c, NULL, c->state);
}

/* StatelessShuffle: value, key, counter, alg. */
static void stateless_shuffle_compute(tfs_kernel_ctx *c) {
  int alg = tfs_rand_key_counter_alg(c);
  if (alg < 0) return;
  tfs_philox g;
  if (tfs_rand_key_counter_generator(c, alg, &g)) return;
  shuffle_run(c, &g, NULL);
}

/* ---- Multinomial --------------------------------------------------------- */

typedef struct {
  const tfs_tensor *logits;
  tfs_philox gen;       /* the run's stream, row 0's first word */
  int64_t block;        /* rows per block of TensorFlow's split */
  int64_t classes;
  int64_t samples;
  tfs_dtype out_type;
  void *out;
  _Atomic int oom;
} mn_job;

static double logit_at(const tfs_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFS_FLOAT: return ((const float *)t->data)[i];
    case TFS_DOUBLE: return ((const double *)t->data)[i];
    case TFS_HALF: return tfs_half_to_float(((const uint16_t *)t->data)[i]);
    default: return tfs_bf16_to_float(((const uint16_t *)t->data)[i]);
  }
}

/* The smallest finite value of the logits' dtype, where the row maximum
 * starts. */
static double lowest_of(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: return -3.40282346638528859812e+38;
    case TFS_DOUBLE: return -1.7976931348623157e308;
    case TFS_HALF: return -65504.0;
    default: return -3.38953138925153547590e+38; /* bfloat16 */
  }
}

/* One row: the unnormalised CDF in double, then each sample's uniform
 * double times the total, found by upper bound. */
static void mn_row(const mn_job *j, int64_t b, double *cdf) {
  int64_t nc = j->classes;
  int64_t base = b * nc;
  double mx = lowest_of(j->logits->dtype);
  for (int64_t k = 0; k < nc; k++) {
    double x = logit_at(j->logits, base + k);
    if (isfinite(x) && mx < x) mx = x;
  }
  double total = 0;
  for (int64_t k = 0; k < nc; k++) {
    double x = logit_at(j->logits, base + k);
    double p = exp(x - mx);
    if (isfinite(x)) total += p;
    cdf[k] = total;
  }
  int64_t start = b / j->block * j->block;
  /* start * (num_samples + 3) / 4 in TensorFlow's int64 arithmetic */
  int64_t s3 = (int32_t)((uint32_t)j->samples + 3u);
  int64_t prod = (int64_t)((uint64_t)start * (uint64_t)s3);
  uint64_t skip = (uint64_t)(prod / 4);
  uint64_t word = 2u * (uint64_t)j->samples * (uint64_t)(b - start);
  tfs_philox g = j->gen;
  tfs_philox_skip(&g, skip + word / 4);
  tfs_philox_stream s;
  tfs_philox_stream_init(&s, &g);
  for (uint64_t k = 0; k < word % 4; k++) tfs_philox_next32(&s);
  for (int64_t k = 0; k < j->samples; k++) {
    uint32_t hi = tfs_philox_next32(&s);
    uint32_t lo = tfs_philox_next32(&s);
    double to_find = tfs_philox_unit_double(hi, lo) * total;
    int64_t lo_i = 0, hi_i = nc; /* first cdf[i] > to_find */
    while (lo_i < hi_i) {
      int64_t mid = lo_i + (hi_i - lo_i) / 2;
      if (to_find < cdf[mid])
        hi_i = mid;
      else
        lo_i = mid + 1;
    }
    int64_t at = b * j->samples + k;
    if (j->out_type == TFS_INT32)
      ((int32_t *)j->out)[at] = (int32_t)lo_i;
    else
      ((int64_t *)j->out)[at] = lo_i;
  }
}

static void mn_rows(void *arg, int64_t b, int64_t e) {
  mn_job *j = arg;
  double *cdf = tfs_malloc((size_t)j->classes * sizeof(double));
  if (!cdf) {
    j->oom = 1;
    return;
  }
  for (int64_t r = b; r < e; r++) mn_row(j, r, cdf);
  tfs_free(cdf);
}

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The rows per block TensorFlow's Shard gives `rows` rows of `cost`
 * cycles on a pool of `threads` (Eigen's parallelFor: one block when the
 * cost model asks for one thread, else blocks of at least
 * ceil(rows / (4 * threads)) rows, or 40000 cycles' worth, coarsened
 * while the threads stay as busy). */
static int64_t tf_row_block(int64_t rows, int64_t cost, int threads) {
  if (threads <= 1 || rows <= 1) return rows > 0 ? rows : 1;
  double want = ((double)rows * (double)cost - 1e5) / 1e5 + 0.9;
  if (want < 2.0) return rows;
  int64_t bs = div_up(rows, 4 * (int64_t)threads);
  double by_cost = 40000.0 / (double)cost;
  if (by_cost > (double)bs) bs = (int64_t)by_cost;
  if (bs > rows) bs = rows;
  int64_t max_bs = 2 * bs < rows ? 2 * bs : rows;
  int64_t count = div_up(rows, bs);
  double best = (double)count / (double)(div_up(count, threads) * threads);
  for (int64_t prev = count; best < 1.0 && prev > 1;) {
    int64_t coarser = div_up(rows, prev - 1);
    if (coarser > max_bs) break;
    int64_t ccount = div_up(rows, coarser);
    prev = ccount;
    double eff = (double)ccount / (double)(div_up(ccount, threads) * threads);
    if (eff + 0.01 >= best) {
      bs = coarser;
      if (best < eff) best = eff;
    }
  }
  return bs;
}

/* TensorFlow's checks on logits and num_samples, in its order. */
static int mn_check(tfs_kernel_ctx *c, int *batch, int *classes,
                    int *samples) {
  const tfs_tensor *lg = c->inputs[0], *ns = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (lg->shape.rank != 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "logits should be a matrix, got shape %s",
                  tfs_shape_str(&lg->shape, b, sizeof b));
    return -1;
  }
  if (ns->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "num_samples should be a scalar, got shape %s",
                  tfs_shape_str(&ns->shape, b, sizeof b));
    return -1;
  }
  int n = *(const int32_t *)ns->data;
  if (n < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "num_samples should be non-negative, got %d", n);
    return -1;
  }
  if (lg->shape.dims[0] > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "batch_size cannot exceed max int");
    return -1;
  }
  if (lg->shape.dims[1] > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "num_classes cannot exceed max int");
    return -1;
  }
  *batch = (int)lg->shape.dims[0];
  *classes = (int)lg->shape.dims[1];
  *samples = n;
  if (*classes <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "num_classes should be positive, got %d", *classes);
    return -1;
  }
  return 0;
}

/* Blocks TensorFlow reserves: batch * ceil4(n) * 2 in int32 arithmetic
 * (wrapping as its ints do on the machines it runs on), times 256. */
static uint64_t mn_reserve(int batch, int n) {
  int32_t c4 = (int32_t)((uint32_t)n + 3u);
  c4 = c4 / 4 * 4;
  int32_t c8 = (int32_t)((uint32_t)c4 * 2u);
  int32_t outs = (int32_t)((uint32_t)batch * (uint32_t)c8);
  return (uint64_t)outs * 256u;
}

static void mn_run(tfs_kernel_ctx *c, const tfs_philox *seeded,
                   tfs_rand_guard *guard) {
  int batch, classes, samples;
  if (mn_check(c, &batch, &classes, &samples)) return;
  tfs_shape os = {.rank = 2, .dims = {batch, samples}};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || o->nelems == 0) return;
  mn_job j;
  memset(&j, 0, sizeof j);
  j.logits = c->inputs[0];
  j.gen = guard ? tfs_rand_guard_reserve(guard, mn_reserve(batch, samples))
                : *seeded;
  j.classes = classes;
  j.samples = samples;
  /* TensorFlow's cost estimate of a row, in its double arithmetic */
  int64_t tf_cost = (int64_t)(50 * ((double)samples * log((double)classes) /
                                        log(2.0) +
                                    (double)classes));
  j.block = tf_row_block(batch, tf_cost,
                         tfs_threadpool_parallelism(tfs_kctx_intra_pool(c)));
  j.out_type = c->out_types[0];
  j.out = o->data;
  double lg = log2((double)classes);
  int64_t cost = (int64_t)(5.0 * (double)samples * (lg + 1.0)) +
                 20 * (int64_t)classes;
  tfs_kctx_parallel_for(c, batch, cost, mn_rows, &j);
  if (j.oom) tfs_arr_oom(c);
}

static void multinomial_compute(tfs_kernel_ctx *c) {
  mn_run(c, NULL, c->state);
}

static void stateless_multinomial_compute(tfs_kernel_ctx *c) {
  tfs_philox g;
  if (seed_generator(c, c->inputs[2], &g)) return;
  mn_run(c, &g, NULL);
}

#define FLOATS TFS_DT_FLOATS

const tfs_kernel_def tfs_cpu_kernels_random_sampling[] = {
    {"RandomShuffle", "CPU", "T", TFS_DT_ARRAY, guard_prepare,
     shuffle_compute, guard_release, 0, NULL},
    {"StatelessShuffle", "CPU", "T", TFS_DT_ARRAY, NULL,
     stateless_shuffle_compute, NULL, 0, NULL},
    {"Multinomial", "CPU", "T", FLOATS, guard_prepare, multinomial_compute,
     guard_release, 0, NULL},
    {"StatelessMultinomial", "CPU", "T", FLOATS, NULL,
     stateless_multinomial_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * backends/cpu/philox.h - the Philox4x32-10 counter-based generator
 * (Salmon et al., SC'11) and the distributions of TensorFlow's random ops,
 * producing the values TensorFlow's CPU kernels produce for the same key
 * and counter.
 *
 * A generator is a 64-bit key and a 128-bit counter.  Each call of the
 * block function turns (key, counter) into four 32-bit words and the
 * counter then moves on by one.  A distribution consumes those words in
 * groups: a group is the few output elements made from one block (four
 * floats, two doubles, ...).  Group g of an output always comes from the
 * block at counter + g, or, for the truncated normal (which rejects
 * samples), from the blocks starting at counter + g * 64 * group size, so
 * the values do not depend on how the work is split over threads.
 */
#ifndef TFS_BACKENDS_CPU_PHILOX_H
#define TFS_BACKENDS_CPU_PHILOX_H

#include <pthread.h>
#include <stdint.h>

#include "kernels/kernel.h"

typedef struct tfs_philox {
  uint32_t key[2];
  uint32_t ctr[4]; /* ctr[0] is the least significant word */
} tfs_philox;

/* The ten rounds of Philox4x32 on (key, ctr) into out[4]. */
void tfs_philox_block(const uint32_t key[2], const uint32_t ctr[4],
                      uint32_t out[4]);

/* The generator of a stateful op with attrs seed and seed2 (both nonzero
 * or one of them): key = seed, counter words 2-3 = seed2, words 0-1 = 0. */
void tfs_philox_seeded(tfs_philox *g, uint64_t seed, uint64_t seed2);

/* Moves the counter on by n blocks (a 128-bit addition). */
void tfs_philox_skip(tfs_philox *g, uint64_t n);

/* The generator of the stateless ops for seed (seed0, seed1): the two
 * seeds are scrambled through one Philox block, whose words become the
 * key (0-1) and the high counter words (2-3). */
void tfs_philox_from_seed(tfs_philox *g, uint64_t seed0, uint64_t seed1);

/* The generator of the V2 stateless ops from their key (one uint64) and
 * counter (two uint64, the low words first) inputs, and back. */
void tfs_philox_from_key_counter(tfs_philox *g, uint64_t key,
                                 const uint64_t counter[2]);
void tfs_philox_to_key_counter(const tfs_philox *g, uint64_t *key,
                               uint64_t counter[2]);

typedef enum {
  TFS_RAND_UNIFORM,   /* [0, 1) from random mantissa bits */
  TFS_RAND_NORMAL,    /* Box-Muller */
  TFS_RAND_TRUNCATED, /* Box-Muller, |x| >= 2 rejected */
  TFS_RAND_INT,       /* lo + bits % range (with its modulo bias) */
  TFS_RAND_FULL_INT   /* the bits as they are */
} tfs_rand_dist;

typedef struct tfs_rand_spec {
  tfs_rand_dist dist;
  tfs_dtype dtype;   /* half, bfloat16, float, double or a 32/64-bit int */
  int64_t lo;        /* TFS_RAND_INT: minval */
  uint64_t range;    /* TFS_RAND_INT: maxval - minval, > 0 */
} tfs_rand_spec;

/* Fills out[0, n) (elements of spec->dtype) from the generator as
 * TensorFlow's CPU kernels do, on the intra-op pool of `c` when n is
 * large.  Does not change *g. */
void tfs_rand_fill(tfs_kernel_ctx *c, const tfs_philox *g,
                   const tfs_rand_spec *spec, void *out, int64_t n);

/* Blocks a stateful op reserves for one run making n elements: TensorFlow
 * moves its generator on by 256 per element whatever the distribution. */
static inline uint64_t tfs_rand_reserve(int64_t n) {
  return (uint64_t)n * 256u;
}

/* The words of consecutive blocks one at a time, as TensorFlow's
 * SingleSampleAdapter hands them out: block by block from the
 * generator's counter, words 0 to 3 of each. */
typedef struct tfs_philox_stream {
  tfs_philox g;   /* the next block's key and counter */
  uint32_t w[4];
  int used;       /* words of w already taken (4: none left) */
} tfs_philox_stream;

static inline void tfs_philox_stream_init(tfs_philox_stream *s,
                                          const tfs_philox *g) {
  s->g = *g;
  s->used = 4;
}

static inline uint32_t tfs_philox_next32(tfs_philox_stream *s) {
  if (s->used == 4) {
    tfs_philox_block(s->g.key, s->g.ctr, s->w);
    tfs_philox_skip(&s->g, 1);
    s->used = 0;
  }
  return s->w[s->used++];
}

/* [0, 1) from one word (TensorFlow's Uint32ToFloat) and from two, the
 * first giving the high mantissa bits (Uint64ToDouble). */
float tfs_philox_unit_float(uint32_t x);
double tfs_philox_unit_double(uint32_t hi, uint32_t lo);

/* Blocks TensorFlow's ReserveSamples32 takes for n 32-bit samples. */
static inline uint64_t tfs_rand_reserve32(uint64_t n) {
  return n / 4 + (n % 4 != 0);
}

/* ---- the generator of a stateful op (random.c) ---- */

/* GuardedPhiloxRandom: the generator of one node, seeded from its seed
 * and seed2 attrs (both 0: fresh random seeds), handed out run by run. */
typedef struct tfs_rand_guard {
  pthread_mutex_t mu;
  tfs_philox gen; /* guarded by: mu */
} tfs_rand_guard;

void tfs_rand_guard_init(tfs_rand_guard *g, const tfs_attrs *attrs);
void tfs_rand_guard_destroy(tfs_rand_guard *g);

/* The generator as it stands, after which it moves on by `blocks`. */
tfs_philox tfs_rand_guard_reserve(tfs_rand_guard *g, uint64_t blocks);

/* ---- helpers of the random kernels (random.c) ---- */

/* Reads the output shape from an int32/int64 vector `shape` with
 * TensorFlow's checks and messages (a vector, dims >= 0, at most
 * TFS_MAX_RANK of them, the element count within int64).  Returns 0, or
 * -1 after failing `c`. */
int tfs_rand_output_shape(tfs_kernel_ctx *c, const tfs_tensor *shape,
                          tfs_shape *os);

/* Inputs first and first + 1 (minval, maxval) must be scalars ("minval
 * must be 0-D, got shape [1]").  Returns 0, or -1 after failing `c`. */
int tfs_rand_check_bounds(tfs_kernel_ctx *c, int first);

/* ---- the V2 stateless inputs (random_stateless.c) ---- */

/* Inputs 1-3 of a V2 stateless op (key, counter, alg): the algorithm
 * (auto select is Philox) after TensorFlow's checks of the three shapes,
 * with its messages.  Returns the algorithm, or -1 after failing `c`. */
int tfs_rand_key_counter_alg(tfs_kernel_ctx *c);

/* The generator of key and counter for `alg` ("Unsupported algorithm id"
 * unless Philox).  Returns 0, or -1 after failing `c`. */
int tfs_rand_key_counter_generator(tfs_kernel_ctx *c, int alg,
                                   tfs_philox *g);

#endif

/*
 * backends/cpu/lstm_seq.h - the insides of _TfsLstmSequence (lstm_seq.c:
 * the op's checks, lists and weights): its steps over the intra-op pool
 * (lstm_seq_run.c), and the step for chunks of units, the recurrent
 * product of the chunks' columns and their gates, written once over a
 * vector layer (lstm_seq_simd.h) for AVX-512 (lstm_seq_avx512.c) and AVX2
 * (lstm_seq_avx2.c), and in portable C (lstm_seq_step.c).
 */
#ifndef TFS_BACKENDS_CPU_LSTM_SEQ_H
#define TFS_BACKENDS_CPU_LSTM_SEQ_H

#include <stdint.h>

/* Weights are reordered into chunks of `lanes` units (16 on AVX-512, 8
 * on AVX2 and the portable path): column c * 4 * lanes + g * lanes + l
 * of the reordered kernel, recurrent kernel and bias holds column
 * gate_order[g] * units + c * lanes + l of the original (zero past the
 * last unit), so a chunk's four gates are 4 * lanes adjacent columns.
 * The recurrent kernel is stored chunk after chunk: chunk c is a
 * [units][4 * lanes] block, read in order by the step. */

/* Chunks [q0, q0 + nchunks) of one step: for each row r < rows,
 *   z = p[r] + h[r] . u                 (4 * lanes columns a chunk)
 *   c[r] = sigmoid(z_f) * c[r] + sigmoid(z_i) * tanh(z_g)
 *   hn[r] = sigmoid(z_o) * tanh(c[r])   (the chunks' units that exist)
 * with the products and the sum of the c line rounded one by one (the
 * Mul and AddV2 kernels' bits) and vmath.h's sigmoid and tanh.  Each
 * chunk's values are the same however the chunks are grouped into
 * calls. */
typedef struct tfs_lstm_chunk {
  const float *p;     /* the input projection (and bias): row 0, chunk q0 */
  int64_t p_rs;       /* floats between rows of p (0: one row for all) */
  const float *h;     /* the previous h, row 0 (its first unit) */
  int64_t h_rs;       /* floats between rows of h (0: one row for all) */
  const float *u;     /* chunk q0's [units][4 * lanes] recurrent block,
                         the next chunks' after it */
  int64_t units;      /* depth of the recurrent product */
  float *c;           /* the cell state, row 0, chunk q0's first unit */
  float *hn;          /* the new h, row 0, chunk q0's first unit */
  int64_t ld;         /* floats between rows of c and of hn */
  int64_t rows;
  int64_t nchunks;    /* chunks of this call */
  int64_t units_left; /* units from chunk q0's first to the last one */
} tfs_lstm_chunk;

/* Chunks whose gates a call computes together (fewer, longer vmath
 * calls); a call of more takes them this many at a time. */
#define TFS_LSTM_GROUP 8

typedef void (*tfs_lstm_chunk_fn)(const tfs_lstm_chunk *a);

/* lanes 16; call only where tfs_cpu_has(TFS_CPU_ISA_AVX512) */
void tfs_lstm__chunk_avx512(const tfs_lstm_chunk *a);
/* lanes 8; call only where tfs_cpu_has(TFS_CPU_ISA_AVX2) */
void tfs_lstm__chunk_avx2(const tfs_lstm_chunk *a);
/* lanes 8; any CPU */
void tfs_lstm__chunk_portable(const tfs_lstm_chunk *a);

/* The chunk step for the instruction set in force now (tfs_cpu_has), and
 * its lanes. */
tfs_lstm_chunk_fn tfs_lstm__chunk_path(int *lanes);

/* ---- the steps (lstm_seq_run.c) ---------------------------------------- */

struct tfs_gemm_packed;
struct tfs_kernel_ctx;
struct tfs_tensor;

/* The n steps of a checked sequence, as lstm_seq.c hands them over. */
typedef struct tfs_lstm_seq {
  tfs_lstm_chunk_fn chunk;     /* tfs_lstm__chunk_path's */
  int lanes;                   /* and its lanes */
  int64_t n;                   /* steps (> 0) */
  int64_t rows, units, depth;  /* batch, units (> 0), x's columns */
  int64_t nchunks, ld;         /* chunks; P's row: nchunks * 4 * lanes */
  int64_t bx;                  /* x's rows: rows, or 1 for all */
  /* the input of step s: items[s], [bx][depth] (NULL: zeros) */
  struct tfs_tensor *const *items;
  /* reordered weights: the kernel packed (kp) or [depth][ld] (k; NULL
   * with depth 0), the recurrent kernel in chunk blocks, the bias */
  const struct tfs_gemm_packed *kp;
  const float *k, *rec, *b;
  const float *h0;             /* the h input */
  int64_t h0_rs;               /* floats between its rows (0: one row) */
  float *c;                    /* the cell state, [rows][units], in place */
  float *const *hout;          /* where step s writes h, [rows][units] */
} tfs_lstm_seq;

/* Runs the n steps of q, a block of steps (their input projections at
 * most 2 MiB) at a time: the block's steps on one thread, or shared by
 * tasks of the pool when a step has enough work; the block's input
 * projections first, by one GEMM over the intra-op pool, or, where the
 * tasks split the rows (a row of x each, the project's own GEMM), by
 * each task for its own rows.  Asks the run's check_abort between
 * blocks.  Does not take ownership of anything in q.  Fails c on OOM or
 * abort. */
void tfs_lstm__run(struct tfs_kernel_ctx *c, const tfs_lstm_seq *q);

/* Tests: the least estimated work of one step, in nanoseconds, for each
 * thread that shares it (<= 0: share every step over the whole pool,
 * whatever its size; the default is measured).  Returns the previous
 * value.  Not thread-safe against running kernels. */
int64_t tfs_lstm_seq__set_min_step_ns(int64_t ns);

/* Tests: how many blocks of steps in this process were shared by rows
 * (each task all the chunks of its own rows) rather than by chunks. */
int64_t tfs_lstm_seq__row_blocks(void);

/* Tests: how many blocks' input projections in this process were
 * handed to the intra-op pool or made by the row tasks (none on
 * OpenBLAS, where each block's is one call on the calling thread). */
int64_t tfs_lstm_seq__split_projections(void);

/* Tests: how many of those the row tasks made, each for its own rows. */
int64_t tfs_lstm_seq__task_projections(void);

#endif

/*
 * kernels/cpu/gemm.h - the single-precision GEMM every CPU kernel uses
 * (MatMul, BatchMatMul, Conv2D as im2col + GEMM, ...).  Row-major,
 * BLAS semantics, parallel over the session's intra-op pool.
 */

/*
 * It runs packed AVX-512 or AVX2/FMA micro-kernels chosen once from the
 * CPU's features, or OpenBLAS where neither is available; OpenBLAS then
 * runs single-threaded and the rows are split over the pool, so BLAS
 * threads never compete with the pool.  Constant weights can be packed
 * once at prepare time (tfs_gemm_pack_b_f32) so that a run only streams
 * them.
 *
 * Threads: all functions are thread-safe; a packed matrix is immutable and
 * may be used by many runs at once.
 */
#ifndef TFS_KERNELS_CPU_GEMM_H
#define TFS_KERNELS_CPU_GEMM_H

#include <stdint.h>

struct tfs_threadpool;

/* C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C, all row-major:
 * op(A)(i,p) is a[i*lda + p], or a[p*lda + i] when trans_a; likewise B.
 * When beta == 0, C is not read (it may hold garbage).  pool may be NULL
 * (one thread).  m, n, k >= 0. */
void tfs_gemm_f32(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b,
                  int64_t ldb, float beta, float *c, int64_t ldc,
                  struct tfs_threadpool *pool);

/* Double precision: OpenBLAS dgemm on row blocks split over the pool
 * (one BLAS thread each). */
void tfs_gemm_f64(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                  double alpha, const double *a, int64_t lda,
                  const double *b, int64_t ldb, double beta, double *c,
                  int64_t ldc, struct tfs_threadpool *pool);

/* B packed once for many products (constant weights). */
typedef struct tfs_gemm_packed tfs_gemm_packed;

/* Packs op(B) (k x n).  Returns a new packed matrix, freed with
 * tfs_gemm_packed_free; NULL when memory runs out.  The caller's b may be
 * freed afterwards. */
tfs_gemm_packed *tfs_gemm_pack_b_f32(int trans_b, int64_t k, int64_t n,
                                     const float *b, int64_t ldb);
void tfs_gemm_packed_free(tfs_gemm_packed *p);

/* tfs_gemm_f32 with a packed B (its k and n). */
void tfs_gemm_f32_packed(int trans_a, int64_t m, float alpha,
                         const float *a, int64_t lda,
                         const tfs_gemm_packed *b, float beta, float *c,
                         int64_t ldc, struct tfs_threadpool *pool);
int64_t tfs_gemm_packed_k(const tfs_gemm_packed *p);
int64_t tfs_gemm_packed_n(const tfs_gemm_packed *p);

/* Which path runs, for logs and benchmarks: e.g. "tfsess avx2 6x16
 * (OpenBLAS core Zen, 1 thread)".  Borrowed, static. */
const char *tfs_gemm_describe(void);

/* Makes OpenBLAS single-threaded (we parallelise ourselves) and logs the
 * GEMM path at debug level.  Idempotent; called when a session is
 * created. */
void tfs_gemm_init(void);

/* Cost in nanoseconds of one core for a GEMM of this size (for
 * parallel_for cost estimates of kernels built on it). */
static inline int64_t tfs_gemm_cost_ns(int64_t m, int64_t n, int64_t k) {
  return (2 * m * n * k) / 32 + 1; /* ~32 flop/ns on one AVX2 core */
}

/* Benchmarks and tests: force a path ("avx512", "avx2", "openblas"; NULL
 * or "auto" for the default).  Returns 0, or -1 if this CPU cannot run
 * it.  Not thread-safe against running GEMMs. */
int tfs_gemm__force_path(const char *name);

/* Benchmarks: the current path with other cache blocking (K depth, rows
 * and columns per block).  Returns 0, or -1 without a tfsess path. */
int tfs_gemm__set_blocking(int kc, int mc, int nc);

#endif

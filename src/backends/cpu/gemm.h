/*
 * backends/cpu/gemm.h - the single-precision GEMM every CPU kernel uses
 * (MatMul, BatchMatMul, Conv2D as im2col + GEMM, ...) and the bfloat16
 * GEMM of bfloat16 MatMul and BatchMatMul.  Row-major, BLAS semantics,
 * parallel over the session's intra-op pool.
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
#ifndef TFS_BACKENDS_CPU_GEMM_H
#define TFS_BACKENDS_CPU_GEMM_H

#include <stdint.h>

struct tfs_threadpool;
struct tfs_kernel_ctx;
struct tfs_tensor;

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

/* The columns of one panel of p (0: p is not in panels, on OpenBLAS). */
int tfs_gemm_packed_nr(const tfs_gemm_packed *p);

/* Columns [c0, c0 + nc) of p as a packed matrix of its own, sharing p's
 * panels (a product with it gives those columns of p's, with the same
 * bits): freed with tfs_gemm_packed_free, which leaves p's panels alone;
 * valid while p is.  NULL when p is not in panels, c0 is not a multiple
 * of tfs_gemm_packed_nr(p), the range is not inside p, or memory runs
 * out. */
tfs_gemm_packed *tfs_gemm_packed_cols(const tfs_gemm_packed *p, int64_t c0,
                                      int64_t nc);

/* Called once for each region rows [r0, r0 + mb) by columns [c0, c0 +
 * nb) of C when it holds its final values, on the thread that computed
 * it, while the region is still in cache; concurrently for disjoint
 * regions.  Columns are cut at whole micro-kernel panels, so c0 is a
 * multiple of 16 unless it is 0. */
typedef void (*tfs_gemm_done_fn)(void *arg, int64_t r0, int64_t mb,
                                 int64_t c0, int64_t nb);

/* tfs_gemm_f32_packed, then done (may be NULL) over every tile: the
 * product is cut into row blocks and column chunks over the pool (at
 * small m the columns too, so that every thread has work), and an
 * epilogue runs on each tile as soon as it is finished. */
void tfs_gemm_f32_packed_done(int trans_a, int64_t m, float alpha,
                              const float *a, int64_t lda,
                              const tfs_gemm_packed *b, float beta, float *c,
                              int64_t ldc, struct tfs_threadpool *pool,
                              tfs_gemm_done_fn done, void *arg);

/* C = act(A B + bias) for a row-major A (no transpose) and a packed B:
 * tfs_gemm_f32_packed_done with alpha 1 and beta 0, the bias (n values,
 * or NULL) added and relu (store_act.h's TFS_STORE_*: none, Relu, Relu6,
 * hard-swish) applied by the kernels as they store the last depth block,
 * the same bits as the product stored and the bias and activation
 * applied after; done (may be NULL) sees the final values.  Returns 0, or
 * -1 when this product cannot take them (fewer rows than a panel, no
 * indirect kernels on this CPU, a depth without a usable divisor):
 * nothing is computed then. */
int tfs_gemm_f32_packed_bias_done(int64_t m, const float *a, int64_t lda,
                                  const tfs_gemm_packed *b,
                                  const float *bias, int relu, float *c,
                                  int64_t ldc, struct tfs_threadpool *pool,
                                  tfs_gemm_done_fn done, void *arg);

/* A left operand the caller packs itself (a convolution's patches, read
 * straight from the image), and what to do with each finished part of C.
 *
 * pack writes rows [r0, r0 + mb) by depth [pc, pc + kb) of A as panels of
 * `mr` rows: panel i at out + i * kb * mr holds [p][mr] (row r0 + i * mr
 * + q at [p * mr + q]), zero past the last row.  With mr == 1 that is the
 * rows themselves, row-major with leading dimension kb.
 *
 * done, when not NULL, is called once for each region rows [r0, r0 + mb)
 * by columns [c0, c0 + nb) of C when it holds its final values, on the
 * thread that computed it (an epilogue while the region is in cache).
 * Both run on pool threads, concurrently for disjoint regions. */
typedef struct tfs_gemm_a_source {
  void (*pack)(void *arg, int64_t r0, int64_t mb, int64_t pc, int64_t kb,
               int mr, float *out);
  void (*done)(void *arg, int64_t r0, int64_t mb, int64_t c0, int64_t nb);
  void *arg;
} tfs_gemm_a_source;

/* An indirect left operand (convolutions over a zero-padded image): row
 * r of A is nseg segments of seglen floats (nseg * seglen == k), segment
 * s at base(r) + segoff[s].  rows writes base(r) for r in [r0, r0 + mb)
 * into out; done is as in tfs_gemm_a_source.  The micro-kernels add
 * bias[j] to column j when bias is not NULL, then apply the activation
 * relu (TFS_STORE_* of store_act.h: max(0, x) with NaN kept for Relu,
 * min(6, .) after it for Relu6, or hard-swish), before storing C.  With
 * add not NULL, add[r * ldc + j] (a residual addend laid out as C, at the
 * same offsets from add as C's from the c passed) is added after the bias
 * and before the activation, each sum rounded (BiasAdd, then AddV2). */
typedef struct tfs_gemm_indirect {
  void (*rows)(void *arg, int64_t r0, int64_t mb, const float **out);
  void (*done)(void *arg, int64_t r0, int64_t mb, int64_t c0, int64_t nb);
  void *arg;
  const int64_t *segoff;
  int64_t nseg, seglen;
  const float *bias; /* n values, or NULL */
  int relu;          /* TFS_STORE_*: none, Relu, Relu6, hard-swish */
  const float *add;  /* laid out as C, or NULL */
  /* When not NULL, row r of A starts at row_base + r * row_stride for
   * every r (a 1x1 convolution's pixels, a row-major A): the kernels for
   * evenly spaced rows take every panel without rows() or a check */
  const float *row_base;
  int64_t row_stride;
} tfs_gemm_indirect;

/* A row-major A for tfs_gemm_indirect.rows: row r at a + r * lda. */
typedef struct tfs_gemm_rowmajor {
  const float *a;
  int64_t lda;
} tfs_gemm_rowmajor;

/* tfs_gemm_indirect.rows for arg, a tfs_gemm_rowmajor. */
void tfs_gemm_rowmajor_rows(void *arg, int64_t r0, int64_t mb,
                            const float **out);

/* Whether this CPU's kernels multiply an indirect A by b (else use
 * tfs_gemm_f32_packed_src). */
int tfs_gemm_indirect_ok(const tfs_gemm_packed *b);

/* C[m, n] = A[m, k] * B with A indirect, split over the pool like
 * tfs_gemm_f32_packed_src; needs tfs_gemm_indirect_ok(b).  Returns 0, or
 * -1 when b cannot be used so. */
int tfs_gemm_f32_indirect(int64_t m, const tfs_gemm_indirect *a,
                          const tfs_gemm_packed *b, float *c, int64_t ldc,
                          struct tfs_threadpool *pool);

/* C[m, n] = A[m, k] * B for a packed B (its k and n) and A from `a`;
 * C (leading dimension ldc) is overwritten.  Rows and columns are split
 * over the pool in tiles that keep a packed block of A in L2.  Returns 0,
 * or -1 when a packing buffer cannot be allocated (C is then partly
 * written). */
int tfs_gemm_f32_packed_src(int64_t m, const tfs_gemm_a_source *a,
                            const tfs_gemm_packed *b, float *c, int64_t ldc,
                            struct tfs_threadpool *pool);
int64_t tfs_gemm_packed_n(const tfs_gemm_packed *p);

/* ---- bfloat16 products ----------------------------------------------
 *
 * A and B hold bfloat16 bit patterns (uint16_t), C is float32; the
 * products are accumulated in float32.  Where tfs_cpu_has_amx() (AMX
 * tiles, TDPBF16PS) or tfs_cpu_has_bf16_dot() (AVX512_BF16's vdpbf16ps),
 * both operands are packed in pairs of depth steps (zeros pad an odd
 * depth, and for AMX the depth to whole tiles) for that family's kernels,
 * blocked for the caches and split over the pool as tfs_gemm_f32 is;
 * elsewhere they are widened to float32 and multiplied by tfs_gemm_f32
 * (same values up to the order of the float32 additions; TDPBF16PS and
 * vdpbf16ps also flush denormal inputs and results to zero).  Callers that want bfloat16 results round C with
 * tfs_gemm_round_bf16 after their epilogue.
 *
 * Threads: all functions are thread-safe; a packed matrix is immutable
 * and may be used by many products at once. */

/* C[m,n] = op(A)[m,k] * op(B)[k,n], row-major with the transposes and
 * leading dimensions of tfs_gemm_f32; C (leading dimension ldc) is
 * overwritten, never read.  pool may be NULL (one thread).  m, n, k >= 0.
 * Does not take ownership of any argument.  Returns 0, or -1 when a
 * packing or widening buffer cannot be allocated (C is then partly
 * written). */
int tfs_gemm_bf16(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                  const uint16_t *a, int64_t lda, const uint16_t *b,
                  int64_t ldb, float *c, int64_t ldc,
                  struct tfs_threadpool *pool);

/* A bfloat16 B packed once for many products (constant weights). */
typedef struct tfs_gemm_packed_bf16 tfs_gemm_packed_bf16;

/* Packs op(B) (k x n) for the path in force now (pairs for AMX or
 * vdpbf16ps, or widened to float32); the packed matrix keeps that path.  Returns a new
 * packed matrix; caller frees with tfs_gemm_packed_bf16_free.  NULL when
 * memory runs out.  The caller's b may be freed afterwards. */
tfs_gemm_packed_bf16 *tfs_gemm_pack_b_bf16(int trans_b, int64_t k, int64_t n,
                                           const uint16_t *b, int64_t ldb);

/* Frees p; NULL is allowed. */
void tfs_gemm_packed_bf16_free(tfs_gemm_packed_bf16 *p);

/* 1 when p was packed for a dot-product family (AMX or vdpbf16ps), 0 when
 * widened. */
int tfs_gemm_packed_bf16_dot(const tfs_gemm_packed_bf16 *p);

/* 1 when bfloat16 products run on a dot-product family now (AMX or
 * vdpbf16ps: tfs_cpu_has_amx() or tfs_cpu_has_bf16_dot()), 0 when they
 * widen.  Thread-safe. */
int tfs_gemm_bf16_dot_in_force(void);

/* tfs_gemm_bf16 with a packed B (its k and n); same contract. */
int tfs_gemm_bf16_packed(int trans_a, int64_t m, const uint16_t *a,
                         int64_t lda, const tfs_gemm_packed_bf16 *b,
                         float *c, int64_t ldc, struct tfs_threadpool *pool);

/* dst[i] = src[i] rounded to bfloat16 (core/half.h's tfs_float_to_bf16:
 * nearest even, NaN kept quiet) for i in [0, n).  dst may not overlap
 * src.  Thread-safe. */
void tfs_gemm_round_bf16(const float *src, uint16_t *dst, int64_t n);

/* The path a bfloat16 product takes now, for logs and benchmarks:
 * "amx_bf16 32x32", "avx512_bf16 12x32" or "widened to float32".
 * Borrowed, static. */
const char *tfs_gemm_bf16_describe(void);

/* MatMul's checks of its operands a and b (2-D, op(A) columns equal to
 * op(B) rows, with the transposes ta and tb): ops/batch_matmul_check.h's
 * tfs_matmul_check on the kernel context; fills m, k and n.  Returns 0,
 * or -1 after failing c.  (matmul.c; also for _FusedMatMul.) */
int tfs_matmul_check_2d(struct tfs_kernel_ctx *c, const struct tfs_tensor *a,
                        const struct tfs_tensor *b, int ta, int tb,
                        int64_t *m, int64_t *k, int64_t *n);

/* Rows of one micro-kernel panel on the current path (6 on AVX2, 12 on
 * AVX-512, 1 with OpenBLAS): callers that split rows keep blocks whole
 * panels so that only a matrix's last panel is partial. */
int tfs_gemm_panel_rows(void);

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

/* Tests: force a path ("avx512", "avx2", "openblas"; NULL or "auto" for
 * the default), also used by benchmarks.  Returns 0, or -1 if this CPU
 * cannot run it (or TFS_CPU_MAX_ISA caps below it).  Not thread-safe against running GEMMs. */
int tfs_gemm__force_path(const char *name);

/* Tests and benchmarks: products of at most `rows` rows (0: none) with
 * neither operand transposed skip packing B and run the thin kernels
 * (default 8), which give the packed path's bits.
 * Returns the previous value, or -1 for a value out of range.  Not
 * thread-safe against running GEMMs. */
int tfs_gemm__set_thin_rows(int rows);

/* Tests: whether convolutions may use the indirect kernels (on by
 * default where the CPU's family has them); off, they gather packed
 * patches as on CPUs without them.  Also used by benchmarks. */
void tfs_gemm__set_indirect(int on);

/* Test hooks: on = 0 makes the indirect products run every row panel
 * through the row-pointer micro-kernels, also where the panel's rows are
 * evenly spaced and the CPU's family has kernels for that (AVX-512:
 * four base pointers and the stride instead of twelve pointers; the same
 * bits); 1 (the default) lets them.  tfs_gemm__uniform_panels counts the
 * row panels found evenly spaced (once each time a task gathers its
 * rows) since the process started.  Thread-safe. */
void tfs_gemm__set_uniform(int on);
int64_t tfs_gemm__uniform_panels(void);

/* Tests: the products tfs_gemm_f32_packed_bias_done has run with the bias
 * and activation in the kernels since the process started.
 * Thread-safe. */
int64_t tfs_gemm__bias_direct_calls(void);

/* Tests: the current path with other cache blocking (K depth, rows and
 * columns per block), for benchmarks.  Returns 0, or -1 without a tfsess
 * path. */
int tfs_gemm__set_blocking(int kc, int mc, int nc);

#endif

/*
 * backends/cpu/gemm_internal.h - what the GEMM driver (gemm.c) needs from
 * an instruction-set family (gemm_avx2.c, gemm_avx512.c): tile sizes,
 * cache blocking and the micro-kernels.
 */

/*
 * Packed layouts: an A panel holds MR rows for kc steps, [k][MR]; a B
 * panel holds NR columns, [k][NR] with k-stride NR.  Panels start 64-byte
 * aligned and are zero-padded past the matrix edge.
 */
#ifndef TFS_BACKENDS_CPU_GEMM_INTERNAL_H
#define TFS_BACKENDS_CPU_GEMM_INTERNAL_H

#include <stdint.h>

/* C tile (m rows by n <= NR columns) = alpha * A_panel * B_panel +
 * beta * C (C not read when beta == 0).  `m` rows of the MR-row panel are
 * used; the function is specialised per m. */
typedef void (*tfs_gemm_ukr)(int64_t kc, const float *a, const float *b,
                             float *c, int64_t ldc, int n, float alpha,
                             float beta);

/* The indirect form (convolutions): row i of the A panel is nseg
 * segments of seglen floats, segment s at rows[i] + segoff[s]; b points
 * at the B panel's rows for that depth.  C = A * B, or C += A * B when
 * acc; then + bias[j] when bias is not NULL and max(0, .) when relu (NaN
 * kept). */
typedef void (*tfs_gemm_iukr)(int64_t nseg, int64_t seglen,
                              const int64_t *segoff,
                              const float *const *rows, const float *b,
                              float *c, int64_t ldc, int n, int acc,
                              const float *bias, int relu);

/* Thin products without packing: rows [0, m) (1 <= m <= 4) by columns
 * [0, n) of C = alpha * A * B + beta * C (C not read when beta == 0),
 * A row-major (row i at a + i * lda), B row-major (row p at b + p * ldb).
 * Each B element is read once per call, straight from memory: for a few
 * rows, packing B would cost more than the product (an RNN step, a
 * batch-1 dense layer).  The arithmetic is the packed micro-kernels'
 * (one fused multiply-add per depth step, in order; then alpha, then
 * beta), so for the same depth block the results are the same bits. */
typedef void (*tfs_gemm_skr)(int m, int64_t k, int64_t n, const float *a,
                             int64_t lda, const float *b, int64_t ldb,
                             float *c, int64_t ldc, float alpha, float beta);

#define TFS_GEMM_MAX_MR 16

typedef struct tfs_gemm_isa {
  const char *name;
  int mr, nr;
  int kc, mc, nc;                       /* cache blocking */
  tfs_gemm_ukr ukr[TFS_GEMM_MAX_MR + 1]; /* indexed by rows, 1..mr */
  tfs_gemm_iukr iukr[TFS_GEMM_MAX_MR + 1]; /* the same, or all NULL */
  tfs_gemm_skr thin;                      /* thin products, or NULL */
} tfs_gemm_isa;

/* The thin kernels of each family (gemm_thin_avx2.c,
 * gemm_thin_avx512.c). */
void tfs_gemm__thin_nn_avx2(int m, int64_t k, int64_t n, const float *a,
                            int64_t lda, const float *b, int64_t ldb,
                            float *c, int64_t ldc, float alpha, float beta);
void tfs_gemm__thin_nn_avx512(int m, int64_t k, int64_t n, const float *a,
                              int64_t lda, const float *b, int64_t ldb,
                              float *c, int64_t ldc, float alpha,
                              float beta);

extern const tfs_gemm_isa tfs_gemm_isa_avx2;
extern const tfs_gemm_isa tfs_gemm_isa_avx512;

#endif

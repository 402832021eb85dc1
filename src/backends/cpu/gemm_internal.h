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

#define TFS_GEMM_MAX_MR 16

typedef struct tfs_gemm_isa {
  const char *name;
  int mr, nr;
  int kc, mc, nc;                       /* cache blocking */
  tfs_gemm_ukr ukr[TFS_GEMM_MAX_MR + 1]; /* indexed by rows, 1..mr */
  tfs_gemm_iukr iukr[TFS_GEMM_MAX_MR + 1]; /* the same, or all NULL */
} tfs_gemm_isa;

extern const tfs_gemm_isa tfs_gemm_isa_avx2;
extern const tfs_gemm_isa tfs_gemm_isa_avx512;

#endif

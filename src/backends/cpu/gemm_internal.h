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

#include "backends/cpu/store_act.h"

/* Every micro-kernel also takes `pf` and `npf`: npf cache lines (64
 * bytes) from pf to prefetch into L2 while it multiplies, one a depth step
 * from its first, or two a step (TFS_GEMM_PF2) when npf is more than its
 * depth steps; pf is NULL when npf is 0.  The driver points them at this
 * tile's share of the B block the thread multiplies next, so that a
 * product whose packed B comes from L3 or memory (the weights at batch 1)
 * streams it while it computes instead of stalling on each panel's first
 * tile.  Prefetches change no result.  ResNet50's last stage at batch 1
 * on one Xeon thread (AVX-512): its 3x3 convolutions (49 x 4608 x 512)
 * 2.13 -> 1.92 ms, the 1x1 ones 0.97 -> 0.86 ms; one line a step rather
 * than two (the requests spread over twice the steps) took another 5-7%
 * off such products alone. */

/* The kernels' prefetch of two cache lines from x (prefetcht1). */
#define TFS_GEMM_PF2(x)                          \
  do {                                           \
    __builtin_prefetch((x), 0, 2);               \
    __builtin_prefetch((x) + 16, 0, 2);          \
  } while (0)

/* The depth loop of every micro-kernel: steps p .. end - 1, the first
 * up to `npfs` of them prefetching from `pf` (advanced as they go) one
 * cache line each, or two (TFS_GEMM_PF2) when `two`, the rest plain.
 * STEP(PF) is the kernel's depth step, PF the statement it issues after
 * loading B; p and pf are the caller's variables. */
#define TFS_GEMM_DEPTH_LOOP(p, end, npfs, two, pf, STEP)                  \
  do {                                                                    \
    const int64_t lim_ = (npfs) < (end) ? (npfs) : (end);                 \
    if (two) {                                                            \
      _Pragma("GCC unroll 4") for (; p < lim_; p++, pf += 32)             \
          STEP(TFS_GEMM_PF2(pf))                                          \
    } else {                                                              \
      _Pragma("GCC unroll 4") for (; p < lim_; p++, pf += 16)             \
          STEP(__builtin_prefetch(pf, 0, 2))                              \
    }                                                                     \
    _Pragma("GCC unroll 4") for (; p < (end); p++) STEP((void)0)          \
  } while (0)

/* C tile (m rows by n <= NR columns) = alpha * A_panel * B_panel +
 * beta * C (C not read when beta == 0).  `m` rows of the MR-row panel are
 * used; the function is specialised per m. */
typedef void (*tfs_gemm_ukr)(int64_t kc, const float *a, const float *b,
                             float *c, int64_t ldc, int n, float alpha,
                             float beta, const float *pf, int64_t npf);

/* The indirect form (convolutions): row i of the A panel is nseg
 * segments of seglen floats, segment s at rows[i] + segoff[s]; b points
 * at the B panel's rows for that depth.  C = A * B, or C += A * B when
 * acc; then + bias[j] when bias is not NULL, then + add[i * ldc + j]
 * when add is not NULL (a residual sum laid out as C; each sum rounded,
 * as BiasAdd then AddV2), then the activation relu (TFS_STORE_*,
 * store_act.h: none, Relu, Relu6 or hard-swish). */
typedef void (*tfs_gemm_iukr)(int64_t nseg, int64_t seglen,
                              const int64_t *segoff,
                              const float *const *rows, const float *b,
                              float *c, int64_t ldc, int n, int acc,
                              const float *bias, const float *add, int relu,
                              const float *pf, int64_t npf);

/* The indirect form over a panel of uniformly spaced rows: row i at
 * row0 + i * rstride (then segment s at + segoff[s]), as a 1x1
 * convolution's pixels or those of one output row; otherwise as
 * tfs_gemm_iukr, with the same arithmetic, so the same bits. */
typedef void (*tfs_gemm_iukru)(int64_t nseg, int64_t seglen,
                               const int64_t *segoff, const float *row0,
                               int64_t rstride, const float *b, float *c,
                               int64_t ldc, int n, int acc, const float *bias,
                               const float *add, int relu, const float *pf,
                               int64_t npf);

/* Thin products without packing: rows [0, m) (1 <= m <= 4) by columns
 * [0, n) of C = alpha * A * B + beta * C (C not read when beta == 0),
 * A row-major (row i at a + i * lda), B row-major (row p at b + p * ldb).
 * Each B element is read once per call, straight from memory: for a few
 * rows, packing B would cost more than the product (an RNN step, a
 * batch-1 dense layer).  The arithmetic is the packed micro-kernels'
 * (one fused multiply-add per depth step, in order; then alpha, then
 * beta), so for the same depth block the results are the same bits. */
/* The thin kernels read B's rows where they lie, a few hundred bytes of
 * each row a row apart (a 1280 x 1000 classifier: 512 of every 4000
 * bytes): no stream the hardware prefetcher follows from one row to the
 * next, so each step asks for the lines of the row this many steps ahead.
 * A batch-1 classifier read from L3 (`tfs_gemm_f32` of 1 x 1280 by 1280 x
 * 1000, 64 MB written between calls, medians of 12 alternating runs of
 * 300 calls, an AMX Xeon): 266 -> 228 us; 1 x 960 by 960 x 240 (a
 * squeeze-and-excitation product) 57.5 -> 51 us. */
#define THIN_PF_ROWS 16

typedef void (*tfs_gemm_skr)(int m, int64_t k, int64_t n, const float *a,
                             int64_t lda, const float *b, int64_t ldb,
                             float *c, int64_t ldc, float alpha, float beta);

/* One row of A (a packed panel: a[p * MR]) times up to TFS_GEMM_ROW_PANELS
 * B panels side by side (panel j at b + j * pstride), into C's first n
 * columns (n <= panels * NR): the one-row micro-kernel's arithmetic, but
 * with every panel's accumulators in flight at once (one row keeps only
 * NR / vector-width of them per panel, too few to hide the FMA latency). */
typedef void (*tfs_gemm_rowk)(int64_t kc, const float *a, const float *b,
                              int64_t pstride, int panels, float *c, int n,
                              float alpha, float beta);
#define TFS_GEMM_ROW_PANELS 4

#define TFS_GEMM_MAX_MR 16

typedef struct tfs_gemm_isa {
  const char *name;
  int mr, nr;
  int kc, mc, nc;                       /* cache blocking */
  tfs_gemm_ukr ukr[TFS_GEMM_MAX_MR + 1]; /* indexed by rows, 1..mr */
  tfs_gemm_iukr iukr[TFS_GEMM_MAX_MR + 1]; /* the same, or all NULL */
  tfs_gemm_iukru iukru[TFS_GEMM_MAX_MR + 1]; /* uniform rows, or NULL */
  tfs_gemm_skr thin;                      /* thin products, or NULL */
  tfs_gemm_rowk row;                      /* one-row products, or NULL */
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

/* ---- bfloat16 (gemm_bf16.c, gemm_bf16_avx512.c, gemm_bf16_amx.c) ----
 *
 * Packed in pairs of depth steps: a 32-bit pair holds depth 2q in its low
 * half and 2q + 1 in its high half (zero past an odd depth).  A family
 * pads the pairs of a panel to a multiple of its ka (1, or 16 for AMX
 * tiles) with zeros.  An A panel holds MR rows for kp pairs as
 * [kp / ka][MR][ka] (with ka 1: [kp][MR]); a B panel NR columns,
 * [kp][NR]; both start 64-byte aligned and are zero past the matrix
 * edge. */

/* C tile (m rows of the panel by n <= NR columns) = A_panel * B_panel
 * over kp pairs, or C += that when acc; float32 accumulation. */
typedef void (*tfs_gemm_bf16_ukr)(int64_t kp, const uint32_t *a,
                                  const uint32_t *b, float *c, int64_t ldc,
                                  int n, int acc);

/* The same with the rows (1..mr) an argument. */
typedef void (*tfs_gemm_bf16_tile)(int rows, int64_t kp, const uint32_t *a,
                                   const uint32_t *b, float *c, int64_t ldc,
                                   int n, int acc);

typedef struct tfs_gemm_bf16_isa {
  const char *name;
  int mr, nr;
  int kc, mc, nc;  /* cache blocking; kc in depth steps, a multiple of 2ka */
  int ka;          /* pairs a panel's depth is padded to a multiple of */
  int macs_per_ns; /* one thread, for the pool's split */
  void (*enter)(void), (*leave)(void); /* around a thread's tiles, or NULL */
  tfs_gemm_bf16_tile tile;             /* the kernel, or NULL: ukr */
  tfs_gemm_bf16_ukr ukr[TFS_GEMM_MAX_MR + 1]; /* indexed by rows, 1..mr */
} tfs_gemm_bf16_isa;

extern const tfs_gemm_bf16_isa tfs_gemm_bf16_isa_avx512;
extern const tfs_gemm_bf16_isa tfs_gemm_bf16_isa_amx;

/* ---- driver pieces shared with the bfloat16 GEMM (gemm_bf16.c) ---- */

/* A thread's packing buffers (64-byte aligned), freed when the thread
 * exits.  a_tag, a_block and a_pc say which A block `a` holds (a call's
 * tag from tfs_gemm__new_tag, its row block, its depth offset), so that
 * consecutive tasks of one row block pack it once. */
typedef struct tfs_gemm_tls {
  float *a, *b;
  size_t acap, bcap; /* floats */
  uint64_t a_tag;
  int64_t a_block, a_pc;
} tfs_gemm_tls;

/* The calling thread's buffers, or NULL when memory runs out. */
tfs_gemm_tls *tfs_gemm__tls(void);

/* t's A (or B) buffer grown to at least `bytes`, or NULL (t NULL or out of
 * memory); a new A buffer holds no block (a_tag 0).  Valid until the next
 * call for the same buffer on this thread. */
void *tfs_gemm__tls_abuf(tfs_gemm_tls *t, size_t bytes);
void *tfs_gemm__tls_bbuf(tfs_gemm_tls *t, size_t bytes);

/* A tag no call has used (thread-safe). */
uint64_t tfs_gemm__new_tag(void);

/* How a product of m rows and n columns is cut into tasks: mblocks row
 * blocks of whole mr-row panels, the panels dealt out evenly (block sizes
 * differ by at most one panel, so no thread is left with a sliver of a
 * block at the end), at most mc rows each; column chunks of chunk_cols;
 * task t is (row block t / nchunks, chunk t % nchunks), row-major, so
 * that a thread's consecutive tasks share their rows (the A block they
 * packed).  The panels themselves do not depend on the cut, so neither
 * does any element of C. */
typedef struct tfs_gemm_tiling {
  int64_t m, n, mc, mblocks, chunk_cols, nchunks;
  int64_t mr, panels; /* panel rows, panels in all */
} tfs_gemm_tiling;

/* How tfs_gemm__split_tiles cuts a product for threads. */
enum {
  /* row blocks only (OpenBLAS on whole rows) */
  TFS_GEMM_SPLIT_ROWS,
  /* row blocks first, four per thread when the rows allow (small tasks
   * balance a core that other work slows down) and down to two mr-row
   * panels a block; then column chunks of whole nr-column panels until
   * there are four tasks per thread (convolutions, whose tasks gather
   * their own patches) */
  TFS_GEMM_SPLIT_ROWS_COLS,
  /* as few row blocks as mc_max allows, a multiple of the thread count;
   * then column chunks until there are two tasks per thread (a plain A
   * matrix: BERT's 128 x 256 x 1024 at batch 1 on two threads took 412
   * us in 8 row blocks of 16 rows, each streaming all of B from L3, and
   * 367 us in 2 x 2 tasks of 64 rows by 512 columns) */
  TFS_GEMM_SPLIT_LARGE,
};

/* Cuts for `nt` threads by `mode` (TFS_GEMM_SPLIT_*), row blocks of at
 * most mc_max rows.  Returns the task count. */
int64_t tfs_gemm__split_tiles(int mr, int nr, int mode, int64_t m,
                              int64_t n, int nt, int64_t mc_max,
                              tfs_gemm_tiling *t);

/* Task `task`'s row block mi (rows [ic, ic + mb)) and columns [c0, c0 +
 * nb). */
void tfs_gemm__tile_of(const tfs_gemm_tiling *t, int64_t task, int64_t *mi,
                       int64_t *ic, int64_t *mb, int64_t *c0, int64_t *nb);

/* Rows [*ic, *ic + *mb) of row block mi when `panels` panels of mr rows
 * (m rows in all) are dealt out evenly to `blocks` blocks: block mi
 * starts at panel floor(mi * panels / blocks), so the blocks one more
 * panel long are spread over the range, not all first.  parallel_for
 * starts each of its threads on an equal contiguous share of the tasks,
 * and the shares then hold the same panels within one: 86 panels in 12
 * blocks on two threads were 44 + 42 panels when the two longer blocks
 * came first, and the thread with 42 waited for most of a block. */
static inline void tfs_gemm__block_rows(int64_t m, int64_t mr, int64_t panels,
                                        int64_t blocks, int64_t mi,
                                        int64_t *ic, int64_t *mb) {
  int64_t p0 = mi * panels / blocks, p1 = (mi + 1) * panels / blocks;
  *ic = p0 * mr;
  *mb = (p1 - p0) * mr < m - *ic ? (p1 - p0) * mr : m - *ic;
}

#endif

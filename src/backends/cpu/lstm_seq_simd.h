/*
 * backends/cpu/lstm_seq_simd.h - lstm_seq.h's chunk step written once over
 * a vector of LS_L floats (one vector per gate of a chunk); included by
 * lstm_seq_avx512.c and lstm_seq_avx2.c, which define the vector
 * operations first.
 */

/*
 * The includer defines:
 *   LS_TGT              the target attribute of every function here
 *   LS_L                floats per vector (the chunk's lanes)
 *   LS_V, LS_M          vector and lane-mask types
 *   LS_LOAD(p), LS_STORE(p, v)              whole vectors
 *   LS_LOADM(p, m), LS_STOREM(p, m, v)      the lanes of m (zero elsewhere)
 *   LS_MASKN(n)         the first n lanes (0 < n <= LS_L)
 *   LS_SET1(x), LS_FMA(a, b, c) = a * b + c, LS_ADD, LS_MUL
 *   LS_OPAQUE(v)        hides v's value from the compiler, so that a
 *                       product it holds is not contracted into an FMA
 *   LS_RMAX             rows kept in registers: 4 * LS_RMAX accumulators,
 *                       LS_RMAX broadcasts and one weight vector fit
 *   LS_FULL_GROUPS      1: a block's rows in groups of LS_RMAX and one of
 *                       the rest; 0: in groups of equal size
 *   LS_SIGMOID, LS_TANH the path's vmath.h entry points
 *   LS_CHUNK            the name of the chunk function
 *
 * A call takes its chunks TFS_LSTM_GROUP at a time and, for each group of
 * chunks, the rows in blocks of LS_RB; it multiplies each chunk of a
 * block by groups of at most LS_RMAX rows, as few groups as can be (so
 * that the chunk's weights, read from L2 by the first group, are in L1
 * for the next), of equal size or full ones first (LS_FULL_GROUPS: on
 * AVX2, four rows as three and one, not two and two: a task's four rows
 * of a batch of 8 on two threads 6-10% faster on an AVX2 EPYC).  The
 * accumulators start from the rows of p, and each depth step broadcasts
 * the group's h values and multiplies them by the chunk's four weight
 * vectors of that step, one fused multiply-add per row and vector, in
 * depth order.  Where the batch is one row (a call of one row: a call
 * has at least two when the rows are split among threads), its one
 * group keeps two sets of accumulators, for even and odd depth steps,
 * added at the end, so that eight chains rather than four hide the
 * FMA's latency.  The
 * gates of the block's rows and chunks are then computed together
 * (gate-major: the i of every row and chunk, then f, g, o): four vmath
 * calls and two passes for c and h, whose masked stores write only units
 * that exist.  Every group sums its rows in the same order, and the
 * two-set form depends on the batch alone, so a row's sum is taken in
 * the same order whichever thread runs it, with whichever rows, and
 * however chunks are grouped into calls.
 */
#include "backends/cpu/lstm_seq.h"

#define LS_AI __attribute__((always_inline))
/* rows of a block: whole groups of LS_RMAX */
#define LS_RB (LS_RMAX * (12 / LS_RMAX))
/* floats of one gate of a block: rows x chunks x lanes */
#define LS_BLOCK (LS_RB * TFS_LSTM_GROUP * LS_L)

/* z of rows [r0, r0 + R) of chunk j (of nq) into the gate-major block
 * zb of rb rows starting at row b0: gate g, row r, chunk j at
 * ((g * rb + r - b0) * nq + j) * LS_L. */
static inline LS_TGT LS_AI void ls_dot(const int R, const tfs_lstm_chunk *a,
                                       int64_t r0, int64_t b0, int64_t rb,
                                       int64_t j, int64_t nq, float *zb) {
  LS_V acc[LS_RMAX][4];
  const float *h[LS_RMAX];
#pragma GCC unroll 8
  for (int r = 0; r < R; r++) {
    const float *p = a->p + (r0 + r) * a->p_rs + j * 4 * LS_L;
    h[r] = a->h + (r0 + r) * a->h_rs;
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) acc[r][g] = LS_LOAD(p + g * LS_L);
  }
  const float *u = a->u + j * a->units * 4 * LS_L;
  const int64_t depth = a->units;
  int64_t k = 0;
  if (R == 1 && a->rows == 1) {
    LS_V odd[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) odd[g] = LS_SET1(0.0f);
    for (; k + 2 <= depth; k += 2, u += 8 * LS_L) {
      const LS_V x0 = LS_SET1(h[0][k]), x1 = LS_SET1(h[0][k + 1]);
#pragma GCC unroll 4
      for (int g = 0; g < 4; g++) {
        acc[0][g] = LS_FMA(x0, LS_LOAD(u + g * LS_L), acc[0][g]);
        odd[g] = LS_FMA(x1, LS_LOAD(u + (4 + g) * LS_L), odd[g]);
      }
    }
    if (k < depth) {
      const LS_V x0 = LS_SET1(h[0][k]);
#pragma GCC unroll 4
      for (int g = 0; g < 4; g++)
        acc[0][g] = LS_FMA(x0, LS_LOAD(u + g * LS_L), acc[0][g]);
    }
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) acc[0][g] = LS_ADD(acc[0][g], odd[g]);
  } else {
    for (; k < depth; k++, u += 4 * LS_L) {
      LS_V x[LS_RMAX];
#pragma GCC unroll 8
      for (int r = 0; r < R; r++) x[r] = LS_SET1(h[r][k]);
#pragma GCC unroll 4
      for (int g = 0; g < 4; g++) {
        const LS_V w = LS_LOAD(u + g * LS_L);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) acc[r][g] = LS_FMA(x[r], w, acc[r][g]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; r++)
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++)
      LS_STORE(zb + ((g * rb + r0 + r - b0) * nq + j) * LS_L, acc[r][g]);
}

/* The gates of rows [r0, r0 + R) of chunks [0, nq) from zb: c and the
 * new h of the units that exist.  cb holds R * nq * LS_L floats. */
static LS_TGT void ls_gates(const int64_t R, const tfs_lstm_chunk *a,
                            int64_t r0, int64_t nq, float *zb, float *cb) {
  const int64_t n = R * nq * LS_L;
  LS_SIGMOID(zb, zb, 2 * n); /* i and f */
  LS_TANH(zb + 2 * n, zb + 2 * n, n);
  LS_SIGMOID(zb + 3 * n, zb + 3 * n, n);
  for (int64_t r = 0; r < R; r++)
    for (int64_t j = 0; j < nq; j++) {
      const int64_t at = (r * nq + j) * LS_L, left = a->units_left - j * LS_L;
      const LS_M m = LS_MASKN(left < LS_L ? (int)left : LS_L);
      float *c = a->c + (r0 + r) * a->ld + j * LS_L;
      LS_V fc = LS_MUL(LS_LOAD(zb + n + at), LS_LOADM(c, m));
      LS_V ig = LS_MUL(LS_LOAD(zb + at), LS_LOAD(zb + 2 * n + at));
      LS_OPAQUE(fc);
      LS_OPAQUE(ig);
      const LS_V cn = LS_ADD(fc, ig);
      LS_STOREM(c, m, cn);
      LS_STORE(cb + at, cn);
    }
  LS_TANH(cb, cb, n);
  for (int64_t r = 0; r < R; r++)
    for (int64_t j = 0; j < nq; j++) {
      const int64_t at = (r * nq + j) * LS_L, left = a->units_left - j * LS_L;
      const LS_M m = LS_MASKN(left < LS_L ? (int)left : LS_L);
      LS_STOREM(a->hn + (r0 + r) * a->ld + j * LS_L, m,
                LS_MUL(LS_LOAD(zb + 3 * n + at), LS_LOAD(cb + at)));
    }
}

/* Rows [r0, r0 + R) of chunk j. */
#define LS_ROWS(R) ls_dot((R), &b, r0, b0, rb, j, nq, zb)

LS_TGT void LS_CHUNK(const tfs_lstm_chunk *a) {
  _Alignas(64) float zb[4 * LS_BLOCK];
  _Alignas(64) float cb[LS_BLOCK];
  for (int64_t q = 0; q < a->nchunks; q += TFS_LSTM_GROUP) {
    const int64_t nq = a->nchunks - q < TFS_LSTM_GROUP ? a->nchunks - q
                                                      : TFS_LSTM_GROUP;
    tfs_lstm_chunk b = *a;
    b.p += q * 4 * LS_L;
    b.u += q * a->units * 4 * LS_L;
    b.c += q * LS_L;
    b.hn += q * LS_L;
    b.units_left -= q * LS_L;
    for (int64_t b0 = 0; b0 < a->rows; b0 += LS_RB) {
      const int64_t rb = a->rows - b0 < LS_RB ? a->rows - b0 : LS_RB;
      /* as few groups of rows as fit in registers: of equal size, or
       * (LS_FULL_GROUPS) full ones and the rest */
      const int64_t ng = (rb + LS_RMAX - 1) / LS_RMAX;
      for (int64_t j = 0; j < nq; j++)
        for (int64_t g = 0, r0 = b0; g < ng; g++) {
          switch (LS_FULL_GROUPS ? (g + 1 < ng ? LS_RMAX : rb - g * LS_RMAX)
                                 : rb / ng + (g < rb % ng)) {
            case 1: LS_ROWS(1); r0 += 1; break;
#if LS_RMAX > 1
            case 2: LS_ROWS(2); r0 += 2; break;
#endif
#if LS_RMAX > 2
            case 3: LS_ROWS(3); r0 += 3; break;
#endif
#if LS_RMAX > 3
            case 4: LS_ROWS(4); r0 += 4; break;
#endif
#if LS_RMAX > 4
            case 5: LS_ROWS(5); r0 += 5; break;
#endif
#if LS_RMAX > 5
            case 6: LS_ROWS(6); r0 += 6; break;
#endif
            default: break;
          }
        }
      ls_gates(rb, &b, b0, nq, zb, cb);
    }
  }
}

#undef LS_ROWS
#undef LS_RB
#undef LS_BLOCK
#undef LS_AI

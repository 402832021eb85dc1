/*
 * backends/cpu/lstm_seq_step.c - lstm_seq.h's chunk step in portable C
 * (8 units a chunk, four rows and eight chunks at a time, as
 * lstm_seq_simd.h does it), for CPUs below AVX2, and the
 * choice of the step for the instruction set in force.
 */
#include "core/cpu.h"
#include "backends/cpu/lstm_seq.h"
#include "backends/cpu/vmath.h"

/* Hides a float's value from the compiler, so that a product it holds is
 * not contracted into a fused multiply-add where the target has one. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define LS_OPAQUE(x) __asm__("" : "+x"(x))
#elif defined(__GNUC__) && defined(__aarch64__)
#define LS_OPAQUE(x) __asm__("" : "+w"(x))
#else
#define LS_OPAQUE(x) ((void)0)
#endif

enum { PL = 8, PW = 4 * PL, PR = 4, PB = PR * TFS_LSTM_GROUP * PL };

/* z of row r of chunk j (of nq) into the gate-major block zb of R rows:
 * gate g, row q, chunk j at ((g * R + q) * nq + j) * PL. */
static void row_dot(const tfs_lstm_chunk *a, int64_t r, int q, int R,
                    int64_t j, int64_t nq, float *zb) {
  const float *p = a->p + r * a->p_rs + j * PW, *h = a->h + r * a->h_rs;
  float z[PW];
  for (int i = 0; i < PW; i++) z[i] = p[i];
  const float *u = a->u + j * a->units * PW;
  for (int64_t k = 0; k < a->units; k++, u += PW) {
    const float x = h[k];
    for (int i = 0; i < PW; i++) z[i] += x * u[i];
  }
  for (int g = 0; g < 4; g++)
    for (int l = 0; l < PL; l++)
      zb[((g * R + q) * nq + j) * PL + l] = z[g * PL + l];
}

/* The gates of rows [r0, r0 + R) of chunks [0, nq), as lstm_seq_simd.h's
 * ls_gates. */
static void gates(const tfs_lstm_chunk *a, int64_t r0, int R, int64_t nq,
                  float *zb, float *cb) {
  const int64_t n = R * nq * PL;
  tfs_vm_sigmoid_f32(zb, zb, 2 * n); /* i and f */
  tfs_vm_tanh_f32(zb + 2 * n, zb + 2 * n, n);
  tfs_vm_sigmoid_f32(zb + 3 * n, zb + 3 * n, n);
  for (int q = 0; q < R; q++)
    for (int64_t j = 0; j < nq; j++) {
      const int64_t at = (q * nq + j) * PL, left = a->units_left - j * PL;
      float *c = a->c + (r0 + q) * a->ld + j * PL;
      for (int l = 0; l < PL; l++) {
        float cn = 0.0f;
        if (l < left) {
          float fc = zb[n + at + l] * c[l];
          float ig = zb[at + l] * zb[2 * n + at + l];
          LS_OPAQUE(fc);
          LS_OPAQUE(ig);
          cn = fc + ig;
          c[l] = cn;
        }
        cb[at + l] = cn;
      }
    }
  tfs_vm_tanh_f32(cb, cb, n);
  for (int q = 0; q < R; q++)
    for (int64_t j = 0; j < nq; j++) {
      const int64_t at = (q * nq + j) * PL, left = a->units_left - j * PL;
      float *hn = a->hn + (r0 + q) * a->ld + j * PL;
      for (int l = 0; l < PL && l < left; l++)
        hn[l] = zb[3 * n + at + l] * cb[at + l];
    }
}

void tfs_lstm__chunk_portable(const tfs_lstm_chunk *a) {
  float zb[4 * PB], cb[PB];
  for (int64_t q0 = 0; q0 < a->nchunks; q0 += TFS_LSTM_GROUP) {
    const int64_t nq = a->nchunks - q0 < TFS_LSTM_GROUP ? a->nchunks - q0
                                                       : TFS_LSTM_GROUP;
    tfs_lstm_chunk b = *a;
    b.p += q0 * PW;
    b.u += q0 * a->units * PW;
    b.c += q0 * PL;
    b.hn += q0 * PL;
    b.units_left -= q0 * PL;
    for (int64_t r0 = 0; r0 < a->rows; r0 += PR) {
      const int R = a->rows - r0 < PR ? (int)(a->rows - r0) : PR;
      for (int q = 0; q < R; q++)
        for (int64_t j = 0; j < nq; j++) row_dot(&b, r0 + q, q, R, j, nq, zb);
      gates(&b, r0, R, nq, zb, cb);
    }
  }
}

tfs_lstm_chunk_fn tfs_lstm__chunk_path(int *lanes) {
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512)) {
    *lanes = 16;
    return tfs_lstm__chunk_avx512;
  }
  *lanes = 8;
  return tfs_cpu_has(TFS_CPU_ISA_AVX2) ? tfs_lstm__chunk_avx2
                                       : tfs_lstm__chunk_portable;
}

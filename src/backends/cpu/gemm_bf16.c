/*
 * backends/cpu/gemm_bf16.c - the bfloat16 GEMM: float32 C from bfloat16 A
 * and B.  On CPUs with AMX (gemm_bf16_amx.c) or AVX512_BF16
 * (gemm_bf16_avx512.c: vdpbf16ps) it packs both operands in pairs of
 * depth steps and runs that family's kernels with the float driver's
 * blocking, tiling and per-thread buffers; elsewhere it widens the
 * operands to float32 for tfs_gemm_f32.
 */
#include <stdatomic.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/gemm_internal.h"
#include "core/alloc.h"
#include "core/cpu.h"
#include "core/threadpool.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

static inline uint32_t pair(uint16_t lo, uint16_t hi) {
  return (uint32_t)lo | (uint32_t)hi << 16;
}

/* The dot-product family in force, or NULL (widen). */
static const tfs_gemm_bf16_isa *dot_isa(void) {
  if (tfs_cpu_has_amx()) return &tfs_gemm_bf16_isa_amx;
  return tfs_cpu_has_bf16_dot() ? &tfs_gemm_bf16_isa_avx512 : NULL;
}

/* Pairs a panel of depth k holds for isa: (k + 1) / 2 rounded up to a
 * multiple of its ka. */
static int64_t pairs(const tfs_gemm_bf16_isa *isa, int64_t k) {
  return ((k + 1) / 2 + isa->ka - 1) / isa->ka * isa->ka;
}

int tfs_gemm_bf16_dot_in_force(void) { return dot_isa() != NULL; }

const char *tfs_gemm_bf16_describe(void) {
  const tfs_gemm_bf16_isa *isa = dot_isa();
  return isa ? isa->name : "widened to float32";
}

void tfs_gemm_round_bf16(const float *src, uint16_t *dst, int64_t n) {
  tfs_bf16_from_f32(src, dst, n);
}

/* ---- packing ---------------------------------------------------------- */

/* Rows [r0, r0 + mb) by depth [pc, pc + kb) of op(A) into mr-row panels
 * of kp = pairs(isa, kb): panel i at out + i * kp * mr, laid out [kp /
 * ka][mr][ka] (zero past the rows and the depth). */
static void pack_a(const tfs_gemm_bf16_isa *isa, int trans,
                   const uint16_t *a, int64_t lda, int64_t r0, int64_t mb,
                   int64_t pc, int64_t kb, uint32_t *out) {
  const int mr = isa->mr, ka = isa->ka;
  const int64_t kp = pairs(isa, kb), full = kb / 2, kr = (kb + 1) / 2;
  for (int64_t ip = 0; ip * mr < mb; ip++) {
    uint32_t *dst = out + ip * kp * mr;
    int64_t row = r0 + ip * mr;
    int rows = (int)MIN((int64_t)mr, mb - ip * mr);
    if (rows < mr || kr < kp)
      memset(dst, 0, sizeof(uint32_t) * (size_t)(kp * mr));
    /* pair q of row i */
#define AT(q, i) dst[(q) / ka * mr * ka + (int64_t)(i) * ka + (q) % ka]
    if (!trans) {
      for (int i = 0; i < rows; i++) {
        const uint16_t *s = a + (row + i) * lda + pc;
        int64_t q = 0;
        if (ka > 1) { /* a chunk of ka pairs is 2 ka values of the row */
          if (ka == 16) /* AMX: one 64-byte copy a chunk */
            for (; q + 16 <= full; q += 16) memcpy(&AT(q, i), s + 2 * q, 64);
          for (; q + ka <= full; q += ka)
            memcpy(&AT(q, i), s + 2 * q, sizeof(uint32_t) * (size_t)ka);
          if (q < full) { /* the pairs of a last, partial chunk */
            memcpy(&AT(q, i), s + 2 * q, sizeof(uint32_t) * (size_t)(full - q));
            q = full;
          }
        }
        for (; q < full; q++) AT(q, i) = pair(s[2 * q], s[2 * q + 1]);
        if (kb & 1) AT(full, i) = s[kb - 1];
      }
      continue;
    }
    for (int64_t q = 0; q < kr; q++) {
      const uint16_t *s0 = a + (pc + 2 * q) * lda + row;
      if (2 * q + 1 < kb)
        for (int i = 0; i < rows; i++) AT(q, i) = pair(s0[i], s0[lda + i]);
      else
        for (int i = 0; i < rows; i++) AT(q, i) = s0[i];
    }
#undef AT
  }
}

/* One pair row of an untransposed B panel: columns [0, cols) of depth
 * rows s0 and s1 (NULL past an odd depth) interleaved into d. */
static void pair_row(const uint16_t *s0, const uint16_t *s1, int cols,
                     uint32_t *d) {
  int j = 0;
  if (!s1) {
    for (; j < cols; j++) d[j] = s0[j];
    return;
  }
#ifdef __SSE2__
  for (; j + 8 <= cols; j += 8) {
    __m128i x0 = _mm_loadu_si128((const __m128i *)(s0 + j));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(s1 + j));
    _mm_storeu_si128((__m128i *)(d + j), _mm_unpacklo_epi16(x0, x1));
    _mm_storeu_si128((__m128i *)(d + j + 4), _mm_unpackhi_epi16(x0, x1));
  }
#endif
  for (; j < cols; j++) d[j] = pair(s0[j], s1[j]);
}

/* Panels [p0, p1) of op(B) (k x n) over the whole depth: panel jp
 * (columns [jp * nr, jp * nr + nr)) at out + jp * kp * nr, kp >= (k + 1)
 * / 2 pairs (zero past the depth). */
static void pack_b(int nr, int trans, const uint16_t *b, int64_t ldb,
                   int64_t k, int64_t n, int64_t kp, int64_t p0, int64_t p1,
                   uint32_t *out) {
  const int64_t kr = (k + 1) / 2, full = k / 2;
  for (int64_t jp = p0; jp < p1; jp++) {
    uint32_t *dst = out + jp * kp * nr;
    int64_t col = jp * nr;
    int cols = (int)MIN((int64_t)nr, n - col);
    if (cols < nr) memset(dst, 0, sizeof(uint32_t) * (size_t)(kp * nr));
    else if (kr < kp)
      memset(dst + kr * nr, 0, sizeof(uint32_t) * (size_t)((kp - kr) * nr));
    if (trans) {
      for (int j = 0; j < cols; j++) {
        const uint16_t *s = b + (col + j) * ldb;
        for (int64_t q = 0; q < full; q++)
          dst[q * nr + j] = pair(s[2 * q], s[2 * q + 1]);
        if (k & 1) dst[full * nr + j] = s[k - 1];
      }
      continue;
    }
    for (int64_t q = 0; q < kr; q++) {
      const uint16_t *s0 = b + 2 * q * ldb + col;
      pair_row(s0, 2 * q + 1 < k ? s0 + ldb : NULL, cols, dst + q * nr);
    }
  }
}

typedef struct {
  int nr, trans;
  const uint16_t *b;
  int64_t ldb, k, n, kp;
  uint32_t *out;
} packb_job;

static void packb_range(void *arg, int64_t p0, int64_t p1) {
  const packb_job *j = arg;
  pack_b(j->nr, j->trans, j->b, j->ldb, j->k, j->n, j->kp, p0, p1, j->out);
}

/* ---- the dot-product driver ------------------------------------------- */

/* One N block: tasks (row block, column chunk) of the tiling, each walks
 * the depth in KC blocks, packing its A block once per depth block (and
 * not again for the next chunk of the same rows when the depth is one
 * block). */
typedef struct {
  const tfs_gemm_bf16_isa *isa;
  int trans_a;
  const uint16_t *a;
  int64_t lda, k, kpt;    /* depth, pairs(isa, k) */
  const uint32_t *bpack;  /* this block's panel 0; panel jp + jp*kpt*nr */
  float *c;               /* column 0 of this block */
  int64_t ldc;
  tfs_gemm_tiling t;
  uint64_t tag;
  atomic_int failed;
} dot_job;

static void dot_tile(dot_job *j, tfs_gemm_tls *t, uint32_t *abuf,
                     int64_t mi, int64_t ic, int64_t mb, int64_t c0,
                     int64_t nb) {
  const tfs_gemm_bf16_isa *isa = j->isa;
  const int mr = isa->mr, nr = isa->nr;
  const int64_t mpanels = (mb + mr - 1) / mr;
  const int64_t jp0 = c0 / nr, jp1 = (c0 + nb + nr - 1) / nr;
  for (int64_t pc = 0; pc < j->k; pc += isa->kc) {
    int64_t kb = MIN((int64_t)isa->kc, j->k - pc), kp = pairs(isa, kb);
    if (t->a_tag != j->tag || t->a_block != mi || t->a_pc != pc) {
      pack_a(isa, j->trans_a, j->a, j->lda, ic, mb, pc, kb, abuf);
      t->a_tag = j->tag;
      t->a_block = mi;
      t->a_pc = pc;
    }
    for (int64_t jp = jp0; jp < jp1; jp++) {
      const uint32_t *bp = j->bpack + jp * j->kpt * nr + pc / 2 * nr;
      int cols = (int)MIN((int64_t)nr, j->t.n - jp * nr);
      float *crow = j->c + ic * j->ldc + jp * nr;
      for (int64_t ip = 0; ip < mpanels; ip++) {
        int rows = (int)MIN((int64_t)mr, mb - ip * mr);
        const uint32_t *ap = abuf + ip * kp * mr;
        float *ct = crow + ip * mr * j->ldc;
        if (isa->tile)
          isa->tile(rows, kp, ap, bp, ct, j->ldc, cols, pc > 0);
        else
          isa->ukr[rows](kp, ap, bp, ct, j->ldc, cols, pc > 0);
      }
    }
  }
}

static void dot_range(void *arg, int64_t begin, int64_t end) {
  dot_job *j = arg;
  const tfs_gemm_bf16_isa *isa = j->isa;
  tfs_gemm_tls *t = tfs_gemm__tls();
  size_t need = sizeof(uint32_t) * (size_t)(j->t.mc / isa->mr + 1) *
                (size_t)isa->mr * (size_t)(isa->kc / 2);
  uint32_t *abuf = tfs_gemm__tls_abuf(t, need);
  if (!abuf) {
    atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
    return;
  }
  if (isa->enter) isa->enter();
  for (int64_t task = begin; task < end; task++) {
    int64_t mi, ic, mb, c0, nb;
    tfs_gemm__tile_of(&j->t, task, &mi, &ic, &mb, &c0, &nb);
    dot_tile(j, t, abuf, mi, ic, mb, c0, nb);
  }
  if (isa->leave) isa->leave();
}

/* C[m, n] = op(A) * B for B packed by pack_b over depth k. */
static int run_dot(const tfs_gemm_bf16_isa *isa, int trans_a, int64_t m,
                   int64_t n, int64_t k, const uint16_t *a, int64_t lda,
                   const uint32_t *bpack, float *c, int64_t ldc,
                   tfs_threadpool *pool) {
  const int64_t kpt = pairs(isa, k);
  for (int64_t jc = 0; jc < n; jc += isa->nc) {
    int64_t nb = MIN((int64_t)isa->nc, n - jc);
    dot_job j;
    memset(&j, 0, sizeof j);
    j.isa = isa;
    j.trans_a = trans_a;
    j.a = a;
    j.lda = lda;
    j.k = k;
    j.kpt = kpt;
    j.bpack = bpack + jc / isa->nr * kpt * isa->nr;
    j.c = c + jc;
    j.ldc = ldc;
    int64_t cost = m * nb * k / isa->macs_per_ns + 1;
    int nt = tfs_threadpool_plan_threads(pool, cost, 1);
    int64_t ntasks = tfs_gemm__split_tiles(isa->mr, isa->nr,
                                           TFS_GEMM_SPLIT_ROWS_COLS, m, nb, nt,
                                           isa->mc, &j.t);
    j.tag = tfs_gemm__new_tag();
    tfs_threadpool_parallel_for(pool, ntasks, cost / ntasks + 1, dot_range,
                                &j);
    if (atomic_load(&j.failed)) return -1;
  }
  return 0;
}

/* ---- the widening path ------------------------------------------------ */

/* A rows x cols bfloat16 matrix (leading dimension ld) as a new float
 * matrix with leading dimension cols (tfs_free), or NULL. */
static float *widen(const uint16_t *x, int64_t rows, int64_t cols,
                    int64_t ld) {
  float *f = tfs_malloc(sizeof(float) * (size_t)(rows * cols + 1));
  if (!f) return NULL;
  for (int64_t r = 0; r < rows; r++)
    tfs_bf16_to_f32(x + r * ld, f + r * cols, cols);
  return f;
}

static void zero_c(int64_t m, int64_t n, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; i++)
    memset(c + i * ldc, 0, sizeof(float) * (size_t)n);
}

/* ---- entry points ----------------------------------------------------- */

int tfs_gemm_bf16(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                  const uint16_t *a, int64_t lda, const uint16_t *b,
                  int64_t ldb, float *c, int64_t ldc,
                  tfs_threadpool *pool) {
  if (m <= 0 || n <= 0) return 0;
  if (k <= 0) {
    zero_c(m, n, c, ldc);
    return 0;
  }
  const tfs_gemm_bf16_isa *isa = dot_isa();
  if (!isa) {
    float *af = trans_a ? widen(a, k, m, lda) : widen(a, m, k, lda);
    float *bf = trans_b ? widen(b, n, k, ldb) : widen(b, k, n, ldb);
    if (af && bf)
      tfs_gemm_f32(trans_a, trans_b, m, n, k, 1.0f, af, trans_a ? m : k, bf,
                   trans_b ? k : n, 0.0f, c, ldc, pool);
    int ok = af && bf;
    tfs_free(af);
    tfs_free(bf);
    return ok ? 0 : -1;
  }
  const int nr = isa->nr;
  const int64_t npanels = (n + nr - 1) / nr, kpt = pairs(isa, k);
  uint32_t *bbuf = tfs_gemm__tls_bbuf(
      tfs_gemm__tls(), sizeof(uint32_t) * (size_t)(npanels * nr * kpt));
  if (!bbuf) return -1;
  packb_job pj = {nr, trans_b, b, ldb, k, n, kpt, bbuf};
  tfs_threadpool_parallel_for(pool, npanels, kpt * nr / 2 + 1, packb_range,
                              &pj);
  return run_dot(isa, trans_a, m, n, k, a, lda, bbuf, c, ldc, pool);
}

struct tfs_gemm_packed_bf16 {
  int64_t k, n;
  const tfs_gemm_bf16_isa *isa; /* NULL: widened, in f */
  uint32_t *data;               /* panel j at data + j * kp * nr */
  tfs_gemm_packed *f;
};

tfs_gemm_packed_bf16 *tfs_gemm_pack_b_bf16(int trans_b, int64_t k, int64_t n,
                                           const uint16_t *b, int64_t ldb) {
  tfs_gemm_packed_bf16 *p = tfs_calloc(1, sizeof(*p));
  if (!p) return NULL;
  p->k = k;
  p->n = n;
  p->isa = dot_isa();
  if (p->isa) {
    const int nr = p->isa->nr;
    int64_t npanels = (n + nr - 1) / nr, kp = pairs(p->isa, k);
    p->data = tfs_aligned_alloc(sizeof(uint32_t) *
                                (size_t)(npanels * nr * kp + 1));
    if (!p->data) goto oom;
    pack_b(nr, trans_b, b, ldb, k, n, kp, 0, npanels, p->data);
    return p;
  }
  float *bf = trans_b ? widen(b, n, k, ldb) : widen(b, k, n, ldb);
  if (!bf) goto oom;
  p->f = tfs_gemm_pack_b_f32(trans_b, k, n, bf, trans_b ? k : n);
  tfs_free(bf);
  if (!p->f) goto oom;
  return p;
oom:
  tfs_free(p);
  return NULL;
}

void tfs_gemm_packed_bf16_free(tfs_gemm_packed_bf16 *p) {
  if (!p) return;
  tfs_aligned_free(p->data);
  tfs_gemm_packed_free(p->f);
  tfs_free(p);
}

int tfs_gemm_packed_bf16_dot(const tfs_gemm_packed_bf16 *p) {
  return p->isa != NULL;
}

int tfs_gemm_bf16_packed(int trans_a, int64_t m, const uint16_t *a,
                         int64_t lda, const tfs_gemm_packed_bf16 *b,
                         float *c, int64_t ldc, tfs_threadpool *pool) {
  const int64_t n = b->n, k = b->k;
  if (m <= 0 || n <= 0) return 0;
  if (k <= 0) {
    zero_c(m, n, c, ldc);
    return 0;
  }
  if (b->isa)
    return run_dot(b->isa, trans_a, m, n, k, a, lda, b->data, c, ldc, pool);
  float *af = trans_a ? widen(a, k, m, lda) : widen(a, m, k, lda);
  if (!af) return -1;
  tfs_gemm_f32_packed(trans_a, m, 1.0f, af, trans_a ? m : k, b->f, 0.0f, c,
                      ldc, pool);
  tfs_free(af);
  return 0;
}

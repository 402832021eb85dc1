/*
 * backends/cpu/gemm.c - the GEMM driver: picks the micro-kernel family for
 * this CPU once, blocks the product for the caches, packs A and B (B
 * possibly once, ahead of time) and splits the macro tiles over the
 * intra-op pool; without AVX2, rows go to single-threaded OpenBLAS.
 */

/*
 * Blocking is BLIS's: N blocks of NC columns, K blocks of KC, M blocks of
 * MC rows; a KCxNR B panel stays in L1 while the MCxKC A block streams
 * from L2 and the KCxNC B block sits in L3.
 */
#include "backends/cpu/gemm.h"

#include <cblas.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <xmmintrin.h>
#endif

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/log.h"
#include "core/threadpool.h"
#include "backends/cpu/gemm_internal.h"
#include "backends/cpu/store_act.h"

/* OpenBLAS extensions; weak so that another CBLAS also links. */
extern char *openblas_get_corename(void) __attribute__((weak));
extern char *openblas_get_config(void) __attribute__((weak));
extern void openblas_set_num_threads(int n) __attribute__((weak));

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;
static const tfs_gemm_isa *g_auto;       /* best family for this CPU */
static tfs_gemm_isa g_custom;            /* tfs_gemm__set_blocking */
static const tfs_gemm_isa *_Atomic g_isa; /* in use; NULL: OpenBLAS */
static char g_desc[160];
static atomic_ullong g_tag;

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef tfs_gemm_tls tls_bufs;

static void tls_destroy(void *p) {
  tls_bufs *t = p;
  tfs_aligned_free(t->a);
  tfs_aligned_free(t->b);
  free(t);
}

static void describe(void) {
  const tfs_gemm_isa *isa = atomic_load(&g_isa);
  const char *core = openblas_get_corename ? openblas_get_corename() : NULL;
  if (isa)
    snprintf(g_desc, sizeof g_desc, "tfsess %s (OpenBLAS core %s, 1 thread)",
             isa->name, core ? core : "n/a");
  else
    snprintf(g_desc, sizeof g_desc, "OpenBLAS core %s, 1 thread per "
             "intra-op worker", core ? core : "unknown");
}

static void init_once(void) {
  pthread_key_create(&g_key, tls_destroy);
  if (tfs_cpu_has(TFS_CPU_ISA_AVX512))
    g_auto = &tfs_gemm_isa_avx512;
  else if (tfs_cpu_has(TFS_CPU_ISA_AVX2))
    g_auto = &tfs_gemm_isa_avx2;
  atomic_store(&g_isa, g_auto);
  /* We split GEMMs over the intra-op pool ourselves: OpenBLAS's own
   * threads would only compete with it. */
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  describe();
}

void tfs_gemm_init(void) {
  pthread_once(&g_once, init_once);
  if (tfs_log_enabled(TFS_LOG_DEBUG))
    tfs_log(TFS_LOG_DEBUG, "gemm: %s; %s", g_desc,
            openblas_get_config ? openblas_get_config() : "no OpenBLAS");
}

int tfs_gemm_panel_rows(void) {
  pthread_once(&g_once, init_once);
  const tfs_gemm_isa *isa = atomic_load_explicit(&g_isa, memory_order_relaxed);
  return isa ? isa->mr : 1;
}

const char *tfs_gemm_describe(void) {
  pthread_once(&g_once, init_once);
  return g_desc;
}

int tfs_gemm__force_path(const char *name) {
  pthread_once(&g_once, init_once);
  const tfs_gemm_isa *isa;
  if (!name || strcmp(name, "auto") == 0) {
    isa = g_auto;
  } else if (strcmp(name, "openblas") == 0) {
    isa = NULL;
  } else if (strcmp(name, "avx2") == 0) {
    if (!tfs_cpu_has(TFS_CPU_ISA_AVX2)) return -1;
    isa = &tfs_gemm_isa_avx2;
  } else if (strcmp(name, "avx512") == 0) {
    if (!tfs_cpu_has(TFS_CPU_ISA_AVX512)) return -1;
    isa = &tfs_gemm_isa_avx512;
  } else {
    return -1;
  }
  atomic_store(&g_isa, isa);
  describe();
  return 0;
}

int tfs_gemm__set_blocking(int kc, int mc, int nc) {
  pthread_once(&g_once, init_once);
  const tfs_gemm_isa *cur = atomic_load(&g_isa);
  if (!cur || kc < 1 || mc < cur->mr || nc < cur->nr) return -1;
  if (cur != &g_custom) g_custom = *cur;
  g_custom.kc = kc;
  g_custom.mc = mc - mc % g_custom.mr;
  g_custom.nc = nc - nc % g_custom.nr;
  atomic_store(&g_isa, &g_custom);
  return 0;
}

static tls_bufs *tls(void) {
  static __thread tls_bufs *t;
  if (!t) {
    t = calloc(1, sizeof(*t));
    if (t) pthread_setspecific(g_key, t);
  }
  return t;
}

static float *tls_grow(float **p, size_t *cap, size_t need) {
  if (*cap >= need) return *p;
  tfs_aligned_free(*p);
  *p = tfs_aligned_alloc(need * sizeof(float));
  *cap = *p ? need : 0;
  return *p;
}

/* The A packing buffer with room for `need` floats; a new buffer holds no
 * packed block. */
static float *tls_abuf(tls_bufs *t, size_t need) {
  if (!t) return NULL;
  float *old = t->a;
  float *a = tls_grow(&t->a, &t->acap, need);
  if (a != old) t->a_tag = 0;
  return a;
}

tfs_gemm_tls *tfs_gemm__tls(void) {
  pthread_once(&g_once, init_once);
  return tls();
}

void *tfs_gemm__tls_abuf(tfs_gemm_tls *t, size_t bytes) {
  return tls_abuf(t, (bytes + sizeof(float) - 1) / sizeof(float));
}

void *tfs_gemm__tls_bbuf(tfs_gemm_tls *t, size_t bytes) {
  if (!t) return NULL;
  return tls_grow(&t->b, &t->bcap,
                  (bytes + sizeof(float) - 1) / sizeof(float));
}

uint64_t tfs_gemm__new_tag(void) { return atomic_fetch_add(&g_tag, 1) + 1; }

/* ---- packing ---------------------------------------------------------------- */

#ifdef __SSE2__
/* Four depth steps of six rows: a 4x4 transpose of rows 0-3 and the
 * pairs of rows 4-5, written as four 6-float columns of the panel. */
static inline void transpose_6x4(const float *const *src, int64_t p,
                                 float *dst) {
  __m128 r0 = _mm_loadu_ps(src[0] + p), r1 = _mm_loadu_ps(src[1] + p);
  __m128 r2 = _mm_loadu_ps(src[2] + p), r3 = _mm_loadu_ps(src[3] + p);
  __m128 r4 = _mm_loadu_ps(src[4] + p), r5 = _mm_loadu_ps(src[5] + p);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  __m128 lo = _mm_unpacklo_ps(r4, r5), hi = _mm_unpackhi_ps(r4, r5);
  _mm_storeu_ps(dst, r0);
  _mm_storel_pi((__m64 *)(dst + 4), lo);
  _mm_storeu_ps(dst + 6, r1);
  _mm_storeh_pi((__m64 *)(dst + 10), lo);
  _mm_storeu_ps(dst + 12, r2);
  _mm_storel_pi((__m64 *)(dst + 16), hi);
  _mm_storeu_ps(dst + 18, r3);
  _mm_storeh_pi((__m64 *)(dst + 22), hi);
}

/* Four depth steps of rows src[0..3]: a 4x4 transpose written as four
 * 4-float pieces of the panel's columns, `mr` apart. */
static inline void transpose_4x4(const float *const *src, int64_t p,
                                 float *dst, int mr) {
  __m128 r0 = _mm_loadu_ps(src[0] + p), r1 = _mm_loadu_ps(src[1] + p);
  __m128 r2 = _mm_loadu_ps(src[2] + p), r3 = _mm_loadu_ps(src[3] + p);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(dst, r0);
  _mm_storeu_ps(dst + mr, r1);
  _mm_storeu_ps(dst + 2 * mr, r2);
  _mm_storeu_ps(dst + 3 * mr, r3);
}
#endif

/* Row panel ip of a block of mb rows: its first row (from the block's)
 * and its rows.  Panels of MR rows, except that a short tail (at most
 * MR / 2 rows) shares the last two panels with the full panel before it
 * (8 rows of MR 6: 4 + 4, not 6 + 2): a kernel of one or two rows keeps
 * too few accumulators to hide the FMA latency (an LSTM step's 8 x 128 x
 * 512 product spent 38% of its time in the 2-row panel), while every
 * element is still one sum over the depth in order, so the bits stay. */
static inline int panel_rows(int64_t mb, int mr, int64_t ip, int64_t *row) {
  int64_t np = (mb + mr - 1) / mr, tail = mb % mr;
  if (np < 2 || tail == 0 || 2 * tail > mr || ip < np - 2) {
    *row = ip * mr;
    return (int)MIN((int64_t)mr, mb - ip * mr);
  }
  int64_t both = mr + tail, first = (both + 1) / 2;
  *row = (np - 2) * mr + (ip == np - 1 ? first : 0);
  return (int)(ip == np - 1 ? both - first : first);
}

/* A rows [r0, r0 + mb) x cols [pc, pc + kb) into MR-row panels
 * (panel_rows). */
static void pack_a(const tfs_gemm_isa *isa, int trans, const float *a,
                   int64_t lda, int64_t r0, int64_t mb, int64_t pc,
                   int64_t kb, float *out) {
  const int mr = isa->mr;
  for (int64_t ip = 0; ip * mr < mb; ip++) {
    float *dst = out + ip * kb * mr;
    int64_t row;
    int rows = panel_rows(mb, mr, ip, &row);
    row += r0;
    if (!trans) {
      /* read mr rows side by side, write the panel contiguously */
      const float *src[TFS_GEMM_MAX_MR];
      for (int i = 0; i < rows; i++) src[i] = a + (row + i) * lda + pc;
      if (rows == 6 && mr == 6) { /* the row pointers in registers */
        const float *s0 = src[0], *s1 = src[1], *s2 = src[2], *s3 = src[3],
                    *s4 = src[4], *s5 = src[5];
        int64_t p = 0;
#ifdef __SSE2__
        for (; p + 4 <= kb; p += 4, dst += 24) transpose_6x4(src, p, dst);
#endif
        for (; p < kb; p++, dst += 6) {
          dst[0] = s0[p], dst[1] = s1[p], dst[2] = s2[p];
          dst[3] = s3[p], dst[4] = s4[p], dst[5] = s5[p];
        }
      } else if (rows == mr) {
        int64_t p = 0;
#ifdef __SSE2__
        /* groups of four rows by four depths (MR 12 on AVX-512: the
         * scalar copy was a third of an attention product's time) */
        if (mr % 4 == 0)
          for (; p + 4 <= kb; p += 4, dst += 4 * mr)
            for (int g = 0; g < mr; g += 4)
              transpose_4x4(src + g, p, dst + g, mr);
#endif
        for (; p < kb; p++, dst += mr)
          for (int i = 0; i < mr; i++) dst[i] = src[i][p];
      } else {
        /* a partial panel (a batch of one): zero it in one go, then
         * scatter the rows (a zero loop per step would become a memset
         * call per step) */
        memset(dst, 0, sizeof(float) * (size_t)(kb * mr));
        for (int i = 0; i < rows; i++) {
          const float *s = src[i];
          for (int64_t p = 0; p < kb; p++) dst[p * mr + i] = s[p];
        }
      }
    } else {
      if (rows < mr) memset(dst, 0, sizeof(float) * (size_t)(kb * mr));
      for (int64_t p = 0; p < kb; p++) {
        const float *src = a + (pc + p) * lda + row;
        float *d = dst + p * mr;
        for (int i = 0; i < rows; i++) d[i] = src[i];
      }
    }
  }
}

/* Rows [q0, q0 + qn) of B panel jp (not transposed), the copy sized
 * at compile time for whole panels of the kernels' widths. */
static inline void pack_b_rows(int nr, const float *src, int64_t ldb,
                               int cols, int64_t qn, float *dst) {
  if (cols == nr && nr == 16)
    for (int64_t q = 0; q < qn; q++)
      memcpy(dst + q * 16, src + q * ldb, sizeof(float) * 16);
  else if (cols == nr && nr == 32)
    for (int64_t q = 0; q < qn; q++)
      memcpy(dst + q * 32, src + q * ldb, sizeof(float) * 32);
  else
    for (int64_t q = 0; q < qn; q++) {
      memcpy(dst + q * nr, src + q * ldb, sizeof(float) * (size_t)cols);
      memset(dst + q * nr + cols, 0, sizeof(float) * (size_t)(nr - cols));
    }
}

/* B panels [p0, p1) of the block rows [pc, pc + kb) x cols [jc, jc + nb);
 * panel jp goes to out + jp * stride.  Untransposed B is read a few rows
 * at a time across all the panels: whole cache lines of contiguous rows,
 * not one line per row of a far-strided column strip. */
static void pack_b(int nr, int trans, const float *b, int64_t ldb,
                   int64_t pc, int64_t kb, int64_t jc, int64_t nb,
                   int64_t p0, int64_t p1, float *out, int64_t stride) {
  if (!trans) {
    enum { ROWS = 8 };
    for (int64_t q0 = 0; q0 < kb; q0 += ROWS) {
      int64_t qn = MIN((int64_t)ROWS, kb - q0);
      for (int64_t jp = p0; jp < p1; jp++) {
        int64_t col = jc + jp * nr;
        int cols = (int)MIN((int64_t)nr, jc + nb - col);
        pack_b_rows(nr, b + (pc + q0) * ldb + col, ldb, cols, qn,
                    out + jp * stride + q0 * nr);
      }
    }
    return;
  }
  for (int64_t jp = p0; jp < p1; jp++) {
    float *dst = out + jp * stride;
    int64_t col = jc + jp * nr;
    int cols = (int)MIN((int64_t)nr, jc + nb - col);
    int j = 0;
#ifdef __SSE2__
    /* four columns (rows of the stored B) by four depths at a time: an
     * attention's keys read as adj_y, one strided store per element
     * before */
    for (; j + 4 <= cols; j += 4) {
      const float *s0 = b + (col + j) * ldb + pc, *s1 = s0 + ldb,
                  *s2 = s1 + ldb, *s3 = s2 + ldb;
      int64_t p = 0;
      for (; p + 4 <= kb; p += 4) {
        __m128 r0 = _mm_loadu_ps(s0 + p), r1 = _mm_loadu_ps(s1 + p);
        __m128 r2 = _mm_loadu_ps(s2 + p), r3 = _mm_loadu_ps(s3 + p);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        float *d = dst + p * nr + j;
        _mm_storeu_ps(d, r0);
        _mm_storeu_ps(d + nr, r1);
        _mm_storeu_ps(d + 2 * nr, r2);
        _mm_storeu_ps(d + 3 * nr, r3);
      }
      for (; p < kb; p++) {
        float *d = dst + p * nr + j;
        d[0] = s0[p], d[1] = s1[p], d[2] = s2[p], d[3] = s3[p];
      }
    }
#endif
    for (; j < cols; j++) {
      const float *src = b + (col + j) * ldb + pc;
      for (int64_t p = 0; p < kb; p++) dst[p * nr + j] = src[p];
    }
    for (int64_t p = 0; p < kb; p++)
      for (int j = cols; j < nr; j++) dst[p * nr + j] = 0.0f;
  }
}

typedef struct {
  int nr, trans;
  const float *b;
  int64_t ldb, pc, kb, jc, nb, stride;
  float *out;
} packb_job;

static void packb_range(void *arg, int64_t begin, int64_t end) {
  packb_job *j = arg;
  pack_b(j->nr, j->trans, j->b, j->ldb, j->pc, j->kb, j->jc, j->nb, begin,
         end, j->out, j->stride);
}

/* ---- macro tiles ---------------------------------------------------------------- */

/* One N block of a product whose B block is packed over the whole depth
 * k: panel jp at bpack + jp * k * nr.  Tasks are (column chunk, row
 * block) pairs; each walks all of K itself, so a product is one fork. */
typedef struct {
  const tfs_gemm_isa *isa;
  int trans_a;
  const float *a;
  int64_t lda, m, k;
  const float *bpack;
  int64_t nb, npanels;   /* columns of this block, their panels */
  float alpha, beta;
  float *c;              /* column 0 of this block */
  int64_t ldc;
  int64_t panels, mblocks, chunk_panels; /* row panels, blocks of them */
  int64_t mc;                            /* rows of a block, at most */
  uint64_t tag;
  /* called with each finished tile (columns relative to col0), or NULL */
  void (*done)(void *arg, int64_t r0, int64_t mb, int64_t c0, int64_t nb);
  void *done_arg;
  int64_t col0; /* this block's first column in the caller's C */
} macro_job;

/* Scalar fallback for one tile when a packing buffer is unavailable. */
static void tile_naive(const macro_job *j, int64_t ic, int64_t mb,
                       int64_t jp0, int64_t jp1) {
  const int nr = j->isa->nr;
  for (int64_t i = ic; i < ic + mb; i++) {
    for (int64_t jp = jp0; jp < jp1; jp++) {
      const float *bp = j->bpack + jp * j->k * nr;
      int64_t col = jp * nr;
      int cols = (int)MIN((int64_t)nr, j->nb - col);
      for (int q = 0; q < cols; q++) {
        float acc = 0.0f;
        for (int64_t p = 0; p < j->k; p++) {
          float x = j->trans_a ? j->a[p * j->lda + i] : j->a[i * j->lda + p];
          acc += x * bp[p * nr + q];
        }
        float *cc = j->c + i * j->ldc + col + q;
        *cc = j->alpha * acc + (j->beta != 0.0f ? j->beta * *cc : 0.0f);
      }
    }
  }
}

/* The smallest packed B (bytes) whose products prefetch it: below, B is
 * small enough to stay in L2 between its uses or for the hardware
 * prefetcher to keep up, and the prefetches only cost load slots
 * (MobileNetV2 at batch 1, whose weights are mostly under 256 KiB a
 * layer, 2% slower with them on the AVX2 kernels; ResNet50's 0.5-9 MiB
 * layers faster).  Nor do products of fewer rows than a panel: a one-row
 * tile is short and bound by its FMA latency, and its B is usually used
 * again at once (an LSTM's step product, 1 x 192 x 512, 13% slower with
 * it). */
#define PF_MIN_BYTES ((int64_t)256 << 10)

/* Row panel ip of mp's share of the next B block (`lines` cache lines
 * from next, NULL: none) for the micro-kernel's prefetch: each of the
 * tiles that pass over one B block brings in its part of the next, so
 * the whole block arrives while this one is multiplied. */
static inline void pf_share(const float *next, int64_t lines, int64_t ip,
                            int64_t mp, const float **pf, int64_t *npf) {
  if (!next) {
    *pf = NULL;
    *npf = 0;
    return;
  }
  int64_t l0 = lines * ip / mp, l1 = lines * (ip + 1) / mp;
  *pf = next + l0 * 16;
  *npf = l1 - l0;
}

/* The B block of panel jp (in [jp0, jp1)) at depth pc of a packed B of
 * depth k that the loops below take after (jp, pc): the next panel, else
 * the first panel of the next depth block; NULL after the last.  *lines:
 * its size in cache lines. */
static inline const float *next_block(const float *bpack, int nr, int kc,
                                      int64_t k, int64_t jp, int64_t jp0,
                                      int64_t jp1, int64_t pc,
                                      int64_t *lines) {
  int64_t kb = MIN((int64_t)kc, k - pc);
  if (jp + 1 < jp1) {
    *lines = kb * nr / 16;
    return bpack + (jp + 1) * k * nr + pc * nr;
  }
  if (pc + kc < k) {
    *lines = MIN((int64_t)kc, k - pc - kc) * nr / 16;
    return bpack + jp0 * k * nr + (pc + kc) * nr;
  }
  *lines = 0;
  return NULL;
}

static void macro_range(void *arg, int64_t begin, int64_t end) {
  const macro_job *j = arg;
  const tfs_gemm_isa *isa = j->isa;
  const int mr = isa->mr, nr = isa->nr;
  tls_bufs *t = tls();
  float *abuf = tls_abuf(t, (size_t)(j->mc / mr + 1) * mr *
                                (size_t)MIN(j->k, (int64_t)isa->kc));
  const int pf_on =
      j->k * j->npanels * nr * 4 >= PF_MIN_BYTES && j->m >= mr;
  for (int64_t task = begin; task < end; task++) {
    /* chunk-major: a thread's consecutive tasks share B panels */
    int64_t ci = task / j->mblocks, mi = task % j->mblocks, ic, mb;
    tfs_gemm__block_rows(j->m, mr, j->panels, j->mblocks, mi, &ic, &mb);
    int64_t jp0 = ci * j->chunk_panels;
    int64_t jp1 = MIN(j->npanels, jp0 + j->chunk_panels);
    int64_t mpanels = (mb + mr - 1) / mr;
    if (!abuf) {
      tile_naive(j, ic, mb, jp0, jp1);
      if (j->done)
        j->done(j->done_arg, ic, mb, j->col0 + jp0 * nr,
                MIN(j->nb, jp1 * nr) - jp0 * nr);
      continue;
    }
    for (int64_t pc = 0; pc < j->k; pc += isa->kc) {
      int64_t kb = MIN((int64_t)isa->kc, j->k - pc);
      float beta = pc == 0 ? j->beta : 1.0f;
      if (t->a_tag != j->tag || t->a_block != mi || t->a_pc != pc) {
        pack_a(isa, j->trans_a, j->a, j->lda, ic, mb, pc, kb, abuf);
        t->a_tag = j->tag;
        t->a_block = mi;
        t->a_pc = pc;
      }
      if (mb == 1 && isa->row) { /* one row: several panels at once */
        for (int64_t jp = jp0; jp < jp1; jp += TFS_GEMM_ROW_PANELS) {
          int np = (int)MIN((int64_t)TFS_GEMM_ROW_PANELS, jp1 - jp);
          isa->row(kb, abuf, j->bpack + jp * j->k * nr + pc * nr, j->k * nr,
                   np, j->c + ic * j->ldc + jp * nr,
                   (int)MIN((int64_t)np * nr, j->nb - jp * nr), j->alpha,
                   beta);
        }
        continue;
      }
      for (int64_t jp = jp0; jp < jp1; jp++) {
        const float *bp = j->bpack + jp * j->k * nr + pc * nr;
        int cols = (int)MIN((int64_t)nr, j->nb - jp * nr);
        float *crow = j->c + ic * j->ldc + jp * nr;
        int64_t lines;
        const float *next = next_block(j->bpack, nr, isa->kc, j->k, jp, jp0,
                                       jp1, pc, &lines);
        if (!pf_on) next = NULL;
        for (int64_t ip = 0; ip < mpanels; ip++) {
          int64_t row, npf;
          const float *pf;
          int rows = panel_rows(mb, mr, ip, &row);
          pf_share(next, lines, ip, mpanels, &pf, &npf);
          isa->ukr[rows](kb, abuf + ip * kb * mr, bp, crow + row * j->ldc,
                         j->ldc, cols, j->alpha, beta, pf, npf);
        }
      }
    }
    if (j->done)
      j->done(j->done_arg, ic, mb, j->col0 + jp0 * nr,
              MIN(j->nb, jp1 * nr) - jp0 * nr);
  }
}

/* The most rows a row block of a product of depth k takes: MC, or where
 * the depth is below KC as many as keep the block's packed A (MC x KC
 * floats) in L2.  A 128-row product of depth 256 is then one block, B
 * streamed from L3 once, not twice (BERT's feed-forward product at batch
 * 1 on one Zen 3 thread, 128 x 256 x 1024: 81 -> 84 GFLOP/s, medians of
 * 300 alternating runs; 1024 rows unchanged). */
static int64_t block_rows(const tfs_gemm_isa *isa, int64_t k) {
  int64_t kb = MIN(k, (int64_t)isa->kc), rows = isa->mc;
  if (kb < isa->kc) rows = (int64_t)isa->mc * isa->kc / kb;
  return MAX(rows - rows % isa->mr, (int64_t)isa->mr);
}

/* Runs one N block: one parallel loop over its macro tiles. */
static void run_block(macro_job *j, tfs_threadpool *pool) {
  const tfs_gemm_isa *isa = j->isa;
  /* Time on one core: the FMAs (~32 flop/ns) plus streaming the packed B
   * (~16 bytes/ns from L3), which dominates thin products (batch 1) and
   * is worth splitting too. */
  int64_t flops = 2 * j->m * j->nb * j->k;
  int64_t cost = flops / 32 + j->k * j->npanels * isa->nr * 4 / 16 + 1;
  int nt = tfs_threadpool_plan_threads(pool, cost, 1);
  /* The cuts of tfs_gemm__split_tiles' large tasks: row blocks of at
   * most MC rows, the panels dealt out evenly, a multiple of the thread
   * count (1024 rows: ten blocks of 17 or 18 panels, not nine of 18 and
   * one of 9, which left one thread finishing alone); then column chunks
   * of whole panels up to two tasks per thread (BERT at batch 1, 128
   * rows on two threads: 2 x 2 tasks of 64 rows by half the columns;
   * eight tasks of 16 rows, which each streamed all of B, were 7-11%
   * slower alone and about 7% slower in the model). */
  tfs_gemm_tiling t;
  int64_t ntasks = tfs_gemm__split_tiles(isa->mr, isa->nr,
                                         TFS_GEMM_SPLIT_LARGE, j->m, j->nb,
                                         nt, block_rows(isa, j->k), &t);
  j->mc = t.mc;
  j->panels = t.panels;
  j->mblocks = t.mblocks;
  j->chunk_panels = t.chunk_cols / isa->nr;
  j->tag = atomic_fetch_add(&g_tag, 1) + 1;
  tfs_threadpool_parallel_for(pool, ntasks, cost / ntasks + 1, macro_range,
                              j);
}

static void scale_c(int64_t m, int64_t n, float beta, float *c, int64_t ldc) {
  for (int64_t i = 0; i < m; i++) {
    float *r = c + i * ldc;
    if (beta == 0.0f)
      memset(r, 0, sizeof(float) * (size_t)n);
    else
      for (int64_t q = 0; q < n; q++) r[q] *= beta;
  }
}

/* ---- OpenBLAS path: rows over the pool, one BLAS thread each ------------------ */

typedef struct {
  int ta, tb;
  int64_t n, k;
  float alpha, beta;
  const float *a, *b;
  int64_t lda, ldb, ldc;
  float *c;
} blas_job;

static void blas_rows(void *arg, int64_t r0, int64_t r1) {
  const blas_job *j = arg;
  const float *a = j->ta ? j->a + r0 : j->a + r0 * j->lda;
  cblas_sgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans,
              j->tb ? CblasTrans : CblasNoTrans, (int)(r1 - r0), (int)j->n,
              (int)j->k, j->alpha, a, (int)j->lda, j->b, (int)j->ldb,
              j->beta, j->c + r0 * j->ldc, (int)j->ldc);
}

static void gemm_blas(int ta, int tb, int64_t m, int64_t n, int64_t k,
                      float alpha, const float *a, int64_t lda,
                      const float *b, int64_t ldb, float beta, float *c,
                      int64_t ldc, tfs_threadpool *pool) {
  blas_job j = {ta, tb, n, k, alpha, beta, a, b, lda, ldb, ldc, c};
  tfs_threadpool_parallel_for(pool, m, 2 * n * k / 32 + 1, blas_rows, &j);
}

typedef struct {
  int ta, tb;
  int64_t n, k;
  double alpha, beta;
  const double *a, *b;
  int64_t lda, ldb, ldc;
  double *c;
} dblas_job;

static void dblas_rows(void *arg, int64_t r0, int64_t r1) {
  const dblas_job *j = arg;
  const double *a = j->ta ? j->a + r0 : j->a + r0 * j->lda;
  cblas_dgemm(CblasRowMajor, j->ta ? CblasTrans : CblasNoTrans,
              j->tb ? CblasTrans : CblasNoTrans, (int)(r1 - r0), (int)j->n,
              (int)j->k, j->alpha, a, (int)j->lda, j->b, (int)j->ldb,
              j->beta, j->c + r0 * j->ldc, (int)j->ldc);
}

void tfs_gemm_f64(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                  double alpha, const double *a, int64_t lda,
                  const double *b, int64_t ldb, double beta, double *c,
                  int64_t ldc, tfs_threadpool *pool) {
  pthread_once(&g_once, init_once);
  if (m <= 0 || n <= 0) return;
  dblas_job j = {trans_a, trans_b, n, k, alpha, beta, a, b, lda, ldb, ldc, c};
  /* ~16 double flop/ns on one AVX2 core */
  tfs_threadpool_parallel_for(pool, m, 2 * n * k / 16 + 1, dblas_rows, &j);
}

/* ---- thin products --------------------------------------------------------------- */

/* Up to this many rows, tfs_gemm_f32 multiplies by B where it lies, in
 * groups of four rows: packing B per call cost more than streaming it
 * twice (a Keras LSTM at batch 8, 32 steps: 800 -> 600 us). */
static int g_thin_rows = 8;

typedef struct {
  const tfs_gemm_isa *isa;
  int64_t m, k, n, chunk;
  float alpha, beta;
  const float *a, *b;
  int64_t lda, ldb, ldc;
  float *c;
} thin_job;

/* Column chunks [q0, q1), every row group of up to four rows, in depth
 * blocks of KC with beta 1 after the first, as the packed path. */
static void thin_range(void *arg, int64_t q0, int64_t q1) {
  const thin_job *j = arg;
  int64_t j0 = q0 * j->chunk, j1 = MIN(j->n, q1 * j->chunk);
  for (int64_t i = 0; i < j->m; i += 4) {
    int rows = (int)MIN(4, j->m - i);
    for (int64_t pc = 0; pc < j->k; pc += j->isa->kc) {
      int64_t kb = MIN((int64_t)j->isa->kc, j->k - pc);
      j->isa->thin(rows, kb, j1 - j0, j->a + i * j->lda + pc, j->lda,
                   j->b + pc * j->ldb + j0, j->ldb, j->c + i * j->ldc + j0,
                   j->ldc, j->alpha, pc == 0 ? j->beta : 1.0f);
    }
  }
}

/* op(A) of m <= g_thin_rows rows times B (neither transposed), split
 * over the pool in column chunks.  Returns 0, or -1 when this family has
 * no thin kernels. */
static int gemm_thin(const tfs_gemm_isa *isa, int64_t m, int64_t n,
                     int64_t k, float alpha, const float *a, int64_t lda,
                     const float *b, int64_t ldb, float beta, float *c,
                     int64_t ldc, tfs_threadpool *pool) {
  if (!isa->thin) return -1;
  /* chunks of 128 columns (whole kernel blocks), enough for every
   * thread when the product is large.  A chunk's time is its FMAs plus
   * reading its k x 128 block of B (~16 bytes/ns from L3, as run_block
   * counts the packed B), which is most of it: a squeeze-and-excite
   * 1x1 convolution at batch 1 (960 x 240) reads 0.9 MB for 0.46
   * Mflop, ~60 us, and its FMAs alone (~15 us) kept it on one thread. */
  const int64_t chunk = 128;
  thin_job j = {isa, m, k, n, chunk, alpha, beta, a, b, lda, ldb, ldc, c};
  tfs_threadpool_parallel_for(pool, (n + chunk - 1) / chunk,
                              tfs_gemm_cost_ns(m, chunk, k) +
                                  k * chunk * 4 / 16,
                              thin_range, &j);
  return 0;
}

int tfs_gemm__set_thin_rows(int rows) {
  if (rows < 0 || rows > TFS_GEMM_MAX_MR) return -1;
  int old = g_thin_rows;
  g_thin_rows = rows;
  return old;
}

/* ---- entry points ------------------------------------------------------------- */

/* Largest B block packed at once (floats): K x columns. */
#define MAX_BBLOCK (8 << 20)

void tfs_gemm_f32(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                  float alpha, const float *a, int64_t lda, const float *b,
                  int64_t ldb, float beta, float *c, int64_t ldc,
                  tfs_threadpool *pool) {
  pthread_once(&g_once, init_once);
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || alpha == 0.0f) {
    scale_c(m, n, beta, c, ldc);
    return;
  }
  const tfs_gemm_isa *isa = atomic_load_explicit(&g_isa, memory_order_relaxed);
  if (isa && m <= g_thin_rows && !trans_a && !trans_b &&
      gemm_thin(isa, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, pool) == 0)
    return;
  /* N blocks whose whole-depth B panels fit MAX_BBLOCK (at least one
   * panel, at most NC columns) */
  int64_t nc = isa ? MIN((int64_t)isa->nc, MAX_BBLOCK / k) : 0;
  if (isa) nc = nc < isa->nr ? isa->nr : nc - nc % isa->nr;
  tls_bufs *t = isa ? tls() : NULL;
  float *bbuf =
      t ? tls_grow(&t->b, &t->bcap,
                   (size_t)k * (size_t)(MIN(n, nc) + isa->nr))
        : NULL;
  if (!bbuf) {
    gemm_blas(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
              pool);
    return;
  }
  for (int64_t jc = 0; jc < n; jc += nc) {
    int64_t nb = MIN(nc, n - jc);
    int64_t npanels = (nb + isa->nr - 1) / isa->nr;
    packb_job pj = {isa->nr, trans_b, b, ldb, 0, k, jc, nb, k * isa->nr,
                    bbuf};
    tfs_threadpool_parallel_for(pool, npanels, k * isa->nr / 4 + 1,
                                packb_range, &pj);
    macro_job mj = {
        .isa = isa, .trans_a = trans_a, .a = a, .lda = lda, .m = m, .k = k,
        .bpack = bbuf, .nb = nb, .npanels = npanels, .alpha = alpha,
        .beta = beta, .c = c + jc, .ldc = ldc,
    };
    run_block(&mj, pool);
  }
}

struct tfs_gemm_packed {
  int64_t k, n;
  const tfs_gemm_isa *isa; /* NULL: `data` is op(B) row-major, k x n */
  float *data;             /* panel j at data + j * k * nr */
  int view;                /* data is another packed matrix's */
};

tfs_gemm_packed *tfs_gemm_pack_b_f32(int trans_b, int64_t k, int64_t n,
                                     const float *b, int64_t ldb) {
  pthread_once(&g_once, init_once);
  tfs_gemm_packed *p = tfs_calloc(1, sizeof(*p));
  if (!p) return NULL;
  p->k = k;
  p->n = n;
  p->isa = atomic_load(&g_isa);
  if (p->isa) {
    int nr = p->isa->nr;
    int64_t npanels = (n + nr - 1) / nr;
    p->data = tfs_aligned_alloc(sizeof(float) * (size_t)(npanels * nr * k + 1));
    if (!p->data) goto oom;
    pack_b(nr, trans_b, b, ldb, 0, k, 0, n, 0, npanels, p->data, k * nr);
  } else {
    p->data = tfs_aligned_alloc(sizeof(float) * (size_t)(k * n + 1));
    if (!p->data) goto oom;
    for (int64_t q = 0; q < k; q++)
      for (int64_t j = 0; j < n; j++)
        p->data[q * n + j] = trans_b ? b[j * ldb + q] : b[q * ldb + j];
  }
  return p;
oom:
  tfs_free(p);
  return NULL;
}

void tfs_gemm_packed_free(tfs_gemm_packed *p) {
  if (!p) return;
  if (!p->view) tfs_aligned_free(p->data);
  tfs_free(p);
}

int tfs_gemm_packed_nr(const tfs_gemm_packed *p) {
  return p->isa ? p->isa->nr : 0;
}

tfs_gemm_packed *tfs_gemm_packed_cols(const tfs_gemm_packed *p, int64_t c0,
                                      int64_t nc) {
  const int nr = tfs_gemm_packed_nr(p);
  if (!nr || c0 < 0 || c0 % nr || nc <= 0 || c0 + nc > p->n) return NULL;
  tfs_gemm_packed *v = tfs_malloc(sizeof(*v));
  if (!v) return NULL;
  *v = *p;
  v->n = nc;
  v->data = p->data + c0 / nr * p->k * nr;
  v->view = 1;
  return v;
}

int64_t tfs_gemm_packed_k(const tfs_gemm_packed *p) { return p->k; }
int64_t tfs_gemm_packed_n(const tfs_gemm_packed *p) { return p->n; }

void tfs_gemm_f32_packed(int trans_a, int64_t m, float alpha,
                         const float *a, int64_t lda,
                         const tfs_gemm_packed *b, float beta, float *c,
                         int64_t ldc, tfs_threadpool *pool) {
  tfs_gemm_f32_packed_done(trans_a, m, alpha, a, lda, b, beta, c, ldc, pool,
                           NULL, NULL);
}

static int gemm_direct(int64_t m, const float *a, int64_t lda,
                       const tfs_gemm_packed *b, const float *bias, int relu,
                       float *c, int64_t ldc, tfs_threadpool *pool,
                       tfs_gemm_done_fn done, void *arg);

/* Whether the indirect kernels can read an m-row A where it lies. */
static int direct_ok(int64_t m, const tfs_gemm_packed *b) {
  return b->isa && m >= b->isa->mr && tfs_gemm_indirect_ok(b);
}

void tfs_gemm_f32_packed_done(int trans_a, int64_t m, float alpha,
                              const float *a, int64_t lda,
                              const tfs_gemm_packed *b, float beta, float *c,
                              int64_t ldc, tfs_threadpool *pool,
                              tfs_gemm_done_fn done, void *arg) {
  const int64_t n = b->n, k = b->k;
  if (m <= 0 || n <= 0) return;
  const tfs_gemm_isa *isa = b->isa;
  if (k <= 0 || alpha == 0.0f || !isa) {
    if (k <= 0 || alpha == 0.0f)
      scale_c(m, n, beta, c, ldc);
    else
      gemm_blas(trans_a, 0, m, n, k, alpha, a, lda, b->data, n, beta, c, ldc,
                pool);
    if (done) done(arg, 0, m, 0, n);
    return;
  }
  if (!trans_a && alpha == 1.0f && beta == 0.0f && direct_ok(m, b) &&
      gemm_direct(m, a, lda, b, NULL, TFS_STORE_NONE, c, ldc, pool, done,
                  arg) == 0)
    return;
  for (int64_t jc = 0; jc < n; jc += isa->nc) {
    int64_t nb = MIN((int64_t)isa->nc, n - jc);
    macro_job mj = {
        .isa = isa, .trans_a = trans_a, .a = a, .lda = lda, .m = m, .k = k,
        .bpack = b->data + (jc / isa->nr) * k * isa->nr, .nb = nb,
        .npanels = (nb + isa->nr - 1) / isa->nr, .alpha = alpha,
        .beta = beta, .c = c + jc, .ldc = ldc, .done = done, .done_arg = arg,
        .col0 = jc,
    };
    run_block(&mj, pool);
  }
}

/* ---- a caller-packed A ---------------------------------------------------------- */

typedef tfs_gemm_tiling tiling;

int64_t tfs_gemm__split_tiles(int mr, int nr, int mode, int64_t m,
                              int64_t n, int nt, int64_t mc_max,
                              tfs_gemm_tiling *t) {
  int large = mode == TFS_GEMM_SPLIT_LARGE;
  int64_t want = nt > 1 ? (large ? 2 : 4) * (int64_t)nt : 1;
  int64_t panels = (m + mr - 1) / mr, pmax = mc_max / mr;
  if (pmax < 1) pmax = 1;
  /* as few blocks as mc_max allows; with threads and small tasks, up to
   * `want` of at least two panels each */
  int64_t mblocks = (panels + pmax - 1) / pmax;
  if (nt > 1) {
    int64_t by_threads = large ? 1 : MIN(want, panels / 2);
    if (by_threads > mblocks) mblocks = by_threads;
    /* beyond that, a multiple of the thread count, still of two panels
     * each: with fewer rows the columns are cut instead (8 rows on two
     * threads: every task 4 + 4 rows, not one 6 rows and one 2) */
    mblocks = MIN((mblocks + nt - 1) / nt * nt, MAX(panels / 2, mblocks));
    if (mblocks < 1) mblocks = 1;
  }
  t->m = m;
  t->n = n;
  t->mr = mr;
  t->panels = panels;
  t->mblocks = mblocks;
  t->mc = (panels + mblocks - 1) / mblocks * mr;
  int64_t npanels = (n + nr - 1) / nr, nchunks = 1;
  /* large tasks with fewer row blocks than threads (a batch of one or
   * eight): the columns are cut as finely as for small tasks */
  if (large && t->mblocks < nt) want = 4 * (int64_t)nt;
  if (mode != TFS_GEMM_SPLIT_ROWS && t->mblocks < want) {
    nchunks = (want + t->mblocks - 1) / t->mblocks;
    if (nchunks > npanels) nchunks = npanels;
  }
  t->chunk_cols = (npanels + nchunks - 1) / nchunks * nr;
  t->nchunks = (n + t->chunk_cols - 1) / t->chunk_cols;
  return t->mblocks * t->nchunks;
}

static int64_t split_tiles(const tfs_gemm_isa *isa, int64_t m, int64_t n,
                           int nt, int64_t mc_max, tiling *t) {
  return tfs_gemm__split_tiles(isa ? isa->mr : 1, isa ? isa->nr : 1,
                               isa ? TFS_GEMM_SPLIT_ROWS_COLS
                                   : TFS_GEMM_SPLIT_ROWS,
                               m, n, nt, mc_max, t);
}

void tfs_gemm__tile_of(const tfs_gemm_tiling *t, int64_t task, int64_t *mi,
                       int64_t *ic, int64_t *mb, int64_t *c0, int64_t *nb) {
  *mi = task / t->nchunks;
  tfs_gemm__block_rows(t->m, t->mr, t->panels, t->mblocks, *mi, ic, mb);
  *c0 = task % t->nchunks * t->chunk_cols;
  *nb = MIN(t->chunk_cols, t->n - *c0);
}

/* A product whose tasks pack their own rows of A (tiling). */
typedef struct {
  const tfs_gemm_isa *isa; /* NULL: rows packed whole for OpenBLAS */
  const tfs_gemm_a_source *src;
  const tfs_gemm_packed *b;
  float *c;
  int64_t ldc;
  tiling t;
  uint64_t tag;
  atomic_int failed;
} src_job;

static void src_tile_blas(src_job *j, tls_bufs *t, float *abuf, int64_t mi,
                          int64_t ic, int64_t mb, int64_t c0, int64_t nb) {
  const int64_t k = j->b->k, n = j->b->n;
  if (t->a_tag != j->tag || t->a_block != mi) {
    j->src->pack(j->src->arg, ic, mb, 0, k, 1, abuf);
    t->a_tag = j->tag;
    t->a_block = mi;
    t->a_pc = 0;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mb, (int)nb,
              (int)k, 1.0f, abuf, (int)k, j->b->data + c0, (int)n, 0.0f,
              j->c + ic * j->ldc + c0, (int)j->ldc);
}

static void src_tile(src_job *j, tls_bufs *t, float *abuf, int64_t mi,
                     int64_t ic, int64_t mb, int64_t c0, int64_t nb) {
  const tfs_gemm_isa *isa = j->isa;
  const int mr = isa->mr, nr = isa->nr;
  const int64_t k = j->b->k, mpanels = (mb + mr - 1) / mr;
  const int64_t jp0 = c0 / nr, jp1 = (c0 + nb + nr - 1) / nr;
  for (int64_t pc = 0; pc < k; pc += isa->kc) {
    int64_t kb = MIN((int64_t)isa->kc, k - pc);
    if (t->a_tag != j->tag || t->a_block != mi || t->a_pc != pc) {
      j->src->pack(j->src->arg, ic, mb, pc, kb, mr, abuf);
      t->a_tag = j->tag;
      t->a_block = mi;
      t->a_pc = pc;
    }
    float beta = pc == 0 ? 0.0f : 1.0f;
    for (int64_t jp = jp0; jp < jp1; jp++) {
      const float *bp = j->b->data + jp * k * nr + pc * nr;
      int cols = (int)MIN((int64_t)nr, j->b->n - jp * nr);
      float *crow = j->c + ic * j->ldc + jp * nr;
      int64_t lines;
      const float *next =
          next_block(j->b->data, nr, isa->kc, k, jp, jp0, jp1, pc, &lines);
      if (k * j->b->n * 4 < PF_MIN_BYTES || j->t.m < mr) next = NULL;
      for (int64_t ip = 0; ip < mpanels; ip++) {
        int rows = (int)MIN((int64_t)mr, mb - ip * mr);
        int64_t npf;
        const float *pf;
        pf_share(next, lines, ip, mpanels, &pf, &npf);
        isa->ukr[rows](kb, abuf + ip * kb * mr, bp, crow + ip * mr * j->ldc,
                       j->ldc, cols, 1.0f, beta, pf, npf);
      }
    }
  }
}

static void src_range(void *arg, int64_t begin, int64_t end) {
  src_job *j = arg;
  const tfs_gemm_isa *isa = j->isa;
  tls_bufs *t = tls();
  size_t need = isa ? (size_t)(j->t.mc / isa->mr + 1) * isa->mr * isa->kc
                    : (size_t)(j->t.mc * j->b->k + 1);
  float *abuf = tls_abuf(t, need);
  if (!abuf) {
    atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
    return;
  }
  for (int64_t task = begin; task < end; task++) {
    int64_t mi, ic, mb, c0, nb;
    tfs_gemm__tile_of(&j->t, task, &mi, &ic, &mb, &c0, &nb);
    if (isa)
      src_tile(j, t, abuf, mi, ic, mb, c0, nb);
    else
      src_tile_blas(j, t, abuf, mi, ic, mb, c0, nb);
    if (j->src->done) j->src->done(j->src->arg, ic, mb, c0, nb);
  }
}

int tfs_gemm_f32_packed_src(int64_t m, const tfs_gemm_a_source *a,
                            const tfs_gemm_packed *b, float *c, int64_t ldc,
                            tfs_threadpool *pool) {
  const int64_t n = b->n, k = b->k;
  if (m <= 0 || n <= 0) return 0;
  if (k <= 0) {
    scale_c(m, n, 0.0f, c, ldc);
    if (a->done) a->done(a->arg, 0, m, 0, n);
    return 0;
  }
  src_job j;
  memset(&j, 0, sizeof j);
  j.isa = b->isa;
  j.src = a;
  j.b = b;
  j.c = c;
  j.ldc = ldc;
  int64_t cost = 2 * m * n * k / 32 + 1;
  int64_t ntasks =
      split_tiles(j.isa, m, n, tfs_threadpool_plan_threads(pool, cost, 1),
                  j.isa ? j.isa->mc : 64, &j.t);
  j.tag = atomic_fetch_add(&g_tag, 1) + 1;
  tfs_threadpool_parallel_for(pool, ntasks, cost / ntasks + 1, src_range, &j);
  return atomic_load(&j.failed) ? -1 : 0;
}

/* ---- an indirect A -------------------------------------------------------------- */

#define IND_MAX_MC 96

typedef struct {
  const tfs_gemm_isa *isa;
  const tfs_gemm_indirect *src;
  const tfs_gemm_packed *b;
  float *c;
  int64_t ldc;
  int64_t per; /* segments per depth block */
  tiling t;
} ind_job;

#define NO_STRIDE INT64_MIN

static atomic_int g_no_uniform;
static atomic_llong g_uniform_panels;

void tfs_gemm__set_uniform(int on) { atomic_store(&g_no_uniform, !on); }

int64_t tfs_gemm__uniform_panels(void) {
  return atomic_load(&g_uniform_panels);
}

/* The distance in floats between consecutive rows of a panel when it is
 * the same for all (0 for one row), else NO_STRIDE. */
static int64_t uniform(const float *const *rows, int r) {
  if (r < 2) return 0;
  const int64_t d = rows[1] - rows[0];
  for (int i = 2; i < r; i++)
    if (rows[i] - rows[i - 1] != d) return NO_STRIDE;
  return d;
}

static void ind_range(void *arg, int64_t begin, int64_t end) {
  const ind_job *j = arg;
  const tfs_gemm_isa *isa = j->isa;
  const tfs_gemm_indirect *src = j->src;
  const int mr = isa->mr, nr = isa->nr;
  const int64_t k = j->b->k;
  const float *rows[IND_MAX_MC + TFS_GEMM_MAX_MR];
  int64_t stride[IND_MAX_MC + TFS_GEMM_MAX_MR]; /* per panel */
  const int uni = isa->iukru[1] && !atomic_load_explicit(
                                       &g_no_uniform, memory_order_relaxed);
  int64_t have = -1;
  for (int64_t task = begin; task < end; task++) {
    int64_t mi, ic, mb, c0, nb;
    tfs_gemm__tile_of(&j->t, task, &mi, &ic, &mb, &c0, &nb);
    if (have != mi) {
      int64_t nuni = 0;
      if (src->row_base) { /* evenly spaced by construction */
        for (int64_t i = 0; i < mb; i++)
          rows[i] = src->row_base + (ic + i) * src->row_stride;
        for (int64_t ip = 0; ip * mr < mb; ip++, nuni += uni)
          stride[ip] = uni ? src->row_stride : NO_STRIDE;
      } else {
        src->rows(src->arg, ic, mb, rows);
        for (int64_t ip = 0; ip * mr < mb; ip++) {
          int64_t i;
          int r = panel_rows(mb, mr, ip, &i);
          stride[ip] = uni ? uniform(rows + i, r) : NO_STRIDE;
          nuni += stride[ip] != NO_STRIDE;
        }
      }
      if (nuni)
        atomic_fetch_add_explicit(&g_uniform_panels, nuni,
                                  memory_order_relaxed);
      have = mi;
    }
    /* depth blocks of `per` segments: B's depth block (in floats) */
    const int64_t jp0 = c0 / nr, jp1 = (c0 + nb + nr - 1) / nr;
    const int64_t kblk = j->per * src->seglen, mpanels = (mb + mr - 1) / mr;
    for (int64_t s0 = 0; s0 < src->nseg; s0 += j->per) {
      int64_t ns = MIN(j->per, src->nseg - s0);
      int last = s0 + ns == src->nseg;
      for (int64_t jp = jp0; jp < jp1; jp++) {
        const float *bp = j->b->data + jp * k * nr + s0 * src->seglen * nr;
        int cols = (int)MIN((int64_t)nr, j->b->n - jp * nr);
        float *crow = j->c + ic * j->ldc + jp * nr;
        const float *bias = last && src->bias ? src->bias + jp * nr : NULL;
        const float *add =
            last && src->add ? src->add + ic * j->ldc + jp * nr : NULL;
        int64_t lines = 0;
        const float *next =
            k * j->b->n * 4 < PF_MIN_BYTES || j->t.m < mr
                ? NULL
                : next_block(j->b->data, nr, (int)kblk, k, jp, jp0, jp1,
                             s0 * src->seglen, &lines);
        for (int64_t ip = 0; ip < mpanels; ip++) {
          int64_t i, npf;
          int r = panel_rows(mb, mr, ip, &i);
          const float *pf;
          pf_share(next, lines, ip, mpanels, &pf, &npf);
          const float *addi = add ? add + i * j->ldc : NULL;
          if (stride[ip] != NO_STRIDE)
            isa->iukru[r](ns, src->seglen, src->segoff + s0, rows[i],
                          stride[ip], bp, crow + i * j->ldc, j->ldc,
                          cols, s0 > 0, bias, addi, last ? src->relu : 0, pf,
                          npf);
          else
            isa->iukr[r](ns, src->seglen, src->segoff + s0, rows + i, bp,
                         crow + i * j->ldc, j->ldc, cols, s0 > 0, bias, addi,
                         last ? src->relu : 0, pf, npf);
        }
      }
    }
    if (src->done) src->done(src->arg, ic, mb, c0, nb);
  }
}

void tfs_gemm_rowmajor_rows(void *arg, int64_t r0, int64_t mb,
                            const float **out) {
  const tfs_gemm_rowmajor *a = arg;
  for (int64_t i = 0; i < mb; i++) out[i] = a->a + (r0 + i) * a->lda;
}

static atomic_int g_no_indirect;

void tfs_gemm__set_indirect(int on) { atomic_store(&g_no_indirect, !on); }

int tfs_gemm_indirect_ok(const tfs_gemm_packed *b) {
  return b->isa && b->isa->iukr[1] != NULL &&
         !atomic_load_explicit(&g_no_indirect, memory_order_relaxed);
}

/* The indirect product over tasks cut by tfs_gemm__split_tiles in `mode`
 * with row blocks of at most mc_max rows. */
static void run_indirect(int64_t m, const tfs_gemm_indirect *a,
                         const tfs_gemm_packed *b, float *c, int64_t ldc,
                         tfs_threadpool *pool, int mode, int64_t mc_max) {
  const int64_t n = b->n, k = b->k;
  ind_job j;
  memset(&j, 0, sizeof j);
  j.isa = b->isa;
  j.src = a;
  j.b = b;
  j.c = c;
  j.ldc = ldc;
  /* depth blocks of whole segments, about KC deep, as the packed path's
   * (the B panel's block stays in L1/L2 while the row panels pass) */
  j.per = j.isa->kc / a->seglen > 1 ? j.isa->kc / a->seglen : 1;
  int64_t cost = 2 * m * n * k / 32 + 1;
  int64_t ntasks = tfs_gemm__split_tiles(
      j.isa->mr, j.isa->nr, mode, m, n,
      tfs_threadpool_plan_threads(pool, cost, 1), mc_max, &j.t);
  tfs_threadpool_parallel_for(pool, ntasks, cost / ntasks + 1, ind_range, &j);
}

int tfs_gemm_f32_indirect(int64_t m, const tfs_gemm_indirect *a,
                          const tfs_gemm_packed *b, float *c, int64_t ldc,
                          tfs_threadpool *pool) {
  if (!tfs_gemm_indirect_ok(b) || a->nseg * a->seglen != b->k) return -1;
  if (m <= 0 || b->n <= 0) return 0;
  run_indirect(m, a, b, c, ldc, pool, TFS_GEMM_SPLIT_ROWS_COLS,
               MIN((int64_t)b->isa->mc, IND_MAX_MC));
  return 0;
}

/* ---- a row-major A read where it lies --------------------------------------------- */

/* A packed-B product whose A is row-major runs the indirect kernels with
 * each row of A one run of equal segments: no packed copy of A (for 128
 * rows of depth 1024, packing A was about a tenth of the product).  The
 * segments are a divisor of the depth between KC / 2 and KC (the depth
 * itself below KC), so the depth blocks are those of the packed path; the
 * tasks are cut as run_block cuts them.  Not below one panel of rows,
 * where packing A costs next to nothing. */
#define DIRECT_MAX_SEGS 64

typedef struct {
  const float *a;
  int64_t lda;
  tfs_gemm_done_fn done;
  void *arg;
} direct_src;

static void direct_rows(void *arg, int64_t r0, int64_t mb,
                        const float **out) {
  const direct_src *d = arg;
  for (int64_t i = 0; i < mb; i++) out[i] = d->a + (r0 + i) * d->lda;
}

static void direct_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                        int64_t nb) {
  const direct_src *d = arg;
  d->done(d->arg, r0, mb, c0, nb);
}

static atomic_llong g_bias_direct;

int64_t tfs_gemm__bias_direct_calls(void) {
  return atomic_load(&g_bias_direct);
}

int tfs_gemm_f32_packed_bias_done(int64_t m, const float *a, int64_t lda,
                                  const tfs_gemm_packed *b,
                                  const float *bias, int relu, float *c,
                                  int64_t ldc, tfs_threadpool *pool,
                                  tfs_gemm_done_fn done, void *arg) {
  if (b->n < 1 || b->k < 1 || !direct_ok(m, b)) return -1;
  if (gemm_direct(m, a, lda, b, bias, relu, c, ldc, pool, done, arg))
    return -1;
  atomic_fetch_add_explicit(&g_bias_direct, 1, memory_order_relaxed);
  return 0;
}

/* C = act(A * B + bias) (then done over every tile), or -1 when the
 * depth has no segment length (nothing done). */
static int gemm_direct(int64_t m, const float *a, int64_t lda,
                       const tfs_gemm_packed *b, const float *bias, int relu,
                       float *c, int64_t ldc, tfs_threadpool *pool,
                       tfs_gemm_done_fn done, void *arg) {
  const tfs_gemm_isa *isa = b->isa;
  const int64_t k = b->k;
  int64_t seglen = 0;
  if (k <= isa->kc) {
    seglen = k;
  } else {
    for (int64_t d = isa->kc; d >= isa->kc / 2 && !seglen; d--)
      if (k % d == 0) seglen = d;
  }
  if (!seglen || k / seglen > DIRECT_MAX_SEGS) return -1;
  int64_t segoff[DIRECT_MAX_SEGS];
  for (int64_t s = 0; s < k / seglen; s++) segoff[s] = s * seglen;
  direct_src d = {a, lda, done, arg};
  tfs_gemm_indirect src = {direct_rows, done ? direct_done : NULL,
                           &d,          segoff,
                           k / seglen,  seglen,
                           bias,        relu,
                           NULL,        a,
                           lda};
  run_indirect(m, &src, b, c, ldc, pool, TFS_GEMM_SPLIT_LARGE,
               MIN(block_rows(isa, k), (int64_t)IND_MAX_MC));
  return 0;
}

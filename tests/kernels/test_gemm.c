/*
 * tests/kernels/test_gemm.c - tfs_gemm_f32 against a double-precision
 * reference on every path this CPU can run (AVX-512, AVX2, OpenBLAS),
 * every transpose, edge sizes around the tiles and cache blocks, alpha and
 * beta, packed weights, one thread and the pool; and MatMul through a
 * session with constant (packed) and fed weights.  No timings.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/threadpool.h"
#include "core/util.h"
#include "backends/cpu/gemm.h"
#include "backends/cpu/gemm_internal.h"
#include "testutil.h"

static float frand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 16) % 2001) / 1000.0f - 1.0f;
}

/* max relative error of C against the reference */
static double check(int ta, int tb, int64_t m, int64_t n, int64_t k,
                    int packed, tfs_threadpool *pool) {
  unsigned seed = (unsigned)(m * 131 + n * 7 + k + ta * 3 + tb);
  int64_t lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 1, ldc = n + 2;
  float *a = malloc(sizeof(float) * (size_t)(lda * (ta ? k : m) + 1));
  float *b = malloc(sizeof(float) * (size_t)(ldb * (tb ? n : k) + 1));
  float *c = malloc(sizeof(float) * (size_t)(ldc * m + 1));
  for (int64_t i = 0; i < lda * (ta ? k : m); i++) a[i] = frand(&seed);
  for (int64_t i = 0; i < ldb * (tb ? n : k); i++) b[i] = frand(&seed);
  for (int64_t i = 0; i < ldc * m; i++) c[i] = 0.5f;
  const float alpha = 1.5f, beta = (m + n) % 2 ? 0.25f : 0.0f;
  if (packed) {
    tfs_gemm_packed *p = tfs_gemm_pack_b_f32(tb, k, n, b, ldb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(tfs_gemm_packed_k(p), k);
    CU_ASSERT_EQUAL(tfs_gemm_packed_n(p), n);
    tfs_gemm_f32_packed(ta, m, alpha, a, lda, p, beta, c, ldc, pool);
    tfs_gemm_packed_free(p);
  } else {
    tfs_gemm_f32(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, pool);
  }
  double worst = 0;
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < ldc; j++) {
      double got = c[i * ldc + j], want;
      if (j >= n) {
        want = 0.5; /* padding past n is never written */
      } else {
        double s = 0;
        for (int64_t p = 0; p < k; p++)
          s += (double)(ta ? a[p * lda + i] : a[i * lda + p]) *
               (tb ? b[j * ldb + p] : b[p * ldb + j]);
        want = alpha * s + beta * 0.5;
      }
      double e = fabs(got - want) / (1.0 + fabs(want));
      if (e > worst) worst = e;
    }
  }
  free(a);
  free(b);
  free(c);
  return worst;
}

static void test_gemm_matches_reference(void) {
  static const int64_t sizes[][3] = {
      {1, 1, 1},   {1, 512, 784}, {7, 13, 5},   {6, 16, 256}, {12, 32, 257},
      {13, 35, 300}, {100, 70, 513}, {5, 4100, 3}, {193, 33, 20}, {0, 5, 5},
      {5, 0, 5},   {4, 4, 0},
      /* a short last panel shared with the one before (4 + 4, 7 + 7) */
      {8, 40, 70}, {26, 17, 9}};
  static const char *paths[] = {"avx512", "avx2", "openblas"};
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2,
                             TFS_CPU_ISA_BASELINE};
  tfs_threadpool *pool = tfs_threadpool_new("gemm", 3, NULL);
  int tried = 0;
  for (size_t pi = 0; pi < 3; pi++) {
    const char *why = tu_isa_unavailable(isas[pi]);
    CU_ASSERT_EQUAL(tfs_gemm__force_path(paths[pi]), why ? -1 : 0);
    tu_cpu_path("gemm", paths[pi], why);
    if (why) continue;
    if (pi < 2) /* the path in force is the one asked for */
      CU_ASSERT_PTR_NOT_NULL(strstr(tfs_gemm_describe(), paths[pi]));
    tried++;
    for (size_t s = 0; s < TFS_ARRAY_LEN(sizes); s++)
      for (int t = 0; t < 8; t++) {
        double e = check(t & 1, (t >> 1) & 1, sizes[s][0], sizes[s][1],
                         sizes[s][2], (t >> 2) & 1, s % 2 ? pool : NULL);
        /* float rounding grows with the depth k; a wrong element is off
         * by O(1) */
        double tol = 1e-6 + 1e-7 * (double)sizes[s][2];
        if (e > tol)
          fprintf(stderr, "\n  %s %lldx%lldx%lld t=%d: error %g\n",
                  paths[pi], (long long)sizes[s][0], (long long)sizes[s][1],
                  (long long)sizes[s][2], t, e);
        CU_ASSERT_TRUE(e <= tol);
      }
  }
  CU_ASSERT_TRUE(tried >= 1);
  CU_ASSERT_EQUAL(tfs_gemm__force_path("no-such-path"), -1);
  CU_ASSERT_EQUAL(tfs_gemm__force_path(NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_gemm_describe(), "OpenBLAS"));
  tfs_threadpool_free(pool);
}

/* A last panel of at most 8 columns (16 on AVX-512) runs the half-width
 * tile: each column has the bits it has in a full panel (n columns against B
 * widened by 16), B packed or not, on each vector path. */
static void test_gemm_panel_width(void) {
  static const char *paths[] = {"avx512", "avx2"};
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2};
  static const int64_t kN[] = {3, 8, 16, 24, 40, 48};
  const int64_t m = 23, k = 37;
  for (int pi = 0; pi < 2; pi++) {
    if (tu_isa_unavailable(isas[pi])) continue;
    CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(paths[pi]), 0);
    for (size_t t = 0; t < TFS_ARRAY_LEN(kN); t++) {
      const int64_t n = kN[t], w = n + 16;
      unsigned seed = (unsigned)(7 + t);
      float *a = malloc(sizeof(float) * (size_t)(m * k));
      float *bw = malloc(sizeof(float) * (size_t)(k * w));
      float *bn = malloc(sizeof(float) * (size_t)(k * n));
      float *cw = malloc(sizeof(float) * (size_t)(m * w));
      float *cn = malloc(sizeof(float) * (size_t)(m * n));
      for (int64_t i = 0; i < m * k; i++) a[i] = frand(&seed);
      for (int64_t i = 0; i < k * w; i++) bw[i] = frand(&seed);
      for (int64_t p = 0; p < k; p++)
        memcpy(bn + p * n, bw + p * w, sizeof(float) * (size_t)n);
      for (int packed = 0; packed < 2; packed++) {
        for (int64_t i = 0; i < m * w; i++) cw[i] = 0.5f;
        for (int64_t i = 0; i < m * n; i++) cn[i] = 0.5f;
        if (packed) {
          tfs_gemm_packed *pw = tfs_gemm_pack_b_f32(0, k, w, bw, w);
          tfs_gemm_packed *pn = tfs_gemm_pack_b_f32(0, k, n, bn, n);
          CU_ASSERT_PTR_NOT_NULL_FATAL(pw);
          CU_ASSERT_PTR_NOT_NULL_FATAL(pn);
          tfs_gemm_f32_packed(0, m, 1.5f, a, k, pw, 0.25f, cw, w, NULL);
          tfs_gemm_f32_packed(0, m, 1.5f, a, k, pn, 0.25f, cn, n, NULL);
          tfs_gemm_packed_free(pw);
          tfs_gemm_packed_free(pn);
        } else {
          tfs_gemm_f32(0, 0, m, w, k, 1.5f, a, k, bw, w, 0.25f, cw, w, NULL);
          tfs_gemm_f32(0, 0, m, n, k, 1.5f, a, k, bn, n, 0.25f, cn, n, NULL);
        }
        int bad = 0;
        for (int64_t i = 0; i < m; i++)
          bad += memcmp(cn + i * n, cw + i * w, sizeof(float) * (size_t)n) != 0;
        if (bad)
          fprintf(stderr, "\n  %s n=%lld packed=%d: %d rows differ",
                  paths[pi], (long long)n, packed, bad);
        CU_ASSERT_EQUAL(bad, 0);
      }
      free(a);
      free(bw);
      free(bn);
      free(cw);
      free(cn);
    }
  }
  tfs_gemm__force_path(NULL);
}

/* Thin products (a few rows: B multiplied where it lies, not packed) on
 * each vector path: every row count up to two row groups, column counts
 * around the kernels' vector and block widths, depths around the vector
 * width, both layouts of B, beside the packed path (thin rows 0). */
static void test_gemm_thin(void) {
  static const int64_t ns[] = {1, 7, 9, 15, 16, 17, 33, 63, 64,
                               65, 127, 128, 129, 200, 300};
  static const int64_t ks[] = {1, 3, 8, 15, 16, 17, 40, 100};
  static const char *paths[] = {"avx512", "avx2"};
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2};
  tfs_threadpool *pool = tfs_threadpool_new("gemm", 3, NULL);
  for (size_t pi = 0; pi < 2; pi++) {
    const char *why = tu_isa_unavailable(isas[pi]);
    tu_cpu_path("gemm-thin", paths[pi], why);
    if (why) continue;
    CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(paths[pi]), 0);
    for (int rows = 0; rows <= 8; rows += 8) {
      tfs_gemm__set_thin_rows(rows);
      for (int64_t m = 1; m <= 8; m++)
        for (size_t ni = 0; ni < TFS_ARRAY_LEN(ns); ni++)
          for (size_t ki = 0; ki < TFS_ARRAY_LEN(ks); ki++)
            for (int t = 0; t < 4; t++) {
              int64_t n = ns[ni], k = ks[ki];
              double e = check(t & 1, (t >> 1) & 1, m, n, k, 0,
                               (m + ni) % 2 ? pool : NULL);
              double tol = 1e-6 + 1e-7 * (double)k;
              if (e > tol)
                fprintf(stderr, "\n  %s thin %d: %lldx%lldx%lld t=%d: %g\n",
                        paths[pi], rows, (long long)m, (long long)n,
                        (long long)k, t, e);
              CU_ASSERT_TRUE(e <= tol);
            }
    }
  }
  /* the same bits as the packed path, over several depth blocks too */
  for (size_t pi = 0; pi < 2; pi++) {
    if (tu_isa_unavailable(isas[pi])) continue;
    CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(paths[pi]), 0);
    /* 7 and 8 rows: the packed path's last two panels share the tail
     * (4 + 3, 4 + 4 on AVX2); one row: panels four at a time (4 + 3,
     * the last partial) */
    static const int64_t shapes[][3] = {{1, 70, 3},   {3, 129, 300},
                                        {4, 33, 600}, {7, 200, 1100},
                                        {8, 65, 130}, {1, 100, 300}};
    for (size_t q = 0; q < TFS_ARRAY_LEN(shapes); q++) {
      int64_t m = shapes[q][0], n = shapes[q][1], k = shapes[q][2];
      float *a = malloc(sizeof(float) * (size_t)(m * k));
      float *b = malloc(sizeof(float) * (size_t)(k * n));
      float *c0 = malloc(sizeof(float) * (size_t)(m * n));
      float *c1 = malloc(sizeof(float) * (size_t)(m * n));
      unsigned seed = (unsigned)(q + 1);
      for (int64_t i = 0; i < m * k; i++) a[i] = frand(&seed);
      for (int64_t i = 0; i < k * n; i++) b[i] = frand(&seed);
      for (int64_t i = 0; i < m * n; i++) c0[i] = c1[i] = frand(&seed);
      tfs_gemm__set_thin_rows(8);
      tfs_gemm_f32(0, 0, m, n, k, 0.75f, a, k, b, n, 0.5f, c0, n, pool);
      tfs_gemm__set_thin_rows(0);
      tfs_gemm_f32(0, 0, m, n, k, 0.75f, a, k, b, n, 0.5f, c1, n, pool);
      CU_ASSERT_EQUAL(memcmp(c0, c1, sizeof(float) * (size_t)(m * n)), 0);
      free(a);
      free(b);
      free(c0);
      free(c1);
    }
  }
  tfs_gemm__set_thin_rows(8);
  CU_ASSERT_EQUAL(tfs_gemm__set_thin_rows(8), 8);
  CU_ASSERT_EQUAL(tfs_gemm__set_thin_rows(-1), -1);
  CU_ASSERT_EQUAL(tfs_gemm__set_thin_rows(17), -1);
  CU_ASSERT_EQUAL(tfs_gemm__force_path(NULL), 0);
  tfs_threadpool_free(pool);
}

static void test_gemm_f64(void) {
  double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4];
  tfs_gemm_f64(0, 0, 2, 2, 3, 1.0, a, 3, b, 2, 0.0, c, 2, NULL);
  CU_ASSERT_EQUAL(c[0], 4);
  CU_ASSERT_EQUAL(c[1], 5);
  CU_ASSERT_EQUAL(c[2], 10);
  CU_ASSERT_EQUAL(c[3], 11);
}

/* MatMul with a constant B (packed at prepare) and with the same B fed. */
static void test_matmul_packed_and_fed(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  int64_t ad[2] = {3, 40}, bd[2] = {24, 40};
  float av[120], bv[960];
  unsigned seed = 1;
  for (int i = 0; i < 120; i++) av[i] = frand(&seed);
  for (int i = 0; i < 960; i++) bv[i] = frand(&seed);
  tfs_tensor *at = tu_floats(ad, 2, av), *bt = tu_floats(bd, 2, bv);
  tfs_output a = tfs_op_placeholder(g, "a", TFS_FLOAT, NULL, -1, st);
  tfs_output b = tfs_op_const(g, "b", bt, st);
  tfs_output y = tfs_op_matmul(g, "y", a, b, 0, 1, st); /* a * b^T */
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_tensor *packed = tu_run1(s, y, &a, &at, 1);
  tfs_output feeds[2] = {a, b};
  tfs_tensor *vals[2] = {at, bt};
  tfs_tensor *fed = NULL;
  tfs_session_run(s, feeds, vals, 2, &y, &fed, 1, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_tensor_dim(packed, 0), 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(packed, 1), 24);
  const float *p = tfs_tensor_data(packed), *f = tfs_tensor_data(fed);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 24; j++) {
      double want = 0;
      for (int q = 0; q < 40; q++)
        want += (double)av[i * 40 + q] * bv[j * 40 + q];
      TFS_ASSERT_FLOAT_NEAR(p[i * 24 + j], want, 1e-4);
      TFS_ASSERT_FLOAT_NEAR(f[i * 24 + j], want, 1e-4);
    }
  tfs_tensor_free(packed);
  tfs_tensor_free(fed);
  tfs_tensor_free(at);
  tfs_tensor_free(bt);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* tfs_gemm_f32_packed_done: the same bits from one thread and from pools
 * of 2, 3 and 4 (the row blocks and column chunks change with the thread
 * count, the panels do not), every element in exactly one finished tile,
 * and each tile final when it is reported.  On the OpenBLAS path (no
 * AVX2: rows split over the pool, BLAS's own kernels per slice) only
 * the coverage and the values are checked. */
typedef struct {
  const float *c;   /* the product being computed */
  const float *ref; /* its one-thread result */
  int64_t n, ldc;
  int *seen;        /* per element: tiles reporting it */
  atomic_int stale; /* elements not final when reported */
} done_check;

static void on_done(void *arg, int64_t r0, int64_t mb, int64_t c0,
                    int64_t nb) {
  done_check *d = arg;
  for (int64_t i = r0; i < r0 + mb; i++)
    for (int64_t j = c0; j < c0 + nb; j++) {
      d->seen[i * d->n + j]++;
      if (d->ref && memcmp(&d->c[i * d->ldc + j], &d->ref[i * d->n + j],
                           sizeof(float)) != 0)
        atomic_fetch_add(&d->stale, 1);
    }
}

static void test_gemm_packed_done_any_threads(void) {
  static const int64_t shapes[][3] = {
      {1, 300, 40},  {5, 17, 600},   {6, 256, 256},  {13, 100, 33},
      {49, 64, 300}, {128, 256, 256}, {129, 1024, 40}, {250, 45, 700},
      {1024, 48, 20}};
  tfs_threadpool *pools[4] = {NULL, tfs_threadpool_new("gemm", 2, NULL),
                              tfs_threadpool_new("gemm", 3, NULL),
                              tfs_threadpool_new("gemm", 4, NULL)};
  const int exact = tfs_gemm_panel_rows() > 1;
  for (size_t q = 0; q < TFS_ARRAY_LEN(shapes); q++) {
    int64_t m = shapes[q][0], n = shapes[q][1], k = shapes[q][2];
    int64_t ldc = n + 3;
    float *a = malloc(sizeof(float) * (size_t)(m * k));
    float *b = malloc(sizeof(float) * (size_t)(k * n));
    float *ref = malloc(sizeof(float) * (size_t)(m * n));
    float *c = malloc(sizeof(float) * (size_t)(m * ldc));
    int *seen = malloc(sizeof(int) * (size_t)(m * n));
    unsigned seed = (unsigned)(q + 11);
    for (int64_t i = 0; i < m * k; i++) a[i] = frand(&seed);
    for (int64_t i = 0; i < k * n; i++) b[i] = frand(&seed);
    tfs_gemm_packed *p = tfs_gemm_pack_b_f32(0, k, n, b, n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    for (int pi = 0; pi < 4; pi++) {
      memset(seen, 0, sizeof(int) * (size_t)(m * n));
      done_check d = {c, pi && exact ? ref : NULL, n, ldc, seen};
      atomic_init(&d.stale, 0);
      tfs_gemm_f32_packed_done(0, m, 1.25f, a, k, p, 0.0f, c, ldc, pools[pi],
                               on_done, &d);
      int once = 1;
      for (int64_t i = 0; i < m * n; i++) once &= seen[i] == 1;
      CU_ASSERT_TRUE(once);
      CU_ASSERT_EQUAL(atomic_load(&d.stale), 0);
      int same = 1;
      for (int64_t i = 0; i < m; i++) {
        if (pi == 0)
          memcpy(ref + i * n, c + i * ldc, sizeof(float) * (size_t)n);
        else if (exact)
          same &= memcmp(ref + i * n, c + i * ldc,
                         sizeof(float) * (size_t)n) == 0;
        else
          for (int64_t q2 = 0; q2 < n; q2++)
            same &= fabsf(ref[i * n + q2] - c[i * ldc + q2]) <=
                    1e-5f * (1.0f + fabsf(ref[i * n + q2])) * (float)k;
      }
      if (!same)
        fprintf(stderr, "\n  %lldx%lldx%lld: %d threads differ\n",
                (long long)m, (long long)n, (long long)k, pi + 1);
      CU_ASSERT_TRUE(same);
    }
    tfs_gemm_packed_free(p);
    free(a);
    free(b);
    free(ref);
    free(c);
    free(seen);
  }
  for (int pi = 1; pi < 4; pi++) tfs_threadpool_free(pools[pi]);
}

/* A packed-B product of a row-major A with alpha 1 and beta 0 reads A
 * where it lies (the indirect kernels, the depth cut into equal segments
 * of KC / 2 to KC): on each vector path, depths up to KC (the same bits as
 * tfs_gemm_f32, which packs A), depths with such a divisor and without one
 * (a prime: the packed-A path), leading dimensions past k, row counts
 * whose short last panel shares the two last panels (16: 8 + 8, 49: 12 x
 * 3 + 7 + 6), one thread and two; every element reported once by done, final when reported, and
 * within the double reference's tolerance. */
static void test_gemm_packed_direct(void) {
  static const char *paths[] = {"avx512", "avx2"};
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2};
  static const int64_t shapes[][3] = {
      {1, 40, 100},   {7, 33, 256},   {16, 48, 128},   {49, 64, 600},
      {49, 40, 192},  {128, 96, 1024}, {130, 48, 521}, {200, 20, 4608}};
  tfs_threadpool *pool = tfs_threadpool_new("gemm", 2, NULL);
  for (int pi = 0; pi < 2; pi++) {
    if (tu_isa_unavailable(isas[pi])) continue;
    CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(paths[pi]), 0);
    for (size_t q = 0; q < TFS_ARRAY_LEN(shapes); q++) {
      int64_t m = shapes[q][0], n = shapes[q][1], k = shapes[q][2];
      int64_t lda = k + 5, ldc = n + 3;
      unsigned seed = (unsigned)(q + 29);
      float *a = malloc(sizeof(float) * (size_t)(m * lda));
      float *b = malloc(sizeof(float) * (size_t)(k * n));
      float *c = malloc(sizeof(float) * (size_t)(m * ldc));
      float *c2 = malloc(sizeof(float) * (size_t)(m * ldc));
      int *seen = malloc(sizeof(int) * (size_t)(m * n));
      for (int64_t i = 0; i < m * lda; i++) a[i] = frand(&seed);
      for (int64_t i = 0; i < k * n; i++) b[i] = frand(&seed);
      tfs_gemm_packed *p = tfs_gemm_pack_b_f32(0, k, n, b, n);
      CU_ASSERT_PTR_NOT_NULL_FATAL(p);
      tfs_gemm_f32(0, 0, m, n, k, 1.0f, a, lda, b, n, 0.0f, c2, ldc, NULL);
      for (int t = 0; t < 2; t++) {
        memset(seen, 0, sizeof(int) * (size_t)(m * n));
        done_check d = {c, NULL, n, ldc, seen};
        atomic_init(&d.stale, 0);
        tfs_gemm_f32_packed_done(0, m, 1.0f, a, lda, p, 0.0f, c, ldc,
                                 t ? pool : NULL, on_done, &d);
        int once = 1, same = 1;
        double worst = 0;
        for (int64_t i = 0; i < m * n; i++) once &= seen[i] == 1;
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++) {
            double ref = 0;
            for (int64_t r = 0; r < k; r++)
              ref += (double)a[i * lda + r] * b[r * n + j];
            double e = fabs(c[i * ldc + j] - ref) / (1.0 + fabs(ref));
            if (e > worst) worst = e;
            same &= memcmp(&c[i * ldc + j], &c2[i * ldc + j],
                           sizeof(float)) == 0;
          }
        if (worst > 1e-6 + 1e-7 * (double)k || !once)
          fprintf(stderr, "\n  %s %lldx%lldx%lld t=%d: error %g once %d",
                  paths[pi], (long long)m, (long long)n, (long long)k, t,
                  worst, once);
        CU_ASSERT_TRUE(worst <= 1e-6 + 1e-7 * (double)k);
        CU_ASSERT_TRUE(once);
        if (k <= 256) CU_ASSERT_TRUE(same);
      }
      tfs_gemm_packed_free(p);
      free(a);
      free(b);
      free(c);
      free(c2);
      free(seen);
    }
  }
  tfs_gemm__force_path(NULL);
  tfs_threadpool_free(pool);
}

/* The cuts for threads: a plain A (large tasks) in as few row blocks as
 * MC allows, then columns to two tasks a thread; a convolution's (small
 * tasks) four row blocks a thread; rows only for OpenBLAS; and every cut
 * covers each element of C once. */
static void test_split_modes(void) {
  static const struct {
    int mode;
    int64_t m, n;
    int nt;
    int64_t mblocks, nchunks;
  } k[] = {
      {TFS_GEMM_SPLIT_LARGE, 128, 1024, 2, 2, 2},  /* BERT, batch 1 */
      {TFS_GEMM_SPLIT_ROWS_COLS, 128, 1024, 2, 8, 1},
      {TFS_GEMM_SPLIT_LARGE, 1024, 1024, 2, 10, 1}, /* batch 8 */
      {TFS_GEMM_SPLIT_ROWS_COLS, 1024, 1024, 2, 10, 1},
      {TFS_GEMM_SPLIT_LARGE, 8, 512, 2, 1, 8},      /* an LSTM step */
      {TFS_GEMM_SPLIT_LARGE, 1, 1000, 4, 1, 16},
      {TFS_GEMM_SPLIT_LARGE, 128, 1024, 1, 2, 1},   /* one thread */
      {TFS_GEMM_SPLIT_ROWS, 128, 1024, 2, 8, 1},
  };
  for (size_t i = 0; i < TFS_ARRAY_LEN(k); i++) {
    tfs_gemm_tiling t;
    int64_t n = tfs_gemm__split_tiles(6, 16, k[i].mode, k[i].m, k[i].n,
                                      k[i].nt, 120, &t);
    CU_ASSERT_EQUAL(t.mblocks, k[i].mblocks);
    CU_ASSERT_EQUAL(t.nchunks, k[i].nchunks);
    CU_ASSERT_EQUAL(n, t.mblocks * t.nchunks);
    CU_ASSERT_TRUE(t.mc <= 120);
    int64_t covered = 0, rows_ok = 1;
    for (int64_t task = 0; task < n; task++) {
      int64_t mi, ic, mb, c0, nb;
      tfs_gemm__tile_of(&t, task, &mi, &ic, &mb, &c0, &nb);
      covered += mb * nb;
      rows_ok &= mb <= 120 && c0 % 16 == 0 && ic % 6 == 0;
    }
    CU_ASSERT_EQUAL(covered, k[i].m * k[i].n);
    CU_ASSERT_TRUE(rows_ok);
  }
}

/* Rows of an indirect A for test_uniform_rows: row r at img + r * step,
 * except that rows from `jump` on lie `gap` floats further (a panel
 * across the jump is not evenly spaced). */
typedef struct {
  const float *img;
  int64_t step, jump, gap;
} uni_rows;

static void uni_rows_fn(void *arg, int64_t r0, int64_t mb, const float **out) {
  const uni_rows *u = arg;
  for (int64_t i = 0; i < mb; i++) {
    int64_t r = r0 + i;
    out[i] = u->img + r * u->step + (r >= u->jump ? u->gap : 0);
  }
}

/* The indirect products over evenly spaced rows (a 1x1 convolution's
 * pixels, an output row's windows) take kernels of their own where the
 * CPU has them (AVX-512): the same bits as the row-pointer kernels with
 * those kernels turned off, and both within float rounding of a double
 * reference; every row count of a panel, half and whole column panels,
 * depth in one and in two blocks (accumulating), bias, Relu and Relu6
 * with NaN inputs, rows spaced 0 (the same row) or more, and panels
 * across an uneven step, on one thread and three; rows given evenly
 * spaced by construction (tfs_gemm_indirect.row_base) the same bits
 * again, every panel on those kernels; on AVX2, which has none, row_base
 * gives the row pointers without rows(), the same bits. */
static void uniform_rows_on(const char *path, int isa) {
  static const int64_t ms[] = {1, 2, 5, 11, 12, 13, 16, 24, 97};
  static const int64_t ns[] = {7, 16, 20, 32, 45, 100};
  static const int64_t segs[][2] = {{1, 16}, {3, 9}, {4, 100}};
  const char *why = tu_isa_unavailable(isa);
  tu_cpu_path("gemm-uniform-rows", path, why);
  if (why) return;
  CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(path), 0);
  /* AVX2's six row pointers fit its registers: no such kernels there,
   * row_base only spares the rows() callback */
  const int kernels = isa == TFS_CPU_ISA_AVX512;
  tfs_threadpool *pools[2] = {NULL, tfs_threadpool_new("gemm", 3, NULL)};
  unsigned seed = 99;
  int cases = 0, same = 0, close = 0, evenly = 0;
  int64_t taken = 0;
  for (size_t si = 0; si < TFS_ARRAY_LEN(segs); si++)
    for (size_t mi = 0; mi < TFS_ARRAY_LEN(ms); mi++)
      for (size_t ni = 0; ni < TFS_ARRAY_LEN(ns); ni++) {
        const int64_t m = ms[mi], n = ns[ni], nseg = segs[si][0],
                      seglen = segs[si][1], k = nseg * seglen;
        const int variant = (int)((si + mi + ni) % 4);
        int64_t segoff[4];
        for (int64_t q = 0; q < nseg; q++) segoff[q] = q * (seglen + 5);
        const int64_t span = segoff[nseg - 1] + seglen;
        uni_rows u = {NULL, variant == 3 ? 0 : span + (int64_t)mi,
                      variant == 2 ? m / 2 + 1 : m, 3};
        size_t imgn = (size_t)(m * (u.step + 1) + span + u.gap + 1);
        float *img = malloc(sizeof(float) * imgn);
        float *b = malloc(sizeof(float) * (size_t)(k * n));
        float *bias = malloc(sizeof(float) * (size_t)n);
        float *c[3] = {malloc(sizeof(float) * (size_t)(m * n)),
                       malloc(sizeof(float) * (size_t)(m * n)),
                       malloc(sizeof(float) * (size_t)(m * n))};
        for (size_t q = 0; q < imgn; q++) img[q] = frand(&seed);
        if (variant == 1) img[span / 2] = NAN; /* row 0 reads it */
        for (int64_t q = 0; q < k * n; q++) b[q] = frand(&seed);
        for (int64_t q = 0; q < n; q++) bias[q] = frand(&seed);
        u.img = img;
        tfs_gemm_packed *pb = tfs_gemm_pack_b_f32(0, k, n, b, n);
        tfs_gemm_indirect src = {uni_rows_fn, NULL, &u, segoff, nseg, seglen,
                                 variant ? bias : NULL, variant % 3};
        /* on 2: rows evenly spaced by construction (row_base) */
        for (int on = 0; on < 3; on++) {
          tfs_gemm__set_uniform(on > 0);
          if (on == 2 && variant == 2) break; /* not evenly spaced */
          if (on == 2) src.row_base = img, src.row_stride = u.step;
          int64_t before = tfs_gemm__uniform_panels();
          CU_ASSERT_EQUAL(tfs_gemm_f32_indirect(m, &src, pb, c[on], n,
                                                pools[(mi + ni) % 2]),
                          0);
          if (on && kernels) taken += tfs_gemm__uniform_panels() - before;
          else CU_ASSERT_EQUAL(tfs_gemm__uniform_panels(), before);
          if (on == 2 && kernels) /* every panel, at least once */
            CU_ASSERT_TRUE(tfs_gemm__uniform_panels() - before >=
                           (m + 11) / 12);
        }
        cases++;
        same += memcmp(c[0], c[1], sizeof(float) * (size_t)(m * n)) == 0;
        if (variant != 2) {
          evenly++;
          same += memcmp(c[0], c[2], sizeof(float) * (size_t)(m * n)) == 0;
        }
        int ok = 1;
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++) {
            const float *row = img + i * u.step + (i >= u.jump ? u.gap : 0);
            double want = variant ? bias[j] : 0;
            for (int64_t q = 0; q < nseg; q++)
              for (int64_t t = 0; t < seglen; t++)
                want +=
                    (double)row[segoff[q] + t] * b[(q * seglen + t) * n + j];
            /* Relu and Relu6 keep NaN */
            if ((variant == 1 || variant == 2) && want < 0) want = 0;
            if (variant == 2 && want > 6) want = 6;
            float got = c[1][i * n + j];
            ok &= isnan(want)
                      ? isnan(got)
                      : fabs(got - want) <= 1e-6 * (1 + fabs(want)) * k;
          }
        close += ok;
        tfs_gemm_packed_free(pb);
        free(img), free(b), free(bias), free(c[0]), free(c[1]), free(c[2]);
      }
  CU_ASSERT_EQUAL(same, cases + evenly);
  CU_ASSERT_TRUE(evenly > 0);
  CU_ASSERT_EQUAL(close, cases);
  CU_ASSERT_EQUAL(taken > 0, kernels);
  tfs_gemm__set_uniform(1);
  tfs_gemm__force_path(NULL);
  tfs_threadpool_free(pools[1]);
}

static void test_uniform_rows(void) {
  uniform_rows_on("avx512", TFS_CPU_ISA_AVX512);
  uniform_rows_on("avx2", TFS_CPU_ISA_AVX2);
}

/* parallel_for starts thread i of nt on tasks [n * i / nt, n * (i + 1) /
 * nt); with the rows cut in a multiple of nt blocks, each such share
 * holds the same number of mr-row panels within one (1024 rows of 12 on
 * two threads: 43 + 43 panels, not 44 + 42 with the longer blocks
 * first), at every row count, thread count and cut. */
static void test_split_shares(void) {
  static const int modes[2] = {TFS_GEMM_SPLIT_LARGE, TFS_GEMM_SPLIT_ROWS_COLS};
  int checked = 0, bad = 0;
  for (int mo = 0; mo < 2; mo++)
    for (int nt = 2; nt <= 4; nt++)
      for (int64_t m = 12; m <= 4096; m += 13) {
        tfs_gemm_tiling t;
        tfs_gemm__split_tiles(12, 32, modes[mo], m, 1024, nt, 96, &t);
        if (t.mblocks % nt) continue;
        int64_t lo = INT64_MAX, hi = 0;
        for (int i = 0; i < nt; i++) {
          int64_t panels = 0;
          for (int64_t mi = t.mblocks * i / nt; mi < t.mblocks * (i + 1) / nt;
               mi++) {
            int64_t ic, mb;
            tfs_gemm__block_rows(m, 12, t.panels, t.mblocks, mi, &ic, &mb);
            panels += (mb + 11) / 12;
          }
          lo = panels < lo ? panels : lo;
          hi = panels > hi ? panels : hi;
        }
        checked++;
        bad += hi - lo > 1;
      }
  CU_ASSERT_TRUE(checked > 500);
  CU_ASSERT_EQUAL(bad, 0);
}

static double act_of(const char *act, double x) {
  if (!strcmp(act, "Relu")) return x < 0 ? 0 : x;
  if (!strcmp(act, "Relu6")) return x < 0 ? 0 : x > 6 ? 6 : x;
  return tanh(x);
}

/* MatMul + BiasAdd + act (fused by the optimizer into _FusedMatMul with
 * B packed at prepare) on 4 intra-op threads: many rows (row blocks,
 * the last panel partial) and a few rows (the GEMM splits the columns),
 * each tile finished where the GEMM leaves it, against a reference; with
 * many rows the bias and Relu / Relu6 in the kernels' stores (Tanh after
 * them on each tile), counted by tfs_gemm__bias_direct_calls, the same
 * bits as with the indirect kernels off (the bias a pass of its own). */
static void fused_matmul_rows(const char *act) {
  enum { K = 37, N = 45 };
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  float bv[K * N], biasv[N];
  unsigned seed = 7;
  for (int i = 0; i < K * N; i++) bv[i] = 2 * frand(&seed);
  for (int i = 0; i < N; i++) biasv[i] = 2 * frand(&seed);
  tfs_tensor *bt = tu_floats((int64_t[]){K, N}, 2, bv);
  tfs_tensor *biast = tu_floats((int64_t[]){N}, 1, biasv);
  tfs_output a = tfs_op_placeholder(g, "a", TFS_FLOAT, NULL, -1, st);
  tfs_output b = tfs_op_const(g, "b", bt, st);
  tfs_output bias = tfs_op_const(g, "bias", biast, st);
  tfs_output y = tfs_op_matmul(g, "mm", a, b, 0, 0, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "BiasAdd", "ba");
  tfs_op_desc_add_input(d, y);
  tfs_op_desc_add_input(d, bias);
  tfs_output ba = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, act, "out");
  tfs_op_desc_add_input(d, ba);
  tfs_output out = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_session_options *o = tfs_session_options_new();
  tu_own_pools(o, 4);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  const int64_t ms[3] = {203, 5, 1};
  for (int t = 0; t < 3; t++) {
    int64_t m = ms[t];
    float *av = malloc(sizeof(float) * (size_t)(m * K));
    for (int64_t i = 0; i < m * K; i++) av[i] = frand(&seed);
    tfs_tensor *at = tu_floats((int64_t[]){m, K}, 2, av);
    int64_t calls = tfs_gemm__bias_direct_calls();
    tfs_tensor *r = tu_run1(s, out, &a, &at, 1);
    /* where the CPU has indirect kernels and the rows fill a panel */
    if (!tu_isa_unavailable(TFS_CPU_ISA_AVX2))
      CU_ASSERT_EQUAL(tfs_gemm__bias_direct_calls() - calls, m >= 12);
    tfs_gemm__set_indirect(0);
    tfs_tensor *r0 = tu_run1(s, out, &a, &at, 1);
    tfs_gemm__set_indirect(1);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dim(r, 0), m);
    CU_ASSERT(memcmp(tfs_tensor_data(r), tfs_tensor_data(r0),
                     sizeof(float) * (size_t)(m * N)) == 0);
    const float *p = tfs_tensor_data(r);
    int bad = 0;
    for (int64_t i = 0; i < m; i++)
      for (int j = 0; j < N; j++) {
        double want = biasv[j];
        for (int q = 0; q < K; q++) want += (double)av[i * K + q] * bv[q * N + j];
        if (fabs(p[i * N + j] - act_of(act, want)) > 1e-4) bad++;
      }
    if (bad) fprintf(stderr, "\n  %s m=%lld: %d wrong", act, (long long)m, bad);
    CU_ASSERT_EQUAL(bad, 0);
    tfs_tensor_free(r);
    tfs_tensor_free(r0);
    tfs_tensor_free(at);
    free(av);
  }
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_tensor_free(bt);
  tfs_tensor_free(biast);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_fused_matmul_rows(void) {
  fused_matmul_rows("Relu");
  fused_matmul_rows("Relu6");
  fused_matmul_rows("Tanh");
}

/* B read transposed (packed four columns by four depths at a time) gives
 * the bits of B transposed by hand and read plainly, on each vector path:
 * column counts and depths around the groups of four, B packed per call
 * and packed once. */
static void test_gemm_trans_b_pack(void) {
  static const char *paths[] = {"avx512", "avx2"};
  static const int isas[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2};
  static const int64_t kNK[][2] = {{16, 64}, {13, 9}, {35, 130}, {3, 3}};
  const int64_t m = 14;
  for (int pi = 0; pi < 2; pi++) {
    if (tu_isa_unavailable(isas[pi])) continue;
    CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(paths[pi]), 0);
    for (size_t t = 0; t < TFS_ARRAY_LEN(kNK); t++) {
      const int64_t n = kNK[t][0], k = kNK[t][1], ldb = k + 5;
      unsigned seed = (unsigned)(31 + t);
      float *a = malloc(sizeof(float) * (size_t)(m * k));
      float *bt = malloc(sizeof(float) * (size_t)(n * ldb));
      float *b = malloc(sizeof(float) * (size_t)(k * n));
      float *c1 = malloc(sizeof(float) * (size_t)(m * n));
      float *c2 = malloc(sizeof(float) * (size_t)(m * n));
      for (int64_t i = 0; i < m * k; i++) a[i] = frand(&seed);
      for (int64_t i = 0; i < n * ldb; i++) bt[i] = frand(&seed);
      for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++) b[p * n + j] = bt[j * ldb + p];
      tfs_gemm_f32(0, 1, m, n, k, 1.0f, a, k, bt, ldb, 0.0f, c1, n, NULL);
      tfs_gemm_f32(0, 0, m, n, k, 1.0f, a, k, b, n, 0.0f, c2, n, NULL);
      CU_ASSERT_EQUAL(memcmp(c1, c2, sizeof(float) * (size_t)(m * n)), 0);
      tfs_gemm_packed *pt = tfs_gemm_pack_b_f32(1, k, n, bt, ldb);
      CU_ASSERT_PTR_NOT_NULL_FATAL(pt);
      tfs_gemm_f32_packed(0, m, 1.0f, a, k, pt, 0.0f, c1, n, NULL);
      CU_ASSERT_EQUAL(memcmp(c1, c2, sizeof(float) * (size_t)(m * n)), 0);
      tfs_gemm_packed_free(pt);
      free(a);
      free(bt);
      free(b);
      free(c1);
      free(c2);
    }
  }
  CU_ASSERT_EQUAL(tfs_gemm__force_path(NULL), 0);
}

static const tfs_test_case gemm_cases[] = {
    {"matches_reference", test_gemm_matches_reference},
    {"thin", test_gemm_thin},
    {"panel_width", test_gemm_panel_width},
    {"trans_b_pack", test_gemm_trans_b_pack},
    {"f64", test_gemm_f64},
    {"matmul_packed_and_fed", test_matmul_packed_and_fed},
    {"packed_done_any_threads", test_gemm_packed_done_any_threads},
    {"packed_direct", test_gemm_packed_direct},
    {"fused_matmul_rows", test_fused_matmul_rows},
    {"split_modes", test_split_modes},
    {"split_shares", test_split_shares},
    {"uniform_rows", test_uniform_rows},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"gemm", gemm_cases},
                                          {NULL, NULL}};

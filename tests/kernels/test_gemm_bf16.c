/*
 * tests/kernels/test_gemm_bf16.c - the bfloat16 GEMM on each path this
 * CPU can run (AMX tiles where AMX-BF16 is present and granted, vdpbf16ps
 * where AVX512_BF16 is, widened to float32 everywhere) against a double
 * reference from the same bfloat16 inputs, with every transpose, edge
 * sizes around the 12x32 and 32x32 tiles, the 32-deep AMX tile and the
 * cache blocks, odd and even depths, packed weights, one thread and the
 * pool; each dot path against the widened one; the detection and its
 * overrides; and
 * the bfloat16 MatMul, _FusedMatMul and BatchMatMulV2 kernels through
 * sessions, directly and with auto mixed precision forced on, against
 * float32.  No timings.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/config.h"
#include "core/cpu.h"
#include "core/half.h"
#include "core/threadpool.h"
#include "core/util.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/gemm.h"
#include "testutil.h"

static uint16_t brand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return tfs_float_to_bf16((float)((*s >> 16) % 2001) / 1000.0f - 1.0f);
}

typedef struct prod {
  int ta, tb, packed;
  int64_t m, n, k, lda, ldb, ldc;
  uint16_t *a, *b;
  float *c;
} prod;

static void prod_init(prod *p, int t, int64_t m, int64_t n, int64_t k) {
  memset(p, 0, sizeof *p);
  p->ta = t & 1;
  p->tb = (t >> 1) & 1;
  p->packed = (t >> 2) & 1;
  p->m = m, p->n = n, p->k = k;
  p->lda = (p->ta ? m : k) + 3;
  p->ldb = (p->tb ? k : n) + 1;
  p->ldc = n + 2;
  unsigned seed = (unsigned)(m * 131 + n * 7 + k + t);
  int64_t na = p->lda * (p->ta ? k : m), nb = p->ldb * (p->tb ? n : k);
  p->a = malloc(sizeof(uint16_t) * (size_t)(na + 1));
  p->b = malloc(sizeof(uint16_t) * (size_t)(nb + 1));
  p->c = malloc(sizeof(float) * (size_t)(p->ldc * m + 1));
  for (int64_t i = 0; i < na; i++) p->a[i] = brand(&seed);
  for (int64_t i = 0; i < nb; i++) p->b[i] = brand(&seed);
}

static void prod_free(prod *p) {
  free(p->a);
  free(p->b);
  free(p->c);
}

/* Runs the product on the path in force into p->c (0.5 everywhere
 * first, to see what it writes). */
static void prod_run(prod *p, tfs_threadpool *pool) {
  for (int64_t i = 0; i < p->ldc * p->m; i++) p->c[i] = 0.5f;
  if (p->packed) {
    tfs_gemm_packed_bf16 *pk =
        tfs_gemm_pack_b_bf16(p->tb, p->k, p->n, p->b, p->ldb);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pk);
    CU_ASSERT_EQUAL(tfs_gemm_packed_bf16_dot(pk),
                    tfs_cpu_has_amx() || tfs_cpu_has_bf16_dot());
    CU_ASSERT_EQUAL(tfs_gemm_bf16_packed(p->ta, p->m, p->a, p->lda, pk, p->c,
                                         p->ldc, pool), 0);
    tfs_gemm_packed_bf16_free(pk);
  } else {
    CU_ASSERT_EQUAL(tfs_gemm_bf16(p->ta, p->tb, p->m, p->n, p->k, p->a,
                                  p->lda, p->b, p->ldb, p->c, p->ldc, pool),
                    0);
  }
}

/* Elements off the reference by more than float32 accumulation allows:
 * (k + 2) roundings of 2^-24 relative to the sum of |a b| (the products
 * of bfloat16 values are exact in float32); columns past n unwritten.
 * The operands are widened once, A by rows and B by columns, so the
 * reference is a plain dot product (the sanitizer build runs it at -O0). */
static int64_t prod_bad(const prod *p) {
  int64_t bad = 0, k = p->k;
  double *ar = malloc(sizeof(double) * (size_t)(p->m * k + 1));
  double *bc = malloc(sizeof(double) * (size_t)(p->n * k + 1));
  CU_ASSERT_FATAL(ar && bc);
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t q = 0; q < k; q++)
      ar[i * k + q] = tfs_bf16_to_float(p->ta ? p->a[q * p->lda + i]
                                              : p->a[i * p->lda + q]);
  for (int64_t j = 0; j < p->n; j++)
    for (int64_t q = 0; q < k; q++)
      bc[j * k + q] = tfs_bf16_to_float(p->tb ? p->b[j * p->ldb + q]
                                              : p->b[q * p->ldb + j]);
  for (int64_t i = 0; i < p->m; i++)
    for (int64_t j = 0; j < p->ldc; j++) {
      double got = p->c[i * p->ldc + j];
      if (j >= p->n) {
        bad += got != 0.5;
        continue;
      }
      const double *x = ar + i * k, *y = bc + j * k;
      double s = 0, mag = 0;
      for (int64_t q = 0; q < k; q++) {
        double xy = x[q] * y[q];
        s += xy;
        mag += fabs(xy);
      }
      double tol = (double)(k + 2) * ldexp(1.0, -24) * mag + 1e-30;
      bad += !(fabs(got - s) <= tol);
    }
  free(ar);
  free(bc);
  return bad;
}

/* m, n, k around the 12x32 and 32x32 tiles, the 32-deep AMX tile, the
 * 192-row and 512-deep blocks, a column count past the 4096-column
 * block; odd and even depths. */
static const int64_t kSizes[][3] = {
    {1, 1, 1},      {1, 1, 2},      {3, 5, 3},       {12, 32, 16},
    {13, 33, 17},   {11, 31, 31},   {25, 65, 64},    {24, 64, 511},
    {36, 96, 512},  {37, 97, 513},  {193, 40, 100},  {200, 70, 1025},
    {1, 512, 784},  {4, 4100, 6},   {0, 5, 5},       {5, 0, 5},
    {4, 4, 0},      {385, 33, 9},   {32, 32, 32},    {31, 32, 34},
    {16, 17, 33},   {17, 16, 63},   {64, 64, 1056},  {224, 64, 545}};

static void test_gemm_bf16_matches_reference(void) {
  static const char *const names[TU_BF16_PATHS] = {"amx_bf16", "avx512_bf16",
                                            "widened"};
  tfs_threadpool *pool = tfs_threadpool_new("gemm", 3, NULL);
  for (int pi = 0; pi < TU_BF16_PATHS; pi++) {
    const char *why = tu_bf16_path(pi);
    tu_cpu_path("gemm-bf16", tu_bf16_path_names[pi], why);
    if (why) continue;
    CU_ASSERT_PTR_NOT_NULL(strstr(tfs_gemm_bf16_describe(), names[pi]));
    for (size_t s = 0; s < TFS_ARRAY_LEN(kSizes); s++)
      for (int t = 0; t < 8; t++) {
        prod p;
        prod_init(&p, t, kSizes[s][0], kSizes[s][1], kSizes[s][2]);
        prod_run(&p, (s + (size_t)t) % 2 ? pool : NULL);
        int64_t bad = prod_bad(&p);
        if (bad)
          fprintf(stderr, "\n  %s %lldx%lldx%lld t=%d: %lld bad\n",
                  tu_bf16_path_names[pi], (long long)p.m, (long long)p.n,
                  (long long)p.k, t, (long long)bad);
        CU_ASSERT_EQUAL(bad, 0);
        prod_free(&p);
      }
  }
  tu_bf16_paths_reset();
  tfs_threadpool_free(pool);
}

/* The same products on each dot path and widened agree within twice the
 * accumulation bound of each. */
static void dot_vs_widen(int path) {
  for (size_t s = 0; s < TFS_ARRAY_LEN(kSizes); s++) {
    prod p;
    prod_init(&p, (int)(s % 8), kSizes[s][0], kSizes[s][1], kSizes[s][2]);
    tu_bf16_path(path);
    prod_run(&p, NULL);
    float *dot = malloc(sizeof(float) * (size_t)(p.ldc * p.m + 1));
    memcpy(dot, p.c, sizeof(float) * (size_t)(p.ldc * p.m));
    tu_bf16_path(TU_BF16_WIDEN);
    prod_run(&p, NULL);
    int64_t bad = 0;
    for (int64_t i = 0; i < p.ldc * p.m; i++) {
      double tol = 2.0 * (double)(p.k + 2) * ldexp(1.0, -24) *
                   (double)p.k + 1e-30; /* |a|, |b| <= 1 */
      bad += !(fabs((double)dot[i] - p.c[i]) <= tol);
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(dot);
    prod_free(&p);
  }
}

static void test_gemm_bf16_dot_vs_widen(void) {
  static const char *const names[2] = {"amx-vs-widen", "dot-vs-widen"};
  for (int pi = TU_BF16_AMX; pi <= TU_BF16_DOT; pi++) {
    const char *why = tu_bf16_path(pi);
    tu_cpu_path("gemm-bf16", names[pi], why);
    if (!why) dot_vs_widen(pi);
  }
  tu_bf16_paths_reset();
}

/* Special values, then bit patterns of every exponent class (lengths
 * that leave a tail after the 16- and 8-lane bodies). */
static void round_values(float *v, int64_t n) {
  static const float special[] = {
      0.0f,      -0.0f,     1.0f,     1.00390625f, 1.01171875f, 3.4e38f,
      -3.4e38f,  1e-40f,    -1e-40f,  INFINITY,    -INFINITY,   NAN,
      -NAN,      -1.5e-3f,  FLT_MAX,  -FLT_MAX,    FLT_MIN,     1.0039063f};
  unsigned seed = 77;
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    uint32_t u = seed ^ (seed << 13);
    if (i % 5 == 0) u = (u & 0xffff0000u) | 0x8000u; /* ties */
    if (i % 7 == 0) u |= 0x7f800000u;                /* Inf / NaN */
    if (i % 11 == 0) u &= 0x807fffffu;               /* denormals */
    memcpy(&v[i], &u, 4);
  }
  memcpy(v, special, sizeof special);
}

/* Elements of tfs_gemm_round_bf16(v[0..n)) that differ from the scalar
 * rounding, that it wrote past n (N - n zeros expected), or that do not
 * widen back exactly. */
static int round_bad(const float *v, int64_t n, int64_t cap) {
  uint16_t *got = calloc((size_t)cap, sizeof *got);
  float *back = malloc(sizeof(float) * (size_t)cap);
  int bad = 0;
  tfs_gemm_round_bf16(v, got, n);
  for (int64_t i = 0; i < n; i++) bad += got[i] != tfs_float_to_bf16(v[i]);
  for (int64_t i = n; i < cap; i++) bad += got[i] != 0;
  tfs_bf16_to_f32(got, back, n);
  for (int64_t i = 0; i < n; i++) {
    float want = tfs_bf16_to_float(got[i]);
    bad += memcmp(&back[i], &want, 4) != 0;
  }
  free(got);
  free(back);
  return bad;
}

/* tfs_gemm_round_bf16 (and the Cast kernels' arrays) against the scalar
 * rounding bit for bit, on each vector level this CPU has (the AVX-512
 * level also with AVX512_BF16's conversion where the CPU has it) and one
 * value at a time; widening back is exact.  Every value class, then the
 * same values without subnormals but in elements 500-515 (vcvtneps2bf16
 * reads subnormals as zero: a vector holding one takes the integer
 * rounding). */
static void test_gemm_bf16_round(void) {
  enum { N = 1000 + 13 };
  static float all[N], v[N];
  uint16_t got[18];
  round_values(all, N);
  int native = tfs_cpu_bf16_dot_detected() &&
               !tu_isa_unavailable(TFS_CPU_ISA_AVX512);
  tu_cpu_path("bf16-round", "avx512_bf16",
              native ? NULL : "no AVX512_BF16 on this CPU");
  for (int li = native ? -1 : 0; li < TU_VECTOR_LEVELS; li++) {
    tfs_bf16__set_native(li < 0);
    if (li < 0)
      tfs_cpu__set_max_isa(TFS_CPU_ISA_AVX512);
    else if (!tu_cpu_level("bf16-round", tu_vector_levels[li]))
      continue;
    for (int pass = 0; pass < 2; pass++) {
      memcpy(v, all, sizeof v);
      for (int64_t i = 0; pass && i < N; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        if ((u & 0x7f800000u) == 0 && (i < 500 || i > 515)) u |= 0x00800000u;
        memcpy(&v[i], &u, 4);
      }
      for (int64_t n = N; n >= N - 13; n -= 13) {
        int bad = round_bad(v, n, N);
        if (bad)
          fprintf(stderr, "\n  level %s%s, pass %d, n=%lld: %d bad\n",
                  tfs_cpu_isa_name(tfs_cpu_isa_max()),
                  li < 0 ? " (vcvtneps2bf16)" : "", pass, (long long)n, bad);
        CU_ASSERT_EQUAL(bad, 0);
      }
    }
  }
  tfs_bf16__set_native(-1);
  tfs_cpu__set_max_isa(-1);
  tfs_gemm_round_bf16(all, got, 18);
  CU_ASSERT_EQUAL(got[3], 0x3f80); /* a tie rounds to even */
  CU_ASSERT_EQUAL(got[4], 0x3f82);
  CU_ASSERT_EQUAL(got[7], 0x0001); /* a denormal kept */
  CU_ASSERT_EQUAL(got[9], 0x7f80);
  CU_ASSERT_EQUAL(got[11] & 0x7fc0, 0x7fc0); /* NaN stays quiet NaN */
  CU_ASSERT_EQUAL(got[14], 0x7f80); /* FLT_MAX rounds up to infinity */
}

/* Detection and overrides: capping the ISA below avx512 or turning it off
 * disables the AMX and dot paths; -1 brings them back; AMX goes first. */
static void test_gemm_bf16_cpu_overrides(void) {
  int amx_env = tfs_cpu_has_amx();
  int amx_can = tfs_cpu_amx_detected() && tfs_cpu_has(TFS_CPU_ISA_AVX512);
  CU_ASSERT_TRUE(!amx_env || amx_can);
  CU_ASSERT_TRUE(!tfs_cpu_amx_detected() || tfs_cpu_bf16_detected());
  tfs_cpu__set_amx(1);
  CU_ASSERT_EQUAL(tfs_cpu_has_amx(), amx_can);
  if (amx_can) {
    tfs_cpu__set_bf16_dot(1);
    CU_ASSERT_PTR_NOT_NULL(strstr(tfs_gemm_bf16_describe(), "amx_bf16"));
    tfs_cpu__set_bf16_dot(-1);
  }
  tfs_cpu__set_max_isa(TFS_CPU_ISA_AVX2);
  CU_ASSERT_EQUAL(tfs_cpu_has_amx(), 0);
  tfs_cpu__set_max_isa(-1);
  tfs_cpu__set_amx(0);
  CU_ASSERT_EQUAL(tfs_cpu_has_amx(), 0);
  tfs_cpu__set_amx(-1);
  CU_ASSERT_EQUAL(tfs_cpu_has_amx(), amx_env);
  tfs_cpu__set_amx(0); /* the dot path's own checks */
  int env_on = tfs_cpu_has_bf16_dot();
  int can = tfs_cpu_bf16_dot_detected() && tfs_cpu_has(TFS_CPU_ISA_AVX512);
  CU_ASSERT_TRUE(!env_on || can);
  tfs_cpu__set_bf16_dot(1);
  CU_ASSERT_EQUAL(tfs_cpu_has_bf16_dot(), can);
  tfs_cpu__set_max_isa(TFS_CPU_ISA_AVX2);
  CU_ASSERT_EQUAL(tfs_cpu_has_bf16_dot(), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_gemm_bf16_describe(), "widened"));
  tfs_cpu__set_max_isa(-1);
  CU_ASSERT_EQUAL(tfs_cpu_has_bf16_dot(), can);
  tfs_cpu__set_bf16_dot(0);
  CU_ASSERT_EQUAL(tfs_cpu_has_bf16_dot(), 0);
  tfs_cpu__set_bf16_dot(-1);
  CU_ASSERT_EQUAL(tfs_cpu_has_bf16_dot(), env_on);
  tfs_cpu__set_amx(-1);
}

/* ---- kernels through sessions ------------------------------------------ */

static tfs_tensor *bf16_tensor(const int64_t *dims, int nd, unsigned *seed,
                               float *f) {
  tfs_status *st = tfs_status_new();
  tfs_tensor *t = tfs_tensor_new(TFS_BFLOAT16, dims, nd, st);
  TFS_ASSERT_OK(st);
  uint16_t *d = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
    d[i] = brand(seed);
    f[i] = tfs_bf16_to_float(d[i]);
  }
  tfs_status_free(st);
  return t;
}

/* bias_relu: fused_ops BiasAdd, Relu (and, 2, out_type bfloat16). */
static tfs_output add_op(tfs_graph *g, const char *type, const char *name,
                         const tfs_output *in, int nin, int bias_relu) {
  tfs_status *st = tfs_status_new();
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  for (int i = 0; i < (bias_relu ? 2 : nin); i++)
    tfs_op_desc_add_input(d, in[i]);
  if (bias_relu) {
    tfs_op_desc_add_input_list(d, in + 2, nin - 2);
    const void *ops[2] = {"BiasAdd", "Relu"};
    const size_t lens[2] = {7, 4};
    tfs_op_desc_set_attr_string_list(d, "fused_ops", ops, lens, 2);
    tfs_op_desc_set_attr_int(d, "num_args", 1);
    if (bias_relu == 2) tfs_op_desc_set_attr_type(d, "out_type", TFS_BFLOAT16);
  }
  tfs_output o = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return o;
}

enum { M = 29, K = 45, N = 38 };

/* MatMul (constant B: packed at prepare; and fed), _FusedMatMul + bias +
 * Relu and BatchMatMulV2 (broadcast batch) in bfloat16, and
 * _TfsFusedMatMulFloatOut + float32 bias + Relu (float32 out, no
 * rounding), against a double reference of the same bfloat16 inputs, on
 * the path in force; _TfsFusedMatMulFloatOut with out_type bfloat16 bit
 * for bit the float32 one's output rounded. */
static void run_kernels(const char *path) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  unsigned seed = 11;
  static float af[3 * M * K], bf[K * N], biasf[N];
  tfs_tensor *at = bf16_tensor((int64_t[]){M, K}, 2, &seed, af);
  tfs_tensor *bt = bf16_tensor((int64_t[]){K, N}, 2, &seed, bf);
  tfs_tensor *biast = bf16_tensor((int64_t[]){N}, 1, &seed, biasf);
  tfs_tensor *xt = bf16_tensor((int64_t[]){3, M, K}, 3, &seed, af);
  float a2[M * K];
  for (int i = 0; i < M * K; i++)
    a2[i] = tfs_bf16_to_float(((const uint16_t *)tfs_tensor_data(at))[i]);
  tfs_output a = tfs_op_placeholder(g, "a", TFS_BFLOAT16, NULL, -1, st);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_BFLOAT16, NULL, -1, st);
  tfs_output fb = tfs_op_placeholder(g, "fb", TFS_BFLOAT16, NULL, -1, st);
  tfs_output b = tfs_op_const(g, "b", bt, st);
  tfs_output bias = tfs_op_const(g, "bias", biast, st);
  tfs_tensor *bias32t = tu_floats((int64_t[]){N}, 1, biasf);
  tfs_output bias32 = tfs_op_const(g, "bias32", bias32t, st);
  tfs_tensor_free(bias32t);
  TFS_ASSERT_OK(st);
  enum { NOUT = 6 };
  tfs_output outs[NOUT] = {
      add_op(g, "MatMul", "mm", (tfs_output[]){a, b}, 2, 0),
      add_op(g, "MatMul", "mm_fed", (tfs_output[]){a, fb}, 2, 0),
      add_op(g, "_FusedMatMul", "fmm", (tfs_output[]){a, b, bias}, 3, 1),
      add_op(g, "BatchMatMulV2", "bmm", (tfs_output[]){x, b}, 2, 0),
      add_op(g, "_TfsFusedMatMulFloatOut", "fmm32",
             (tfs_output[]){a, b, bias32}, 3, 1),
      add_op(g, "_TfsFusedMatMulFloatOut", "fmm32_16",
             (tfs_output[]){a, b, bias32}, 3, 2)};
  tfs_session_options *o = tfs_session_options_new();
  tu_own_pools(o, 3);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_output feeds[3] = {a, x, fb};
  tfs_tensor *vals[3] = {at, xt, bt}, *res[NOUT] = {NULL};
  tfs_session_run(s, feeds, vals, 3, outs, res, NOUT, NULL, 0, st);
  TFS_ASSERT_OK(st);
  int bad = 0;
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(res[5]), TFS_BFLOAT16);
  for (int i = 0; i < M * N; i++)
    bad += ((const uint16_t *)tfs_tensor_data(res[5]))[i] !=
           tfs_float_to_bf16(((const float *)tfs_tensor_data(res[4]))[i]);
  tfs_tensor_free(res[5]);
  for (int r = 0; r < NOUT - 1; r++) {
    const int f32 = r == 4, fused = r == 2 || f32;
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(res[r]),
                          f32 ? TFS_FLOAT : TFS_BFLOAT16);
    const uint16_t *p = tfs_tensor_data(res[r]);
    const float *p32 = tfs_tensor_data(res[r]);
    int batches = r == 3 ? 3 : 1;
    for (int bi = 0; bi < batches; bi++)
      for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
          const float *av = r == 3 ? af + bi * M * K : a2;
          double want = fused ? biasf[j] : 0, mag = fabs(want);
          for (int q = 0; q < K; q++) {
            want += (double)av[i * K + q] * bf[q * N + j];
            mag += fabs((double)av[i * K + q] * bf[q * N + j]);
          }
          if (fused && want < 0) want = 0;
          double got = f32 ? p32[i * N + j]
                           : tfs_bf16_to_float(p[(bi * M + i) * N + j]);
          /* one bfloat16 rounding of the result (not for float32 out),
           * float32 sums */
          double tol = (f32 ? 0 : ldexp(1.0, -8) * fabs(want)) + 1e-5 * mag +
                       1e-30;
          bad += !(fabs(got - want) <= tol);
        }
    tfs_tensor_free(res[r]);
  }
  if (bad) fprintf(stderr, "\n  kernels on %s: %d bad\n", path, bad);
  CU_ASSERT_EQUAL(bad, 0);
  tfs_tensor_free(at);
  tfs_tensor_free(bt);
  tfs_tensor_free(biast);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_gemm_bf16_kernels(void) {
  for (int pi = 0; pi < TU_BF16_PATHS; pi++) {
    const char *why = tu_bf16_path(pi);
    tu_cpu_path("bf16-kernels", tu_bf16_path_names[pi], why);
    if (!why) run_kernels(tu_bf16_path_names[pi]);
  }
  tu_bf16_paths_reset();
}

/* ConfigProto bytes turning auto_mixed_precision_onednn_bfloat16 on. */
static void amp_config(tfs_session_options *o) {
  tfs_config cfg;
  tfs_config__init(&cfg);
  cfg.has_graph_options = 1;
  cfg.graph_options.has_rewrite_options = 1;
  cfg.graph_options.rewrite_options.min_graph_nodes = -1;
  cfg.graph_options.rewrite_options.auto_mixed_precision_onednn_bfloat16 =
      TFS_TOGGLE_ON;
  tfs_buffer *buf = tfs_buffer_new();
  tfs_status *st = tfs_status_new();
  tfs_config__serialize(&cfg, buf, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_set_config(o, buf->data, buf->length, st);
  TFS_ASSERT_OK(st);
  tfs_buffer_free(buf);
  tfs_status_free(st);
  tfs_config__clear(&cfg);
}

/* A float32 MLP x[64,100] -> 70 (bias, Relu) -> 10 (bias) and its
 * BatchMatMulV2 twin; built once per session. */
typedef struct mlp {
  tfs_graph *g;
  tfs_output x, y, z;
} mlp;

static void mlp_build(mlp *n, const float *w1, const float *b1,
                      const float *w2, const float *b2) {
  tfs_status *st = tfs_status_new();
  n->g = tfs_graph_new();
  tfs_tensor *t[4] = {tu_floats((int64_t[]){100, 70}, 2, w1),
                      tu_floats((int64_t[]){70}, 1, b1),
                      tu_floats((int64_t[]){70, 10}, 2, w2),
                      tu_floats((int64_t[]){10}, 1, b2)};
  n->x = tfs_op_placeholder(n->g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_output c1 = tfs_op_const(n->g, "w1", t[0], st);
  tfs_output c2 = tfs_op_const(n->g, "b1", t[1], st);
  tfs_output c3 = tfs_op_const(n->g, "w2", t[2], st);
  tfs_output c4 = tfs_op_const(n->g, "b2", t[3], st);
  TFS_ASSERT_OK(st);
  tfs_output h = add_op(n->g, "MatMul", "m1", (tfs_output[]){n->x, c1}, 2, 0);
  h = add_op(n->g, "BiasAdd", "a1", (tfs_output[]){h, c2}, 2, 0);
  h = add_op(n->g, "Relu", "r1", &h, 1, 0);
  tfs_output y = add_op(n->g, "MatMul", "m2", (tfs_output[]){h, c3}, 2, 0);
  n->y = add_op(n->g, "BiasAdd", "y", (tfs_output[]){y, c4}, 2, 0);
  tfs_output z = add_op(n->g, "BatchMatMulV2", "bm",
                        (tfs_output[]){h, c3}, 2, 0);
  n->z = add_op(n->g, "Relu", "z", &z, 1, 0);
  for (int i = 0; i < 4; i++) tfs_tensor_free(t[i]);
  tfs_status_free(st);
}

/* Runs the MLP (AMP on or off) on xt; fills y and z. */
static void mlp_run(const mlp *n, int amp, tfs_tensor *xt, tfs_tensor **y,
                    tfs_tensor **z) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  if (amp) amp_config(o);
  tu_own_pools(o, 2);
  tfs_cpu__set_bf16(amp);
  tfs_session *s = tfs_session_new(n->g, o, st);
  TFS_ASSERT_OK(st);
  tfs_output fetch[2] = {n->y, n->z};
  tfs_tensor *out[2] = {NULL, NULL};
  tfs_session_run(s, &n->x, &xt, 1, fetch, out, 2, NULL, 0, st);
  tfs_cpu__set_bf16(-1);
  TFS_ASSERT_OK(st);
  *y = out[0];
  *z = out[1];
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_status_free(st);
}

/* How many _FusedMatMul nodes AMP + the remapper leave in bfloat16. */
static int fused_bf16_count(const mlp *n) {
  tfs_status *st = tfs_status_new();
  tfs_optimizer_options *o = tfs_optimizer_options_new();
  tfs_config cfg;
  tfs_config__init(&cfg);
  cfg.has_graph_options = 1;
  cfg.graph_options.has_rewrite_options = 1;
  cfg.graph_options.rewrite_options.min_graph_nodes = -1;
  cfg.graph_options.rewrite_options.auto_mixed_precision_onednn_bfloat16 =
      TFS_TOGGLE_ON;
  tfs_buffer *buf = tfs_buffer_new();
  tfs_config__serialize(&cfg, buf, st);
  tfs_optimizer_options_set_config(o, buf->data, buf->length, st);
  TFS_ASSERT_OK(st);
  tfs_cpu__set_bf16(1);
  tfs_output fetch[2] = {n->y, n->z};
  tfs_graph *og =
      tfs_graph_optimize(n->g, &n->x, 1, fetch, 2, NULL, 0, o, NULL, st);
  tfs_cpu__set_bf16(-1);
  TFS_ASSERT_OK(st);
  size_t pos = 0;
  tfs_operation *op;
  int count = 0;
  while ((op = tfs_graph_next_operation(og, &pos)))
    count += strcmp(tfs_operation_op_type(op), "_FusedMatMul") == 0 &&
             tfs_operation_output_type((tfs_output){op, 0}) == TFS_BFLOAT16;
  tfs_graph_free(og);
  tfs_buffer_free(buf);
  tfs_config__clear(&cfg);
  tfs_optimizer_options_free(o);
  tfs_status_free(st);
  return count;
}

/* AMP (bfloat16 forced on) against float32: within the bfloat16
 * rounding of inputs, weights and the hidden layer; and the optimizer
 * did lower the products to bfloat16 _FusedMatMul. */
static void test_gemm_bf16_amp_session(void) {
  static float w1[100 * 70], b1[70], w2[70 * 10], b2[10], xv[64 * 100];
  unsigned seed = 5;
  for (int i = 0; i < 7000; i++) w1[i] = tfs_bf16_to_float(brand(&seed)) / 8;
  for (int i = 0; i < 70; i++) b1[i] = tfs_bf16_to_float(brand(&seed));
  for (int i = 0; i < 700; i++) w2[i] = tfs_bf16_to_float(brand(&seed)) / 4;
  for (int i = 0; i < 10; i++) b2[i] = tfs_bf16_to_float(brand(&seed));
  for (int i = 0; i < 6400; i++) xv[i] = tfs_bf16_to_float(brand(&seed));
  mlp n;
  mlp_build(&n, w1, b1, w2, b2);
  /* MatMul + BiasAdd + Relu (the fetched BiasAdd stays float32) */
  int fused = fused_bf16_count(&n);
  if (fused != 1) fprintf(stderr, "\n  %d bfloat16 _FusedMatMul\n", fused);
  CU_ASSERT_EQUAL(fused, 1);
  tfs_tensor *xt = tu_floats((int64_t[]){64, 100}, 2, xv);
  tfs_tensor *fy, *fz;
  mlp_run(&n, 0, xt, &fy, &fz);
  for (int pi = 0; pi < TU_BF16_PATHS; pi++) {
    const char *why = tu_bf16_path(pi);
    tu_cpu_path("bf16-amp-session", tu_bf16_path_names[pi], why);
    if (why) continue;
    tfs_tensor *y, *z;
    mlp_run(&n, 1, xt, &y, &z);
    const float *py = tfs_tensor_data(y), *pz = tfs_tensor_data(z);
    const float *ry = tfs_tensor_data(fy), *rz = tfs_tensor_data(fz);
    int bad = 0, differs = 0;
    for (int i = 0; i < 640; i++) {
      bad += !(fabsf(py[i] - ry[i]) <= 0.03f * (1.0f + fabsf(ry[i])));
      differs += py[i] != ry[i];
    }
    for (int i = 0; i < 64 * 10; i++)
      bad += !(fabsf(pz[i] - rz[i]) <= 0.03f * (1.0f + fabsf(rz[i])));
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(differs > 0); /* it did run in bfloat16 */
    tfs_tensor_free(y);
    tfs_tensor_free(z);
  }
  tu_bf16_paths_reset();
  tfs_tensor_free(fy);
  tfs_tensor_free(fz);
  tfs_tensor_free(xt);
  tfs_graph_free(n.g);
}

static const tfs_test_case gemm_bf16_cases[] = {
    {"matches_reference", test_gemm_bf16_matches_reference},
    {"dot_vs_widen", test_gemm_bf16_dot_vs_widen},
    {"round", test_gemm_bf16_round},
    {"cpu_overrides", test_gemm_bf16_cpu_overrides},
    {"kernels", test_gemm_bf16_kernels},
    {"amp_session", test_gemm_bf16_amp_session},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"gemm_bf16", gemm_bf16_cases},
                                          {NULL, NULL}};

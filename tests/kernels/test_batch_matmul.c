/*
 * tests/kernels/test_batch_matmul.c - float BatchMatMul (V1, V2, V3) on
 * every GEMM path this CPU runs (AVX-512, AVX2, OpenBLAS) against a
 * direct double-precision loop: broadcast batch dims (either side, one
 * shared matrix), every adj_x / adj_y, sizes around the micro-kernel
 * tiles, empty dims, many small matrices and a few big ones on the pool;
 * double on the BLAS; and TensorFlow's messages for bad shapes.
 */
#include "core/cpu.h"
#include "core/util.h"
#include "backends/cpu/gemm.h"
#include "nn_test_util.h"

/* x [xb..., m, k] (or [.., k, m] with adj_x), y likewise. */
typedef struct bmm_case {
  int xr, yr;        /* ranks */
  int64_t xd[5], yd[5];
  int adj_x, adj_y;
} bmm_case;

/* Output dims into od (rank returned): broadcast batch, then m, n. */
static int out_dims(const bmm_case *c, int64_t *od) {
  int xb = c->xr - 2, yb = c->yr - 2, nb = xb > yb ? xb : yb;
  for (int i = 0; i < nb; i++) {
    int ix = i - (nb - xb), iy = i - (nb - yb);
    int64_t dx = ix >= 0 ? c->xd[ix] : 1, dy = iy >= 0 ? c->yd[iy] : 1;
    od[i] = dx == 1 ? dy : dx;
  }
  od[nb] = c->xd[c->xr - (c->adj_x ? 1 : 2)];
  od[nb + 1] = c->yd[c->yr - (c->adj_y ? 2 : 1)];
  return nb + 2;
}

/* Direct products with numpy broadcasting, in double. */
static void ref_bmm(const bmm_case *c, const float *x, const float *y,
                    float *o) {
  int64_t od[5];
  int r = out_dims(c, od), nb = r - 2;
  int64_t m = od[nb], n = od[nb + 1];
  int64_t k = c->xd[c->xr - (c->adj_x ? 2 : 1)];
  int64_t nbatch = 1;
  for (int i = 0; i < nb; i++) nbatch *= od[i];
  for (int64_t b = 0; b < nbatch; b++) {
    int64_t rem = b, xo = 0, yo = 0, sx = 1, sy = 1;
    for (int i = nb - 1; i >= 0; i--) {
      int64_t at = rem % od[i];
      rem /= od[i];
      int ix = i - (nb - (c->xr - 2)), iy = i - (nb - (c->yr - 2));
      int64_t dx = ix >= 0 ? c->xd[ix] : 1, dy = iy >= 0 ? c->yd[iy] : 1;
      xo += (dx == 1 ? 0 : at) * sx;
      yo += (dy == 1 ? 0 : at) * sy;
      sx *= dx;
      sy *= dy;
    }
    const float *xm = x + xo * m * k, *ym = y + yo * k * n;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double acc = 0;
        for (int64_t p = 0; p < k; p++)
          acc += (double)(c->adj_x ? xm[p * m + i] : xm[i * k + p]) *
                 (c->adj_y ? ym[j * k + p] : ym[p * n + j]);
        o[(b * m + i) * n + j] = (float)acc;
      }
  }
}

static int64_t count(const int64_t *d, int r) {
  int64_t n = 1;
  for (int i = 0; i < r; i++) n *= d[i];
  return n;
}

/* Runs op on the case (fed inputs) and compares with the reference. */
static void run_case(const char *op, const bmm_case *c, uint32_t seed) {
  tfs_tensor *in[2] = {nt_random(c->xd, c->xr, seed),
                       nt_random(c->yd, c->yr, seed + 1)};
  int64_t od[5];
  int r = out_dims(c, od);
  int64_t no = count(od, r);
  float *want = malloc(sizeof(float) * (size_t)(no + 1));
  ref_bmm(c, tfs_tensor_data(in[0]), tfs_tensor_data(in[1]), want);
  nt_attr a[3] = {NT_BOOL("adj_x", c->adj_x), NT_BOOL("adj_y", c->adj_y),
                  {"Tout", 't', 0, {TFS_FLOAT}, NULL, 0}};
  tfs_tensor *o = nt_run1(op, in, 2, a, strcmp(op, "BatchMatMulV3") ? 2 : 3);
  int64_t k = c->xd[c->xr - (c->adj_x ? 2 : 1)];
  nt_check_f32(o, od, r, want, 1e-5, 1e-6 * (double)(k + 1));
  tfs_tensor_free(o);
  free(want);
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
}

/* The four transposes of one case: the stored shapes swap their last
 * two dims for each adj. */
static void run_adj(const char *op, bmm_case c, uint32_t seed) {
  for (int t = 0; t < 4; t++) {
    bmm_case v = c;
    v.adj_x = t & 1;
    v.adj_y = t >> 1;
    if (v.adj_x) {
      v.xd[v.xr - 2] = c.xd[c.xr - 1];
      v.xd[v.xr - 1] = c.xd[c.xr - 2];
    }
    if (v.adj_y) {
      v.yd[v.yr - 2] = c.yd[c.yr - 1];
      v.yd[v.yr - 1] = c.yd[c.yr - 2];
    }
    run_case(op, &v, seed + (uint32_t)t * 3);
  }
}

static const struct {
  const char *name;
  int isa;
} kPaths[] = {{"avx512", TFS_CPU_ISA_AVX512},
              {"avx2", TFS_CPU_ISA_AVX2},
              {"openblas", TFS_CPU_ISA_BASELINE}};

/* Forces GEMM path i and reports it; 0 when the path cannot run. */
static int use_path(size_t i) {
  const char *why = tu_isa_unavailable(kPaths[i].isa);
  tu_cpu_path("batch_matmul", kPaths[i].name, why);
  if (why) return 0;
  CU_ASSERT_EQUAL(tfs_gemm__force_path(kPaths[i].name), 0);
  return 1;
}

#define C3(b, m, k, n) {3, 3, {b, m, k}, {b, k, n}, 0, 0}

/* Batched shapes (x [m, k], y [k, n] per matrix before the transposes),
 * sizes around the 12x32 and 6x16 tiles. */
static void test_bmm_sizes(void) {
  static const bmm_case cases[] = {
      C3(1, 1, 1, 1),   C3(3, 13, 65, 33), C3(2, 12, 7, 32),
      C3(4, 6, 16, 17), C3(5, 25, 3, 31),  C3(2, 97, 130, 70),
      C3(7, 1, 40, 1),  C3(2, 33, 1, 65),
  };
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++) {
      run_adj("BatchMatMulV2", cases[i], 10 + (uint32_t)i * 16);
      run_adj("BatchMatMulV3", cases[i], 11 + (uint32_t)i * 16);
    }
    bmm_case v1 = {4, 4, {2, 3, 9, 5}, {2, 3, 5, 11}, 0, 0};
    run_adj("BatchMatMul", v1, 99);
  }
  tfs_gemm__force_path(NULL);
}

/* Broadcast batch dims: x or y with fewer dims or size-1 dims, and y one
 * matrix shared by every batch (one product over all of x's rows, or y
 * packed once when x is transposed or broadcast itself). */
static void test_bmm_broadcast(void) {
  static const bmm_case cases[] = {
      {4, 3, {3, 1, 5, 6}, {4, 6, 2}, 0, 0},
      {2, 4, {5, 6}, {2, 3, 6, 4}, 0, 0},
      {4, 2, {2, 3, 5, 6}, {6, 4}, 0, 0},
      {3, 4, {4, 13, 40}, {1, 1, 40, 33}, 0, 0},
      {4, 4, {2, 1, 7, 9}, {1, 3, 9, 8}, 0, 0},
      {5, 3, {2, 1, 3, 4, 5}, {1, 5, 6}, 0, 0},
      {3, 3, {1, 17, 19}, {6, 19, 21}, 0, 0},
  };
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++)
      run_adj("BatchMatMulV2", cases[i], 200 + (uint32_t)i * 16);
  }
  tfs_gemm__force_path(NULL);
}

/* Empty dims: no batches, no rows or columns (empty output), no depth
 * (zeros). */
static void test_bmm_empty(void) {
  static const bmm_case cases[] = {
      C3(0, 3, 4, 5), C3(2, 0, 4, 5), C3(2, 3, 4, 0), C3(2, 3, 0, 5),
      {3, 2, {0, 3, 4}, {4, 2}, 0, 0}, {2, 3, {3, 0}, {4, 0, 5}, 0, 0},
  };
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++)
      run_adj("BatchMatMulV2", cases[i], 300 + (uint32_t)i * 16);
  }
  tfs_gemm__force_path(NULL);
}

/* On the session's pool: attention's many small matrices (whole matrices
 * per thread), three big ones (each split over the pool) and a shared y
 * with many rows. */
static void test_bmm_pool(void) {
  static const bmm_case cases[] = {
      {3, 3, {32, 128, 64}, {32, 128, 64}, 0, 1},
      {3, 3, {32, 128, 128}, {32, 128, 64}, 0, 0},
      C3(3, 130, 120, 140),
      {3, 2, {6, 100, 64}, {64, 96}, 0, 0},
      {3, 2, {6, 64, 100}, {64, 96}, 1, 0},
  };
  for (size_t p = 0; p < TFS_ARRAY_LEN(kPaths); p++) {
    if (!use_path(p)) continue;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++)
      run_case("BatchMatMulV2", &cases[i], 400 + (uint32_t)i);
  }
  tfs_gemm__force_path(NULL);
}

/* double goes to the BLAS, split over the pool like float. */
static void test_bmm_double(void) {
  tfs_tensor *x = nt_tensor(TFS_DOUBLE, (int64_t[]){3, 40, 50}, 3, NULL);
  tfs_tensor *y = nt_tensor(TFS_DOUBLE, (int64_t[]){3, 30, 50}, 3, NULL);
  double *xp = tfs_tensor_data(x), *yp = tfs_tensor_data(y);
  uint32_t s = 5;
  for (int i = 0; i < 3 * 40 * 50; i++) xp[i] = nt_rand(&s);
  for (int i = 0; i < 3 * 30 * 50; i++) yp[i] = nt_rand(&s);
  nt_attr a[2] = {NT_BOOL("adj_x", 0), NT_BOOL("adj_y", 1)};
  tfs_tensor *in[2] = {x, y};
  tfs_tensor *o = nt_run1("BatchMatMulV2", in, 2, a, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(o), TFS_DOUBLE);
  const double *op = tfs_tensor_data(o);
  int bad = 0;
  for (int b = 0; b < 3; b++)
    for (int i = 0; i < 40; i++)
      for (int j = 0; j < 30; j++) {
        double acc = 0;
        for (int p = 0; p < 50; p++)
          acc += xp[(b * 40 + i) * 50 + p] * yp[(b * 30 + j) * 50 + p];
        bad += fabs(op[(b * 40 + i) * 30 + j] - acc) > 1e-12;
      }
  CU_ASSERT_EQUAL(bad, 0);
  tfs_tensor_free(o);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
}

/* Fed shapes the kernel rejects, with TensorFlow's messages. */
static void test_bmm_errors(void) {
  nt_attr a[2] = {NT_BOOL("adj_x", 0), NT_BOOL("adj_y", 0)};
  tfs_tensor *in[2] = {nt_random((int64_t[]){2, 3, 4}, 3, 1),
                       nt_random((int64_t[]){3, 4, 5}, 3, 2)};
  NT_EXPECT_ERROR("BatchMatMulV2", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "In[0] and In[1] must have compatible batch dimensions: "
                  "[2,3,4] vs. [3,4,5]");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){2, 5, 6}, 3, 2);
  NT_EXPECT_ERROR("BatchMatMulV2", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "Matrix size-incompatible: In[0]: [2,3,4], In[1]: "
                  "[2,5,6]");
  tfs_tensor_free(in[1]);
  in[1] = nt_f32((int64_t[]){4}, 1, (const float[]){1, 2, 3, 4});
  NT_EXPECT_ERROR("BatchMatMulV2", in, 2, a, 2, TFS_INVALID_ARGUMENT,
                  "In[1] ndims must be >= 2: 1");
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
}

static const tfs_test_case kBmm[] = {
    {"sizes", test_bmm_sizes},       {"broadcast", test_bmm_broadcast},
    {"empty", test_bmm_empty},       {"pool", test_bmm_pool},
    {"double", test_bmm_double},     {"errors", test_bmm_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"batch_matmul", kBmm},
    {NULL, NULL},
};

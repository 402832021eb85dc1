/*
 * tests/kernels/test_batch_matmul_perm.c - _TfsPermutedBatchMatMul on
 * every GEMM path this CPU runs (AVX-512, AVX2, OpenBLAS) against the
 * transposes and the products computed directly in double: attention's
 * head layouts ([0, 2, 1, 3] and [0, 2, 3, 1]) on the operands and the
 * output, adj_x / adj_y with permuted operands, broadcast batch dims,
 * rank 3, products of few rows (the GEMM's thin path), the scale; in
 * bfloat16 on each bfloat16 path, BatchMatMulV2's bits; and its
 * messages for bad permutations, ranks, shapes and fused ops.
 */
#include "core/cpu.h"
#include "core/half.h"
#include "core/util.h"
#include "backends/cpu/gemm.h"
#include "nn_test_util.h"

typedef struct pcase {
  int r;                  /* rank of x, y and the product */
  int64_t xd[4], yd[4];   /* stored shapes */
  int px[4], py[4], po[4]; /* permutations; po[0] < 0 (or px...): none */
  int adj_x, adj_y;
  float scale;            /* 0: no fused_ops */
} pcase;

/* transpose(t, perm) of rank r into out (dims into od). */
static void permute(const float *t, const int64_t *d, int r, const int *perm,
                    float *out, int64_t *od) {
  int64_t st[4], n = 1;
  for (int i = r - 1; i >= 0; i--) {
    st[i] = n;
    n *= d[i];
  }
  for (int i = 0; i < r; i++) od[i] = perm[0] < 0 ? d[i] : d[perm[i]];
  for (int64_t q = 0; q < n; q++) {
    int64_t rem = q, src = 0;
    for (int i = r - 1; i >= 0; i--) {
      int64_t at = rem % od[i];
      rem /= od[i];
      src += at * st[perm[0] < 0 ? i : perm[i]];
    }
    out[q] = t[src];
  }
}

/* The expected output of case c on x and y into want (dims into od). */
static int64_t expected(const pcase *c, const float *x, const float *y,
                        float *want, int64_t *od) {
  int r = c->r, nb = r - 2;
  int64_t xl[4], yl[4], pd[4];
  float *xv = malloc(sizeof(float) * 4096), *yv = malloc(sizeof(float) * 4096);
  float *pv = malloc(sizeof(float) * 4096);
  permute(x, c->xd, r, c->px, xv, xl);
  permute(y, c->yd, r, c->py, yv, yl);
  int64_t m = xl[r - (c->adj_x ? 1 : 2)], k = xl[r - (c->adj_x ? 2 : 1)];
  int64_t n = yl[r - (c->adj_y ? 2 : 1)], nbatch = 1;
  for (int i = 0; i < nb; i++) {
    pd[i] = xl[i] == 1 ? yl[i] : xl[i];
    nbatch *= pd[i];
  }
  pd[nb] = m;
  pd[nb + 1] = n;
  for (int64_t b = 0; b < nbatch; b++) {
    int64_t rem = b, xo = 0, yo = 0, sx = 1, sy = 1;
    for (int i = nb - 1; i >= 0; i--) {
      int64_t at = rem % pd[i];
      rem /= pd[i];
      xo += (xl[i] == 1 ? 0 : at) * sx;
      yo += (yl[i] == 1 ? 0 : at) * sy;
      sx *= xl[i];
      sy *= yl[i];
    }
    const float *xm = xv + xo * m * k, *ym = yv + yo * k * n;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double acc = 0;
        for (int64_t p = 0; p < k; p++)
          acc += (double)(c->adj_x ? xm[p * m + i] : xm[i * k + p]) *
                 (c->adj_y ? ym[j * k + p] : ym[p * n + j]);
        pv[(b * m + i) * n + j] = (float)(acc * (c->scale ? c->scale : 1));
      }
  }
  permute(pv, pd, r, c->po, want, od);
  free(xv);
  free(yv);
  free(pv);
  return k;
}

static nt_attr perm_attr(const char *name, const int *p, int r) {
  nt_attr a = {name, 'l', p[0] < 0 ? 0 : r, {0}, NULL, 0};
  for (int i = 0; p[0] >= 0 && i < r; i++) a.iv[i] = p[i];
  return a;
}

/* Runs _TfsPermutedBatchMatMul on x, y and the scale (nin 3: args holds
 * it, else args is empty), fed, or held in Const nodes with `consts` (so
 * that shape inference sees them).  Returns the code; *out the output
 * (or NULL), msg the message. */
static tfs_code run_op_ex(tfs_tensor *const *in, int nin, const nt_attr *a,
                          int na, tfs_tensor **out, char *msg, size_t cap,
                          int consts) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output feeds[3];
  for (int i = 0; i < nin; i++) {
    char name[8];
    snprintf(name, sizeof name, "in%d", i);
    feeds[i] = consts ? tfs_op_const(g, name, in[i], st)
                      : tfs_op_placeholder(g, name, tfs_tensor_dtype(in[i]),
                                           NULL, -1, st);
  }
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsPermutedBatchMatMul", "node");
  tfs_op_desc_add_input(d, feeds[0]);
  tfs_op_desc_add_input(d, feeds[1]);
  tfs_op_desc_add_input_list(d, feeds + 2, nin - 2);
  nt_set_attrs(d, a, na);
  tfs_operation *o = tfs_op_desc_finish(d, st);
  *out = NULL;
  if (o) {
    tfs_session *s = tfs_session_new(g, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_output f = {o, 0};
    tfs_session_run(s, consts ? NULL : feeds, consts ? NULL : in,
                    consts ? 0 : nin, &f, out, 1, NULL, 0, st);
    tfs_session_free(s);
  }
  tfs_code code = tfs_status_code(st);
  snprintf(msg, cap, "%s", tfs_status_message(st));
  tfs_graph_free(g);
  tfs_status_free(st);
  return code;
}

static tfs_code run_op(tfs_tensor *const *in, int nin, const nt_attr *a,
                       int na, tfs_tensor **out, char *msg, size_t cap) {
  return run_op_ex(in, nin, a, na, out, msg, cap, 0);
}

/* Asserts that the op fails with code and a message holding needle and
 * naming the node. */
static void expect_error(tfs_tensor *const *in, int nin, const nt_attr *a,
                         int na, tfs_code code, const char *needle) {
  char m[4096];
  tfs_tensor *o = NULL;
  tfs_code c = run_op(in, nin, a, na, &o, m, sizeof m);
  int ok = c == code && strstr(m, needle) && strstr(m, "{{node node}}");
  if (!ok)
    fprintf(stderr, "\n  expected %s \"%s\"\n    got %s: %s\n",
            tfs_code_name(code), needle, tfs_code_name(c), m);
  CU_ASSERT_TRUE(ok);
  tfs_tensor_free(o);
}

static void run_case(const pcase *c, uint32_t seed) {
  tfs_tensor *in[3] = {nt_random(c->xd, c->r, seed),
                       nt_random(c->yd, c->r, seed + 1),
                       nt_f32(NULL, 0, &c->scale)};
  float *want = malloc(sizeof(float) * 4096);
  int64_t od[4];
  int64_t k = expected(c, tfs_tensor_data(in[0]), tfs_tensor_data(in[1]),
                       want, od);
  int sc = c->scale != 0;
  nt_attr a[7] = {NT_BOOL("adj_x", c->adj_x), NT_BOOL("adj_y", c->adj_y),
                  perm_attr("perm_x", c->px, c->r),
                  perm_attr("perm_y", c->py, c->r),
                  perm_attr("perm_out", c->po, c->r),
                  NT_INT("num_args", sc),
                  {"fused_ops", 'S', sc, {0}, "Mul", 0}};
  tfs_tensor *o = NULL;
  char msg[4096];
  tfs_code code = run_op(in, 2 + sc, a, 6 + sc, &o, msg, sizeof msg);
  if (code != TFS_OK) fprintf(stderr, "\n  failed: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
  nt_check_f32(o, od, c->r, want, 1e-5, 1e-6 * (double)(k + 1));
  tfs_tensor_free(o);
  free(want);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

static const struct {
  const char *name;
  int isa;
} kPaths[] = {{"avx512", TFS_CPU_ISA_AVX512},
              {"avx2", TFS_CPU_ISA_AVX2},
              {"openblas", TFS_CPU_ISA_BASELINE}};

#define NONE {-1, 0, 0, 0}
#define HEADS {0, 2, 1, 3}
#define KEYS {0, 2, 3, 1}

static void test_pbmm_products(void) {
  static const pcase cases[] = {
      /* scores: q [b, s, h, d] by keys read as [b, h, d, s], scaled */
      {4, {2, 12, 3, 8}, {2, 12, 3, 8}, HEADS, KEYS, NONE, 0, 0, 0.125f},
      /* context: probabilities by values [b, s, h, d], heads joined */
      {4, {2, 3, 12, 12}, {2, 12, 3, 8}, NONE, HEADS, HEADS, 0, 0, 0},
      /* the keys as [b, h, s, d] with adj_y (tf.matmul transpose_b) */
      {4, {2, 12, 3, 8}, {2, 12, 3, 8}, HEADS, HEADS, NONE, 0, 1, 0},
      /* adj_x on a permuted x, adj_y on a permuted y */
      {4, {1, 9, 2, 13}, {1, 13, 2, 9}, KEYS, KEYS, HEADS, 1, 1, 0},
      /* x's batch broadcast against y's */
      {4, {1, 12, 3, 8}, {2, 3, 8, 5}, HEADS, NONE, NONE, 0, 0, 0.5f},
      /* few rows: the GEMM's thin path */
      {4, {1, 4, 2, 8}, {1, 5, 2, 8}, HEADS, KEYS, HEADS, 0, 0, 0},
      /* rank 3 */
      {3, {12, 3, 8}, {3, 8, 7}, {1, 0, 2}, NONE, {1, 0, 2}, 0, 0, 0},
      /* sizes around the 6x16 tile */
      {4, {1, 13, 2, 33}, {1, 17, 2, 33}, HEADS, KEYS, NONE, 0, 0, 0},
  };
  int tried = 0;
  for (size_t pi = 0; pi < TFS_ARRAY_LEN(kPaths); pi++) {
    const char *why = tu_isa_unavailable(kPaths[pi].isa);
    tu_cpu_path("batch_matmul_perm", kPaths[pi].name, why);
    if (why) continue;
    CU_ASSERT_EQUAL(tfs_gemm__force_path(kPaths[pi].name), 0);
    tried++;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++)
      run_case(&cases[i], 11 + (uint32_t)i);
  }
  CU_ASSERT_TRUE(tried >= 1);
  CU_ASSERT_EQUAL(tfs_gemm__force_path(NULL), 0);
}

/* A bfloat16 copy of float t's values rounded (the same tensor shape). */
static tfs_tensor *to_bf16(const tfs_tensor *t) {
  int64_t d[4];
  int r = tfs_tensor_ndims(t);
  for (int i = 0; i < r; i++) d[i] = tfs_tensor_dim(t, i);
  tfs_tensor *h = nt_tensor(TFS_BFLOAT16, d, r, NULL);
  const float *f = tfs_tensor_data(t);
  uint16_t *o = tfs_tensor_data(h);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    o[i] = tfs_float_to_bf16(f[i]);
  return h;
}

/* t transposed by perm (r values; perm[0] < 0: t itself, a new ref). */
static tfs_tensor *transposed(tfs_tensor *t, const int *perm, int r) {
  if (perm[0] < 0) return nt_run1("Identity", &t, 1, NULL, 0);
  int32_t p[4];
  for (int i = 0; i < r; i++) p[i] = perm[i];
  tfs_tensor *in[2] = {t, nt_tensor(TFS_INT32, (int64_t[]){r}, 1, p)};
  tfs_tensor *o = nt_run1("Transpose", in, 2, NULL, 0);
  tfs_tensor_free(in[1]);
  return o;
}

/* bfloat16 (auto mixed precision's attention, unscaled) on each bfloat16
 * GEMM path: bit for bit BatchMatMulV2 in bfloat16 on the transposed
 * copies, transposed; with a scale, float only. */
static void test_pbmm_bf16(void) {
  static const pcase cases[] = {
      {4, {2, 12, 3, 8}, {2, 12, 3, 8}, HEADS, KEYS, NONE, 0, 0, 0},
      {4, {2, 3, 12, 12}, {2, 12, 3, 8}, NONE, HEADS, HEADS, 0, 0, 0},
      {4, {2, 12, 3, 8}, {2, 12, 3, 8}, HEADS, HEADS, NONE, 0, 1, 0},
      {4, {1, 9, 2, 13}, {1, 13, 2, 9}, KEYS, KEYS, HEADS, 1, 1, 0},
      {4, {1, 12, 3, 8}, {2, 3, 8, 5}, HEADS, NONE, NONE, 0, 0, 0},
      {4, {1, 13, 2, 40}, {1, 17, 2, 40}, HEADS, KEYS, HEADS, 0, 0, 0},
  };
  for (int path = 0; path < TU_BF16_PATHS; path++) {
    const char *why = tu_bf16_path(path);
    tu_cpu_path("batch_matmul_perm-bf16", tu_bf16_path_names[path], why);
    if (why) continue;
    for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++) {
      const pcase *c = &cases[i];
      tfs_tensor *f[2] = {nt_random(c->xd, c->r, 40 + (uint32_t)i),
                          nt_random(c->yd, c->r, 60 + (uint32_t)i)};
      tfs_tensor *in[2] = {to_bf16(f[0]), to_bf16(f[1])};
      tfs_tensor *t[2] = {transposed(in[0], c->px, c->r),
                          transposed(in[1], c->py, c->r)};
      nt_attr adj[2] = {NT_BOOL("adj_x", c->adj_x),
                        NT_BOOL("adj_y", c->adj_y)};
      tfs_tensor *prod = nt_run1("BatchMatMulV2", t, 2, adj, 2);
      tfs_tensor *want = transposed(prod, c->po, c->r), *got = NULL;
      nt_attr a[5] = {adj[0], adj[1], perm_attr("perm_x", c->px, c->r),
                      perm_attr("perm_y", c->py, c->r),
                      perm_attr("perm_out", c->po, c->r)};
      char msg[4096];
      tfs_code code = run_op(in, 2, a, 5, &got, msg, sizeof msg);
      if (code != TFS_OK) fprintf(stderr, "\n  bf16 failed: %s\n", msg);
      CU_ASSERT_EQUAL_FATAL(code, TFS_OK);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(got), TFS_BFLOAT16);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got),
                            tfs_tensor_byte_size(want));
      int same = memcmp(tfs_tensor_data(got), tfs_tensor_data(want),
                        tfs_tensor_byte_size(want)) == 0;
      if (!same)
        fprintf(stderr, "\n  bf16 case %zu on %s: not BatchMatMulV2's bits\n",
                i, tu_bf16_path_names[path]);
      CU_ASSERT_TRUE(same);
      tfs_tensor *all[8] = {f[0], f[1], in[0], in[1], t[0], t[1], prod, want};
      for (int k = 0; k < 8; k++) tfs_tensor_free(all[k]);
      tfs_tensor_free(got);
    }
  }
  tu_bf16_paths_reset();
  /* a scale: float only */
  tfs_tensor *f = nt_random((int64_t[]){1, 4, 2, 8}, 4, 3);
  tfs_tensor *in[3] = {to_bf16(f), to_bf16(f), NULL};
  float one = 1.0f;
  tfs_tensor *s32 = nt_f32(NULL, 0, &one);
  in[2] = to_bf16(s32);
  nt_attr mul[3] = {NT_LIST4("perm_y", 0, 2, 3, 1), NT_INT("num_args", 1),
                    {"fused_ops", 'S', 1, {0}, "Mul", 0}};
  expect_error(in, 3, mul, 3, TFS_UNIMPLEMENTED,
               "_TfsPermutedBatchMatMul with a scale is float only");
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
  tfs_tensor_free(f);
  tfs_tensor_free(s32);
}

/* No permutation and no scale: BatchMatMulV2's bits, broadcast batch
 * dims and adj_y included. */
static void test_pbmm_plain(void) {
  tfs_tensor *in[2] = {nt_random((int64_t[]){2, 1, 13, 9}, 4, 5),
                       nt_random((int64_t[]){3, 17, 9}, 3, 6)};
  nt_attr a[2] = {NT_BOOL("adj_x", 0), NT_BOOL("adj_y", 1)};
  tfs_tensor *want = nt_run1("BatchMatMulV2", in, 2, a, 2), *got = NULL;
  char msg[4096];
  CU_ASSERT_EQUAL_FATAL(run_op(in, 2, a, 2, &got, msg, sizeof msg), TFS_OK);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(got), tfs_tensor_byte_size(want));
  CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(got), tfs_tensor_data(want),
                         tfs_tensor_byte_size(want)), 0);
  tfs_tensor_free(want);
  tfs_tensor_free(got);
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
}

/* Attributes prepare rejects and shapes the kernel rejects. */
static void test_pbmm_errors(void) {
  tfs_tensor *in[3] = {nt_random((int64_t[]){2, 12, 3, 8}, 4, 1),
                       nt_random((int64_t[]){2, 12, 3, 8}, 4, 2),
                       nt_f32(NULL, 0, (const float[]){2})};
  static const struct {
    int64_t px[4];
    int npx;
    int64_t po[4];
    int npo;
    const char *msg;
  } bad[] = {
      {{0, 1, 1, 3}, 4, {0}, 0, "perm_x is not a permutation of 0..3"},
      {{3, 1, 2, 0}, 4, {0}, 0,
       "perm_x must keep the last dimension among the last two"},
      {{0, 2, 1, 3}, 4, {0, 1, 3, 2}, 4,
       "perm_out must keep the last dimension last"},
      {{0}, 1, {0}, 0, "perm_x must be empty or have 2 to"},
      {{0, 2, 1}, 3, {0}, 0, "perm_x has 3 elements but x has rank 4"},
  };
  for (size_t i = 0; i < TFS_ARRAY_LEN(bad); i++) {
    nt_attr a[3] = {{"perm_x", 'l', bad[i].npx, {0}, NULL, 0},
                    {"perm_y", 'l', 4, {0, 2, 3, 1}, NULL, 0},
                    {"perm_out", 'l', bad[i].npo, {0}, NULL, 0}};
    memcpy(a[0].iv, bad[i].px, sizeof bad[i].px);
    memcpy(a[2].iv, bad[i].po, sizeof bad[i].po);
    expect_error(in, 2, a, 3, TFS_INVALID_ARGUMENT, bad[i].msg);
  }
  /* TensorFlow's message, on the permuted shapes */
  nt_attr heads[2] = {NT_LIST4("perm_x", 0, 2, 1, 3),
                      NT_LIST4("perm_y", 0, 2, 1, 3)};
  expect_error(in, 2, heads, 2, TFS_INVALID_ARGUMENT,
               "Matrix size-incompatible: In[0]: [2,3,12,8], In[1]: "
               "[2,3,12,8]");
  nt_attr relu[3] = {NT_LIST4("perm_x", 0, 2, 1, 3), NT_INT("num_args", 1),
                     {"fused_ops", 'S', 1, {0}, "Relu", 0}};
  expect_error(in, 3, relu, 3, TFS_UNIMPLEMENTED,
               "Fusion is not implemented: [Relu]");
  /* shape inference, with the inputs constants: the same checks */
  char m[4096];
  tfs_tensor *o = NULL;
  nt_attr dup[1] = {NT_LIST4("perm_x", 0, 2, 2, 3)};
  CU_ASSERT_EQUAL(run_op_ex(in, 2, dup, 1, &o, m, sizeof m, 1),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(m, "perm_x is not a permutation of 0..3"));
  nt_attr three[1] = {{"perm_y", 'l', 3, {0, 2, 1}, NULL, 0}};
  CU_ASSERT_EQUAL(run_op_ex(in, 2, three, 1, &o, m, sizeof m, 1),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(m, "perm_y has 3 elements but its tensor has rank 4"));
  CU_ASSERT_PTR_NULL(o);
  const void *mr[2] = {"Mul", "Relu"};
  size_t mrl[2] = {3, 4};
  nt_attr mul_relu[3] = {NT_LIST4("perm_x", 0, 2, 1, 3),
                         NT_LIST4("perm_y", 0, 2, 3, 1),
                         NT_INT("num_args", 1)};
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output f[3];
  for (int i = 0; i < 3; i++) f[i] = tfs_op_const(g, NULL, in[i], st);
  tfs_op_desc *d = tfs_op_desc_new(g, "_TfsPermutedBatchMatMul", "node");
  tfs_op_desc_add_input(d, f[0]);
  tfs_op_desc_add_input(d, f[1]);
  tfs_op_desc_add_input_list(d, f + 2, 1);
  nt_set_attrs(d, mul_relu, 3);
  tfs_op_desc_set_attr_string_list(d, "fused_ops", mr, mrl, 2);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  if (s) {
    tfs_output fo = {op, 0};
    tfs_tensor *r = NULL;
    tfs_session_run(s, NULL, NULL, 0, &fo, &r, 1, NULL, 0, st);
    tfs_tensor_free(r);
    tfs_session_free(s);
  }
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED,
                   "Fusion is not implemented: [Mul,Relu]");
  tfs_graph_free(g);
  tfs_status_free(st);
  tfs_tensor_free(in[2]);
  in[2] = nt_random((int64_t[]){2}, 1, 3);
  nt_attr mul[3] = {NT_LIST4("perm_y", 0, 2, 3, 1), NT_INT("num_args", 1),
                    {"fused_ops", 'S', 1, {0}, "Mul", 0}};
  expect_error(in, 3, mul, 3, TFS_INVALID_ARGUMENT,
               "the scale must have one element, not 2");
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

static const tfs_test_case kCases[] = {
    {"products", test_pbmm_products},
    {"plain", test_pbmm_plain},
    {"bf16", test_pbmm_bf16},
    {"errors", test_pbmm_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"batch_matmul_perm", kCases},
    {NULL, NULL},
};

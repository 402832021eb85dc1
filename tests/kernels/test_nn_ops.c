/*
 * tests/kernels/test_nn_ops.c - the nn kernels other than convolutions:
 * activations, BiasAdd, Softmax/LogSoftmax (float and bfloat16), pooling,
 * batch normalization, LRN, losses and InTopKV2.  Expected values are
 * TensorFlow 2.21's outputs; every rejection asserts TensorFlow's message
 * and node suffix.
 */
#include "core/cpu.h"
#include "core/half.h"
#include "core/util.h"
#include "nn_test_util.h"

/* ---- activations --------------------------------------------------------- */

static const float kActIn[12] = {NAN, -INFINITY, INFINITY, -1, 0,   -0.0f,
                                 3,   7,         -20,      20, -14, 14};

static void check_act(const char *op, const nt_attr *attrs, int na,
                      const float *want) {
  int64_t d[1] = {12};
  tfs_tensor *x = nt_f32(d, 1, kActIn);
  tfs_tensor *y = nt_run1(op, &x, 1, attrs, na);
  nt_check_f32(y, d, 1, want, 1e-6, 1e-30);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
}

static void test_relu6(void) {
  const float want[12] = {NAN, 0, 6, 0, 0, 0, 3, 6, 0, 6, 0, 6};
  check_act("Relu6", NULL, 0, want);
  int64_t d[1] = {4};
  int32_t v[4] = {-3, 4, 9, 6};
  tfs_tensor *x = nt_tensor(TFS_INT32, d, 1, v);
  tfs_tensor *y = nt_run1("Relu6", &x, 1, NULL, 0);
  const int32_t *o = tfs_tensor_data(y);
  CU_ASSERT(o[0] == 0 && o[1] == 4 && o[2] == 6 && o[3] == 6);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
  uint8_t u[3] = {3, 200, 6};
  x = nt_tensor(TFS_UINT8, (int64_t[]){3}, 1, u);
  y = nt_run1("Relu6", &x, 1, NULL, 0);
  const uint8_t *uo = tfs_tensor_data(y);
  CU_ASSERT(uo[0] == 3 && uo[1] == 6 && uo[2] == 6);
  tfs_tensor_free(x);
  tfs_tensor_free(y);
}

static void test_elu_selu(void) {
  const float elu[12] = {NAN, -1, INFINITY, -0.63212055f, 0, -0.0f, 3,
                         7,   -1, 20,       -0.99999917f, 14};
  check_act("Elu", NULL, 0, elu);
  const float selu[12] = {NAN,         -1.7580993f, INFINITY,    -1.1113307f,
                          0,           -0.0f,       3.152103f,   7.354907f,
                          -1.7580993f, 21.01402f,   -1.7580979f, 14.709814f};
  check_act("Selu", NULL, 0, selu);
}

static void test_softplus_softsign(void) {
  const float sp[12] = {NAN,
                        0,
                        INFINITY,
                        3.1326169e-01f,
                        6.9314718e-01f,
                        6.9314718e-01f,
                        3.0485871f,
                        7.0009117f,
                        2.0611537e-09f,
                        20,
                        8.3152872e-07f,
                        14};
  check_act("Softplus", NULL, 0, sp);
  const float ss[12] = {
      NAN,    NAN,          NAN,         -0.5f,        0,          -0.0f, 0.75f,
      0.875f, -0.95238096f, 0.95238096f, -0.93333334f, 0.93333334f};
  check_act("Softsign", NULL, 0, ss);
}

static void test_leaky_relu(void) {
  const float a3[12] = {NAN, -INFINITY, INFINITY, -0.3f, 0,           -0.0f,
                        3,   7,         -6,       20,    -4.2000003f, 14};
  nt_attr at[1] = {NT_FLOAT("alpha", 0.3)};
  check_act("LeakyRelu", at, 1, a3);
  /* alpha > 1 still selects alpha * x below zero (not max(x, alpha x)) */
  const float a25[12] = {NAN, -INFINITY, INFINITY, -2.5f, 0,   -0.0f,
                         3,   7,         -50,      20,    -35, 14};
  nt_attr at2[1] = {NT_FLOAT("alpha", 2.5)};
  check_act("LeakyRelu", at2, 1, a25);
  const float a02[12] = {NAN, -INFINITY, INFINITY, -0.2f, 0,     -0.0f,
                         3,   7,         -4,       20,    -2.8f, 14};
  check_act("LeakyRelu", NULL, 0, a02);
}

static void test_activation_half(void) {
  /* half inputs are computed in float and rounded back */
  uint16_t h[3] = {0xBC00 /* -1 */, 0x4200 /* 3 */, 0x4900 /* 10 */};
  tfs_tensor *x = nt_tensor(TFS_HALF, (int64_t[]){3}, 1, h);
  tfs_tensor *y = nt_run1("Relu6", &x, 1, NULL, 0);
  const uint16_t *o = tfs_tensor_data(y);
  CU_ASSERT(o[0] == 0 && o[1] == 0x4200 && o[2] == 0x4600 /* 6 */);
  tfs_tensor_free(y);
  y = nt_run1("Elu", &x, 1, NULL, 0);
  o = tfs_tensor_data(y);
  CU_ASSERT_EQUAL(o[0], 0xB90F); /* -0.632 in half */
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

/* ---- BiasAdd
 * ------------------------------------------------------------------ */

static void test_bias_add(void) {
  int64_t d[4] = {2, 2, 1, 3}, bd[1] = {3};
  float v[12], b[3] = {10, 20, 30}, want[12];
  for (int i = 0; i < 12; i++) v[i] = (float)i, want[i] = i + b[i % 3];
  tfs_tensor *in[2] = {nt_f32(d, 4, v), nt_f32(bd, 1, b)};
  tfs_tensor *y = nt_run1("BiasAdd", in, 2, NULL, 0);
  nt_check_f32(y, d, 4, want, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(in[1]);
  /* NCHW: channel is dim 1 (of size 2) */
  float b2[2] = {100, 200};
  in[1] = nt_f32((int64_t[]){2}, 1, b2);
  nt_attr nchw[1] = {NT_STR("data_format", "NCHW")};
  y = nt_run1("BiasAdd", in, 2, nchw, 1);
  for (int i = 0; i < 12; i++) want[i] = i + b2[(i / 3) % 2];
  nt_check_f32(y, d, 4, want, 0, 0);
  tfs_tensor_free(y);
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
  /* int32 wraps */
  int32_t iv[2] = {INT32_MAX, 1}, ib[2] = {1, 2};
  in[0] = nt_tensor(TFS_INT32, (int64_t[]){1, 2}, 2, iv);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){2}, 1, ib);
  y = nt_run1("BiasAdd", in, 2, NULL, 0);
  const int32_t *o = tfs_tensor_data(y);
  CU_ASSERT(o[0] == INT32_MIN && o[1] == 3);
  tfs_tensor_free(y);
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_bias_add_errors(void) {
  tfs_tensor *in[2] = {nt_random((int64_t[]){4}, 1, 1),
                       nt_random((int64_t[]){4}, 1, 2)};
  NT_EXPECT_ERROR("BiasAdd", in, 2, NULL, 0, TFS_INVALID_ARGUMENT,
                  "Input tensor must be at least 2D: [4]");
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){1, 5, 5, 4}, 4, 3);
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){1, 4}, 2, 4);
  NT_EXPECT_ERROR("BiasAdd", in, 2, NULL, 0, TFS_INVALID_ARGUMENT,
                  "Biases must be 1D: [1,4]");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3}, 1, 4);
  NT_EXPECT_ERROR("BiasAdd", in, 2, NULL, 0, TFS_INVALID_ARGUMENT,
                  "Must provide as many biases as the last dimension of the "
                  "input tensor: [3] vs. [1,5,5,4]");
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){4}, 1, 4);
  nt_attr nchw[1] = {NT_STR("data_format", "NCHW")};
  NT_EXPECT_ERROR("BiasAdd", in, 2, nchw, 1, TFS_INVALID_ARGUMENT,
                  "Must provide as many biases as the last dimension of the "
                  "input tensor: [4] vs. [1,5,5,4]");
  /* shape inference: NCHW needs rank 3 and merges dim 1 */
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){2, 3}, 2, 5);
  NT_EXPECT_BUILD_ERROR("BiasAdd", in, 2, nchw, 1,
                        "Shape must be at least rank 3 but is rank 2");
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

/* ---- Softmax / LogSoftmax ------------------------------------------------ */

static void test_softmax(void) {
  const float x[15] = {NAN, 1,         2,         INFINITY,  1, 2, -INFINITY, 1,
                       2,   -INFINITY, -INFINITY, -INFINITY, 1, 2, 3};
  int64_t d[2] = {5, 3};
  tfs_tensor *t = nt_f32(d, 2, x);
  tfs_tensor *y = nt_run1("Softmax", &t, 1, NULL, 0);
  const float sm[15] = {NAN, NAN, NAN,         NAN,         NAN,
                        NAN, 0,   0.26894143f, 0.7310586f,  NAN,
                        NAN, NAN, 0.09003057f, 0.24472848f, 0.66524094f};
  nt_check_f32(y, d, 2, sm, 1e-6, 0);
  tfs_tensor_free(y);
  y = nt_run1("LogSoftmax", &t, 1, NULL, 0);
  const float lsm[15] = {NAN,         NAN,         NAN,          NAN, NAN, NAN,
                         -INFINITY,   -1.3132616f, -0.31326166f, NAN, NAN, NAN,
                         -2.4076059f, -1.4076059f, -0.40760595f};
  nt_check_f32(y, d, 2, lsm, 1e-6, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(t);
  /* empty last dimension */
  t = nt_f32((int64_t[]){2, 0}, 2, NULL);
  y = nt_run1("Softmax", &t, 1, NULL, 0);
  CU_ASSERT_EQUAL(tfs_tensor_num_elements(y), 0);
  tfs_tensor_free(y);
  tfs_tensor_free(t);
}

/* Relu6 and Softsign in bfloat16 (blocks of 256 widened and rounded by
 * the vector conversions; 600 values: two blocks and a tail, with NaN,
 * infinities and -0): bit for bit the float expression rounded per
 * element, on each vector level this CPU has. */
static void test_activation_bf16(void) {
  enum { N = 600 };
  static uint16_t h[N];
  for (int i = 0; i < N; i++)
    h[i] = tfs_float_to_bf16((float)((i * 41) % 97 - 48) / 5.0f);
  h[1] = 0x7fc0, h[2] = 0x7f80, h[3] = 0xff80, h[4] = 0x8000;
  tfs_tensor *x = nt_tensor(TFS_BFLOAT16, (int64_t[]){N}, 1, h);
  for (int li = 0; li < TU_VECTOR_LEVELS; li++) {
    if (!tu_cpu_level("activation-bf16", tu_vector_levels[li])) continue;
    int bad = 0;
    for (int op = 0; op < 2; op++) {
      tfs_tensor *y = nt_run1(op ? "Softsign" : "Relu6", &x, 1, NULL, 0);
      const uint16_t *o = tfs_tensor_data(y);
      for (int i = 0; i < N; i++) {
        float v = tfs_bf16_to_float(h[i]);
        float w = op ? v / (1.0f + fabsf(v))
                     : (v > 0 ? (v > 6 ? 6.0f : v) : (v != v ? v : 0.0f));
        bad += o[i] != tfs_float_to_bf16(w);
      }
      tfs_tensor_free(y);
    }
    if (bad) fprintf(stderr, "\n  activations bfloat16: %d bad\n", bad);
    CU_ASSERT_EQUAL(bad, 0);
  }
  tfs_cpu__set_max_isa(-1);
  tfs_tensor_free(x);
}

/* bfloat16 rows (37 wide: the conversions' vector bodies and a tail) are
 * widened, computed as float rows and rounded once: the float kernel's
 * result rounded, bit for bit, on each vector level this CPU has. */
static void test_softmax_bf16(void) {
  enum { R = 3, N = 37 };
  uint16_t h[R * N];
  float f[R * N];
  for (int i = 0; i < R * N; i++) {
    h[i] = tfs_float_to_bf16((float)((i * 37) % 23) / 4.0f - 3.0f);
    f[i] = tfs_bf16_to_float(h[i]);
  }
  int64_t d[2] = {R, N};
  tfs_tensor *t = nt_tensor(TFS_BFLOAT16, d, 2, h), *tf = nt_f32(d, 2, f);
  static const char *const ops[2] = {"Softmax", "LogSoftmax"};
  for (int li = 0; li < TU_VECTOR_LEVELS; li++) {
    if (!tu_cpu_level("softmax-bf16", tu_vector_levels[li])) continue;
    for (int k = 0; k < 2; k++) {
      tfs_tensor *y = nt_run1(ops[k], &t, 1, NULL, 0);
      tfs_tensor *yf = nt_run1(ops[k], &tf, 1, NULL, 0);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(y), TFS_BFLOAT16);
      const uint16_t *o = tfs_tensor_data(y);
      const float *of = tfs_tensor_data(yf);
      int bad = 0;
      for (int i = 0; i < R * N; i++) bad += o[i] != tfs_float_to_bf16(of[i]);
      if (bad) fprintf(stderr, "\n  %s bfloat16: %d bad\n", ops[k], bad);
      CU_ASSERT_EQUAL(bad, 0);
      tfs_tensor_free(y);
      tfs_tensor_free(yf);
    }
  }
  tfs_cpu__set_max_isa(-1);
  tfs_tensor_free(t);
  tfs_tensor_free(tf);
}

static void test_softmax_errors(void) {
  tfs_tensor *t = tfs_tensor_scalar_float(1);
  NT_EXPECT_ERROR("Softmax", &t, 1, NULL, 0, TFS_INVALID_ARGUMENT,
                  "logits must have >= 1 dimension, got []");
  NT_EXPECT_ERROR("LogSoftmax", &t, 1, NULL, 0, TFS_INVALID_ARGUMENT,
                  "logits must have >= 1 dimension, got []");
  NT_EXPECT_BUILD_ERROR("Softmax", &t, 1, NULL, 0,
                        "Shape must be at least rank 1 but is rank 0");
  tfs_tensor_free(t);
}

/* ---- pooling
 * --------------------------------------------------------------------- */

#define POOL_ATTRS(kh, kw, sh, sw, pad)                                 \
  {                                                                     \
    NT_LIST4("ksize", 1, kh, kw, 1), NT_LIST4("strides", 1, sh, sw, 1), \
        NT_STR("padding", pad)                                          \
  }

static void test_max_pool(void) {
  float v[9];
  for (int i = 0; i < 9; i++) v[i] = (float)i;
  tfs_tensor *x = nt_f32((int64_t[]){1, 3, 3, 1}, 4, v);
  nt_attr a[3] = POOL_ATTRS(2, 2, 2, 2, "SAME");
  tfs_tensor *y = nt_run1("MaxPool", &x, 1, a, 3);
  nt_check_f32(y, (int64_t[]){1, 2, 2, 1}, 4, (float[]){4, 5, 7, 8}, 0, 0);
  tfs_tensor_free(y);
  nt_attr av[3] = POOL_ATTRS(2, 2, 1, 1, "VALID");
  y = nt_run1("AvgPool", &x, 1, av, 3);
  nt_check_f32(y, (int64_t[]){1, 2, 2, 1}, 4, (float[]){2, 3, 5, 6}, 1e-7, 0);
  tfs_tensor_free(y);
  /* AvgPool SAME divides by the in-bounds count */
  y = nt_run1("AvgPool", &x, 1, a, 3);
  nt_check_f32(y, (int64_t[]){1, 2, 2, 1}, 4, (float[]){2, 3.5f, 6.5f, 8}, 1e-7,
               0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  /* NaN is never picked; an all -inf window gives the lowest float */
  float n[4] = {1, NAN, 2, 3},
        ninf[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  x = nt_f32((int64_t[]){1, 2, 2, 1}, 4, n);
  nt_attr a2[3] = POOL_ATTRS(2, 2, 1, 1, "VALID");
  y = nt_run1("MaxPool", &x, 1, a2, 3);
  nt_check_f32(y, (int64_t[]){1, 1, 1, 1}, 4, (float[]){3}, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  x = nt_f32((int64_t[]){1, 2, 2, 1}, 4, ninf);
  y = nt_run1("MaxPool", &x, 1, a2, 3);
  nt_check_f32(y, (int64_t[]){1, 1, 1, 1}, 4, (float[]){-3.4028235e38f}, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

/* Many channels (the vector path: 8 at a time, then a tail): each
 * channel of a 2x2 window against a scalar max that skips NaN and starts
 * from the lowest float; channel 3 is all NaN, channel 17 has NaN with
 * -inf, channel 9 has a NaN first. */
static void test_max_pool_wide(void) {
  enum { C = 19 };
  float v[2 * 2 * C], want[C];
  for (int p = 0; p < 4; p++)
    for (int ch = 0; ch < C; ch++)
      v[p * C + ch] = (float)((p * 7 + ch * 5) % 11) - 5.0f;
  for (int p = 0; p < 4; p++) v[p * C + 3] = NAN;
  v[0 * C + 17] = NAN;
  for (int p = 1; p < 4; p++) v[p * C + 17] = -INFINITY;
  v[0 * C + 9] = NAN;
  for (int ch = 0; ch < C; ch++) {
    float m = -3.4028235e38f;
    for (int p = 0; p < 4; p++)
      if (v[p * C + ch] > m) m = v[p * C + ch];
    want[ch] = m;
  }
  CU_ASSERT_EQUAL(want[3], -3.4028235e38f);
  tfs_tensor *x = nt_f32((int64_t[]){1, 2, 2, C}, 4, v);
  nt_attr a[3] = POOL_ATTRS(2, 2, 2, 2, "VALID");
  tfs_tensor *y = nt_run1("MaxPool", &x, 1, a, 3);
  nt_check_f32(y, (int64_t[]){1, 1, 1, C}, 4, want, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

/* A float MaxPool (NHWC, TensorFlow's padding) against a reference that
 * starts from the lowest float and skips NaN. */
static void pool_case(int64_t n, int64_t h, int64_t w, int64_t c, int k,
                      int s, const char *pad, uint32_t seed) {
  tfs_tensor *x = nt_random((int64_t[]){n, h, w, c}, 4, seed);
  float *xv = tfs_tensor_data(x);
  xv[c + 1] = NAN;
  int same = strcmp(pad, "SAME") == 0;
  int64_t oh = same ? (h + s - 1) / s : (h - k) / s + 1;
  int64_t ow = same ? (w + s - 1) / s : (w - k) / s + 1;
  int64_t pt = same ? ((oh - 1) * s + k - h > 0 ? ((oh - 1) * s + k - h) / 2
                                                : 0)
                    : 0;
  int64_t pl = same ? ((ow - 1) * s + k - w > 0 ? ((ow - 1) * s + k - w) / 2
                                                : 0)
                    : 0;
  float *want = malloc(sizeof(float) * (size_t)(n * oh * ow * c));
  for (int64_t b = 0; b < n; b++)
    for (int64_t oy = 0; oy < oh; oy++)
      for (int64_t ox = 0; ox < ow; ox++)
        for (int64_t ch = 0; ch < c; ch++) {
          float m = -3.4028235e38f;
          for (int dy = 0; dy < k; dy++)
            for (int dx = 0; dx < k; dx++) {
              int64_t y = oy * s - pt + dy, xx = ox * s - pl + dx;
              if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
              float v = xv[((b * h + y) * w + xx) * c + ch];
              if (v > m) m = v;
            }
          want[((b * oh + oy) * ow + ox) * c + ch] = m;
        }
  nt_attr a[3] = POOL_ATTRS(k, k, s, s, pad);
  tfs_tensor *y = nt_run1("MaxPool", &x, 1, a, 3);
  nt_check_f32(y, (int64_t[]){n, oh, ow, c}, 4, want, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  free(want);
}

/* MaxPool's CPU paths in turn, whatever this CPU would choose: the
 * AVX-512 loop (64 channels at a time, the last vector masked), the AVX2
 * loop (8 channels at a time, 2x2 windows unrolled) and the scalar loop
 * with the CPU capped below AVX2. */
static void test_max_pool_cpu_paths(void) {
  static const int caps[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2,
                             TFS_CPU_ISA_SSE42};
  static const char *const names[] = {"avx512", "avx2", "scalar"};
  for (int p = 0; p < 3; p++) {
    const char *why = tu_isa_unavailable(caps[p]);
    tu_cpu_path("maxpool", names[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(caps[p]);
    test_max_pool_wide();
    pool_case(2, 8, 8, 16, 2, 2, "VALID", 11);
    pool_case(1, 7, 9, 13, 2, 2, "SAME", 12);
    pool_case(1, 9, 9, 8, 3, 2, "SAME", 13);
    pool_case(2, 6, 5, 3, 3, 1, "VALID", 14);
    pool_case(1, 5, 5, 24, 3, 3, "SAME", 15);
    /* NASNet's channel counts: partial vectors after 64-channel blocks */
    pool_case(1, 9, 9, 11, 3, 2, "SAME", 16);
    pool_case(2, 6, 7, 44, 3, 1, "SAME", 17);
    pool_case(1, 5, 6, 88, 3, 2, "VALID", 18);
    pool_case(1, 4, 4, 143, 2, 1, "SAME", 19);
    tfs_cpu__set_max_isa(-1);
  }
}

/* AvgPool's float CPU paths give the same bits: the AVX-512 loop (64
 * channels at a time, the last vector masked) and the AVX2 loop (32, then
 * 8 channels at a time, then single ones), each with the CPU capped at
 * its level, against the portable loop with the CPU capped below AVX2;
 * SAME windows cut by the edges (their counts differ), strides 1 and 2,
 * channel counts around the vector widths and NASNet's; and against sums
 * in double within float rounding. */
static void test_avg_pool_cpu_paths(void) {
  static const struct {
    int64_t n, h, w, c;
    int k, s;
    const char *pad;
  } kCases[] = {{2, 7, 6, 72, 3, 1, "SAME"},   {1, 9, 8, 13, 3, 2, "SAME"},
                {1, 5, 5, 40, 2, 2, "VALID"},  {2, 6, 7, 3, 3, 1, "VALID"},
                {1, 4, 4, 288, 3, 1, "SAME"},  {1, 8, 8, 33, 5, 3, "SAME"},
                {2, 9, 9, 11, 3, 2, "VALID"},  {1, 7, 7, 44, 3, 1, "SAME"},
                {1, 6, 5, 88, 3, 1, "SAME"},   {1, 5, 5, 22, 1, 2, "VALID"},
                {1, 3, 4, 175, 3, 1, "SAME"}};
  static const int caps[] = {TFS_CPU_ISA_AVX512, TFS_CPU_ISA_AVX2};
  static const char *const names[] = {"avx512", "avx2"};
  const char *why[2];
  for (int p = 0; p < 2; p++) {
    why[p] = tu_isa_unavailable(caps[p]);
    tu_cpu_path("avgpool", names[p], why[p]);
  }
  tu_cpu_path("avgpool", "scalar", NULL);
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
    int64_t d[4] = {kCases[i].n, kCases[i].h, kCases[i].w, kCases[i].c};
    tfs_tensor *x = nt_random(d, 4, 40 + (uint32_t)i);
    nt_attr a[3] = POOL_ATTRS(kCases[i].k, kCases[i].k, kCases[i].s,
                              kCases[i].s, kCases[i].pad);
    tfs_cpu__set_max_isa(TFS_CPU_ISA_SSE42);
    tfs_tensor *y0 = nt_run1("AvgPool", &x, 1, a, 3);
    for (int p = 0; p < 2; p++) {
      if (why[p]) continue;
      tfs_cpu__set_max_isa(caps[p]);
      tfs_tensor *y1 = nt_run1("AvgPool", &x, 1, a, 3);
      CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(y0),
                            tfs_tensor_num_elements(y1));
      CU_ASSERT(memcmp(tfs_tensor_data(y0), tfs_tensor_data(y1),
                       tfs_tensor_byte_size(y0)) == 0);
      tfs_tensor_free(y1);
    }
    tfs_cpu__set_max_isa(-1);
    /* the values: the window's mean in double */
    const float *xv = tfs_tensor_data(x), *yv = tfs_tensor_data(y0);
    int64_t oh = tfs_tensor_dim(y0, 1), ow = tfs_tensor_dim(y0, 2), c = d[3];
    int same = strcmp(kCases[i].pad, "SAME") == 0, k = kCases[i].k,
        s = kCases[i].s, bad = 0;
    int64_t pt = same ? ((oh - 1) * s + k - d[1]) / 2 : 0;
    int64_t pl = same ? ((ow - 1) * s + k - d[2]) / 2 : 0;
    if (pt < 0) pt = 0;
    if (pl < 0) pl = 0;
    for (int64_t b = 0; b < d[0]; b++)
      for (int64_t oy = 0; oy < oh; oy++)
        for (int64_t ox = 0; ox < ow; ox++)
          for (int64_t ch = 0; ch < c; ch++) {
            double sum = 0;
            int cnt = 0;
            for (int dy = 0; dy < k; dy++)
              for (int dx = 0; dx < k; dx++) {
                int64_t yy = oy * s - pt + dy, xx = ox * s - pl + dx;
                if (yy < 0 || yy >= d[1] || xx < 0 || xx >= d[2]) continue;
                sum += xv[((b * d[1] + yy) * d[2] + xx) * c + ch];
                cnt++;
              }
            double want = sum / cnt;
            float got = yv[((b * oh + oy) * ow + ox) * c + ch];
            bad += fabs(got - want) > 1e-6 * (1 + fabs(want));
          }
    CU_ASSERT_EQUAL(bad, 0);
    tfs_tensor_free(y0);
    tfs_tensor_free(x);
  }
}

static void test_max_pool_variants(void) {
  /* depth pooling: the first of each group starts, NaN there sticks */
  float v[4] = {1, NAN, NAN, 1};
  tfs_tensor *x = nt_f32((int64_t[]){1, 1, 1, 4}, 4, v);
  nt_attr a[3] = {NT_LIST4("ksize", 1, 1, 1, 2),
                  NT_LIST4("strides", 1, 1, 1, 2), NT_STR("padding", "VALID")};
  tfs_tensor *y = nt_run1("MaxPool", &x, 1, a, 3);
  nt_check_f32(y, (int64_t[]){1, 1, 1, 2}, 4, (float[]){1, NAN}, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  /* NCHW and EXPLICIT padding on a 1x2x3x3 input */
  float w[18];
  for (int i = 0; i < 18; i++) w[i] = (float)((i * 7) % 11);
  x = nt_f32((int64_t[]){1, 2, 3, 3}, 4, w);
  nt_attr e[5] = {
      {"ksize", 'l', 4, {1, 1, 2, 2}, NULL, 0},
      {"strides", 'l', 4, {1, 1, 2, 2}, NULL, 0},
      NT_STR("padding", "EXPLICIT"),
      {"explicit_paddings", 'l', 8, {0, 0, 0, 0, 1, 0, 0, 1}, NULL, 0},
      NT_STR("data_format", "NCHW")};
  y = nt_run1("MaxPool", &x, 1, e, 5);
  /* rows: pad 1 top; cols: pad 1 right -> out 2x2 per channel */
  float want[8];
  for (int ch = 0; ch < 2; ch++)
    for (int oy = 0; oy < 2; oy++)
      for (int ox = 0; ox < 2; ox++) {
        float m = -3.4028235e38f;
        for (int ky = 0; ky < 2; ky++)
          for (int kx = 0; kx < 2; kx++) {
            int iy = oy * 2 - 1 + ky, ix = ox * 2 + kx;
            if (iy < 0 || iy >= 3 || ix >= 3) continue;
            float q = w[ch * 9 + iy * 3 + ix];
            if (q > m) m = q;
          }
        want[ch * 4 + oy * 2 + ox] = m;
      }
  nt_check_f32(y, (int64_t[]){1, 2, 2, 2}, 4, want, 0, 0);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  /* integers and an empty batch */
  int8_t iv[4] = {-100, -100, -100, -100};
  x = nt_tensor(TFS_INT8, (int64_t[]){1, 2, 2, 1}, 4, iv);
  nt_attr s[3] = POOL_ATTRS(2, 2, 1, 1, "SAME");
  y = nt_run1("MaxPool", &x, 1, s, 3);
  CU_ASSERT_EQUAL(((int8_t *)tfs_tensor_data(y))[3], -100);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
  x = nt_f32((int64_t[]){0, 4, 4, 2}, 4, NULL);
  y = nt_run1("AvgPool", &x, 1, s, 3);
  CU_ASSERT_EQUAL(tfs_tensor_dim(y, 0), 0);
  CU_ASSERT_EQUAL(tfs_tensor_dim(y, 1), 4);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

static void test_pool_errors(void) {
  tfs_tensor *x = nt_random((int64_t[]){5, 5, 4}, 3, 1);
  nt_attr a[3] = POOL_ATTRS(2, 2, 2, 2, "SAME");
  NT_EXPECT_ERROR("MaxPool", &x, 1, a, 3, TFS_INVALID_ARGUMENT,
                  "tensor_in_shape must have 2 spatial dimensions. 3 0");
  NT_EXPECT_ERROR("AvgPool", &x, 1, a, 3, TFS_INVALID_ARGUMENT,
                  "tensor_in_shape must have 2 spatial dimensions. 3 0");
  NT_EXPECT_BUILD_ERROR("MaxPool", &x, 1, a, 3,
                        "Shape must be rank 4 but is rank 3");
  tfs_tensor_free(x);
  x = nt_random((int64_t[]){1, 5, 5, 4}, 4, 2);
  nt_attr b[3] = {NT_LIST4("ksize", 2, 2, 2, 1),
                  NT_LIST4("strides", 1, 2, 2, 1), NT_STR("padding", "SAME")};
  NT_EXPECT_ERROR("MaxPool", &x, 1, b, 3, TFS_UNIMPLEMENTED,
                  "Pooling is not yet supported on the batch dimension.");
  NT_EXPECT_ERROR("AvgPool", &x, 1, b, 3, TFS_UNIMPLEMENTED,
                  "Pooling is not yet supported on the batch dimension.");
  nt_attr z[3] = {NT_LIST4("ksize", 1, 0, 2, 1),
                  NT_LIST4("strides", 1, 2, 2, 1), NT_STR("padding", "SAME")};
  NT_EXPECT_ERROR("MaxPool", &x, 1, z, 3, TFS_INVALID_ARGUMENT,
                  "Sliding window ksize must be positive. The specified or "
                  "inferred ksize is: 1,0,2,1");
  NT_EXPECT_ERROR("AvgPool", &x, 1, z, 3, TFS_INVALID_ARGUMENT,
                  "ksize must be a positive int32 value, got:0");
  nt_attr d[3] = {NT_LIST4("ksize", 1, 1, 1, 2),
                  NT_LIST4("strides", 1, 1, 1, 2), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("AvgPool", &x, 1, d, 3, TFS_UNIMPLEMENTED,
                  "Non-spatial pooling is not yet supported. Volunteers? :)");
  nt_attr d2[3] = {NT_LIST4("ksize", 1, 2, 1, 2),
                   NT_LIST4("strides", 1, 1, 1, 2), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("MaxPool", &x, 1, d2, 3, TFS_UNIMPLEMENTED,
                  "MaxPooling supports exactly one of pooling across depth "
                  "or pooling across width/height.");
  nt_attr d3[3] = {NT_LIST4("ksize", 1, 1, 1, 2),
                   NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("MaxPool", &x, 1, d3, 3, TFS_UNIMPLEMENTED,
                  "Depthwise max pooling requires the depth window to equal "
                  "the depth stride");
  nt_attr d4[3] = {NT_LIST4("ksize", 1, 1, 1, 3),
                   NT_LIST4("strides", 1, 1, 1, 3), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("MaxPool", &x, 1, d4, 3, TFS_UNIMPLEMENTED,
                  "Depthwise max pooling requires the depth window to evenly "
                  "divide the input depth");
  /* TensorFlow's order: divisibility, then the stride, then (AvgPool)
   * depth pooling at all */
  nt_attr d5[3] = {NT_LIST4("ksize", 1, 1, 1, 3),
                   NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "VALID")};
  NT_EXPECT_ERROR("MaxPool", &x, 1, d5, 3, TFS_UNIMPLEMENTED,
                  "Depthwise max pooling requires the depth window to evenly "
                  "divide the input depth");
  NT_EXPECT_ERROR("AvgPool", &x, 1, d5, 3, TFS_UNIMPLEMENTED,
                  "Depthwise max pooling requires the depth window to evenly "
                  "divide the input depth");
  NT_EXPECT_ERROR("AvgPool", &x, 1, d3, 3, TFS_UNIMPLEMENTED,
                  "Depthwise max pooling requires the depth window to equal "
                  "the depth stride");
  NT_EXPECT_ERROR("AvgPool", &x, 1, d2, 3, TFS_UNIMPLEMENTED,
                  "MaxPooling supports exactly one of pooling across depth "
                  "or pooling across width/height.");
  nt_attr kw[3] = {NT_LIST4("ksize", 1, INT64_C(1) << 40, 2, 1),
                   NT_LIST4("strides", 1, 1, 1, 1), NT_STR("padding", "SAME")};
  NT_EXPECT_BUILD_ERROR("AvgPool", &x, 1, kw, 3,
                        "Attr ksize has value 1099511627776 out of range for "
                        "an int32");
  nt_attr e[4] = {
      NT_LIST4("ksize", 1, 3, 3, 1),
      NT_LIST4("strides", 1, 1, 1, 1),
      NT_STR("padding", "EXPLICIT"),
      {"explicit_paddings", 'l', 8, {0, 0, 3, 1, 1, 1, 0, 0}, NULL, 0}};
  NT_EXPECT_ERROR("MaxPool", &x, 1, e, 4, TFS_INVALID_ARGUMENT,
                  "Top padding 3 needs to be smaller than the window size 3");
  nt_attr v[3] = POOL_ATTRS(7, 2, 1, 1, "VALID");
  NT_EXPECT_ERROR("MaxPool", &x, 1, v, 3, TFS_INVALID_ARGUMENT,
                  "Computed output size would be negative: -1 [input_size: "
                  "5, effective_filter_size: 7, stride: 1]");
  NT_EXPECT_ERROR("AvgPool", &x, 1, v, 3, TFS_INVALID_ARGUMENT,
                  "Computed output size would be negative: -1 [input_size: "
                  "5, effective_filter_size: 7, stride: 1]");
  NT_EXPECT_BUILD_ERROR("MaxPool", &x, 1, v, 3,
                        "Negative dimension size caused by subtracting 7 "
                        "from 5");
  nt_attr s0[3] = POOL_ATTRS(2, 2, 0, 2, "VALID");
  NT_EXPECT_BUILD_ERROR("MaxPool", &x, 1, s0, 3,
                        "Stride must be > 0, but got 0");
  nt_attr k5[3] = {{"ksize", 'l', 5, {1, 1, 1, 1, 1}, NULL, 0},
                   NT_LIST4("strides", 1, 1, 1, 1),
                   NT_STR("padding", "SAME")};
  NT_EXPECT_BUILD_ERROR("MaxPool", &x, 1, k5, 3,
                        "MaxPool requires the ksize attribute to contain 4 "
                        "values, but got: 5");
  tfs_tensor_free(x);
}

/* ---- batch normalization
 * ----------------------------------------------------- */

static void bn_inputs(tfs_tensor **in, int64_t ch, float mean, float var) {
  float s[8], o[8], m[8], v[8];
  for (int i = 0; i < ch; i++)
    s[i] = 1.0f + 0.5f * i, o[i] = 0.25f * i, m[i] = mean, v[i] = var;
  in[1] = nt_f32(&ch, 1, s);
  in[2] = nt_f32(&ch, 1, o);
  in[3] = nt_f32(&ch, 1, m);
  in[4] = nt_f32(&ch, 1, v);
}

static void test_batch_norm_inference(void) {
  tfs_tensor *in[5];
  in[0] = nt_random((int64_t[]){2, 3, 3, 2}, 4, 9);
  bn_inputs(in, 2, 0.5f, 2.0f);
  nt_attr a[2] = {NT_BOOL("is_training", 0), NT_FLOAT("epsilon", 0.001)};
  tfs_tensor *out[6] = {NULL};
  char msg[1024];
  CU_ASSERT_EQUAL_FATAL(
      nt_run("FusedBatchNormV3", in, 5, a, 2, out, 6, msg, sizeof msg), TFS_OK);
  const float *x = tfs_tensor_data(in[0]), *y = tfs_tensor_data(out[0]);
  for (int i = 0; i < 36; i++) {
    int c = i % 2;
    float want =
        (x[i] - 0.5f) * ((1.0f / sqrtf(2.001f)) * (1 + 0.5f * c)) + 0.25f * c;
    TFS_ASSERT_FLOAT_NEAR(y[i], want, 1e-6);
  }
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[1]))[1], 0.5, 0);
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[2]))[1], 2.0, 0);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(out[5]), 0);
  for (int i = 0; i < 6; i++) tfs_tensor_free(out[i]);
  /* NCHW: channel is dim 1 */
  nt_attr b[3] = {NT_BOOL("is_training", 0), NT_FLOAT("epsilon", 0.001),
                  NT_STR("data_format", "NCHW")};
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){1, 2, 2, 2}, 4, 10);
  CU_ASSERT_EQUAL_FATAL(
      nt_run("FusedBatchNorm", in, 5, b, 3, out, 5, msg, sizeof msg), TFS_OK);
  x = tfs_tensor_data(in[0]);
  y = tfs_tensor_data(out[0]);
  for (int i = 0; i < 8; i++) {
    int c = i / 4;
    float want =
        (x[i] - 0.5f) * ((1.0f / sqrtf(2.001f)) * (1 + 0.5f * c)) + 0.25f * c;
    TFS_ASSERT_FLOAT_NEAR(y[i], want, 1e-6);
  }
  for (int i = 0; i < 5; i++) tfs_tensor_free(out[i]);
  for (int i = 0; i < 5; i++) tfs_tensor_free(in[i]);
}

static void test_batch_norm_training(void) {
  /* TensorFlow: x = arange(8).reshape(2,2,1,2), mean 5, variance 7 */
  float xv[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  tfs_tensor *in[5];
  in[0] = nt_f32((int64_t[]){2, 2, 1, 2}, 4, xv);
  float one[2] = {1, 1}, zero[2] = {0, 0}, five[2] = {5, 5}, seven[2] = {7, 7};
  int64_t two = 2;
  in[1] = nt_f32(&two, 1, one);
  in[2] = nt_f32(&two, 1, zero);
  in[3] = nt_f32(&two, 1, five);
  in[4] = nt_f32(&two, 1, seven);
  nt_attr a[1] = {NT_FLOAT("exponential_avg_factor", 0.25)};
  tfs_tensor *out[6] = {NULL};
  char msg[1024];
  CU_ASSERT_EQUAL_FATAL(
      nt_run("FusedBatchNormV3", in, 5, a, 1, out, 6, msg, sizeof msg), TFS_OK);
  /* batch mean 3, 4; biased variance 5; Bessel 20/3 */
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[0]))[0], -1.3416274,
                        1e-6);
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[1]))[0],
                        0.75 * 5 + 0.25 * 3, 1e-6);
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[2]))[0],
                        0.75 * 7 + 0.25 * 20.0 / 3, 1e-5);
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[3]))[1], 4, 1e-6);
  TFS_ASSERT_FLOAT_NEAR(((float *)tfs_tensor_data(out[4]))[1], 5, 1e-6);
  for (int i = 0; i < 6; i++) tfs_tensor_free(out[i]);
  /* an empty batch gives NaN statistics */
  tfs_tensor_free(in[0]);
  in[0] = nt_f32((int64_t[]){0, 1, 1, 2}, 4, NULL);
  CU_ASSERT_EQUAL_FATAL(
      nt_run("FusedBatchNormV3", in, 5, NULL, 0, out, 6, msg, sizeof msg),
      TFS_OK);
  CU_ASSERT(isnan(((float *)tfs_tensor_data(out[1]))[0]));
  CU_ASSERT(isnan(((float *)tfs_tensor_data(out[2]))[1]));
  for (int i = 0; i < 6; i++) tfs_tensor_free(out[i]);
  for (int i = 0; i < 5; i++) tfs_tensor_free(in[i]);
}

static void test_batch_norm_errors(void) {
  tfs_tensor *in[5];
  in[0] = nt_random((int64_t[]){5, 5, 4}, 3, 1);
  bn_inputs(in, 4, 0, 1);
  nt_attr a[1] = {NT_BOOL("is_training", 0)};
  NT_EXPECT_ERROR("FusedBatchNormV3", in, 5, a, 1, TFS_INVALID_ARGUMENT,
                  "input must be 4 or 5-dimensional[5,5,4]");
  NT_EXPECT_BUILD_ERROR("FusedBatchNormV3", in, 5, a, 1,
                        "Shape must be rank 4 but is rank 3");
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){1, 5, 5, 4}, 4, 2);
  static const char *const kRank[4] = {
      "scale must be 1-dimensional[4,1]", "offset must be 1-dimensional[4,1]",
      "estimated_mean must be 1-dimensional[4,1]",
      "estimated_variance must be 1-dimensional[4,1]"};
  static const char *const kSize[4] = {
      "scale must have the same number of elements as the channels of x, "
      "got 3 and 4",
      "offset must have the same number of elements as the channels of x, "
      "got 3 and 4",
      "When is_training=false, mean must have the same number of elements "
      "as the channels of x, got 3 and 4",
      "When is_training=false, variance must have the same number of "
      "elements as the channels of x, got 3 and 4"};
  for (int i = 1; i < 5; i++) {
    tfs_tensor *keep = in[i];
    in[i] = nt_random((int64_t[]){4, 1}, 2, 3);
    NT_EXPECT_ERROR("FusedBatchNormV3", in, 5, a, 1, TFS_INVALID_ARGUMENT,
                    kRank[i - 1]);
    tfs_tensor_free(in[i]);
    in[i] = nt_random((int64_t[]){3}, 1, 3);
    NT_EXPECT_ERROR("FusedBatchNormV3", in, 5, a, 1, TFS_INVALID_ARGUMENT,
                    kSize[i - 1]);
    NT_EXPECT_BUILD_ERROR("FusedBatchNormV3", in, 5, a, 1,
                          "Dimensions must be equal, but are 4 and 3");
    tfs_tensor_free(in[i]);
    in[i] = keep;
  }
  /* training with an averaging factor needs the running statistics */
  tfs_tensor_free(in[3]);
  in[3] = nt_random((int64_t[]){0}, 1, 3);
  nt_attr f[1] = {NT_FLOAT("exponential_avg_factor", 0.5)};
  NT_EXPECT_ERROR("FusedBatchNormV3", in, 5, f, 1, TFS_INVALID_ARGUMENT,
                  "When exponential_avg_factor != 1, mean must have the same "
                  "number of elements as the channels of x, got 0 and 4");
  tfs_tensor_free(in[3]);
  in[3] = nt_random((int64_t[]){4}, 1, 3);
  tfs_tensor_free(in[4]);
  in[4] = nt_random((int64_t[]){2}, 1, 3);
  NT_EXPECT_ERROR("FusedBatchNormV3", in, 5, f, 1, TFS_INVALID_ARGUMENT,
                  "When exponential_avg_factor != 1, variance must have the "
                  "same number of elements as the channels of x, got 2 and "
                  "4");
  /* statistics in bfloat16 have no CPU kernel (TensorFlow has none) */
  for (int i = 1; i < 5; i++) {
    tfs_tensor_free(in[i]);
    in[i] = nt_tensor(TFS_BFLOAT16, (int64_t[]){4}, 1, NULL);
    memset(tfs_tensor_data(in[i]), 0, 8);
  }
  NT_EXPECT_ERROR("FusedBatchNormV3", in, 5, a, 1, TFS_UNIMPLEMENTED,
                  "FusedBatchNormV3 is only implemented for U=float on CPU, "
                  "got U=bfloat16");
  for (int i = 0; i < 5; i++) tfs_tensor_free(in[i]);
}

/* ---- LRN
 * ---------------------------------------------------------------------------
 */

static void test_lrn(void) {
  tfs_tensor *x = nt_random((int64_t[]){1, 2, 2, 7}, 4, 5);
  nt_attr a[4] = {NT_INT("depth_radius", 2), NT_FLOAT("bias", 1.5),
                  NT_FLOAT("alpha", 0.3), NT_FLOAT("beta", 0.75)};
  tfs_tensor *y = nt_run1("LRN", &x, 1, a, 4);
  const float *xv = tfs_tensor_data(x);
  float want[28];
  for (int p = 0; p < 4; p++)
    for (int c = 0; c < 7; c++) {
      double s = 0;
      for (int q = c - 2; q <= c + 2; q++)
        if (q >= 0 && q < 7) s += xv[p * 7 + q] * xv[p * 7 + q];
      want[p * 7 + c] = (float)(xv[p * 7 + c] * pow(1.5 + 0.3 * s, -0.75));
    }
  nt_check_f32(y, (int64_t[]){1, 2, 2, 7}, 4, want, 1e-5, 1e-7);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

static void test_lrn_errors(void) {
  tfs_tensor *x = nt_random((int64_t[]){5, 5, 4}, 3, 1);
  NT_EXPECT_ERROR("LRN", &x, 1, NULL, 0, TFS_INVALID_ARGUMENT,
                  "in must be 4-dimensional");
  NT_EXPECT_BUILD_ERROR("LRN", &x, 1, NULL, 0,
                        "Shape must be rank 4 but is rank 3");
  tfs_tensor_free(x);
  x = nt_random((int64_t[]){1, 5, 5, 4}, 4, 1);
  nt_attr a[1] = {NT_INT("depth_radius", -1)};
  NT_EXPECT_ERROR("LRN", &x, 1, a, 1, TFS_INVALID_ARGUMENT,
                  "depth_radius = -1 larger than int max");
  tfs_tensor_free(x);
}

/* ---- losses
 * ------------------------------------------------------------------------ */

static void test_l2_loss(void) {
  tfs_tensor *x = nt_f32((int64_t[]){2, 2}, 2, (float[]){1, -2, 3, 0.5f});
  tfs_tensor *y = nt_run1("L2Loss", &x, 1, NULL, 0);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(y), 0);
  TFS_ASSERT_FLOAT_NEAR(tu_scalar_float(y), 7.125, 1e-6);
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

static void xent_ref(const float *x, const float *l, int cols, float *loss,
                     float *back) {
  double mx = -INFINITY, s = 0;
  for (int k = 0; k < cols; k++) mx = x[k] > mx ? x[k] : mx;
  for (int k = 0; k < cols; k++) s += exp(x[k] - mx);
  double lo = 0;
  for (int k = 0; k < cols; k++) {
    lo += l[k] * (log(s) - (x[k] - mx));
    back[k] = (float)(exp(x[k] - mx) / s - l[k]);
  }
  *loss = (float)lo;
}

static void test_softmax_xent(void) {
  tfs_tensor *in[2] = {nt_random((int64_t[]){3, 4}, 2, 7),
                       nt_random((int64_t[]){1, 4}, 2, 8)};
  float *lab = tfs_tensor_data(in[1]);
  for (int k = 0; k < 4; k++) lab[k] = lab[k] * lab[k];
  tfs_tensor *out[2] = {NULL, NULL};
  char msg[512];
  CU_ASSERT_EQUAL_FATAL(nt_run("SoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                               out, 2, msg, sizeof msg),
                        TFS_OK);
  const float *x = tfs_tensor_data(in[0]);
  float loss[3], back[12];
  for (int r = 0; r < 3; r++)
    xent_ref(x + 4 * r, lab, 4, &loss[r], back + 4 * r);
  nt_check_f32(out[0], (int64_t[]){3}, 1, loss, 1e-5, 1e-6);
  nt_check_f32(out[1], (int64_t[]){3, 4}, 2, back, 1e-5, 1e-6);
  for (int i = 0; i < 2; i++) tfs_tensor_free(out[i]);
  tfs_tensor_free(in[1]);
  in[1] = nt_random((int64_t[]){3, 3}, 2, 8);
  NT_EXPECT_ERROR("SoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "logits and labels must be broadcastable: logits_size=[3,4] "
                  "labels_size=[3,3]");
  NT_EXPECT_BUILD_ERROR("SoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                        "Dimensions must be equal, but are 4 and 3");
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
  in[0] = nt_random((int64_t[]){4}, 1, 1);
  in[1] = nt_random((int64_t[]){4}, 1, 2);
  NT_EXPECT_ERROR("SoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "logits and labels must be either 2-dimensional, or "
                  "broadcasted to be 2-dimensional");
  NT_EXPECT_BUILD_ERROR("SoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                        "Shape must be broadcasted with rank 2, but is rank "
                        "1");
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_sparse_xent(void) {
  tfs_tensor *in[2] = {nt_random((int64_t[]){5, 4}, 2, 3), NULL};
  int32_t lab[5] = {0, 1, 2, 3, 3};
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){5}, 1, lab);
  tfs_tensor *out[2] = {NULL, NULL};
  char msg[512];
  CU_ASSERT_EQUAL_FATAL(nt_run("SparseSoftmaxCrossEntropyWithLogits", in, 2,
                               NULL, 0, out, 2, msg, sizeof msg),
                        TFS_OK);
  const float *x = tfs_tensor_data(in[0]);
  float loss[5], back[20];
  for (int r = 0; r < 5; r++) {
    float oh[4] = {0, 0, 0, 0};
    oh[lab[r]] = 1;
    xent_ref(x + 4 * r, oh, 4, &loss[r], back + 4 * r);
  }
  nt_check_f32(out[0], (int64_t[]){5}, 1, loss, 1e-5, 1e-6);
  nt_check_f32(out[1], (int64_t[]){5, 4}, 2, back, 1e-5, 1e-6);
  for (int i = 0; i < 2; i++) tfs_tensor_free(out[i]);
  tfs_tensor_free(in[1]);
  int64_t bad[5] = {0, 1, -1, 3, 3};
  in[1] = nt_tensor(TFS_INT64, (int64_t[]){5}, 1, bad);
  NT_EXPECT_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "Received a label value of -1 which is outside the valid "
                  "range of [0, 4).  Label values: 0 1 -1 3 3");
  tfs_tensor_free(in[1]);
  int32_t bad2[5] = {0, 1, 4, 3, 3};
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){5}, 1, bad2);
  NT_EXPECT_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "Received a label value of 4 which is outside the valid "
                  "range of [0, 4).  Label values: 0 1 4 3 3");
  tfs_tensor_free(in[1]);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){4}, 1, lab);
  NT_EXPECT_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "logits and labels must have the same first dimension, got "
                  "logits shape [5,4] and labels shape [4]");
  NT_EXPECT_BUILD_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                        "Dimensions must be equal, but are 5 and 4");
  tfs_tensor_free(in[1]);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){1, 5}, 2, lab);
  NT_EXPECT_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "labels must be 1-D, but got shape [1,5]");
  tfs_tensor_free(in[1]);
  tfs_tensor_free(in[0]);
  in[0] = nt_random((int64_t[]){4}, 1, 3);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){1}, 1, lab);
  NT_EXPECT_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "logits must be 2-D, but got shape [4]");
  tfs_tensor_free(in[0]);
  tfs_tensor_free(in[1]);
  in[0] = nt_f32((int64_t[]){5, 0}, 2, NULL);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){5}, 1, lab);
  NT_EXPECT_ERROR("SparseSoftmaxCrossEntropyWithLogits", in, 2, NULL, 0,
                  TFS_INVALID_ARGUMENT,
                  "Must have at least one class, but got logits shape [5,0]");
  for (int i = 0; i < 2; i++) tfs_tensor_free(in[i]);
}

static void test_in_top_k(void) {
  float p[9] = {NAN, 1, 2, 1, INFINITY, 2, 0.5f, 0.7f, 0.1f};
  tfs_tensor *in[3] = {nt_f32((int64_t[]){3, 3}, 2, p), NULL,
                       tfs_tensor_scalar_int32(1)};
  int32_t t[3] = {0, 1, 1};
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){3}, 1, t);
  tfs_tensor *y = nt_run1("InTopKV2", in, 3, NULL, 0);
  const uint8_t *o = tfs_tensor_data(y);
  /* NaN and inf targets cannot be said to be in the top k */
  CU_ASSERT(o[0] == 0 && o[1] == 0 && o[2] == 1);
  tfs_tensor_free(y);
  tfs_tensor_free(in[1]);
  /* a non-finite prediction anywhere in the row: cannot say either */
  float q[3] = {0.1f, 0.9f, NAN};
  tfs_tensor *in2[3] = {nt_f32((int64_t[]){1, 3}, 2, q),
                        nt_tensor(TFS_INT32, (int64_t[]){1}, 1, t + 1),
                        tfs_tensor_scalar_int32(2)};
  y = nt_run1("InTopKV2", in2, 3, NULL, 0);
  CU_ASSERT_EQUAL(((uint8_t *)tfs_tensor_data(y))[0], 0);
  tfs_tensor_free(y);
  for (int i = 0; i < 3; i++) tfs_tensor_free(in2[i]);
  int32_t oob[3] = {3, -1, 0};
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){3}, 1, oob);
  tfs_tensor_free(in[2]);
  in[2] = tfs_tensor_scalar_int32(3);
  y = nt_run1("InTopKV2", in, 3, NULL, 0);
  o = tfs_tensor_data(y);
  CU_ASSERT(o[0] == 0 && o[1] == 0 && o[2] == 1);
  tfs_tensor_free(y);
  tfs_tensor_free(in[2]);
  in[2] = tu_int32s((int64_t[]){1}, 1, (int32_t[]){2});
  NT_EXPECT_ERROR("InTopKV2", in, 3, NULL, 0, TFS_INVALID_ARGUMENT,
                  "k must be 0-D, got shape [1]");
  tfs_tensor_free(in[2]);
  in[2] = tfs_tensor_scalar_int32(2);
  tfs_tensor_free(in[1]);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){2}, 1, t);
  NT_EXPECT_ERROR("InTopKV2", in, 3, NULL, 0, TFS_INVALID_ARGUMENT,
                  "First dimension of predictions 3 must match length of "
                  "targets 2");
  tfs_tensor_free(in[1]);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){1, 3}, 2, t);
  NT_EXPECT_ERROR("InTopKV2", in, 3, NULL, 0, TFS_INVALID_ARGUMENT,
                  "targets must be 1-dimensional");
  tfs_tensor_free(in[1]);
  tfs_tensor_free(in[0]);
  in[0] = nt_f32((int64_t[]){3}, 1, p);
  in[1] = nt_tensor(TFS_INT32, (int64_t[]){3}, 1, t);
  NT_EXPECT_ERROR("InTopKV2", in, 3, NULL, 0, TFS_INVALID_ARGUMENT,
                  "predictions must be 2-dimensional");
  for (int i = 0; i < 3; i++) tfs_tensor_free(in[i]);
}

static const tfs_test_case kActCases[] = {
    {"relu6", test_relu6},
    {"elu_selu", test_elu_selu},
    {"softplus_softsign", test_softplus_softsign},
    {"leaky_relu", test_leaky_relu},
    {"half", test_activation_half},
    {"bf16", test_activation_bf16},
    {"bias_add", test_bias_add},
    {"bias_add_errors", test_bias_add_errors},
    {"softmax", test_softmax},
    {"softmax_bf16", test_softmax_bf16},
    {"softmax_errors", test_softmax_errors},
    {NULL, NULL},
};

static const tfs_test_case kPoolCases[] = {
    {"max_avg", test_max_pool},
    {"max_wide", test_max_pool_wide},
    {"max_cpu_paths", test_max_pool_cpu_paths},
    {"avg_cpu_paths", test_avg_pool_cpu_paths},
    {"variants", test_max_pool_variants},
    {"errors", test_pool_errors},
    {NULL, NULL},
};

/* _TfsAddLayerNorm (the remapper's residual sum under a layer norm):
 * each row is x + addend rounded as AddV2 rounds it, then normalized: the
 * same bits as _TfsLayerNorm of the sum, rows of 1 to 70 floats (vector
 * tails); an addend of another shape is refused by name and shapes. */
static void test_layer_norm_addend(void) {
  const nt_attr eps[1] = {NT_FLOAT("epsilon", 1e-3f)};
  uint32_t seed = 7;
  for (int d = 1; d <= 70; d += 3) {
    int64_t xd[2] = {3, d};
    tfs_tensor *x = nt_tensor(TFS_FLOAT, xd, 2, NULL);
    tfs_tensor *r = nt_tensor(TFS_FLOAT, xd, 2, NULL);
    tfs_tensor *sum = nt_tensor(TFS_FLOAT, xd, 2, NULL);
    tfs_tensor *sc = nt_tensor(TFS_FLOAT, (int64_t[]){d}, 1, NULL);
    tfs_tensor *of = nt_tensor(TFS_FLOAT, (int64_t[]){d}, 1, NULL);
    float *xv = tfs_tensor_data(x), *rv = tfs_tensor_data(r);
    float *sv = tfs_tensor_data(sum);
    for (int i = 0; i < 3 * d; i++) {
      xv[i] = 3.0f * nt_rand(&seed) + 1.0f;
      rv[i] = nt_rand(&seed) * 1e-3f + nt_rand(&seed);
      sv[i] = xv[i] + rv[i];
    }
    for (int i = 0; i < d; i++) {
      ((float *)tfs_tensor_data(sc))[i] = 1.0f + nt_rand(&seed);
      ((float *)tfs_tensor_data(of))[i] = nt_rand(&seed);
    }
    tfs_tensor *in4[4] = {x, sc, of, r}, *in3[3] = {sum, sc, of};
    tfs_tensor *y4 = nt_run1("_TfsAddLayerNorm", in4, 4, eps, 1);
    tfs_tensor *y3 = nt_run1("_TfsLayerNorm", in3, 3, eps, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y3);
    CU_ASSERT_EQUAL(memcmp(tfs_tensor_data(y4), tfs_tensor_data(y3),
                           sizeof(float) * (size_t)(3 * d)),
                    0);
    tfs_tensor_free(y4);
    tfs_tensor_free(y3);
    tfs_tensor *t[] = {x, r, sum, sc, of};
    for (int i = 0; i < 5; i++) tfs_tensor_free(t[i]);
  }
  tfs_tensor *x = nt_tensor(TFS_FLOAT, (int64_t[]){2, 4}, 2, NULL);
  tfs_tensor *r = nt_tensor(TFS_FLOAT, (int64_t[]){2, 3}, 2, NULL);
  tfs_tensor *v = nt_tensor(TFS_FLOAT, (int64_t[]){4}, 1, NULL);
  memset(tfs_tensor_data(x), 0, tfs_tensor_byte_size(x));
  memset(tfs_tensor_data(r), 0, tfs_tensor_byte_size(r));
  memset(tfs_tensor_data(v), 0, tfs_tensor_byte_size(v));
  tfs_tensor *in[4] = {x, v, v, r};
  NT_EXPECT_ERROR("_TfsAddLayerNorm", in, 4, eps, 1, TFS_INVALID_ARGUMENT,
                  "addend must have the shape of x, [2,4], got [2,3]");
  tfs_tensor_free(x);
  tfs_tensor_free(r);
  tfs_tensor_free(v);
}

static const tfs_test_case kNormCases[] = {
    {"layer_norm_addend", test_layer_norm_addend},
    {"bn_inference", test_batch_norm_inference},
    {"bn_training", test_batch_norm_training},
    {"bn_errors", test_batch_norm_errors},
    {"lrn", test_lrn},
    {"lrn_errors", test_lrn_errors},
    {NULL, NULL},
};

static const tfs_test_case kLossCases[] = {
    {"l2_loss", test_l2_loss},
    {"softmax_xent", test_softmax_xent},
    {"sparse_xent", test_sparse_xent},
    {"in_top_k", test_in_top_k},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"nn_activations", kActCases},
    {"nn_pool", kPoolCases},
    {"nn_norm", kNormCases},
    {"nn_losses", kLossCases},
    {NULL, NULL},
};

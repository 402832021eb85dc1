/*
 * tests/kernels/test_pool_pad.c - MaxPool reading its EXPLICIT padding as
 * a value (_tfs_pad_value, what the remapper makes of a Pad before a
 * VALID MaxPool): bit for bit against the Pad and the pool run apart
 * (the Pad's output fetched too, so nothing is folded), on the AVX2 and
 * the portable loops, one and two threads, with NaN, infinities, signed
 * zeros (which of +0 and -0 a window keeps depends on the order it
 * visits the padding in) and windows whose only maximum is the padding;
 * and the attribute's errors.
 */
#include "core/cpu.h"
#include "nn_test_util.h"

typedef struct pad_case {
  int64_t n, h, w, c;
  int64_t pads[4]; /* top, bottom, left, right */
  int64_t k, s;
  int v2;      /* PadV2 with `value`, else Pad (0) */
  float value;
  int fill;    /* 0 random with specials, 1 all -0.0, 2 all negative */
} pad_case;

/* The case's input: random values in [-1, 1) with NaN, infinities and
 * signed zeros sprinkled in (fill 0), every element -0.0 (1), or
 * negative values only, so that a window touching the padding keeps the
 * padding's 0 (2). */
static tfs_tensor *input(const pad_case *pc, uint32_t seed) {
  int64_t d[4] = {pc->n, pc->h, pc->w, pc->c};
  tfs_tensor *x = nt_random(d, 4, seed);
  float *v = tfs_tensor_data(x);
  int64_t total = pc->n * pc->h * pc->w * pc->c;
  for (int64_t i = 0; i < total; i++) {
    if (pc->fill == 1)
      v[i] = -0.0f;
    else if (pc->fill == 2)
      v[i] = -1.0f - fabsf(v[i]);
    else if (i % 23 == 3)
      v[i] = NAN;
    else if (i % 29 == 5)
      v[i] = -INFINITY;
    else if (i % 31 == 7)
      v[i] = INFINITY;
    else if (i % 17 == 2)
      v[i] = i % 2 ? -0.0f : 0.0f;
  }
  return x;
}

/* x -> Pad | PadV2 -> MaxPool (VALID) in a new graph; *pad receives the
 * Pad's output. */
static tfs_output pad_pool_graph(tfs_graph *g, const pad_case *pc,
                                 tfs_output *x, tfs_output *pad,
                                 tfs_status *st) {
  const int64_t xd[4] = {pc->n, pc->h, pc->w, pc->c}, pd_dims[2] = {4, 2};
  *x = tfs_op_placeholder(g, "x", TFS_FLOAT, xd, 4, st);
  tfs_tensor *pd = nt_tensor(TFS_INT64, pd_dims, 2, NULL);
  int64_t *p = tfs_tensor_data(pd);
  memset(p, 0, 8 * sizeof(int64_t));
  for (int i = 0; i < 4; i++) p[2 + i] = pc->pads[i];
  tfs_op_desc *d = tfs_op_desc_new(g, pc->v2 ? "PadV2" : "Pad", "pad");
  tfs_op_desc_add_input(d, *x);
  tfs_op_desc_add_input(d, tfs_op_const(g, "paddings", pd, st));
  if (pc->v2)
    tfs_op_desc_add_input(d, tfs_op_const_float(g, "value", pc->value, st));
  *pad = (tfs_output){tfs_op_desc_finish(d, st), 0};
  tfs_tensor_free(pd);
  nt_attr a[3] = {NT_LIST4("ksize", 1, pc->k, pc->k, 1),
                  NT_LIST4("strides", 1, pc->s, pc->s, 1),
                  NT_STR("padding", "VALID")};
  const tfs_output none = {NULL, 0};
  return nt_node(g, "MaxPool", "pool", *pad, none, a, 3, st);
}

/* The pool folded (the Pad gone from the plan) against the two ops apart
 * (the Pad fetched): the same bytes. */
static void check_case(const pad_case *pc, int threads, uint32_t seed) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x, pad;
  tfs_output y = pad_pool_graph(g, pc, &x, &pad, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *xv = input(pc, seed);
  int pads_fused = -1, pads_apart = -1;
  tfs_tensor *fused = nt_run_plan(g, x, xv, &y, 1, threads, "Pad",
                                  &pads_fused, st);
  const tfs_output both[2] = {y, pad};
  tfs_tensor *apart = nt_run_plan(g, x, xv, both, 2, threads,
                                  pc->v2 ? "PadV2" : "Pad", &pads_apart, st);
  CU_ASSERT_EQUAL(pads_fused, 0);
  CU_ASSERT_EQUAL(pads_apart, 1);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_byte_size(fused),
                        tfs_tensor_byte_size(apart));
  int same = memcmp(tfs_tensor_data(fused), tfs_tensor_data(apart),
                    tfs_tensor_byte_size(fused)) == 0;
  if (!same) {
    const float *f = tfs_tensor_data(fused), *r = tfs_tensor_data(apart);
    for (int64_t i = 0; i < tfs_tensor_num_elements(fused); i++)
      if (memcmp(f + i, r + i, sizeof(float)) != 0) {
        fprintf(stderr,
                "\n  %lldx%lldx%lldx%lld k%lld s%lld fill %d: element "
                "%lld %g vs %g",
                (long long)pc->n, (long long)pc->h, (long long)pc->w,
                (long long)pc->c, (long long)pc->k, (long long)pc->s,
                pc->fill, (long long)i, f[i], r[i]);
        break;
      }
  }
  CU_ASSERT_TRUE(same);
  tfs_tensor_free(fused);
  tfs_tensor_free(apart);
  tfs_tensor_free(xv);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const pad_case kCases[] = {
    /* ResNet's and DenseNet's pool: 3x3 / 2 over a 1-pixel zero border */
    {1, 12, 12, 64, {1, 1, 1, 1}, 3, 2, 0, 0.0f, 0},
    {2, 9, 11, 19, {1, 1, 1, 1}, 3, 2, 0, 0.0f, 0},
    {1, 7, 7, 13, {1, 1, 1, 1}, 3, 2, 0, 0.0f, 1},
    {1, 8, 6, 24, {1, 1, 1, 1}, 3, 2, 0, 0.0f, 2},
    /* asymmetric sides, strides 1 and 3, channels around the vectors */
    {1, 6, 9, 8, {0, 2, 1, 0}, 3, 1, 0, 0.0f, 0},
    {2, 10, 10, 5, {2, 1, 0, 2}, 3, 3, 0, 0.0f, 1},
    {1, 5, 8, 17, {1, 0, 0, 1}, 2, 2, 0, 0.0f, 2},
    /* PadV2 values: negative, -0.0 against +0 inputs, above the data */
    {1, 9, 9, 16, {1, 1, 1, 1}, 3, 2, 1, -0.5f, 2},
    {1, 6, 6, 9, {1, 2, 2, 1}, 3, 2, 1, -0.0f, 0},
    {1, 6, 7, 33, {2, 2, 2, 2}, 5, 2, 1, 4.0f, 0},
    /* a 9x9 window (81 positions, past the AVX2 loop's list) */
    {1, 12, 12, 10, {4, 4, 4, 4}, 9, 4, 0, 0.0f, 0},
};

/* Every case on the AVX2 loop and on the portable one (the CPU capped
 * below AVX2), one and two threads. */
static void test_pad_value_bits(void) {
  static const int caps[] = {TFS_CPU_ISA_AVX2, TFS_CPU_ISA_SSE42};
  static const char *const names[] = {"avx2", "scalar"};
  for (int p = 0; p < 2; p++) {
    const char *why = tu_isa_unavailable(caps[p]);
    tu_cpu_path("maxpool-pad-value", names[p], why);
    if (why) continue;
    tfs_cpu__set_max_isa(caps[p]);
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++)
      for (int t = 1; t <= 2; t++) check_case(&kCases[i], t, 7 + (uint32_t)i);
    tfs_cpu__set_max_isa(-1);
  }
}

/* A 2x2 / 2 MaxPool of x padded by (top, bottom, left, right) with the
 * padding read as 0. */
static tfs_tensor *pool_2x2(tfs_tensor *x, int64_t t, int64_t b, int64_t l,
                            int64_t r) {
  nt_attr a[5] = {NT_LIST4("ksize", 1, 2, 2, 1),
                  NT_LIST4("strides", 1, 2, 2, 1),
                  NT_STR("padding", "EXPLICIT"),
                  {"explicit_paddings", 'l', 8, {0, 0, t, b, l, r, 0, 0}, NULL,
                   0},
                  NT_FLOAT("_tfs_pad_value", 0.0)};
  return nt_run1("MaxPool", &x, 1, a, 5);
}

/* The values themselves on a small case, against numbers written out: a
 * 3x3 image of -0.0 except its centre 2 and one -5, padded by one with
 * 0, 2x2 / 2: a window keeps the padding's +0 where the padding comes
 * first and the image's -0.0 where the image does. */
static void test_pad_value_values(void) {
  float v[9] = {-0.0f, -0.0f, -0.0f, -0.0f, 2.0f, -0.0f, -0.0f, -0.0f, -5.0f};
  tfs_tensor *x = nt_f32((int64_t[]){1, 3, 3, 1}, 4, v);
  tfs_tensor *y = pool_2x2(x, 1, 0, 1, 0);
  /* windows: rows {-1, 0} x cols {-1, 0}: pad, pad, pad, -0 -> +0;
   * rows {-1, 0} x cols {1, 2}: pad, pad, -0, -0 -> +0;
   * rows {1, 2} x cols {-1, 0}: pad, -0, pad, -0 -> +0;
   * rows {1, 2} x cols {1, 2}: 2, -0, -0, -5 -> 2 */
  nt_check_f32(y, (int64_t[]){1, 2, 2, 1}, 4, (float[]){0, 0, 0, 2}, 0, 0);
  const float *o = tfs_tensor_data(y);
  CU_ASSERT(!signbit(o[0]) && !signbit(o[1]) && !signbit(o[2]));
  tfs_tensor_free(y);
  /* no padding before: the image's -0.0 comes first and stays */
  y = pool_2x2(x, 0, 1, 0, 1);
  /* rows {0, 1} x cols {0, 1}: -0, -0, -0, 2 -> 2; rows {0, 1} x cols
   * {2, 3}: -0, pad, -0, pad -> -0; rows {2, 3} x cols {0, 1}: -0, -0,
   * pad, pad -> -0; rows {2, 3} x cols {2, 3}: -5, pad, pad, pad -> 0 */
  nt_check_f32(y, (int64_t[]){1, 2, 2, 1}, 4, (float[]){2, 0, 0, 0}, 0, 0);
  o = tfs_tensor_data(y);
  CU_ASSERT(signbit(o[1]) && signbit(o[2]) && !signbit(o[3]));
  tfs_tensor_free(y);
  tfs_tensor_free(x);
}

/* _tfs_pad_value only on a float pool over height and width with
 * EXPLICIT padding. */
static void test_pad_value_errors(void) {
  static const char kMsg[] =
      "_tfs_pad_value needs a float MaxPool over height and width with "
      "EXPLICIT padding and a float value";
  tfs_tensor *x = nt_random((int64_t[]){1, 4, 4, 2}, 4, 3);
  nt_attr valid[4] = {NT_LIST4("ksize", 1, 2, 2, 1),
                      NT_LIST4("strides", 1, 2, 2, 1),
                      NT_STR("padding", "VALID"),
                      NT_FLOAT("_tfs_pad_value", 0.0)};
  NT_EXPECT_ERROR("MaxPool", &x, 1, valid, 4, TFS_INVALID_ARGUMENT, kMsg);
  nt_attr avg[5] = {NT_LIST4("ksize", 1, 2, 2, 1),
                    NT_LIST4("strides", 1, 2, 2, 1),
                    NT_STR("padding", "EXPLICIT"),
                    {"explicit_paddings", 'l', 8, {0, 0, 1, 0, 1, 0, 0, 0},
                     NULL, 0},
                    NT_FLOAT("_tfs_pad_value", 0.0)};
  NT_EXPECT_ERROR("AvgPool", &x, 1, avg, 5, TFS_INVALID_ARGUMENT,
                  "padding");
  nt_attr notfloat[5] = {NT_LIST4("ksize", 1, 2, 2, 1),
                         NT_LIST4("strides", 1, 2, 2, 1),
                         NT_STR("padding", "EXPLICIT"),
                         {"explicit_paddings", 'l', 8,
                          {0, 0, 1, 0, 1, 0, 0, 0}, NULL, 0},
                         NT_INT("_tfs_pad_value", 0)};
  NT_EXPECT_ERROR("MaxPool", &x, 1, notfloat, 5, TFS_INVALID_ARGUMENT, kMsg);
  tfs_tensor_free(x);
  int32_t iv[16] = {0};
  x = nt_tensor(TFS_INT32, (int64_t[]){1, 4, 4, 1}, 4, iv);
  NT_EXPECT_ERROR("MaxPool", &x, 1, avg, 5, TFS_INVALID_ARGUMENT, kMsg);
  tfs_tensor_free(x);
}

static const tfs_test_case kCasesPool[] = {
    {"pad_value_bits", test_pad_value_bits},
    {"pad_value_values", test_pad_value_values},
    {"pad_value_errors", test_pad_value_errors},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"pool_pad", kCasesPool},
    {NULL, NULL},
};

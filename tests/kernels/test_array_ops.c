/*
 * tests/kernels/test_array_ops.c - the array ops' results: identities and
 * views, shape queries, joining and splitting, slicing (every StridedSlice
 * mask), padding, tiling, gathering and scattering, rearranging, resizing,
 * Einsum, over several dtypes (strings included) and empty tensors.  The
 * rejections are in test_array_errors.c.
 */
#include <stdlib.h>

#include "arraytest.h"

#define X23 at_f32(2, D(2, 3), F32(0, 1, 2, 3, 4, 5))

/* ---- identities, views, shape queries ------------------------------------ */

static void test_identity_n_and_friends(void) {
  at_call c = {"IdentityN", NULL, 0, 2, NULL};
  tfs_tensor *in[2] = {X23, at_si32(7)}, *out[2];
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 2), TFS_OK);
  at_check(out[0], TFS_FLOAT, 2, D(2, 3), F32(0, 1, 2, 3, 4, 5));
  at_check(out[1], TFS_INT32, 0, NULL, I32(7));
  at_free(in, 2);
  static const char *const ops[] = {"Snapshot", "StopGradient",
                                    "PreventGradient"};
  for (int i = 0; i < 3; i++) {
    at_call s = {ops[i], NULL, 0, 0, NULL};
    at_check(at_eval(&s, (tfs_tensor *[]){X23}, 1), TFS_FLOAT, 2, D(2, 3),
             F32(0, 1, 2, 3, 4, 5));
  }
  at_call s = {"Snapshot", NULL, 0, 0, NULL};
  const char *strs[] = {"a", "a string longer than twenty-two bytes"};
  at_check_strs(at_eval(&s, (tfs_tensor *[]){at_strs(1, D(2), strs)}, 1), 1,
                D(2), strs);
}

static void test_squeeze_expand_dims(void) {
  at_attr all[] = {{NULL}};
  at_attr one[] = {AT_LIST("squeeze_dims", 1, -1), {NULL}};
  at_call c = {"Squeeze", all, 0, 0, NULL};
  tfs_tensor *x = at_f32(4, D(1, 2, 1, 1), F32(1, 2));
  at_check(at_eval(&c, (tfs_tensor *[]){x}, 1), TFS_FLOAT, 1, D(2), F32(1, 2));
  c.attrs = one;
  x = at_f32(4, D(1, 2, 1, 1), F32(1, 2));
  at_check(at_eval(&c, (tfs_tensor *[]){x}, 1), TFS_FLOAT, 3, D(1, 2, 1),
           F32(1, 2));
  at_call e = {"ExpandDims", NULL, 0, 0, NULL};
  at_check(at_eval(&e, (tfs_tensor *[]){X23, at_si32(-1)}, 2), TFS_FLOAT, 3,
           D(2, 3, 1), F32(0, 1, 2, 3, 4, 5));
  at_check(at_eval(&e, (tfs_tensor *[]){X23, at_si32(0)}, 2), TFS_FLOAT, 3,
           D(1, 2, 3), F32(0, 1, 2, 3, 4, 5));
  at_check(at_eval(&e, (tfs_tensor *[]){at_sf32(5), at_i64(1, D(1), I64(0))},
                   2),
           TFS_FLOAT, 1, D(1), F32(5));
}

static void test_shape_size_rank(void) {
  at_call c = {"ShapeN", NULL, 0, 2, NULL};
  tfs_tensor *in[2] = {X23, at_sf32(1)}, *out[2];
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 2), TFS_OK);
  at_check(out[0], TFS_INT32, 1, D(2), I32(2, 3));
  at_check(out[1], TFS_INT32, 1, D(0), NULL);
  at_free(in, 2);
  at_attr i64[] = {AT_TYPE("out_type", TFS_INT64), {NULL}};
  at_call s = {"Size", i64, 0, 0, NULL};
  at_check(at_eval(&s, (tfs_tensor *[]){X23}, 1), TFS_INT64, 0, NULL,
           I64(6));
  at_call r = {"Rank", NULL, 0, 0, NULL};
  at_check(at_eval(&r, (tfs_tensor *[]){X23}, 1), TFS_INT32, 0, NULL, I32(2));
}

static void test_ones_like(void) {
  at_call c = {"OnesLike", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){X23}, 1), TFS_FLOAT, 2, D(2, 3),
           F32(1, 1, 1, 1, 1, 1));
  uint16_t h[2] = {0, 0};
  at_check(at_eval(&c, (tfs_tensor *[]){at_t(TFS_HALF, 1, D(2), h)}, 1),
           TFS_HALF, 1, D(2), ((const uint16_t[]){0x3c00, 0x3c00}));
  at_check(at_eval(&c, (tfs_tensor *[]){at_i64(1, D(2), I64(5, 6))}, 1),
           TFS_INT64, 1, D(2), I64(1, 1));
  uint8_t b[1] = {0};
  at_check(at_eval(&c, (tfs_tensor *[]){at_t(TFS_BOOL, 1, D(1), b)}, 1),
           TFS_BOOL, 1, D(1), ((const uint8_t[]){1}));
}

static void test_range(void) {
  at_call c = {"Range", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){at_si32(3), at_si32(18), at_si32(4)},
                   3),
           TFS_INT32, 1, D(4), I32(3, 7, 11, 15));
  at_check(at_eval(&c, (tfs_tensor *[]){at_si32(5), at_si32(0), at_si32(-2)},
                   3),
           TFS_INT32, 1, D(3), I32(5, 3, 1));
  at_check(at_eval(&c, (tfs_tensor *[]){at_sf32(0), at_sf32(1), at_sf32(0.25f)},
                   3),
           TFS_FLOAT, 1, D(4), F32(0, 0.25f, 0.5f, 0.75f));
  at_check(at_eval(&c, (tfs_tensor *[]){at_si32(2), at_si32(2), at_si32(1)},
                   3),
           TFS_INT32, 1, D(0), NULL);
}

static void test_invert_permutation_where(void) {
  at_call c = {"InvertPermutation", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){at_i32(1, D(4), I32(2, 0, 3, 1))}, 1),
           TFS_INT32, 1, D(4), I32(1, 3, 0, 2));
  at_call w = {"Where", NULL, 0, 0, NULL};
  tfs_tensor *x = at_f32(2, D(2, 2), F32(0, -0.0f, 3, 0.5f));
  at_check(at_eval(&w, (tfs_tensor *[]){x}, 1), TFS_INT64, 2, D(2, 2),
           I64(1, 0, 1, 1));
  uint8_t none[3] = {0, 0, 0};
  at_check(at_eval(&w, (tfs_tensor *[]){at_t(TFS_BOOL, 1, D(3), none)}, 1),
           TFS_INT64, 2, D(0, 1), NULL);
}

/* ---- Transpose, ReverseV2, Tile, BroadcastTo ----------------------------- */

static void test_transpose(void) {
  at_call c = {"Transpose", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i32(1, D(2), I32(1, 0))}, 2),
           TFS_FLOAT, 2, D(3, 2), F32(0, 3, 1, 4, 2, 5));
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i64(1, D(2), I64(-1, 0))}, 2),
           TFS_FLOAT, 2, D(3, 2), F32(0, 3, 1, 4, 2, 5));
  int32_t v[24];
  for (int i = 0; i < 24; i++) v[i] = i;
  /* [2,3,4] -> perm [2,0,1] -> [4,2,3] */
  tfs_tensor *x = at_i32(3, D(2, 3, 4), v);
  tfs_tensor *y =
      at_eval(&c, (tfs_tensor *[]){x, at_i32(1, D(3), I32(2, 0, 1))}, 2);
  const int32_t *o = tfs_tensor_data(y);
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 2; b++)
      for (int d = 0; d < 3; d++)
        CU_ASSERT_EQUAL(o[(a * 2 + b) * 3 + d], (b * 3 + d) * 4 + a);
  at_check(y, TFS_INT32, 3, D(4, 2, 3), tfs_tensor_data(y));
  const char *s[] = {"a", "bb", "a long string that is not inline!", "d"};
  const char *st[] = {"a", "a long string that is not inline!", "bb", "d"};
  at_check_strs(at_eval(&c, (tfs_tensor *[]){at_strs(2, D(2, 2), s),
                                             at_i32(1, D(2), I32(1, 0))},
                        2),
                2, D(2, 2), st);
  /* only size-1 dims move: a view */
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(3, D(1, 2, 1), F32(1, 2)),
                                        at_i32(1, D(3), I32(2, 1, 0))},
                   2),
           TFS_FLOAT, 3, D(1, 2, 1), F32(1, 2));
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(2, D(0, 3), NULL),
                                        at_i32(1, D(2), I32(1, 0))},
                   2),
           TFS_FLOAT, 2, D(3, 0), NULL);
}

static void test_reverse(void) {
  at_call c = {"ReverseV2", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i32(1, D(1), I32(1))}, 2),
           TFS_FLOAT, 2, D(2, 3), F32(2, 1, 0, 5, 4, 3));
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i32(1, D(2), I32(0, -1))}, 2),
           TFS_FLOAT, 2, D(2, 3), F32(5, 4, 3, 2, 1, 0));
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i32(1, D(0), NULL)}, 2),
           TFS_FLOAT, 2, D(2, 3), F32(0, 1, 2, 3, 4, 5));
}

static void test_tile_broadcast_to(void) {
  at_call c = {"Tile", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(2, D(1, 2), F32(1, 2)),
                                        at_i32(1, D(2), I32(2, 2))},
                   2),
           TFS_FLOAT, 2, D(2, 4), F32(1, 2, 1, 2, 1, 2, 1, 2));
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i64(1, D(2), I64(0, 2))}, 2),
           TFS_FLOAT, 2, D(0, 6), NULL);
  at_call b = {"BroadcastTo", NULL, 0, 0, NULL};
  at_check(at_eval(&b, (tfs_tensor *[]){at_f32(2, D(2, 1), F32(1, 2)),
                                        at_i32(1, D(3), I32(2, 2, 3))},
                   2),
           TFS_FLOAT, 3, D(2, 2, 3),
           F32(1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2));
  at_check(at_eval(&b, (tfs_tensor *[]){at_sf32(4), at_i32(1, D(1), I32(3))},
                   2),
           TFS_FLOAT, 1, D(3), F32(4, 4, 4));
}

/* ---- Concat, Pack, Unpack, Split ----------------------------------------- */

static void test_concat(void) {
  at_call c = {"ConcatV2", NULL, 0, 2, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_f32(2, D(2, 1), F32(9, 8)),
                                        at_si32(-1)},
                   3),
           TFS_FLOAT, 2, D(2, 4), F32(0, 1, 2, 9, 3, 4, 5, 8));
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_f32(2, D(0, 3), NULL),
                                        at_si32(0)},
                   3),
           TFS_FLOAT, 2, D(2, 3), F32(0, 1, 2, 3, 4, 5));
  at_call v1 = {"Concat", NULL, 1, 2, NULL};
  const char *a[] = {"x", "y"}, *b[] = {"a string that lives on the heap"};
  const char *ab[] = {"x", "y", "a string that lives on the heap"};
  at_check_strs(at_eval(&v1, (tfs_tensor *[]){at_si32(0), at_strs(1, D(2), a),
                                              at_strs(1, D(1), b)},
                        3),
                1, D(3), ab);
}

static void test_pack_unpack(void) {
  at_attr ax1[] = {AT_INT("axis", 1), {NULL}};
  at_call p = {"Pack", ax1, 0, 2, NULL};
  at_check(at_eval(&p, (tfs_tensor *[]){at_f32(1, D(2), F32(1, 2)),
                                        at_f32(1, D(2), F32(3, 4))},
                   2),
           TFS_FLOAT, 2, D(2, 2), F32(1, 3, 2, 4));
  at_attr un[] = {AT_INT("num", 3), AT_INT("axis", -1), {NULL}};
  at_call u = {"Unpack", un, 0, 0, NULL};
  tfs_tensor *in[1] = {X23}, *out[3];
  CU_ASSERT_EQUAL(at_run(&u, in, 1, out, 3), TFS_OK);
  at_check(out[0], TFS_FLOAT, 1, D(2), F32(0, 3));
  at_check(out[1], TFS_FLOAT, 1, D(2), F32(1, 4));
  at_check(out[2], TFS_FLOAT, 1, D(2), F32(2, 5));
  at_free(in, 1);
  at_attr un0[] = {AT_INT("num", 2), {NULL}};
  u.attrs = un0;
  in[0] = X23;
  CU_ASSERT_EQUAL(at_run(&u, in, 1, out, 2), TFS_OK);
  at_check(out[0], TFS_FLOAT, 1, D(3), F32(0, 1, 2));
  at_check(out[1], TFS_FLOAT, 1, D(3), F32(3, 4, 5));
  at_free(in, 1);
}

static void test_split(void) {
  at_attr n3[] = {AT_INT("num_split", 3), {NULL}};
  at_call s = {"Split", n3, 0, 0, NULL};
  tfs_tensor *in[3] = {at_si32(1), X23}, *out[3];
  CU_ASSERT_EQUAL(at_run(&s, in, 2, out, 3), TFS_OK);
  at_check(out[0], TFS_FLOAT, 2, D(2, 1), F32(0, 3));
  at_check(out[2], TFS_FLOAT, 2, D(2, 1), F32(2, 5));
  tfs_tensor_free(out[1]);
  at_free(in, 2);
  at_attr n2[] = {AT_INT("num_split", 2), {NULL}};
  at_call v = {"SplitV", n2, 0, 0, NULL};
  in[0] = X23;
  in[1] = at_i32(1, D(2), I32(-1, 2));
  in[2] = at_si32(-1);
  CU_ASSERT_EQUAL(at_run(&v, in, 3, out, 2), TFS_OK);
  at_check(out[0], TFS_FLOAT, 2, D(2, 1), F32(0, 3));
  at_check(out[1], TFS_FLOAT, 2, D(2, 2), F32(1, 2, 4, 5));
  at_free(in, 3);
  in[0] = X23; /* along axis 0: views */
  in[1] = at_i64(1, D(2), I64(0, 2));
  in[2] = at_si32(0);
  CU_ASSERT_EQUAL(at_run(&v, in, 3, out, 2), TFS_OK);
  at_check(out[0], TFS_FLOAT, 2, D(0, 3), NULL);
  at_check(out[1], TFS_FLOAT, 2, D(2, 3), F32(0, 1, 2, 3, 4, 5));
  at_free(in, 3);
}

/* ---- Slice, StridedSlice, Pad, MirrorPad --------------------------------- */

static void test_slice(void) {
  at_call c = {"Slice", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i32(1, D(2), I32(0, 1)),
                                        at_i32(1, D(2), I32(-1, 2))},
                   3),
           TFS_FLOAT, 2, D(2, 2), F32(1, 2, 4, 5));
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i64(1, D(2), I64(1, 0)),
                                        at_i64(1, D(2), I64(1, -1))},
                   3),
           TFS_FLOAT, 2, D(1, 3), F32(3, 4, 5));
}

static tfs_tensor *ss(const at_attr *attrs, tfs_tensor *x, const int32_t *b,
                      const int32_t *e, const int32_t *s, int n) {
  at_call c = {"StridedSlice", attrs, 0, 0, NULL};
  return at_eval(&c, (tfs_tensor *[]){x, at_i32(1, D(n), b), at_i32(1, D(n), e),
                                      at_i32(1, D(n), s)},
                 4);
}

static void test_strided_slice_masks(void) {
  at_attr none[] = {{NULL}};
  /* x[:, ::-2] */
  at_attr bm[] = {AT_INT("begin_mask", 3), AT_INT("end_mask", 3), {NULL}};
  at_check(ss(bm, X23, I32(0, 0), I32(0, 0), I32(1, -2), 2), TFS_FLOAT, 2,
           D(2, 2), F32(2, 0, 5, 3));
  /* x[1, -2:] (shrink axis 0) */
  at_attr sh[] = {AT_INT("shrink_axis_mask", 1), {NULL}};
  at_check(ss(sh, X23, I32(1, -2), I32(2, 3), I32(1, 1), 2), TFS_FLOAT, 1,
           D(2), F32(4, 5));
  /* x[-1] */
  at_check(ss(sh, X23, I32(-1), I32(0), I32(1), 1), TFS_FLOAT, 1, D(3),
           F32(3, 4, 5));
  /* x[..., 1] */
  at_attr el[] = {AT_INT("ellipsis_mask", 1), AT_INT("shrink_axis_mask", 2),
                  {NULL}};
  at_check(ss(el, X23, I32(0, 1), I32(0, 2), I32(1, 1), 2), TFS_FLOAT, 1,
           D(2), F32(1, 4));
  /* x[:, tf.newaxis, 1:] */
  at_attr na[] = {AT_INT("begin_mask", 1), AT_INT("end_mask", 1),
                  AT_INT("new_axis_mask", 2), {NULL}};
  at_check(ss(na, X23, I32(0, 0, 1), I32(0, 0, 3), I32(1, 1, 1), 3),
           TFS_FLOAT, 3, D(2, 1, 2), F32(1, 2, 4, 5));
  /* out-of-range bounds clamp; reversed empty range */
  at_check(ss(none, X23, I32(-10, 1), I32(10, 0), I32(1, 1), 2), TFS_FLOAT, 2,
           D(2, 0), NULL);
  at_check(ss(none, X23, I32(5, -100), I32(-10, 100), I32(-1, 1), 2),
           TFS_FLOAT, 2, D(2, 3), F32(3, 4, 5, 0, 1, 2));
  /* identity: a view */
  at_check(ss(none, X23, I32(0), I32(2), I32(1), 1), TFS_FLOAT, 2, D(2, 3),
           F32(0, 1, 2, 3, 4, 5));
}

/* Pad and PadV2 against a reference built here: rank 4 with padding on
 * every dimension (none on some), int32 with a constant, float with
 * zeros, an empty dimension, a last dimension padded alone, and padding
 * on only the first or the second dimension or on none (the dimensions
 * after the last padded one are copied as one row). */
static void pad_case(tfs_dtype dt, const int64_t *dims, const int64_t *pads,
                     int32_t value) {
  int64_t odims[4], n = 1, on = 1;
  for (int i = 0; i < 4; i++) {
    odims[i] = dims[i] + pads[2 * i] + pads[2 * i + 1];
    n *= dims[i];
    on *= odims[i];
  }
  int32_t *in = malloc(sizeof(int32_t) * (size_t)(n + 1));
  int32_t *want = malloc(sizeof(int32_t) * (size_t)(on + 1));
  for (int64_t i = 0; i < n; i++) in[i] = (int32_t)(i * 7 % 101 + 1);
  for (int64_t o = 0; o < on; o++) {
    int64_t rem = o, src = 0, mul = 1, inside = 1;
    for (int i = 3; i >= 0; i--) {
      int64_t q = rem % odims[i] - pads[2 * i];
      rem /= odims[i];
      if (q < 0 || q >= dims[i]) inside = 0;
      src += q * mul;
      mul *= dims[i];
    }
    want[o] = inside ? in[src] : value;
  }
  tfs_tensor *x;
  if (dt == TFS_FLOAT) {
    float *f = malloc(sizeof(float) * (size_t)(n + 1));
    float *fw = malloc(sizeof(float) * (size_t)(on + 1));
    for (int64_t i = 0; i < n; i++) f[i] = (float)in[i];
    for (int64_t i = 0; i < on; i++) fw[i] = (float)want[i];
    x = at_f32(4, dims, f);
    at_call c = {"Pad", NULL, 0, 0, NULL};
    at_check(at_eval(&c, (tfs_tensor *[]){x, at_i64(2, D(4, 2), pads)}, 2),
             TFS_FLOAT, 4, odims, fw);
    free(f);
    free(fw);
  } else {
    x = at_i32(4, dims, in);
    at_call v2 = {"PadV2", NULL, 0, 0, NULL};
    at_check(at_eval(&v2, (tfs_tensor *[]){x, at_i64(2, D(4, 2), pads),
                                           at_si32(value)},
                     3),
             TFS_INT32, 4, odims, want);
  }
  free(in);
  free(want);
}

static void test_pad_rank4(void) {
  pad_case(TFS_FLOAT, D(1, 5, 6, 3), I64(0, 0, 1, 2, 3, 1, 0, 0), 0);
  pad_case(TFS_INT32, D(2, 3, 4, 5), I64(1, 0, 0, 2, 2, 1, 3, 4), -9);
  pad_case(TFS_INT32, D(2, 0, 4, 5), I64(0, 1, 1, 1, 0, 0, 2, 0), 5);
  pad_case(TFS_FLOAT, D(3, 2, 2, 7), I64(0, 0, 0, 0, 0, 0, 5, 3), 0);
  pad_case(TFS_FLOAT, D(1, 40, 40, 16), I64(0, 0, 1, 1, 1, 1, 0, 0), 0);
  pad_case(TFS_INT32, D(2, 3, 4, 5), I64(0, 0, 0, 0, 0, 0, 0, 0), 7);
  pad_case(TFS_FLOAT, D(2, 3, 4, 5), I64(1, 2, 0, 0, 0, 0, 0, 0), 0);
  pad_case(TFS_INT32, D(3, 4, 2, 3), I64(0, 0, 2, 1, 0, 0, 0, 0), -4);
  pad_case(TFS_FLOAT, D(1, 11, 11, 6), I64(0, 0, 0, 1, 0, 1, 0, 0), 0);
}

static void test_pad(void) {
  at_call c = {"Pad", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(1, D(2), F32(1, 2)),
                                        at_i32(2, D(1, 2), I32(1, 2))},
                   2),
           TFS_FLOAT, 1, D(5), F32(0, 1, 2, 0, 0));
  at_call v2 = {"PadV2", NULL, 0, 0, NULL};
  at_check(at_eval(&v2,
                   (tfs_tensor *[]){X23, at_i64(2, D(2, 2), I64(0, 1, 1, 0)),
                                    at_sf32(-1)},
                   3),
           TFS_FLOAT, 2, D(3, 4),
           F32(-1, 0, 1, 2, -1, 3, 4, 5, -1, -1, -1, -1));
  const char *s[] = {"a"}, *sp[] = {"pad", "a", "pad"};
  at_check_strs(at_eval(&v2, (tfs_tensor *[]){at_strs(1, D(1), s),
                                              at_i32(2, D(1, 2), I32(1, 1)),
                                              tfs_tensor_scalar_string("pad",
                                                                       3)},
                        3),
                1, D(3), sp);
  at_attr refl[] = {AT_STR("mode", "REFLECT"), {NULL}};
  at_attr sym[] = {AT_STR("mode", "SYMMETRIC"), {NULL}};
  at_call m = {"MirrorPad", refl, 0, 0, NULL};
  at_check(at_eval(&m, (tfs_tensor *[]){at_f32(1, D(3), F32(1, 2, 3)),
                                        at_i32(2, D(1, 2), I32(2, 2))},
                   2),
           TFS_FLOAT, 1, D(7), F32(3, 2, 1, 2, 3, 2, 1));
  m.attrs = sym;
  at_check(
      at_eval(&m, (tfs_tensor *[]){X23, at_i32(2, D(2, 2), I32(1, 0, 0, 2))},
              2),
      TFS_FLOAT, 2, D(3, 5), F32(0, 1, 2, 2, 1, 0, 1, 2, 2, 1, 3, 4, 5, 5, 4));
}

/* ---- Gather, GatherNd, ScatterNd, OneHot --------------------------------- */

static void test_gather(void) {
  at_call c = {"GatherV2", NULL, 0, 0, NULL};
  at_check(at_eval(&c,
                   (tfs_tensor *[]){X23, at_i32(2, D(2, 2), I32(2, 0, 1, 1)),
                                    at_si32(1)},
                   3),
           TFS_FLOAT, 3, D(2, 2, 2), F32(2, 0, 1, 1, 5, 3, 4, 4));
  at_attr bd[] = {AT_INT("batch_dims", 1), {NULL}};
  c.attrs = bd;
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_i64(2, D(2, 1), I64(2, 0)),
                                        at_si32(1)},
                   3),
           TFS_FLOAT, 2, D(2, 1), F32(2, 3));
  at_call nd = {"GatherNd", NULL, 0, 0, NULL};
  at_check(at_eval(&nd,
                   (tfs_tensor *[]){X23, at_i32(2, D(2, 2), I32(1, 2, 0, 0))},
                   2),
           TFS_FLOAT, 1, D(2), F32(5, 0));
  at_check(at_eval(&nd, (tfs_tensor *[]){X23, at_i32(2, D(1, 1), I32(1))}, 2),
           TFS_FLOAT, 2, D(1, 3), F32(3, 4, 5));
  at_attr ign[] = {AT_STR("bad_indices_policy", "IGNORE"), {NULL}};
  nd.attrs = ign;
  at_check(at_eval(&nd, (tfs_tensor *[]){X23, at_i32(2, D(2, 1), I32(7, 0))},
                   2),
           TFS_FLOAT, 2, D(2, 3), F32(0, 0, 0, 0, 1, 2));
}

static void test_scatter_nd_one_hot(void) {
  at_call c = {"ScatterNd", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){at_i32(2, D(3, 1), I32(1, 3, 1)),
                                        at_f32(1, D(3), F32(1, 2, 4)),
                                        at_i32(1, D(1), I32(4))},
                   3),
           TFS_FLOAT, 1, D(4), F32(0, 5, 0, 2));
  const char *s[] = {"a", "b"}, *w[] = {"", "ab", ""};
  at_check_strs(at_eval(&c, (tfs_tensor *[]){at_i32(2, D(2, 1), I32(1, 1)),
                                             at_strs(1, D(2), s),
                                             at_i32(1, D(1), I32(3))},
                        3),
                1, D(3), w);
  at_call o = {"OneHot", NULL, 0, 0, NULL};
  at_check(at_eval(&o, (tfs_tensor *[]){at_i32(1, D(3), I32(0, 2, -1)),
                                        at_si32(3), at_sf32(5), at_sf32(-1)},
                   4),
           TFS_FLOAT, 2, D(3, 3), F32(5, -1, -1, -1, -1, 5, -1, -1, -1));
  at_attr ax0[] = {AT_INT("axis", 0), {NULL}};
  o.attrs = ax0;
  at_check(at_eval(&o, (tfs_tensor *[]){at_i64(1, D(2), I64(1, 0)), at_si32(2),
                                        at_sf32(1), at_sf32(0)},
                   4),
           TFS_FLOAT, 2, D(2, 2), F32(0, 1, 1, 0));
}

/* ---- TopKV2, Cumsum, MatrixBandPart -------------------------------------- */

static void test_top_k(void) {
  at_call c = {"TopKV2", NULL, 0, 0, NULL};
  tfs_tensor *in[2] = {at_f32(2, D(2, 4), F32(1, 3, 3, 2, -1, -5, 0, 7)),
                       at_si32(2)},
             *out[2];
  CU_ASSERT_EQUAL(at_run(&c, in, 2, out, 2), TFS_OK);
  at_check(out[0], TFS_FLOAT, 2, D(2, 2), F32(3, 3, 7, 0));
  at_check(out[1], TFS_INT32, 2, D(2, 2), I32(1, 2, 3, 2));
  at_free(in, 2);
}

static void test_cumsum(void) {
  at_call c = {"Cumsum", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_si32(1)}, 2), TFS_FLOAT, 2,
           D(2, 3), F32(0, 1, 3, 3, 7, 12));
  at_attr er[] = {AT_BOOL("exclusive", 1), AT_BOOL("reverse", 1), {NULL}};
  c.attrs = er;
  at_check(at_eval(&c, (tfs_tensor *[]){X23, at_si32(0)}, 2), TFS_FLOAT, 2,
           D(2, 3), F32(3, 4, 5, 0, 0, 0));
}

static void test_band_part(void) {
  at_call c = {"MatrixBandPart", NULL, 0, 0, NULL};
  float v[10];
  for (int i = 0; i < 10; i++) v[i] = (float)(i + 1);
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(2, D(3, 3), v),
                                        tfs_tensor_scalar_int64(1),
                                        tfs_tensor_scalar_int64(0)},
                   3),
           TFS_FLOAT, 2, D(3, 3), F32(1, 0, 0, 4, 5, 0, 0, 8, 9));
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(2, D(3, 3), v),
                                        tfs_tensor_scalar_int64(-1),
                                        tfs_tensor_scalar_int64(0)},
                   3),
           TFS_FLOAT, 2, D(3, 3), F32(1, 0, 0, 4, 5, 0, 7, 8, 9));
  /* more rows than columns: rows below the band are all zero (a row's
   * band start used to run past its end) */
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(2, D(5, 2), v),
                                        tfs_tensor_scalar_int64(0),
                                        tfs_tensor_scalar_int64(-1)},
                   3),
           TFS_FLOAT, 2, D(5, 2), F32(1, 2, 0, 4, 0, 0, 0, 0, 0, 0));
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(2, D(5, 2), v),
                                        tfs_tensor_scalar_int64(1),
                                        tfs_tensor_scalar_int64(0)},
                   3),
           TFS_FLOAT, 2, D(5, 2), F32(1, 0, 3, 4, 0, 6, 0, 0, 0, 0));
}

/* ---- space, depth, batch ------------------------------------------------- */

static void test_depth_space(void) {
  at_attr b2[] = {AT_INT("block_size", 2), {NULL}};
  at_call d = {"DepthToSpace", b2, 0, 0, NULL};
  at_check(at_eval(&d, (tfs_tensor *[]){at_f32(4, D(1, 1, 1, 4),
                                               F32(1, 2, 3, 4))},
                   1),
           TFS_FLOAT, 4, D(1, 2, 2, 1), F32(1, 2, 3, 4));
  at_call s = {"SpaceToDepth", b2, 0, 0, NULL};
  at_check(at_eval(&s, (tfs_tensor *[]){at_f32(4, D(1, 2, 2, 1),
                                               F32(1, 2, 3, 4))},
                   1),
           TFS_FLOAT, 4, D(1, 1, 1, 4), F32(1, 2, 3, 4));
  at_attr nchw[] = {AT_INT("block_size", 2), AT_STR("data_format", "NCHW"),
                    {NULL}};
  s.attrs = nchw;
  at_check(at_eval(&s, (tfs_tensor *[]){at_f32(4, D(1, 1, 2, 2),
                                               F32(1, 2, 3, 4))},
                   1),
           TFS_FLOAT, 4, D(1, 4, 1, 1), F32(1, 2, 3, 4));
}

static void test_space_batch(void) {
  at_call c = {"SpaceToBatchND", NULL, 0, 0, "ukk"};
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(4, D(1, 2, 2, 1),
                                               F32(1, 2, 3, 4)),
                                        at_i32(1, D(2), I32(2, 2)),
                                        at_i32(2, D(2, 2), I32(0, 0, 0, 0))},
                   3),
           TFS_FLOAT, 4, D(4, 1, 1, 1), F32(1, 2, 3, 4));
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(3, D(1, 2, 1), F32(1, 2)),
                                        at_i32(1, D(1), I32(2)),
                                        at_i32(2, D(1, 2), I32(1, 1))},
                   3),
           TFS_FLOAT, 3, D(2, 2, 1), F32(0, 2, 1, 0));
  at_call b = {"BatchToSpaceND", NULL, 0, 0, "ukk"};
  at_check(at_eval(&b, (tfs_tensor *[]){at_f32(3, D(2, 2, 1), F32(0, 2, 1, 0)),
                                        at_i32(1, D(1), I32(2)),
                                        at_i32(2, D(1, 2), I32(1, 1))},
                   3),
           TFS_FLOAT, 3, D(1, 2, 1), F32(1, 2));
}

/* ---- resize -------------------------------------------------------------- */

static void test_resize(void) {
  at_call c = {"ResizeBilinear", NULL, 0, 0, NULL};
  at_check(at_eval(&c, (tfs_tensor *[]){at_f32(4, D(1, 1, 2, 1), F32(0, 4)),
                                        at_i32(1, D(2), I32(1, 4))},
                   2),
           TFS_FLOAT, 4, D(1, 1, 4, 1), F32(0, 2, 4, 4));
  at_attr ac[] = {AT_BOOL("align_corners", 1), {NULL}};
  c.attrs = ac;
  at_check(at_eval(&c, (tfs_tensor *[]){at_i32(4, D(1, 1, 2, 1), I32(0, 3)),
                                        at_i32(1, D(2), I32(1, 4))},
                   2),
           TFS_FLOAT, 4, D(1, 1, 4, 1), F32(0, 1, 2, 3));
  at_call n = {"ResizeNearestNeighbor", NULL, 0, 0, NULL};
  at_check(at_eval(&n, (tfs_tensor *[]){at_i32(4, D(1, 1, 2, 1), I32(5, 6)),
                                        at_i32(1, D(2), I32(1, 3))},
                   2),
           TFS_INT32, 4, D(1, 1, 3, 1), I32(5, 5, 6));
}

/* ---- Einsum -------------------------------------------------------------- */

static tfs_tensor *ein(const char *eq, tfs_tensor *a, tfs_tensor *b) {
  at_attr at[] = {AT_STR("equation", eq), {NULL}};
  at_call c = {"Einsum", at, 0, b ? 2 : 1, NULL};
  return at_eval(&c, (tfs_tensor *[]){a, b}, b ? 2 : 1);
}

static void test_einsum(void) {
  at_check(ein("ij,jk->ik", X23, at_f32(2, D(3, 1), F32(1, 1, 1))), TFS_FLOAT,
           2, D(2, 1), F32(3, 12));
  at_check(ein("ij->ji", X23, NULL), TFS_FLOAT, 2, D(3, 2),
           F32(0, 3, 1, 4, 2, 5));
  at_check(ein("ij->i", X23, NULL), TFS_FLOAT, 1, D(2), F32(3, 12));
  at_check(ein("ii->i", at_f32(2, D(2, 2), F32(1, 2, 3, 4)), NULL), TFS_FLOAT,
           1, D(2), F32(1, 4));
  at_check(ein("i->ii", at_f32(1, D(2), F32(1, 2)), NULL), TFS_FLOAT, 2,
           D(2, 2), F32(1, 0, 0, 2));
  /* bhqd,bhkd->bhqk with b=h=1 */
  at_check(ein("bhqd,bhkd->bhqk", at_f32(4, D(1, 1, 2, 2), F32(1, 0, 0, 1)),
               at_f32(4, D(1, 1, 3, 2), F32(1, 2, 3, 4, 5, 6))),
           TFS_FLOAT, 4, D(1, 1, 2, 3), F32(1, 3, 5, 2, 4, 6));
  /* broadcasting ellipsis and an int dtype */
  at_check(ein("...ij,...jk->...ik", at_i32(3, D(2, 1, 2), I32(1, 2, 3, 4)),
               at_i32(2, D(2, 1), I32(10, 1))),
           TFS_INT32, 3, D(2, 1, 1), I32(12, 34));
  /* empty contraction: zeros */
  at_check(ein("ij,ij->", at_f32(2, D(2, 0), NULL), at_f32(2, D(2, 0), NULL)),
           TFS_FLOAT, 0, NULL, F32(0));
}

/* ---- large inputs: work split over the intra-op pool -------------------- */

static tfs_tensor *iota_f32(int nd, const int64_t *dims) {
  tfs_tensor *t = at_f32(nd, dims, NULL);
  float *v = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    v[i] = (float)(i % 1000003);
  return t;
}

static void test_parallel_large(void) {
  at_call tr = {"Transpose", NULL, 0, 0, NULL};
  tfs_tensor *y = at_eval(&tr, (tfs_tensor *[]){iota_f32(2, D(1024, 768)),
                                                at_i32(1, D(2), I32(1, 0))},
                          2);
  const float *o = tfs_tensor_data(y);
  int bad = 0;
  for (int64_t i = 0; i < 768; i++)
    for (int64_t j = 0; j < 1024; j++)
      bad += o[i * 1024 + j] != (float)((j * 768 + i) % 1000003);
  CU_ASSERT_EQUAL(bad, 0);
  tfs_tensor_free(y);
  at_call cc = {"ConcatV2", NULL, 0, 2, NULL};
  y = at_eval(&cc, (tfs_tensor *[]){iota_f32(2, D(512, 1024)),
                                    iota_f32(2, D(512, 300)), at_si32(1)},
              3);
  o = tfs_tensor_data(y);
  bad = 0;
  for (int64_t i = 0; i < 512; i++) {
    bad += o[i * 1324 + 5] != (float)(i * 1024 + 5);
    bad += o[i * 1324 + 1024 + 7] != (float)(i * 300 + 7);
  }
  CU_ASSERT_EQUAL(bad, 0);
  tfs_tensor_free(y);
  at_call g = {"GatherV2", NULL, 0, 0, NULL};
  tfs_tensor *ix = at_i32(1, D(4096), NULL);
  int32_t *iv = tfs_tensor_data(ix);
  for (int i = 0; i < 4096; i++) iv[i] = (i * 7) % 4096;
  y = at_eval(&g, (tfs_tensor *[]){iota_f32(2, D(4096, 256)), ix, at_si32(0)},
              3);
  o = tfs_tensor_data(y);
  bad = 0;
  for (int64_t i = 0; i < 4096; i++)
    bad += o[i * 256 + 3] != (float)((((i * 7) % 4096) * 256 + 3) % 1000003);
  CU_ASSERT_EQUAL(bad, 0);
  tfs_tensor_free(y);
  at_call cs = {"Cumsum", NULL, 0, 0, NULL};
  tfs_tensor *ones = at_f32(2, D(256, 4096), NULL);
  float *ov = tfs_tensor_data(ones);
  for (int64_t i = 0; i < 256 * 4096; i++) ov[i] = 1;
  y = at_eval(&cs, (tfs_tensor *[]){ones, at_si32(0)}, 2);
  o = tfs_tensor_data(y);
  bad = 0;
  for (int64_t i = 0; i < 256; i++)
    bad += o[i * 4096 + (i * 13) % 4096] != (float)(i + 1);
  CU_ASSERT_EQUAL(bad, 0);
  tfs_tensor_free(y);
}

static const tfs_test_case kIdentity[] = {
    {"identity_n_and_friends", test_identity_n_and_friends},
    {"squeeze_expand_dims", test_squeeze_expand_dims},
    {"shape_size_rank", test_shape_size_rank},
    {"ones_like", test_ones_like},
    {"range", test_range},
    {"invert_permutation_where", test_invert_permutation_where},
    {NULL, NULL},
};

static const tfs_test_case kMove[] = {
    {"transpose", test_transpose},
    {"reverse", test_reverse},
    {"tile_broadcast_to", test_tile_broadcast_to},
    {"concat", test_concat},
    {"pack_unpack", test_pack_unpack},
    {"split", test_split},
    {"slice", test_slice},
    {"strided_slice_masks", test_strided_slice_masks},
    {"pad", test_pad},
    {"pad_rank4", test_pad_rank4},
    {NULL, NULL},
};

static const tfs_test_case kIndex[] = {
    {"gather", test_gather},
    {"scatter_nd_one_hot", test_scatter_nd_one_hot},
    {"top_k", test_top_k},
    {"cumsum", test_cumsum},
    {"band_part", test_band_part},
    {"depth_space", test_depth_space},
    {"space_batch", test_space_batch},
    {"resize", test_resize},
    {"einsum", test_einsum},
    {"parallel_large", test_parallel_large},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"array_identity", kIdentity},
    {"array_move", kMove},
    {"array_index", kIndex},
    {NULL, NULL},
};

/*
 * tests/kernels/test_tensor_array.c - TF1 TensorArrays (TensorArrayV3 and
 * the ops on its handle): TensorFlow's errors with their messages and the
 * node named, clear_after_read, dynamic_size growth, zeros for unwritten
 * elements of a known shape, gradient arrays adding up repeated writes,
 * concurrent writes from parallel kernels, and arrays that live for one
 * run only (the sanitizer build's LeakSanitizer checks that many runs
 * leave nothing behind).
 */
#include <stdarg.h>
#include <stdlib.h>

#include "testutil.h"

#ifndef TFS_TEST_SRCDIR
#define TFS_TEST_SRCDIR "."
#endif

#define BAD TFS_INVALID_ARGUMENT
#define OUT(op, i) ((tfs_output){(op), (i)})

static tfs_graph *g;
static tfs_status *st;

static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
  g = NULL;
  st = NULL;
}

/* A node of `type` named `name` on the n inputs that follow; attrs are
 * set by the caller, then fin(). */
static tfs_op_desc *desc(const char *type, const char *name, int n, ...) {
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) tfs_op_desc_add_input(d, va_arg(ap, tfs_output));
  va_end(ap);
  return d;
}

static tfs_operation *fin(tfs_op_desc *d) {
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return op;
}

static tfs_output placeholder(const char *name, tfs_dtype dt) {
  tfs_op_desc *d = desc("Placeholder", name, 0);
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  return OUT(fin(d), 0);
}

static tfs_output const_i32(const char *name, const int32_t *v, int n,
                            int rank) {
  int64_t dims[1] = {n};
  tfs_tensor *t = tfs_tensor_new_copy(TFS_INT32, dims, rank, v,
                                      sizeof(int32_t) * (size_t)n, st);
  TFS_ASSERT_OK(st);
  tfs_op_desc *d = desc("Const", name, 0);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_INT32);
  tfs_op_desc_set_attr_tensor(d, "value", t, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(t);
  return OUT(fin(d), 0);
}

static tfs_output scalar_i32(const char *name, int32_t v) {
  return const_i32(name, &v, 1, 0);
}

/* TensorArrayV3 "ta" of float (unless dt says otherwise); es_rank -1:
 * unknown element shape. */
static tfs_operation *new_ta(const char *name, tfs_output size, tfs_dtype dt,
                             int dynamic, int clear, const int64_t *es,
                             int es_rank) {
  tfs_op_desc *d = desc("TensorArrayV3", name, 1, size);
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  tfs_op_desc_set_attr_bool(d, "dynamic_size", (unsigned char)dynamic);
  tfs_op_desc_set_attr_bool(d, "clear_after_read", (unsigned char)clear);
  tfs_op_desc_set_attr_shape(d, "element_shape", es, es_rank);
  return fin(d);
}

static tfs_output write_ta(const char *name, tfs_operation *ta,
                           tfs_output index, tfs_output value,
                           tfs_output flow) {
  return OUT(fin(desc("TensorArrayWriteV3", name, 4, OUT(ta, 0), index,
                      value, flow)), 0);
}

static tfs_output read_ta(const char *name, tfs_operation *ta,
                          tfs_output index, tfs_output flow, tfs_dtype dt) {
  tfs_op_desc *d = desc("TensorArrayReadV3", name, 3, OUT(ta, 0), index,
                        flow);
  tfs_op_desc_set_attr_type(d, "dtype", dt);
  return OUT(fin(d), 0);
}

static tfs_output gather_ta(const char *name, tfs_operation *ta,
                            tfs_output indices, tfs_output flow) {
  tfs_op_desc *d = desc("TensorArrayGatherV3", name, 3, OUT(ta, 0), indices,
                        flow);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  return OUT(fin(d), 0);
}

static tfs_output size_ta(const char *name, tfs_operation *ta,
                          tfs_output flow) {
  return OUT(fin(desc("TensorArraySizeV3", name, 2, OUT(ta, 0), flow)), 0);
}

static tfs_session *session(int inter_threads) {
  tfs_session_options *o = tfs_session_options_new();
  if (inter_threads) tfs_session_options_set_inter_op_threads(o,
                                                              inter_threads);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  return s;
}

/* Runs `fetch` feeding x (a float placeholder, may be {NULL}) and expects
 * `code` with a message containing `needle` and naming `node`. */
static void expect_error(tfs_output fetch, tfs_output x, tfs_tensor *xv,
                         tfs_code code, const char *needle,
                         const char *node) {
  tfs_session *s = session(0);
  char msg[2048], tag[256];
  tfs_code got = tu_run_error(s, fetch, x.oper ? &x : NULL, &xv,
                              x.oper ? 1 : 0, msg, sizeof msg);
  CU_ASSERT_EQUAL(got, code);
  if (!strstr(msg, needle)) fprintf(stderr, "\n  got: %s\n", msg);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle));
  snprintf(tag, sizeof tag, "{{node %s}}", node);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, tag));
  tfs_session_free(s);
}

static tfs_tensor *floats2(float a, float b) {
  return tu_floats((const int64_t[]){2}, 1, (const float[]){a, b});
}

static void check_floats(tfs_tensor *t, int rank, const int64_t *dims,
                         const float *v) {
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(tfs_tensor_dtype(t), TFS_FLOAT);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_ndims(t), rank);
  for (int i = 0; i < rank; i++) CU_ASSERT_EQUAL(tfs_tensor_dim(t, i), dims[i]);
  const float *d = tfs_tensor_data(t);
  for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++)
    CU_ASSERT_DOUBLE_EQUAL(d[i], v[i], 1e-6);
  tfs_tensor_free(t);
}

/* ---- writes -------------------------------------------------------------- */

static void test_write_errors(void) {
  static const struct {
    int32_t i0, i1;
    const char *msg;
  } k[] = {
      {0, 0, "TensorArray ta_0: Could not write to TensorArray index 0 "
             "because it has already been written to."},
      {0, 3, "TensorArray ta_0: Tried to write to index 3 but array is not "
             "resizeable and size is: 2"},
      {0, -1, "TensorArray ta_0: Tried to write to index -1 but array is "
              "not resizeable and size is: 2"},
  };
  for (size_t c = 0; c < sizeof k / sizeof k[0]; c++) {
    setup();
    tfs_output x = placeholder("x", TFS_FLOAT);
    tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 1,
                               NULL, -1);
    tfs_output f = write_ta("w0", ta, scalar_i32("i0", k[c].i0), x,
                            OUT(ta, 1));
    f = write_ta("w1", ta, scalar_i32("i1", k[c].i1), x, f);
    tfs_tensor *xv = floats2(1, 2);
    expect_error(f, x, xv, BAD, k[c].msg, "w1");
    tfs_tensor_free(xv);
    teardown();
  }
}

static void test_write_dtype_and_shape(void) {
  setup();
  tfs_output x = placeholder("x", TFS_INT32);
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 1, NULL,
                             -1);
  tfs_output f = write_ta("w", ta, scalar_i32("i", 0), x, OUT(ta, 1));
  tfs_tensor *xv = tu_int32s((const int64_t[]){1}, 1, (const int32_t[]){1});
  expect_error(f, x, xv, BAD, "TensorArray dtype is float but Op is trying "
               "to write dtype int32.", "w");
  tfs_tensor_free(xv);
  teardown();

  setup();
  x = placeholder("x", TFS_FLOAT);
  ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 1, (const int64_t[]){2},
              1);
  f = write_ta("w", ta, scalar_i32("i", 1), x, OUT(ta, 1));
  xv = tu_floats((const int64_t[]){3}, 1, (const float[]){1, 2, 3});
  expect_error(f, x, xv, BAD, "TensorArray ta_0: Could not write to "
               "TensorArray index 1 because the value shape is [3] which is "
               "incompatible with the TensorArray's inferred element shape: "
               "[2] (consider setting infer_shape=False).", "w");
  tfs_tensor_free(xv);
  teardown();

  setup();
  x = placeholder("x", TFS_FLOAT);
  ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 1, NULL, -1);
  tfs_output i = placeholder("i", TFS_INT32); /* shape unknown to the
                                                 shape function */
  f = write_ta("w", ta, i, const_i32("v", (const int32_t[]){1}, 1, 1),
               OUT(ta, 1));
  xv = tu_int32s((const int64_t[]){2}, 1, (const int32_t[]){0, 1});
  expect_error(f, i, xv, BAD, "TensorArray index must be scalar, but had "
               "shape: [2]", "w");
  tfs_tensor_free(xv);
  teardown();
}

static void test_create_errors(void) {
  setup();
  tfs_output n = placeholder("n", TFS_INT32);
  tfs_operation *ta = new_ta("ta", n, TFS_FLOAT, 0, 1, NULL, -1);
  tfs_tensor *nv = tu_int32s(NULL, 0, (const int32_t[]){-1});
  expect_error(OUT(ta, 1), n, nv, BAD, "Size should be >= 0.", "ta");
  tfs_tensor_free(nv);
  nv = tu_int32s((const int64_t[]){1}, 1, (const int32_t[]){2});
  expect_error(OUT(ta, 1), n, nv, BAD, "TensorArray size must be scalar, but "
               "had shape: [1]", "ta");
  tfs_tensor_free(nv);
  teardown();
}

/* ---- reads --------------------------------------------------------------- */

/* One element written, then read twice: cleared after the first read
 * unless clear_after_read is off; a write after a read is refused. */
static void test_clear_after_read(void) {
  for (int clear = 0; clear <= 1; clear++) {
    setup();
    tfs_output x = placeholder("x", TFS_FLOAT);
    tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, clear,
                               NULL, -1);
    tfs_output i0 = scalar_i32("i0", 0);
    tfs_output f = write_ta("w", ta, i0, x, OUT(ta, 1));
    tfs_output r1 = read_ta("r1", ta, i0, f, TFS_FLOAT);
    tfs_op_desc *d = desc("Identity", "after", 1, f);
    tfs_op_desc_add_control_input(d, r1.oper);
    tfs_output f2 = OUT(fin(d), 0);
    tfs_output r2 = read_ta("r2", ta, i0, f2, TFS_FLOAT);
    tfs_output sum = OUT(fin(desc("AddV2", "sum", 2, r1, r2)), 0);
    tfs_tensor *xv = floats2(1.5f, -2);
    if (clear) {
      expect_error(sum, x, xv, BAD, "TensorArray ta_0: Could not read index "
                   "0 twice because it was cleared after a previous read "
                   "(perhaps try setting clear_after_read = false?).", "r2");
    } else {
      tfs_session *s = session(0);
      check_floats(tu_run1(s, sum, &x, &xv, 1), 1, (const int64_t[]){2},
                   (const float[]){3, -4});
      tfs_session_free(s);
    }
    /* writing an element already read */
    d = desc("Identity", "after_read", 1, f);
    tfs_op_desc_add_control_input(d, r1.oper);
    tfs_output w2 = write_ta("w2", ta, i0, x, OUT(fin(d), 0));
    expect_error(w2, x, xv, BAD, "TensorArray ta_0: Could not write to "
                 "TensorArray index 0 because it has already been read.",
                 "w2");
    tfs_tensor_free(xv);
    teardown();
  }
}

static void test_read_errors(void) {
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT);
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 3), TFS_FLOAT, 0, 1, NULL,
                             -1);
  tfs_output f = write_ta("w", ta, scalar_i32("i0", 0), x, OUT(ta, 1));
  tfs_tensor *xv = floats2(1, 2);
  expect_error(read_ta("r5", ta, scalar_i32("i5", 5), f, TFS_FLOAT), x, xv,
               BAD, "Tried to read from index 5 but array size is: 3", "r5");
  expect_error(read_ta("r1", ta, scalar_i32("i1", 1), f, TFS_FLOAT), x, xv,
               BAD, "TensorArray ta_0: Could not read from TensorArray index "
               "1.  Furthermore, the element shape is not fully defined: "
               "<unknown>.", "r1");
  expect_error(read_ta("ri", ta, scalar_i32("ii", 0), f, TFS_INT32), x, xv,
               BAD, "TensorArray dtype is float but Op requested dtype "
               "int32.", "ri");
  tfs_output idx = const_i32("idx", (const int32_t[]){0, 1}, 2, 1);
  expect_error(gather_ta("g", ta, idx, f), x, xv, BAD, "TensorArray ta_0: "
               "Could not read from TensorArray index 1.", "g");
  tfs_tensor_free(xv);
  teardown();
}

/* Unwritten elements of an array whose element shape is fully defined
 * read as zeros. */
static void test_unwritten_zeros(void) {
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT);
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 3), TFS_FLOAT, 0, 1,
                             (const int64_t[]){2}, 1);
  tfs_output f = write_ta("w", ta, scalar_i32("i", 1), x, OUT(ta, 1));
  tfs_output idx = const_i32("idx", (const int32_t[]){0, 1, 2}, 3, 1);
  tfs_output gth = gather_ta("g", ta, idx, f);
  tfs_session *s = session(0);
  tfs_tensor *xv = floats2(4, 5);
  check_floats(tu_run1(s, gth, &x, &xv, 1), 2, (const int64_t[]){3, 2},
               (const float[]){0, 0, 4, 5, 0, 0});
  tfs_tensor_free(xv);
  tfs_session_free(s);
  teardown();
}

/* ---- dynamic size -------------------------------------------------------- */

/* Writes at 0 and 4 grow an array of size 0 to 5; a scatter at 7 to 8;
 * a fixed-size array refuses both. */
static void test_dynamic_size(void) {
  for (int dynamic = 1; dynamic >= 0; dynamic--) {
    setup();
    tfs_output x = placeholder("x", TFS_FLOAT);
    tfs_operation *ta = new_ta("ta", scalar_i32("n", 0), TFS_FLOAT, dynamic,
                               1, NULL, -1);
    tfs_output f = write_ta("w0", ta, scalar_i32("i0", 0), x, OUT(ta, 1));
    f = write_ta("w4", ta, scalar_i32("i4", 4), x, f);
    tfs_output sz = size_ta("size", ta, f);
    tfs_session *s = session(0);
    tfs_tensor *xv = floats2(1, 2);
    if (dynamic) {
      tfs_tensor *t = tu_run1(s, sz, &x, &xv, 1);
      CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(t), 5);
      tfs_tensor_free(t);
      tfs_output idx = const_i32("idx", (const int32_t[]){4, 0}, 2, 1);
      check_floats(tu_run1(s, gather_ta("g", ta, idx, f), &x, &xv, 1), 2,
                   (const int64_t[]){2, 2}, (const float[]){1, 2, 1, 2});
      /* scatter grows it further */
      tfs_op_desc *pd = desc("Pack", "rows", 0);
      tfs_op_desc_add_input_list(pd, (const tfs_output[]){x, x}, 2);
      tfs_output v = OUT(fin(pd), 0);
      tfs_output sidx = const_i32("sidx", (const int32_t[]){7, 5}, 2, 1);
      tfs_output sf = OUT(fin(desc("TensorArrayScatterV3", "sc", 4,
                                   OUT(ta, 0), sidx, v, f)), 0);
      t = tu_run1(s, size_ta("size2", ta, sf), &x, &xv, 1);
      CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(t), 8);
      tfs_tensor_free(t);
    } else {
      expect_error(sz, x, xv, BAD, "TensorArray ta_0: Tried to write to "
                   "index 0 but array is not resizeable and size is: 0",
                   "w0");
    }
    tfs_tensor_free(xv);
    tfs_session_free(s);
    teardown();
  }
}

/* ---- scatter, split, gather, concat -------------------------------------- */

static void test_scatter_split_errors(void) {
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT); /* [3,2] */
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 1, NULL,
                             -1);
  tfs_output big = const_i32("big", (const int32_t[]){0, 5, 1}, 3, 1);
  tfs_output sc = OUT(fin(desc("TensorArrayScatterV3", "sc", 4, OUT(ta, 0),
                               big, x, OUT(ta, 1))), 0);
  tfs_tensor *xv = tu_floats((const int64_t[]){3, 2}, 2,
                             (const float[]){1, 2, 3, 4, 5, 6});
  expect_error(sc, x, xv, BAD, "Max scatter index must be < array size (5 "
               "vs. 2)", "sc");
  tfs_output two = const_i32("two", (const int32_t[]){0, 1}, 2, 1);
  tfs_output sc2 = OUT(fin(desc("TensorArrayScatterV3", "sc2", 4, OUT(ta, 0),
                                two, x, OUT(ta, 1))), 0);
  expect_error(sc2, x, xv, BAD, "Expected len(indices) == values.shape[0], "
               "but saw: 2 vs. 3", "sc2");
  int64_t l3[] = {1, 1, 1}, l2[] = {1, 1};
  tfs_tensor *lt = tfs_tensor_new_copy(TFS_INT64, (const int64_t[]){3}, 1, l3,
                                       sizeof l3, st);
  tfs_op_desc *d = desc("Const", "l3", 0);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_INT64);
  tfs_op_desc_set_attr_tensor(d, "value", lt, st);
  tfs_output len3 = OUT(fin(d), 0);
  tfs_tensor_free(lt);
  tfs_output sp = OUT(fin(desc("TensorArraySplitV3", "sp", 4, OUT(ta, 0), x,
                               len3, OUT(ta, 1))), 0);
  expect_error(sp, x, xv, BAD, "TensorArray's size is not equal to the size "
               "of lengths (2 vs. 3), and the TensorArray is not marked as "
               "dynamically resizeable", "sp");
  lt = tfs_tensor_new_copy(TFS_INT64, (const int64_t[]){2}, 1, l2, sizeof l2,
                           st);
  d = desc("Const", "l2", 0);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_INT64);
  tfs_op_desc_set_attr_tensor(d, "value", lt, st);
  tfs_output len2 = OUT(fin(d), 0);
  tfs_tensor_free(lt);
  tfs_output sp2 = OUT(fin(desc("TensorArraySplitV3", "sp2", 4, OUT(ta, 0),
                                x, len2, OUT(ta, 1))), 0);
  expect_error(sp2, x, xv, BAD, "Expected sum of lengths to be equal to "
               "values.shape[0], but sum of lengths is 2 and value's shape "
               "is: [3,2]", "sp2");
  tfs_tensor_free(xv);
  teardown();
}

/* Split into [1,2] rows, concat back; gather of inconsistent shapes and
 * concat of scalars fail with TensorFlow's messages. */
static void test_split_concat(void) {
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT); /* [3,2] */
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 0, NULL,
                             -1);
  int64_t l[] = {1, 2};
  tfs_tensor *lt = tfs_tensor_new_copy(TFS_INT64, (const int64_t[]){2}, 1, l,
                                       sizeof l, st);
  tfs_op_desc *d = desc("Const", "len", 0);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_INT64);
  tfs_op_desc_set_attr_tensor(d, "value", lt, st);
  tfs_output len = OUT(fin(d), 0);
  tfs_tensor_free(lt);
  tfs_output f = OUT(fin(desc("TensorArraySplitV3", "sp", 4, OUT(ta, 0), x,
                              len, OUT(ta, 1))), 0);
  d = desc("TensorArrayConcatV3", "cc", 2, OUT(ta, 0), f);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_operation *cc = fin(d);
  tfs_output fetch[2] = {OUT(cc, 0), OUT(cc, 1)};
  tfs_tensor *out[2] = {NULL, NULL};
  tfs_tensor *xv = tu_floats((const int64_t[]){3, 2}, 2,
                             (const float[]){1, 2, 3, 4, 5, 6});
  tfs_session *s = session(0);
  tfs_session_run(s, &x, &xv, 1, fetch, out, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  check_floats(out[0], 2, (const int64_t[]){3, 2},
               (const float[]){1, 2, 3, 4, 5, 6});
  CU_ASSERT_EQUAL(((int64_t *)tfs_tensor_data(out[1]))[0], 1);
  CU_ASSERT_EQUAL(((int64_t *)tfs_tensor_data(out[1]))[1], 2);
  tfs_tensor_free(out[1]);
  tfs_output idx = const_i32("idx", (const int32_t[]){0, 1}, 2, 1);
  expect_error(gather_ta("g", ta, idx, f), x, xv, BAD, "TensorArray has "
               "inconsistent shapes.  Index 0 has shape: [1,2] but index 1 "
               "has shape: [2,2]", "g");
  tfs_session_free(s);
  tfs_tensor_free(xv);
  teardown();

  setup();
  x = placeholder("x", TFS_FLOAT);
  ta = new_ta("ta", scalar_i32("n", 1), TFS_FLOAT, 0, 1, NULL, -1);
  f = write_ta("w", ta, scalar_i32("i", 0), x, OUT(ta, 1));
  d = desc("TensorArrayConcatV3", "cc", 2, OUT(ta, 0), f);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  xv = tu_floats(NULL, 0, (const float[]){1});
  expect_error(OUT(fin(d), 0), x, xv, BAD, "Concat saw a scalar shape at "
               "index 0 but requires at least vectors.  Did you mean to call "
               "pack?", "cc");
  tfs_tensor_free(xv);
  teardown();
}

/* ---- close, gradients ---------------------------------------------------- */

static void test_close(void) {
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT);
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 0, 1, NULL,
                             -1);
  tfs_output f = write_ta("w", ta, scalar_i32("i", 0), x, OUT(ta, 1));
  tfs_op_desc *d = desc("TensorArrayCloseV3", "close", 1, OUT(ta, 0));
  tfs_op_desc_add_control_input(d, f.oper);
  tfs_operation *close = fin(d);
  d = desc("Identity", "after", 1, f);
  tfs_op_desc_add_control_input(d, close);
  tfs_output sz = size_ta("size", ta, OUT(fin(d), 0));
  tfs_tensor *xv = floats2(1, 2);
  expect_error(sz, x, xv, BAD, "TensorArray ta_0 has already been closed.",
               "size");
  tfs_tensor_free(xv);
  teardown();
}

/* A gradient array (TensorArrayGradV3, and WithShape) adds up repeated
 * writes, reads unwritten elements as zeros of the forward element's
 * shape, and makes the forward array fixed-size. */
static void test_gradient_arrays(void) {
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT);
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 2), TFS_FLOAT, 1, 1, NULL,
                             -1);
  tfs_output i0 = scalar_i32("i0", 0), i1 = scalar_i32("i1", 1);
  tfs_output f = write_ta("w0", ta, i0, x, OUT(ta, 1));
  f = write_ta("w1", ta, i1, x, f);
  tfs_op_desc *d = desc("TensorArrayGradV3", "grad", 2, OUT(ta, 0), f);
  tfs_op_desc_set_attr_string(d, "source", "gradients", 9);
  tfs_operation *gr = fin(d);
  tfs_output gf = write_ta("gw0", gr, i0, x, OUT(gr, 1));
  gf = write_ta("gw1", gr, i0, x, gf);
  tfs_output idx = const_i32("idx", (const int32_t[]){0, 1}, 2, 1);
  tfs_output gth = gather_ta("g", gr, idx, gf);
  tfs_session *s = session(0);
  tfs_tensor *xv = floats2(1.5f, -1);
  check_floats(tu_run1(s, gth, &x, &xv, 1), 2, (const int64_t[]){2, 2},
               (const float[]){3, -2, 0, 0});
  /* a write beyond the forward array's size now fails */
  tfs_output w5 = write_ta("w5", ta, scalar_i32("i5", 5), x, gf);
  tfs_session_free(s);
  expect_error(w5, x, xv, BAD, "TensorArray ta_0: Tried to write to index 5 "
               "but array is not resizeable and size is: 2", "w5");
  /* WithShape: zeros of [3] + the element's shape */
  d = desc("TensorArrayGradWithShape", "grad3", 3, OUT(ta, 0), f,
           const_i32("pre", (const int32_t[]){3}, 1, 1));
  tfs_op_desc_set_attr_string(d, "source", "g3", 2);
  tfs_operation *g3 = fin(d);
  s = session(0);
  check_floats(tu_run1(s, read_ta("r3", g3, i1, OUT(g3, 1), TFS_FLOAT), &x,
                       &xv, 1),
               2, (const int64_t[]){3, 2}, (const float[]){0, 0, 0, 0, 0, 0});
  tfs_session_free(s);
  tfs_tensor_free(xv);
  teardown();
}

/* ---- threads and runs ---------------------------------------------------- */

/* 16 writes into one array, each after its own MatMul, so the parallel
 * executor runs them on several threads at once; many runs. */
static void test_concurrent_writes(void) {
  enum { K = 16 };
  setup();
  tfs_output x = placeholder("x", TFS_FLOAT); /* [1,1] */
  tfs_operation *ta = new_ta("ta", scalar_i32("n", K), TFS_FLOAT, 0, 1, NULL,
                             -1);
  tfs_output flows[K];
  for (int k = 0; k < K; k++) {
    char n1[32], n2[32], n3[32];
    snprintf(n1, sizeof n1, "mm%d", k);
    snprintf(n2, sizeof n2, "i%d", k);
    snprintf(n3, sizeof n3, "w%d", k);
    tfs_output mm = OUT(fin(desc("MatMul", n1, 2, x, x)), 0);
    flows[k] = write_ta(n3, ta, scalar_i32(n2, k), mm, OUT(ta, 1));
  }
  tfs_op_desc *d = desc("AddN", "flows", 0);
  tfs_op_desc_add_input_list(d, flows, K);
  tfs_output flow = OUT(fin(d), 0);
  int32_t all[K];
  for (int k = 0; k < K; k++) all[k] = K - 1 - k;
  tfs_output gth = gather_ta("g", ta, const_i32("idx", all, K, 1), flow);
  tfs_session *s = session(4);
  for (int run = 0; run < 50; run++) {
    tfs_tensor *xv = tu_floats((const int64_t[]){1, 1}, 2,
                               (const float[]){(float)run});
    tfs_tensor *t = tu_run1(s, gth, &x, &xv, 1);
    CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(t), K);
    for (int k = 0; k < K; k++)
      CU_ASSERT_DOUBLE_EQUAL(((float *)tfs_tensor_data(t))[k],
                             (double)run * run, 1e-3);
    tfs_tensor_free(t);
    tfs_tensor_free(xv);
  }
  tfs_session_free(s);
  teardown();
}

static uint8_t *read_file(const char *rel, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", TFS_TEST_SRCDIR, rel);
  FILE *f = fopen(path, "rb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *d = malloc(*len + 1);
  CU_ASSERT_EQUAL(fread(d, 1, *len, f), *len);
  fclose(f);
  return d;
}

/* TensorFlow's while loop writing a growing array (the conformance case
 * tensor_array/while_dynamic_size), run 200 times on one session: every
 * run makes a fresh array and frees it at its end; a handle fetched from
 * one run names nothing in the next. */
static void test_many_runs(void) {
  setup();
  size_t len;
  uint8_t *pb = read_file(
      "tests/conformance/tensor_array/while_dynamic_size/graph.pb", &len);
  tfs_import_results *r = tfs_graph_import_graphdef(g, pb, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  free(pb);
  tfs_output feeds[2] = {tfs_graph_output_by_name(g, "n", 0),
                         tfs_graph_output_by_name(g, "x", 0)};
  tfs_output fetch[2] = {tfs_graph_output_by_name(g, "stacked", 0),
                         tfs_graph_output_by_name(g, "size", 0)};
  CU_ASSERT_PTR_NOT_NULL_FATAL(fetch[0].oper);
  tfs_session *s = session(0);
  tfs_tensor *xv = tu_floats((const int64_t[]){1, 2}, 2,
                             (const float[]){0.25f, -0.5f});
  for (int run = 0; run < 200; run++) {
    int32_t n = 1 + run % 7;
    tfs_tensor *nv = tu_int32s(NULL, 0, &n);
    tfs_tensor *vals[2] = {nv, xv}, *out[2] = {NULL, NULL};
    tfs_session_run(s, feeds, vals, 2, fetch, out, 2, NULL, 0, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_tensor_dim(out[0], 0), n);
    CU_ASSERT_EQUAL(*(int32_t *)tfs_tensor_data(out[1]), n);
    tfs_tensor_free(out[0]);
    tfs_tensor_free(out[1]);
    tfs_tensor_free(nv);
  }
  tfs_tensor_free(xv);
  tfs_session_free(s);
  teardown();

  /* a handle of an earlier run */
  setup();
  tfs_operation *ta = new_ta("ta", scalar_i32("n", 1), TFS_FLOAT, 0, 1, NULL,
                             -1);
  tfs_output h = placeholder("h", TFS_RESOURCE);
  tfs_op_desc *d = desc("TensorArraySizeV3", "size", 2, h, OUT(ta, 1));
  tfs_output sz = OUT(fin(d), 0);
  s = session(0);
  tfs_tensor *hv = tu_run1(s, OUT(ta, 0), NULL, NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(hv);
  char msg[1024];
  CU_ASSERT_EQUAL(tu_run_error(s, sz, &h, &hv, 1, msg, sizeof msg),
                  TFS_NOT_FOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "does not exist"));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "_tensor_arraysta_0"));
  tfs_tensor_free(hv);
  tfs_session_free(s);
  teardown();
}

static const tfs_test_case kErrors[] = {
    {"write_errors", test_write_errors},
    {"write_dtype_and_shape", test_write_dtype_and_shape},
    {"create_errors", test_create_errors},
    {"read_errors", test_read_errors},
    {"scatter_split_errors", test_scatter_split_errors},
    {"close", test_close},
    {NULL, NULL},
};

static const tfs_test_case kSemantics[] = {
    {"clear_after_read", test_clear_after_read},
    {"unwritten_zeros", test_unwritten_zeros},
    {"dynamic_size", test_dynamic_size},
    {"split_concat", test_split_concat},
    {"gradient_arrays", test_gradient_arrays},
    {"concurrent_writes", test_concurrent_writes},
    {"many_runs", test_many_runs},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"tensor_array_errors", kErrors},
    {"tensor_array", kSemantics},
    {NULL, NULL},
};

/*
 * tests/kernels/test_list_ops.c - TensorList kernels and DT_VARIANT
 * tensors: lists fetched from one run and fed to the next, every op's
 * results and TensorFlow's error texts, copy-on-write when a list is
 * shared, a graph that changes one list in place along a chain, and
 * TensorListFromTensor's elements as views of one buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "arraytest.h"
#include "core/tensor.h"

#define NODE "\n\t [[{{node n}}]]"

static const at_attr kF32[] = {AT_TYPE("element_dtype", TFS_FLOAT),
                               AT_TYPE("shape_type", TFS_INT32),
                               {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};

/* Runs `op` (element_dtype float) on inputs and returns output `k`; the
 * inputs are borrowed. */
static tfs_tensor *run_out(const char *op, tfs_tensor *const *in, int n,
                           int nout, int k) {
  at_call call = {op, kF32, 0, 0, NULL};
  tfs_tensor *out[4] = {NULL, NULL, NULL, NULL};
  tfs_code code = at_run(&call, in, n, out, nout);
  CU_ASSERT_EQUAL(code, TFS_OK);
  if (code != TFS_OK) fprintf(stderr, "%s: %s\n", op, at_msg());
  for (int i = 0; i < nout; i++)
    if (i != k) tfs_tensor_free(out[i]);
  return out[k];
}

static tfs_tensor *run1(const char *op, tfs_tensor *const *in, int n) {
  return run_out(op, in, n, 1, 0);
}

/* Runs `op` and expects an error; the inputs are borrowed. */
static void run_err(const char *op, tfs_tensor *const *in, int n, int nout,
                    const char *needle) {
  at_call call = {op, kF32, 0, 0, NULL};
  tfs_tensor *out[4] = {NULL, NULL, NULL, NULL};
  tfs_code code = at_run(&call, in, n, out, nout);
  CU_ASSERT_EQUAL(code, TFS_INVALID_ARGUMENT);
  const char *m = at_msg();
  CU_ASSERT_PTR_NOT_NULL(strstr(m, needle));
  CU_ASSERT_PTR_NOT_NULL(strstr(m, NODE));
  if (!strstr(m, needle)) fprintf(stderr, "%s: got '%s'\n", op, m);
  at_free(out, nout);
}

/* A reserved list of n float elements of shape [2]. */
static tfs_tensor *reserve(int32_t n) {
  tfs_tensor *in[2] = {at_i32(1, D(1), I32(2)), at_si32(n)};
  tfs_tensor *l = run1("TensorListReserve", in, 2);
  at_free(in, 2);
  return l;
}

static tfs_tensor *set_item(tfs_tensor *list, int32_t i, float a, float b) {
  tfs_tensor *in[3] = {list, at_si32(i), at_f32(1, D(2), F32(a, b))};
  tfs_tensor *r = run1("TensorListSetItem", in, 3);
  tfs_tensor_free(in[1]);
  tfs_tensor_free(in[2]);
  return r;
}

static tfs_tensor *get_item(tfs_tensor *list, int32_t i) {
  tfs_tensor *in[3] = {list, at_si32(i), at_si32(-1)};
  tfs_tensor *r = run1("TensorListGetItem", in, 3);
  tfs_tensor_free(in[1]);
  tfs_tensor_free(in[2]);
  return r;
}

static tfs_tensor *stack(tfs_tensor *list) {
  tfs_tensor *in[2] = {list, at_si32(-1)};
  tfs_tensor *r = run1("TensorListStack", in, 2);
  tfs_tensor_free(in[1]);
  return r;
}

static void test_reserve_set_get_stack(void) {
  tfs_tensor *l = reserve(3);
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(l), TFS_VARIANT);
  CU_ASSERT_EQUAL(tfs_tensor_ndims(l), 0);
  char *text = tfs_tensor_to_string(l, 3);
  CU_ASSERT_STRING_EQUAL(text, "<TensorList>");
  free(text);
  tfs_tensor *l2 = set_item(l, 1, 1.5f, -2.0f);
  at_check(get_item(l2, 1), TFS_FLOAT, 1, D(2), F32(1.5f, -2.0f));
  at_check(get_item(l2, 0), TFS_FLOAT, 1, D(2), F32(0, 0));
  at_check(stack(l2), TFS_FLOAT, 2, D(3, 2), F32(0, 0, 1.5f, -2.0f, 0, 0));
  /* the fed list was shared with the caller: SetItem changed a copy */
  at_check(stack(l), TFS_FLOAT, 2, D(3, 2), F32(0, 0, 0, 0, 0, 0));
  tfs_tensor *len = run1("TensorListLength", &l2, 1);
  at_check(len, TFS_INT32, 0, NULL, I32(3));
  tfs_tensor *es = run1("TensorListElementShape", &l2, 1);
  at_check(es, TFS_INT32, 1, D(1), I32(2));
  tfs_tensor_free(l);
  tfs_tensor_free(l2);
}

static void test_push_pop_from_tensor(void) {
  tfs_tensor *in[2] = {at_si32(-1), at_si32(2)};
  tfs_tensor *e = run1("EmptyTensorList", in, 2);
  at_free(in, 2);
  tfs_tensor *p1[2] = {e, at_f32(1, D(3), F32(1, 2, 3))};
  tfs_tensor *a = run1("TensorListPushBack", p1, 2);
  tfs_tensor *p2[2] = {a, p1[1]};
  tfs_tensor *b = run1("TensorListPushBack", p2, 2);
  tfs_tensor *p3[2] = {b, p1[1]};
  run_err("TensorListPushBack", p3, 2, 1,
          "Tried to push item into a full list list size: 2, "
          "max_num_elements: 2");
  tfs_tensor *p4[2] = {b, at_si32(-1)};
  at_check(run_out("TensorListPopBack", p4, 2, 2, 1), TFS_FLOAT, 1, D(3),
           F32(1, 2, 3));
  tfs_tensor *p5[2] = {e, p4[1]};
  run_err("TensorListPopBack", p5, 2, 2, "Trying to pop from an empty list.");
  tfs_tensor *f[2] = {at_f32(2, D(2, 2), F32(1, 2, 3, 4)),
                      at_i32(1, D(1), I32(-1))};
  tfs_tensor *fl = run1("TensorListFromTensor", f, 2);
  at_check(get_item(fl, 1), TFS_FLOAT, 1, D(2), F32(3, 4));
  tfs_tensor *s[2] = {at_sf32(3.0f), f[1]};
  run_err("TensorListFromTensor", s, 2, 1,
          "Tensor must be at least a vector, but saw shape: []");
  tfs_tensor *bad[2] = {f[0], at_i32(1, D(1), I32(3))};
  run_err("TensorListFromTensor", bad, 2, 1,
          "Specified a list with shape [3] from a tensor with shape [2]");
  at_free(f, 2);
  tfs_tensor *frees[] = {e, p1[1], a, b, p4[1], fl, s[0], bad[1]};
  at_free(frees, 8);
}

static void test_gather_scatter_concat_split(void) {
  tfs_tensor *f[2] = {at_f32(2, D(3, 2), F32(1, 2, 3, 4, 5, 6)),
                      at_i32(1, D(1), I32(2))};
  tfs_tensor *l = run1("TensorListFromTensor", f, 2);
  tfs_tensor *g[3] = {l, at_i32(1, D(2), I32(2, 0)), at_si32(-1)};
  at_check(run1("TensorListGather", g, 3), TFS_FLOAT, 2, D(2, 2),
           F32(5, 6, 1, 2));
  tfs_tensor *sc[3] = {at_f32(2, D(2, 2), F32(7, 8, 9, 10)),
                       at_i32(1, D(2), I32(3, 1)), at_i32(1, D(1), I32(2))};
  tfs_tensor *sl = run1("TensorListScatter", sc, 3);
  at_check(stack(sl), TFS_FLOAT, 2, D(4, 2), F32(0, 0, 9, 10, 0, 0, 7, 8));
  tfs_tensor *se[3] = {l, sc[0], sc[1]};
  tfs_tensor *sl2 = run1("TensorListScatterIntoExistingList", se, 3);
  at_check(stack(sl2), TFS_FLOAT, 2, D(4, 2), F32(1, 2, 9, 10, 5, 6, 7, 8));
  tfs_tensor *c[3] = {l, at_i32(1, D(1), I32(-1)), at_i64(1, D(0), NULL)};
  tfs_tensor *cat[2] = {NULL, NULL};
  at_call cc = {"TensorListConcatV2", kF32, 0, 0, NULL};
  CU_ASSERT_EQUAL(at_run(&cc, c, 3, cat, 2), TFS_OK);
  at_check(cat[0], TFS_FLOAT, 1, D(6), F32(1, 2, 3, 4, 5, 6));
  at_check(cat[1], TFS_INT64, 1, D(3), I64(2, 2, 2));
  tfs_tensor *sp[3] = {at_f32(1, D(5), F32(1, 2, 3, 4, 5)),
                       at_i32(1, D(1), I32(-1)), at_i64(1, D(2), I64(2, 3))};
  tfs_tensor *spl = run1("TensorListSplit", sp, 3);
  at_check(get_item(spl, 1), TFS_FLOAT, 1, D(3), F32(3, 4, 5));
  tfs_tensor *bad[3] = {sp[0], sp[1], at_i64(1, D(2), I64(2, 2))};
  run_err("TensorListSplit", bad, 3, 1,
          "Unused values in tensor. Length of tensor: 5 Values used: 4");
  tfs_tensor *rs[2] = {l, at_si32(5)};
  tfs_tensor *big = run1("TensorListResize", rs, 2);
  tfs_tensor *len = run1("TensorListLength", &big, 1);
  at_check(len, TFS_INT32, 0, NULL, I32(5));
  tfs_tensor *cl[2] = {l, sl};
  tfs_tensor *both = run1("TensorListConcatLists", cl, 2);
  at_check(stack(both), TFS_FLOAT, 2, D(7, 2),
           F32(1, 2, 3, 4, 5, 6, 0, 0, 9, 10, 0, 0, 7, 8));
  tfs_tensor *frees[] = {f[0], f[1], l, g[1], g[2], sc[0], sc[1], sc[2],
                         sl, sl2, c[1], c[2], sp[0], sp[1], sp[2], spl,
                         bad[2], rs[1], big, both};
  at_free(frees, 20);
}

static void test_errors(void) {
  tfs_tensor *l = reserve(3);
  tfs_tensor *a[3] = {l, at_si32(5), at_si32(-1)};
  run_err("TensorListGetItem", a, 3, 1,
          "Trying to access element 5 in a list with 3 elements.");
  tfs_tensor *b[3] = {l, at_si32(3), at_f32(1, D(2), F32(1, 2))};
  run_err("TensorListSetItem", b, 3, 1,
          "Trying to modify element 3 in a list with 3 elements.");
  tfs_tensor *c[3] = {l, at_si32(0), at_f32(1, D(3), F32(1, 2, 3))};
  run_err("TensorListSetItem", c, 3, 1,
          "Tried to set item with incompatible shape. Item element shape: "
          "[3] list shape: [2]");
  /* the list's element dtype against the node's */
  tfs_tensor *in[2] = {at_i32(1, D(1), I32(2)), at_si32(1)};
  static const at_attr kI32[] = {AT_TYPE("element_dtype", TFS_INT32),
                                 AT_TYPE("shape_type", TFS_INT32),
                                 {NULL, 0, 0, NULL, NULL, 0, TFS_INVALID}};
  at_call ri = {"TensorListReserve", kI32, 0, 0, NULL};
  tfs_tensor *il = NULL;
  CU_ASSERT_EQUAL(at_run(&ri, in, 2, &il, 1), TFS_OK);
  tfs_tensor *d[2] = {il, at_si32(-1)};
  run_err("TensorListStack", d, 2, 1,
          "Invalid data types; op elements float but list elements int32");
  /* unknown element shape and nothing written */
  tfs_tensor *u[2] = {at_si32(-1), at_si32(2)};
  tfs_tensor *ul = run1("TensorListReserve", u, 2);
  tfs_tensor *e[3] = {ul, at_si32(0), at_si32(-1)};
  run_err("TensorListGetItem", e, 3, 1,
          "Trying to read an uninitialized tensor but element_shape is not "
          "fully defined: <unknown> and no list element is set.");
  tfs_tensor *s[2] = {ul, at_si32(-1)};
  run_err("TensorListStack", s, 2, 1,
          "Tried to stack list which only contains uninitialized tensors "
          "and has a non-fully-defined element_shape: <unknown>");
  /* a variant that is not a list: an empty variant fed */
  tfs_status *st = tfs_status_new();
  tfs_tensor *empty = tfs_tensor_new(TFS_VARIANT, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *f[1] = {empty};
  run_err("TensorListLength", f, 1, 1, "Input handle is not a list.");
  tfs_status_free(st);
  tfs_tensor *frees[] = {l,    a[1], a[2], b[1], b[2], c[1], c[2], in[0],
                         in[1], il,  d[1], u[0], u[1], ul,   e[1], e[2],
                         s[1], empty};
  at_free(frees, 18);
}

/* One graph: L = Reserve; A = SetItem(L, 0, x); B = SetItem(L, 0, y);
 * C = SetItem(A, 1, y).  A and B share L, so neither may change it in
 * place; C may change A in place only if nothing else reads A — here
 * Stack(A) does, so A must keep x only. */
static void test_shared_lists_in_one_graph(void) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_tensor *cv[] = {at_i32(1, D(1), I32(2)), at_f32(1, D(2), F32(1, 2)),
                      at_f32(1, D(2), F32(3, 4))};
  tfs_output es = tfs_op_const(g, "es", cv[0], st);
  tfs_output x = tfs_op_const(g, "x", cv[1], st);
  tfs_output y = tfs_op_const(g, "y", cv[2], st);
  at_free(cv, 3);
  tfs_output n = tfs_op_const_int32(g, "num", 2, st);
  tfs_output m1 = tfs_op_const_int32(g, "m1", -1, st);
  tfs_output i0 = tfs_op_const_int32(g, "i0", 0, st);
  tfs_output i1 = tfs_op_const_int32(g, "i1", 1, st);
  TFS_ASSERT_OK(st);
  tfs_op_desc *d = tfs_op_desc_new(g, "TensorListReserve", "L");
  tfs_op_desc_add_input(d, es);
  tfs_op_desc_add_input(d, n);
  tfs_op_desc_set_attr_type(d, "element_dtype", TFS_FLOAT);
  tfs_output L = {tfs_op_desc_finish(d, st), 0};
  TFS_ASSERT_OK(st);
  const char *names[] = {"A", "B", "C"};
  tfs_output srcs[] = {L, L, {NULL, 0}}, idx[] = {i0, i0, i1};
  tfs_output vals[] = {x, y, y}, outs[3];
  for (int k = 0; k < 3; k++) {
    d = tfs_op_desc_new(g, "TensorListSetItem", names[k]);
    tfs_op_desc_add_input(d, k == 2 ? outs[0] : srcs[k]);
    tfs_op_desc_add_input(d, idx[k]);
    tfs_op_desc_add_input(d, vals[k]);
    tfs_op_desc_set_attr_type(d, "element_dtype", TFS_FLOAT);
    outs[k] = (tfs_output){tfs_op_desc_finish(d, st), 0};
    TFS_ASSERT_OK(st);
  }
  tfs_output stacks[3];
  for (int k = 0; k < 3; k++) {
    char nm[16];
    snprintf(nm, sizeof nm, "S%d", k);
    d = tfs_op_desc_new(g, "TensorListStack", nm);
    tfs_op_desc_add_input(d, outs[k]);
    tfs_op_desc_add_input(d, m1);
    tfs_op_desc_set_attr_type(d, "element_dtype", TFS_FLOAT);
    stacks[k] = (tfs_output){tfs_op_desc_finish(d, st), 0};
    TFS_ASSERT_OK(st);
  }
  for (int threads = 1; threads <= 2; threads++) {
    tfs_session_options *o = tfs_session_options_new();
    tfs_session_options_set_inter_op_threads(o, threads);
    tfs_session *s = tfs_session_new(g, o, st);
    TFS_ASSERT_OK(st);
    tfs_tensor *r[3] = {NULL, NULL, NULL};
    for (int rep = 0; rep < 3; rep++) {
      tfs_session_run(s, NULL, NULL, 0, stacks, r, 3, NULL, 0, st);
      TFS_ASSERT_OK(st);
      at_check(r[0], TFS_FLOAT, 2, D(2, 2), F32(1, 2, 0, 0));
      at_check(r[1], TFS_FLOAT, 2, D(2, 2), F32(3, 4, 0, 0));
      at_check(r[2], TFS_FLOAT, 2, D(2, 2), F32(1, 2, 3, 4));
    }
    tfs_session_free(s);
    tfs_session_options_free(o);
  }
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* TensorListFromTensor's elements are views of one buffer: the input's
 * own (which then is no longer its holder's alone: an op may not write
 * it in place), or one copy of a run arena's (elements may outlive the
 * run).  In a session, with its memory plan's arena from the second run
 * on: L = FromTensor(N = Neg(x)), R = Relu(N) (which would take N's
 * buffer in place if the list did not hold it), T = SetItem(L, 1, y),
 * G = GetItem(L, 2); every output's shape known, so that the plan holds;
 * L and T fetched, L still with the values of its run after the next;
 * every run with new x. */
static tfs_output list_node(tfs_graph *g, const char *op, const char *name,
                            const tfs_output *in, int n, tfs_status *st) {
  tfs_op_desc *d = tfs_op_desc_new(g, op, name);
  for (int i = 0; i < n; i++) tfs_op_desc_add_input(d, in[i]);
  tfs_op_desc_set_attr_type(d, "element_dtype", TFS_FLOAT);
  return (tfs_output){tfs_op_desc_finish(d, st), 0};
}

static void test_from_tensor_views(void) {
  tfs_tensor *f[2] = {at_f32(2, D(3, 2), F32(1, 2, 3, 4, 5, 6)),
                      at_i32(1, D(1), I32(2))};
  CU_ASSERT_TRUE(tfs_tensor__is_exclusive(f[0]));
  tfs_tensor *l = run1("TensorListFromTensor", f, 2);
  tfs_tensor *e1 = get_item(l, 1);
  at_check(tfs_tensor_ref(e1), TFS_FLOAT, 1, D(2), F32(3, 4));
  CU_ASSERT_PTR_EQUAL(tfs_tensor_data(e1), (float *)tfs_tensor_data(f[0]) + 2);
  CU_ASSERT_FALSE(tfs_tensor__is_exclusive(f[0]));
  tfs_tensor_free(e1);
  at_free(f, 2);
  /* the elements keep the buffer alive */
  at_check(stack(l), TFS_FLOAT, 2, D(3, 2), F32(1, 2, 3, 4, 5, 6));
  tfs_tensor_free(l);

  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, (int64_t[]){3, 2}, 2,
                                    st);
  tfs_tensor *cv[2] = {at_i32(1, D(1), I32(2)), at_f32(1, D(2), F32(7, 8))};
  tfs_output es = tfs_op_const(g, "es", cv[0], st);
  tfs_output y = tfs_op_const(g, "y", cv[1], st);
  at_free(cv, 2);
  tfs_output i1 = tfs_op_const_int32(g, "i1", 1, st);
  tfs_output i2 = tfs_op_const_int32(g, "i2", 2, st);
  tfs_output nx = tfs_op_unary(g, "Neg", "N", x, st);
  TFS_ASSERT_OK(st);
  tfs_output fetch[4];
  fetch[0] = tfs_op_unary(g, "Relu", "R", nx, st);
  tfs_output L = list_node(g, "TensorListFromTensor", "L",
                           (tfs_output[]){nx, es}, 2, st);
  tfs_output set = list_node(g, "TensorListSetItem", "T",
                             (tfs_output[]){L, i1, y}, 3, st);
  fetch[1] = set;
  fetch[2] = list_node(g, "TensorListGetItem", "G",
                       (tfs_output[]){L, i2, es}, 3, st);
  fetch[3] = L;
  TFS_ASSERT_OK(st);
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *prev = NULL;
  for (int rep = 0; rep < 4; rep++) {
    float v = (float)rep, u = v - 1;
    tfs_tensor *in = at_f32(2, D(3, 2), F32(-1 - v, 2 + v, -3, 4, 5 + v, -6));
    tfs_tensor *r[4] = {NULL, NULL, NULL, NULL};
    tfs_session_run(s, &x, &in, 1, fetch, r, 4, NULL, 0, st);
    TFS_ASSERT_OK(st);
    if (prev)
      at_check(stack(prev), TFS_FLOAT, 2, D(3, 2),
               F32(1 + u, -2 - u, 3, -4, -5 - u, 6));
    tfs_tensor_free(prev);
    prev = r[3];
    at_check(r[0], TFS_FLOAT, 2, D(3, 2), F32(1 + v, 0, 3, 0, 0, 6));
    at_check(stack(r[1]), TFS_FLOAT, 2, D(3, 2),
             F32(1 + v, -2 - v, 7, 8, -5 - v, 6));
    tfs_tensor_free(r[1]);
    at_check(r[2], TFS_FLOAT, 1, D(2), F32(-5 - v, 6));
    tfs_tensor_free(in);
  }
  tfs_tensor_free(prev);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const tfs_test_case kLists[] = {
    {"reserve_set_get_stack", test_reserve_set_get_stack},
    {"push_pop_from_tensor", test_push_pop_from_tensor},
    {"gather_scatter_concat_split", test_gather_scatter_concat_split},
    {"errors", test_errors},
    {"shared_lists_in_one_graph", test_shared_lists_in_one_graph},
    {"from_tensor_views", test_from_tensor_views},
    {NULL, NULL},
};

const tfs_test_suite tfs_test_suites[] = {
    {"list_ops", kLists},
    {NULL, NULL},
};

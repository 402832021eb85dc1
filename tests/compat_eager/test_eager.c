/*
 * tests/compat_eager/test_eager.c - the eager context (ops run at once,
 * the one-node-plan cache, TensorFlow's eager errors, first-set-wins
 * attrs, variables, many threads) and traced functions (trace counts with
 * and without input signatures and reduce_retracing, captured variables,
 * side effects, export), plus eager vs traced vs graph differential runs.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "testutil.h"

static tfs_status *st;
static tfs_ctx *ctx;

static void setup(void) {
  st = tfs_status_new();
  ctx = tfs_eager_ctx_new(NULL, st);
  TFS_ASSERT_OK(st);
}

static void teardown(void) {
  tfs_ctx_free(ctx);
  tfs_status_free(st);
}

static tfs_value *vec(const float *v, int64_t n) {
  tfs_value *x = tfs_value_floats(ctx, &n, 1, v, st);
  TFS_ASSERT_OK(st);
  return x;
}

static const float *fdata(tfs_value *v) {
  tfs_tensor *t = tfs_value_resolve(v, st);
  TFS_ASSERT_OK(st);
  const float *p = tfs_tensor_data(t);
  tfs_tensor_free(t); /* the value keeps the tensor alive */
  return p;
}

/* ---- eager ------------------------------------------------------------------ */

static void test_eager_ops(void) {
  setup();
  float av[2] = {1, 2}, bv[2] = {3, 4};
  tfs_value *a = vec(av, 2), *b = vec(bv, 2);
  tfs_value *sum = tfs_add(ctx, a, b, st);
  tfs_value *prod = tfs_mul(ctx, a, b, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(fdata(sum)[0], 4);
  CU_ASSERT_EQUAL(fdata(sum)[1], 6);
  CU_ASSERT_EQUAL(fdata(prod)[1], 8);
  CU_ASSERT_EQUAL(tfs_value_dtype(sum), TFS_FLOAT);
  CU_ASSERT_EQUAL(tfs_value_num_dims(sum), 1);
  CU_ASSERT_EQUAL(tfs_value_dim(sum, 0), 2);
  CU_ASSERT_EQUAL(tfs_value_dim(sum, 1), -1);
  CU_ASSERT_STRING_EQUAL(tfs_value_device(sum),
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  CU_ASSERT_PTR_NULL(tfs_value_output(sum).oper);
  CU_ASSERT_PTR_EQUAL(tfs_value_ctx(sum), ctx);
  CU_ASSERT_EQUAL(tfs_ctx_get_kind(ctx), TFS_CTX_EAGER);
  /* the same signature hits the cache; a new shape adds an entry */
  int n0 = tfs_ctx_cache_size(ctx);
  tfs_value *again = tfs_add(ctx, sum, b, st);
  CU_ASSERT_EQUAL(tfs_ctx_cache_size(ctx), n0);
  float cv[3] = {1, 1, 1};
  tfs_value *c = vec(cv, 3);
  tfs_value *cc = tfs_add(ctx, c, c, st);
  CU_ASSERT_EQUAL(tfs_ctx_cache_size(ctx), n0 + 1);
  CU_ASSERT_EQUAL(fdata(again)[1], 10);
  /* chains of typed calls */
  tfs_value *d = tfs_sub(ctx, a, b, st);
  tfs_value *x = tfs_relu(ctx, d, st);
  CU_ASSERT_EQUAL(fdata(x)[0], 0);
  tfs_value *ra = tfs_reshape(ctx, a, (int64_t[]){1, 2}, 2, st);
  tfs_value *rb = tfs_reshape(ctx, b, (int64_t[]){2, 1}, 2, st);
  tfs_value *m = tfs_matmul(ctx, ra, rb, 0, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(fdata(m)[0], 11);
  tfs_value *s = tfs_reduce_sum(ctx, a, (int32_t[]){0}, 1, 0, st);
  CU_ASSERT_EQUAL(fdata(s)[0], 3);
  tfs_value *ci = tfs_cast(ctx, a, TFS_INT32, st);
  CU_ASSERT_EQUAL(tfs_value_dtype(ci), TFS_INT32);
  tfs_value *vals[] = {a, b, sum, prod, again, c, cc, d, x, ra, rb, m, s, ci};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
    tfs_value_free(vals[i]);
  teardown();
  /* values outlive their context */
}

static void test_eager_errors(void) {
  setup();
  tfs_value *f = tfs_value_float(ctx, 1, st);
  tfs_value *i = tfs_value_int32(ctx, 2, st);
  tfs_value *bad = tfs_add(ctx, f, i, st);
  CU_ASSERT_PTR_NULL(bad);
  TFS_ASSERT_MESSAGE(st, "cannot compute AddV2 as input #1(zero-based) was "
                         "expected to be a float tensor but is a int32 "
                         "tensor");
  tfs_op_call *call = tfs_op_call_new(ctx, "Add", st);
  tfs_op_call_add_input(call, f, st);
  tfs_op_call_add_input(call, i, st);
  tfs_value *out = NULL;
  int n = 0;
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out, 1, &n, st), -1);
  TFS_ASSERT_MESSAGE(st, "cannot compute Add as input #1(zero-based) was "
                         "expected to be a float tensor but is a int32 "
                         "tensor");
  tfs_op_call_free(call);
  CU_ASSERT_PTR_NULL(tfs_op_call_new(ctx, "NoSuchOp", st));
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "Op type not registered 'NoSuchOp'");
  call = tfs_op_call_new(ctx, "Neg", st);
  tfs_op_call_add_input(call, f, st);
  tfs_op_call_add_input(call, f, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Neg takes 1 inputs; more were "
                                             "given");
  tfs_op_call_free(call);
  call = tfs_op_call_new(ctx, "AddV2", st);
  tfs_op_call_add_input(call, f, st);
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out, 1, &n, st), -1);
  TFS_ASSERT_MESSAGE(st, "AddV2 expects 2 inputs, got 1");
  tfs_op_call_free(call);
  /* kernel errors come at once, with the node suffix */
  tfs_value *z = tfs_value_int32(ctx, 0, st);
  CU_ASSERT_PTR_NULL(tfs_binary(ctx, "Div", i, z, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Integer division by zero");
  /* chaining after a failure */
  CU_ASSERT_PTR_NULL(tfs_add(ctx, NULL, f, st));
  tfs_value_free(f);
  tfs_value_free(i);
  tfs_value_free(z);
  tfs_value_free(NULL);
  teardown();
}

/* The typed-op fast path keys its cache on the exact op, input dtypes and
 * shapes: calls that differ in any of them, repeated and interleaved,
 * must each get their own plan, and errors must repeat on every call. */
static void test_fast_path_keys(void) {
  setup();
  float one[2] = {1, 2};
  tfs_value *fv = vec(one, 2);
  tfs_value *fcol = tfs_reshape(ctx, fv, (int64_t[]){2, 1}, 2, st);
  tfs_value *frow = tfs_reshape(ctx, fv, (int64_t[]){1, 2}, 2, st);
  tfs_value *iv = tfs_value_int32(ctx, 7, st);
  tfs_value *zero = tfs_value_int32(ctx, 0, st);
  TFS_ASSERT_OK(st);
  for (int round = 0; round < 3; round++) {
    tfs_value *a = tfs_add(ctx, fcol, frow, st); /* [2,2] by broadcast */
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_value_num_dims(a), 2);
    CU_ASSERT_EQUAL(fdata(a)[1], 1 + 2);
    CU_ASSERT_EQUAL(fdata(a)[2], 2 + 1);
    tfs_value *b = tfs_add(ctx, frow, frow, st); /* same dtypes, [1,2] */
    CU_ASSERT_EQUAL(tfs_value_dim(b, 0), 1);
    CU_ASSERT_EQUAL(fdata(b)[1], 4);
    tfs_value *c = tfs_mul(ctx, fv, fv, st); /* another op, same inputs */
    CU_ASSERT_EQUAL(fdata(c)[1], 4);
    tfs_value *d = tfs_add(ctx, iv, iv, st); /* another dtype */
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_value_dtype(d), TFS_INT32);
    tfs_tensor *dt = tfs_value_resolve(d, st);
    CU_ASSERT_EQUAL(*(const int32_t *)tfs_tensor_data(dt), 14);
    tfs_tensor_free(dt);
    tfs_value *e = tfs_unary(ctx, "Neg", fv, st); /* one input */
    CU_ASSERT_EQUAL(fdata(e)[0], -1);
    /* the mismatch never gets a plan; the kernel error repeats */
    CU_ASSERT_PTR_NULL(tfs_add(ctx, fv, iv, st));
    TFS_ASSERT_MESSAGE(st, "cannot compute AddV2 as input #1(zero-based) "
                           "was expected to be a float tensor but is a "
                           "int32 tensor");
    CU_ASSERT_PTR_NULL(tfs_binary(ctx, "Div", iv, zero, st));
    TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Integer division by zero");
    CU_ASSERT_PTR_NULL(tfs_unary(ctx, "Cast", fv, st)); /* no DstT */
    CU_ASSERT_FALSE(tfs_status_ok(st));
    tfs_value *vals[] = {a, b, c, d, e};
    for (int i = 0; i < 5; i++) tfs_value_free(vals[i]);
  }
  tfs_value *vals[] = {fv, fcol, frow, iv, zero};
  for (int i = 0; i < 5; i++) tfs_value_free(vals[i]);
  teardown();
}

/* The attr setters return nothing (as TFE_OpSetAttr*): a failure, out of
 * memory or a shape over the rank limit, is reported by execute. */
static void test_attr_failures_reported(void) {
  setup();
  tfs_value *v = tfs_value_float(ctx, 1, st);
  tfs_op_call *call = tfs_op_call_new(ctx, "Neg", st);
  tfs_op_call_add_input(call, v, st);
  static const int64_t ints[3] = {1, 2, 3};
  tfs_alloc_fail_at(1); /* the list's buffer */
  tfs_op_call_set_attr_int_list(call, "extra", ints, 3);
  tfs_alloc_fail_at(0);
  tfs_value *out = NULL;
  int n = 0;
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out, 1, &n, st), -1);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_RESOURCE_EXHAUSTED);
  TFS_ASSERT_MESSAGE(st, "Out of memory while setting attr 'extra' of Neg");
  tfs_op_call_free(call);
  call = tfs_op_call_new(ctx, "Placeholder", st);
  int64_t dims[40] = {0};
  tfs_op_call_set_attr_shape(call, "shape", dims, 40);
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out, 1, &n, st), -1);
  CU_ASSERT_EQUAL(tfs_status_code(st), TFS_INVALID_ARGUMENT);
  char want[128];
  snprintf(want, sizeof want,
           "Value specified for `shape` has 40 dimensions which is over "
           "the limit of %d.",
           TFS_MAX_RANK);
  TFS_ASSERT_MESSAGE(st, want);
  tfs_op_call_free(call);
  tfs_value_free(v);
  teardown();
}

static void test_first_set_wins(void) {
  setup();
  /* Fill with int64 dims, then an explicit index_type int32: the attr
   * inferred from the input stays (TensorFlow's eager rule). */
  int64_t dims[2] = {2, 3}, two[1] = {2};
  tfs_tensor *dt = tfs_tensor_new_copy(TFS_INT64, two, 1, dims, 16, st);
  tfs_value *d = tfs_value_new(ctx, dt, st);
  tfs_tensor_free(dt);
  tfs_value *v = tfs_value_float(ctx, 7, st);
  tfs_op_call *call = tfs_op_call_new(ctx, "Fill", st);
  tfs_op_call_add_input(call, d, st);
  tfs_op_call_add_input(call, v, st);
  tfs_op_call_set_attr_type(call, "index_type", TFS_INT32);
  CU_ASSERT_EQUAL(tfs_op_call_num_outputs(call, st), 1);
  tfs_value *out = NULL;
  int n = 0;
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out, 1, &n, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(n, 1);
  CU_ASSERT_EQUAL(tfs_value_dim(out, 1), 3);
  CU_ASSERT_EQUAL(fdata(out)[5], 7);
  /* executing the same call again works */
  tfs_value *out2 = NULL;
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out2, 1, &n, st), 0);
  tfs_value_free(out2);
  tfs_op_call_free(call);
  /* an explicit attr before the input makes a mismatch */
  call = tfs_op_call_new(ctx, "Neg", st);
  tfs_op_call_set_attr_type(call, "T", TFS_INT32);
  tfs_op_call_add_input(call, v, st);
  CU_ASSERT_EQUAL(tfs_op_call_execute(call, &out2, 1, &n, st), -1);
  TFS_ASSERT_MESSAGE(st, "cannot compute Neg as input #0(zero-based) was "
                         "expected to be a int32 tensor but is a float "
                         "tensor");
  tfs_op_call_free(call);
  tfs_value_free(out);
  tfs_value_free(d);
  tfs_value_free(v);
  teardown();
}

static void test_eager_variables(void) {
  setup();
  tfs_value *zero = tfs_value_float(ctx, 0, st);
  tfs_var *var = tfs_var_new(ctx, zero, "counter", st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(tfs_var_name(var), "counter");
  tfs_value *one = tfs_value_float(ctx, 1, st);
  for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(tfs_var_assign_add(ctx, var, one, st), 0);
  tfs_value *r = tfs_var_read(ctx, var, st);
  CU_ASSERT_EQUAL(fdata(r)[0], 3);
  tfs_value *ten = tfs_value_float(ctx, 10, st);
  tfs_var_assign(ctx, var, ten, st);
  tfs_value *r2 = tfs_var_read(ctx, var, st);
  CU_ASSERT_EQUAL(fdata(r2)[0], 10);
  CU_ASSERT_EQUAL(fdata(r)[0], 3); /* an earlier read does not change */
  /* a second variable with the same name is distinct */
  tfs_var *var2 = tfs_var_new(ctx, one, "counter", st);
  CU_ASSERT_STRING_NOT_EQUAL(tfs_var_name(var2), "counter");
  tfs_value *r3 = tfs_var_read(ctx, var2, st);
  CU_ASSERT_EQUAL(fdata(r3)[0], 1);
  tfs_value *iv = tfs_value_int32(ctx, 1, st);
  CU_ASSERT_EQUAL(tfs_var_assign(ctx, var, iv, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Trying to assign variable with wrong dtype. Expected "
                   "float got int32");
  tfs_value *vs[] = {zero, one, r, ten, r2, r3, iv};
  for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) tfs_value_free(vs[i]);
  tfs_var_free(var);
  tfs_var_free(var2);
  teardown();
}

static void test_resolve_and_graph_ctx(void) {
  st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_ctx *gc = tfs_graph_ctx_new(g, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_ctx_get_kind(gc), TFS_CTX_GRAPH);
  tfs_value *a = tfs_value_float(gc, 2, st);
  tfs_value *b = tfs_mul(gc, a, a, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL(tfs_value_output(b).oper);
  CU_ASSERT_EQUAL(tfs_value_num_dims(b), 0);
  CU_ASSERT_PTR_NULL(tfs_value_resolve(b, st));
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION, "is symbolic");
  tfs_value_free(b); /* owned by the context: a no-op */
  tfs_session *s = tfs_session_new(g, NULL, st);
  tfs_tensor *t = tu_run1(s, tfs_value_output(b), NULL, NULL, 0);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 4);
  tfs_tensor_free(t);
  tfs_session_free(s);
  tfs_ctx_free(gc);
  tfs_graph_free(g);
  tfs_status_free(st);
}

typedef struct {
  tfs_ctx *ctx;
  int ok;
} eager_job;

static void *eager_thread(void *arg) {
  eager_job *j = arg;
  tfs_status *lst = tfs_status_new();
  j->ok = 1;
  for (int i = 0; i < 500; i++) {
    tfs_value *a = tfs_value_float(j->ctx, (float)i, lst);
    tfs_value *b = tfs_value_float(j->ctx, 2, lst);
    tfs_value *ab = tfs_add(j->ctx, a, b, lst);
    tfs_value *c = tfs_mul(j->ctx, ab, b, lst);
    tfs_tensor *t = c ? tfs_value_resolve(c, lst) : NULL;
    if (!t || *(float *)tfs_tensor_data(t) != 2.0f * (i + 2)) j->ok = 0;
    tfs_tensor_free(t);
    tfs_value_free(a);
    tfs_value_free(b);
    tfs_value_free(ab);
    tfs_value_free(c);
  }
  tfs_status_free(lst);
  return NULL;
}

static void test_eager_from_many_threads(void) {
  setup();
  pthread_t th[8];
  eager_job jobs[8];
  for (int i = 0; i < 8; i++) {
    jobs[i].ctx = ctx;
    pthread_create(&th[i], NULL, eager_thread, &jobs[i]);
  }
  for (int i = 0; i < 8; i++) {
    pthread_join(th[i], NULL);
    CU_ASSERT_TRUE(jobs[i].ok);
  }
  teardown();
}

/* ---- traced functions --------------------------------------------------- */

static int g_body_runs;

static int add_body(tfs_ctx *c, tfs_value *const *in, int n,
                    tfs_value **out, int max, int *nout, void *user,
                    tfs_status *st) {
  (void)n;
  (void)max;
  (void)user;
  g_body_runs++; /* a host-side effect: only while tracing */
  out[0] = tfs_add(c, in[0], in[1], st);
  *nout = 1;
  return out[0] ? 0 : -1;
}

static void test_traced_add(void) {
  setup();
  tfs_function *f = tfs_function_new(ctx, add_body, NULL, NULL, st);
  TFS_ASSERT_OK(st);
  float av[2] = {1, 2}, bv[2] = {3, 4};
  tfs_value *a = vec(av, 2), *b = vec(bv, 2);
  tfs_value *in[2] = {a, b};
  g_body_runs = 0;
  for (int k = 0; k < 3; k++) {
    tfs_value *out = NULL;
    CU_ASSERT_EQUAL(tfs_function_call(f, in, 2, &out, 1, st), 1);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(fdata(out)[1], 6);
    tfs_value_free(out);
  }
  CU_ASSERT_EQUAL(g_body_runs, 1);
  CU_ASSERT_EQUAL(tfs_function_trace_count(f), 1);
  CU_ASSERT_EQUAL(tfs_function_num_concrete(f), 1);
  /* a new dtype traces again */
  tfs_value *ia = tfs_value_int32(ctx, 1, st), *ib = tfs_value_int32(ctx, 2, st);
  tfs_value *iin[2] = {ia, ib};
  tfs_value *out = NULL;
  CU_ASSERT_EQUAL(tfs_function_call(f, iin, 2, &out, 1, st), 1);
  CU_ASSERT_EQUAL(tfs_function_trace_count(f), 2);
  tfs_value_free(out);
  /* errors */
  tfs_value *mixed[2] = {a, ia};
  CU_ASSERT_EQUAL(tfs_function_call(f, mixed, 2, &out, 1, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "cannot compute AddV2 as input #1(zero-based) was "
                   "expected to be a float tensor but is a int32 tensor");
  CU_ASSERT_EQUAL(tfs_function_call(f, in, 2, &out, 0, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "returns 1 values but room for only 0 was given");
  tfs_value_free(a);
  tfs_value_free(b);
  tfs_value_free(ia);
  tfs_value_free(ib);
  tfs_function_free(f);
  teardown();
}

static int mean_body(tfs_ctx *c, tfs_value *const *in, int n,
                     tfs_value **out, int max, int *nout, void *user,
                     tfs_status *st) {
  out[0] = tfs_reduce_mean(c, tfs_relu(c, in[0], st), (int32_t[]){1}, 1, 0,
                           st);
  *nout = 1;
  return out[0] ? 0 : -1;
}

static int traces_for_batches(const tfs_function_options *opts) {
  tfs_function *f = tfs_function_new(ctx, mean_body, NULL, opts, st);
  TFS_ASSERT_OK(st);
  int batches[3] = {1, 8, 32};
  for (int k = 0; k < 3; k++) {
    int64_t dims[2] = {batches[k], 4};
    float *data = calloc((size_t)batches[k] * 4, sizeof(float));
    for (int i = 0; i < batches[k] * 4; i++) data[i] = (float)(i % 4);
    tfs_value *x = tfs_value_floats(ctx, dims, 2, data, st);
    tfs_value *y = NULL;
    CU_ASSERT_EQUAL(tfs_function_call(f, &x, 1, &y, 1, st), 1);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(tfs_value_dim(y, 0), batches[k]);
    CU_ASSERT_EQUAL(fdata(y)[0], 1.5f);
    tfs_value_free(x);
    tfs_value_free(y);
    free(data);
  }
  int n = tfs_function_trace_count(f);
  tfs_function_free(f);
  return n;
}

static void test_retracing_rules(void) {
  setup();
  CU_ASSERT_EQUAL(traces_for_batches(NULL), 3);
  int64_t sig_dims[2] = {-1, 4};
  tfs_tensor_spec spec = {TFS_FLOAT, 2, sig_dims};
  tfs_function_options o = {0};
  o.input_signature = &spec;
  o.num_inputs_in_signature = 1;
  CU_ASSERT_EQUAL(traces_for_batches(&o), 1);
  tfs_function_options r = {0};
  r.reduce_retracing = 1;
  CU_ASSERT_EQUAL(traces_for_batches(&r), 2);
  /* a call that does not fit the signature fails */
  tfs_function *f = tfs_function_new(ctx, mean_body, NULL, &o, st);
  int64_t bad_dims[2] = {2, 5};
  float z[10] = {0};
  tfs_value *x = tfs_value_floats(ctx, bad_dims, 2, z, st);
  tfs_value *y = NULL;
  CU_ASSERT_EQUAL(tfs_function_call(f, &x, 1, &y, 1, st), -1);
  TFS_ASSERT_MESSAGE(st, "Inputs to function 'function' are incompatible "
                         "with its input_signature: input 0 is "
                         "TensorSpec(shape=[2,5], dtype=float), expected "
                         "TensorSpec(shape=[?,4], dtype=float)");
  tfs_value *i = tfs_value_int32(ctx, 1, st);
  CU_ASSERT_EQUAL(tfs_function_call(f, &i, 1, &y, 1, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "dtype=int32), expected");
  tfs_value *two[2] = {x, x};
  CU_ASSERT_EQUAL(tfs_function_call(f, two, 2, &y, 1, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "was called with 2 inputs but its input_signature has 1");
  CU_ASSERT_EQUAL(tfs_function_trace_count(f), 0);
  tfs_value_free(x);
  tfs_value_free(i);
  tfs_function_free(f);
  teardown();
}

typedef struct {
  tfs_var *var;
  int host_runs;
} counter_state;

static int counter_body(tfs_ctx *c, tfs_value *const *in, int n,
                        tfs_value **out, int max, int *nout, void *user,
                        tfs_status *st) {
  counter_state *cs = user;
  cs->host_runs++;
  tfs_value *one = tfs_value_float(c, 1, st);
  if (tfs_var_assign_add(c, cs->var, one, st)) return -1;
  out[0] = tfs_var_read(c, cs->var, st);
  *nout = 1;
  return out[0] ? 0 : -1;
}

static void test_counter_variable_in_function(void) {
  setup();
  counter_state cs = {0};
  tfs_value *zero = tfs_value_float(ctx, 0, st);
  cs.var = tfs_var_new(ctx, zero, "counter", st);
  tfs_function *f = tfs_function_new(ctx, counter_body, &cs, NULL, st);
  for (int k = 1; k <= 3; k++) {
    tfs_value *out = NULL;
    CU_ASSERT_EQUAL(tfs_function_call(f, NULL, 0, &out, 1, st), 1);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(fdata(out)[0], (float)k); /* read after the add */
    tfs_value_free(out);
  }
  CU_ASSERT_EQUAL(cs.host_runs, 1);
  /* the eager context sees the same variable */
  tfs_value *r = tfs_var_read(ctx, cs.var, st);
  CU_ASSERT_EQUAL(fdata(r)[0], 3);
  tfs_buffer *gd = tfs_buffer_new();
  tfs_function_concrete_graphdef(f, 0, gd, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_TRUE(gd->length > 0);
  tfs_buffer_free(gd);
  gd = tfs_buffer_new();
  tfs_function_concrete_graphdef(f, 3, gd, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "has 1 concrete functions; 3 asked");
  tfs_buffer_free(gd);
  tfs_value_free(r);
  tfs_value_free(zero);
  tfs_function_free(f);
  tfs_var_free(cs.var);
  teardown();
}

/* Runs fn with stderr sent to a file; returns what was written (static). */
static const char *capture_stderr(void (*fn)(void)) {
  static char text[4096];
  fflush(stderr);
  FILE *tmp = tmpfile();
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  fn();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t n = fread(text, 1, sizeof text - 1, tmp);
  text[n] = 0;
  fclose(tmp);
  return text;
}

static void call_with_six_shapes(void) {
  tfs_function_options o = {0};
  o.name = "row_means";
  tfs_function *f = tfs_function_new(ctx, mean_body, NULL, &o, st);
  for (int b = 1; b <= 6; b++) {
    int64_t dims[2] = {b, 4};
    float z[24] = {0};
    tfs_value *x = tfs_value_floats(ctx, dims, 2, z, st), *y = NULL;
    tfs_function_call(f, &x, 1, &y, 1, st);
    tfs_value_free(x);
    tfs_value_free(y);
  }
  CU_ASSERT_EQUAL(tfs_function_trace_count(f), 6);
  tfs_function_free(f);
}

static void test_retracing_warning(void) {
  setup();
  const char *err = capture_stderr(call_with_six_shapes);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "5 out of the last 5 calls to function "
                                     "'row_means' triggered retracing."));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "reduce_retracing"));
  /* once only */
  const char *first = strstr(err, "5 out of the last 5");
  CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "5 out of the last 5") : NULL);
  teardown();
}

static int print_body(tfs_ctx *c, tfs_value *const *in, int n,
                      tfs_value **out, int max, int *nout, void *user,
                      tfs_status *st) {
  (*(int *)user)++;
  tfs_value *both[2] = {in[0], tfs_mul(c, in[0], in[0], st)};
  if (tfs_print(c, both, 2, st)) return -1;
  out[0] = both[1];
  *nout = 1;
  return 0;
}

static void print_three_calls(void) {
  int traces = 0;
  tfs_function *f = tfs_function_new(ctx, print_body, &traces, NULL, st);
  for (int i = 1; i <= 3; i++) {
    tfs_value *x = tfs_value_int32(ctx, i, st), *y = NULL;
    CU_ASSERT_EQUAL(tfs_function_call(f, &x, 1, &y, 1, st), 1);
    tfs_value_free(x);
    tfs_value_free(y);
  }
  CU_ASSERT_EQUAL(traces, 1);
  tfs_function_free(f);
  /* and eagerly */
  float v[3] = {0.5f, 1, 2};
  tfs_value *x = vec(v, 3);
  CU_ASSERT_EQUAL(tfs_print(ctx, &x, 1, st), 0);
  TFS_ASSERT_OK(st);
  tfs_value_free(x);
}

static void test_print_every_call(void) {
  setup();
  const char *err = capture_stderr(print_three_calls);
  CU_ASSERT_STRING_EQUAL(err, "1 1\n2 4\n3 9\n[0.5 1 2]\n");
  teardown();
}

static void test_assert_in_function(void) {
  setup();
  tfs_value *yes = NULL;
  tfs_tensor *t = tfs_tensor_scalar_bool(0);
  tfs_value *no = tfs_value_new(ctx, t, st);
  tfs_tensor_free(t);
  tfs_value *x = tfs_value_float(ctx, 3, st);
  CU_ASSERT_EQUAL(tfs_assert(ctx, no, "x must be small", &x, 1, st), -1);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "assertion failed: [x must be small] [3]");
  t = tfs_tensor_scalar_bool(1);
  yes = tfs_value_new(ctx, t, st);
  tfs_tensor_free(t);
  CU_ASSERT_EQUAL(tfs_assert(ctx, yes, "fine", &x, 1, st), 0);
  tfs_value_free(yes);
  tfs_value_free(no);
  tfs_value_free(x);
  teardown();
}

/* ---- differential: eager, traced and TF1 graph agree -------------------- */

typedef struct {
  int ops[12];
  int nops;
} program;

/* Applies op k of the program to value x (and y); the same in every
 * kind of context. */
static tfs_value *apply(tfs_ctx *c, int op, tfs_value *x, tfs_value *y,
                        tfs_status *s) {
  switch (op) {
    case 0: return tfs_add(c, x, y, s);
    case 1: return tfs_mul(c, x, y, s);
    case 2: return tfs_sub(c, x, y, s);
    case 3: return tfs_tanh(c, x, s);
    case 4: return tfs_sigmoid(c, x, s);
    case 5: return tfs_relu(c, x, s);
    case 6: return tfs_maximum(c, x, y, s);
    case 7: return tfs_unary(c, "Square", x, s);
    case 8: return tfs_matmul(c, x, y, 0, 1, s);
    default: return tfs_softmax(c, x, s);
  }
}

static tfs_value *run_program(tfs_ctx *c, const program *p, tfs_value *x,
                              tfs_value *y, tfs_status *s) {
  tfs_value *cur = x;
  for (int k = 0; k < p->nops; k++) {
    tfs_value *next = apply(c, p->ops[k], cur, y, s);
    if (cur != x && tfs_ctx_get_kind(c) == TFS_CTX_EAGER) tfs_value_free(cur);
    cur = next;
    if (!cur) return NULL;
  }
  return cur;
}

static int program_body(tfs_ctx *c, tfs_value *const *in, int n,
                        tfs_value **out, int max, int *nout, void *user,
                        tfs_status *st) {
  out[0] = run_program(c, user, in[0], in[1], st);
  *nout = 1;
  return out[0] ? 0 : -1;
}

static void test_differential(void) {
  setup();
  int gpus = tu_gpu_count();
  unsigned seed = 12345;
  float xv[9], yv[9];
  for (int i = 0; i < 9; i++) {
    xv[i] = (float)((int)(i * 7 % 5) - 2) * 0.5f;
    yv[i] = (float)((int)(i * 3 % 4) - 1) * 0.25f;
  }
  int64_t dims[2] = {3, 3};
  tfs_value *x = tfs_value_floats(ctx, dims, 2, xv, st);
  tfs_value *y = tfs_value_floats(ctx, dims, 2, yv, st);
  for (int trial = 0; trial < 40; trial++) {
    program p;
    p.nops = 1 + (int)(rand_r(&seed) % 10);
    for (int k = 0; k < p.nops; k++) p.ops[k] = (int)(rand_r(&seed) % 10);
    /* eager */
    tfs_value *e = run_program(ctx, &p, x, y, st);
    TFS_ASSERT_OK(st);
    /* traced */
    tfs_function *f = tfs_function_new(ctx, program_body, &p, NULL, st);
    tfs_value *in[2] = {x, y}, *t = NULL;
    CU_ASSERT_EQUAL(tfs_function_call(f, in, 2, &t, 1, st), 1);
    TFS_ASSERT_OK(st);
    /* TF1 graph */
    tfs_graph *g = tfs_graph_new();
    tfs_ctx *gc = tfs_graph_ctx_new(g, st);
    tfs_tensor *xt = tfs_value_resolve(x, st), *yt = tfs_value_resolve(y, st);
    tfs_value *gx = tfs_value_new(gc, xt, st), *gy = tfs_value_new(gc, yt, st);
    tfs_value *gr = run_program(gc, &p, gx, gy, st);
    TFS_ASSERT_OK(st);
    tfs_session *s = tfs_session_new(g, NULL, st);
    tfs_tensor *gt = tu_run1(s, tfs_value_output(gr), NULL, NULL, 0);
    const float *a = fdata(e), *b = fdata(t);
    const float *c = tfs_tensor_data(gt);
    for (int i = 0; i < 9; i++) {
      CU_ASSERT_EQUAL(a[i], b[i]);
      /* with a GPU the session's optimizer folds the constant program on
       * the CPU (as Grappler does) while eager ops run on the GPU: the
       * last bits may differ there */
      if (gpus) {
        CU_ASSERT_DOUBLE_EQUAL(a[i], c[i], 1e-5 * (1 + fabs(a[i])));
      } else {
        CU_ASSERT_EQUAL(a[i], c[i]);
      }
    }
    tfs_tensor_free(gt);
    tfs_tensor_free(xt);
    tfs_tensor_free(yt);
    tfs_session_free(s);
    tfs_ctx_free(gc);
    tfs_graph_free(g);
    tfs_value_free(e);
    tfs_value_free(t);
    tfs_function_free(f);
  }
  tfs_value_free(x);
  tfs_value_free(y);
  teardown();
}


/* y = x * x + x, two outputs (y and x - 1) */
static int poly_body(tfs_ctx *c, tfs_value *const *in, int n,
                     tfs_value **out, int max, int *nout, void *user,
                     tfs_status *s) {
  (void)n, (void)max, (void)user;
  tfs_value *sq = tfs_mul(c, in[0], in[0], s);
  out[0] = tfs_add(c, sq, in[0], s);
  tfs_value *one = tfs_value_float(c, 1, s);
  out[1] = tfs_sub(c, in[0], one, s);
  tfs_value_free(sq);
  tfs_value_free(one);
  *nout = 2;
  return out[0] && out[1] ? 0 : -1;
}

/* A concrete function exported as a GraphDef imports into a plain graph
 * and runs there with the same results: placeholder args_0, outputs
 * Identity and Identity_1. */
static void test_concrete_graphdef_runs(void) {
  setup();
  tfs_function *f = tfs_function_new(ctx, poly_body, NULL, NULL, st);
  float xv[3] = {1, -2, 0.5f};
  tfs_value *x = vec(xv, 3), *out[2] = {NULL, NULL};
  CU_ASSERT_EQUAL(tfs_function_call(f, &x, 1, out, 2, st), 2);
  TFS_ASSERT_OK(st);
  tfs_buffer *gd = tfs_buffer_new();
  tfs_function_concrete_graphdef(f, 0, gd, st);
  TFS_ASSERT_OK(st);
  tfs_graph *g = tfs_graph_new();
  tfs_import_results_free(
      tfs_graph_import_graphdef(g, gd->data, gd->length, NULL, st));
  TFS_ASSERT_OK(st);
  tfs_operation *arg = tfs_graph_operation_by_name(g, "args_0");
  tfs_operation *id0 = tfs_graph_operation_by_name(g, "Identity");
  tfs_operation *id1 = tfs_graph_operation_by_name(g, "Identity_1");
  CU_ASSERT_PTR_NOT_NULL_FATAL(arg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(id0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(id1);
  CU_ASSERT_STRING_EQUAL(tfs_operation_op_type(arg), "Placeholder");
  CU_ASSERT_STRING_EQUAL(tfs_operation_op_type(id0), "Identity");
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output feed = {arg, 0}, fetch[2] = {{id0, 0}, {id1, 0}};
  tfs_tensor *xt = tfs_value_resolve(x, st), *res[2] = {NULL, NULL};
  tfs_session_run(s, &feed, &xt, 1, fetch, res, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  const float *a = tfs_tensor_data(res[0]), *b = tfs_tensor_data(res[1]);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_DOUBLE_EQUAL(a[i], xv[i] * xv[i] + xv[i], 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(a[i], fdata(out[0])[i], 0);
    CU_ASSERT_DOUBLE_EQUAL(b[i], xv[i] - 1, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(b[i], fdata(out[1])[i], 0);
  }
  tfs_tensor_free(res[0]);
  tfs_tensor_free(res[1]);
  tfs_tensor_free(xt);
  tfs_session_close(s, st);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_buffer_free(gd);
  tfs_value_free(out[0]);
  tfs_value_free(out[1]);
  tfs_value_free(x);
  tfs_function_free(f);
  teardown();
}

static const tfs_test_case eager_cases[] = {
    {"ops", test_eager_ops},
    {"errors", test_eager_errors},
    {"fast_path_keys", test_fast_path_keys},
    {"first_set_wins", test_first_set_wins},
    {"attr_failures_reported", test_attr_failures_reported},
    {"variables", test_eager_variables},
    {"resolve_and_graph_ctx", test_resolve_and_graph_ctx},
    {"many_threads", test_eager_from_many_threads},
    {NULL, NULL}};
static const tfs_test_case function_cases[] = {
    {"traced_add", test_traced_add},
    {"retracing_rules", test_retracing_rules},
    {"counter_variable", test_counter_variable_in_function},
    {"retracing_warning", test_retracing_warning},
    {"print_every_call", test_print_every_call},
    {"assert", test_assert_in_function},
    {"differential", test_differential},
    {"concrete_graphdef_runs", test_concrete_graphdef_runs},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"eager", eager_cases},
                                          {"function", function_cases},
                                          {NULL, NULL}};

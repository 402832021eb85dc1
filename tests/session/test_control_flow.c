/*
 * tests/session/test_control_flow.c - TF1 control flow in sessions: conds
 * (Switch, Merge, dead branches), while loops (Enter, Exit, NextIteration,
 * LoopCond, frames and iterations, nested loops, parallel_iterations),
 * dead fetches, bounded memory over 100,000 iterations (TF1 loops and
 * TF2 While, run directly and lowered), timeouts inside
 * loops, back edges (tfs_graph_update_edge, GraphDef import) and the
 * graph errors, all with TensorFlow's messages.
 */
#define _GNU_SOURCE /* memmem */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CF_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CF_SANITIZER 1
#endif
#endif
#ifdef CF_SANITIZER
/* the sanitizer runtime's (sanitizer/allocator_interface.h) */
size_t __sanitizer_get_current_allocated_bytes(void);
#else
#include <malloc.h>
#endif

#include "fake_device.h"
#include "gdef_util.h"
#include "session/exec.h"

static tfs_graph *g;
static tfs_status *st;

static void setup(void) {
  g = tfs_graph_new();
  st = tfs_status_new();
}

static void teardown(void) {
  tfs_graph_free(g);
  tfs_status_free(st);
}

/* ---- building ------------------------------------------------------------ */

static tfs_output out(tfs_operation *op, int i) {
  tfs_output o = {op, i};
  return o;
}

/* An op of `type` with inputs and an optional control input. */
static tfs_operation *node(const char *type, const char *name,
                           const tfs_output *in, int n, tfs_operation *ctrl) {
  tfs_op_desc *d = tfs_op_desc_new(g, type, name);
  for (int i = 0; i < n; i++) tfs_op_desc_add_input(d, in[i]);
  if (ctrl) tfs_op_desc_add_control_input(d, ctrl);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return op;
}

static tfs_output unary(const char *type, const char *name, tfs_output x) {
  return out(node(type, name, &x, 1, NULL), 0);
}

static tfs_output binary(const char *type, const char *name, tfs_output x,
                         tfs_output y) {
  tfs_output in[2] = {x, y};
  return out(node(type, name, in, 2, NULL), 0);
}

static tfs_operation *sw(const char *name, tfs_output data, tfs_output pred) {
  tfs_output in[2] = {data, pred};
  return node("Switch", name, in, 2, NULL);
}

static tfs_operation *merge(const char *name, const tfs_output *in, int n) {
  tfs_op_desc *d = tfs_op_desc_new(g, "Merge", name);
  tfs_op_desc_add_input_list(d, in, n);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return op;
}

static tfs_output enter(const char *name, tfs_output x, const char *frame,
                        int is_constant, int parallel) {
  tfs_op_desc *d = tfs_op_desc_new(g, "Enter", name);
  tfs_op_desc_add_input(d, x);
  tfs_op_desc_set_attr_string(d, "frame_name", frame, strlen(frame));
  tfs_op_desc_set_attr_bool(d, "is_constant", is_constant);
  tfs_op_desc_set_attr_int(d, "parallel_iterations", parallel);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  return out(op, 0);
}

static tfs_output cint(const char *name, int32_t v) {
  tfs_output o = tfs_op_const_int32(g, name, v, st);
  TFS_ASSERT_OK(st);
  return o;
}

static tfs_output cfloat(const char *name, float v) {
  tfs_output o = tfs_op_const_float(g, name, v, st);
  TFS_ASSERT_OK(st);
  return o;
}

/* A while loop as tf.compat.v1.while_loop builds it: per variable
 * Enter -> Merge(Enter, NextIteration) -> Switch(Merge, LoopCond); the
 * body reads Identity(Switch:1), Exit reads Switch:0. */
typedef struct loop {
  const char *name;
  int parallel, n;
  tfs_output merge[4], body[4], exit[4];
  tfs_operation *merge_op[4];
} loop;

static void loop_begin(loop *L, const char *name, const tfs_output *init,
                       int n, int parallel) {
  char nm[128];
  L->name = name;
  L->parallel = parallel;
  L->n = n;
  for (int k = 0; k < n; k++) {
    snprintf(nm, sizeof nm, "%s/Enter_%d", name, k);
    tfs_output e = enter(nm, init[k], name, 0, parallel);
    tfs_output in[2] = {e, e}; /* input 1 becomes the back edge */
    snprintf(nm, sizeof nm, "%s/Merge_%d", name, k);
    L->merge_op[k] = merge(nm, in, 2);
    L->merge[k] = out(L->merge_op[k], 0);
  }
}

/* A value from outside the loop, the same in every iteration. */
static tfs_output loop_invariant(loop *L, const char *name, tfs_output x) {
  return enter(name, x, L->name, 1, L->parallel);
}

static void loop_cond(loop *L, tfs_output pred) {
  char nm[128];
  snprintf(nm, sizeof nm, "%s/LoopCond", L->name);
  tfs_output lc = unary("LoopCond", nm, pred);
  for (int k = 0; k < L->n; k++) {
    snprintf(nm, sizeof nm, "%s/Switch_%d", L->name, k);
    tfs_operation *s = sw(nm, L->merge[k], lc);
    snprintf(nm, sizeof nm, "%s/Identity_%d", L->name, k);
    L->body[k] = unary("Identity", nm, out(s, 1));
    snprintf(nm, sizeof nm, "%s/Exit_%d", L->name, k);
    L->exit[k] = unary("Exit", nm, out(s, 0));
  }
}

static void loop_end(loop *L, const tfs_output *next) {
  char nm[128];
  for (int k = 0; k < L->n; k++) {
    snprintf(nm, sizeof nm, "%s/NextIteration_%d", L->name, k);
    tfs_output ni = unary("NextIteration", nm, next[k]);
    tfs_input dst = {L->merge_op[k], 1};
    tfs_graph_update_edge(g, ni, dst, st);
    TFS_ASSERT_OK(st);
  }
}

/* An int32 Const named scope/name; inside a loop body it needs a control
 * edge from the body's pivot (as TensorFlow builds it), or it would run
 * in the root frame. */
static tfs_output cint_in(const char *scope, const char *name, int32_t v,
                          tfs_operation *pivot) {
  char nm[128];
  snprintf(nm, sizeof nm, "%s/%s", scope, name);
  tfs_tensor *t = tfs_tensor_scalar_int32(v);
  tfs_op_desc *d = tfs_op_desc_new(g, "Const", nm);
  tfs_op_desc_set_attr_tensor(d, "value", t, st);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_INT32);
  if (pivot) tfs_op_desc_add_control_input(d, pivot);
  tfs_operation *op = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(t);
  return out(op, 0);
}

/* sum of i for i in [0, n), n from outside the loop; its Exit.  `pivot`:
 * the enclosing loop body's pivot, or NULL. */
static tfs_output sum_loop(const char *name, tfs_output n, int parallel,
                           tfs_operation *pivot) {
  char nm[128];
  loop L;
  tfs_output init[2] = {cint_in(name, "i0", 0, pivot),
                        cint_in(name, "s0", 0, pivot)};
  loop_begin(&L, name, init, 2, parallel);
  snprintf(nm, sizeof nm, "%s/n", name);
  tfs_output limit = loop_invariant(&L, nm, n);
  snprintf(nm, sizeof nm, "%s/one", name);
  tfs_output one = loop_invariant(&L, nm, cint_in(name, "one_c", 1, pivot));
  snprintf(nm, sizeof nm, "%s/Less", name);
  loop_cond(&L, binary("Less", nm, L.merge[0], limit));
  snprintf(nm, sizeof nm, "%s/add_i", name);
  tfs_output next[2];
  next[0] = binary("AddV2", nm, L.body[0], one);
  snprintf(nm, sizeof nm, "%s/add_s", name);
  next[1] = binary("AddV2", nm, L.body[1], L.body[0]);
  loop_end(&L, next);
  return L.exit[1];
}

/* ---- running ------------------------------------------------------------- */

static tfs_session *new_session(void) {
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  return s;
}

static int32_t scalar_i32(const tfs_tensor *t) {
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_dtype(t), TFS_INT32);
  return *(const int32_t *)tfs_tensor_data(t);
}

/* Runs fetches with one int32 feed (none when feed.oper is NULL); the
 * first fetch's value, or -1 after asserting success. */
static int32_t run_i32(tfs_session *s, tfs_output feed, int32_t value,
                       tfs_output fetch) {
  tfs_tensor *v = tfs_tensor_scalar_int32(value);
  tfs_tensor *t = tu_run1(s, fetch, &feed, &v, feed.oper ? 1 : 0);
  tfs_tensor_free(v);
  int32_t r = t ? scalar_i32(t) : -1;
  tfs_tensor_free(t);
  return r;
}

/* ---- cond ---------------------------------------------------------------- */

/* tf.compat.v1.cond(p, x * 2, x - 1): Merge(false branch, true branch). */
static void test_cond_both_branches(void) {
  setup();
  tfs_output p = tfs_op_placeholder(g, "p", TFS_BOOL, NULL, 0, st);
  tfs_output x = tfs_op_placeholder(g, "x", TFS_FLOAT, NULL, -1, st);
  tfs_operation *s = sw("cond/Switch", x, p);
  tfs_output t = binary("Mul", "cond/mul", out(s, 1), cfloat("two", 2));
  tfs_output f = binary("Sub", "cond/sub", out(s, 0), cfloat("one", 1));
  tfs_output in[2] = {f, t};
  tfs_operation *m = merge("cond/Merge", in, 2);
  tfs_session *sess = new_session();
  int64_t dims[1] = {3};
  float xs[3] = {1.5f, -2, 4};
  for (int taken = 0; taken < 2; taken++) {
    tfs_output feeds[2] = {p, x};
    tfs_tensor *vals[2] = {tfs_tensor_scalar_bool(taken),
                           tu_floats(dims, 1, xs)};
    tfs_output fetches[2] = {out(m, 0), out(m, 1)};
    tfs_tensor *outs[2] = {NULL, NULL};
    tfs_session_run(sess, feeds, vals, 2, fetches, outs, 2, NULL, 0, st);
    TFS_ASSERT_OK(st);
    const float *y = tfs_tensor_data(outs[0]);
    for (int i = 0; i < 3; i++)
      CU_ASSERT_EQUAL(y[i], taken ? xs[i] * 2 : xs[i] - 1);
    CU_ASSERT_EQUAL(scalar_i32(outs[1]), taken); /* value_index */
    for (int i = 0; i < 2; i++) {
      tfs_tensor_free(vals[i]);
      tfs_tensor_free(outs[i]);
    }
  }
  tfs_session_free(sess);
  teardown();
}

/* The branch not taken runs nothing: an Assert that would fail and an
 * AssignAdd stay unrun there; in the taken branch they run. */
static void test_cond_dead_branch_not_executed(void) {
  setup();
  tfs_output p = tfs_op_placeholder(g, "p", TFS_BOOL, NULL, 0, st);
  tfs_output counter = tfs_op_variable(g, "counter", TFS_INT32, NULL, 0, st);
  TFS_ASSERT_OK(st);
  tfs_output init = tfs_op_assign(g, "init", counter, cint("zero", 0), st);
  TFS_ASSERT_OK(st);
  /* true branch: counter += 1 */
  tfs_operation *one_sw = sw("one_sw", cint("one", 1), p);
  tfs_output inc = binary("AssignAdd", "inc", counter, out(one_sw, 1));
  /* false branch: Assert(false) */
  tfs_tensor *no_v = tfs_tensor_scalar_bool(0);
  tfs_operation *no_sw = sw("no_sw", tfs_op_const(g, "no", no_v, st), p);
  tfs_tensor_free(no_v);
  tfs_output msg = cint("msg", 7);
  tfs_operation *chk = tfs_op_assert(g, "check", out(no_sw, 0), &msg, 1, st);
  TFS_ASSERT_OK(st);
  tfs_output in[2] = {cint("f_val", 10), cint("t_val", 20)};
  tfs_operation *fs = sw("f_sw", in[0], p), *ts = sw("t_sw", in[1], p);
  tfs_output mi[2] = {out(fs, 0), out(ts, 1)};
  tfs_operation *m = merge("merge", mi, 2);
  tfs_session *s = new_session();
  tfs_tensor_free(tu_run1(s, init, NULL, NULL, 0));
  tfs_operation *targets[2] = {inc.oper, chk};
  tfs_output fetch = out(m, 0);
  for (int run = 0; run < 3; run++) {
    tfs_tensor *pv = tfs_tensor_scalar_bool(1), *r = NULL;
    tfs_session_run(s, &p, &pv, 1, &fetch, &r, 1, targets, 2, st);
    TFS_ASSERT_OK(st); /* the Assert is dead: it does not fail */
    CU_ASSERT_EQUAL(scalar_i32(r), 20);
    tfs_tensor_free(r);
    tfs_tensor_free(pv);
  }
  tfs_tensor *v = tu_run1(s, counter, NULL, NULL, 0);
  CU_ASSERT_EQUAL(scalar_i32(v), 3);
  tfs_tensor_free(v);
  /* not taken: the AssignAdd is dead, the Assert runs and fails */
  tfs_tensor *pv = tfs_tensor_scalar_bool(0), *r = NULL;
  tfs_session_run(s, &p, &pv, 1, &fetch, &r, 1, targets, 2, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "assertion failed: [7]");
  tfs_operation *only_inc = inc.oper;
  tfs_session_run(s, &p, &pv, 1, &fetch, &r, 1, &only_inc, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(scalar_i32(r), 10);
  tfs_tensor_free(r);
  tfs_tensor_free(pv);
  v = tu_run1(s, counter, NULL, NULL, 0);
  CU_ASSERT_EQUAL(scalar_i32(v), 3);
  tfs_tensor_free(v);
  tfs_session_free(s);
  teardown();
}

/* DirectSession's error for a fetch that got no value, numbered by the
 * fetch's place among the sorted fetch names; a dead target is fine. */
static void test_dead_fetch(void) {
  setup();
  tfs_output p = tfs_op_placeholder(g, "p", TFS_BOOL, NULL, 0, st);
  tfs_operation *s0 = sw("switch", cint("data", 5), p);
  tfs_output dead = unary("Identity", "b_dead", out(s0, 0));
  tfs_output live = unary("Identity", "a_live", out(s0, 1));
  tfs_session *s = new_session();
  tfs_tensor *pv = tfs_tensor_scalar_bool(1);
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, dead, &p, &pv, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Retval[0] does not have value");
  tfs_output f2[2] = {dead, live};
  tfs_tensor *o2[2] = {NULL, NULL};
  tfs_session_run(s, &p, &pv, 1, f2, o2, 2, NULL, 0, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Retval[1] does not have value");
  CU_ASSERT_PTR_NULL(o2[0]);
  CU_ASSERT_PTR_NULL(o2[1]);
  /* the live one alone, with the dead one as a target */
  tfs_tensor *r = NULL;
  tfs_session_run(s, &p, &pv, 1, &live, &r, 1, &dead.oper, 1, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(scalar_i32(r), 5);
  tfs_tensor_free(r);
  tfs_tensor_free(pv);
  tfs_session_free(s);
  teardown();
}

/* Merge forwards the first live input that reaches it (TensorFlow takes
 * the first available; here the order the ready nodes run in, which
 * follows the plan: b's Switch runs before c's); all inputs dead makes
 * it dead. */
static void test_merge_first_live_wins(void) {
  setup();
  tfs_output in[2] = {cint("a", 1), cint("b", 2)};
  tfs_operation *m = merge("m", in, 2);
  tfs_output p = tfs_op_placeholder(g, "p", TFS_BOOL, NULL, 0, st);
  tfs_operation *s1 = sw("s1", cint("c", 3), p), *s2 = sw("s2", in[1], p);
  tfs_output dead_in[2] = {out(s1, 0), out(s2, 0)};
  tfs_operation *md = merge("m_dead", dead_in, 2);
  tfs_session *s = new_session();
  tfs_output f[2] = {out(m, 0), out(m, 1)};
  tfs_tensor *o[2] = {NULL, NULL};
  tfs_session_run(s, NULL, NULL, 0, f, o, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(scalar_i32(o[0]), 1);
  CU_ASSERT_EQUAL(scalar_i32(o[1]), 0);
  tfs_tensor_free(o[0]);
  tfs_tensor_free(o[1]);
  tfs_tensor *pv = tfs_tensor_scalar_bool(1);
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, out(md, 0), &p, &pv, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Retval[0] does not have value");
  tfs_tensor_free(pv);
  pv = tfs_tensor_scalar_bool(0); /* both live */
  tfs_output fd[2] = {out(md, 0), out(md, 1)};
  tfs_session_run(s, &p, &pv, 1, fd, o, 2, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(scalar_i32(o[0]), 2);
  CU_ASSERT_EQUAL(scalar_i32(o[1]), 1);
  tfs_tensor_free(o[0]);
  tfs_tensor_free(o[1]);
  tfs_tensor_free(pv);
  tfs_session_free(s);
  teardown();
}

/* A control edge from a dead node makes a node dead, except a
 * ControlTrigger, which runs anyway and is live. */
static void test_dead_control_edges(void) {
  setup();
  tfs_output p = tfs_op_placeholder(g, "p", TFS_BOOL, NULL, 0, st);
  tfs_operation *s0 = sw("switch", cint("data", 5), p);
  tfs_output dead = unary("Identity", "dead", out(s0, 0));
  tfs_operation *noop = node("NoOp", "noop", NULL, 0, dead.oper);
  tfs_operation *trig = node("ControlTrigger", "trigger", NULL, 0,
                             dead.oper);
  tfs_output c = cint("c", 9);
  tfs_output after_noop = out(node("Identity", "after_noop", &c, 1, noop), 0);
  tfs_output after_trig = out(node("Identity", "after_trig", &c, 1, trig), 0);
  tfs_session *s = new_session();
  tfs_tensor *pv = tfs_tensor_scalar_bool(1);
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, after_noop, &p, &pv, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Retval[0] does not have value");
  tfs_tensor *t = tu_run1(s, after_trig, &p, &pv, 1);
  CU_ASSERT_EQUAL(scalar_i32(t), 9);
  tfs_tensor_free(t);
  tfs_tensor_free(pv);
  /* without any Switch, a ControlTrigger plan is a plain plan */
  tfs_output gated = out(node("Identity", "gated", &c, 1,
                              node("ControlTrigger", "t2", NULL, 0, NULL)),
                         0);
  t = tu_run1(s, gated, NULL, NULL, 0);
  CU_ASSERT_EQUAL(scalar_i32(t), 9);
  tfs_tensor_free(t);
  tfs_session_free(s);
  teardown();
}

/* Switch's predicate must be a scalar: at build time when its shape is
 * known, when the kernel runs otherwise. */
static void test_switch_pred_scalar(void) {
  setup();
  tfs_output v = tfs_op_placeholder(g, "v", TFS_BOOL, (int64_t[]){2}, 1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "Switch", "bad");
  tfs_op_desc_add_input(d, cint("x", 1));
  tfs_op_desc_add_input(d, v);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Shape must be rank 0 but is rank 1");
  tfs_output u = tfs_op_placeholder(g, "u", TFS_BOOL, NULL, -1, st);
  tfs_operation *s0 = sw("s", cint("y", 1), u);
  tfs_output r = unary("Identity", "r", out(s0, 1));
  tfs_session *s = new_session();
  int64_t dims[1] = {2};
  tfs_tensor *uv = tfs_tensor_new(TFS_BOOL, dims, 1, st);
  memset(tfs_tensor_data(uv), 1, 2);
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, r, &u, &uv, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "The second input must be a scalar, but it "
                              "has shape [2]\n\t [[{{node s}}]]");
  tfs_tensor_free(uv);
  tfs_session_free(s);
  teardown();
}

/* ---- while loops --------------------------------------------------------- */

static void test_while_sum(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  tfs_output total =
      unary("Identity", "total", sum_loop("while", n, 10, NULL));
  tfs_session *s = new_session();
  CU_ASSERT_EQUAL(run_i32(s, n, 10, total), 45);
  CU_ASSERT_EQUAL(run_i32(s, n, 0, total), 0);  /* Exit right away */
  CU_ASSERT_EQUAL(run_i32(s, n, 1, total), 0);
  CU_ASSERT_EQUAL(run_i32(s, n, 1000, total), 499500);
  CU_ASSERT_EQUAL(run_i32(s, n, 10, total), 45); /* the plan again */
  CU_ASSERT_EQUAL(tfs_session_num_plans(s), 1);
  tfs_session_free(s);
  teardown();
}

/* factorial in float: f *= i while i <= n. */
static void test_while_factorial(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_FLOAT, NULL, 0, st);
  loop L;
  tfs_output init[2] = {cfloat("i0", 1), cfloat("f0", 1)};
  loop_begin(&L, "fact", init, 2, 10);
  tfs_output lim = loop_invariant(&L, "fact/n", n);
  tfs_output one = loop_invariant(&L, "fact/one", cfloat("one", 1));
  loop_cond(&L, binary("LessEqual", "fact/le", L.merge[0], lim));
  tfs_output next[2] = {binary("AddV2", "fact/inc", L.body[0], one),
                        binary("Mul", "fact/mul", L.body[1], L.body[0])};
  loop_end(&L, next);
  tfs_session *s = new_session();
  tfs_tensor *nv = tfs_tensor_scalar_float(10);
  tfs_tensor *t = tu_run1(s, L.exit[1], &n, &nv, 1);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 3628800.0f);
  tfs_tensor_free(t);
  tfs_tensor_free(nv);
  tfs_session_free(s);
  teardown();
}

/* An inner loop in the outer loop's body: for i in [0, n): total +=
 * sum of j for j in [0, i).  One inner frame per outer iteration. */
static tfs_output nested_total(tfs_output n, int parallel) {
  loop O;
  tfs_output init[2] = {cint("outer/i0", 0), cint("outer/s0", 0)};
  loop_begin(&O, "outer", init, 2, parallel);
  tfs_output lim = loop_invariant(&O, "outer/n", n);
  tfs_output one = loop_invariant(&O, "outer/one", cint("one", 1));
  loop_cond(&O, binary("Less", "outer/Less", O.merge[0], lim));
  tfs_output inner =
      sum_loop("outer/inner", O.body[0], parallel, O.body[0].oper);
  tfs_output next[2] = {binary("AddV2", "outer/inc", O.body[0], one),
                        binary("AddV2", "outer/acc", O.body[1], inner)};
  loop_end(&O, next);
  return O.exit[1];
}

static void test_nested_while(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  tfs_output total = nested_total(n, 10);
  tfs_session *s = new_session();
  CU_ASSERT_EQUAL(run_i32(s, n, 6, total), 20);
  CU_ASSERT_EQUAL(run_i32(s, n, 0, total), 0);
  int32_t want = 0;
  for (int i = 0; i < 50; i++) want += i * (i - 1) / 2;
  CU_ASSERT_EQUAL(run_i32(s, n, 50, total), want);
  tfs_session_free(s);
  teardown();
}

/* parallel_iterations bounds the iterations in flight, never the
 * result: 1 and 10 give the same sums; the iteration states live at once
 * stay within the bound (plus the root frame's). */
static void test_parallel_iterations(void) {
  int32_t got[2];
  const int par[2] = {1, 10};
  for (int k = 0; k < 2; k++) {
    setup();
    tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
    tfs_output total = sum_loop("while", n, par[k], NULL);
    tfs_output nested = nested_total(n, par[k]);
    tfs_session *s = new_session();
    got[k] = run_i32(s, n, 300, total);
    CU_ASSERT_TRUE(tfs_cf__last_peak_iterations() <= 1 + par[k]);
    CU_ASSERT_EQUAL(run_i32(s, n, 20, nested), 1140);
    tfs_session_free(s);
    teardown();
  }
  CU_ASSERT_EQUAL(got[0], 44850);
  CU_ASSERT_EQUAL(got[1], 44850);
}

/* LoopCond takes a scalar; Exit needs its Enter; a node fed from two
 * frames, an Enter without a frame name and a value fetched twice from
 * inside a loop are errors. */
static void test_loop_cond_and_exit(void) {
  setup();
  tfs_output v = tfs_op_placeholder(g, "v", TFS_BOOL, (int64_t[]){3}, 1, st);
  tfs_op_desc *d = tfs_op_desc_new(g, "LoopCond", "lc_bad");
  tfs_op_desc_add_input(d, v);
  CU_ASSERT_PTR_NULL(tfs_op_desc_finish(d, st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Shape must be rank 0 but is rank 1");
  tfs_output lonely = unary("Exit", "lonely_exit", cint("c", 1));
  tfs_session *s = new_session();
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, lonely, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Invalid Exit op: Cannot find a corresponding "
                              "Enter op.\n\t [[{{node lonely_exit}}]]");
  /* a loop whose body adds a Const of the root frame */
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  loop L;
  tfs_output init[1] = {cint("i0", 0)};
  loop_begin(&L, "w", init, 1, 10);
  tfs_output lim = loop_invariant(&L, "w/n", n);
  loop_cond(&L, binary("Less", "w/Less", L.merge[0], lim));
  tfs_output next = binary("AddV2", "w/add", L.body[0], cint("outside", 1));
  loop_end(&L, &next);
  tfs_tensor *nv = tfs_tensor_scalar_int32(3);
  CU_ASSERT_EQUAL(tu_run_error(s, L.exit[0], &n, &nv, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  /* breadth first from the nodes without inputs: w/add is first reached
   * from `outside`, so its NextIteration runs in the root frame */
  CU_ASSERT_STRING_EQUAL(msg, "{{node w/Merge_0}} has inputs from different "
                              "frames. The input {{node w/NextIteration_0}} "
                              "is in frame ''. The input {{node w/Enter_0}} "
                              "is in frame 'w'.");
  /* an empty frame name */
  tfs_output e = enter("e", cint("e_in", 1), "", 0, 10);
  tfs_output after = unary("Identity", "after", e);
  CU_ASSERT_EQUAL(tu_run_error(s, after, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Enter node {{node e}} has an empty "
                              "frame_name");
  tfs_tensor_free(nv);
  tfs_session_free(s);
  teardown();
  /* a correct loop: the Exit's value; a body value fetched */
  setup();
  n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  loop_begin(&L, "w", (tfs_output[]){cint("i0", 0)}, 1, 10);
  lim = loop_invariant(&L, "w/n", n);
  tfs_output one = loop_invariant(&L, "w/one", cint("one", 1));
  loop_cond(&L, binary("Less", "w/Less", L.merge[0], lim));
  next = binary("AddV2", "w/add", L.body[0], one);
  loop_end(&L, &next);
  s = new_session();
  CU_ASSERT_EQUAL(run_i32(s, n, 7, L.exit[0]), 7);
  CU_ASSERT_EQUAL(run_i32(s, n, 1, next), 1); /* one iteration: one value */
  nv = tfs_tensor_scalar_int32(2);
  CU_ASSERT_EQUAL(tu_run_error(s, next, &n, &nv, 1, msg, sizeof msg),
                  TFS_INTERNAL);
  CU_ASSERT_STRING_EQUAL(msg, "Retval[0] has already been set.");
  /* no iteration: the body never runs live */
  tfs_tensor_free(nv);
  nv = tfs_tensor_scalar_int32(0);
  CU_ASSERT_EQUAL(tu_run_error(s, next, &n, &nv, 1, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Retval[0] does not have value");
  tfs_tensor_free(nv);
  tfs_session_free(s);
  teardown();
}

typedef struct conc_arg {
  tfs_session *s;
  tfs_output n, total;
  int base, bad;
} conc_arg;

static void *conc_main(void *arg) {
  conc_arg *a = arg;
  tfs_status *ts = tfs_status_new();
  for (int k = 0; k < 20; k++) {
    int32_t n = a->base + k;
    tfs_tensor *v = tfs_tensor_scalar_int32(n), *t = NULL;
    tfs_session_run(a->s, &a->n, &v, 1, &a->total, &t, 1, NULL, 0, ts);
    int32_t want = n * (n - 1) / 2;
    if (!tfs_status_ok(ts) || *(int32_t *)tfs_tensor_data(t) != want)
      a->bad++;
    tfs_tensor_free(t);
    tfs_tensor_free(v);
  }
  tfs_status_free(ts);
  return NULL;
}

/* Runs of one loop plan from several threads at once keep their frames
 * apart. */
static void test_concurrent_runs(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  tfs_output sum = sum_loop("while", n, 4, NULL);
  tfs_session *s = new_session();
  pthread_t th[4];
  conc_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (conc_arg){s, n, sum, 50 * i, 0};
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, conc_main, &args[i]),
                          0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CU_ASSERT_EQUAL(args[i].bad, 0);
  }
  tfs_session_free(s);
  teardown();
}

/* A loop whose float math the placer puts on a second device (FAKE,
 * preferred over the CPU, which keeps the control-flow ops; a machine's
 * GPUs are left out): the copies run inside the loop's frame like any
 * node. */
static void test_loop_on_two_devices(void) {
  tfs_fake_device_register();
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  loop L;
  tfs_output init[2] = {cint("i0", 0), cfloat("x0", 0.25f)};
  loop_begin(&L, "w", init, 2, 10);
  tfs_output lim = loop_invariant(&L, "w/n", n);
  tfs_output one = loop_invariant(&L, "w/one", cint("one", 1));
  tfs_output step = loop_invariant(&L, "w/step", cfloat("step", 1.5f));
  loop_cond(&L, binary("Less", "w/Less", L.merge[0], lim));
  tfs_output next[2] = {binary("AddV2", "w/inc", L.body[0], one),
                        binary("AddV2", "w/add", L.body[1], step)};
  loop_end(&L, next);
  tfs_session_options *o = tu_no_gpu_options();
  tfs_session *s = tfs_session_new(g, o, st);
  tfs_session_options_free(o);
  TFS_ASSERT_OK(st);
  tfs_buffer opts = {(const uint8_t[]){0x08, 0x03}, 2, NULL}; /* FULL */
  tfs_buffer *md = tfs_buffer_new();
  tfs_tensor *nv = tfs_tensor_scalar_int32(6), *t = NULL;
  tfs_session_run_ex(s, &opts, &n, &nv, 1, &L.exit[1], &t, 1, NULL, 0, md,
                     st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tu_scalar_float(t), 9.25f);
  CU_ASSERT_PTR_NOT_NULL(memmem(md->data, md->length, "device:FAKE:0", 13));
  CU_ASSERT_PTR_NOT_NULL(memmem(md->data, md->length, "_copy_", 6));
  tfs_tensor_free(t);
  tfs_tensor_free(nv);
  tfs_buffer_free(md);
  tfs_session_free(s);
  teardown();
  tfs_fake_device_unregister();
}

/* ---- memory and time ----------------------------------------------------- */

/* Bytes the allocator has handed out and not taken back. */
static int64_t allocated_bytes(void) {
#ifdef CF_SANITIZER
  return (int64_t)__sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 mi = mallinfo2();
  return (int64_t)mi.uordblks + (int64_t)mi.hblkhd;
#endif
}

typedef struct sampler {
  pthread_t th;
  atomic_int stop;
  _Atomic int64_t peak;
} sampler;

static void *sample_main(void *arg) {
  sampler *sm = arg;
  while (!atomic_load(&sm->stop)) {
    int64_t b = allocated_bytes();
    if (b > atomic_load(&sm->peak)) atomic_store(&sm->peak, b);
    struct timespec ts = {0, 500000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

/* Runs the loop for n iterations while sampling the allocator; returns
 * the most bytes allocated at once above what was allocated before, and
 * the run's time in *ns. */
static int64_t loop_peak(tfs_session *s, tfs_output nph, int32_t n,
                         tfs_output fetch, int64_t *ns) {
  sampler sm;
  atomic_init(&sm.stop, 0);
  int64_t base = allocated_bytes();
  atomic_init(&sm.peak, base);
  CU_ASSERT_EQUAL_FATAL(pthread_create(&sm.th, NULL, sample_main, &sm), 0);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  int32_t got = run_i32(s, nph, n, fetch);
  clock_gettime(CLOCK_MONOTONIC, &b);
  atomic_store(&sm.stop, 1);
  pthread_join(sm.th, NULL);
  CU_ASSERT_EQUAL(got, n);
  *ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
  return atomic_load(&sm.peak) - base;
}

/* 100,000 iterations hold no more memory than 1,000: an iteration's
 * state goes as soon as it is done. */
static void test_100k_iterations_bounded_memory(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  loop L;
  int64_t dims[1] = {64};
  float zeros[64] = {0};
  tfs_tensor *z = tu_floats(dims, 1, zeros);
  tfs_output init[2] = {cint("i0", 0), tfs_op_const(g, "v0", z, st)};
  tfs_tensor_free(z);
  loop_begin(&L, "w", init, 2, 10);
  tfs_output lim = loop_invariant(&L, "w/n", n);
  tfs_output one = loop_invariant(&L, "w/one", cint("one", 1));
  tfs_output half = loop_invariant(&L, "w/half", cfloat("half", 0.5f));
  loop_cond(&L, binary("Less", "w/Less", L.merge[0], lim));
  /* a 64-float vector through the body: a tensor per iteration */
  tfs_output next[2] = {binary("AddV2", "w/inc", L.body[0], one),
                        binary("Mul", "w/scale", L.body[1], half)};
  loop_end(&L, next);
  tfs_session *s = new_session();
  int64_t ns_small, ns_big;
  CU_ASSERT_EQUAL(run_i32(s, n, 10, L.exit[0]), 10); /* plan built */
  int64_t small = loop_peak(s, n, 1000, L.exit[0], &ns_small);
  int64_t big = loop_peak(s, n, 100000, L.exit[0], &ns_big);
  int64_t iters = tfs_cf__last_peak_iterations();
  /* the time without the sampler (which takes the allocator's locks) */
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  CU_ASSERT_EQUAL(run_i32(s, n, 100000, L.exit[0]), 100000);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
  printf("\n  100,000 iterations: %.1f ms, %.0f ns per iteration (%.0f "
         "while sampling); peak allocation above the start %lld bytes "
         "(1,000 iterations: %lld); at most %lld iteration states at "
         "once\n",
         ns / 1e6, ns / 100000, (double)ns_big / 100000, (long long)big,
         (long long)small, (long long)iters);
  CU_ASSERT_TRUE(iters <= 11);
  CU_ASSERT_TRUE(big < small + 256 * 1024);
  CU_ASSERT_TRUE(big < 4 * 1024 * 1024);
  tfs_session_free(s);
  teardown();
}

/* Reads tests/conformance/<rel>/graph.pb (a GraphDef TensorFlow wrote)
 * into data; returns its length. */
static size_t read_case_graph(const char *rel, uint8_t *data, size_t cap) {
  char path[512];
  snprintf(path, sizeof path, "tests/conformance/%s/graph.pb", rel);
  return tu_read_src(path, data, cap);
}

/* The same for TF2's functional While (tf.while_loop with control flow v2,
 * a GraphDef TensorFlow wrote): run directly (the function optimizer off:
 * the While kernel keeps only the loop variables) and lowered to TF1 loops
 * (on). */
static void test_functional_while_100k_bounded_memory(void) {
  static uint8_t data[1 << 16];
  size_t len = read_case_graph("functional/while_sum", data, sizeof data);
  for (int on = 0; on <= 1; on++) {
    setup();
    tfs_optimizer_set_experimental_option("function_optimization", on, st);
    tfs_optimizer_set_experimental_option("min_graph_nodes", -1, st);
    tfs_import_results *r = tfs_graph_import_graphdef(g, data, len, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_import_results_free(r);
    tfs_session *s = new_session();
    tfs_output n = {tfs_graph_operation_by_name(g, "n"), 0};
    tfs_output i = {tfs_graph_operation_by_name(g, "i"), 0};
    int64_t ns_small, ns_big;
    CU_ASSERT_EQUAL(run_i32(s, n, 10, i), 10);
    int64_t small = loop_peak(s, n, 1000, i, &ns_small);
    int64_t big = loop_peak(s, n, 100000, i, &ns_big);
    printf("\n  functional While %s, 100,000 iterations: %.0f ns per "
           "iteration (while sampling); peak allocation above the start "
           "%lld bytes (1,000 iterations: %lld)",
           on ? "lowered" : "direct", (double)ns_big / 100000,
           (long long)big, (long long)small);
    CU_ASSERT_TRUE(big < small + 256 * 1024);
    CU_ASSERT_TRUE(big < 4 * 1024 * 1024);
    tfs_session_free(s);
    tfs_optimizer_reset_experimental_options();
    teardown();
  }
  printf("\n");
}

/* A loop that never ends stops at the session's operation timeout. */
static void test_infinite_loop_timeout(void) {
  setup();
  loop L;
  tfs_output init[1] = {cint("i0", 0)};
  loop_begin(&L, "forever", init, 1, 10);
  tfs_output lim = loop_invariant(&L, "forever/n", cint("n", 1));
  loop_cond(&L, binary("Less", "forever/Less", L.merge[0], lim));
  tfs_output next = unary("Identity", "forever/same", L.body[0]);
  loop_end(&L, &next);
  tfs_session_options *o = tfs_session_options_new();
  o->config.operation_timeout_in_ms = 100;
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, L.exit[0], NULL, NULL, 0, msg, sizeof msg),
                  TFS_DEADLINE_EXCEEDED);
  clock_gettime(CLOCK_MONOTONIC, &b);
  CU_ASSERT_STRING_EQUAL(msg, "Timed out waiting for notification");
  CU_ASSERT_TRUE(b.tv_sec - a.tv_sec < 20);
  /* RunOptions' timeout too */
  tfs_session_free(s);
  tfs_session_options_free(o);
  teardown();
}

/* ---- back edges and graphs ----------------------------------------------- */

/* tfs_graph_update_edge: TF_UpdateEdge's checks and messages. */
static void test_update_edge(void) {
  setup();
  tfs_output a = cint("a", 1), b = cint("b", 2);
  tfs_output f = cfloat("f", 1);
  tfs_output v = tfs_op_placeholder(g, "v", TFS_INT32, (int64_t[]){3}, 1, st);
  tfs_output sum = binary("AddV2", "sum", a, b);
  tfs_input dst = {sum.oper, 1};
  tfs_graph_update_edge(g, out(a.oper, 1), dst, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "Cannot update edge. Output index "
                   "[1] is greater than the number of total outputs [1].");
  tfs_input bad = {sum.oper, 2};
  tfs_graph_update_edge(g, a, bad, st);
  TFS_ASSERT_ERROR(st, TFS_OUT_OF_RANGE, "Cannot update edge. Input index "
                   "[2] is greater than the number of total inputs [2].");
  tfs_graph_update_edge(g, f, dst, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Input 1 of node sum was passed float from f:0 "
                   "incompatible with expected int32.");
  tfs_graph_update_edge(g, v, dst, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "Cannot update edge, incompatible shapes: [3] and [].");
  CU_ASSERT_EQUAL(tfs_operation_output_num_consumers(b), 1);
  tfs_graph_update_edge(g, a, dst, st); /* sum = a + a */
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_operation_output_num_consumers(b), 0);
  CU_ASSERT_EQUAL(tfs_operation_output_num_consumers(a), 2);
  tfs_session *s = new_session();
  CU_ASSERT_EQUAL(run_i32(s, (tfs_output){NULL, 0}, 0, sum), 2);
  /* an input from a later node: plans order by edges, not ids */
  tfs_output later = cint("later", 40);
  tfs_input first = {sum.oper, 0};
  tfs_graph_update_edge(g, later, first, st);
  TFS_ASSERT_OK(st);
  tfs_output after = unary("Identity", "after", sum);
  CU_ASSERT_EQUAL(run_i32(s, (tfs_output){NULL, 0}, 0, after), 41);
  tfs_session_free(s);
  teardown();
}

/* A cycle without a NextIteration is TensorFlow's ValidateNoCycles
 * error. */
static void test_cycle_is_an_error(void) {
  setup();
  tfs_output c = cint("c", 1);
  tfs_output x = unary("Identity", "x", c);
  tfs_output y = unary("Identity", "y", x);
  tfs_graph_update_edge(g, y, (tfs_input){x.oper, 0}, st);
  TFS_ASSERT_OK(st);
  tfs_output z = unary("Identity", "z", y);
  tfs_session *s = new_session();
  char msg[256];
  CU_ASSERT_EQUAL(tu_run_error(s, z, NULL, NULL, 0, msg, sizeof msg),
                  TFS_INVALID_ARGUMENT);
  CU_ASSERT_STRING_EQUAL(msg, "Graph is invalid, contains a cycle with 3 "
                              "nodes, including: x, y, z");
  tfs_session_free(s);
  teardown();
}

/* A loop built with the API goes out as a GraphDef and comes back: the
 * importer adds the back edges after the nodes, as TensorFlow's. */
static void test_graphdef_round_trip(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  tfs_output total = unary("Identity", "total", nested_total(n, 4));
  tfs_buffer *b = gd_export(g);
  tfs_graph *g2 = gd_import_buffer(b);
  tfs_buffer_free(b);
  tfs_operation *m = tfs_graph_operation_by_name(g2, "outer/Merge_0");
  tfs_output back = tfs_operation_input((tfs_input){m, 1});
  CU_ASSERT_STRING_EQUAL(tfs_operation_name(back.oper),
                         "outer/NextIteration_0");
  tfs_session *s = tfs_session_new(g2, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_output n2 = {tfs_graph_operation_by_name(g2, "n"), 0};
  tfs_output t2 = {tfs_graph_operation_by_name(g2, "total"), 0};
  CU_ASSERT_EQUAL(run_i32(s, n2, 6, t2), 20);
  tfs_session_free(s);
  tfs_graph_free(g2);
  (void)total;
  teardown();
}

static Tensorflow__AttrValue *av_string(gdb *b, const char *s) {
  Tensorflow__AttrValue *v = gd_av(b);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)tfs_pb_arena_strdup(&b->a, s);
  v->s.len = strlen(s);
  return v;
}

/* A hand-written while loop whose NextIteration comes after its Merge:
 * imported and run; a back edge of the wrong dtype is MakeEdge's error,
 * and the import leaves the graph unchanged. */
static void test_graphdef_back_edges(void) {
  for (int wrong = 0; wrong < 2; wrong++) {
    gdb b;
    gdb_init(&b);
    Tensorflow__NodeDef *nd = gd_node(&b, "x", "Const", NULL);
    int64_t none[1] = {0};
    Tensorflow__TensorProto *tp = gd_tensor(&b, TFS_INT32, 0, none);
    tp->int_val = tfs_pb_arena_array(&b.a, 1, sizeof(int32_t));
    tp->int_val[0] = 3;
    tp->n_int_val = 1;
    gd_attr(&b, nd, "value", gd_av_tensor(&b, tp));
    gd_attr(&b, nd, "dtype", gd_av_type(&b, TFS_INT32));
    nd = gd_node(&b, "w/Enter", "Enter", "x");
    gd_attr(&b, nd, "T", gd_av_type(&b, TFS_INT32));
    gd_attr(&b, nd, "frame_name", av_string(&b, "w"));
    nd = gd_node(&b, "w/Merge", "Merge", "w/Enter,w/NextIteration");
    gd_attr(&b, nd, "T", gd_av_type(&b, TFS_INT32));
    gd_attr(&b, nd, "N", gd_av_int(&b, 2));
    nd = gd_node(&b, "w/Less", "Less", "w/Merge,w/Enter");
    gd_attr(&b, nd, "T", gd_av_type(&b, TFS_INT32));
    gd_node(&b, "w/LoopCond", "LoopCond", "w/Less");
    nd = gd_node(&b, "w/Switch", "Switch", "w/Merge,w/LoopCond");
    gd_attr(&b, nd, "T", gd_av_type(&b, TFS_INT32));
    nd = gd_node(&b, "w/Exit", "Exit", "w/Switch");
    gd_attr(&b, nd, "T", gd_av_type(&b, TFS_INT32));
    nd = gd_node(&b, "w/NextIteration", "NextIteration",
                 wrong ? "w/LoopCond" : "w/Switch:1");
    gd_attr(&b, nd, "T", gd_av_type(&b, wrong ? TFS_BOOL : TFS_INT32));
    if (wrong) {
      gd_expect_reject(&b, "Input 1 of node w/Merge was passed bool from "
                           "w/NextIteration:0 incompatible with expected "
                           "int32.");
      gdb_free(&b);
      continue;
    }
    setup();
    tfs_import_results *r = gd_import(g, &b, NULL, st);
    TFS_ASSERT_OK(st);
    tfs_import_results_free(r);
    gdb_free(&b);
    tfs_operation *m = tfs_graph_operation_by_name(g, "w/Merge");
    /* TensorFlow's shape: the back edge is unknown when Merge is added */
    CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, out(m, 0), st), -1);
    tfs_session *s = new_session();
    tfs_output exit = {tfs_graph_operation_by_name(g, "w/Exit"), 0};
    CU_ASSERT_EQUAL(run_i32(s, (tfs_output){NULL, 0}, 0, exit), 3);
    tfs_session_free(s);
    teardown();
  }
}

/* A GraphDef TensorFlow 2.21 wrote (tf.compat.v1.while_loop): its
 * Merges get their NextIteration inputs. */
static void test_tensorflow_while_graphdef(void) {
  static uint8_t data[1 << 16];
  size_t len = read_case_graph("control/while_nested", data, sizeof data);
  setup();
  tfs_import_results *r = tfs_graph_import_graphdef(g, data, len, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_import_results_free(r);
  tfs_operation *m = tfs_graph_operation_by_name(g, "outer/Merge");
  CU_ASSERT_STRING_EQUAL(
      tfs_operation_name(tfs_operation_input((tfs_input){m, 1}).oper),
      "outer/NextIteration");
  tfs_session *s = new_session();
  tfs_output n = {tfs_graph_operation_by_name(g, "n"), 0};
  tfs_output total = {tfs_graph_operation_by_name(g, "total"), 0};
  int32_t want = 0;
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < i; j++) want += j * i;
  CU_ASSERT_EQUAL(run_i32(s, n, 12, total), want);
  tfs_session_free(s);
  teardown();
}

/* ---- what the rest of the system does with loops ------------------------- */

/* Plans without control flow stay plain; with it, the optimizer is
 * skipped (the plan runs the graph as built), memory is not planned;
 * step stats list the loop's nodes; tfs_graph_optimize says why it does
 * not rewrite a loop. */
static void test_plans_and_optimizer(void) {
  setup();
  tfs_output n = tfs_op_placeholder(g, "n", TFS_INT32, NULL, 0, st);
  tfs_output total = sum_loop("while", n, 10, NULL);
  tfs_output plain = binary("AddV2", "plain", n, cint("k", 2));
  tfs_session *s = new_session();
  CU_ASSERT_EQUAL(run_i32(s, n, 5, plain), 7);
  CU_ASSERT_EQUAL(run_i32(s, n, 5, total), 10);
  tfs_buffer opts = {(const uint8_t[]){0x08, 0x03}, 2, NULL}; /* FULL */
  tfs_buffer *md = tfs_buffer_new();
  tfs_tensor *nv = tfs_tensor_scalar_int32(3), *t = NULL;
  tfs_session_run_ex(s, &opts, &n, &nv, 1, &total, &t, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(scalar_i32(t), 3);
  CU_ASSERT_TRUE(md->length > 0);
  CU_ASSERT_PTR_NOT_NULL(memmem(md->data, md->length, "while/Merge_0", 13));
  CU_ASSERT_PTR_NOT_NULL(memmem(md->data, md->length, "while/add_s", 11));
  tfs_tensor_free(t);
  tfs_tensor_free(nv);
  tfs_buffer_free(md);
  tfs_session_free(s);
  tfs_graph *og = tfs_graph_optimize(g, NULL, 0, &total, 1, NULL, 0, NULL,
                                     NULL, st);
  CU_ASSERT_PTR_NULL(og);
  TFS_ASSERT_ERROR(st, TFS_UNIMPLEMENTED, "the graph has TF1 control flow");
  teardown();
}

/* TensorFlow's shape functions: Merge keeps the dims all inputs share,
 * Enter is unknown unless a loop invariant, Switch passes data's. */
static void test_shape_functions(void) {
  setup();
  tfs_output a = tfs_op_placeholder(g, "a", TFS_FLOAT, (int64_t[]){2, 3}, 2,
                                    st);
  tfs_output b = tfs_op_placeholder(g, "b", TFS_FLOAT, (int64_t[]){2, 4}, 2,
                                    st);
  tfs_output c = tfs_op_placeholder(g, "c", TFS_FLOAT, (int64_t[]){2}, 1, st);
  tfs_output ab[2] = {a, b}, ac[2] = {a, c};
  int64_t dims[4];
  tfs_operation *m = merge("m_ab", ab, 2);
  CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, out(m, 0), st), 2);
  tfs_graph_tensor_shape(g, out(m, 0), dims, 2, st);
  CU_ASSERT_EQUAL(dims[0], 2);
  CU_ASSERT_EQUAL(dims[1], -1);
  CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, out(m, 1), st), 0);
  m = merge("m_ac", ac, 2);
  CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, out(m, 0), st), -1);
  tfs_output e = enter("e", a, "f", 0, 10);
  CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, e, st), -1);
  e = enter("e_const", a, "f", 1, 10);
  CU_ASSERT_EQUAL(tfs_graph_tensor_num_dims(g, e, st), 2);
  tfs_operation *s0 = sw("s", a, tfs_op_placeholder(g, "p", TFS_BOOL, NULL,
                                                    0, st));
  for (int k = 0; k < 2; k++) {
    tfs_graph_tensor_shape(g, out(s0, k), dims, 2, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL(dims[1], 3);
  }
  teardown();
}

static const tfs_test_case cond_cases[] = {
    {"shape_functions", test_shape_functions},
    {"cond_both_branches", test_cond_both_branches},
    {"dead_branch_not_executed", test_cond_dead_branch_not_executed},
    {"dead_fetch", test_dead_fetch},
    {"merge_first_live_wins", test_merge_first_live_wins},
    {"dead_control_edges", test_dead_control_edges},
    {"switch_pred_scalar", test_switch_pred_scalar},
    {NULL, NULL}};
static const tfs_test_case while_cases[] = {
    {"sum", test_while_sum},
    {"factorial", test_while_factorial},
    {"nested", test_nested_while},
    {"parallel_iterations", test_parallel_iterations},
    {"loop_cond_and_exit", test_loop_cond_and_exit},
    {"concurrent_runs", test_concurrent_runs},
    {"on_two_devices", test_loop_on_two_devices},
    {"100k_iterations_bounded_memory", test_100k_iterations_bounded_memory},
    {"functional_while_100k_bounded_memory",
     test_functional_while_100k_bounded_memory},
    {"infinite_loop_timeout", test_infinite_loop_timeout},
    {NULL, NULL}};
static const tfs_test_case graph_cases[] = {
    {"update_edge", test_update_edge},
    {"cycle_is_an_error", test_cycle_is_an_error},
    {"graphdef_round_trip", test_graphdef_round_trip},
    {"graphdef_back_edges", test_graphdef_back_edges},
    {"tensorflow_while_graphdef", test_tensorflow_while_graphdef},
    {"plans_and_optimizer", test_plans_and_optimizer},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cond", cond_cases},
                                          {"while", while_cases},
                                          {"graph", graph_cases},
                                          {NULL, NULL}};

/*
 * tests/compat_c_api/test_c_api_while.c - c_api.h's while loops
 * (TF_NewWhile, TF_FinishWhile, TF_AbortWhile) and functions made from
 * graphs (TF_GraphToFunction, TF_GraphToFunctionWithControlOutputs),
 * following TensorFlow's while_loop_test.cc and c_api_function_test.cc:
 * loops and calls run through TF_SessionRun, errors with their texts,
 * FunctionDefs round-tripped, functions called by PartitionedCall and by
 * their name as an op type, also after a GraphDef import.
 */
#include <stdlib.h>

#include "capitest.h"
#include "proto/function.pb-c.h"

static TF_Status *s;
static TF_Graph *g;

static void setup(void) {
  s = TF_NewStatus();
  g = TF_NewGraph();
}

static void teardown(void) {
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- helpers ------------------------------------------------------------- */

static TF_Output out0(TF_Operation *op) {
  TF_Output o = {op, 0};
  return o;
}

static TF_Operation *placeholder(TF_Graph *gr, const char *name) {
  return ct_placeholder(gr, name, TF_INT32, NULL, -2);
}

static TF_Operation *scalar(TF_Graph *gr, const char *name, int32_t v) {
  return ct_const_int32s(gr, name, &v, NULL, 0);
}

static TF_Operation *binop(TF_Graph *gr, const char *type, const char *name,
                           TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TF_NewOperation(gr, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  return op;
}

/* TensorFlow's test Add: an AddN of two (output arg "sum"). */
static TF_Operation *addn(TF_Graph *gr, const char *name, TF_Output a,
                          TF_Output b) {
  TF_OperationDescription *d = TF_NewOperation(gr, "AddN", name);
  TF_Output in[2] = {a, b};
  TF_AddInputList(d, in, 2);
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  return op;
}

static int num_ops(TF_Graph *gr) {
  size_t pos = 0;
  int n = 0;
  while (TF_GraphNextOperation(gr, &pos)) n++;
  return n;
}

/* Runs the graph g: feeds int32 scalars, fetches n values as int32s. */
static void run_ints(const TF_Output *feeds, const int32_t *values, int nfeed,
                     const TF_Output *fetches, int32_t *got, int nfetch) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  CT_ASSERT_OK(s);
  TF_Tensor *in[8] = {NULL}, *out[8] = {NULL};
  for (int i = 0; i < nfeed; i++) in[i] = ct_int32s(NULL, 0, &values[i]);
  TF_SessionRun(sess, NULL, feeds, in, nfeed, fetches, out, nfetch, NULL, 0,
                NULL, s);
  if (TF_GetCode(s) != TF_OK)
    fprintf(stderr, "\n  run failed: %s\n", TF_Message(s));
  for (int i = 0; i < nfetch; i++) {
    got[i] = out[i] && TF_TensorType(out[i]) == TF_INT32
                 ? *(int32_t *)TF_TensorData(out[i])
                 : -12345;
    TF_DeleteTensor(out[i]);
  }
  for (int i = 0; i < nfeed; i++) TF_DeleteTensor(in[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
}

/* ---- while loops --------------------------------------------------------- */

static TF_Output loop_in[4];
static TF_WhileParams *params;
static TF_Output loop_out[4];

/* TensorFlow's CApiWhileLoopTest::Init: n int32 placeholders p0.., a new
 * loop named test_loop (the graph must not change). */
static void init_loop(int n) {
  setup();
  for (int i = 0; i < n; i++) {
    char name[8];
    snprintf(name, sizeof name, "p%d", i);
    loop_in[i] = out0(placeholder(g, name));
    loop_out[i] = (TF_Output){NULL, -1};
  }
  int before = num_ops(g);
  TF_WhileParams p = TF_NewWhile(g, loop_in, n, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(num_ops(g), before);
  params = malloc(sizeof p);
  memcpy(params, &p, sizeof p);
  params->name = "test_loop";
}

static void finish_loop(void) {
  free(params);
  params = NULL;
  teardown();
}

/* A valid condition: cond_input0 < 1. */
static void make_cond(void) {
  TF_Operation *one = scalar(params->cond_graph, "scalar", 1);
  params->cond_output = out0(binop(params->cond_graph, "Less", "less_than",
                                   params->cond_inputs[0], out0(one)));
}

static void expect_finish_error(TF_Code code, const char *msg) {
  int before = num_ops(g);
  TF_FinishWhile(params, s, loop_out);
  CT_ASSERT_STATUS(s, code, msg);
  CU_ASSERT_EQUAL(num_ops(g), before); /* the loop is added whole or not */
}

static void test_while_basic(void) {
  init_loop(2);
  CU_ASSERT_PTR_NOT_NULL(params->cond_graph);
  CU_ASSERT_PTR_NOT_NULL(params->body_graph);
  CU_ASSERT_EQUAL(params->ninputs, 2);
  CU_ASSERT_PTR_NOT_NULL(params->cond_inputs[1].oper);
  CU_ASSERT_PTR_NOT_NULL(params->body_inputs[1].oper);
  CU_ASSERT_PTR_NULL(params->body_outputs[0].oper);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(params->cond_inputs[1].oper),
                         "cond_input1");
  CU_ASSERT_STRING_EQUAL(TF_OperationName(params->body_inputs[0].oper),
                         "body_input0");
  /* while (input1 < input2) input1 += input2 + 1 */
  params->cond_output = out0(binop(params->cond_graph, "Less", "less_than",
                                   params->cond_inputs[0],
                                   params->cond_inputs[1]));
  TF_Operation *add1 = binop(params->body_graph, "Add", "add1",
                             params->body_inputs[0], params->body_inputs[1]);
  TF_Operation *one = scalar(params->body_graph, "scalar", 1);
  TF_Operation *add2 =
      binop(params->body_graph, "Add", "add2", out0(add1), out0(one));
  params->body_outputs[0] = out0(add2);
  params->body_outputs[1] = params->body_inputs[1];
  TF_FinishWhile(params, s, loop_out);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NOT_NULL(loop_out[0].oper);
  CU_ASSERT_PTR_NOT_NULL(loop_out[1].oper);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(loop_out[1].oper),
                         "test_loop/Exit_1");
  /* TensorFlow's names; the placeholders are not copied */
  const char *names[] = {"test_loop/Enter",        "test_loop/Merge_1",
                         "test_loop/LoopCond",     "test_loop/Switch",
                         "test_loop/NextIteration_1",
                         "test_loop/cond/less_than", "test_loop/body/add2",
                         "test_loop/body/scalar"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    CU_ASSERT_PTR_NOT_NULL(TF_GraphOperationByName(g, names[i]));
  CU_ASSERT_PTR_NULL(TF_GraphOperationByName(g, "test_loop/cond/cond_input0"));
  CU_ASSERT_PTR_NULL(TF_GraphOperationByName(g, "test_loop/body/body_input1"));
  char frame[32] = {0};
  TF_OperationGetAttrString(TF_GraphOperationByName(g, "test_loop/Enter_1"),
                            "frame_name", frame, sizeof frame - 1, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(frame, "test_loop");
  int32_t got[2];
  run_ints(loop_in, (int32_t[]){-9, 2}, 2, loop_out, got, 2);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[0], 3);
  CU_ASSERT_EQUAL(got[1], 2);
  /* a second loop of the same name gets its own scope */
  TF_WhileParams p2 = TF_NewWhile(g, loop_in, 1, s);
  CT_ASSERT_OK(s);
  p2.name = "test_loop";
  p2.cond_output = out0(binop(p2.cond_graph, "Less", "lt", p2.cond_inputs[0],
                              out0(scalar(p2.cond_graph, "ten", 10))));
  p2.body_outputs[0] =
      out0(binop(p2.body_graph, "Add", "inc", p2.body_inputs[0],
                 out0(scalar(p2.body_graph, "one", 1))));
  TF_Output o2;
  TF_FinishWhile(&p2, s, &o2);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(TF_OperationName(o2.oper), "test_loop_1/Exit");
  run_ints(loop_in, (int32_t[]){4}, 1, &o2, got, 1);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[0], 10);
  finish_loop();
}

/* Three loop variables of two dtypes: i counts to n while x doubles. */
static void test_while_multiple_vars(void) {
  setup();
  TF_Output in[3] = {out0(placeholder(g, "i")),
                     out0(ct_scalar_float(g, "x", 1.5f)),
                     out0(placeholder(g, "n"))};
  TF_WhileParams p = TF_NewWhile(g, in, 3, s);
  CT_ASSERT_OK(s);
  p.name = "loop";
  p.cond_output = out0(
      binop(p.cond_graph, "Less", "lt", p.cond_inputs[0], p.cond_inputs[2]));
  p.body_outputs[0] =
      out0(binop(p.body_graph, "Add", "inc", p.body_inputs[0],
                 out0(scalar(p.body_graph, "one", 1))));
  p.body_outputs[1] =
      out0(binop(p.body_graph, "Mul", "dbl", p.body_inputs[1],
                 out0(ct_scalar_float(p.body_graph, "two", 2.0f))));
  p.body_outputs[2] = p.body_inputs[2];
  TF_Output out[3];
  TF_FinishWhile(&p, s, out);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_OperationOutputType(out[1]), TF_FLOAT);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_Output feeds[2] = {in[0], in[2]};
  int32_t i0 = 1, n = 5;
  TF_Tensor *fv[2] = {ct_int32s(NULL, 0, &i0), ct_int32s(NULL, 0, &n)};
  TF_Tensor *got[3] = {NULL, NULL, NULL};
  TF_SessionRun(sess, NULL, feeds, fv, 2, out, got, 3, NULL, 0, NULL, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(*(int32_t *)TF_TensorData(got[0]), 5);
  CU_ASSERT_EQUAL(*(float *)TF_TensorData(got[1]), 24.0f);
  CU_ASSERT_EQUAL(*(int32_t *)TF_TensorData(got[2]), 5);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(got[i]);
  for (int i = 0; i < 2; i++) TF_DeleteTensor(fv[i]);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  teardown();
}

/* TensorFlow's NestedLoop: an inner loop built in the outer body. */
static void test_while_nested(void) {
  init_loop(2);
  TF_Operation *six = scalar(params->cond_graph, "scalar", 6);
  params->cond_output = out0(binop(params->cond_graph, "Less", "less_than",
                                   params->cond_inputs[0], out0(six)));
  TF_Output inner_in[2] = {params->body_inputs[0], params->body_inputs[1]};
  TF_WhileParams in = TF_NewWhile(params->body_graph, inner_in, 2, s);
  CT_ASSERT_OK(s);
  in.name = "inner_loop";
  TF_Operation *three = scalar(in.cond_graph, "scalar", 3);
  in.cond_output = out0(binop(in.cond_graph, "Less", "less_than",
                              in.cond_inputs[0], out0(three)));
  TF_Operation *one = scalar(in.body_graph, "one", 1);
  TF_Operation *two = scalar(in.body_graph, "two", 2);
  in.body_outputs[1] =
      out0(binop(in.body_graph, "Add", "add", in.body_inputs[1], out0(one)));
  in.body_outputs[0] =
      out0(binop(in.body_graph, "Add", "add2", in.body_inputs[0], out0(two)));
  TF_Output inner_out[2] = {{NULL, -1}, {NULL, -1}};
  TF_FinishWhile(&in, s, inner_out);
  CT_ASSERT_OK(s);
  params->body_outputs[0] = out0(binop(params->body_graph, "Add", "add",
                                       params->body_inputs[0], inner_out[1]));
  params->body_outputs[1] = inner_out[1];
  TF_FinishWhile(params, s, loop_out);
  CT_ASSERT_OK(s);
  CU_ASSERT_PTR_NOT_NULL(TF_GraphOperationByName(g, "test_loop/cond/scalar"));
  CU_ASSERT_PTR_NOT_NULL(TF_GraphOperationByName(g, "test_loop/body/add"));
  CU_ASSERT_PTR_NOT_NULL(
      TF_GraphOperationByName(g, "test_loop/body/inner_loop/body/one"));
  CU_ASSERT_PTR_NOT_NULL(
      TF_GraphOperationByName(g, "test_loop/body/inner_loop/cond/less_than"));
  int32_t got[2];
  run_ints(loop_in, (int32_t[]){0, 0}, 2, loop_out, got, 2);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[0], 8);
  CU_ASSERT_EQUAL(got[1], 3);
  finish_loop();
}

/* A tensor of the outer graph reaches the loop as a loop variable the
 * body passes on; an op of the body cannot name it directly (TensorFlow
 * copies the body by GraphDef import, which does not know it). */
static void test_while_outer_tensor(void) {
  init_loop(2); /* p0: counter, p1: the outer limit */
  TF_Operation *limit = scalar(g, "limit", 7);
  params->name = NULL;
  TF_AbortWhile(params);
  free(params);
  TF_Output in[2] = {loop_in[0], out0(limit)};
  TF_WhileParams p = TF_NewWhile(g, in, 2, s);
  CT_ASSERT_OK(s);
  p.name = "count";
  p.cond_output = out0(
      binop(p.cond_graph, "Less", "lt", p.cond_inputs[0], p.cond_inputs[1]));
  p.body_outputs[0] = out0(binop(p.body_graph, "Add", "inc", p.body_inputs[0],
                                 out0(scalar(p.body_graph, "one", 1))));
  p.body_outputs[1] = p.body_inputs[1];
  TF_Output out[2];
  TF_FinishWhile(&p, s, out);
  CT_ASSERT_OK(s);
  int32_t got[2];
  run_ints(loop_in, (int32_t[]){2}, 1, out, got, 2);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[0], 7);
  CU_ASSERT_EQUAL(got[1], 7);
  /* the body naming the outer p1 directly */
  TF_WhileParams q = TF_NewWhile(g, loop_in, 1, s);
  CT_ASSERT_OK(s);
  q.name = "direct";
  q.cond_output = out0(binop(q.cond_graph, "Less", "lt", q.cond_inputs[0],
                             out0(scalar(q.cond_graph, "ten", 10))));
  q.body_outputs[0] =
      out0(binop(q.body_graph, "Add", "add", q.body_inputs[0], loop_in[1]));
  int before = num_ops(g);
  TF_FinishWhile(&q, s, out);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Node 'add': Unknown input node 'p1'");
  CU_ASSERT_EQUAL(num_ops(g), before);
  /* the freed body op is no consumer of p1 any more */
  CU_ASSERT_EQUAL(TF_OperationOutputNumConsumers(loop_in[1]), 0);
  params = NULL;
  teardown();
}

static void test_while_errors(void) {
  init_loop(1);
  params->body_outputs[0] = params->body_inputs[0];
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "TF_WhileParams `cond_output` field isn't set");
  /* FinishWhile freed the params: they are refused now */
  TF_FinishWhile(params, s, loop_out);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "TF_WhileParams must be created by successful "
                   "TF_NewWhile() call");
  free(params);

#define AGAIN()                                                        \
  do {                                                                 \
    TF_WhileParams p_ = TF_NewWhile(g, loop_in, 1, s);                 \
    CT_ASSERT_OK(s);                                                   \
    params = malloc(sizeof p_);                                        \
    memcpy(params, &p_, sizeof p_);                                    \
    params->name = "test_loop";                                        \
  } while (0)

  AGAIN();
  params->cond_output = params->cond_inputs[0];
  params->body_outputs[0] = params->body_inputs[0];
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "BuildWhileLoop: 'cond' argument must return a boolean "
                      "output, got int32");
  free(params);

  AGAIN();
  params->cond_output = loop_in[0];
  params->body_outputs[0] = params->body_inputs[0];
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "Requested return tensor 'p0:0' not found in graph def");
  free(params);

  AGAIN();
  make_cond();
  params->cond_output.index = 100;
  params->body_outputs[0] = params->body_inputs[0];
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "Invalid return output 100 of node 'less_than', which "
                      "has 1 output(s)");
  free(params);

  AGAIN();
  make_cond();
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "TF_WhileParams `body_outputs[0]` field isn't set");
  free(params);

  AGAIN();
  make_cond();
  params->body_outputs[0] = loop_in[0];
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "Requested return tensor 'p0:0' not found in graph def");
  free(params);

  AGAIN();
  make_cond();
  params->body_outputs[0] = params->body_inputs[0];
  params->name = NULL;
  expect_finish_error(TF_INVALID_ARGUMENT,
                      "TF_WhileParams `name` field is null");
  free(params);

  /* a condition that is not a scalar: LoopCond's shape function */
  AGAIN();
  TF_Tensor *bv = TF_AllocateTensor(TF_BOOL, (int64_t[]){2}, 1, 2);
  memset(TF_TensorData(bv), 1, 2);
  TF_OperationDescription *d =
      TF_NewOperation(params->cond_graph, "Const", "bools");
  TF_SetAttrTensor(d, "value", bv, s);
  TF_SetAttrType(d, "dtype", TF_BOOL);
  params->cond_output = out0(TF_FinishOperation(d, s));
  CT_ASSERT_OK(s);
  TF_DeleteTensor(bv);
  params->body_outputs[0] = params->body_inputs[0];
  int before = num_ops(g);
  TF_FinishWhile(params, s, loop_out);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Shape must be rank 0 but is rank 1 for '{{node "
                   "test_loop/LoopCond}} = LoopCond[](test_loop/cond/bools)' "
                   "with input shapes: [2].");
  CU_ASSERT_EQUAL(num_ops(g), before);
  free(params);

  /* a body output of another dtype than its loop variable */
  AGAIN();
  make_cond();
  params->body_outputs[0] = out0(ct_scalar_float(params->body_graph, "f", 1));
  TF_FinishWhile(params, s, loop_out);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Input 1 of node test_loop/Merge was passed float from "
                   "test_loop/NextIteration:0 incompatible with expected "
                   "int32.");
  free(params);

  /* TensorFlow's BadTypes (with an op that has a float input): the
   * body's own builder error, then abort */
  AGAIN();
  make_cond();
  d = TF_NewOperation(params->body_graph, "InTopKV2", "float_op");
  TF_AddInput(d, params->body_inputs[0]);
  TF_AddInput(d, params->body_inputs[0]);
  TF_AddInput(d, params->body_inputs[0]);
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(TF_Message(s),
                                "Input 'predictions' passed int32 expected "
                                "float while building NodeDef 'float_op'"));
  TF_AbortWhile(params);
  TF_AbortWhile(params); /* a second abort does nothing */
  free(params);
#undef AGAIN

  TF_WhileParams none = TF_NewWhile(g, loop_in, 0, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "TF_NewWhile() must be passed at least one input");
  CU_ASSERT_PTR_NULL(none.cond_graph);
  TF_AbortWhile(&none);
  params = NULL;
  teardown();
}

/* Built, then abandoned: everything TF_NewWhile made is freed (the
 * sanitizer build checks) and the graph is as it was. */
static void test_while_abort(void) {
  init_loop(3);
  make_cond();
  TF_Operation *one = scalar(params->body_graph, "one", 1);
  params->body_outputs[0] = out0(
      binop(params->body_graph, "Add", "add", params->body_inputs[0],
            out0(one)));
  int before = num_ops(g);
  TF_AbortWhile(params);
  CU_ASSERT_EQUAL(num_ops(g), before);
  TF_FinishWhile(params, s, loop_out);
  CU_ASSERT_EQUAL(TF_GetCode(s), TF_INVALID_ARGUMENT);
  finish_loop();
}

/* ---- functions made from graphs ------------------------------------------ */

static TF_Graph *fg; /* the function's graph */
static TF_Function *fn;

static void fn_setup(void) {
  setup();
  fg = TF_NewGraph();
  fn = NULL;
}

static void fn_teardown(void) {
  TF_DeleteFunction(fn);
  TF_DeleteGraph(fg);
  teardown();
}

static TF_Function *define(int num_opers, const TF_Operation *const *opers,
                           int nin, const TF_Output *in, int nout,
                           const TF_Output *out, const char *const *names) {
  return TF_GraphToFunction(fg, "MyFunc", 0, num_opers, opers, nin, in, nout,
                            out, names, NULL, NULL, s);
}

/* The FunctionDef of f (caller frees with
 * tensorflow__function_def__free_unpacked). */
static Tensorflow__FunctionDef *fdef_of(TF_Function *f) {
  TF_Buffer *b = TF_NewBuffer();
  TF_FunctionToFunctionDef(f, b, s);
  CT_ASSERT_OK(s);
  Tensorflow__FunctionDef *fd =
      tensorflow__function_def__unpack(NULL, b->length, b->data);
  TF_DeleteBuffer(b);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fd);
  return fd;
}

static const char *ret_of(const Tensorflow__FunctionDef *fd,
                          const char *out) {
  for (size_t i = 0; i < fd->n_ret; i++)
    if (strcmp(fd->ret[i]->key, out) == 0) return fd->ret[i]->value;
  return "";
}

static const Tensorflow__NodeDef *node_of(const Tensorflow__FunctionDef *fd,
                                          const char *name) {
  for (size_t i = 0; i < fd->n_node_def; i++)
    if (strcmp(fd->node_def[i]->name, name) == 0) return fd->node_def[i];
  return NULL;
}

/* A node of g calling MyFunc by name on `in`. */
static TF_Operation *use(const TF_Output *in, int n) {
  TF_OperationDescription *d = TF_NewOperation(g, "MyFunc", "MyFunc_0");
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  TF_SetDevice(d, "/cpu:0");
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  return op;
}

/* A PartitionedCall of `fname` on `in` returning nout int32s. */
static TF_Operation *partitioned_call(const char *fname, const TF_Output *in,
                                      int n, int nout) {
  TF_OperationDescription *d = TF_NewOperation(g, "PartitionedCall", "call");
  TF_AddInputList(d, in, n);
  TF_DataType tout[4] = {TF_INT32, TF_INT32, TF_INT32, TF_INT32};
  TF_SetAttrTypeList(d, "Tout", tout, nout);
  TF_SetAttrFuncName(d, "f", fname, strlen(fname));
  TF_Operation *op = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  return op;
}

/* TensorFlow's ZeroOps_Identity, called both ways. */
static void test_fn_identity(void) {
  fn_setup();
  TF_Operation *feed = placeholder(fg, "feed");
  TF_Output io = out0(feed);
  fn = define(-1, NULL, 1, &io, 1, &io, NULL);
  CT_ASSERT_OK(s);
  CU_ASSERT_STRING_EQUAL(TF_FunctionName(fn), "MyFunc");
  Tensorflow__FunctionDef *fd = fdef_of(fn);
  CU_ASSERT_EQUAL(fd->n_node_def, 0);
  CU_ASSERT_STRING_EQUAL(fd->signature->input_arg[0]->name, "feed_0");
  CU_ASSERT_EQUAL(fd->signature->input_arg[0]->type,
                  TENSORFLOW__DATA_TYPE__DT_INT32);
  CU_ASSERT_STRING_EQUAL(fd->signature->output_arg[0]->name, "feed");
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "feed"), "feed_0");
  CU_ASSERT_FALSE(fd->signature->is_stateful);
  tensorflow__function_def__free_unpacked(fd, NULL);
  TF_GraphCopyFunction(g, fn, NULL, s);
  CT_ASSERT_OK(s);
  TF_Output x = out0(placeholder(g, "x"));
  TF_Operation *by_name = use(&x, 1);
  CU_ASSERT_STRING_EQUAL(TF_OperationOpType(by_name), "MyFunc");
  CU_ASSERT_EQUAL(TF_OperationNumOutputs(by_name), 1);
  CU_ASSERT_EQUAL(TF_OperationOutputType(out0(by_name)), TF_INT32);
  TF_Operation *pc = partitioned_call("MyFunc", &x, 1, 1);
  TF_Output fetch[2] = {out0(by_name), out0(pc)};
  int32_t got[2];
  run_ints(&x, (int32_t[]){3}, 1, fetch, got, 2);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[0], 3);
  CU_ASSERT_EQUAL(got[1], 3);
  fn_teardown();
}

/* TensorFlow's TwoOps_ThreeInputs_OneOutput and OneOp_TwoInputs_
 * TwoDuplicateOutputs: names, "node:out_arg:index" edges, the result. */
static void test_fn_two_ops(void) {
  fn_setup();
  TF_Output f1 = out0(placeholder(fg, "feed1"));
  TF_Output f2 = out0(placeholder(fg, "feed2"));
  TF_Output f3 = out0(placeholder(fg, "feed3"));
  TF_Operation *add1 = addn(fg, "add1", f1, f2);
  TF_Operation *add2 = binop(fg, "Add", "add2", out0(add1), f3);
  TF_Output in[3] = {f1, f2, f3}, out = out0(add2);
  fn = define(-1, NULL, 3, in, 1, &out, NULL);
  CT_ASSERT_OK(s);
  Tensorflow__FunctionDef *fd = fdef_of(fn);
  CU_ASSERT_EQUAL(fd->n_node_def, 2);
  const Tensorflow__NodeDef *n1 = node_of(fd, "add1");
  const Tensorflow__NodeDef *n2 = node_of(fd, "add2_0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(n2);
  CU_ASSERT_STRING_EQUAL(n1->input[0], "feed1");
  CU_ASSERT_STRING_EQUAL(n1->input[1], "feed2");
  CU_ASSERT_STRING_EQUAL(n2->input[0], "add1:sum:0");
  CU_ASSERT_STRING_EQUAL(n2->input[1], "feed3");
  CU_ASSERT_STRING_EQUAL(fd->signature->output_arg[0]->name, "add2");
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "add2"), "add2_0:z:0");
  tensorflow__function_def__free_unpacked(fd, NULL);
  TF_GraphCopyFunction(g, fn, NULL, s);
  CT_ASSERT_OK(s);
  TF_Output call_in[3] = {out0(scalar(g, "two", 2)), out0(scalar(g, "ten", 10)),
                          out0(placeholder(g, "x"))};
  TF_Operation *call = use(call_in, 3);
  int32_t got;
  TF_Output fetch = out0(call);
  run_ints(&call_in[2], (int32_t[]){3}, 1, &fetch, &got, 1);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got, 15);
  TF_DeleteFunction(fn);
  /* the same output twice: "add2", "add2_0", the node add2_1 */
  TF_Output twice[2] = {out, out};
  fn = TF_GraphToFunction(fg, "Twice", 0, -1, NULL, 3, in, 2, twice, NULL,
                          NULL, NULL, s);
  CT_ASSERT_OK(s);
  fd = fdef_of(fn);
  CU_ASSERT_STRING_EQUAL(fd->signature->output_arg[1]->name, "add2_0");
  CU_ASSERT_PTR_NOT_NULL(node_of(fd, "add2_1"));
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "add2_0"), "add2_1:z:0");
  tensorflow__function_def__free_unpacked(fd, NULL);
  fn_teardown();
}

/* Control outputs, a control dependency inside the body, a description
 * and output names; a stateful node makes the function stateful. */
static void test_fn_control_outputs(void) {
  fn_setup();
  TF_Output f1 = out0(placeholder(fg, "feed1"));
  TF_Operation *five = scalar(fg, "scalar", 5);
  TF_OperationDescription *d = TF_NewOperation(fg, "Neg", "neg");
  TF_AddInput(d, f1);
  TF_AddControlInput(d, five);
  TF_Operation *neg = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  d = TF_NewOperation(fg, "NoOp", "side_effect");
  TF_AddControlInput(d, neg);
  TF_Operation *noop = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  d = TF_NewOperation(fg, "RandomUniform", "random");
  TF_AddInput(d, out0(ct_const_int32s(fg, "shape", (int32_t[]){1},
                                      (int64_t[]){1}, 1)));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_Output out = out0(neg);
  const char *names[1] = {"negated"};
  const TF_Operation *ctl[1] = {noop};
  const char *ctl_names[1] = {"done"};
  fn = TF_GraphToFunctionWithControlOutputs(
      fg, "MyFunc", 0, -1, NULL, 1, &f1, 1, &out, names, 1, ctl, ctl_names,
      NULL, "Negates", s);
  CT_ASSERT_OK(s);
  Tensorflow__FunctionDef *fd = fdef_of(fn);
  CU_ASSERT_STRING_EQUAL(fd->signature->description, "Negates");
  CU_ASSERT_TRUE(fd->signature->is_stateful);
  CU_ASSERT_EQUAL(fd->signature->n_control_output, 1);
  CU_ASSERT_STRING_EQUAL(fd->signature->control_output[0], "done");
  CU_ASSERT_EQUAL(fd->n_control_ret, 1);
  CU_ASSERT_STRING_EQUAL(fd->control_ret[0]->key, "done");
  CU_ASSERT_STRING_EQUAL(fd->control_ret[0]->value, "side_effect");
  const Tensorflow__NodeDef *n = node_of(fd, "neg");
  CU_ASSERT_PTR_NOT_NULL_FATAL(n);
  CU_ASSERT_EQUAL(n->n_input, 2);
  CU_ASSERT_STRING_EQUAL(n->input[1], "^scalar");
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "negated"), "neg:y:0");
  tensorflow__function_def__free_unpacked(fd, NULL);
  TF_GraphCopyFunction(g, fn, NULL, s);
  CT_ASSERT_OK(s);
  TF_Output x = out0(placeholder(g, "x"));
  TF_Operation *call = use(&x, 1);
  int32_t got;
  TF_Output fetch = out0(call);
  run_ints(&x, (int32_t[]){4}, 1, &fetch, &got, 1);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got, -4);
  /* repeated and empty control output names */
  const TF_Operation *two[2] = {noop, noop};
  TF_Function *bad = TF_GraphToFunctionWithControlOutputs(
      fg, "F", 0, -1, NULL, 1, &f1, 1, &out, NULL, 2, two, NULL, NULL, NULL,
      s);
  CU_ASSERT_PTR_NULL(bad);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Repeated control output name: side_effect");
  fn_teardown();
}

static void test_fn_errors(void) {
  fn_setup();
  TF_Output f1 = out0(placeholder(fg, "feed1"));
  TF_Output f2 = out0(placeholder(fg, "feed2"));
  TF_Operation *five = scalar(fg, "scalar", 5);
  TF_OperationDescription *d = TF_NewOperation(fg, "Add", "add");
  TF_AddInput(d, f1);
  TF_AddInput(d, f2);
  TF_AddControlInput(d, five);
  TF_Operation *add = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_Output out = out0(add);
  TF_Output dup[2] = {f1, f1};
  CU_ASSERT_PTR_NULL(define(-1, NULL, 2, dup, 1, &out, NULL));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "TF_Output feed1:0 appears more than once in the input "
                   "list");
  TF_Output in[2] = {f1, f2}, outs[2] = {out, out0(add)};
  const char *names[2] = {"my_out", "my_out"};
  CU_ASSERT_PTR_NULL(define(-1, NULL, 2, in, 2, outs, names));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Cannot have duplicate output names. Name 'my_out' "
                   "appears more than once in 'output_names' array.");
  TF_Output high[2] = {f1, {f2.oper, 2}};
  CU_ASSERT_PTR_NULL(define(-1, NULL, 2, high, 1, &out, NULL));
  CT_ASSERT_STATUS(s, TF_OUT_OF_RANGE,
                   "Node 'feed2' (type: 'Placeholder', num of outputs: 1) "
                   "does not have output 2\n\tEncountered while processing "
                   "input 1 into function 'MyFunc'");
  TF_Output null_in[2] = {f1, {NULL, 0}};
  CU_ASSERT_PTR_NULL(define(-1, NULL, 2, null_in, 1, &out, NULL));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Node is null\n\tEncountered while processing input 1 "
                   "into function 'MyFunc'");
  TF_Output bad_out = {add, 3};
  CU_ASSERT_PTR_NULL(define(-1, NULL, 2, in, 1, &bad_out, NULL));
  CT_ASSERT_STATUS(s, TF_OUT_OF_RANGE,
                   "Node 'add' (type: 'Add', num of outputs: 1) does not "
                   "have output 3\n\tEncountered while processing output 0 "
                   "from function 'MyFunc'");
  const TF_Operation *body[1] = {add};
  CU_ASSERT_PTR_NULL(define(1, body, 1, &f1, 1, &out, NULL));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Input 1, 'feed2:0', of node 'add' in function 'MyFunc' "
                   "is not available. You might need to include it in "
                   "inputs or include its source node in the body");
  TF_Output two_outs[2] = {out, out0(five)};
  CU_ASSERT_PTR_NULL(define(1, body, 2, in, 2, two_outs, NULL));
  /* the control input from scalar is checked first, as TensorFlow */
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "The source of control edge [id=3 scalar:-1 -> add:-1] "
                   "is not in the body. Encountered while creating function "
                   "'MyFunc'");
  const TF_Operation *body2[2] = {add, five};
  TF_Output neither[2] = {out, out0(placeholder(fg, "other"))};
  CU_ASSERT_PTR_NULL(define(2, body2, 2, in, 2, neither, NULL));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "TF_Output other:0 is neither in the function body nor "
                   "among function inputs. Encountered while creating "
                   "function 'MyFunc'");
  /* nodes used as inputs with num_opers -1 need a single output */
  d = TF_NewOperation(fg, "Split", "split3");
  TF_AddInput(d, out0(scalar(fg, "axis", 0)));
  TF_AddInput(d, out0(ct_const_int32s(fg, "vals", (int32_t[]){1, 2, 3},
                                      (int64_t[]){3}, 1)));
  TF_SetAttrInt(d, "num_split", 3);
  TF_Operation *split = TF_FinishOperation(d, s);
  CT_ASSERT_OK(s);
  TF_Output parts[2] = {{split, 0}, {split, 2}};
  CU_ASSERT_PTR_NULL(define(-1, NULL, 2, parts, 1, &out, NULL));
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "When `num_opers` is set to -1, nodes referenced in "
                   "`inputs` must have a single output. Node split3 has 3 "
                   "outputs. Encountered while creating function 'MyFunc'");
  /* a function name that is an op */
  TF_Function *f = TF_GraphToFunction(fg, "Add", 0, 1, body2 + 1, 0, NULL, 1,
                                      &two_outs[1], NULL, NULL, NULL, s);
  CT_ASSERT_OK(s);
  TF_GraphCopyFunction(g, f, NULL, s);
  CT_ASSERT_STATUS(s, TF_INVALID_ARGUMENT,
                   "Cannot add function 'Add' because an op with the same "
                   "name already exists.");
  TF_DeleteFunction(f);
  fn_teardown();
}

/* FunctionDef bytes out and in again, the result called: the same
 * bytes, the same answers (TensorFlow's ImportFunctionDef test). */
static void test_fn_round_trip(void) {
  fn_setup();
  TF_Output f1 = out0(placeholder(fg, "feed1"));
  TF_Output f2 = out0(placeholder(fg, "feed2"));
  TF_Output f3 = out0(placeholder(fg, "feed3"));
  TF_Operation *add1 = binop(fg, "Add", "add1", f1, f2);
  TF_Operation *add2 = binop(fg, "Add", "add2", out0(add1), f3);
  TF_Output in[3] = {f1, f2, f3}, outs[2] = {out0(add1), out0(add2)};
  const char *names[2] = {"internal_out", "final_out"};
  fn = define(-1, NULL, 3, in, 2, outs, names);
  CT_ASSERT_OK(s);
  TF_Buffer *b1 = TF_NewBuffer();
  TF_FunctionToFunctionDef(fn, b1, s);
  CT_ASSERT_OK(s);
  TF_DeleteFunction(fn);
  fn = TF_FunctionImportFunctionDef(b1->data, b1->length, s);
  CT_ASSERT_OK(s);
  TF_Buffer *b2 = TF_NewBuffer();
  TF_FunctionToFunctionDef(fn, b2, s);
  CU_ASSERT_EQUAL(b1->length, b2->length);
  CU_ASSERT_EQUAL(memcmp(b1->data, b2->data, b1->length), 0);
  TF_DeleteBuffer(b1);
  TF_DeleteBuffer(b2);
  Tensorflow__FunctionDef *fd = fdef_of(fn);
  CU_ASSERT_PTR_NOT_NULL(node_of(fd, "add1"));
  CU_ASSERT_PTR_NOT_NULL(node_of(fd, "add2"));
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "internal_out"), "add1:z:0");
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "final_out"), "add2:z:0");
  tensorflow__function_def__free_unpacked(fd, NULL);
  TF_GraphCopyFunction(g, fn, NULL, s);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(TF_GraphNumFunctions(g), 1);
  /* Identities the optimizer removes: it rebuilds the graph, call
   * included */
  TF_Operation *two = ct_unary(g, "Identity", "two_id",
                               ct_unary(g, "Identity", "two_id0",
                                        scalar(g, "two", 2)));
  TF_Output call_in[3] = {out0(two), out0(scalar(g, "ten", 10)),
                          out0(placeholder(g, "x"))};
  TF_Operation *call = use(call_in, 3);
  TF_Output fetch[2] = {{call, 0}, {call, 1}};
  int32_t got[2];
  run_ints(&call_in[2], (int32_t[]){3}, 1, fetch, got, 2);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got[0], 12);
  CU_ASSERT_EQUAL(got[1], 15);
  /* the hash suffix and the description */
  TF_Function *h = TF_GraphToFunction(fg, "func_name_base", 1, -1, NULL, 3,
                                      in, 2, outs, names, NULL,
                                      "Return something", s);
  CT_ASSERT_OK(s);
  const char *hn = TF_FunctionName(h);
  CU_ASSERT_EQUAL(strlen(hn), strlen("func_name_base_") + 11);
  CU_ASSERT_EQUAL(strncmp(hn, "func_name_base_", 15), 0);
  CU_ASSERT_PTR_NULL(strpbrk(hn + 15, "-_+/="));
  TF_DeleteFunction(h);
  fn_teardown();
}

/* A GraphDef whose node calls a library function by name imports and
 * runs (TensorFlow graphs carry such nodes); the type is unknown to a
 * graph without the function. */
static void test_fn_graphdef_import(void) {
  fn_setup();
  TF_Output feed = out0(placeholder(fg, "feed"));
  TF_Operation *neg = ct_unary(fg, "Neg", "neg", feed.oper);
  TF_Output out = out0(neg);
  fn = define(-1, NULL, 1, &feed, 1, &out, NULL);
  CT_ASSERT_OK(s);
  TF_GraphCopyFunction(g, fn, NULL, s);
  CT_ASSERT_OK(s);
  TF_Output x = out0(placeholder(g, "x"));
  use(&x, 1);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g, gd, s);
  CT_ASSERT_OK(s);
  TF_DeleteGraph(g);
  g = TF_NewGraph();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, gd, o, s);
  CT_ASSERT_OK(s);
  TF_Operation *call = TF_GraphOperationByName(g, "MyFunc_0");
  CU_ASSERT_PTR_NOT_NULL_FATAL(call);
  CU_ASSERT_STRING_EQUAL(TF_OperationOpType(call), "MyFunc");
  x = out0(TF_GraphOperationByName(g, "x"));
  TF_Output fetch = out0(call);
  int32_t got;
  run_ints(&x, (int32_t[]){5}, 1, &fetch, &got, 1);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got, -5);
  /* without the library the op type is unknown */
  TF_Graph *bare = TF_NewGraph();
  TF_Operation *bx = placeholder(bare, "x");
  TF_OperationDescription *d = TF_NewOperation(bare, "MyFunc", "call");
  TF_AddInput(d, out0(bx));
  CU_ASSERT_PTR_NULL(TF_FinishOperation(d, s));
  CT_ASSERT_PREFIX(s, TF_INVALID_ARGUMENT,
                   "Op type not registered 'MyFunc' in binary running on");
  TF_DeleteGraph(bare);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(gd);
  fn_teardown();
}

/* TensorFlow's FunctionWithWhileLoop: a loop made by TF_FinishWhile in
 * a function's graph, the function called by name. */
static void test_fn_with_while_loop(void) {
  fn_setup();
  TF_Output in[2] = {out0(placeholder(fg, "feed1")),
                     out0(placeholder(fg, "feed2"))};
  TF_WhileParams p = TF_NewWhile(fg, in, 2, s);
  CT_ASSERT_OK(s);
  p.name = "test_loop";
  p.cond_output = out0(binop(p.cond_graph, "Less", "less_than",
                             p.cond_inputs[0], p.cond_inputs[1]));
  TF_Operation *add1 = binop(p.body_graph, "Add", "add1", p.body_inputs[0],
                             p.body_inputs[1]);
  TF_Operation *one = scalar(p.body_graph, "scalar", 1);
  p.body_outputs[0] = out0(binop(p.body_graph, "Add", "add2", out0(add1),
                                 out0(one)));
  p.body_outputs[1] = p.body_inputs[1];
  TF_Output loop[2];
  TF_FinishWhile(&p, s, loop);
  CT_ASSERT_OK(s);
  fn = define(-1, NULL, 2, in, 1, loop, NULL);
  CT_ASSERT_OK(s);
  Tensorflow__FunctionDef *fd = fdef_of(fn);
  CU_ASSERT_STRING_EQUAL(fd->signature->output_arg[0]->name,
                         "test_loop_exit");
  CU_ASSERT_STRING_EQUAL(ret_of(fd, "test_loop_exit"),
                         "test_loop/Exit:output:0");
  const Tensorflow__NodeDef *sw = node_of(fd, "test_loop/Exit");
  CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
  CU_ASSERT_STRING_EQUAL(sw->input[0], "test_loop/Switch:output_false:0");
  tensorflow__function_def__free_unpacked(fd, NULL);
  TF_GraphCopyFunction(g, fn, NULL, s);
  CT_ASSERT_OK(s);
  TF_Output call_in[2] = {out0(placeholder(g, "x")),
                          out0(scalar(g, "five", 5))};
  TF_Operation *call = use(call_in, 2);
  TF_Output fetch = out0(call);
  int32_t got;
  run_ints(call_in, (int32_t[]){2}, 1, &fetch, &got, 1);
  CT_ASSERT_OK(s);
  CU_ASSERT_EQUAL(got, 2 + 5 + 1);
  fn_teardown();
}

static const tfs_test_case while_cases[] = {
    {"basic", test_while_basic},
    {"multiple_vars", test_while_multiple_vars},
    {"nested", test_while_nested},
    {"outer_tensor", test_while_outer_tensor},
    {"errors", test_while_errors},
    {"abort", test_while_abort},
    {NULL, NULL}};

static const tfs_test_case function_cases[] = {
    {"identity", test_fn_identity},
    {"two_ops", test_fn_two_ops},
    {"control_outputs", test_fn_control_outputs},
    {"errors", test_fn_errors},
    {"round_trip", test_fn_round_trip},
    {"graphdef_import", test_fn_graphdef_import},
    {"with_while_loop", test_fn_with_while_loop},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"c_api_while", while_cases},
    {"c_api_graph_to_function", function_cases},
    {NULL, NULL}};

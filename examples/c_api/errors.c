/*
 * examples/c_api/errors.c - the mistakes C API programs make and what
 * TensorFlow answers: the code and the exact message of each (a missing
 * feed, a feed of the wrong dtype, bad indexes, duplicate names, attrs
 * that do not exist, shapes that do not fit, unparseable protos, a closed
 * session, unknown op types, variables read before they are assigned,
 * the name-based session, eager ops).  Programs match on these texts, so
 * they must not drift.  The host name inside "Op type not registered"
 * messages is printed as HOST.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tensorflow/c/c_api.h>
#include <tensorflow/c/eager/c_api.h>

static int g_case;

static void report(const char *what, TF_Status *s) {
  printf("%2d. %s -> code %d\n    %s\n", ++g_case, what, (int)TF_GetCode(s),
         TF_Message(s));
}

/* As report(), with this machine's name after "running on " shown as
 * HOST. */
static void report_host(const char *what, TF_Status *s) {
  static const char kOn[] = "running on ";
  char host[256] = "";
  const char *msg = TF_Message(s);
  const char *at = strstr(msg, kOn);
  if (at) at += sizeof kOn - 1;
  if (gethostname(host, sizeof host - 1) != 0 || !host[0] || !at ||
      strncmp(at, host, strlen(host)) != 0)
    at = NULL;
  printf("%2d. %s -> code %d\n    ", ++g_case, what, (int)TF_GetCode(s));
  if (at)
    printf("%.*sHOST%s\n", (int)(at - msg), msg, at + strlen(host));
  else
    printf("%s\n", msg);
}

static TF_Operation *placeholder(TF_Graph *g, const char *name,
                                 TF_DataType dt, const int64_t *dims,
                                 int ndims, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (ndims >= 0) TF_SetAttrShape(d, "shape", dims, ndims);
  return TF_FinishOperation(d, s);
}

static TF_Operation *binary(TF_Graph *g, const char *type, const char *name,
                            TF_Operation *x, TF_Operation *y, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){x, 0});
  if (y) TF_AddInput(d, (TF_Output){y, 0});
  return TF_FinishOperation(d, s);
}

static TF_Tensor *floats(const int64_t *dims, int ndims) {
  size_t n = 1;
  for (int i = 0; i < ndims; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof(float));
  memset(TF_TensorData(t), 0, n * sizeof(float));
  return t;
}

static void run(TF_Session *sess, const TF_Output *feeds, TF_Tensor **vals,
                int nfeeds, const TF_Output *fetches, int nfetches,
                const char *what, TF_Status *s) {
  TF_Tensor *out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, feeds, vals, nfeeds, fetches, out, nfetches, NULL,
                0, NULL, s);
  report(what, s);
  for (int i = 0; i < nfetches; i++)
    if (out[i]) printf("    unexpected output %d\n", i);
}

static void build_errors(TF_Graph *g, TF_Status *s) {
  TF_Operation *x = placeholder(g, "x", TF_FLOAT, (int64_t[]){-1, 3}, 2, s);
  TF_Operation *n = placeholder(g, "n", TF_INT32, (int64_t[]){-1, 3}, 2, s);
  placeholder(g, "x", TF_FLOAT, NULL, -1, s);
  report("a second operation named x", s);
  binary(g, "Mul", "mul", x, n, s);
  report("Mul of float and int32", s);
  binary(g, "Mul", "mul", x, NULL, s);
  report("Mul with one input", s);
  int64_t dims[3];
  TF_GraphGetTensorShape(g, (TF_Output){x, 0}, dims, 3, s);
  report("shape of a rank-2 tensor asked with 3 dims", s);
  TF_OperationGetAttrMetadata(x, "size", s);
  report("metadata of a missing attr", s);
  int64_t v;
  TF_OperationGetAttrInt(x, "dtype", &v, s);
  report("a type attr read as an int", s);
  TF_Buffer *b = TF_NewBufferFromString("x", 1);
  TF_GraphToGraphDef(g, b, s);
  report("GraphDef into a non-empty buffer", s);
  TF_DeleteBuffer(b);
  b = TF_NewBufferFromString("\x0a\x03\xff\xff\xff", 5);
  TF_GraphImportGraphDef(g, b, NULL, s);
  report("garbage GraphDef", s);
  TF_DeleteBuffer(b);
}

static void run_errors(TF_Graph *g, TF_Status *s) {
  TF_Operation *x = TF_GraphOperationByName(g, "x");
  TF_Operation *u = placeholder(g, "u", TF_FLOAT, NULL, -1, s);
  TF_Operation *idn = binary(g, "Identity", "idn", x, NULL, s);
  TF_Operation *p = placeholder(g, "p", TF_FLOAT, NULL, -1, s);
  TF_Operation *mm = binary(g, "MatMul", "mm", p, u, s);
  TF_Operation *add = binary(g, "AddV2", "add", p, u, s);
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "w");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *w = TF_FinishOperation(d, s);
  TF_Operation *rw = binary(g, "Identity", "read_w", w, NULL, s);

  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_SetConfig(opts, "\xff\xff", 2, s);
  report("unparseable ConfigProto", s);
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Output fx = {x, 0}, fu = {u, 0}, fi = {idn, 0};
  run(sess, NULL, NULL, 0, &fi, 1, "x not fed", s);
  run(sess, NULL, NULL, 0, &fu, 1, "u (no shape) not fed", s);
  run(sess, NULL, NULL, 0, NULL, 0, "nothing to fetch or run", s);
  TF_Tensor *str = TF_AllocateTensor(TF_STRING, NULL, 0, sizeof(TF_TString));
  TF_StringInit((TF_TString *)TF_TensorData(str));
  run(sess, &fx, &str, 1, &fi, 1, "a string fed to a float placeholder", s);
  TF_Tensor *ok = floats((int64_t[]){1, 3}, 2);
  run(sess, &fx, &ok, 1, &fx, 1, "x both fed and fetched", s);
  TF_Output twice[2] = {fx, fx};
  TF_Tensor *vals[2] = {ok, ok};
  run(sess, twice, vals, 2, &fi, 1, "x fed twice", s);
  TF_Output bad = {x, 2};
  run(sess, NULL, NULL, 0, &bad, 1, "output 2 of x", s);
  TF_Output feeds[2] = {{p, 0}, {u, 0}};
  vals[0] = floats((int64_t[]){1, 5}, 2);
  vals[1] = floats((int64_t[]){4, 5}, 2);
  TF_Output fm = {mm, 0}, fa = {add, 0}, fw = {rw, 0};
  run(sess, feeds, vals, 2, &fm, 1, "MatMul of [1,5] and [4,5]", s);
  TF_DeleteTensor(vals[0]);
  TF_DeleteTensor(vals[1]);
  vals[0] = floats((int64_t[]){2, 3}, 2);
  vals[1] = floats((int64_t[]){4}, 1);
  run(sess, feeds, vals, 2, &fa, 1, "AddV2 of [2,3] and [4]", s);
  run(sess, NULL, NULL, 0, &fw, 1, "an uninitialized VariableV2", s);
  TF_Buffer *md = TF_NewBufferFromString("x", 1);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, &fx, &ok, 1, &fi, &out, 1, NULL, 0, md, s);
  report("non-empty run_metadata", s);
  TF_DeleteBuffer(md);
  TF_Buffer *ro = TF_NewBufferFromString("\xff\xff", 2);
  TF_SessionRun(sess, ro, &fx, &ok, 1, &fi, &out, 1, NULL, 0, NULL, s);
  report("unparseable RunOptions", s);
  TF_DeleteBuffer(ro);
  TF_CloseSession(sess, s);
  run(sess, &fx, &ok, 1, &fi, 1, "a closed session", s);
  TF_DeleteSession(sess, s);
  TF_DeleteTensor(vals[0]);
  TF_DeleteTensor(vals[1]);
  TF_DeleteTensor(ok);
  TF_DeleteTensor(str);
  TF_DeleteSessionOptions(opts);
}

static void more_build_errors(TF_Graph *g, TF_Status *s) {
  TF_Operation *x = TF_GraphOperationByName(g, "x");
  TF_OperationDescription *d = TF_NewOperation(g, "Foo", "foo");
  TF_FinishOperation(d, s);
  report_host("an op type that does not exist", s);
  binary(g, "LogicalNot", "not", x, NULL, s);
  report("LogicalNot of a float", s);
  /* GraphDef { node { name: "a" op: "Identity" input: "missing"
   *                   attr { key: "T" value { type: DT_FLOAT } } } } */
  static const char gd[] =
      "\x0a\x1f\x0a\x01" "a" "\x12\x08" "Identity" "\x1a\x07" "missing"
      "\x2a\x07\x0a\x01" "T" "\x12\x02\x30\x01";
  TF_Buffer *b = TF_NewBuffer();
  b->data = gd;
  b->length = sizeof gd - 1;
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, b, o, s);
  report("import of a node whose input is missing", s);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(b);
  d = TF_NewOperation(g, "Placeholder", "q");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrTensorShapeProto(d, "shape", "\xff\xff", 2, s);
  report("unparseable TensorShapeProto", s);
  TF_SetAttrValueProto(d, "shape", "\xff\xff", 2, s);
  report("unparseable AttrValue", s);
  TF_FinishOperation(d, s);
}

static TF_Operation *var_op(TF_Graph *g, const char *type, const char *name,
                            TF_Operation *var, TF_Operation *value,
                            TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  if (strcmp(type, "VarHandleOp") == 0) {
    TF_SetAttrShape(d, "shape", NULL, 0);
    TF_SetAttrString(d, "shared_name", name, strlen(name));
  } else {
    TF_AddInput(d, (TF_Output){var, 0});
  }
  if (value) TF_AddInput(d, (TF_Output){value, 0});
  else TF_SetAttrType(d, "dtype", TF_FLOAT);
  return TF_FinishOperation(d, s);
}

static void target(TF_Session *sess, TF_Operation *op, const char *what,
                   TF_Status *s) {
  const TF_Operation *targets[1] = {op};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  report(what, s);
}

static void variable_errors(TF_Graph *g, TF_Status *s) {
  TF_Operation *a = var_op(g, "VarHandleOp", "a", NULL, NULL, s);
  TF_Operation *b = var_op(g, "VarHandleOp", "b", NULL, NULL, s);
  TF_Tensor *t = floats(NULL, 0);
  *(float *)TF_TensorData(t) = 1;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "one");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *one = TF_FinishOperation(d, s);
  TF_DeleteTensor(t);
  TF_Operation *read_a = var_op(g, "ReadVariableOp", "read_a", a, NULL, s);
  TF_Operation *inc_a = var_op(g, "AssignAddVariableOp", "inc_a", a, one, s);
  TF_Operation *init_b = var_op(g, "AssignVariableOp", "init_b", b, one, s);
  d = TF_NewOperation(g, "NoOp", "nothing");
  TF_Operation *nothing = TF_FinishOperation(d, s);

  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  TF_Output fa = {read_a, 0}, fn = {nothing, 0};
  run(sess, NULL, NULL, 0, &fa, 1, "a resource variable read first", s);
  target(sess, inc_a, "AssignAddVariableOp on it", s);
  target(sess, init_b, "assigning another variable", s);
  run(sess, NULL, NULL, 0, &fa, 1, "the first one read again", s);
  target(sess, inc_a, "AssignAddVariableOp again", s);
  run(sess, NULL, NULL, 0, &fn, 1, "output 0 of a NoOp", s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
}

/* The name-based session of TensorFlow 1.x programs. */
static void deprecated_session_errors(TF_Graph *g, TF_Status *s) {
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_DeprecatedSession *ds = TF_NewDeprecatedSession(opts, s);
  TF_ExtendGraph(ds, "\x0a\x03\xff\xff\xff", 5, s);
  report("TF_ExtendGraph with a garbage GraphDef", s);
  TF_Buffer *b = TF_NewBuffer();
  TF_GraphToGraphDef(g, b, s);
  TF_ExtendGraph(ds, b->data, b->length, s);
  TF_DeleteBuffer(b);
  TF_Tensor *in = floats((int64_t[]){1, 3}, 2), *out = NULL;
  const char *x[1] = {"x:0"}, *idn[1] = {"idn:0"}, *nope[1] = {"nope:0"};
  const char *idn5[1] = {"idn:5"}, *no_target[1] = {"nope"};
  TF_Run(ds, NULL, x, &in, 1, nope, &out, 1, NULL, 0, NULL, s);
  report("TF_Run fetching nope:0", s);
  TF_Run(ds, NULL, nope, &in, 1, idn, &out, 1, NULL, 0, NULL, s);
  report("TF_Run feeding nope:0", s);
  TF_Run(ds, NULL, x, &in, 1, idn5, &out, 1, NULL, 0, NULL, s);
  report("TF_Run fetching idn:5", s);
  TF_Run(ds, NULL, NULL, NULL, 0, NULL, NULL, 0, no_target, 1, NULL, s);
  report("TF_Run with target nope", s);
  TF_Run(ds, NULL, x, &in, 1, idn, &out, 1, NULL, 0, NULL, s);
  report("TF_Run done right", s);
  if (out) printf("    output of %d dims\n", TF_NumDims(out));
  TF_DeleteTensor(out);
  TF_DeleteTensor(in);
  TF_CloseDeprecatedSession(ds, s);
  TF_DeleteDeprecatedSession(ds, s);
  TF_DeleteSessionOptions(opts);
}

static void eager_errors(TF_Status *s) {
  TFE_ContextOptions *o = TFE_NewContextOptions();
  TFE_Context *ctx = TFE_NewContext(o, s);
  TFE_DeleteContextOptions(o);
  TFE_NewOp(ctx, "Foo", s);
  report_host("an eager op type that does not exist", s);
  TF_Tensor *f = floats(NULL, 0);
  TF_Tensor *i = TF_AllocateTensor(TF_INT32, NULL, 0, 4);
  memset(TF_TensorData(i), 0, 4);
  TFE_TensorHandle *hf = TFE_NewTensorHandle(f, s);
  TFE_TensorHandle *hi = TFE_NewTensorHandle(i, s);
  TFE_Op *op = TFE_NewOp(ctx, "Mul", s);
  TFE_OpAddInput(op, hf, s);
  TFE_OpAddInput(op, hi, s);
  TFE_TensorHandle *r[1] = {NULL};
  int n = 1;
  TFE_Execute(op, r, &n, s);
  report("eager Mul of a float and an int32", s);
  TFE_DeleteOp(op);
  TFE_DeleteTensorHandle(hf);
  TFE_DeleteTensorHandle(hi);
  TF_DeleteTensor(f);
  TF_DeleteTensor(i);
  TFE_DeleteContext(ctx);
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  build_errors(g, s);
  run_errors(g, s);
  more_build_errors(g, s);
  variable_errors(g, s);
  deprecated_session_errors(g, s);
  eager_errors(s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}

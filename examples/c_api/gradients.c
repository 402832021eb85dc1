/*
 * examples/c_api/gradients.c - symbolic gradients with TF_AddGradients:
 * d(x^2)/dx at 3, the gradients of a small layer's loss with respect to
 * its weights and bias, seeded gradients of two outputs, a path cut by
 * StopGradient, and the errors TensorFlow reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static TF_Operation *constant(TF_Graph *g, const char *name,
                              const int64_t *dims, int ndims,
                              const float *v, size_t n, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof *v);
  memcpy(TF_TensorData(t), v, n * sizeof *v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static TF_Operation *op2(TF_Graph *g, const char *type, const char *name,
                         TF_Operation *a, TF_Operation *b, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){a, 0});
  if (b) TF_AddInput(d, (TF_Output){b, 0});
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static TF_Operation *sum_all(TF_Graph *g, const char *name, TF_Operation *x,
                             TF_Status *s) {
  int32_t axes[2] = {0, 1};
  int64_t dims[1] = {2};
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, 1, sizeof axes);
  memcpy(TF_TensorData(t), axes, sizeof axes);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "axes");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  TF_Operation *ax = TF_FinishOperation(d, s);
  check(s, "axes");
  return op2(g, "Sum", name, x, ax, s);
}

static void print_values(const char *label, TF_Tensor *t) {
  const float *v = TF_TensorData(t);
  size_t n = TF_TensorByteSize(t) / sizeof *v;
  printf("%s =", label);
  for (size_t i = 0; i < n; i++) printf(" %.4f", v[i]);
  printf("\n");
}

/* Runs the graph for the given outputs and prints them. */
static void run_and_print(TF_Graph *g, TF_Output *outs, int n,
                          const char *const *labels, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  check(s, "TF_NewSession");
  TF_Tensor *vals[4] = {NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, vals, n, NULL, 0, NULL, s);
  check(s, "TF_SessionRun");
  for (int i = 0; i < n; i++) {
    print_values(labels[i], vals[i]);
    TF_DeleteTensor(vals[i]);
  }
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
}

static void square(TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  float three = 3.0f;
  TF_Operation *x = constant(g, "x", NULL, 0, &three, 1, s);
  TF_Operation *y = op2(g, "Mul", "y", x, x, s);
  TF_Output yo = {y, 0}, xo = {x, 0}, dy;
  TF_AddGradients(g, &yo, 1, &xo, 1, NULL, s, &dy);
  check(s, "TF_AddGradients");
  const char *label = "dx^2/dx|x=3";
  run_and_print(g, &dy, 1, &label, s);
  TF_DeleteGraph(g);
}

/* loss = sum(tanh(x W + b)^2) */
static void layer(TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  int64_t xd[2] = {2, 3}, wd[2] = {3, 2}, bd[1] = {2};
  float xv[6] = {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f};
  float wv[6] = {0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f};
  float bv[2] = {0.05f, -0.1f};
  TF_Operation *x = constant(g, "x", xd, 2, xv, 6, s);
  TF_Operation *w = constant(g, "w", wd, 2, wv, 6, s);
  TF_Operation *b = constant(g, "b", bd, 1, bv, 2, s);
  TF_Operation *mm = op2(g, "MatMul", "mm", x, w, s);
  TF_Operation *z = op2(g, "BiasAdd", "z", mm, b, s);
  TF_Operation *t = op2(g, "Tanh", "t", z, NULL, s);
  TF_Operation *sq = op2(g, "Square", "sq", t, NULL, s);
  TF_Operation *loss = sum_all(g, "loss", sq, s);
  TF_Output lo = {loss, 0}, xs[2] = {{w, 0}, {b, 0}}, dys[2];
  TF_AddGradientsWithPrefix(g, "train", &lo, 1, xs, 2, NULL, s, dys);
  check(s, "TF_AddGradientsWithPrefix");
  printf("gradient ops are named %s...\n",
         strncmp(TF_OperationName(dys[0].oper), "train/", 6) == 0
             ? "train/"
             : TF_OperationName(dys[0].oper));
  TF_Output outs[3] = {lo, dys[0], dys[1]};
  const char *labels[3] = {"loss", "dloss/dw", "dloss/db"};
  run_and_print(g, outs, 3, labels, s);
  TF_DeleteGraph(g);
}

/* d(3 * a + b)/dx for a = x^2, b = exp(x), with seeds 3 and 1 */
static void seeded(TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  float one = 1.0f, three = 3.0f, xv = 0.5f;
  TF_Operation *x = constant(g, "x", NULL, 0, &xv, 1, s);
  TF_Operation *a = op2(g, "Square", "a", x, NULL, s);
  TF_Operation *b = op2(g, "Exp", "b", x, NULL, s);
  TF_Operation *s3 = constant(g, "seed3", NULL, 0, &three, 1, s);
  TF_Operation *s1 = constant(g, "seed1", NULL, 0, &one, 1, s);
  TF_Output ys[2] = {{a, 0}, {b, 0}}, seeds[2] = {{s3, 0}, {s1, 0}};
  TF_Output xo = {x, 0}, dy;
  TF_AddGradients(g, ys, 2, &xo, 1, seeds, s, &dy);
  check(s, "TF_AddGradients");
  const char *label = "d(3x^2 + e^x)/dx|x=0.5";
  run_and_print(g, &dy, 1, &label, s);
  TF_DeleteGraph(g);
}

static void errors(TF_Status *s) {
  TF_Graph *g = TF_NewGraph();
  float v = 2.0f;
  TF_Operation *x = constant(g, "x", NULL, 0, &v, 1, s);
  TF_Operation *z = constant(g, "z", NULL, 0, &v, 1, s);
  TF_Operation *stop = op2(g, "StopGradient", "stop", x, NULL, s);
  TF_Operation *y = op2(g, "Exp", "y", stop, NULL, s);
  TF_Output yo = {y, 0}, xo = {x, 0}, zo = {z, 0}, dy;

  TF_AddGradients(g, &yo, 1, &xo, 1, NULL, s, &dy);
  check(s, "TF_AddGradients through StopGradient");
  printf("through StopGradient: oper %s, index %d\n",
         dy.oper ? "set" : "NULL", dy.index);

  TF_AddGradients(g, &yo, 1, &zo, 1, NULL, s, &dy);
  printf("unreachable input -> code %d\n    %s\n", TF_GetCode(s),
         TF_Message(s));

  TF_AddGradientsWithPrefix(g, "y", &yo, 1, &xo, 1, NULL, s, &dy);
  printf("prefix of an existing node -> code %d\n    %s\n", TF_GetCode(s),
         TF_Message(s));

  int64_t n = 3;
  float vec[3] = {2.0f, 3.0f, 4.0f}, q[3] = {1.0f, 1.5f, 2.0f};
  TF_Operation *vx = constant(g, "vx", &n, 1, vec, 3, s);
  TF_Operation *vq = constant(g, "vq", &n, 1, q, 3, s);
  TF_Operation *zeta = op2(g, "Zeta", "zeta", vx, vq, s);
  TF_Output zt = {zeta, 0}, vo = {vx, 0};
  TF_AddGradients(g, &zt, 1, &vo, 1, NULL, s, &dy);
  printf("op without a gradient -> code %d\n    %s\n", TF_GetCode(s),
         TF_Message(s));
  TF_DeleteGraph(g);
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  square(s);
  layer(s);
  seeded(s);
  errors(s);
  TF_DeleteStatus(s);
  return 0;
}

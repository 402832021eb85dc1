/*
 * bench/c_api_bench.c - TF_SessionRun medians (us per run) of a 1-node
 * graph (y = Neg(x)) and the MLP 784-512-512-10 at batch 1 and 256, in
 * TensorFlow C API code only: built against tfsess by make and against
 * TensorFlow by bench/c_api_compare.  Usage: c_api_bench [seconds]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tensorflow/c/c_api.h>

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Deterministic pseudo-random weights (the same in both builds). */
static unsigned long long g_rng = 88172645463325252ull;
static float frand(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (float)((g_rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

static TF_Operation *finish(TF_OperationDescription *d, TF_Status *s) {
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, "TF_FinishOperation");
  return op;
}

static TF_Operation *placeholder(TF_Graph *g, const char *name,
                                 const int64_t *dims, int ndims,
                                 TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", dims, ndims);
  return finish(d, s);
}

static TF_Operation *random_const(TF_Graph *g, const char *name,
                                  const int64_t *dims, int ndims, float scale,
                                  TF_Status *s) {
  size_t n = 1;
  for (int i = 0; i < ndims; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof(float));
  float *p = (float *)TF_TensorData(t);
  for (size_t i = 0; i < n; i++) p[i] = frand() * scale;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  return finish(d, s);
}

static TF_Operation *op2(TF_Graph *g, const char *type, const char *name,
                         TF_Operation *x, TF_Operation *y, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){x, 0});
  if (y) TF_AddInput(d, (TF_Output){y, 0});
  return finish(d, s);
}

/* y = Neg(x); returns y, sets *x. */
static TF_Operation *one_node(TF_Graph *g, TF_Operation **x, TF_Status *s) {
  *x = placeholder(g, "x", NULL, 0, s);
  return op2(g, "Neg", "y", *x, NULL, s);
}

/* 784-512-512-10 with ReLU between layers and a softmax. */
static TF_Operation *mlp(TF_Graph *g, TF_Operation **x, TF_Status *s) {
  static const int64_t sizes[4] = {784, 512, 512, 10};
  char name[32];
  *x = placeholder(g, "x", (int64_t[]){-1, 784}, 2, s);
  TF_Operation *h = *x;
  for (int i = 0; i < 3; i++) {
    int64_t wd[2] = {sizes[i], sizes[i + 1]};
    snprintf(name, sizeof name, "w%d", i);
    TF_Operation *w = random_const(g, name, wd, 2,
                                   1.0f / sqrtf((float)sizes[i]), s);
    snprintf(name, sizeof name, "b%d", i);
    TF_Operation *b = random_const(g, name, &wd[1], 1, 0.01f, s);
    snprintf(name, sizeof name, "mm%d", i);
    h = op2(g, "MatMul", name, h, w, s);
    snprintf(name, sizeof name, "bias%d", i);
    h = op2(g, "BiasAdd", name, h, b, s);
    if (i < 2) {
      snprintf(name, sizeof name, "relu%d", i);
      h = op2(g, "Relu", name, h, NULL, s);
    }
  }
  return op2(g, "Softmax", "probs", h, NULL, s);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Runs fetch(x = feed) for about `seconds` after a warm-up and returns
 * the median microseconds per TF_SessionRun. */
static double time_runs(TF_Session *sess, TF_Operation *x, TF_Operation *y,
                        TF_Tensor *feed, double seconds, TF_Status *s) {
  TF_Output in = {x, 0}, out = {y, 0};
  enum { kMax = 200000 };
  static double samples[kMax];
  int n = 0;
  for (int i = 0; i < 20; i++) {
    TF_Tensor *r = NULL;
    TF_SessionRun(sess, NULL, &in, &feed, 1, &out, &r, 1, NULL, 0, NULL, s);
    check(s, "TF_SessionRun");
    TF_DeleteTensor(r);
  }
  double end = now_us() + seconds * 1e6;
  while (n < kMax && (n < 10 || now_us() < end)) {
    TF_Tensor *r = NULL;
    double t0 = now_us();
    TF_SessionRun(sess, NULL, &in, &feed, 1, &out, &r, 1, NULL, 0, NULL, s);
    samples[n++] = now_us() - t0;
    check(s, "TF_SessionRun");
    TF_DeleteTensor(r);
  }
  qsort(samples, (size_t)n, sizeof(double), cmp_double);
  return samples[n / 2];
}

static void bench(const char *label, int is_mlp, int64_t batch,
                  double seconds) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x;
  TF_Operation *y = is_mlp ? mlp(g, &x, s) : one_node(g, &x, s);
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  check(s, "TF_NewSession");
  int64_t dims[2] = {batch, 784};
  TF_Tensor *feed = is_mlp ? TF_AllocateTensor(TF_FLOAT, dims, 2,
                                               (size_t)batch * 784 * 4)
                           : TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);
  float *p = (float *)TF_TensorData(feed);
  for (int64_t i = 0; i < TF_TensorElementCount(feed); i++) p[i] = frand();
  double med = time_runs(sess, x, y, feed, seconds, s);
  printf("%-28s %12.2f us\n", label, med);
  fflush(stdout);
  TF_DeleteTensor(feed);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  if (seconds <= 0) seconds = 1.0;
  printf("# TF_SessionRun median per run (%s)\n", TF_Version());
  bench("one_node_run", 0, 1, seconds);
  bench("mlp_784_512_512_10_b1", 1, 1, seconds);
  bench("mlp_784_512_512_10_b256", 1, 256, seconds);
  return 0;
}

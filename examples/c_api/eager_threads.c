/*
 * examples/c_api/eager_threads.c - one eager context shared by many
 * threads: each thread runs a chain of small AddV2 / Mul ops on scalars
 * with its own TF_Status, and the main thread prints every result.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>
#include <tensorflow/c/eager/c_api.h>

enum { kThreads = 24, kSteps = 2000 };

static TFE_Context *g_ctx;
static double g_result[kThreads];

static TFE_TensorHandle *scalar(float v, TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof v);
  memcpy(TF_TensorData(t), &v, sizeof v);
  TFE_TensorHandle *h = TFE_NewTensorHandle(t, s);
  TF_DeleteTensor(t);
  return h;
}

static TFE_TensorHandle *binary(const char *type, TFE_TensorHandle *x,
                                TFE_TensorHandle *y, TF_Status *s) {
  TFE_Op *op = TFE_NewOp(g_ctx, type, s);
  TFE_OpAddInput(op, x, s);
  TFE_OpAddInput(op, y, s);
  TFE_TensorHandle *r = NULL;
  int n = 1;
  TFE_Execute(op, &r, &n, s);
  TFE_DeleteOp(op);
  return r;
}

/* Thread t adds t+1 on even steps and multiplies by 1 on odd ones, so
 * its result is exact: (t+1) * kSteps / 2. */
static void *work(void *arg) {
  int id = (int)(size_t)arg;
  TF_Status *s = TF_NewStatus();
  TFE_TensorHandle *acc = scalar(0, s);
  TFE_TensorHandle *inc = scalar((float)(id + 1), s);
  TFE_TensorHandle *one = scalar(1, s);
  for (int i = 0; i < kSteps && TF_GetCode(s) == TF_OK; i++) {
    TFE_TensorHandle *next =
        binary(i % 2 ? "Mul" : "AddV2", acc, i % 2 ? one : inc, s);
    if (!next) break;
    TFE_DeleteTensorHandle(acc);
    acc = next;
  }
  if (TF_GetCode(s) == TF_OK) {
    TF_Tensor *t = TFE_TensorHandleResolve(acc, s);
    g_result[id] = *(float *)TF_TensorData(t);
    TF_DeleteTensor(t);
  } else {
    fprintf(stderr, "thread %d: %s\n", id, TF_Message(s));
    g_result[id] = -1;
  }
  TFE_DeleteTensorHandle(acc);
  TFE_DeleteTensorHandle(inc);
  TFE_DeleteTensorHandle(one);
  TF_DeleteStatus(s);
  return NULL;
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TFE_ContextOptions *opts = TFE_NewContextOptions();
  g_ctx = TFE_NewContext(opts, s);
  TFE_DeleteContextOptions(opts);
  if (TF_GetCode(s) != TF_OK) return 1;
  pthread_t th[kThreads];
  for (int i = 0; i < kThreads; i++)
    pthread_create(&th[i], NULL, work, (void *)(size_t)i);
  for (int i = 0; i < kThreads; i++) pthread_join(th[i], NULL);
  printf("%d threads x %d ops on one context\n", kThreads, kSteps);
  for (int i = 0; i < kThreads; i++)
    printf("thread %2d: %g\n", i, g_result[i]);
  TFE_DeleteContext(g_ctx);
  TF_DeleteStatus(s);
  return 0;
}

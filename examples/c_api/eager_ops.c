/*
 * examples/c_api/eager_ops.c - TensorFlow's eager C API: a context,
 * tensor handles, ops that run at once (MatMul, Fill, Shape, AddN,
 * StringFormat), type attrs inferred from the inputs with "first set
 * wins", device names and attr queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>
#include <tensorflow/c/eager/c_api.h>

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

static TFE_TensorHandle *handle(TF_DataType dt, const int64_t *dims,
                                int ndims, const void *v, size_t bytes,
                                TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(dt, dims, ndims, bytes);
  memcpy(TF_TensorData(t), v, bytes);
  TFE_TensorHandle *h = TFE_NewTensorHandle(t, s);
  check(s, "TFE_NewTensorHandle");
  TF_DeleteTensor(t);
  return h;
}

/* Runs `op`, which has one output, and deletes it. */
static TFE_TensorHandle *execute(TFE_Op *op, TF_Status *s) {
  TFE_TensorHandle *r = NULL;
  int n = 1;
  TFE_Execute(op, &r, &n, s);
  check(s, "TFE_Execute");
  TFE_DeleteOp(op);
  return r;
}

static void print_handle(const char *label, TFE_TensorHandle *h,
                         TF_Status *s) {
  TF_Tensor *t = TFE_TensorHandleResolve(h, s);
  check(s, "TFE_TensorHandleResolve");
  printf("%s: dtype %d, shape [", label, (int)TFE_TensorHandleDataType(h));
  int nd = TFE_TensorHandleNumDims(h, s);
  for (int i = 0; i < nd; i++)
    printf("%s%lld", i ? "," : "", (long long)TFE_TensorHandleDim(h, i, s));
  printf("], values");
  int64_t n = TFE_TensorHandleNumElements(h, s);
  for (int64_t i = 0; i < n; i++) {
    switch (TF_TensorType(t)) {
      case TF_FLOAT: printf(" %g", ((float *)TF_TensorData(t))[i]); break;
      case TF_INT32: printf(" %d", ((int32_t *)TF_TensorData(t))[i]); break;
      case TF_INT64:
        printf(" %lld", (long long)((int64_t *)TF_TensorData(t))[i]);
        break;
      case TF_STRING: {
        const TF_TString *e = (const TF_TString *)TF_TensorData(t) + i;
        printf(" \"%.*s\"", (int)TF_StringGetSize(e),
               TF_StringGetDataPointer(e));
        break;
      }
      default: printf(" ?"); break;
    }
  }
  printf("\n");
  TF_DeleteTensor(t);
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TFE_ContextOptions *opts = TFE_NewContextOptions();
  TFE_Context *ctx = TFE_NewContext(opts, s);
  check(s, "TFE_NewContext");
  TFE_DeleteContextOptions(opts);

  float av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {1, 0, 0, 1, 1, 1};
  TFE_TensorHandle *a = handle(TF_FLOAT, (int64_t[]){2, 3}, 2, av, 24, s);
  TFE_TensorHandle *b = handle(TF_FLOAT, (int64_t[]){3, 2}, 2, bv, 24, s);
  printf("device %s\n", TFE_TensorHandleDeviceName(a, s));

  TFE_Op *op = TFE_NewOp(ctx, "MatMul", s);
  check(s, "TFE_NewOp");
  TFE_OpAddInput(op, a, s);
  TFE_OpAddInput(op, b, s);
  TFE_OpSetAttrBool(op, "transpose_a", 0);
  unsigned char is_list;
  TF_AttrType kind = TFE_OpGetAttrType(op, "T", &is_list, s);
  printf("MatMul attr T: kind %d, list %d\n", (int)kind, is_list);
  TFE_TensorHandle *ab = execute(op, s);
  print_handle("a x b", ab, s);

  /* Fill: dims are int64, so index_type is inferred as int64; the later
   * explicit int32 does not override it (first set wins). */
  int64_t dv[2] = {2, 2};
  float seven = 7;
  TFE_TensorHandle *dims = handle(TF_INT64, (int64_t[]){2}, 1, dv, 16, s);
  TFE_TensorHandle *v7 = handle(TF_FLOAT, NULL, 0, &seven, 4, s);
  op = TFE_NewOp(ctx, "Fill", s);
  TFE_OpAddInput(op, dims, s);
  TFE_OpAddInput(op, v7, s);
  TFE_OpSetAttrType(op, "index_type", TF_INT32);
  TFE_TensorHandle *filled = execute(op, s);
  print_handle("fill", filled, s);

  op = TFE_NewOp(ctx, "Shape", s);
  TFE_OpAddInput(op, ab, s);
  TFE_OpSetAttrType(op, "out_type", TF_INT64);
  TFE_TensorHandle *shape = execute(op, s);
  print_handle("shape", shape, s);

  TFE_TensorHandle *terms[3] = {filled, filled, filled};
  op = TFE_NewOp(ctx, "AddN", s);
  TFE_OpAddInputList(op, terms, 3, s);
  printf("AddN inputs: %d\n", TFE_OpGetInputLength(op, "inputs", s));
  TFE_TensorHandle *sum = execute(op, s);
  print_handle("sum", sum, s);

  int32_t iv[3] = {1, 2, 3};
  TFE_TensorHandle *ints = handle(TF_INT32, (int64_t[]){3}, 1, iv, 12, s);
  TFE_TensorHandle *parts[2] = {shape, ints};
  op = TFE_NewOp(ctx, "StringFormat", s);
  TFE_OpAddInputList(op, parts, 2, s);
  TFE_OpSetAttrString(op, "template", "shape {} ints {}", 16);
  TFE_OpSetAttrString(op, "placeholder", "{}", 2);
  TFE_OpSetAttrInt(op, "summarize", 3);
  TFE_TensorHandle *text = execute(op, s);
  print_handle("format", text, s);

  op = TFE_NewOp(ctx, "AddV2", s);
  TFE_OpAddInput(op, a, s);
  TFE_OpAddInput(op, ints, s);
  TFE_TensorHandle *r[1];
  int n = 1;
  TFE_Execute(op, r, &n, s);
  printf("float + int32: code %d: %s\n", (int)TF_GetCode(s), TF_Message(s));
  TFE_DeleteOp(op);

  TFE_TensorHandle *all[10] = {a, b, ab, dims, v7, filled, shape, sum, ints,
                               text};
  for (int i = 0; i < 10; i++) TFE_DeleteTensorHandle(all[i]);
  TFE_DeleteContext(ctx);
  TF_DeleteStatus(s);
  return 0;
}

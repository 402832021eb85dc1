/*
 * examples/c_api/strings.c - string tensors: an array of 24-byte
 * TF_TString records filled with TF_StringInit / TF_StringCopy (embedded
 * NULs, empty strings, strings too long for the small form), fed through
 * an Identity and read back; and a scalar string on the caller's own
 * memory with a deallocator that reports when it runs.
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

static void print_strings(const char *label, const TF_Tensor *t) {
  int64_t n = TF_TensorElementCount(t);
  const TF_TString *e = (const TF_TString *)TF_TensorData(t);
  printf("%s: dtype %d, %d dims, %lld elements, %zu bytes\n", label,
         (int)TF_TensorType(t), TF_NumDims(t), (long long)n,
         TF_TensorByteSize(t));
  for (int64_t i = 0; i < n; i++) {
    const char *p = TF_StringGetDataPointer(&e[i]);
    size_t len = TF_StringGetSize(&e[i]);
    printf("  [%lld] %s, %zu bytes: \"", (long long)i,
           TF_StringGetType(&e[i]) == TF_TSTR_SMALL ? "small" : "large", len);
    for (size_t k = 0; k < len; k++) {
      if (p[k] >= 32 && p[k] < 127) putchar(p[k]);
      else printf("\\x%02x", (unsigned char)p[k]);
    }
    printf("\"\n");
  }
}

static void release_scalar(void *data, size_t len, void *arg) {
  printf("deallocator: %zu bytes of %s\n", len, (const char *)arg);
  TF_StringDealloc((TF_TString *)data);
  free(data);
}

int main(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "text");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation *text = TF_FinishOperation(d, s);
  check(s, "Placeholder");
  d = TF_NewOperation(g, "Identity", "echo");
  TF_AddInput(d, (TF_Output){text, 0});
  TF_Operation *echo = TF_FinishOperation(d, s);
  check(s, "Identity");
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  check(s, "TF_NewSession");

  static const char *src[4] = {"hello", "nul\0inside", "",
                               "a string longer than the small form"};
  static const size_t lens[4] = {5, 10, 0, 35};
  int64_t dims[2] = {2, 2};
  TF_Tensor *in = TF_AllocateTensor(TF_STRING, dims, 2, 4 * sizeof(TF_TString));
  TF_TString *e = (TF_TString *)TF_TensorData(in);
  for (int i = 0; i < 4; i++) {
    TF_StringInit(&e[i]);
    TF_StringCopy(&e[i], src[i], lens[i]);
  }
  print_strings("fed", in);
  TF_Output feed = {text, 0}, fetch = {echo, 0};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, &feed, &in, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  check(s, "TF_SessionRun");
  TF_DeleteTensor(in);
  print_strings("fetched", out);
  TF_DeleteTensor(out);

  /* a scalar on the caller's memory */
  TF_TString *mine = (TF_TString *)aligned_alloc(64, 64);
  TF_StringInit(mine);
  TF_StringCopy(mine, "scalar string owned by the caller", 33);
  in = TF_NewTensor(TF_STRING, NULL, 0, mine, sizeof(TF_TString),
                    release_scalar, (void *)"the scalar");
  TF_SessionRun(sess, NULL, &feed, &in, 1, &fetch, &out, 1, NULL, 0, NULL, s);
  check(s, "TF_SessionRun");
  printf("deleting the input\n");
  TF_DeleteTensor(in);
  print_strings("fetched scalar", out);
  printf("deleting the output\n");
  TF_DeleteTensor(out);

  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}

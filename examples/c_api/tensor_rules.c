/*
 * examples/c_api/tensor_rules.c - who owns a tensor's memory: TF_NewTensor
 * over the caller's buffer (the deallocator runs once, when the last user
 * is gone), over a misaligned buffer (copied, the deallocator runs at
 * once), over a buffer too short for the shape (NULL); TF_AllocateTensor
 * scalars; TF_TString's small and large forms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tensorflow/c/c_api.h>

static void note_dealloc(void *data, size_t len, void *arg) {
  (void)data;
  printf("  deallocator(%zu bytes, %s)\n", len, (const char *)arg);
}

static float g_buf[32] __attribute__((aligned(64)));

static void describe(const TF_Tensor *t) {
  printf("  dtype %d, %d dims, %lld elements, %zu bytes, aligned %d\n",
         (int)TF_TensorType(t), TF_NumDims(t),
         (long long)TF_TensorElementCount(t), TF_TensorByteSize(t),
         (int)TF_TensorIsAligned(t));
}

int main(void) {
  int64_t dims[2] = {2, 2};
  printf("default alignment %zu\n", TF_TensorDefaultAlignment());
  for (int i = 0; i < 4; i++) g_buf[i] = (float)i;

  printf("aligned buffer:\n");
  TF_Tensor *t = TF_NewTensor(TF_FLOAT, dims, 2, g_buf, 16, note_dealloc,
                              (void *)"aligned");
  describe(t);
  printf("  shares the buffer: %d\n", TF_TensorData(t) == (void *)g_buf);
  printf("  deleting\n");
  TF_DeleteTensor(t);

  printf("misaligned buffer:\n");
  char *odd = (char *)g_buf + 4;
  t = TF_NewTensor(TF_FLOAT, dims, 2, odd, 16, note_dealloc,
                   (void *)"misaligned");
  describe(t);
  printf("  first value %g\n", ((float *)TF_TensorData(t))[0]);
  printf("  deleting\n");
  TF_DeleteTensor(t);

  printf("buffer too short:\n");
  t = TF_NewTensor(TF_FLOAT, dims, 2, g_buf, 12, note_dealloc,
                   (void *)"short");
  printf("  tensor %s\n", t ? "created" : "NULL");

  printf("allocated scalar:\n");
  t = TF_AllocateTensor(TF_INT32, NULL, 0, 4);
  describe(t);
  printf("  uniquely owned: %d\n", TF_TensorMaybeMove(t) == t);
  TF_DeleteTensor(t);
  printf("allocated 2x2 int64 reshaped to 4:\n");
  t = TF_AllocateTensor(TF_INT64, dims, 2, 32);
  int64_t four[1] = {4};
  TF_SetShape(t, four, 1);
  describe(t);
  TF_DeleteTensor(t);
  printf("allocated 3 strings:\n");
  int64_t three[1] = {3};
  t = TF_AllocateTensor(TF_STRING, three, 1, 3 * sizeof(TF_TString));
  describe(t);
  TF_DeleteTensor(t);

  printf("TF_TString is %zu bytes\n", sizeof(TF_TString));
  TF_TString str;
  TF_StringInit(&str);
  static const char *texts[3] = {"short", "exactly twenty-two byt",
                                 "twenty-three bytes long"};
  for (int i = 0; i < 3; i++) {
    TF_StringCopy(&str, texts[i], strlen(texts[i]));
    printf("  \"%s\": type %d, size %zu, capacity %zu\n",
           TF_StringGetDataPointer(&str), (int)TF_StringGetType(&str),
           TF_StringGetSize(&str), TF_StringGetCapacity(&str));
  }
  TF_StringAssignView(&str, texts[0], 3);
  printf("  view: type %d, size %zu, capacity %zu\n",
         (int)TF_StringGetType(&str), TF_StringGetSize(&str),
         TF_StringGetCapacity(&str));
  TF_StringDealloc(&str);
  printf("sizes: float %zu, double %zu, bool %zu, half %zu, string %zu\n",
         TF_DataTypeSize(TF_FLOAT), TF_DataTypeSize(TF_DOUBLE),
         TF_DataTypeSize(TF_BOOL), TF_DataTypeSize(TF_HALF),
         TF_DataTypeSize(TF_STRING));
  return 0;
}

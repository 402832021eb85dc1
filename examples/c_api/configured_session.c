/*
 * examples/c_api/configured_session.c - sessions configured with
 * hand-encoded ConfigProto bytes (thread pools; GPU options with soft
 * placement, which work without a GPU), the device list (its GPUs, on
 * machines with any, on stderr), RunOptions and RunMetadata, and a graph
 * that grows after the session was created.
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

static TF_Operation *scalar(TF_Graph *g, const char *name, float v,
                            TF_Status *s) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof v);
  memcpy(TF_TensorData(t), &v, sizeof v);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static TF_Operation *binary(TF_Graph *g, const char *type, const char *name,
                            TF_Operation *x, TF_Operation *y, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){x, 0});
  TF_AddInput(d, (TF_Output){y, 0});
  TF_Operation *op = TF_FinishOperation(d, s);
  check(s, name);
  return op;
}

static void run_and_print(TF_Session *sess, TF_Operation *op,
                          const TF_Buffer *ro, TF_Buffer *md, TF_Status *s) {
  TF_Output f = {op, 0};
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, ro, NULL, NULL, 0, &f, &out, 1, NULL, 0, md, s);
  check(s, "TF_SessionRun");
  printf("  %s = %g\n", TF_OperationName(op), *(float *)TF_TensorData(out));
  TF_DeleteTensor(out);
}

int main(void) {
  /* intra_op_parallelism_threads: 2, inter_op_parallelism_threads: 2 */
  static const unsigned char threads[] = {0x10, 0x02, 0x28, 0x02};
  /* gpu_options { per_process_gpu_memory_fraction: 0.3 allow_growth: true }
   * allow_soft_placement: true */
  static const unsigned char gpu[] = {0x32, 0x0b, 0x09, 0x33, 0x33, 0x33,
                                      0x33, 0x33, 0x33, 0xd3, 0x3f, 0x20,
                                      0x01, 0x38, 0x01};
  const unsigned char *configs[2] = {threads, gpu};
  size_t sizes[2] = {sizeof threads, sizeof gpu};
  TF_Status *s = TF_NewStatus();
  for (int c = 0; c < 2; c++) {
    TF_Graph *g = TF_NewGraph();
    TF_SessionOptions *opts = TF_NewSessionOptions();
    TF_SetConfig(opts, configs[c], sizes[c], s);
    check(s, "TF_SetConfig");
    TF_Session *sess = TF_NewSession(g, opts, s);
    check(s, "TF_NewSession");
    printf("config %d:\n", c);
    /* the device list: the CPU on stdout, a machine's GPUs (when it has
     * any) on stderr, so that the output is the same on every machine */
    TF_DeviceList *dl = TF_SessionListDevices(sess, s);
    for (int i = 0; i < TF_DeviceListCount(dl); i++) {
      const char *type = TF_DeviceListType(dl, i, s);
      fprintf(strcmp(type, "CPU") == 0 ? stdout : stderr,
              "  device %s (%s)\n", TF_DeviceListName(dl, i, s), type);
    }
    TF_DeleteDeviceList(dl);
    /* the graph is built after the session */
    TF_Operation *x = scalar(g, "x", 1.5f, s);
    TF_Operation *y = binary(g, "Mul", "y", x, scalar(g, "four", 4, s), s);
    TF_Buffer *ro = TF_NewBufferFromString("", 0);
    run_and_print(sess, y, ro, NULL, s);
    TF_DeleteBuffer(ro);
    TF_Operation *z = binary(g, "AddV2", "z", y, x, s);
    TF_Buffer *md = TF_NewBuffer();
    run_and_print(sess, z, NULL, md, s);
    printf("  run metadata returned: %s\n", md->data ? "yes" : "no");
    TF_DeleteBuffer(md);
    TF_DeleteSession(sess, s);
    TF_DeleteSessionOptions(opts);
    TF_DeleteGraph(g);
  }
  TF_DeleteStatus(s);
  return 0;
}

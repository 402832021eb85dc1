/*
 * tests/device/test_cuda_nolibs.c - a CUDA build where the CUDA libraries
 * are not there, on any host (tests/device/cuda_nolibs.sh runs each suite
 * in a process of its own):
 *   cuda_missing_libs: cuDNN and cuBLAS pointed at files that do not
 *     exist (TFS_CUDNN_LIBRARY, TFS_CUBLAS_LIBRARY): TensorFlow's "Could
 *     not load dynamic library" statuses, the same on every call, nothing
 *     mapped; on a GPU the cuDNN kernels are not offered (soft placement
 *     runs Conv2D on the CPU) and MatMul fails with the cuBLAS message.
 *   cuda_no_gpu: run with CUDA_VISIBLE_DEVICES="" (no driver or no GPU
 *     reads the same): the session has no GPU, an explicit GPU request
 *     fails with the placer's message and soft placement runs on the CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "devtest.h"

#define NO_CUDNN "/nonexistent/libcudnn.so.9"
#define NO_CUBLAS "/nonexistent/libcublas.so.13"

static int gpu_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

static void test_libraries_missing(void) {
  /* first of the suite: nothing has opened either library yet */
  setenv("TFS_CUDNN_LIBRARY", NO_CUDNN, 1);
  setenv("TFS_CUBLAS_LIBRARY", NO_CUBLAS, 1);
  tfs_status *st = tfs_status_new();
  for (int i = 0; i < 2; i++) { /* loaded once: the same error again */
    CU_ASSERT_PTR_NULL(tfs_cuda__cudnn(st));
    TFS_ASSERT_MESSAGE(st,
                       "Could not load dynamic library '" NO_CUDNN
                       "'; dlerror: " NO_CUDNN
                       ": cannot open shared object file: No such file or "
                       "directory");
    CU_ASSERT_EQUAL(tfs_status_code(st), TFS_FAILED_PRECONDITION);
    CU_ASSERT_PTR_NULL(tfs_cuda__cublas(st));
    TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION,
                     "Could not load dynamic library '" NO_CUBLAS
                     "'; dlerror: ");
  }
  CU_ASSERT_EQUAL(tfs_cuda__cudnn_loaded(), 0);
  CU_ASSERT_EQUAL(tfs_cuda__cublas_loaded(), 0);
  /* a status of cuDNN's or cuBLAS's cannot be read without them */
  CU_ASSERT_EQUAL(tfs_cuda__check_dnn(CUDNN_STATUS_BAD_PARAM, "x", st), -1);
  TFS_ASSERT_ERROR(st, TFS_FAILED_PRECONDITION, NO_CUDNN);
  tfs_status_free(st);
}

/* Conv2D of a 1x2x2x1 input and a 1x1x1x1 filter (x2) requested on
 * GPU:0; y = x * 2. */
static tfs_output conv_graph(tfs_graph *g, tfs_output *x) {
  *x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_status *st = tfs_status_new();
  tfs_tensor *fv = tu_floats((int64_t[]){1, 1, 1, 1}, 4, (const float[]){2});
  tfs_op_desc *d = tfs_op_desc_new(g, "Const", "f");
  tfs_op_desc_set_attr_tensor(d, "value", fv, st);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  tfs_operation *f = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_tensor_free(fv);
  d = tfs_op_desc_new(g, "Conv2D", "c");
  tfs_op_desc_add_input(d, *x);
  tfs_op_desc_add_input(d, (tfs_output){f, 0});
  tfs_op_desc_set_attr_type(d, "T", TFS_FLOAT);
  tfs_op_desc_set_attr_int_list(d, "strides", (int64_t[]){1, 1, 1, 1}, 4);
  tfs_op_desc_set_attr_string(d, "padding", "VALID", 5);
  tfs_op_desc_set_device(d, "/device:GPU:0");
  tfs_operation *c = tfs_op_desc_finish(d, st);
  TFS_ASSERT_OK(st);
  tfs_status_free(st);
  return (tfs_output){c, 0};
}

/* On a GPU: no cuDNN kernel is offered, so an explicit request fails at
 * placement and soft placement runs the node on the CPU. */
static void test_conv_without_cudnn(void) {
  if (gpu_count() == 0) {
    fprintf(stderr, " (no GPU: only the loader's statuses are checked) ");
    return;
  }
  tfs_graph *g = tfs_graph_new();
  tfs_output x;
  tfs_output y = conv_graph(g, &x);
  dt_placement p;
  CU_ASSERT_EQUAL(dt_place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  CU_ASSERT_PTR_NOT_NULL(strstr(tfs_status_message(p.st),
      "Cannot assign a device for operation c: Could not satisfy explicit "
      "device specification '/device:GPU:0' because no supported kernel "
      "for GPU devices is available."));
  dt_placement_clear(&p);
  CU_ASSERT_EQUAL(dt_place(g, NULL, 1, 0, &p), TFS_OK);
  CU_ASSERT_STRING_EQUAL(dt_device(&p, "c"), DT_CPU);
  dt_placement_clear(&p);
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_allow_soft_placement(o, 1);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *xv = tu_floats((int64_t[]){1, 2, 2, 1}, 4,
                             (const float[]){1, 2, 3, 4});
  tfs_tensor *out = tu_run1(s, y, &x, &xv, 1);
  const float *o4 = tfs_tensor_data(out);
  CU_ASSERT_TRUE(o4[0] == 2 && o4[1] == 4 && o4[2] == 6 && o4[3] == 8);
  CU_ASSERT_EQUAL(tfs_cuda__cudnn_loaded(), 0);
  tfs_tensor_free(out);
  tfs_tensor_free(xv);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_no_gpu(void) {
  const char *vis = getenv("CUDA_VISIBLE_DEVICES");
  CU_ASSERT_FATAL(vis != NULL && *vis == 0); /* cuda_nolibs.sh sets it */
  CU_ASSERT_EQUAL(gpu_count(), 0);
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output xx[2] = {x, x};
  tfs_output y = dt_node(g, "AddV2", "a", "/device:GPU:0", xx, 2, TFS_FLOAT,
                         NULL);
  dt_placement p;
  CU_ASSERT_EQUAL(dt_place(g, NULL, 0, 0, &p), TFS_INVALID_ARGUMENT);
  CU_ASSERT_EQUAL(strncmp(tfs_status_message(p.st),
      "Cannot assign a device for operation a: {{node a}} was explicitly "
      "assigned to /device:GPU:0 but available devices are [ " DT_CPU ", "
      DT_FAKE0 " ]. Make sure the device specification refers to a valid "
      "device.", 200), 0);
  dt_placement_clear(&p);
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_allow_soft_placement(o, 1);
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *xv = tu_floats((int64_t[]){2}, 1, (const float[]){1, 2});
  tfs_tensor *out = tu_run1(s, y, &x, &xv, 1);
  const float *v = tfs_tensor_data(out);
  CU_ASSERT_TRUE(v[0] == 2 && v[1] == 4);
  CU_ASSERT_EQUAL(tfs_cuda__cudnn_loaded(), 0);
  CU_ASSERT_EQUAL(tfs_cuda__cublas_loaded(), 0);
  tfs_tensor_free(out);
  tfs_tensor_free(xv);
  tfs_session_free(s);
  tfs_session_options_free(o);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static const tfs_test_case kMissing[] = {
    {"libraries_missing", test_libraries_missing},
    {"conv_without_cudnn", test_conv_without_cudnn},
    {NULL, NULL}};
static const tfs_test_case kNoGpu[] = {{"no_gpu", test_no_gpu},
                                       {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cuda_missing_libs", kMissing},
                                          {"cuda_no_gpu", kNoGpu},
                                          {NULL, NULL}};

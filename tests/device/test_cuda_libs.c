/*
 * tests/device/test_cuda_libs.c - the CUDA build's libraries as a process
 * sees them, on any machine (no GPU needed): cuBLAS and cuDNN stay unmapped
 * through sessions that run on the CPU, open on first use with every entry
 * point resolved, and their statuses read as TensorFlow prints them.
 */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "devtest.h"

/* First of the suite: nothing has asked for cuBLAS yet. */
static void test_cublas_not_loaded_by_cpu_runs(void) {
  CU_ASSERT_EQUAL(tfs_cuda__cublas_loaded(), 0);
  CU_ASSERT_EQUAL(tfs_cuda__cudnn_loaded(), 0);
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_output x = dt_placeholder(g, "x", TFS_FLOAT);
  tfs_output in[2] = {x, x};
  tfs_output y = dt_node(g, "MatMul", "y", "/device:CPU:0", in, 2, TFS_FLOAT,
                         NULL);
  /* the default options: every visible device is discovered */
  tfs_session *s = tfs_session_new(g, NULL, st);
  TFS_ASSERT_OK(st);
  tfs_tensor *xv = tu_floats((int64_t[]){2, 2}, 2,
                             (const float[]){1, 2, 3, 4});
  tfs_tensor *out = tu_run1(s, y, &x, &xv, 1);
  const float *o = tfs_tensor_data(out);
  CU_ASSERT_TRUE(o[0] == 7 && o[1] == 10 && o[2] == 15 && o[3] == 22);
  CU_ASSERT_EQUAL(tfs_cuda__cublas_loaded(), 0);
  CU_ASSERT_EQUAL(tfs_cuda__cudnn_loaded(), 0);
  tfs_tensor_free(out);
  tfs_tensor_free(xv);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_cublas_opens_on_first_use(void) {
  tfs_status *st = tfs_status_new();
  const tfs_cublas_api *b = tfs_cuda__cublas(st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_EQUAL(tfs_cuda__cublas_loaded(), 1);
  CU_ASSERT_PTR_EQUAL(tfs_cuda__cublas(st), b); /* loaded once */
  CU_ASSERT_TRUE(b->create && b->destroy && b->set_stream && b->gemm_ex &&
                 b->gemm_strided_batched_ex && b->status_name &&
                 b->status_string);
  /* a call through the table: a handle where a GPU is, else cuBLAS's own
   * status for "no device" */
  cublasHandle_t h = NULL;
  cublasStatus_t r = b->create(&h);
  if (r == CUBLAS_STATUS_SUCCESS) {
    CU_ASSERT_EQUAL(b->destroy(h), CUBLAS_STATUS_SUCCESS);
  } else {
    CU_ASSERT_EQUAL(strncmp(b->status_name(r), "CUBLAS_STATUS_", 14), 0);
  }
  tfs_status_free(st);
}

static void test_cublas_status_message(void) {
  tfs_status *st = tfs_status_new();
  CU_ASSERT_EQUAL(tfs_cuda__check_blas(CUBLAS_STATUS_SUCCESS, "x", st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(
      tfs_cuda__check_blas(CUBLAS_STATUS_NOT_SUPPORTED, "cublasGemmEx", st),
      -1);
  TFS_ASSERT_ERROR(st, TFS_INTERNAL,
                   "cublasGemmEx: CUBLAS_STATUS_NOT_SUPPORTED: ");
  tfs_status_free(st);
}

static void test_cudnn_opens_on_first_use(void) {
  tfs_status *st = tfs_status_new();
  const tfs_cudnn_api *dn = tfs_cuda__cudnn(st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dn);
  CU_ASSERT_EQUAL(tfs_cuda__cudnn_loaded(), 1);
  CU_ASSERT_PTR_EQUAL(tfs_cuda__cudnn(st), dn); /* loaded once */
#define TFS_CUDNN_CHECK(f) CU_ASSERT_PTR_NOT_NULL(dn->f);
  TFS_CUDNN_FUNCS(TFS_CUDNN_CHECK)
#undef TFS_CUDNN_CHECK
  /* a descriptor needs no GPU */
  cudnnTensorDescriptor_t d = NULL;
  CU_ASSERT_EQUAL(dn->cudnnCreateTensorDescriptor(&d), CUDNN_STATUS_SUCCESS);
  CU_ASSERT_EQUAL(dn->cudnnDestroyTensorDescriptor(d), CUDNN_STATUS_SUCCESS);
  CU_ASSERT_EQUAL(
      tfs_cuda__check_dnn(CUDNN_STATUS_BAD_PARAM, "cudnnSetStream", st), -1);
  TFS_ASSERT_ERROR(st, TFS_INTERNAL, "cudnnSetStream: CUDNN_STATUS_BAD_PARAM");
  tfs_status_free(st);
}

static const tfs_test_case kLibs[] = {
    {"cublas_not_loaded_by_cpu_runs", test_cublas_not_loaded_by_cpu_runs},
    {"cublas_opens_on_first_use", test_cublas_opens_on_first_use},
    {"cublas_status_message", test_cublas_status_message},
    {"cudnn_opens_on_first_use", test_cudnn_opens_on_first_use},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cuda_libs", kLibs}, {NULL, NULL}};

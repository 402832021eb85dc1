/*
 * backends/cuda/cuda_blas_dso.c - cuBLAS, loaded on first use.  Linking cuBLAS
 * maps cuBLASLt with it, and the loader's relocations alone make about
 * 200 MB of every process resident, GPU or not; like TensorFlow's DSO
 * loader, the CUDA device opens the library the first time a MatMul runs
 * on a GPU and resolves the few entry points it calls.
 */
#include <pthread.h>
#include <string.h>

#include "backends/cuda/cuda_device.h"
#include "tfs_config.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The file name of the cuBLAS this build was compiled against. */
#define CUBLAS_SONAME "libcublas.so." STR(CUBLAS_VER_MAJOR)

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static tfs_cublas_api g_api;
static int g_ok;
static char g_err[512];

static int resolve(void *lib, const char *name, void **fn) {
  return tfs_cuda__dso_sym(lib, CUBLAS_SONAME, name, fn, g_err, sizeof g_err);
}

static void load(void) {
  void *lib = tfs_cuda__dso_open("TFS_CUBLAS_LIBRARY", TFS_CUDA_LIBDIR,
                                 CUBLAS_SONAME, g_err, sizeof g_err);
  if (!lib) return;
  if (resolve(lib, "cublasCreate_v2", (void **)&g_api.create) ||
      resolve(lib, "cublasDestroy_v2", (void **)&g_api.destroy) ||
      resolve(lib, "cublasSetStream_v2", (void **)&g_api.set_stream) ||
      resolve(lib, "cublasGemmEx", (void **)&g_api.gemm_ex) ||
      resolve(lib, "cublasGemmStridedBatchedEx",
              (void **)&g_api.gemm_strided_batched_ex) ||
      resolve(lib, "cublasGetStatusName", (void **)&g_api.status_name) ||
      resolve(lib, "cublasGetStatusString", (void **)&g_api.status_string)) {
    memset(&g_api, 0, sizeof g_api);
    return; /* the handle stays open: a half-resolved library is not retried */
  }
  g_ok = 1;
}

const tfs_cublas_api *tfs_cuda__cublas(tfs_status *st) {
  pthread_once(&g_once, load);
  if (g_ok) return &g_api;
  tfs_status_setf(st, TFS_FAILED_PRECONDITION, "%s", g_err);
  return NULL;
}

int tfs_cuda__cublas_loaded(void) {
  return tfs_cuda__dso_loaded(TFS_CUDA_LIBDIR, CUBLAS_SONAME);
}

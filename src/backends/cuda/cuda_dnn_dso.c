/*
 * backends/cuda/cuda_dnn_dso.c - cuDNN, loaded on first use like cuBLAS
 * (cuda_blas_dso.c): a CUDA build has no link-time dependency on it, so
 * it starts where cuDNN is not installed, and the GPU device offers its
 * cuDNN kernels (Conv2D, pooling) only once the library
 * opens with every entry point the kernels call.
 */
#include <pthread.h>
#include <string.h>

#include "core/log.h"
#include "backends/cuda/cuda_device.h"
#include "tfs_config.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The file name of the cuDNN this build was compiled against. */
#define CUDNN_SONAME "libcudnn.so." STR(CUDNN_MAJOR)

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static tfs_cudnn_api g_api;
static int g_ok;
static char g_err[512];

static void load(void) {
  void *lib = tfs_cuda__dso_open("TFS_CUDNN_LIBRARY", TFS_CUDNN_LIBDIR,
                                 CUDNN_SONAME, g_err, sizeof g_err);
  if (!lib) {
    /* the placer only sees that the GPU has no kernel for the node: the
     * reason goes to the log once, as TensorFlow's DSO loader does */
    tfs_log(TFS_LOG_WARN, "%s", g_err);
    return;
  }
#define TFS_CUDNN_RESOLVE(f)                                             \
  if (tfs_cuda__dso_sym(lib, CUDNN_SONAME, #f, (void **)&g_api.f, g_err, \
                        sizeof g_err)) {                                 \
    memset(&g_api, 0, sizeof g_api);                                     \
    tfs_log(TFS_LOG_WARN, "%s", g_err);                                  \
    return;                                                              \
  }
  TFS_CUDNN_FUNCS(TFS_CUDNN_RESOLVE)
#undef TFS_CUDNN_RESOLVE
  g_ok = 1; /* a half-resolved library stays open and is not retried */
}

const tfs_cudnn_api *tfs_cuda__cudnn(tfs_status *st) {
  pthread_once(&g_once, load);
  if (g_ok) return &g_api;
  tfs_status_setf(st, TFS_FAILED_PRECONDITION, "%s", g_err);
  return NULL;
}

int tfs_cuda__cudnn_loaded(void) {
  return tfs_cuda__dso_loaded(TFS_CUDNN_LIBDIR, CUDNN_SONAME);
}

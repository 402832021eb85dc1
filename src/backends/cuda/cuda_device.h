/*
 * backends/cuda/cuda_device.h - the CUDA device (CUDA builds only): per GPU a
 * caching allocator over cudaMalloc, a compute stream and a copy stream,
 * cuBLAS and cuDNN handles bound to the compute stream, and the helpers
 * the CUDA kernels (src/backends/cuda) use.  Every CUDA error becomes a
 * status, never an abort.
 */
#ifndef TFS_BACKENDS_CUDA_CUDA_DEVICE_H
#define TFS_BACKENDS_CUDA_CUDA_DEVICE_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <pthread.h>

#include "device/bfc_alloc.h"
#include "device/device.h"

/* The GPU device type: devices "GPU:n" for the visible CUDA devices. */
extern const tfs_device_type tfs_cuda_device_type;

typedef struct tfs_cuda_dev {
  tfs_device base;          /* first: a tfs_device * is a tfs_cuda_dev * */
  int ordinal;              /* the physical CUDA device */
  int cc_major, cc_minor, sm_count;
  cudaStream_t compute, copy;
  cudaEvent_t ev_compute, ev_copy; /* guarded by: copy_mu */
  pthread_mutex_t copy_mu;
  pthread_mutex_t lib_mu;   /* serialises cuBLAS / cuDNN calls */
  cublasHandle_t blas;      /* guarded by: lib_mu; NULL until first use */
  cudnnHandle_t dnn;        /* guarded by: lib_mu; NULL until first use */
  tfs_bfc *bfc;
} tfs_cuda_dev;

/* d as a CUDA device, or NULL when it is another type. */
tfs_cuda_dev *tfs_cuda__dev(tfs_device *d);

/* 0 when e is cudaSuccess; else -1 with INTERNAL "<what>: <error name>:
 * <error string>" in st (and the sticky error cleared when it can be). */
int tfs_cuda__check(cudaError_t e, const char *what, tfs_status *st);

/* The same for cuBLAS and cuDNN results. */
int tfs_cuda__check_blas(cublasStatus_t e, const char *what, tfs_status *st);
int tfs_cuda__check_dnn(cudnnStatus_t e, const char *what, tfs_status *st);

/* The cuBLAS entry points the device calls, from the library opened on
 * first use (backends/cuda/cuda_blas_dso.c): every process that links tfsess
 * would otherwise carry cuBLAS and cuBLASLt resident. */
typedef struct tfs_cublas_api {
  __typeof__(cublasCreate_v2) *create;
  __typeof__(cublasDestroy_v2) *destroy;
  __typeof__(cublasSetStream_v2) *set_stream;
  __typeof__(cublasGemmEx) *gemm_ex;
  __typeof__(cublasGemmStridedBatchedEx) *gemm_strided_batched_ex;
  __typeof__(cublasGetStatusName) *status_name;
  __typeof__(cublasGetStatusString) *status_string;
} tfs_cublas_api;

/* The cuBLAS entry points, loading the library the first time (once per
 * process; thread-safe).  The table is static: never freed.  NULL with
 * FAILED_PRECONDITION "Could not load dynamic library 'libcublas.so.N';
 * dlerror: ..." (TensorFlow's wording) or a missing symbol's name when
 * the library cannot be used; the same error on every later call.
 * TFS_CUBLAS_LIBRARY in the environment names the one file to open
 * instead of TFS_CUDA_LIBDIR/libcublas.so.N and the search path. */
const tfs_cublas_api *tfs_cuda__cublas(tfs_status *st);

/* 1 when cuBLAS is mapped into the process (by tfs_cuda__cublas or by
 * anyone else), 0 when not; loads nothing.  Thread-safe. */
int tfs_cuda__cublas_loaded(void);

/* The cuDNN entry points the device calls (X(name) for each), resolved
 * from the library opened on first use (backends/cuda/cuda_dnn_dso.c). */
#define TFS_CUDNN_FUNCS(X)                                                  \
  X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream) X(cudnnGetErrorString)   \
  X(cudnnCreateTensorDescriptor) X(cudnnDestroyTensorDescriptor)            \
  X(cudnnSetTensor4dDescriptor) X(cudnnCreateFilterDescriptor)              \
  X(cudnnDestroyFilterDescriptor) X(cudnnSetFilter4dDescriptor)             \
  X(cudnnCreateConvolutionDescriptor) X(cudnnDestroyConvolutionDescriptor)  \
  X(cudnnSetConvolution2dDescriptor) X(cudnnSetConvolutionGroupCount)       \
  X(cudnnSetConvolutionMathType) X(cudnnGetConvolutionForwardAlgorithm_v7)  \
  X(cudnnConvolutionForward) X(cudnnCreatePoolingDescriptor)                \
  X(cudnnDestroyPoolingDescriptor) X(cudnnSetPooling2dDescriptor)           \
  X(cudnnPoolingForward) X(cudnnDeriveBNTensorDescriptor)                   \
  X(cudnnBatchNormalizationForwardInference)                                \
  X(cudnnBatchNormalizationForwardTraining)

/* One member per entry point, named as the function: api->cudnnCreate(). */
typedef struct tfs_cudnn_api {
#define TFS_CUDNN_MEMBER(f) __typeof__(f) *f;
  TFS_CUDNN_FUNCS(TFS_CUDNN_MEMBER)
#undef TFS_CUDNN_MEMBER
} tfs_cudnn_api;

/* The cuDNN entry points, loading the library the first time (once per
 * process; thread-safe; never freed).  NULL with FAILED_PRECONDITION
 * "Could not load dynamic library 'libcudnn.so.N'; dlerror: ..." or a
 * missing symbol's name when it cannot be used, the same on every later
 * call.  TFS_CUDNN_LIBRARY in the environment names the one file to open
 * instead of TFS_CUDNN_LIBDIR/libcudnn.so.N and the loader's search path. */
const tfs_cudnn_api *tfs_cuda__cudnn(tfs_status *st);

/* 1 when cuDNN is mapped into the process, 0 when not; loads nothing. */
int tfs_cuda__cudnn_loaded(void);

/* The loaders' common part (backends/cuda/cuda_dso.c).  Opens the file
 * named by the environment variable env when it is set and not empty
 * (that file only), else dir/soname, else soname on the loader's search
 * path; NULL with TensorFlow's "Could not load dynamic library '<name>';
 * dlerror: <why>" in err. */
void *tfs_cuda__dso_open(const char *env, const char *dir,
                         const char *soname, char *err, size_t errlen);

/* dlsym(lib, sym) into *fn; -1 with "<libname> has no symbol <sym>". */
int tfs_cuda__dso_sym(void *lib, const char *libname, const char *sym,
                      void **fn, char *err, size_t errlen);

/* 1 when soname (or dir/soname) is mapped into the process; loads nothing. */
int tfs_cuda__dso_loaded(const char *dir, const char *soname);

/* Makes d the calling thread's current CUDA device. */
int tfs_cuda__activate(tfs_cuda_dev *d, tfs_status *st);

/* The cuBLAS / cuDNN handle of d, created on first use and bound to its
 * compute stream.  Call with d->lib_mu held. */
cublasHandle_t tfs_cuda__blas(tfs_cuda_dev *d, tfs_status *st);
cudnnHandle_t tfs_cuda__dnn(tfs_cuda_dev *d, tfs_status *st);

/* Device memory from d's allocator (workspaces); NULL with
 * RESOURCE_EXHAUSTED.  Freed memory may be reused by work queued later
 * on the compute stream, which is the only stream that reads it. */
void *tfs_cuda__alloc(tfs_cuda_dev *d, size_t bytes, tfs_status *st);
void tfs_cuda__free(tfs_cuda_dev *d, void *p);

#endif

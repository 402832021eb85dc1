/*
 * backends/cuda/cuda_device.c - the CUDA device: discovery (cudaGetDeviceCount,
 * ConfigProto's visible_device_list and device_count), one process-wide
 * device per GPU with its caching allocator (allow_growth and
 * per_process_gpu_memory_fraction honoured), compute and copy streams
 * ordered by events, and the library handles.  Built only with CUDA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/status.h"
#include "backends/cuda/cuda_device.h"
#include "backends/cuda/cuda_kernels.h"

#define MAX_GPUS 64

/* ---- errors ---------------------------------------------------------------- */

int tfs_cuda__check(cudaError_t e, const char *what, tfs_status *st) {
  if (e == cudaSuccess) return 0;
  cudaGetLastError(); /* clears a non-sticky error */
  tfs_status_setf(st, TFS_INTERNAL, "%s: %s: %s", what, cudaGetErrorName(e),
                  cudaGetErrorString(e));
  return -1;
}

int tfs_cuda__check_blas(cublasStatus_t e, const char *what, tfs_status *st) {
  if (e == CUBLAS_STATUS_SUCCESS) return 0;
  /* a status comes from a call through the table: it is loaded */
  const tfs_cublas_api *b = tfs_cuda__cublas(st);
  if (!b) return -1;
  tfs_status_setf(st, TFS_INTERNAL, "%s: %s: %s", what, b->status_name(e),
                  b->status_string(e));
  return -1;
}

int tfs_cuda__check_dnn(cudnnStatus_t e, const char *what, tfs_status *st) {
  if (e == CUDNN_STATUS_SUCCESS) return 0;
  /* a status comes from a call through the table: it is loaded */
  const tfs_cudnn_api *dn = tfs_cuda__cudnn(st);
  if (!dn) return -1;
  tfs_status_setf(st, TFS_INTERNAL, "%s: %s", what,
                  dn->cudnnGetErrorString(e));
  return -1;
}

/* ---- the device ----------------------------------------------------------- */

static const tfs_device_iface kCudaIface;

tfs_cuda_dev *tfs_cuda__dev(tfs_device *d) {
  return d && d->iface == &kCudaIface ? (tfs_cuda_dev *)d : NULL;
}

int tfs_cuda__activate(tfs_cuda_dev *d, tfs_status *st) {
  return tfs_cuda__check(cudaSetDevice(d->ordinal), "cudaSetDevice", st);
}

cublasHandle_t tfs_cuda__blas(tfs_cuda_dev *d, tfs_status *st) {
  if (!d->blas) {
    const tfs_cublas_api *b = tfs_cuda__cublas(st);
    if (!b) return NULL;
    cublasHandle_t h;
    if (tfs_cuda__check_blas(b->create(&h), "cublasCreate", st)) return NULL;
    if (tfs_cuda__check_blas(b->set_stream(h, d->compute), "cublasSetStream",
                             st)) {
      b->destroy(h);
      return NULL;
    }
    d->blas = h;
  }
  return d->blas;
}

cudnnHandle_t tfs_cuda__dnn(tfs_cuda_dev *d, tfs_status *st) {
  if (!d->dnn) {
    const tfs_cudnn_api *dn = tfs_cuda__cudnn(st);
    if (!dn) return NULL;
    cudnnHandle_t h;
    if (tfs_cuda__check_dnn(dn->cudnnCreate(&h), "cudnnCreate", st))
      return NULL;
    if (tfs_cuda__check_dnn(dn->cudnnSetStream(h, d->compute),
                            "cudnnSetStream", st)) {
      dn->cudnnDestroy(h);
      return NULL;
    }
    d->dnn = h;
  }
  return d->dnn;
}

void *tfs_cuda__alloc(tfs_cuda_dev *d, size_t bytes, tfs_status *st) {
  void *p = tfs_bfc_alloc(d->bfc, bytes);
  if (!p)
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "Allocator (%s) ran out of memory trying to allocate %zu "
                    "bytes", tfs_bfc_name(d->bfc), bytes);
  return p;
}

void tfs_cuda__free(tfs_cuda_dev *d, void *p) { tfs_bfc_free(d->bfc, p); }

/* ---- the vtable ------------------------------------------------------------- */

static void *cuda_alloc(tfs_device *d, size_t bytes, tfs_status *st) {
  return tfs_cuda__alloc((tfs_cuda_dev *)d, bytes, st);
}

static void cuda_free(tfs_device *d, void *p) {
  tfs_cuda__free((tfs_cuda_dev *)d, p);
}

/* Host -> device on the copy stream: after the compute stream's queued
 * work (which may still read the memory being reused), before its later
 * work.  From pageable memory the call returns once the source is staged. */
static int cuda_to_device(tfs_device *dv, void *dst, const void *src,
                          size_t n, tfs_status *st) {
  tfs_cuda_dev *d = (tfs_cuda_dev *)dv;
  if (n == 0) return 0;
  if (tfs_cuda__activate(d, st)) return -1;
  pthread_mutex_lock(&d->copy_mu);
  int rc =
      tfs_cuda__check(cudaEventRecord(d->ev_compute, d->compute),
                      "cudaEventRecord", st) ||
      tfs_cuda__check(cudaStreamWaitEvent(d->copy, d->ev_compute, 0),
                      "cudaStreamWaitEvent", st) ||
      tfs_cuda__check(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice,
                                      d->copy),
                      "cudaMemcpyAsync (host to device)", st) ||
      tfs_cuda__check(cudaEventRecord(d->ev_copy, d->copy), "cudaEventRecord",
                      st) ||
      tfs_cuda__check(cudaStreamWaitEvent(d->compute, d->ev_copy, 0),
                      "cudaStreamWaitEvent", st);
  pthread_mutex_unlock(&d->copy_mu);
  return rc ? -1 : 0;
}

/* Device -> host on the copy stream after the compute stream's queued work
 * (the producer); returns when the bytes are on the host. */
static int cuda_to_host(tfs_device *dv, void *dst, const void *src, size_t n,
                        tfs_status *st) {
  tfs_cuda_dev *d = (tfs_cuda_dev *)dv;
  if (n == 0) return 0;
  if (tfs_cuda__activate(d, st)) return -1;
  pthread_mutex_lock(&d->copy_mu);
  int rc =
      tfs_cuda__check(cudaEventRecord(d->ev_compute, d->compute),
                      "cudaEventRecord", st) ||
      tfs_cuda__check(cudaStreamWaitEvent(d->copy, d->ev_compute, 0),
                      "cudaStreamWaitEvent", st) ||
      tfs_cuda__check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost,
                                      d->copy),
                      "cudaMemcpyAsync (device to host)", st) ||
      tfs_cuda__check(cudaStreamSynchronize(d->copy), "cudaStreamSynchronize",
                      st);
  pthread_mutex_unlock(&d->copy_mu);
  return rc ? -1 : 0;
}

static int cuda_on_device(tfs_device *dv, void *dst, const void *src,
                          size_t n, tfs_status *st) {
  tfs_cuda_dev *d = (tfs_cuda_dev *)dv;
  if (n == 0) return 0;
  if (tfs_cuda__activate(d, st)) return -1;
  return tfs_cuda__check(cudaMemcpyAsync(dst, src, n,
                                         cudaMemcpyDeviceToDevice, d->compute),
                         "cudaMemcpyAsync (device to device)", st);
}

/* The kernel of the GPU table, when its attrs check (tfs_cu_kdata, the
 * data of every GPU kernel) accepts the node. */
static const tfs_kernel_def *cuda_find_kernel(tfs_device *d,
                                              const tfs_op_def *op,
                                              const tfs_attrs *attrs,
                                              const char *node,
                                              tfs_status *st) {
  const tfs_kernel_def *k = tfs_kernel_find(op, "GPU", attrs, node, st);
  const tfs_cu_kdata *kd = k ? k->data : NULL;
  if (kd && kd->accepts && !kd->accepts(attrs)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "No OpKernel was registered to support Op '%s' used by "
                    "{{node %s}} on GPU with these attrs", op->name, node);
    return NULL;
  }
  /* a cuDNN kernel exists only where cuDNN loads: elsewhere the placer
   * sees no GPU kernel (soft placement runs the node on the CPU) */
  if (kd && kd->dnn && !tfs_cuda__cudnn(st)) {
    char why[600];
    snprintf(why, sizeof why, "%s", tfs_status_message(st));
    tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                    "Op '%s' used by {{node %s}} needs cuDNN on GPU: %s",
                    op->name, node, why);
    return NULL;
  }
  return k;
}

static int cuda_synchronize(tfs_device *dv, tfs_status *st) {
  tfs_cuda_dev *d = (tfs_cuda_dev *)dv;
  if (tfs_cuda__activate(d, st)) return -1;
  return tfs_cuda__check(cudaStreamSynchronize(d->compute),
                         "cudaStreamSynchronize", st) ||
                 tfs_cuda__check(cudaStreamSynchronize(d->copy),
                                 "cudaStreamSynchronize", st)
             ? -1
             : 0;
}

static void cuda_memory_stats(tfs_device *dv, int64_t *in_use,
                              int64_t *limit) {
  tfs_bfc_stats s;
  tfs_bfc_get_stats(((tfs_cuda_dev *)dv)->bfc, &s);
  *in_use = s.in_use;
  *limit = s.limit;
}

static const tfs_device_iface kCudaIface = {
    .alloc = cuda_alloc,
    .free = cuda_free,
    .copy_to_device = cuda_to_device,
    .copy_to_host = cuda_to_host,
    .copy_on_device = cuda_on_device,
    .find_kernel = cuda_find_kernel,
    .synchronize = cuda_synchronize,
    .memory_stats = cuda_memory_stats,
};

/* ---- creation ---------------------------------------------------------------- */

static void *raw_alloc(void *ctx, size_t n) {
  tfs_cuda_dev *d = ctx;
  void *p = NULL;
  if (cudaSetDevice(d->ordinal) != cudaSuccess ||
      cudaMalloc(&p, n) != cudaSuccess) {
    cudaGetLastError();
    return NULL;
  }
  return p;
}

static void raw_free(void *ctx, void *p) {
  tfs_cuda_dev *d = ctx;
  cudaSetDevice(d->ordinal);
  cudaFree(p);
}

static int allow_growth(const tfs_config *cfg) {
  const char *env = getenv("TF_FORCE_GPU_ALLOW_GROWTH");
  if (env && strcmp(env, "true") == 0) return 1;
  if (env && strcmp(env, "false") == 0) return 0;
  return cfg && cfg->gpu_options.allow_growth;
}

/* TensorFlow's limit: the fraction of total memory when set, else what is
 * free less a reserve for the system (300 MiB or 5%). */
static size_t memory_limit(const tfs_config *cfg, size_t free_b,
                           size_t total_b) {
  double f = cfg ? cfg->gpu_options.per_process_gpu_memory_fraction : 0;
  if (f > 0) return (size_t)((double)total_b * f);
  size_t reserve = (size_t)300 << 20;
  if ((size_t)(free_b * 0.05) > reserve) reserve = (size_t)(free_b * 0.05);
  return free_b > reserve ? free_b - reserve : free_b / 2;
}

static tfs_cuda_dev *create(int id, int ordinal, const tfs_config *cfg,
                            tfs_status *st) {
  tfs_cuda_dev *d = calloc(1, sizeof *d);
  struct cudaDeviceProp prop;
  size_t free_b = 0, total_b = 0;
  if (!d) {
    TFS_OOM(st);
    return NULL;
  }
  d->ordinal = ordinal;
  if (tfs_cuda__check(cudaSetDevice(ordinal), "cudaSetDevice", st) ||
      tfs_cuda__check(cudaGetDeviceProperties(&prop, ordinal),
                      "cudaGetDeviceProperties", st) ||
      tfs_cuda__check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo",
                      st) ||
      tfs_cuda__check(cudaStreamCreateWithFlags(&d->compute,
                                                cudaStreamNonBlocking),
                      "cudaStreamCreate", st) ||
      tfs_cuda__check(cudaStreamCreateWithFlags(&d->copy,
                                                cudaStreamNonBlocking),
                      "cudaStreamCreate", st) ||
      tfs_cuda__check(cudaEventCreateWithFlags(&d->ev_compute,
                                               cudaEventDisableTiming),
                      "cudaEventCreate", st) ||
      tfs_cuda__check(cudaEventCreateWithFlags(&d->ev_copy,
                                               cudaEventDisableTiming),
                      "cudaEventCreate", st)) {
    free(d); /* streams of a failed device are left to the driver */
    return NULL;
  }
  d->cc_major = prop.major;
  d->cc_minor = prop.minor;
  d->sm_count = prop.multiProcessorCount;
  pthread_mutex_init(&d->copy_mu, NULL);
  pthread_mutex_init(&d->lib_mu, NULL);
  char bfc_name[32];
  snprintf(bfc_name, sizeof bfc_name, "GPU_%d_bfc", id);
  size_t limit = memory_limit(cfg, free_b, total_b);
  d->bfc = tfs_bfc_new(bfc_name, limit, allow_growth(cfg),
                       (tfs_bfc_backend){raw_alloc, raw_free, d});
  if (!d->bfc) {
    free(d);
    TFS_OOM(st);
    return NULL;
  }
  tfs_device *b = &d->base;
  b->iface = &kCudaIface;
  b->type = &tfs_cuda_device_type;
  b->id = id;
  b->host_memory = 0;
  b->memory_limit = (int64_t)limit;
  b->impl = d;
  tfs_device_name__local(&b->parsed, "GPU", id);
  tfs_device_name__str(&b->parsed, b->name, sizeof b->name);
  snprintf(b->desc, sizeof b->desc,
           "device: %d, name: %.64s, pci bus id: %04x:%02x:%02x.0, compute "
           "capability: %d.%d", ordinal, prop.name, prop.pciDomainID,
           prop.pciBusID, prop.pciDeviceID, prop.major, prop.minor);
  tfs_log(TFS_LOG_INFO, "Created device %s with %zu MB memory: -> %s",
          b->name, limit >> 20, b->desc);
  return d;
}

/* TensorFlow's ParseVisibleDeviceList. */
static int parse_visible(const char *list, int count, int *order, int *n,
                         tfs_status *st) {
  *n = 0;
  if (!list || !*list) {
    for (int i = 0; i < count && i < MAX_GPUS; i++) order[(*n)++] = i;
    return 0;
  }
  const char *p = list;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char buf[32];
    char *end = NULL;
    snprintf(buf, sizeof buf, "%.*s", (int)(len < 31 ? len : 31), p);
    long v = strtol(buf, &end, 10);
    if (len == 0 || len > 30 || *end) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Could not parse entry in 'visible_device_list': '%.*s'"
                      ". visible_device_list = %s", (int)len, p, list);
      return -1;
    }
    if (v < 0 || v >= count) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "'visible_device_list' listed an invalid Device id "
                      "'%ld' but visible device count is %d", v, count);
      return -1;
    }
    for (int k = 0; k < *n; k++) {
      if (order[k] == (int)v) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "visible_device_list contained a duplicate entry: %s",
                        list);
        return -1;
      }
    }
    if (*n < MAX_GPUS) order[(*n)++] = (int)v;
    p += len;
    if (*p == ',') p++;
  }
  return 0;
}

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static tfs_cuda_dev *g_gpus[MAX_GPUS]; /* guarded by: g_mu; by TF id */

static int gpu_devices(const tfs_config *cfg, tfs_device **out, int cap,
                       int *n, tfs_status *st) {
  *n = 0;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); /* no driver or no device: no GPUs */
    return 0;
  }
  if (count <= 0) return 0;
  int order[MAX_GPUS], nvis;
  if (parse_visible(cfg ? cfg->gpu_options.visible_device_list : NULL, count,
                    order, &nvis, st))
    return -1;
  int want = cfg ? tfs_config__device_count(cfg, "GPU") : -1;
  if (want < 0 || want > nvis) want = nvis;
  if (want > cap) want = cap;
  int rc = 0;
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < want; i++) {
    tfs_cuda_dev *d = g_gpus[i];
    if (d && d->ordinal != order[i]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "TensorFlow device (GPU:%d) is being mapped to multiple "
                      "devices (%d now, and %d previously), which is not "
                      "supported. This may be the result of providing "
                      "different GPU configurations (ConfigProto.gpu_options, "
                      "for example different visible_device_list) when "
                      "creating multiple Sessions in the same process.",
                      i, order[i], d->ordinal);
      rc = -1;
      break;
    }
    if (!d && !(d = g_gpus[i] = create(i, order[i], cfg, st))) {
      rc = -1;
      break;
    }
    out[(*n)++] = &d->base;
  }
  pthread_mutex_unlock(&g_mu);
  return rc;
}

/* The GPUs CUDA shows this process (CUDA_VISIBLE_DEVICES honoured);
 * cudaGetDeviceCount makes no context on any of them. */
static int gpu_visible_count(void) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count < MAX_GPUS ? count : MAX_GPUS;
}

const tfs_device_type tfs_cuda_device_type = {"GPU", 210, gpu_devices, 1,
                                              TFS_HALF, gpu_visible_count};

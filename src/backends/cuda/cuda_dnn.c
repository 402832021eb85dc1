/*
 * backends/cuda/cuda_dnn.c - Conv2D, MaxPool, AvgPool and FusedBatchNorm
 * (V1, V3) on cuDNN, NHWC or NCHW.  TensorFlow's SAME padding may put
 * more padding after than before, which cuDNN cannot express: convolutions
 * then pad the input explicitly, pooling uses the direct kernel of nn.cu.
 * Shape checks and messages are the CPU kernels' (conv_common, nn_window).
 */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "backends/cpu/conv_common.h"
#include "backends/cuda/cuda_kernels.h"
#include "ops/conv2d_check.h"
#include "ops/nn_checks.h"

#define MAX_WORKSPACE ((size_t)1 << 30)

static cudnnDataType_t dnn_type(int type) {
  switch (type) {
    case TFS_CU_F64: return CUDNN_DATA_DOUBLE;
    case TFS_CU_F16: return CUDNN_DATA_HALF;
    case TFS_CU_BF16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
  }
}

/* A 4-D descriptor of (n, c, h, w) in the layout of `nchw`. */
static cudnnStatus_t set4d(const tfs_cudnn_api *dn, cudnnTensorDescriptor_t d,
                           int nchw, int type, int64_t n, int64_t c,
                           int64_t h, int64_t w) {
  return dn->cudnnSetTensor4dDescriptor(
      d, nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, dnn_type(type), (int)n,
      (int)c, (int)h, (int)w);
}

/* The cuDNN table into *api; -1 after failing ki when cuDNN cannot be
 * loaded (the device's kernel lookup has refused the node already then,
 * unless something else holds the kernel). */
static int dnn_api(tfs_kernel_init *ki, const tfs_cudnn_api **api) {
  *api = tfs_cuda__cudnn(ki->st);
  if (*api) return 0;
  return tfs_ki_error(ki, TFS_FAILED_PRECONDITION, "%s",
                      tfs_status_message(ki->st));
}

/* ---- Conv2D --------------------------------------------------------------- */

typedef struct conv_state {
  tfs_cu_state base;
  tfs_window w;
  const tfs_cudnn_api *api;
  /* guarded by: base.dev->lib_mu */
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t fd;
  cudnnConvolutionDescriptor_t cd;
  int64_t key[10];  /* shapes the algorithm below was chosen for */
  cudnnConvolutionFwdAlgo_t algo;
  size_t ws_bytes;
} conv_state;

static void conv_release(void *p) {
  conv_state *s = p;
  if (!s) return;
  if (s->xd) s->api->cudnnDestroyTensorDescriptor(s->xd);
  if (s->yd) s->api->cudnnDestroyTensorDescriptor(s->yd);
  if (s->fd) s->api->cudnnDestroyFilterDescriptor(s->fd);
  if (s->cd) s->api->cudnnDestroyConvolutionDescriptor(s->cd);
  free(s);
}

static int conv_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(conv_state))) return -1;
  conv_state *s = ki->state;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_CONV2D, "Conv2D", &s->w, ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (tfs_conv_check_batch_depth(ki, &s->w, TFS_UNIMPLEMENTED)) return -1;
  if (dnn_api(ki, &s->api)) return -1;
  const tfs_cudnn_api *dn = s->api;
  if (dn->cudnnCreateTensorDescriptor(&s->xd) ||
      dn->cudnnCreateTensorDescriptor(&s->yd) ||
      dn->cudnnCreateFilterDescriptor(&s->fd) ||
      dn->cudnnCreateConvolutionDescriptor(&s->cd))
    return tfs_ki_error(ki, TFS_INTERNAL, "cuDNN descriptors: out of memory");
  return 0;
}

/* TensorFlow's Conv2D shape checks and geometry (ops/conv2d_check.c);
 * the group check once x has depth (groups is 0 otherwise, and the
 * output is zeros as on the CPU).  -1 after failing c. */
static int conv_geometry(tfs_kernel_ctx *c, const conv_state *s,
                         conv_geom *g) {
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  if (tfs_conv2d_check(&s->w, 0, &x->shape, &f->shape, g, c->st) ||
      (g->groups > 0 && tfs_conv2d_check_groups(g, c->st))) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

/* Sets the descriptors for (padded) input dims h, w and picks the fastest
 * algorithm whose workspace fits, once per shape.  lib_mu held. */
static int conv_setup(conv_state *s, const conv_geom *g, int64_t h,
                      int64_t w, int64_t ph, int64_t pw, cudnnHandle_t dnn,
                      tfs_status *st) {
  int nchw = s->w.nchw, type = s->base.type;
  int64_t key[10] = {g->n, h, w, g->c, g->kh, g->kw, g->kc, g->kn, ph, pw};
  if (s->key[0] != 0 && memcmp(key, s->key, sizeof key) == 0) return 0;
  cudnnDataType_t ct =
      type == TFS_CU_F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  if (tfs_cuda__check_dnn(set4d(s->api, s->xd, nchw, type, g->n, g->c, h, w),
                          "cudnnSetTensor4dDescriptor", st) ||
      tfs_cuda__check_dnn(
          set4d(s->api, s->yd, nchw, type, g->n, g->oc, g->oh, g->ow),
          "cudnnSetTensor4dDescriptor", st) ||
      tfs_cuda__check_dnn(s->api->cudnnSetFilter4dDescriptor(
                              s->fd, dnn_type(type),
                              nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC,
                              (int)g->kn, (int)g->kc, (int)g->kh, (int)g->kw),
                          "cudnnSetFilter4dDescriptor", st) ||
      tfs_cuda__check_dnn(
          s->api->cudnnSetConvolution2dDescriptor(
              s->cd, (int)ph, (int)pw, (int)g->sh, (int)g->sw, (int)g->dh,
              (int)g->dw, CUDNN_CROSS_CORRELATION, ct),
          "cudnnSetConvolution2dDescriptor", st) ||
      tfs_cuda__check_dnn(
          s->api->cudnnSetConvolutionGroupCount(s->cd, (int)g->groups),
          "cudnnSetConvolutionGroupCount", st) ||
      tfs_cuda__check_dnn(s->api->cudnnSetConvolutionMathType(
                              s->cd, type == TFS_CU_F16 || type == TFS_CU_BF16
                                         ? CUDNN_TENSOR_OP_MATH
                                         : CUDNN_FMA_MATH),
                          "cudnnSetConvolutionMathType", st))
    return -1;
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  if (tfs_cuda__check_dnn(s->api->cudnnGetConvolutionForwardAlgorithm_v7(
                              dnn, s->xd, s->fd, s->cd, s->yd,
                              CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
                          "cudnnGetConvolutionForwardAlgorithm_v7", st))
    return -1;
  for (int i = 0; i < found; i++) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS ||
        perf[i].memory > MAX_WORKSPACE)
      continue;
    s->algo = perf[i].algo;
    s->ws_bytes = perf[i].memory;
    memcpy(s->key, key, sizeof key);
    return 0;
  }
  tfs_status_set(st, TFS_INTERNAL, "No cuDNN algorithm for this Conv2D");
  return -1;
}

/* The filter HWIO as cuDNN's KRSC (NHWC) or KCRS (NCHW), then the
 * convolution.  lib_mu held. */
static int conv_run(conv_state *s, const conv_geom *g, const void *x,
                    const tfs_tensor *f, void *y, tfs_status *st) {
  tfs_cuda_dev *d = s->base.dev;
  cudnnHandle_t dnn = tfs_cuda__dnn(d, st);
  if (!dnn) return -1;
  int64_t h = g->h + g->pt + g->pb, w = g->w + g->pl + g->pr;
  int asym = g->pt != g->pb || g->pl != g->pr;
  size_t es = tfs_dtype__storage_size(f->dtype);
  void *padded = NULL, *filt = NULL, *ws = NULL;
  int rc = -1;
  if (asym) {
    padded = tfs_cuda__alloc(d, (size_t)(g->n * h * w * g->c) * es, st);
    if (!padded ||
        tfs_cuda__check((cudaError_t)tfs_cu_pad2d(
                            s->base.type, x, padded, g->n, g->h, g->w, g->c,
                            g->pt, g->pb, g->pl, g->pr, s->w.nchw,
                            d->compute),
                        "Conv2D padding", st))
      goto done;
    x = padded;
  } else {
    h = g->h;
    w = g->w;
  }
  if (conv_setup(s, g, h, w, asym ? 0 : g->pt, asym ? 0 : g->pl, dnn, st))
    goto done;
  static const int kToKRSC[4] = {3, 0, 1, 2}, kToKCRS[4] = {3, 2, 0, 1};
  filt = tfs_cuda__alloc(d, f->nbytes, st);
  if (!filt ||
      tfs_cuda__check((cudaError_t)tfs_cu_transpose4(
                          f->data, filt, f->shape.dims,
                          s->w.nchw ? kToKCRS : kToKRSC, (int)es, d->compute),
                      "Conv2D filter layout", st))
    goto done;
  if (s->ws_bytes && !(ws = tfs_cuda__alloc(d, s->ws_bytes, st))) goto done;
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
  int dbl = s->base.type == TFS_CU_F64;
  rc = tfs_cuda__check_dnn(
      s->api->cudnnConvolutionForward(
          dnn, dbl ? (void *)&d1 : (void *)&f1, s->xd, x, s->fd, filt, s->cd,
          s->algo, ws, s->ws_bytes, dbl ? (void *)&d0 : (void *)&f0, s->yd, y),
      "cudnnConvolutionForward", st);
done:
  tfs_cuda__free(d, padded);
  tfs_cuda__free(d, filt);
  tfs_cuda__free(d, ws);
  return rc;
}

static void conv_compute(tfs_kernel_ctx *c) {
  conv_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *f = c->inputs[1];
  conv_geom g;
  if (conv_geometry(c, s, &g)) return;
  tfs_shape os;
  tfs_conv_shape(&s->w, g.n, g.oh, g.ow, g.kn, &os);
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *y = tfs_cu__output(c, s->base.dev, 0, &os);
  if (!y || y->nelems == 0) return;
  tfs_status *st = tfs_status_new();
  int rc;
  if (!st) {
    tfs_cu__fail_status(c, NULL);
    return;
  }
  if (x->nelems == 0) {
    rc = tfs_cuda__check(cudaMemsetAsync(y->data, 0, y->nbytes,
                                         s->base.dev->compute),
                         "cudaMemsetAsync", st);
  } else if (tfs_conv2d_check_filter(&f->shape, st)) {
    rc = -1;
  } else {
    pthread_mutex_lock(&s->base.dev->lib_mu);
    rc = conv_run(s, &g, x->data, f, y->data, st);
    pthread_mutex_unlock(&s->base.dev->lib_mu);
  }
  if (rc) tfs_cu__fail_status(c, st);
  tfs_status_free(st);
}

/* ---- MaxPool and AvgPool ------------------------------------------------------ */

typedef struct pool_state {
  tfs_cu_state base;
  tfs_window w;
  int is_max;
  const tfs_cudnn_api *api;
  cudnnTensorDescriptor_t xd, yd;  /* guarded by: base.dev->lib_mu */
  cudnnPoolingDescriptor_t pd;
} pool_state;

static void pool_release(void *p) {
  pool_state *s = p;
  if (!s) return;
  if (s->xd) s->api->cudnnDestroyTensorDescriptor(s->xd);
  if (s->yd) s->api->cudnnDestroyTensorDescriptor(s->yd);
  if (s->pd) s->api->cudnnDestroyPoolingDescriptor(s->pd);
  free(s);
}

static int pool_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(pool_state))) return -1;
  pool_state *s = ki->state;
  s->is_max = strcmp(ki->op->name, "MaxPool") == 0;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_POOL, ki->op->name, &s->w,
                       ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  int cd = tfs_window_dim(&s->w, 'C'), nd = tfs_window_dim(&s->w, 'N');
  if (s->w.ksize[cd] != 1 || s->w.strides[cd] != 1)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Depthwise max pooling is currently only implemented "
                        "for CPU devices.");
  if (s->w.ksize[nd] != 1 || s->w.strides[nd] != 1)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "Pooling is not yet supported on the batch "
                        "dimension.");
  if (dnn_api(ki, &s->api)) return -1;
  const tfs_cudnn_api *dn = s->api;
  if (dn->cudnnCreateTensorDescriptor(&s->xd) ||
      dn->cudnnCreateTensorDescriptor(&s->yd) ||
      dn->cudnnCreatePoolingDescriptor(&s->pd))
    return tfs_ki_error(ki, TFS_INTERNAL, "cuDNN descriptors: out of memory");
  return 0;
}

/* Output size and padding of one spatial dim; -1 after failing c. */
static int pool_dim(tfs_kernel_ctx *c, const pool_state *s, char dim,
                    int64_t in, int64_t *out, int64_t *pb, int64_t *pa) {
  int k = tfs_window_dim(&s->w, dim);
  if (s->w.padding == TFS_PADDING_EXPLICIT) tfs_window_pads(&s->w, dim, pb, pa);
  if (tfs_window_output_size(in, s->w.ksize[k], 1, s->w.strides[k],
                             s->w.padding, pb, pa, out, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

static int pool_cudnn(pool_state *s, const tfs_cu_pool *g, const void *x,
                      void *y, tfs_status *st) {
  cudnnHandle_t dnn = tfs_cuda__dnn(s->base.dev, st);
  if (!dnn) return -1;
  int nchw = s->w.nchw, type = s->base.type;
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
  int dbl = type == TFS_CU_F64;
  return tfs_cuda__check_dnn(
             s->api->cudnnSetPooling2dDescriptor(
                 s->pd,
                 s->is_max ? CUDNN_POOLING_MAX
                           : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                 CUDNN_NOT_PROPAGATE_NAN, (int)g->kh, (int)g->kw, (int)g->pt,
                 (int)g->pl, (int)g->sh, (int)g->sw),
             "cudnnSetPooling2dDescriptor", st) ||
                 tfs_cuda__check_dnn(
                     set4d(s->api, s->xd, nchw, type, g->n, g->c, g->h, g->w),
                     "cudnnSetTensor4dDescriptor", st) ||
                 tfs_cuda__check_dnn(
                     set4d(s->api, s->yd, nchw, type, g->n, g->c, g->oh, g->ow),
                     "cudnnSetTensor4dDescriptor", st) ||
                 tfs_cuda__check_dnn(
                     s->api->cudnnPoolingForward(
                         dnn, s->pd, dbl ? (void *)&d1 : (void *)&f1, s->xd, x,
                         dbl ? (void *)&d0 : (void *)&f0, s->yd, y),
                     "cudnnPoolingForward", st)
             ? -1
             : 0;
}

static void pool_compute(tfs_kernel_ctx *c) {
  pool_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  char buf[TFS_SHAPE_STRLEN];
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "tensor_in must be 4-dimensional "
                  "%s", tfs_shape_str(&x->shape, buf, sizeof buf));
    return;
  }
  tfs_cu_pool g;
  memset(&g, 0, sizeof g);
  const tfs_window *w = &s->w;
  const int64_t *dims = x->shape.dims;
  g.n = dims[0];
  g.h = dims[tfs_window_dim(w, 'H')];
  g.w = dims[tfs_window_dim(w, 'W')];
  g.c = dims[tfs_window_dim(w, 'C')];
  g.kh = w->ksize[tfs_window_dim(w, 'H')];
  g.kw = w->ksize[tfs_window_dim(w, 'W')];
  g.sh = w->strides[tfs_window_dim(w, 'H')];
  g.sw = w->strides[tfs_window_dim(w, 'W')];
  int64_t pb, pr;
  if (pool_dim(c, s, 'H', g.h, &g.oh, &g.pt, &pb) ||
      pool_dim(c, s, 'W', g.w, &g.ow, &g.pl, &pr))
    return;
  tfs_shape os;
  tfs_conv_shape(w, g.n, g.oh, g.ow, g.c, &os);
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *y = tfs_cu__output(c, s->base.dev, 0, &os);
  if (!y || y->nelems == 0) return;
  if (pb == g.pt && pr == g.pl) { /* symmetric: cuDNN */
    tfs_status *st = tfs_status_new();
    pthread_mutex_lock(&s->base.dev->lib_mu);
    int rc = st ? pool_cudnn(s, &g, x->data, y->data, st) : -1;
    pthread_mutex_unlock(&s->base.dev->lib_mu);
    if (rc) tfs_cu__fail_status(c, st);
    tfs_status_free(st);
    return;
  }
  int64_t is[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
  int64_t osd[4] = {os.dims[1] * os.dims[2] * os.dims[3],
                    os.dims[2] * os.dims[3], os.dims[3], 1};
  int kh = tfs_window_dim(w, 'H'), kw = tfs_window_dim(w, 'W');
  int kc = tfs_window_dim(w, 'C');
  g.is_n = is[0], g.is_h = is[kh], g.is_w = is[kw], g.is_c = is[kc];
  g.os_n = osd[0], g.os_h = osd[kh], g.os_w = osd[kw], g.os_c = osd[kc];
  int err = tfs_cu_pool2d(s->base.type, s->is_max, x->data, y->data, &g,
                          s->base.dev->compute);
  tfs_cu__launched(c, s->base.dev, err, c->op_name);
}

/* ---- FusedBatchNorm ---------------------------------------------------------- */

typedef struct bn_state {
  tfs_cu_state base;
  float epsilon, factor;
  int training, nchw;
  const tfs_cudnn_api *api;
  cudnnTensorDescriptor_t xd, bd; /* guarded by: base.dev->lib_mu */
} bn_state;

static void bn_release(void *p) {
  bn_state *s = p;
  if (!s) return;
  if (s->xd) s->api->cudnnDestroyTensorDescriptor(s->xd);
  if (s->bd) s->api->cudnnDestroyTensorDescriptor(s->bd);
  free(s);
}

static int bn_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(bn_state))) return -1;
  bn_state *s = ki->state;
  s->epsilon = 1e-4f;
  s->factor = 1.0f;
  s->training = 1;
  tfs_attrs_get_float(ki->attrs, "epsilon", &s->epsilon);
  tfs_attrs_get_float(ki->attrs, "exponential_avg_factor", &s->factor);
  tfs_attrs_get_bool(ki->attrs, "is_training", &s->training);
  size_t len = 0;
  const char *fmt = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  s->nchw = fmt && len == 4 && memcmp(fmt, "NCHW", 4) == 0;
  if (dnn_api(ki, &s->api)) return -1;
  if (s->api->cudnnCreateTensorDescriptor(&s->xd) ||
      s->api->cudnnCreateTensorDescriptor(&s->bd))
    return tfs_ki_error(ki, TFS_INTERNAL, "cuDNN descriptors: out of memory");
  return 0;
}

/* TensorFlow's input checks (ops/nn_checks.c), after refusing 5-D x,
 * which this kernel leaves to the CPU; -1 after failing c. */
static int bn_check(tfs_kernel_ctx *c, const bn_state *s, int64_t *ch) {
  char buf[TFS_SHAPE_STRLEN];
  const tfs_tensor *x = c->inputs[0];
  if (x->shape.rank == 5) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "input must be 4 or 5-dimensional%s (5-D input runs on "
                  "CPU only)", tfs_shape_str(&x->shape, buf, sizeof buf));
    return -1;
  }
  const tfs_shape *in[5];
  for (int i = 0; i < 5; i++) in[i] = &c->inputs[i]->shape;
  tfs_batch_norm_attrs a = {s->nchw, s->training, s->factor};
  if (tfs_fused_batch_norm_check(in, &a, ch, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

static int bn_run(bn_state *s, tfs_kernel_ctx *c, tfs_tensor *y,
                  tfs_tensor *const *outs, tfs_status *st) {
  tfs_cuda_dev *d = s->base.dev;
  const tfs_tensor *x = c->inputs[0];
  const int64_t *dm = x->shape.dims;
  int64_t n = dm[0], ch = dm[s->nchw ? 1 : 3], h = dm[s->nchw ? 2 : 1],
          w = dm[s->nchw ? 3 : 2];
  size_t cb = (size_t)ch * sizeof(float);
  cudnnHandle_t dnn = tfs_cuda__dnn(d, st);
  if (!dnn ||
      tfs_cuda__check_dnn(
          set4d(s->api, s->xd, s->nchw, s->base.type, n, ch, h, w),
          "cudnnSetTensor4dDescriptor", st) ||
      tfs_cuda__check_dnn(s->api->cudnnDeriveBNTensorDescriptor(
                              s->bd, s->xd, CUDNN_BATCHNORM_SPATIAL),
                          "cudnnDeriveBNTensorDescriptor", st))
    return -1;
  float one = 1, zero = 0;
  const void *scale = c->inputs[1]->data, *offset = c->inputs[2]->data;
  const void *mean = c->inputs[3]->data, *var = c->inputs[4]->data;
  if (!s->training) {
    return tfs_cuda__check_dnn(
               s->api->cudnnBatchNormalizationForwardInference(
                   dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, s->xd, x->data,
                   s->xd, y->data, s->bd, scale, offset, mean, var,
                   (double)s->epsilon),
               "cudnnBatchNormalizationForwardInference", st) ||
                   tfs_cuda__check(cudaMemcpyAsync(outs[1]->data, mean, cb,
                                                   cudaMemcpyDeviceToDevice,
                                                   d->compute),
                                   "cudaMemcpyAsync", st) ||
                   tfs_cuda__check(cudaMemcpyAsync(outs[2]->data, var, cb,
                                                   cudaMemcpyDeviceToDevice,
                                                   d->compute),
                                   "cudaMemcpyAsync", st)
               ? -1
               : 0;
  }
  /* running statistics start from the inputs (factor != 1) or zero */
  if (s->factor != 1.0f) {
    if (tfs_cuda__check(cudaMemcpyAsync(outs[1]->data, mean, cb,
                                        cudaMemcpyDeviceToDevice, d->compute),
                        "cudaMemcpyAsync", st) ||
        tfs_cuda__check(cudaMemcpyAsync(outs[2]->data, var, cb,
                                        cudaMemcpyDeviceToDevice, d->compute),
                        "cudaMemcpyAsync", st))
      return -1;
  }
  return tfs_cuda__check_dnn(
      s->api->cudnnBatchNormalizationForwardTraining(
          dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, s->xd, x->data, s->xd,
          y->data, s->bd, scale, offset, (double)s->factor, outs[1]->data,
          outs[2]->data, (double)s->epsilon, outs[3]->data, outs[4]->data),
      "cudnnBatchNormalizationForwardTraining", st);
}

static void bn_compute(tfs_kernel_ctx *c) {
  bn_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  int64_t ch;
  if (bn_check(c, s, &ch)) return;
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *y = tfs_cu__output(c, s->base.dev, 0, &x->shape);
  tfs_tensor *outs[6] = {y};
  tfs_shape cs = {.rank = 1, .dims = {ch}}, sc = {.rank = 0};
  for (int i = 1; i < c->noutputs && outs[i - 1]; i++)
    outs[i] = tfs_cu__output(c, s->base.dev, i, i < 5 ? &cs : &sc);
  if (!outs[c->noutputs - 1]) return;
  tfs_status *st = tfs_status_new();
  if (!st) {
    tfs_cu__fail_status(c, NULL);
    return;
  }
  int rc = 0;
  for (int i = 1; i < c->noutputs && rc == 0; i++)
    rc = tfs_cuda__check(cudaMemsetAsync(outs[i]->data, 0, outs[i]->nbytes,
                                         s->base.dev->compute),
                         "cudaMemsetAsync", st);
  if (rc == 0 && x->nelems > 0) {
    pthread_mutex_lock(&s->base.dev->lib_mu);
    rc = bn_run(s, c, y, outs, st);
    pthread_mutex_unlock(&s->base.dev->lib_mu);
  }
  if (rc) tfs_cu__fail_status(c, st);
  tfs_status_free(st);
}

/* FusedBatchNormV3 on the GPU: U (scale, mean, ...) float. */
static int bn3_accepts(const tfs_attrs *a) {
  tfs_dtype u = TFS_FLOAT;
  tfs_attrs_get_type(a, "U", &u);
  return u == TFS_FLOAT;
}

static const tfs_cu_kdata kDnn = {0, NULL, 1};
static const tfs_cu_kdata kBn3 = {0, bn3_accepts, 1};
#define CONV_T (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF) | \
                TFS_DT_BIT(TFS_DOUBLE) | TFS_DT_BIT(TFS_BFLOAT16))
#define BN_T (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF))

const tfs_kernel_def tfs_cuda_kernels_dnn[] = {
    {"Conv2D", "GPU", "T", CONV_T, conv_prepare, conv_compute, conv_release,
     TFS_KERNEL_EXPENSIVE, &kDnn},
    {"MaxPool", "GPU", "T", CONV_T, pool_prepare, pool_compute, pool_release,
     0, &kDnn},
    {"AvgPool", "GPU", "T", CONV_T, pool_prepare, pool_compute, pool_release,
     0, &kDnn},
    {"FusedBatchNorm", "GPU", "T", TFS_DT_BIT(TFS_FLOAT), bn_prepare,
     bn_compute, bn_release, 0, &kDnn},
    {"FusedBatchNormV3", "GPU", "T", BN_T, bn_prepare, bn_compute, bn_release,
     0, &kBn3},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

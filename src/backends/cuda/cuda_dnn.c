/*
 * backends/cuda/cuda_dnn.c - Conv2D and AvgPool on cuDNN, NHWC or NCHW;
 * MaxPool and FusedBatchNorm (V1, V3; 4-D and 5-D) on the kernels of
 * nn.cu, with the CPU kernels' semantics.  TensorFlow's SAME padding may
 * put more padding after than before, which cuDNN cannot express:
 * convolutions then pad the input explicitly, average pooling uses the
 * direct kernel of nn.cu.  Shape checks and messages are the CPU
 * kernels' (conv_common, nn_window, pool.h, nn_checks).
 */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "backends/cpu/conv_common.h"
#include "backends/cpu/pool.h"
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

/* The CPU kernel's checks (backends/cpu/pool.c), in its order, with its
 * codes and messages. */
static int pool_prepare(tfs_kernel_init *ki) {
  if (tfs_cu__prepare_sized(ki, sizeof(pool_state))) return -1;
  pool_state *s = ki->state;
  s->is_max = strcmp(ki->op->name, "MaxPool") == 0;
  if (tfs_window_parse(ki->attrs, TFS_WINDOW_POOL, ki->op->name, &s->w,
                       ki->st))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s",
                        tfs_status_message(ki->st));
  if (s->w.vect_c)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Default MaxPoolingOp only supports NHWC on device "
                        "type CPU");
  if (tfs_pool_check_window(&s->w, s->is_max, 0, ki->st))
    return tfs_ki_error(ki, tfs_status_code(ki->st), "%s",
                        tfs_status_message(ki->st));
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
  tfs_window_pads(&s->w, dim, pb, pa);
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

/* The CPU kernel's geometry and checks (rank, then the depth window's,
 * then the output sizes); *pb, *pr: padding after.  -1 after failing c. */
static int pool_geometry(tfs_kernel_ctx *c, const pool_state *s,
                         const tfs_tensor *x, tfs_cu_pool *g, int64_t *pb,
                         int64_t *pr) {
  const tfs_window *w = &s->w;
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "tensor_in_shape must have 2 spatial dimensions. %d %d",
                  x->shape.rank, w->nchw);
    return -1;
  }
  const int64_t *dims = x->shape.dims;
  int hd = tfs_window_dim(w, 'H'), wd = tfs_window_dim(w, 'W');
  int cd = tfs_window_dim(w, 'C');
  memset(g, 0, sizeof *g);
  g->n = dims[0];
  g->h = dims[hd];
  g->w = dims[wd];
  g->c = dims[cd];
  g->kh = w->ksize[hd];
  g->kw = w->ksize[wd];
  g->sh = w->strides[hd];
  g->sw = w->strides[wd];
  g->dwin = w->ksize[cd];
  *pb = *pr = 0;
  if (g->dwin != 1) {
    if (tfs_pool_check_depth(g->c, g->dwin, w->strides[cd], s->is_max,
                             c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return -1;
    }
    g->oh = g->h, g->ow = g->w, g->c = g->c / g->dwin;
    return 0;
  }
  return pool_dim(c, s, 'H', g->h, &g->oh, &g->pt, pb) ||
                 pool_dim(c, s, 'W', g->w, &g->ow, &g->pl, pr)
             ? -1
             : 0;
}

static void pool_compute(tfs_kernel_ctx *c) {
  pool_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  tfs_cu_pool g;
  int64_t pb, pr;
  if (pool_geometry(c, s, x, &g, &pb, &pr)) return;
  const tfs_window *w = &s->w;
  tfs_shape os;
  tfs_conv_shape(w, g.n, g.oh, g.ow, g.c, &os);
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *y = tfs_cu__output(c, s->base.dev, 0, &os);
  if (!y || y->nelems == 0) return;
  /* cuDNN for symmetric average pooling; the direct kernel for max
   * pooling (the CPU kernel's lowest start and NaN rule) and the rest */
  if (!s->is_max && pb == g.pt && pr == g.pl) {
    tfs_status *st = tfs_status_new();
    pthread_mutex_lock(&s->base.dev->lib_mu);
    int rc = st ? pool_cudnn(s, &g, x->data, y->data, st) : -1;
    pthread_mutex_unlock(&s->base.dev->lib_mu);
    if (rc) tfs_cu__fail_status(c, st);
    tfs_status_free(st);
    return;
  }
  const int64_t *dims = x->shape.dims;
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
  int training;
  int cfirst; /* channel is dim 1 (NCHW, NCDHW), else the last dim */
} bn_state;

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
  const char *f = tfs_attrs_get_string(ki->attrs, "data_format", &len);
  s->cfirst = f && ((len == 4 && memcmp(f, "NCHW", 4) == 0) ||
                    (len == 5 && memcmp(f, "NCDHW", 5) == 0));
  return 0;
}

/* TensorFlow's input checks (ops/nn_checks.c); -1 after failing c. */
static int bn_check(tfs_kernel_ctx *c, const bn_state *s, int64_t *ch) {
  const tfs_shape *in[5];
  for (int i = 0; i < 5; i++) in[i] = &c->inputs[i]->shape;
  tfs_batch_norm_attrs a = {s->cfirst, s->training, s->factor};
  if (tfs_fused_batch_norm_check(in, &a, ch, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return -1;
  }
  return 0;
}

/* Zeroes outputs 1.. (the reserve spaces stay zero where the kernel does
 * not write them), then normalizes as the CPU kernel: 4-D and 5-D x as
 * `outer` blocks of channels of `inner` elements (channels last: outer
 * N*D*H*W, inner 1; channels first: outer N, inner D*H*W). */
static int bn_run(bn_state *s, tfs_kernel_ctx *c, int64_t ch,
                  tfs_tensor *const *outs, tfs_status *st) {
  tfs_cuda_dev *d = s->base.dev;
  const tfs_tensor *x = c->inputs[0];
  for (int i = 1; i < c->noutputs; i++)
    if (tfs_cuda__check(cudaMemsetAsync(outs[i]->data, 0, outs[i]->nbytes,
                                        d->compute),
                        "cudaMemsetAsync", st))
      return -1;
  tfs_cu_bn p = {0, ch, 1, s->epsilon, s->factor, s->training};
  if (s->cfirst) {
    p.outer = x->shape.dims[0];
    for (int k = 2; k < x->shape.rank; k++) p.inner *= x->shape.dims[k];
  } else {
    p.outer = ch > 0 ? x->nelems / ch : 0;
  }
  const float *in[4];
  float *o[4];
  for (int i = 0; i < 4; i++) {
    in[i] = c->inputs[i + 1]->data;
    o[i] = outs[i + 1]->data;
  }
  float *work = NULL;
  if (x->nelems > 0 &&
      !(work = tfs_cuda__alloc(d, 2 * (size_t)ch * sizeof(float), st)))
    return -1;
  int rc = tfs_cuda__check(
      (cudaError_t)tfs_cu_batch_norm(s->base.type, &p, x->data,
                                     outs[0]->data, in, o, work, d->compute),
      c->op_name, st);
  tfs_cuda__free(d, work);
  return rc;
}

static void bn_compute(tfs_kernel_ctx *c) {
  bn_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  int64_t ch;
  if (bn_check(c, s, &ch)) return;
  if (tfs_cu__enter(c, s->base.dev)) return;
  tfs_tensor *outs[6] = {tfs_cu__output(c, s->base.dev, 0, &x->shape)};
  tfs_shape sc = {.rank = 0};
  for (int i = 1; i < c->noutputs && outs[i - 1]; i++)
    outs[i] = tfs_cu__output(c, s->base.dev, i,
                             i < 5 ? &c->inputs[1]->shape : &sc);
  if (!outs[c->noutputs - 1]) return;
  tfs_status *st = tfs_status_new();
  if (!st) {
    tfs_cu__fail_status(c, NULL);
    return;
  }
  if (bn_run(s, c, ch, outs, st)) tfs_cu__fail_status(c, st);
  tfs_status_free(st);
}

/* FusedBatchNormV3 on the GPU: U (scale, mean, ...) float. */
static int bn3_accepts(const tfs_attrs *a) {
  tfs_dtype u = TFS_FLOAT;
  tfs_attrs_get_type(a, "U", &u);
  return u == TFS_FLOAT;
}

static const tfs_cu_kdata kDnn = {0, NULL, 1};
static const tfs_cu_kdata kBn = {0, NULL, 0};
static const tfs_cu_kdata kBn3 = {0, bn3_accepts, 0};
#define CONV_T (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF) | \
                TFS_DT_BIT(TFS_DOUBLE) | TFS_DT_BIT(TFS_BFLOAT16))
#define BN_T (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_HALF) | \
              TFS_DT_BIT(TFS_BFLOAT16))

const tfs_kernel_def tfs_cuda_kernels_dnn[] = {
    {"Conv2D", "GPU", "T", CONV_T, conv_prepare, conv_compute, conv_release,
     TFS_KERNEL_EXPENSIVE, &kDnn},
    {"MaxPool", "GPU", "T", CONV_T, pool_prepare, pool_compute, pool_release,
     0, &kDnn},
    {"AvgPool", "GPU", "T", CONV_T, pool_prepare, pool_compute, pool_release,
     0, &kDnn},
    {"FusedBatchNorm", "GPU", "T", TFS_DT_BIT(TFS_FLOAT), bn_prepare,
     bn_compute, free, 0, &kBn},
    {"FusedBatchNormV3", "GPU", "T", BN_T, bn_prepare, bn_compute, free, 0,
     &kBn3},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

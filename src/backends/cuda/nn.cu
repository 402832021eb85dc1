/*
 * backends/cuda/nn.cu - device code of 2-D pooling and FusedBatchNorm.
 * Pooling: one thread per output element, as the CPU kernels
 * (backends/cpu/pool.c): max starts from the dtype's lowest finite value
 * and never picks NaN, average divides by the in-bounds elements, and
 * max pooling across depth starts from the first channel of each group.
 * Batch norm as backends/cpu/batch_norm.c: per-channel statistics in
 * double (two passes), float running statistics, float normalization.
 */
#include <math_constants.h>

#include "cu_common.cuh"

using namespace tfs_cu;

namespace {

/* The dtype's lowest finite value, in the type arithmetic runs in. */
template <typename T> struct Lowest;
template <> struct Lowest<float> {
  static __device__ float v() { return -3.40282346638528859812e+38f; }
};
template <> struct Lowest<double> {
  static __device__ double v() { return -1.79769313486231570815e+308; }
};
template <> struct Lowest<__half> {
  static __device__ float v() { return -65504.0f; }
};
template <> struct Lowest<__nv_bfloat16> {
  static __device__ float v() { return -3.38953138925153547590e+38f; }
};

template <typename T>
__global__ void pool2d_k(int is_max, const T *x, T *out, tfs_cu_pool g,
                         int64_t total) {
  typedef typename Acc<T>::type A;
  TFS_CU_LOOP(i, total) {
    int64_t r = i;
    int64_t ch = r % g.c; r /= g.c;
    int64_t ox = r % g.ow; r /= g.ow;
    int64_t oy = r % g.oh;
    int64_t b = r / g.oh;
    int64_t y0 = oy * g.sh - g.pt, x0 = ox * g.sw - g.pl;
    int64_t y1 = y0 + g.kh, x1 = x0 + g.kw;
    if (y0 < 0) y0 = 0;
    if (x0 < 0) x0 = 0;
    if (y1 > g.h) y1 = g.h;
    if (x1 > g.w) x1 = g.w;
    A acc = is_max ? Lowest<T>::v() : A(0);
    for (int64_t y = y0; y < y1; y++) {
      for (int64_t xx = x0; xx < x1; xx++) {
        A v = load(x, b * g.is_n + y * g.is_h + xx * g.is_w + ch * g.is_c);
        if (is_max)
          acc = v > acc ? v : acc;
        else
          acc += v;
      }
    }
    if (!is_max) {
      int64_t cnt = (y1 - y0) * (x1 - x0);
      acc = cnt > 0 ? acc / A(cnt) : A(0);
    }
    store(out, b * g.os_n + oy * g.os_h + ox * g.os_w + ch * g.os_c, acc);
  }
}

/* Max across depth: output channel oc (of g.c) is the max of input
 * channels [oc * dwin, (oc + 1) * dwin), starting from the first. */
template <typename T>
__global__ void depth_pool_k(const T *x, T *out, tfs_cu_pool g,
                             int64_t total) {
  typedef typename Acc<T>::type A;
  TFS_CU_LOOP(i, total) {
    int64_t r = i;
    int64_t oc = r % g.c; r /= g.c;
    int64_t ox = r % g.ow; r /= g.ow;
    int64_t oy = r % g.oh;
    int64_t b = r / g.oh;
    int64_t base = b * g.is_n + oy * g.is_h + ox * g.is_w;
    A acc = load(x, base + oc * g.dwin * g.is_c);
    for (int64_t k = 1; k < g.dwin; k++) {
      A v = load(x, base + (oc * g.dwin + k) * g.is_c);
      if (v > acc) acc = v;
    }
    store(out, b * g.os_n + oy * g.os_h + ox * g.os_w + oc * g.os_c, acc);
  }
}

template <typename T>
void launch_pool(int is_max, const void *x, void *out, const tfs_cu_pool *g,
                 int64_t total, cudaStream_t s) {
  if (g->dwin > 1)
    depth_pool_k<T><<<grid_for(total, 256), 256, 0, s>>>(
        (const T *)x, (T *)out, *g, total);
  else
    pool2d_k<T><<<grid_for(total, 256), 256, 0, s>>>(
        is_max, (const T *)x, (T *)out, *g, total);
}

/* ---- FusedBatchNorm ------------------------------------------------------ */

#define BN_THREADS 256

/* Sum over the block's threads (all of them call it); the total is
 * returned to every thread. */
__device__ double block_sum(double v, double *sh) {
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int k = BN_THREADS / 2; k > 0; k /= 2) {
    if ((int)threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  double t = sh[0];
  __syncthreads();
  return t;
}

/* Training statistics, one block per channel: the batch mean and biased
 * variance (double, two passes), then as the CPU kernel's bn_training:
 * work[c] the mean and work[ch + c] the multiplier for y, outs 0..3 the
 * batch mean, the running variance (Bessel-corrected, averaged with the
 * old statistics when factor != 1), the mean and the biased variance.
 * Rounded float operations (no contraction), as the CPU computes them. */
template <typename T>
__global__ void bn_stats_k(const T *x, tfs_cu_bn p, const float *scale,
                           const float *old_mean, const float *old_var,
                           float *work, float *o0, float *o1, float *o2,
                           float *o3) {
  __shared__ double sh[BN_THREADS];
  int64_t rest = p.outer * p.inner;
  for (int64_t c = blockIdx.x; c < p.ch; c += gridDim.x) {
    double sum = 0;
    for (int64_t k = threadIdx.x; k < rest; k += BN_THREADS)
      sum += (double)load(x, ((k / p.inner) * p.ch + c) * p.inner +
                                 k % p.inner);
    double mean = block_sum(sum, sh) / (double)rest;
    double sq = 0;
    for (int64_t k = threadIdx.x; k < rest; k += BN_THREADS) {
      double d = (double)load(x, ((k / p.inner) * p.ch + c) * p.inner +
                                     k % p.inner) - mean;
      sq += d * d;
    }
    double var = block_sum(sq, sh) / (double)rest;
    if (threadIdx.x != 0) continue;
    float m = (float)mean, v = (float)var, f = p.factor;
    float adjust = __fdiv_rn((float)rest, (float)(rest > 1 ? rest - 1 : 1));
    work[c] = m;
    work[p.ch + c] =
        __fmul_rn(__fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(v, p.epsilon))),
                  scale[c]);
    o2[c] = m;
    o3[c] = v;
    if (f == 1.0f) {
      o0[c] = m;
      o1[c] = __fmul_rn(v, adjust);
    } else {
      o0[c] = __fadd_rn(__fmul_rn(__fsub_rn(1.0f, f), old_mean[c]),
                        __fmul_rn(f, m));
      o1[c] = __fadd_rn(__fmul_rn(__fsub_rn(1.0f, f), old_var[c]),
                        __fmul_rn(__fmul_rn(f, adjust), v));
    }
  }
}

/* Inference: the given mean and variance pass through to outs 0 and 1. */
__global__ void bn_params_k(tfs_cu_bn p, const float *scale,
                            const float *mean, const float *var, float *work,
                            float *o0, float *o1) {
  TFS_CU_LOOP(c, p.ch) {
    work[c] = mean[c];
    work[p.ch + c] =
        __fmul_rn(__fdiv_rn(1.0f, __fsqrt_rn(__fadd_rn(var[c], p.epsilon))),
                  scale[c]);
    o0[c] = mean[c];
    o1[c] = var[c];
  }
}

/* y = (x - mean) * mul + offset in float. */
template <typename T>
__global__ void bn_apply_k(const T *x, T *y, tfs_cu_bn p, const float *work,
                           const float *offset, int64_t n) {
  TFS_CU_LOOP(i, n) {
    int64_t c = (i / p.inner) % p.ch;
    float v = (float)load(x, i);
    float r = __fadd_rn(__fmul_rn(__fsub_rn(v, work[c]), work[p.ch + c]),
                        offset[c]);
    store(y, i, r);
  }
}

__global__ void fill_nan_k(float *a, float *b, int64_t n) {
  TFS_CU_LOOP(i, n) { a[i] = b[i] = CUDART_NAN_F; }
}

template <typename T>
void launch_bn(const void *x, void *y, const tfs_cu_bn *p,
               const float *const *in, float *const *outs, float *work,
               cudaStream_t s) {
  int64_t n = p->outer * p->ch * p->inner;
  if (p->training) {
    int64_t blocks = p->ch < 65535 ? p->ch : 65535;
    bn_stats_k<T><<<(unsigned)blocks, BN_THREADS, 0, s>>>(
        (const T *)x, *p, in[0], in[2], in[3], work, outs[0], outs[1],
        outs[2], outs[3]);
  } else {
    bn_params_k<<<grid_for(p->ch, 256), 256, 0, s>>>(
        *p, in[0], in[2], in[3], work, outs[0], outs[1]);
  }
  bn_apply_k<T><<<grid_for(n, 256), 256, 0, s>>>(
      (const T *)x, (T *)y, *p, work, in[1], n);
}

}  // namespace

extern "C" int tfs_cu_pool2d(int type, int is_max, const void *x, void *out,
                             const tfs_cu_pool *g, void *stream) {
  int64_t total = g->n * g->oh * g->ow * g->c;
  if (total == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  TFS_CU_DISPATCH(type, launch_pool, is_max, x, out, g, total, s)
  return (int)cudaGetLastError();
}

extern "C" int tfs_cu_batch_norm(int type, const tfs_cu_bn *p, const void *x,
                                 void *y, const float *const *in,
                                 float *const *outs, float *work,
                                 void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (p->ch == 0) return 0;
  if (p->outer * p->inner == 0) { /* empty x: NaN statistics, as the CPU */
    fill_nan_k<<<grid_for(p->ch, 256), 256, 0, s>>>(outs[0], outs[1], p->ch);
    return (int)cudaGetLastError();
  }
  TFS_CU_DISPATCH(type, launch_bn, x, y, p, in, outs, work, s)
  return (int)cudaGetLastError();
}

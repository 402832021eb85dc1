/*
 * backends/cuda/elementwise.cu - device code of the elementwise kernels:
 * binary ops with broadcasting, unary math and activations, casts between
 * the float types (with Cast's Truncate), BiasAdd, and the 4-D transpose and zero padding that
 * the cuDNN kernels use.  Launched through cuda_launch.h.
 */
#include <math_constants.h>

#include "cu_common.cuh"

using namespace tfs_cu;

namespace {

#define MF(name, f32, f64)                                                 \
  __device__ __forceinline__ float name(float x) { return f32(x); }        \
  __device__ __forceinline__ double name(double x) { return f64(x); }
MF(m_exp, expf, exp)
MF(m_log, logf, log)
MF(m_sqrt, sqrtf, sqrt)
MF(m_rsqrt, rsqrtf, rsqrt)
MF(m_tanh, tanhf, tanh)
MF(m_expm1, expm1f, expm1)
MF(m_log1p, log1pf, log1p)
MF(m_floor, floorf, floor)
MF(m_ceil, ceilf, ceil)
MF(m_sin, sinf, sin)
MF(m_cos, cosf, cos)
MF(m_abs, fabsf, fabs)
#undef MF
/* Erf: float64 as TensorFlow's CPU kernel (backends/cpu/unary_math.c),
 * NaN once |x| >= 0x1.ffffffcp+511 (+-Inf included). */
__device__ __forceinline__ float m_erf(float x) { return erff(x); }
__device__ __forceinline__ double m_erf(double x) {
  return fabs(x) >= 0x1.ffffffcp+511 ? CUDART_NAN : erf(x);
}
__device__ __forceinline__ float m_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double m_pow(double x, double y) {
  return pow(x, y);
}

template <typename A>
__device__ __forceinline__ A apply_binary(int op, A x, A y) {
  switch (op) {
    case TFS_CU_ADD: return x + y;
    case TFS_CU_SUB: return x - y;
    case TFS_CU_MUL: return x * y;
    case TFS_CU_DIV: return x / y;
    /* NaN wins, as TensorFlow's Maximum and Minimum */
    case TFS_CU_MAXIMUM: return (x != x || x > y) ? x : y;
    case TFS_CU_MINIMUM: return (x != x || x < y) ? x : y;
    case TFS_CU_POW: return m_pow(x, y);
    default: return (x - y) * (x - y); /* TFS_CU_SQDIFF */
  }
}

template <typename T>
__global__ void binary_flat(int op, const T *a, const T *b, T *out,
                            int64_t n, int as, int bs) {
  TFS_CU_LOOP(i, n) {
    store(out, i, apply_binary(op, load(a, as ? 0 : i), load(b, bs ? 0 : i)));
  }
}

template <typename T>
__global__ void binary_strided(int op, const T *a, const T *b, T *out,
                               int64_t n, tfs_cu_index idx) {
  TFS_CU_LOOP(i, n) {
    int64_t r = i, ai = 0, bi = 0;
    for (int d = idx.rank - 1; d >= 0; d--) {
      int64_t q = r % idx.dims[d];
      r /= idx.dims[d];
      ai += q * idx.a[d];
      bi += q * idx.b[d];
    }
    store(out, i, apply_binary(op, load(a, ai), load(b, bi)));
  }
}

template <typename T>
void launch_binary(int op, const void *a, const void *b, void *out,
                   int64_t n, int as, int bs, const tfs_cu_index *idx,
                   cudaStream_t s) {
  unsigned g = grid_for(n, 256);
  if (idx)
    binary_strided<T><<<g, 256, 0, s>>>(op, (const T *)a, (const T *)b,
                                        (T *)out, n, *idx);
  else
    binary_flat<T><<<g, 256, 0, s>>>(op, (const T *)a, (const T *)b,
                                     (T *)out, n, as, bs);
}

/* Softplus thresholds: log(epsilon of the dtype) + 2, as TensorFlow and
 * the CPU kernel (backends/cpu/nn_activations.c). */
template <typename T> struct SoftplusT;
template <> struct SoftplusT<float> {
  static constexpr double v = -13.942385152878742f;
};
template <> struct SoftplusT<double> {
  static constexpr double v = -34.043653389117154;
};
template <> struct SoftplusT<__half> {
  static constexpr double v = -4.931471805599453f;
};
template <> struct SoftplusT<__nv_bfloat16> {
  static constexpr double v = -2.852030263919617f;
};

/* `alpha`: LeakyRelu's slope, Softplus's threshold t (x above -t gives x,
 * below t exp(x), log1p(exp(x)) between; NaN gives NaN). */
template <typename A>
__device__ __forceinline__ A apply_unary(int op, A x, A alpha) {
  const A zero = 0, one = 1;
  switch (op) {
    case TFS_CU_NEG: return -x;
    case TFS_CU_ABS: return m_abs(x);
    case TFS_CU_EXP: return m_exp(x);
    case TFS_CU_LOG: return m_log(x);
    case TFS_CU_SQRT: return m_sqrt(x);
    case TFS_CU_RSQRT: return m_rsqrt(x);
    case TFS_CU_SQUARE: return x * x;
    case TFS_CU_TANH: return m_tanh(x);
    case TFS_CU_SIGMOID: return one / (one + m_exp(-x));
    /* NaN stays NaN, -0 becomes +0 (the CPU kernels) */
    case TFS_CU_RELU: return x > zero ? x : (x != x ? x : zero);
    case TFS_CU_RELU6:
      return x > zero ? (x > A(6) ? A(6) : x) : (x != x ? x : zero);
    case TFS_CU_ELU: return x > zero ? x : m_expm1(x);
    case TFS_CU_SELU: {
      const A scale = A(1.0507009873554804934193349852946);
      const A sa = A(1.7580993408473768599402175208123);
      return x > zero ? scale * x : sa * m_expm1(x);
    }
    case TFS_CU_SOFTPLUS:
      return x > -alpha ? x : (x < alpha ? m_exp(x) : m_log1p(m_exp(x)));
    case TFS_CU_RECIPROCAL: return one / x;
    case TFS_CU_FLOOR: return m_floor(x);
    case TFS_CU_CEIL: return m_ceil(x);
    case TFS_CU_SIN: return m_sin(x);
    case TFS_CU_COS: return m_cos(x);
    case TFS_CU_ERF: return m_erf(x);
    case TFS_CU_LEAKY_RELU: return x > zero ? x : x * alpha;
    case TFS_CU_EXPM1: return m_expm1(x);
    case TFS_CU_LOG1P: return m_log1p(x);
    default: /* TFS_CU_SIGN */
      return x > zero ? one : (x < zero ? -one : x);
  }
}

template <typename T>
__global__ void unary_k(int op, const T *x, T *out, int64_t n, double alpha) {
  typedef typename Acc<T>::type A;
  TFS_CU_LOOP(i, n) { store(out, i, apply_unary<A>(op, load(x, i), A(alpha))); }
}

template <typename T>
void launch_unary(int op, const void *x, void *out, int64_t n, float alpha,
                  cudaStream_t s) {
  double a = op == TFS_CU_SOFTPLUS ? SoftplusT<T>::v : (double)alpha;
  unary_k<T><<<grid_for(n, 256), 256, 0, s>>>(op, (const T *)x, (T *)out, n,
                                              a);
}

/* Casts go through float (16-bit types) or double. */
template <typename T> __device__ __forceinline__ void put(T *p, int64_t i,
                                                          double v) {
  p[i] = (T)v;
}
template <> __device__ __forceinline__ void put<__half>(__half *p, int64_t i,
                                                        double v) {
  p[i] = __float2half((float)v);
}
template <> __device__ __forceinline__ void put<__nv_bfloat16>(
    __nv_bfloat16 *p, int64_t i, double v) {
  p[i] = __float2bfloat16((float)v);
}

/* Truncate: the source with its low `bits` mantissa bits cleared (NaN
 * left alone), as the CPU Cast; only float and double sources have any. */
template <typename F> __device__ __forceinline__ double trunc_load(
    const F *p, int64_t i, int bits) {
  (void)bits;
  return (double)load(p, i);
}
template <> __device__ __forceinline__ double trunc_load<float>(
    const float *p, int64_t i, int bits) {
  float v = p[i];
  if (bits == 0 || v != v) return v;
  unsigned u = __float_as_uint(v) & ~((1u << bits) - 1u);
  return (double)__uint_as_float(u);
}
template <> __device__ __forceinline__ double trunc_load<double>(
    const double *p, int64_t i, int bits) {
  double v = p[i];
  if (bits == 0 || v != v) return v;
  unsigned long long u = (unsigned long long)__double_as_longlong(v) &
                         ~((1ull << bits) - 1ull);
  return __longlong_as_double((long long)u);
}

template <typename F, typename T>
__global__ void cast_k(const F *x, T *out, int64_t n, int bits) {
  TFS_CU_LOOP(i, n) { put(out, i, trunc_load(x, i, bits)); }
}

template <typename F>
int launch_cast_from(int to, const void *x, void *out, int64_t n, int bits,
                     cudaStream_t s) {
  unsigned g = grid_for(n, 256);
  const F *in = (const F *)x;
  switch (to) {
    case TFS_CU_F32: cast_k<F, float><<<g, 256, 0, s>>>(in, (float *)out, n, bits); break;
    case TFS_CU_F64: cast_k<F, double><<<g, 256, 0, s>>>(in, (double *)out, n, bits); break;
    case TFS_CU_F16: cast_k<F, __half><<<g, 256, 0, s>>>(in, (__half *)out, n, bits); break;
    case TFS_CU_BF16: cast_k<F, __nv_bfloat16><<<g, 256, 0, s>>>(in, (__nv_bfloat16 *)out, n, bits); break;
    default: return (int)cudaErrorInvalidValue;
  }
  return 0;
}

template <typename T>
__global__ void bias_add_k(const T *x, const T *bias, T *out, int64_t n,
                           int64_t c, int64_t inner) {
  TFS_CU_LOOP(i, n) {
    int64_t ch = (i / inner) % c;
    store(out, i, load(x, i) + load(bias, ch));
  }
}

template <typename T>
void launch_bias_add(const void *x, const void *bias, void *out, int64_t n,
                     int64_t c, int64_t inner, cudaStream_t s) {
  bias_add_k<T><<<grid_for(n, 256), 256, 0, s>>>(
      (const T *)x, (const T *)bias, (T *)out, n, c, inner);
}

template <typename E>
__global__ void transpose4_k(const E *in, E *out, int64_t n,
                             int64_t d0, int64_t d1, int64_t d2, int64_t d3,
                             int64_t s0, int64_t s1, int64_t s2, int64_t s3) {
  /* out dims d0..d3; s0..s3: the input stride of each output dim */
  TFS_CU_LOOP(i, n) {
    int64_t r = i;
    int64_t i3 = r % d3; r /= d3;
    int64_t i2 = r % d2; r /= d2;
    int64_t i1 = r % d1; r /= d1;
    out[i] = in[r * s0 + i1 * s1 + i2 * s2 + i3 * s3];
  }
}

template <typename T>
__global__ void pad2d_k(const T *in, T *out, int64_t n, int64_t h, int64_t w,
                        int64_t c, int64_t oh, int64_t ow, int64_t pt,
                        int64_t pl, int nchw, int64_t total) {
  TFS_CU_LOOP(i, total) {
    int64_t r = i, b, y, x, ch;
    if (nchw) {
      x = r % ow; r /= ow;
      y = r % oh; r /= oh;
      ch = r % c; b = r / c;
    } else {
      ch = r % c; r /= c;
      x = r % ow; r /= ow;
      y = r % oh; b = r / oh;
    }
    int64_t sy = y - pt, sx = x - pl;
    if (sy < 0 || sy >= h || sx < 0 || sx >= w) {
      out[i] = T(0.0f);
    } else {
      int64_t src = nchw ? ((b * c + ch) * h + sy) * w + sx
                         : ((b * h + sy) * w + sx) * c + ch;
      out[i] = in[src];
    }
  }
}

}  // namespace

extern "C" {

int tfs_cu_binary(int op, int type, const void *a, const void *b, void *out,
                  int64_t n, int a_scalar, int b_scalar,
                  const tfs_cu_index *idx, void *stream) {
  if (n == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  TFS_CU_DISPATCH(type, launch_binary, op, a, b, out, n, a_scalar, b_scalar,
                  idx, s)
  return (int)cudaGetLastError();
}

int tfs_cu_unary(int op, int type, const void *x, void *out, int64_t n,
                 float alpha, void *stream) {
  if (n == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  TFS_CU_DISPATCH(type, launch_unary, op, x, out, n, alpha, s)
  return (int)cudaGetLastError();
}

int tfs_cu_cast(int from, int to, const void *x, void *out, int64_t n,
                int trunc_bits, void *stream) {
  if (n == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  int rc, b = trunc_bits;
  switch (from) {
    case TFS_CU_F32: rc = launch_cast_from<float>(to, x, out, n, b, s); break;
    case TFS_CU_F64: rc = launch_cast_from<double>(to, x, out, n, b, s); break;
    case TFS_CU_F16: rc = launch_cast_from<__half>(to, x, out, n, b, s); break;
    case TFS_CU_BF16:
      rc = launch_cast_from<__nv_bfloat16>(to, x, out, n, b, s);
      break;
    default: return (int)cudaErrorInvalidValue;
  }
  return rc ? rc : (int)cudaGetLastError();
}

int tfs_cu_bias_add(int type, const void *x, const void *bias, void *out,
                    int64_t outer, int64_t c, int64_t inner, void *stream) {
  int64_t n = outer * c * inner;
  if (n == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  TFS_CU_DISPATCH(type, launch_bias_add, x, bias, out, n, c, inner, s)
  return (int)cudaGetLastError();
}

int tfs_cu_transpose4(const void *in, void *out, const int64_t *in_dims,
                      const int *perm, int esize, void *stream) {
  int64_t st[4] = {in_dims[1] * in_dims[2] * in_dims[3],
                   in_dims[2] * in_dims[3], in_dims[3], 1};
  int64_t d[4], s[4];
  for (int k = 0; k < 4; k++) {
    d[k] = in_dims[perm[k]];
    s[k] = st[perm[k]];
  }
  int64_t n = d[0] * d[1] * d[2] * d[3];
  if (n == 0) return 0;
  unsigned g = grid_for(n, 256);
  cudaStream_t cs = (cudaStream_t)stream;
  switch (esize) {
    case 2:
      transpose4_k<uint16_t><<<g, 256, 0, cs>>>(
          (const uint16_t *)in, (uint16_t *)out, n, d[0], d[1], d[2], d[3],
          s[0], s[1], s[2], s[3]);
      break;
    case 4:
      transpose4_k<uint32_t><<<g, 256, 0, cs>>>(
          (const uint32_t *)in, (uint32_t *)out, n, d[0], d[1], d[2], d[3],
          s[0], s[1], s[2], s[3]);
      break;
    case 8:
      transpose4_k<uint64_t><<<g, 256, 0, cs>>>(
          (const uint64_t *)in, (uint64_t *)out, n, d[0], d[1], d[2], d[3],
          s[0], s[1], s[2], s[3]);
      break;
    default: return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

int tfs_cu_pad2d(int type, const void *in, void *out, int64_t n, int64_t h,
                 int64_t w, int64_t c, int64_t pt, int64_t pb, int64_t pl,
                 int64_t pr, int nchw, void *stream) {
  int64_t oh = h + pt + pb, ow = w + pl + pr, total = n * oh * ow * c;
  if (total == 0) return 0;
  unsigned g = grid_for(total, 256);
  cudaStream_t s = (cudaStream_t)stream;
  switch (type) {
    case TFS_CU_F32:
      pad2d_k<float><<<g, 256, 0, s>>>((const float *)in, (float *)out, n, h,
                                       w, c, oh, ow, pt, pl, nchw, total);
      break;
    case TFS_CU_F64:
      pad2d_k<double><<<g, 256, 0, s>>>((const double *)in, (double *)out, n,
                                        h, w, c, oh, ow, pt, pl, nchw, total);
      break;
    case TFS_CU_F16:
      pad2d_k<__half><<<g, 256, 0, s>>>((const __half *)in, (__half *)out, n,
                                        h, w, c, oh, ow, pt, pl, nchw, total);
      break;
    case TFS_CU_BF16:
      pad2d_k<__nv_bfloat16><<<g, 256, 0, s>>>(
          (const __nv_bfloat16 *)in, (__nv_bfloat16 *)out, n, h, w, c, oh,
          ow, pt, pl, nchw, total);
      break;
    default: return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

int tfs_cu_sm_count(void) {
  static int cached[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 0;
  if (!cached[dev]) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) ==
        cudaSuccess)
      cached[dev] = v;
  }
  return cached[dev];
}

}  // extern "C"

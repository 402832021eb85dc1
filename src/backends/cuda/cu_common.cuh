/*
 * backends/cuda/cu_common.cuh - what the .cu files share: loads and stores
 * that compute 16-bit floats in float, grid sizing for grid-stride loops,
 * and a dispatch over the element types.
 */
#ifndef TFS_BACKENDS_CUDA_CU_COMMON_CUH
#define TFS_BACKENDS_CUDA_CU_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_launch.h"

namespace tfs_cu {

/* The type arithmetic runs in: double for double, float otherwise. */
template <typename T> struct Acc { typedef float type; };
template <> struct Acc<double> { typedef double type; };

template <typename T>
__device__ __forceinline__ typename Acc<T>::type load(const T *p, int64_t i) {
  return p[i];
}
template <>
__device__ __forceinline__ float load<__half>(const __half *p, int64_t i) {
  return __half2float(p[i]);
}
template <>
__device__ __forceinline__ float load<__nv_bfloat16>(const __nv_bfloat16 *p,
                                                     int64_t i) {
  return __bfloat162float(p[i]);
}

template <typename T, typename A>
__device__ __forceinline__ void store(T *p, int64_t i, A v) {
  p[i] = (T)v;
}
template <>
__device__ __forceinline__ void store<__half, float>(__half *p, int64_t i,
                                                     float v) {
  p[i] = __float2half(v);
}
template <>
__device__ __forceinline__ void store<__nv_bfloat16, float>(
    __nv_bfloat16 *p, int64_t i, float v) {
  p[i] = __float2bfloat16(v);
}

/* Blocks for a grid-stride loop over n elements with `threads` each. */
static inline unsigned grid_for(int64_t n, int threads) {
  int64_t blocks = (n + threads - 1) / threads;
  int64_t cap = (int64_t)tfs_cu_sm_count() * 32;
  if (cap < 1) cap = 1024;
  if (blocks > cap) blocks = cap;
  return blocks < 1 ? 1u : (unsigned)blocks;
}

#define TFS_CU_LOOP(i, n)                                                 \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;        \
       i < (n); i += (int64_t)blockDim.x * gridDim.x)

/* Calls F<T>(args...) for the element type code `type`. */
#define TFS_CU_DISPATCH(type, F, ...)                                     \
  switch (type) {                                                         \
    case TFS_CU_F32: F<float>(__VA_ARGS__); break;                        \
    case TFS_CU_F64: F<double>(__VA_ARGS__); break;                       \
    case TFS_CU_F16: F<__half>(__VA_ARGS__); break;                       \
    case TFS_CU_BF16: F<__nv_bfloat16>(__VA_ARGS__); break;               \
    default: return (int)cudaErrorInvalidValue;                           \
  }

}  // namespace tfs_cu

#endif

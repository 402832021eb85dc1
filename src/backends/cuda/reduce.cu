/*
 * backends/cuda/reduce.cu - device code of the reductions (Sum, Mean, Max,
 * Min, Prod over any set of axes: one block per output element, a tree
 * in shared memory) and of Softmax / LogSoftmax over the last dimension
 * (one block per row).
 */
#include <float.h>

#include "cu_common.cuh"

using namespace tfs_cu;

namespace {

template <typename A> __device__ __forceinline__ A lowest();
template <> __device__ __forceinline__ float lowest<float>() {
  return -INFINITY;
}
template <> __device__ __forceinline__ double lowest<double>() {
  return -INFINITY;
}

template <typename A>
__device__ __forceinline__ A identity(int op) {
  switch (op) {
    case TFS_CU_MAX: return lowest<A>();
    case TFS_CU_MIN: return -lowest<A>();
    case TFS_CU_PROD: return A(1);
    default: return A(0);
  }
}

template <typename A>
__device__ __forceinline__ A combine(int op, A x, A y) {
  switch (op) {
    case TFS_CU_MAX: return (x != x || x > y) ? x : y;
    case TFS_CU_MIN: return (x != x || x < y) ? x : y;
    case TFS_CU_PROD: return x * y;
    default: return x + y;
  }
}

__device__ __forceinline__ int64_t offset(int64_t i, const tfs_cu_index &ix) {
  int64_t off = 0;
  for (int d = ix.rank - 1; d >= 0; d--) {
    off += (i % ix.dims[d]) * ix.a[d];
    i /= ix.dims[d];
  }
  return off;
}

/* Tree reduction of buf[0..blockDim.x) (a power of two) into buf[0]. */
template <typename A>
__device__ void block_combine(int op, A *buf) {
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      buf[threadIdx.x] = combine(op, buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
}

template <typename T>
__global__ void reduce_k(int op, const T *x, T *out, int64_t nout,
                         tfs_cu_index kept, int64_t nred, tfs_cu_index red) {
  typedef typename Acc<T>::type A;
  extern __shared__ unsigned char smem_raw[];
  A *buf = reinterpret_cast<A *>(smem_raw);
  for (int64_t o = blockIdx.x; o < nout; o += gridDim.x) {
    int64_t base = offset(o, kept);
    A acc = identity<A>(op);
    for (int64_t r = threadIdx.x; r < nred; r += blockDim.x)
      acc = combine(op, acc, (A)load(x, base + offset(r, red)));
    buf[threadIdx.x] = acc;
    __syncthreads();
    block_combine(op, buf);
    if (threadIdx.x == 0) {
      A v = buf[0];
      if (op == TFS_CU_MEAN) v = nred ? v / A(nred) : A(NAN);
      store(out, o, v);
    }
    __syncthreads();
  }
}

static int block_for(int64_t n) {
  int t = 32;
  while (t < 256 && t < n) t <<= 1;
  return t;
}

template <typename T>
void launch_reduce(int op, const void *x, void *out, int64_t nout,
                   const tfs_cu_index *kept, int64_t nred,
                   const tfs_cu_index *red, cudaStream_t s) {
  typedef typename Acc<T>::type A;
  int threads = block_for(nred);
  int64_t blocks = nout;
  int64_t cap = (int64_t)(tfs_cu_sm_count() > 0 ? tfs_cu_sm_count() : 16) * 64;
  if (blocks > cap) blocks = cap;
  reduce_k<T><<<(unsigned)blocks, threads, threads * sizeof(A), s>>>(
      op, (const T *)x, (T *)out, nout, *kept, nred, *red);
}

template <typename T>
__global__ void softmax_k(const T *x, T *out, int64_t rows, int64_t cols,
                          int log) {
  typedef typename Acc<T>::type A;
  extern __shared__ unsigned char smem_raw[];
  A *buf = reinterpret_cast<A *>(smem_raw);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t base = row * cols;
    A m = lowest<A>();
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      m = combine(TFS_CU_MAX, m, (A)load(x, base + j));
    buf[threadIdx.x] = m;
    __syncthreads();
    block_combine(TFS_CU_MAX, buf);
    m = buf[0];
    __syncthreads();
    A sum = 0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      sum += exp((A)load(x, base + j) - m);
    buf[threadIdx.x] = sum;
    __syncthreads();
    block_combine(TFS_CU_SUM, buf);
    sum = buf[0];
    __syncthreads();
    const A lsum = log ? A(::log(sum)) : A(0);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      A v = (A)load(x, base + j) - m;
      store(out, base + j, log ? v - lsum : A(exp(v) / sum));
    }
  }
}

template <typename T>
void launch_softmax(const void *x, void *out, int64_t rows, int64_t cols,
                    int log, cudaStream_t s) {
  typedef typename Acc<T>::type A;
  int threads = block_for(cols);
  int64_t blocks = rows;
  int64_t cap = (int64_t)(tfs_cu_sm_count() > 0 ? tfs_cu_sm_count() : 16) * 64;
  if (blocks > cap) blocks = cap;
  softmax_k<T><<<(unsigned)blocks, threads, threads * sizeof(A), s>>>(
      (const T *)x, (T *)out, rows, cols, log);
}

}  // namespace

extern "C" {

int tfs_cu_reduce(int op, int type, const void *x, void *out, int64_t nout,
                  const tfs_cu_index *kept, int64_t nred,
                  const tfs_cu_index *red, void *stream) {
  if (nout == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  TFS_CU_DISPATCH(type, launch_reduce, op, x, out, nout, kept, nred, red, s)
  return (int)cudaGetLastError();
}

int tfs_cu_softmax(int type, int log, const void *x, void *out, int64_t rows,
                   int64_t cols, void *stream) {
  if (rows == 0 || cols == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  TFS_CU_DISPATCH(type, launch_softmax, x, out, rows, cols, log, s)
  return (int)cudaGetLastError();
}

}  // extern "C"

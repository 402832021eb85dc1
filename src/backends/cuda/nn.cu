/*
 * backends/cuda/nn.cu - device code of 2-D pooling for the windows cuDNN
 * cannot express (TensorFlow's SAME padding with more padding after than
 * before): one thread per output element, max never picking padding and
 * average over the in-bounds elements, as TensorFlow's kernels.
 */
#include "cu_common.cuh"

using namespace tfs_cu;

namespace {

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
    A acc = is_max ? A(-INFINITY) : A(0);
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

template <typename T>
void launch_pool(int is_max, const void *x, void *out, const tfs_cu_pool *g,
                 int64_t total, cudaStream_t s) {
  pool2d_k<T><<<grid_for(total, 256), 256, 0, s>>>(is_max, (const T *)x,
                                                   (T *)out, *g, total);
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

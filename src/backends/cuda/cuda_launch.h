/*
 * backends/cuda/cuda_launch.h - the launchers of the device code (.cu files
 * under src/backends/cuda), callable from the host C code of the CUDA
 * kernels.  Plain C: no CUDA types, a stream is a `void *`
 * (cudaStream_t), the result a cudaError_t as int (0 = cudaSuccess).
 */
#ifndef TFS_BACKENDS_CUDA_CUDA_LAUNCH_H
#define TFS_BACKENDS_CUDA_CUDA_LAUNCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types the device code computes on (16-bit floats compute in
 * float). */
enum { TFS_CU_F32 = 0, TFS_CU_F64, TFS_CU_F16, TFS_CU_BF16, TFS_CU_NTYPES };

#define TFS_CU_MAX_RANK 8

/* A strided view for broadcasting and reductions: for output (or kept)
 * dimension i of size dims[i], each operand advances by its stride[i]
 * elements (0 where it is broadcast). */
typedef struct tfs_cu_index {
  int rank;
  int64_t dims[TFS_CU_MAX_RANK];
  int64_t a[TFS_CU_MAX_RANK];
  int64_t b[TFS_CU_MAX_RANK];
} tfs_cu_index;

/* ---- elementwise (elementwise.cu) ---------------------------------------- */

enum {
  TFS_CU_ADD, TFS_CU_SUB, TFS_CU_MUL, TFS_CU_DIV, TFS_CU_MAXIMUM,
  TFS_CU_MINIMUM, TFS_CU_POW, TFS_CU_SQDIFF, TFS_CU_NBINARY
};

/* out[i] = a op b for n outputs.  idx NULL: a and b have n elements each
 * (a_scalar / b_scalar: that one has a single element); else the strided
 * view of idx maps output i to a and b. */
int tfs_cu_binary(int op, int type, const void *a, const void *b, void *out,
                  int64_t n, int a_scalar, int b_scalar,
                  const tfs_cu_index *idx, void *stream);

enum {
  TFS_CU_NEG, TFS_CU_ABS, TFS_CU_EXP, TFS_CU_LOG, TFS_CU_SQRT, TFS_CU_RSQRT,
  TFS_CU_SQUARE, TFS_CU_TANH, TFS_CU_SIGMOID, TFS_CU_RELU, TFS_CU_RELU6,
  TFS_CU_ELU, TFS_CU_SELU, TFS_CU_SOFTPLUS, TFS_CU_RECIPROCAL, TFS_CU_FLOOR,
  TFS_CU_CEIL, TFS_CU_SIN, TFS_CU_COS, TFS_CU_ERF, TFS_CU_LEAKY_RELU,
  TFS_CU_EXPM1, TFS_CU_LOG1P, TFS_CU_SIGN, TFS_CU_NUNARY
};

/* out[i] = f(x[i]); `alpha` is LeakyRelu's slope (Softplus takes its
 * dtype's threshold itself). */
int tfs_cu_unary(int op, int type, const void *x, void *out, int64_t n,
                 float alpha, void *stream);

/* out[i] = (to)x[i] between the float types; trunc_bits > 0 (Truncate,
 * float or double sources only) clears that many low mantissa bits of
 * each non-NaN source value first, as the CPU Cast. */
int tfs_cu_cast(int from, int to, const void *x, void *out, int64_t n,
                int trunc_bits, void *stream);

/* out = x + bias broadcast along the channel dimension: x is [outer, c,
 * inner] (NHWC: inner 1; NCHW: inner = H*W). */
int tfs_cu_bias_add(int type, const void *x, const void *bias, void *out,
                    int64_t outer, int64_t c, int64_t inner, void *stream);

/* 4-D permutation: out dims are in[perm[k]]; element size `esize`. */
int tfs_cu_transpose4(const void *in, void *out, const int64_t *in_dims,
                      const int *perm, int esize, void *stream);

/* Zero padding of an NHWC or NCHW (nchw) 4-D tensor: pt/pb rows above
 * and below, pl/pr columns left and right. */
int tfs_cu_pad2d(int type, const void *in, void *out, int64_t n, int64_t h,
                 int64_t w, int64_t c, int64_t pt, int64_t pb, int64_t pl,
                 int64_t pr, int nchw, void *stream);

/* ---- reductions and softmax (reduce.cu) ---------------------------------- */

enum { TFS_CU_SUM, TFS_CU_MEAN, TFS_CU_MAX, TFS_CU_MIN, TFS_CU_PROD };

/* Reduces x into out: `kept` maps output element i to an input offset
 * (its `a` strides), `red` enumerates the reduced elements (its `a`
 * strides); nout outputs, nred elements each.  Mean divides by nred. */
int tfs_cu_reduce(int op, int type, const void *x, void *out, int64_t nout,
                  const tfs_cu_index *kept, int64_t nred,
                  const tfs_cu_index *red, void *stream);

/* Softmax (log: LogSoftmax) over the last dimension of [rows, cols]. */
int tfs_cu_softmax(int type, int log, const void *x, void *out, int64_t rows,
                   int64_t cols, void *stream);

/* ---- pooling without cuDNN, batch norm (nn.cu) ----------------------------- */

/* 2-D max (is_max) or average pooling, the CPU kernels' semantics (max
 * from the dtype's lowest value, never picking NaN or padding; average
 * over in-bounds elements), any padding.  dwin > 1: max pooling across
 * depth instead, c output channels of dwin input channels each (oh = h,
 * ow = w).  Layout by element strides (is_* input, os_* output). */
typedef struct tfs_cu_pool {
  int64_t n, h, w, c, oh, ow;
  int64_t kh, kw, sh, sw, pt, pl, dwin;
  int64_t is_n, is_h, is_w, is_c, os_n, os_h, os_w, os_c;
} tfs_cu_pool;
int tfs_cu_pool2d(int type, int is_max, const void *x, void *out,
                  const tfs_cu_pool *g, void *stream);

/* FusedBatchNorm as the CPU kernel: x (float or 16-bit) is `outer`
 * blocks of `ch` channels of `inner` elements. */
typedef struct tfs_cu_bn {
  int64_t outer, ch, inner;
  float epsilon, factor;
  int training;
} tfs_cu_bn;
/* y from x; in: scale, offset, mean, variance; outs: batch mean, batch
 * variance, reserve spaces 1 and 2 (all float, ch each; the reserve
 * spaces only written in training, so the caller zeroes them); work: 2 *
 * ch floats of device scratch.  An empty x gives NaN batch statistics. */
int tfs_cu_batch_norm(int type, const tfs_cu_bn *p, const void *x, void *y,
                      const float *const *in, float *const *outs, float *work,
                      void *stream);

/* Number of multiprocessors of the current device (for grid sizes). */
int tfs_cu_sm_count(void);

#ifdef __cplusplus
}
#endif

#endif

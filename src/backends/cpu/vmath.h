/*
 * backends/cpu/vmath.h - transcendental functions over float32 arrays for
 * the CPU kernels (Exp, Log, Tanh, Sigmoid, Erf, the activations, the
 * fused epilogues, Softmax): polynomial approximations after range
 * reduction, on AVX-512, AVX2 + FMA or portable C, chosen per call.
 */
#ifndef TFS_BACKENDS_CPU_VMATH_H
#define TFS_BACKENDS_CPU_VMATH_H

#include <stdint.h>

/*
 * y[i] = f(x[i]) for 0 <= i < n.  x may equal y (in place); otherwise the
 * arrays must not overlap.  No alignment is needed.  n <= 0 does nothing.
 * Does not take ownership of any argument; thread-safe (no state); cannot
 * fail.
 *
 * The path is chosen at every call by tfs_cpu_has (src/core/cpu.h), so
 * tfs_cpu__set_max_isa and TFS_CPU_MAX_ISA select it: AVX-512 F, AVX2 with
 * FMA, or portable C below AVX2.  The three compute the same formulas with
 * the same constants; only the portable path rounds a*b+c twice, so
 * its results may differ from the others' within the bounds below (AVX-512
 * and AVX2 round alike and agree).
 *
 * Special values are those of C's libm: NaN in gives NaN out; exp(-inf) =
 * 0, exp(+inf) = +inf and overflow gives +inf; log(0) = -inf, log(x < 0)
 * = NaN, log1p(-1) = -inf; tanh(+-inf) = +-1, sigmoid saturates to 0 and 1
 * (never NaN for a number), erf(+-inf) = +-1, erfc(+inf) = 0, erfc(-inf)
 * = 2, and results round to 0 where libm's underflow.  Signed zeros are
 * kept where f(-0) = -0.  Subnormal inputs are exact inputs (no
 * flush-to-zero).
 *
 * Accuracy, measured against double-precision libm over every 97th float
 * bit pattern of the range shown (tests/kernels/test_vmath.c, with
 * TFS_VMATH_STRIDE=97), in units in the last place of the float result
 * (subnormal results in units of 2^-149): the largest error found on each
 * path, then the bound the tests assert on every path (every 4099th
 * pattern, special values, tails):
 *
 *   function    AVX-512  AVX2   portable  bound  range
 *   exp          0.97    0.97    0.93      1     [-104, 89]
 *   expm1        1.41    1.41    1.44      2     [-25, 89]
 *   log          0.80    0.80    0.80      1     [0, inf]
 *   log1p        1.40    1.40    1.40      2     [-1, inf]
 *   tanh         1.31    1.31    1.31      2     all
 *   sigmoid      2.30    2.30    2.42      3     all
 *   erf          1.36    1.36    1.60      2     all
 *   erfc         4.87    4.87    5.50      5.5/6 all (relative error
 *                                                below 7.2e-7)
 *   swish        2.24    2.24    2.24      3.5   [-87, inf]
 *   gelu_tanh    2.45    2.45    2.45   3 + 2|v| [-5, inf] (below)
 *   gelu_erf     5.20    5.20    5.68      6/6.5 [-13, inf]
 *   elu          0.87    0.87    0.82      2     all
 *
 * Further out, swish below -87 and gelu_erf below -13 have subnormal
 * results whose error grows to |x| units of 2^-149 (exp(x) is itself
 * subnormal there).  gelu_tanh's error, less 2 |v| ulps, v = 1.6 x (1 +
 * 0.045 x^2), is the number shown: its argument is rounded in float, as
 * in any float evaluation of the formula, and the result's sensitivity to
 * it grows with |v| for negative x (3 more ulps at x = -1, 34 at -5).
 */

/* e^x */
void tfs_vm_exp_f32(const float *x, float *y, int64_t n);
/* e^x - 1, accurate near 0 */
void tfs_vm_expm1_f32(const float *x, float *y, int64_t n);
/* natural logarithm */
void tfs_vm_log_f32(const float *x, float *y, int64_t n);
/* log(1 + x), accurate near 0 */
void tfs_vm_log1p_f32(const float *x, float *y, int64_t n);
/* hyperbolic tangent */
void tfs_vm_tanh_f32(const float *x, float *y, int64_t n);
/* logistic function 1 / (1 + e^-x) */
void tfs_vm_sigmoid_f32(const float *x, float *y, int64_t n);
/* error function and its complement 1 - erf(x) (erfc keeps its relative
 * accuracy in the tail, down to subnormal results) */
void tfs_vm_erf_f32(const float *x, float *y, int64_t n);
void tfs_vm_erfc_f32(const float *x, float *y, int64_t n);
/* x * sigmoid(x) (swish, SiLU); -inf gives NaN, as that product */
void tfs_vm_swish_f32(const float *x, float *y, int64_t n);
/* GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
 * x^3))), computed as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (the
 * same function, without cancellation for negative x); -inf gives NaN,
 * as the formula */
void tfs_vm_gelu_tanh_f32(const float *x, float *y, int64_t n);
/* GELU, exact: 0.5 x erfc(-x / sqrt(2)) = x Phi(x) */
void tfs_vm_gelu_erf_f32(const float *x, float *y, int64_t n);
/* ELU with alpha 1: x < 0 ? expm1(x) : x.  TensorFlow writes exp(x) - 1;
 * expm1 differs from that by less than float's rounding of exp(x) - 1
 * (2^-24 absolute) and is exact near 0. */
void tfs_vm_elu_f32(const float *x, float *y, int64_t n);

/* y[i] = e^(x[i] - shift) for i in [0, n), the difference rounded to
 * float and then tfs_vm_exp_f32's value of it (the same bits); returns
 * the sum of the y[i], added in double (softmax's one pass after the
 * row's maximum).  x may equal y. */
double tfs_vm_exp_shifted_sum_f32(const float *x, float *y, int64_t n,
                                  float shift);

/* Softmax of `rows` rows of n floats, y[i] = e^(x[i] - max) / sum in
 * each: the bits of tfs_row_max_f32 (row_ops.h), tfs_vm_exp_shifted_sum_f32
 * from it into y, and y scaled by (float)(1 / sum) (tfs_row_scale_f32),
 * one after the other; on AVX-512 in one function, two rows at a time.
 * A NaN makes its row NaN (which NaN is not specified).  x may equal y. */
void tfs_vm_softmax_f32(const float *x, float *y, int64_t rows, int64_t n);

/* tfs_vm_softmax_f32 over bfloat16 rows: each row widened (exact), the
 * float softmax's values, each rounded once to bfloat16
 * (tfs_bf16_from_f32's bits); tmp: 2 * n floats of scratch.  On AVX-512
 * the widening and rounding happen in the passes.  x may equal y. */
void tfs_vm_softmax_bf16(const uint16_t *x, uint16_t *y, int64_t rows,
                         int64_t n, float *tmp);

/* y[i] = to16(f(from16(x[i]))) for half (bf16 = 0) or bfloat16 (bf16 =
 * 1) arrays: blocks are converted to float, computed with `f` (one of the
 * functions above) and rounded back.  Same rules as above (x may equal
 * y). */
void tfs_vm_map16(void (*f)(const float *, float *, int64_t),
                  const uint16_t *x, uint16_t *y, int64_t n, int bf16);

/* The functions above, as X(name) for each. */
#define TFS_VM_FUNCS(X)                                                    \
  X(exp) X(expm1) X(log) X(log1p) X(tanh) X(sigmoid) X(erf) X(erfc)        \
  X(swish) X(gelu_tanh) X(gelu_erf) X(elu)

/* The paths' entry points (tfs_vm__exp_avx512, tfs_vm__exp_avx2, ...),
 * for vmath.c's dispatch; call them only where tfs_cpu_has says the CPU
 * can. */
#define TFS_VM_DECL(NAME)                                                  \
  void tfs_vm__##NAME##_avx512(const float *x, float *y, int64_t n);      \
  void tfs_vm__##NAME##_avx2(const float *x, float *y, int64_t n);
TFS_VM_FUNCS(TFS_VM_DECL)
#undef TFS_VM_DECL
double tfs_vm__exp_shifted_sum_avx512(const float *x, float *y, int64_t n,
                                      float shift);
double tfs_vm__exp_shifted_sum_avx2(const float *x, float *y, int64_t n,
                                    float shift);
/* x and y float rows, or bfloat16 rows (bf) with tmp 2 * n floats. */
void tfs_vm__softmax_avx512(const void *x, void *y, int64_t rows,
                            int64_t n, int bf, float *tmp);

#endif

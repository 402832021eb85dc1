/*
 * backends/cpu/unary_math.c - elementwise transcendental functions: Sqrt,
 * Rsqrt, Exp, Expm1, Log, Log1p, Sin, Cos, Tan, Asin, Acos, Atan, Sinh,
 * Cosh, Asinh, Acosh, Atanh, Tanh, Sigmoid, Erf, Erfc, for float types (half and bfloat16
 * computed in float) and complex where TensorFlow has them.  float32 Exp,
 * Expm1, Log, Log1p, Tanh, Sigmoid, Erf and Erfc use vmath.h's array
 * functions (16-bit floats through them in float blocks); double uses
 * libm.
 */
#include <stdlib.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"
#include "backends/cpu/vmath.h"

/* C11's CMPLX and CMPLXF (a complex number from its parts, exact even
 * for infinite and NaN parts).  glibc's <complex.h> defines them only for
 * GCC, so clang before 19 has neither; __builtin_complex does the same
 * in both compilers. */
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif
#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif

#define EW_UN_COMPLEX(OP, EXPR_C64, EXPR_C128)                            \
  EW_UN(OP##_c64, tfs_c64, EXPR_C64)                                      \
  EW_UN(OP##_c128, tfs_c128, EXPR_C128)
/* OP over the four float types (f: float name, d: double name) and the
 * two complex types (cf, cd) */
#define MATH(OP, F, D, CF, CD)                                            \
  EW_UN_FLOATS(OP, F(x), D(x))                                            \
  EW_UN_COMPLEX(OP, CF(x), CD(x))

/* float32 through vmath's array function, half and bfloat16 through it
 * in float blocks, double with D */
#define VM_FLOATS(OP, D)                                                  \
  static int OP##_f32(const void *X, void *O, int64_t n) {                \
    tfs_vm_##OP##_f32(X, O, n);                                           \
    return 0;                                                             \
  }                                                                       \
  static int OP##_f16(const void *X, void *O, int64_t n) {                \
    tfs_vm_map16(tfs_vm_##OP##_f32, X, O, n, 0);                          \
    return 0;                                                             \
  }                                                                       \
  static int OP##_bf16(const void *X, void *O, int64_t n) {               \
    tfs_vm_map16(tfs_vm_##OP##_f32, X, O, n, 1);                          \
    return 0;                                                             \
  }                                                                       \
  EW_UN(OP##_f64, double, D(x))
#define VM_MATH(OP, D, CF, CD) VM_FLOATS(OP, D) EW_UN_COMPLEX(OP, CF(x), CD(x))

/* 1 / (1 + e^-x), written to stay exact for large |x| */
static inline double sigmoidd(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp(-x));
  double e = exp(x);
  return e / (1.0 + e);
}
static inline tfs_c64 csigmoidf(tfs_c64 x) { return 1.0f / (1.0f + cexpf(-x)); }
static inline tfs_c128 csigmoid(tfs_c128 x) { return 1.0 / (1.0 + cexp(-x)); }

static inline float rsqrtf_(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt_(double x) { return 1.0 / sqrt(x); }
static inline tfs_c64 crsqrtf(tfs_c64 x) { return 1.0f / csqrtf(x); }
static inline tfs_c128 crsqrt(tfs_c128 x) { return 1.0 / csqrt(x); }

/* expm1(a+bi) = expm1(a) cos b - 2 sin^2(b/2) + i e^a sin b, accurate
 * near zero */
static inline tfs_c64 cexpm1f(tfs_c64 z) {
  float a = crealf(z), b = cimagf(z), h = sinf(b * 0.5f);
  return CMPLXF(expm1f(a) * cosf(b) - 2.0f * h * h, expf(a) * sinf(b));
}
static inline tfs_c128 cexpm1(tfs_c128 z) {
  double a = creal(z), b = cimag(z), h = sin(b * 0.5);
  return CMPLX(expm1(a) * cos(b) - 2.0 * h * h, exp(a) * sin(b));
}
/* log1p(a+bi) = 1/2 log1p(2a + a^2 + b^2) + i atan2(b, 1 + a) */
static inline tfs_c64 clog1pf(tfs_c64 z) {
  float a = crealf(z), b = cimagf(z);
  return CMPLXF(0.5f * log1pf(a * (2.0f + a) + b * b), atan2f(b, 1.0f + a));
}
static inline tfs_c128 clog1p(tfs_c128 z) {
  double a = creal(z), b = cimag(z);
  return CMPLX(0.5 * log1p(a * (2.0 + a) + b * b), atan2(b, 1.0 + a));
}

MATH(sqrt, sqrtf, sqrt, csqrtf, csqrt)
MATH(rsqrt, rsqrtf_, rsqrt_, crsqrtf, crsqrt)
VM_MATH(exp, exp, cexpf, cexp)
VM_MATH(expm1, expm1, cexpm1f, cexpm1)
VM_MATH(log, log, clogf, clog)
VM_MATH(log1p, log1p, clog1pf, clog1p)
MATH(sin, sinf, sin, csinf, csin)
MATH(cos, cosf, cos, ccosf, ccos)
MATH(tan, tanf, tan, ctanf, ctan)
MATH(asin, asinf, asin, casinf, casin)
MATH(acos, acosf, acos, cacosf, cacos)
MATH(atan, atanf, atan, catanf, catan)
MATH(sinh, sinhf, sinh, csinhf, csinh)
MATH(cosh, coshf, cosh, ccoshf, ccosh)
MATH(asinh, asinhf, asinh, casinhf, casinh)
MATH(acosh, acoshf, acosh, cacoshf, cacosh)
MATH(atanh, atanhf, atanh, catanhf, catanh)
VM_MATH(tanh, tanh, ctanhf, ctanh)
VM_MATH(sigmoid, sigmoidd, csigmoidf, csigmoid)
/* Erf on float64 as TensorFlow 2.21's CPU kernel computes it: NaN once
 * |x| >= 0x1.ffffffcp+511 (about 1.34e154, where the kernel's square of
 * x split into two halves overflows), including +-Inf; erf(x) below.
 * float32, half and bfloat16 saturate to +-1 as libm does (vmath.h). */
static inline double erf_tf(double x) {
  return fabs(x) >= 0x1.ffffffcp+511 ? NAN : erf(x);
}
VM_FLOATS(erf, erf_tf)
VM_FLOATS(erfc, erfc)

#define ENT(OP) EW_FLOAT_ENTRIES(OP), EW_COMPLEX_ENTRIES(OP)
#define TABLE(NAME, OP, COST) \
  static const tfs_un_table NAME = {{ENT(OP)}, "", COST, 0};
TABLE(kSqrt, sqrt, 4)
TABLE(kRsqrt, rsqrt, 6)
TABLE(kExp, exp, 16)
TABLE(kExpm1, expm1, 20)
TABLE(kLog, log, 16)
TABLE(kLog1p, log1p, 20)
TABLE(kSin, sin, 20)
TABLE(kCos, cos, 20)
TABLE(kTan, tan, 30)
TABLE(kAsin, asin, 30)
TABLE(kAcos, acos, 30)
TABLE(kAtan, atan, 30)
TABLE(kSinh, sinh, 30)
TABLE(kCosh, cosh, 30)
TABLE(kAsinh, asinh, 30)
TABLE(kAcosh, acosh, 30)
TABLE(kAtanh, atanh, 30)
TABLE(kTanh, tanh, 20)
TABLE(kSigmoid, sigmoid, 20)
static const tfs_un_table kErf = {{EW_FLOAT_ENTRIES(erf)}, "", 20, 0};
static const tfs_un_table kErfc = {{EW_FLOAT_ENTRIES(erfc)}, "", 20, 0};

#define FC (TFS_DT_FLOATS | EW_DT_COMPLEX)
#define UN(OP, TYPES, TABLE)                                        \
  {OP, "CPU", "T", TYPES, tfs_unary_prepare, tfs_unary_compute,     \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_unary_math[] = {
    UN("Sqrt", FC, kSqrt),       UN("Rsqrt", FC, kRsqrt),
    UN("Exp", FC, kExp),         UN("Expm1", FC, kExpm1),
    UN("Log", FC, kLog),         UN("Log1p", FC, kLog1p),
    UN("Sin", FC, kSin),         UN("Cos", FC, kCos),
    UN("Tan", FC, kTan),         UN("Asin", FC, kAsin),
    UN("Acos", FC, kAcos),
    UN("Atan", FC, kAtan),       UN("Sinh", FC, kSinh),
    UN("Cosh", FC, kCosh),       UN("Tanh", FC, kTanh),
    UN("Asinh", FC, kAsinh),     UN("Acosh", FC, kAcosh),
    UN("Atanh", FC, kAtanh),
    UN("Sigmoid", FC, kSigmoid), UN("Erf", TFS_DT_FLOATS, kErf),
    UN("Erfc", TFS_DT_FLOATS, kErfc),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

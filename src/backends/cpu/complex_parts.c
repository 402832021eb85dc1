/*
 * backends/cpu/complex_parts.c - Complex (two real tensors, broadcast, to
 * one complex), Real, Imag, Angle and Conj over complex64 and complex128,
 * on the elementwise engine.  TensorFlow registers only the matching pairs
 * (float with complex64, double with complex128); another pair is refused
 * with its "No OpKernel was registered" message.
 */
#include <math.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/elementwise.h"
#include <stdlib.h>

#include "core/attr_value.h"

/* The matching (T, Tout) pair, else TensorFlow's missing-kernel error. */
static int pair_prepare(tfs_kernel_init *ki, int binary) {
  tfs_dtype t = ki->in_types[0], out = ki->out_types[0];
  int ok = (t == TFS_FLOAT && out == TFS_COMPLEX64) ||
           (t == TFS_DOUBLE && out == TFS_COMPLEX128) ||
           (t == TFS_COMPLEX64 && out == TFS_FLOAT) ||
           (t == TFS_COMPLEX128 && out == TFS_DOUBLE);
  if (!ok)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "No OpKernel was registered to support Op '%s' used "
                        "by {{node %s}} with these attrs: [T=%s, Tout=%s]",
                        ki->op->name, ki->node_name, tfs_dtype_enum_name(t),
                        tfs_dtype_enum_name(out));
  return binary ? tfs_binary_prepare(ki) : tfs_unary_prepare(ki);
}

static int complex_prepare(tfs_kernel_init *ki) { return pair_prepare(ki, 1); }
static int part_prepare(tfs_kernel_init *ki) { return pair_prepare(ki, 0); }

/* Complex: a real and an imaginary part of type R into pairs. */
#define COMPLEX_LOOP(NAME, R)                                                  \
  static int NAME(const void *A, const void *B, void *O, int64_t n,            \
                  int mode) {                                                  \
    const R *a = (const R *)A, *b = (const R *)B;                              \
    R *o = (R *)O;                                                             \
    for (int64_t i = 0; i < n; i++) {                                          \
      o[2 * i] = a[mode == TFS_BIN_SV ? 0 : i];                                \
      o[2 * i + 1] = b[mode == TFS_BIN_VS ? 0 : i];                            \
    }                                                                          \
    return 0;                                                                  \
  }
COMPLEX_LOOP(complex_f32, float)
COMPLEX_LOOP(complex_f64, double)

/* Real, Imag, Angle: pairs of R to one R each. */
#define PART_LOOP(NAME, R, EXPR)                                               \
  static int NAME(const void *X, void *O, int64_t n) {                         \
    const R *x = (const R *)X;                                                 \
    R *o = (R *)O;                                                             \
    for (int64_t i = 0; i < n; i++) {                                          \
      R re = x[2 * i], im = x[2 * i + 1];                                      \
      (void)re;                                                                \
      (void)im;                                                                \
      o[i] = (EXPR);                                                           \
    }                                                                          \
    return 0;                                                                  \
  }
PART_LOOP(real_c64, float, re)
PART_LOOP(real_c128, double, re)
PART_LOOP(imag_c64, float, im)
PART_LOOP(imag_c128, double, im)
PART_LOOP(angle_c64, float, atan2f(im, re))
PART_LOOP(angle_c128, double, atan2(im, re))

#define CONJ_LOOP(NAME, R)                                                     \
  static int NAME(const void *X, void *O, int64_t n) {                         \
    const R *x = (const R *)X;                                                 \
    R *o = (R *)O;                                                             \
    for (int64_t i = 0; i < n; i++) {                                          \
      o[2 * i] = x[2 * i];                                                     \
      o[2 * i + 1] = -x[2 * i + 1];                                            \
    }                                                                          \
    return 0;                                                                  \
  }
CONJ_LOOP(conj_c64, float)
CONJ_LOOP(conj_c128, double)

static const tfs_bin_table kComplex = {
    .fn = {[TFS_FLOAT] = complex_f32, [TFS_DOUBLE] = complex_f64}};
static const tfs_un_table kReal = {
    .fn = {[TFS_COMPLEX64] = real_c64, [TFS_COMPLEX128] = real_c128},
    .cost = 1};
static const tfs_un_table kImag = {
    .fn = {[TFS_COMPLEX64] = imag_c64, [TFS_COMPLEX128] = imag_c128},
    .cost = 1};
static const tfs_un_table kAngle = {
    .fn = {[TFS_COMPLEX64] = angle_c64, [TFS_COMPLEX128] = angle_c128},
    .cost = 16};
static const tfs_un_table kConj = {
    .fn = {[TFS_COMPLEX64] = conj_c64, [TFS_COMPLEX128] = conj_c128},
    .cost = 1};

#define CPLX (TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128))

const tfs_kernel_def tfs_cpu_kernels_complex_parts[] = {
    {"Complex", "CPU", "T", TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE),
     complex_prepare, tfs_binary_compute, free, 0, &kComplex},
    {"Real", "CPU", "T", CPLX, part_prepare, tfs_unary_compute, free, 0,
     &kReal},
    {"Imag", "CPU", "T", CPLX, part_prepare, tfs_unary_compute, free, 0,
     &kImag},
    {"Angle", "CPU", "T", CPLX, part_prepare, tfs_unary_compute, free, 0,
     &kAngle},
    {"Conj", "CPU", "T", CPLX, tfs_unary_prepare, tfs_unary_compute, free, 0,
     &kConj},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

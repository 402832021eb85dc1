/*
 * ops/ops_spectral.c - the FFT family: FFT, IFFT, FFT2D, IFFT2D, FFT3D,
 * IFFT3D over complex64 and complex128, and the real transforms RFFT,
 * IRFFT, RFFT2D, IRFFT2D, RFFT3D, IRFFT3D with their fft_length input.
 * Signatures are TensorFlow 2.21's; the shape functions follow its
 * UnchangedShapeWithRankAtLeast and RFFTShape.
 */
#include "core/tensor.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* The transforms over complex values: the input's shape, rank >= r. */
static int fft_shape(tfs_shape_ctx *c, int r) {
  if (tfs_sc_with_rank_at_least(c, 0, r)) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  return 0;
}

static int fft1_shape(tfs_shape_ctx *c) { return fft_shape(c, 1); }
static int fft2_shape(tfs_shape_ctx *c) { return fft_shape(c, 2); }
static int fft3_shape(tfs_shape_ctx *c) { return fft_shape(c, 3); }

/* The real transforms: fft_length is a vector of r values; the input's
 * last r dims become fft_length (the last one fft_length/2 + 1 forward,
 * unless 0), all unknown when fft_length is not a constant. */
static int rfft_shape(tfs_shape_ctx *c, int forward, int r) {
  if (tfs_sc_with_rank_at_least(c, 0, r) || tfs_sc_with_rank(c, 1, 1))
    return -1;
  const tfs_shape *len = &c->in_shapes[1];
  if (len->rank == 1 && len->dims[0] >= 0 && len->dims[0] != r)
    return tfs_sc_error(c, "Dimension must be %d but is %lld", r,
                        (long long)len->dims[0]);
  tfs_shape *o = &c->out_shapes[0];
  *o = c->in_shapes[0];
  if (o->rank < 0) return 0;
  const tfs_tensor *v = tfs_sc_const(c, 1);
  for (int i = 0; i < r; i++) {
    int64_t d = -1;
    if (v && v->nelems == r) {
      d = tfs_tensor__get_as_int64(v, i);
      if (forward && i == r - 1 && d != 0) d = d / 2 + 1;
      if (d < 0) d = -1;
    }
    o->dims[o->rank - r + i] = d;
  }
  return 0;
}

static int rfft1_shape(tfs_shape_ctx *c) { return rfft_shape(c, 1, 1); }
static int rfft2_shape(tfs_shape_ctx *c) { return rfft_shape(c, 1, 2); }
static int rfft3_shape(tfs_shape_ctx *c) { return rfft_shape(c, 1, 3); }
static int irfft1_shape(tfs_shape_ctx *c) { return rfft_shape(c, 0, 1); }
static int irfft2_shape(tfs_shape_ctx *c) { return rfft_shape(c, 0, 2); }
static int irfft3_shape(tfs_shape_ctx *c) { return rfft_shape(c, 0, 3); }

#define TC "Tcomplex: {complex64, complex128} = complex64"
#define TR "Treal: {float, double} = float; " TC
#define C2C(name, fn) {name, "input: Tcomplex", "output: Tcomplex", TC, fn, 0}
#define R2C(name, fn)                                                   \
  {name, "input: Treal; fft_length: int32", "output: Tcomplex", TR, fn, 0}
#define C2R(name, fn)                                                   \
  {name, "input: Tcomplex; fft_length: int32", "output: Treal", TR, fn, 0}

const tfs_op_spec tfs_ops_spectral[] = {
    C2C("FFT", fft1_shape),
    C2C("IFFT", fft1_shape),
    C2C("FFT2D", fft2_shape),
    C2C("IFFT2D", fft2_shape),
    C2C("FFT3D", fft3_shape),
    C2C("IFFT3D", fft3_shape),
    R2C("RFFT", rfft1_shape),
    C2R("IRFFT", irfft1_shape),
    R2C("RFFT2D", rfft2_shape),
    C2R("IRFFT2D", irfft2_shape),
    R2C("RFFT3D", rfft3_shape),
    C2R("IRFFT3D", irfft3_shape),
    {NULL, NULL, NULL, NULL, NULL, 0},
};

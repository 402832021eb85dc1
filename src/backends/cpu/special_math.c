/*
 * backends/cpu/special_math.c - elementwise special functions: Lgamma,
 * Digamma, Erfinv, Ndtri, BesselI0e, BesselI1e, BesselI0, BesselI1
 * (unary), Igamma, Igammac, Zeta, Polygamma (binary, broadcasting) and
 * Betainc (three operands of one shape, or scalars).  The functions are
 * special_fns.h's, in double; float, half and bfloat16 results are
 * rounded from them (TensorFlow computes the 16-bit types through
 * float too), except Lgamma on float, which is libm's float lgamma as
 * in TensorFlow.  Erfinv rounds its intermediate p = x/2 + 1/2 in the
 * input's type, as TensorFlow's kernel does, so that x next to +-1
 * gives the same infinities.
 */
#include <stdlib.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"
#include "backends/cpu/special_fns.h"
#include "core/alloc.h"

/* float in, float out, through double */
#define VIA_D(FN, x) ((float)FN((double)(x)))

EW_UN_FLOATS(lgamma, tfs_lgammaf(x), tfs_lgamma(x))
EW_UN_FLOATS(digamma, VIA_D(tfs_digamma, x), tfs_digamma(x))
EW_UN_FLOATS(ndtri, VIA_D(tfs_ndtri, x), tfs_ndtri(x))
EW_UN_FLOATS(erfinv, VIA_D(tfs_erfinv_from_p, 0.5f * x + 0.5f),
             tfs_erfinv_from_p(0.5 * x + 0.5))
EW_UN_FLOATS(i0e, VIA_D(tfs_bessel_i0e, x), tfs_bessel_i0e(x))
EW_UN_FLOATS(i1e, VIA_D(tfs_bessel_i1e, x), tfs_bessel_i1e(x))
EW_UN_FLOATS(i0, VIA_D(tfs_bessel_i0, x), tfs_bessel_i0(x))
EW_UN_FLOATS(i1, VIA_D(tfs_bessel_i1, x), tfs_bessel_i1(x))

#define UTABLE(NAME, OP, COST) \
  static const tfs_un_table NAME = {{EW_FLOAT_ENTRIES(OP)}, "", COST, 0};
UTABLE(kLgamma, lgamma, 40)
UTABLE(kDigamma, digamma, 40)
UTABLE(kNdtri, ndtri, 80)
UTABLE(kErfinv, erfinv, 80)
UTABLE(kI0e, i0e, 60)
UTABLE(kI1e, i1e, 60)
UTABLE(kI0, i0, 60)
UTABLE(kI1, i1, 60)

/* ---- binary ------------------------------------------------------------ */

#define VIA_D2(FN, x, y) ((float)FN((double)(x), (double)(y)))
#define BIN_F32_F64(OP, FN)                                                \
  EW_BIN(OP##_f32, float, VIA_D2(FN, x, y))                                \
  EW_BIN(OP##_f64, double, FN(x, y))
BIN_F32_F64(igamma, tfs_igamma)
BIN_F32_F64(igammac, tfs_igammac)
BIN_F32_F64(zeta, tfs_zeta)
BIN_F32_F64(polygamma, tfs_polygamma)

#define BTABLE(NAME, OP, COST)                                             \
  static const tfs_bin_table NAME = {                                      \
      {[TFS_FLOAT] = OP##_f32, [TFS_DOUBLE] = OP##_f64}, "", COST, 0};
BTABLE(kIgamma, igamma, 200)
BTABLE(kIgammac, igammac, 200)
BTABLE(kZeta, zeta, 200)
BTABLE(kPolygamma, polygamma, 200)

/* ---- Betainc ------------------------------------------------------------- */

typedef struct {
  const tfs_tensor *in[3];
  int64_t step[3]; /* 0 for a scalar operand, 1 otherwise */
  void *out;
  int dbl;
} betainc_job;

static double load(const tfs_tensor *t, int dbl, int64_t i) {
  return dbl ? ((const double *)t->data)[i] : ((const float *)t->data)[i];
}

static void betainc_range(void *arg, int64_t b, int64_t e) {
  betainc_job *j = arg;
  for (int64_t i = b; i < e; i++) {
    double r = tfs_betainc(load(j->in[0], j->dbl, i * j->step[0]),
                           load(j->in[1], j->dbl, i * j->step[1]),
                           load(j->in[2], j->dbl, i * j->step[2]));
    if (j->dbl)
      ((double *)j->out)[i] = r;
    else
      ((float *)j->out)[i] = (float)r;
  }
}

/* TensorFlow's BetaincOp: each of a, b, x is a scalar or has the shape
 * of the others that are not. */
static void betainc_compute(tfs_kernel_ctx *c) {
  static const char *const kNames[3] = {"a", "b", "x"};
  const tfs_tensor *const *in = (const tfs_tensor *const *)c->inputs;
  const tfs_shape *merged = NULL;
  int mi = 0;
  for (int i = 0; i < 3; i++) {
    if (in[i]->shape.rank == 0) continue;
    if (!merged) {
      merged = &in[i]->shape;
      mi = i;
      continue;
    }
    if (!tfs_shape_equal(merged, &in[i]->shape)) {
      char s1[TFS_SHAPE_STRLEN], s2[TFS_SHAPE_STRLEN];
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Shapes of %s and %s are inconsistent: %s vs. %s",
                    kNames[mi], kNames[i],
                    tfs_shape_str(merged, s1, sizeof s1),
                    tfs_shape_str(&in[i]->shape, s2, sizeof s2));
      return;
    }
  }
  tfs_shape scalar = {0};
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, merged ? merged : &scalar);
  if (!o) return;
  betainc_job j = {{in[0], in[1], in[2]}, {0, 0, 0}, o->data,
                   in[0]->dtype == TFS_DOUBLE};
  for (int i = 0; i < 3; i++) j.step[i] = in[i]->shape.rank == 0 ? 0 : 1;
  tfs_kctx_parallel_for(c, o->nelems, 400, betainc_range, &j);
}

/* the dtypes of TensorFlow 2.21's CPU kernels (the ops also declare
 * bfloat16, and half for Erfinv and Ndtri, without a CPU kernel) */
#define F_D (TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE))
#define F_D_H (F_D | TFS_DT_BIT(TFS_HALF))
#define UN(OP, TYPES, TABLE)                                    \
  {OP, "CPU", "T", TYPES, tfs_unary_prepare, tfs_unary_compute, \
   free, 0, &TABLE}
#define BIN(OP, TABLE)                                               \
  {OP, "CPU", "T", F_D, tfs_binary_prepare, tfs_binary_compute, free, \
   0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_special_math[] = {
    UN("Lgamma", F_D_H, kLgamma),
    UN("Digamma", F_D_H, kDigamma),
    UN("Erfinv", F_D, kErfinv),
    UN("Ndtri", F_D, kNdtri),
    UN("BesselI0e", F_D_H, kI0e),
    UN("BesselI1e", F_D_H, kI1e),
    UN("BesselI0", F_D_H, kI0),
    UN("BesselI1", F_D_H, kI1),
    BIN("Igamma", kIgamma),
    BIN("Igammac", kIgammac),
    BIN("Zeta", kZeta),
    BIN("Polygamma", kPolygamma),
    {"Betainc", "CPU", "T", F_D, NULL, betainc_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * gradients/grad_math.c - gradients of the element-wise math ops, as
 * TensorFlow defines them (cc/gradients/math_grad.cc and
 * python/ops/math_grad.py): unary functions, broadcasting binary ops,
 * Cast, Select, AddN, ClipByValue, complex parts, and the ops registered
 * as having no gradient.
 *
 * Conventions: x = input 0, y = output 0, g = dy[0].  Complex inputs get
 * the conjugates TensorFlow applies (g * conj(f'(x))).
 */
#include <math.h>
#include <string.h>

#include "gradients/grad_internal.h"

#define IN(k) tfs_gb_in(op, (k))
#define OUT(k) tfs_gb_out(op, (k))
#define MUL(a, b) tfs_gb_binary(c, "Mul", (a), (b))
#define ADD(a, b) tfs_gb_binary(c, "AddV2", (a), (b))
#define SUB(a, b) tfs_gb_binary(c, "Sub", (a), (b))
#define DIV(a, b) tfs_gb_binary(c, "RealDiv", (a), (b))
#define UN(t, a) tfs_gb_unary(c, (t), (a))
#define K(x, v) tfs_gb_scalar(c, tfs_gb_dtype(x), (v))

/* g * conj(d): the chain rule for a unary op with derivative d. */
static tfs_output chain(tfs_gctx *c, tfs_output g, tfs_output d) {
  return MUL(g, tfs_gb_conj(c, d));
}

/* ---- unary ------------------------------------------------------------- */

static void g_abs(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  dx[0] = MUL(dy[0], UN("Sign", IN(0)));
}

static void g_neg(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  (void)op;
  dx[0] = UN("Neg", dy[0]);
}

/* Ops whose TensorFlow gradient is a fused <Op>Grad(y, g) kernel. */
static void g_fused_y(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx, const char *grad_op) {
  dx[0] = tfs_gb_binary(c, grad_op, OUT(0), dy[0]);
}
#define FUSED_Y(fn, name)                                                   \
  static void fn(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,     \
                 tfs_output *dx) {                                          \
    g_fused_y(c, op, dy, dx, name);                                         \
  }
FUSED_Y(g_reciprocal, "ReciprocalGrad")
FUSED_Y(g_sqrt, "SqrtGrad")
FUSED_Y(g_rsqrt, "RsqrtGrad")
FUSED_Y(g_tanh, "TanhGrad")
FUSED_Y(g_sigmoid, "SigmoidGrad")

static void g_square(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  dx[0] = chain(c, dy[0], MUL(K(IN(0), 2.0), IN(0)));
}

static void g_exp(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  dx[0] = chain(c, dy[0], OUT(0));
}

static void g_expm1(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Exp", IN(0)));
}

static void g_log(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Reciprocal", IN(0)));
}

static void g_log1p(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Reciprocal", ADD(K(IN(0), 1.0), IN(0))));
}

static void g_sinh(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Cosh", IN(0)));
}

static void g_cosh(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Sinh", IN(0)));
}

static void g_sin(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Cos", IN(0)));
}

static void g_cos(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  dx[0] = UN("Neg", chain(c, dy[0], UN("Sin", IN(0))));
}

static void g_tan(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  tfs_output sec = UN("Reciprocal", UN("Cos", IN(0)));
  dx[0] = chain(c, dy[0], UN("Square", sec));
}

/* 1 - x^2 */
static tfs_output one_minus_sq(tfs_gctx *c, tfs_output x) {
  return SUB(K(x, 1.0), UN("Square", x));
}

static void g_asin(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Rsqrt", one_minus_sq(c, IN(0))));
}

static void g_acos(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = UN("Neg", chain(c, dy[0], UN("Rsqrt", one_minus_sq(c, IN(0)))));
}

static void g_atan(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_output d = ADD(K(IN(0), 1.0), UN("Square", IN(0)));
  dx[0] = chain(c, dy[0], UN("Reciprocal", d));
}

static void g_asinh(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Reciprocal", UN("Cosh", OUT(0))));
}

static void g_acosh(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Reciprocal", UN("Sinh", OUT(0))));
}

static void g_atanh(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  dx[0] = chain(c, dy[0], UN("Reciprocal", one_minus_sq(c, IN(0))));
}

static void g_sign(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  (void)dy;
  dx[0] = UN("ZerosLike", IN(0));
}

/* erf'(x) = 2/sqrt(pi) exp(-x^2) */
static void g_erf(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  tfs_output e = UN("Exp", UN("Neg", UN("Square", IN(0))));
  dx[0] = MUL(dy[0], MUL(K(IN(0), 2.0 / sqrt(M_PI)), e));
}

static void g_erfc(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_output e = UN("Exp", UN("Neg", UN("Square", IN(0))));
  dx[0] = MUL(dy[0], MUL(K(IN(0), -2.0 / sqrt(M_PI)), e));
}

/* erfinv'(x) = sqrt(pi)/2 exp(erfinv(x)^2) */
static void g_erfinv(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  tfs_output e = UN("Exp", UN("Square", OUT(0)));
  dx[0] = MUL(dy[0], MUL(K(IN(0), sqrt(M_PI) / 2.0), e));
}

/* ndtri'(x) = sqrt(2 pi) exp(ndtri(x)^2 / 2) */
static void g_ndtri(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  tfs_output h = MUL(UN("Square", OUT(0)), K(IN(0), 0.5));
  dx[0] = MUL(dy[0], MUL(K(IN(0), sqrt(2.0 * M_PI)), UN("Exp", h)));
}

static void g_lgamma(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  dx[0] = MUL(dy[0], UN("Digamma", IN(0)));
}

static void g_digamma(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  tfs_output one = K(IN(0), 1.0);
  dx[0] = MUL(dy[0], tfs_gb_binary(c, "Polygamma", one, IN(0)));
}

static int is_float_or_complex(tfs_dtype t) {
  return t == TFS_FLOAT || t == TFS_DOUBLE || t == TFS_HALF ||
         t == TFS_BFLOAT16 || t == TFS_COMPLEX64 || t == TFS_COMPLEX128;
}

static void g_cast(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_dtype src = tfs_gb_dtype(IN(0)), dst = tfs_gb_dtype(OUT(0));
  if (is_float_or_complex(src) && is_float_or_complex(dst))
    dx[0] = tfs_gb_cast(c, dy[0], src);
}

static void g_identity(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                       tfs_output *dx) {
  (void)c, (void)op;
  dx[0] = dy[0];
}

static void g_identity_n(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                         tfs_output *dx) {
  (void)c;
  for (int k = 0; k < op->ninputs; k++) dx[k] = dy[k];
}

/* ---- binary ------------------------------------------------------------ */

static void g_add(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  tfs_gb_unbroadcast(c, IN(0), IN(1), dy[0], dy[0], &dx[0], &dx[1]);
}

static void g_sub(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  tfs_gb_unbroadcast(c, IN(0), IN(1), dy[0], UN("Neg", dy[0]), &dx[0],
                     &dx[1]);
}

static void g_mul(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  tfs_output gx = MUL(dy[0], tfs_gb_conj(c, IN(1)));
  tfs_output gy = MUL(tfs_gb_conj(c, IN(0)), dy[0]);
  tfs_gb_unbroadcast(c, IN(0), IN(1), gx, gy, &dx[0], &dx[1]);
}

/* z = x / y: dx = g / y, dy = g * (-x / y / y), with `div` the op's own
 * division (Div, RealDiv or DivNoNan). */
static void g_div_common(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                         tfs_output *dx, const char *div) {
  tfs_output x = tfs_gb_conj(c, IN(0)), y = tfs_gb_conj(c, IN(1));
  tfs_output gx = tfs_gb_binary(c, div, dy[0], y);
  tfs_output q = tfs_gb_binary(c, div, tfs_gb_binary(c, div, UN("Neg", x), y),
                               y);
  tfs_gb_unbroadcast(c, IN(0), IN(1), gx, MUL(dy[0], q), &dx[0], &dx[1]);
}

static void g_div(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  g_div_common(c, op, dy, dx, op->def->name);
}

static void g_squared_difference(tfs_gctx *c, tfs_operation *op,
                                 const tfs_output *dy, tfs_output *dx) {
  tfs_output d = SUB(IN(0), IN(1));
  tfs_output gx = MUL(dy[0], MUL(K(IN(0), 2.0), tfs_gb_conj(c, d)));
  tfs_gb_unbroadcast(c, IN(0), IN(1), gx, UN("Neg", gx), &dx[0], &dx[1]);
}

static tfs_output select3(tfs_gctx *c, const char *type, tfs_output cond,
                          tfs_output a, tfs_output b) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, cond);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

/* z = x^y: dx = g y x^(y-1); dy = g z log(x) where x > 0, else 0. */
static void g_pow(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                  tfs_output *dx) {
  tfs_output x = IN(0), y = IN(1), z = OUT(0);
  tfs_output ym1 = SUB(y, K(y, 1.0));
  tfs_output gx = MUL(dy[0], MUL(y, tfs_gb_binary(c, "Pow", x, ym1)));
  tfs_dtype dt = tfs_gb_dtype(x);
  tfs_output logx;
  if (dt == TFS_COMPLEX64 || dt == TFS_COMPLEX128) {
    logx = UN("Log", x);
  } else {
    tfs_output pos = tfs_gb_binary(c, "Greater", x, K(x, 0.0));
    tfs_output safe = select3(c, "SelectV2", pos, x, UN("OnesLike", x));
    logx = select3(c, "SelectV2", pos, UN("Log", safe), UN("ZerosLike", x));
  }
  tfs_output gy = MUL(dy[0], MUL(tfs_gb_conj(c, z), tfs_gb_conj(c, logx)));
  tfs_gb_unbroadcast(c, x, y, gx, gy, &dx[0], &dx[1]);
}

static void g_max_min(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx, const char *cmp) {
  tfs_output mask = tfs_gb_binary(c, cmp, IN(0), IN(1));
  tfs_output zeros = UN("ZerosLike", dy[0]);
  tfs_output gx = select3(c, "Select", mask, dy[0], zeros);
  tfs_output gy = select3(c, "Select", mask, zeros, dy[0]);
  tfs_gb_unbroadcast(c, IN(0), IN(1), gx, gy, &dx[0], &dx[1]);
}

static void g_maximum(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  g_max_min(c, op, dy, dx, "GreaterEqual");
}

static void g_minimum(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  g_max_min(c, op, dy, dx, "LessEqual");
}

/* z = atan2(y, x) with inputs (y, x): dy = g x / (x^2 + y^2),
 * dx = -g y / (x^2 + y^2). */
static void g_atan2(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                    tfs_output *dx) {
  tfs_output y = IN(0), x = IN(1);
  tfs_output inv = DIV(dy[0], ADD(UN("Square", x), UN("Square", y)));
  tfs_gb_unbroadcast(c, y, x, MUL(x, inv), MUL(UN("Neg", y), inv), &dx[0],
                     &dx[1]);
}

/* Reduces g (at the broadcast shape) to the shape of t. */
static tfs_output reduce_to(tfs_gctx *c, tfs_output t, tfs_output g) {
  tfs_output r = TFS_GRAD_NONE;
  tfs_gb_unbroadcast(c, t, g, g, TFS_GRAD_NONE, &r, NULL);
  return r;
}

static void g_select(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                     tfs_output *dx) {
  const char *type = op->def->name;
  tfs_output zeros = UN("ZerosLike", dy[0]);
  tfs_output gx = select3(c, type, IN(0), dy[0], zeros);
  tfs_output gy = select3(c, type, IN(0), zeros, dy[0]);
  if (!strcmp(type, "SelectV2")) {
    dx[1] = reduce_to(c, IN(1), gx);
    dx[2] = reduce_to(c, IN(2), gy);
  } else {
    dx[1] = gx;
    dx[2] = gy;
  }
}

static void g_addn(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  (void)c;
  for (int k = 0; k < op->ninputs; k++) dx[k] = dy[0];
}

/* ClipByValue(x, lo, hi): x's gradient where lo <= x <= hi; lo's where
 * x < lo, hi's where x > hi (python/ops/clip_ops.py). */
static void g_clip(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  tfs_output x = IN(0), g = dy[0], zeros = UN("ZerosLike", g);
  tfs_output below = tfs_gb_binary(c, "Less", x, IN(1));
  tfs_output above = tfs_gb_binary(c, "Greater", x, IN(2));
  tfs_output out = tfs_gb_binary(c, "LogicalOr", below, above);
  dx[0] = reduce_to(c, x, select3(c, "SelectV2", out, zeros, g));
  dx[1] = reduce_to(c, IN(1), select3(c, "SelectV2", below, g, zeros));
  dx[2] = reduce_to(c, IN(2), select3(c, "SelectV2", above, g, zeros));
}

/* ---- complex parts ----------------------------------------------------- */

static tfs_output complex_of(tfs_gctx *c, tfs_operation *op, tfs_output re,
                             tfs_output im) {
  tfs_op_desc *d = tfs_gb_desc(c, "Complex");
  tfs_op_desc_add_input(d, re);
  tfs_op_desc_add_input(d, im);
  tfs_op_desc_set_attr_type(d, "Tout", tfs_gb_dtype(IN(0)));
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_real(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = complex_of(c, op, dy[0], UN("ZerosLike", dy[0]));
}

static void g_imag(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  dx[0] = complex_of(c, op, UN("ZerosLike", dy[0]), dy[0]);
}

/* Real(z) or Imag(z) as a real tensor of type `to`. */
static tfs_output part_of(tfs_gctx *c, const char *type, tfs_output z,
                          tfs_dtype to) {
  tfs_op_desc *d = tfs_gb_desc(c, type);
  tfs_op_desc_add_input(d, z);
  tfs_op_desc_set_attr_type(d, "Tout", to);
  return tfs_gb_out(tfs_gb_finish(c, d), 0);
}

static void g_complex(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                      tfs_output *dx) {
  tfs_dtype rt = tfs_gb_dtype(IN(0));
  tfs_output re = part_of(c, "Real", dy[0], rt);
  tfs_output im = part_of(c, "Imag", dy[0], rt);
  tfs_gb_unbroadcast(c, IN(0), IN(1), re, im, &dx[0], &dx[1]);
}

static void g_conj(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                   tfs_output *dx) {
  (void)op;
  dx[0] = tfs_gb_conj(c, dy[0]);
}

/* |z|' : g * z / |z| (python/ops/math_grad.py _ComplexAbsGrad) */
static void g_complex_abs(tfs_gctx *c, tfs_operation *op, const tfs_output *dy,
                          tfs_output *dx) {
  tfs_output gz = complex_of(c, op, dy[0], UN("ZerosLike", dy[0]));
  tfs_output az = complex_of(c, op, OUT(0), UN("ZerosLike", OUT(0)));
  tfs_output q = tfs_gb_binary(c, "DivNoNan", IN(0), az);
  dx[0] = MUL(gz, q);
}

static const tfs_grad_entry k_math[] = {
    {"Abs", g_abs},
    {"Acos", g_acos},
    {"Acosh", g_acosh},
    {"Add", g_add},
    {"AddN", g_addn},
    {"AddV2", g_add},
    {"ApproximateEqual", NULL},
    {"ArgMax", NULL},
    {"ArgMin", NULL},
    {"Asin", g_asin},
    {"Asinh", g_asinh},
    {"Atan", g_atan},
    {"Atan2", g_atan2},
    {"Atanh", g_atanh},
    {"Cast", g_cast},
    {"Ceil", NULL},
    {"CheckNumerics", g_identity},
    {"ClipByValue", g_clip},
    {"Complex", g_complex},
    {"ComplexAbs", g_complex_abs},
    {"Conj", g_conj},
    {"Cos", g_cos},
    {"Cosh", g_cosh},
    {"Digamma", g_digamma},
    {"Div", g_div},
    {"DivNoNan", g_div},
    {"Equal", NULL},
    {"Erf", g_erf},
    {"Erfc", g_erfc},
    {"Erfinv", g_erfinv},
    {"Exp", g_exp},
    {"Expm1", g_expm1},
    {"Floor", NULL},
    {"FloorDiv", NULL},
    {"Greater", NULL},
    {"GreaterEqual", NULL},
    {"Identity", g_identity},
    {"IdentityN", g_identity_n},
    {"Imag", g_imag},
    {"Inv", g_reciprocal},
    {"IsFinite", NULL},
    {"IsInf", NULL},
    {"IsNan", NULL},
    {"Less", NULL},
    {"LessEqual", NULL},
    {"Lgamma", g_lgamma},
    {"Log", g_log},
    {"Log1p", g_log1p},
    {"LogicalAnd", NULL},
    {"LogicalNot", NULL},
    {"LogicalOr", NULL},
    {"Maximum", g_maximum},
    {"Minimum", g_minimum},
    {"Mul", g_mul},
    {"Ndtri", g_ndtri},
    {"Neg", g_neg},
    {"NotEqual", NULL},
    {"Pow", g_pow},
    {"Real", g_real},
    {"RealDiv", g_div},
    {"Reciprocal", g_reciprocal},
    {"Rint", NULL},
    {"Round", NULL},
    {"Rsqrt", g_rsqrt},
    {"Select", g_select},
    {"SelectV2", g_select},
    {"Sigmoid", g_sigmoid},
    {"Sign", g_sign},
    {"Sin", g_sin},
    {"Sinh", g_sinh},
    {"Snapshot", g_identity},
    {"Sqrt", g_sqrt},
    {"Square", g_square},
    {"SquaredDifference", g_squared_difference},
    {"Sub", g_sub},
    {"Tan", g_tan},
    {"Tanh", g_tanh},
    {"TruncateDiv", NULL},
};

const tfs_grad_entry *tfs_grad__math_table(int *n) {
  *n = (int)(sizeof k_math / sizeof k_math[0]);
  return k_math;
}

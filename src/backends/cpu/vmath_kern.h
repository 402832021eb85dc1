/*
 * backends/cpu/vmath_kern.h - the float32 approximations of vmath.h,
 * written once over a small vector-operation layer and compiled three
 * times: AVX-512 (vmath_avx512.c), AVX2 + FMA (vmath_avx2.c) and portable
 * C on one float at a time (vmath.c).  The including file defines the
 * types vf (floats), vi (32-bit integers), vm (lane mask), VM_FN (the
 * storage class and target of every function here) and the v_* operations
 * listed below; every path then computes the same formulas with the same
 * constants, and differs only where the portable path rounds a*b+c twice.
 *
 *   v_set v_seti          broadcast a float / an int
 *   v_add v_sub v_mul v_div v_fma(a, b, c) = a*b + c
 *   v_min v_max           x86 semantics: when either is NaN, the second
 *   v_abs v_sign(a)       |a|; a's sign bit alone
 *   v_or(a, b)            bitwise or of floats
 *   v_lt v_ge v_eq v_nan(a)   comparisons -> vm
 *   v_sel(m, a, b)        m ? a : b per lane
 *   v_asi v_asf           reinterpret float <-> int bits
 *   v_iadd v_isub v_iand v_imin v_sll v_sra v_i2f
 *   v_scale(y, nf, ni)    y * 2^n, n (as float and as int) in [-150, 128],
 *                         rounded once
 *   v_pow2(ni)            2^n for n in [-126, 127]
 */

/* ---- constants ------------------------------------------------------------
 * Range reduction for exp: x = n ln2 + r, |r| <= ln2/2 (Cody and Waite).
 * VM_LN2_HI has 10 significant bits, so n * VM_LN2_HI is exact for
 * |n| <= 2^14 and x - n * VM_LN2_HI is exact near n ln2. */
#define VM_LOG2E 0x1.715476p+0f
#define VM_LN2_HI 0x1.63p-1f
#define VM_LN2_LO -0x1.bd0106p-13f
/* 1.5 * 2^23: adding it rounds a float of magnitude < 2^22 to an integer
 * held in the low mantissa bits */
#define VM_SHIFT 0x1.8p+23f
#define VM_SHIFT_BITS 0x4b400000
/* bits of sqrt(1/2): log reduces the mantissa to [sqrt(1/2), sqrt(2)) */
#define VM_SQRTH_BITS 0x3f3504f3

/* expm1(r) = r + r^2 Q(r) on [-0.347, 0.347]: minimax on relative error,
 * 2.6e-10 before rounding the coefficients to float */
#define VM_E0 0x1p-1f
#define VM_E1 0x1.555554p-3f
#define VM_E2 0x1.5554aap-5f
#define VM_E3 0x1.11118ep-7f
#define VM_E4 0x1.6d78d8p-10f
#define VM_E5 0x1.a03324p-13f

/* log1p(f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1]:
 * minimax on relative error, 6.0e-9 */
#define VM_L0 0x1.555554p-2f
#define VM_L1 -0x1.000232p-2f
#define VM_L2 0x1.99a06p-3f
#define VM_L3 -0x1.546f2ap-3f
#define VM_L4 0x1.22cf52p-3f
#define VM_L5 -0x1.0d9a3cp-3f
#define VM_L6 0x1.05b73cp-3f
#define VM_L7 -0x1.392fp-4f

/* tanh(x) = x + x^3 P(x^2) for |x| < 0.625: minimax, 4.4e-9 */
#define VM_TANH_SMALL 0.625f
#define VM_T0 -0x1.555532p-2f
#define VM_T1 0x1.110726p-3f
#define VM_T2 -0x1.b83c5cp-5f
#define VM_T3 0x1.5226a4p-6f
#define VM_T4 -0x1.75e1f6p-8f

/* erf(x) = x + x P(x^2) for |x| < 0.875: minimax on relative error,
 * 2.0e-10 */
#define VM_ERF_SMALL 0.875f
#define VM_R0 0x1.06eba8p-3f
#define VM_R1 -0x1.812744p-2f
#define VM_R2 0x1.ce2e84p-4f
#define VM_R3 -0x1.b819a6p-6f
#define VM_R4 0x1.553ab6p-8f
#define VM_R5 -0x1.ae7f74p-11f
#define VM_R6 0x1.6bdeep-14f

/* erfc(z) = exp(-z^2) t P(t), t = 2 / (2 + z), for z in [0.5, 10.3]
 * (exp(z^2) erfc(z) is smooth in t): minimax on relative error, 9.0e-9.
 * erfc(z) is below half the smallest subnormal beyond VM_ERFC_MAX. */
#define VM_ERFC_SMALL 0.5f
#define VM_ERFC_MAX 10.25f
#define VM_C0 0x1.20d8c6p-2f
#define VM_C1 0x1.2158a8p-2f
#define VM_C2 0x1.eeb41cp-3f
#define VM_C3 0x1.acf98cp-3f
#define VM_C4 -0x1.67cdb4p-5f
#define VM_C5 0x1.37b806p-2f
#define VM_C6 -0x1.055844p-1f
#define VM_C7 0x1.2e5dfap-2f
#define VM_C8 -0x1.f388b2p-5f

/* gelu_tanh: x sigmoid(x (G1 + G2 x^2)), G1 = 2 sqrt(2/pi), G2 = G1 *
 * 0.044715 (the same function as 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
 * x^3)))) */
#define VM_G1 0x1.988454p+0f
#define VM_G2 0x1.2444f2p-4f
#define VM_RSQRT2 0x1.6a09e6p-1f

#define VM_H(p, x, c) v_fma(p, x, v_set(c))

/* ---- exp and expm1 ------------------------------------------------------- */

VM_FN vf vk_expm1_poly(vf r) {
  vf q = VM_H(v_set(VM_E5), r, VM_E4);
  q = VM_H(q, r, VM_E3);
  q = VM_H(q, r, VM_E2);
  q = VM_H(q, r, VM_E1);
  q = VM_H(q, r, VM_E0);
  return v_fma(v_mul(r, r), q, r);
}

/* r = x - n ln2 for a clamped x; sets n as float and int */
VM_FN vf vk_exp_reduce(vf x, vf *nf, vi *ni) {
  vf k = v_fma(x, v_set(VM_LOG2E), v_set(VM_SHIFT));
  *nf = v_sub(k, v_set(VM_SHIFT));
  *ni = v_isub(v_asi(k), v_seti(VM_SHIFT_BITS));
  vf r = v_fma(*nf, v_set(-VM_LN2_HI), x);
  return v_fma(*nf, v_set(-VM_LN2_LO), r);
}

/* exp(x + lo) for |lo| <= 2^-10 (the low part of an argument held as two
 * floats); x is clamped to [-104, 89], beyond which exp rounds to 0 or
 * overflows, and NaN passes through the clamp. */
VM_FN vf vk_exp2(vf x, vf lo) {
  x = v_max(v_set(-104.0f), v_min(v_set(89.0f), x));
  vf nf;
  vi ni;
  vf r = v_add(vk_exp_reduce(x, &nf, &ni), lo);
  return v_scale(v_add(vk_expm1_poly(r), v_set(1.0f)), nf, ni);
}

/* exp(x) for |x| <= VM_EXP_NORMAL or NaN (tanh's argument): vk_exp's
 * steps and values without its clamp and its zero low part (r + 0
 * differs from r only at r = -0, where the polynomial gives +0 either
 * way).  y 2^n is normal there, so one product by 2^n rounds as v_scale
 * does (AVX2's v_scale takes two). */
#define VM_EXP_NORMAL 86.0f
VM_FN vf vk_exp_normal(vf x) {
  vf nf;
  vi ni;
  vf y = v_add(vk_expm1_poly(vk_exp_reduce(x, &nf, &ni)), v_set(1.0f));
  return v_mul(y, v_pow2(ni));
}

/* exp(x) for x <= 0 or NaN, the same values as vk_exp */
VM_FN vf vk_exp_neg(vf x) {
  x = v_max(v_set(-104.0f), x);
  vf nf;
  vi ni;
  vf y = v_add(vk_expm1_poly(vk_exp_reduce(x, &nf, &ni)), v_set(1.0f));
  return v_scale(y, nf, ni);
}

VM_FN vf vk_exp(vf x) { return vk_exp2(x, v_set(0.0f)); }

/* expm1(x) = 2 (t p + (t - 1/2)), t = 2^(n-1), p = expm1(r): the halved
 * form keeps 2^n representable up to n = 128. */
VM_FN vf vk_expm1(vf x) {
  vf xc = v_max(v_set(-25.0f), v_min(v_set(89.0f), x));
  vf k = v_fma(xc, v_set(VM_LOG2E), v_set(VM_SHIFT));
  vf nf = v_sub(k, v_set(VM_SHIFT));
  vi ni = v_isub(v_asi(k), v_seti(VM_SHIFT_BITS + 1));
  vf r = v_fma(nf, v_set(-VM_LN2_HI), xc);
  r = v_fma(nf, v_set(-VM_LN2_LO), r);
  vf t = v_pow2(ni);
  vf y = v_fma(t, vk_expm1_poly(r), v_sub(t, v_set(0.5f)));
  y = v_add(y, y);
  /* |x| < 2^-25: expm1(x) rounds to x (this also keeps -0 and
   * subnormals exact) */
  return v_sel(v_lt(v_abs(x), v_set(0x1p-25f)), x, y);
}

/* ---- log and log1p ------------------------------------------------------- */

/* e ln2 + log1p(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] */
VM_FN vf vk_log_core(vf f, vf ef) {
  vf p = VM_H(v_set(VM_L7), f, VM_L6);
  p = VM_H(p, f, VM_L5);
  p = VM_H(p, f, VM_L4);
  p = VM_H(p, f, VM_L3);
  p = VM_H(p, f, VM_L2);
  p = VM_H(p, f, VM_L1);
  p = VM_H(p, f, VM_L0);
  vf f2 = v_mul(f, f);
  vf lo = v_fma(ef, v_set(VM_LN2_LO), v_mul(v_mul(f2, f), p));
  vf hf = v_mul(v_set(0.5f), f2);
  return v_fma(ef, v_set(VM_LN2_HI), v_add(f, v_sub(lo, hf)));
}

/* Splits positive x (normal) into 2^e m, m in [sqrt(1/2), sqrt(2)):
 * returns m - 1 (exact) and sets *e. */
VM_FN vf vk_log_split(vf x, vi *e) {
  vi ix = v_isub(v_asi(x), v_seti(VM_SQRTH_BITS));
  *e = v_sra(ix, 23);
  vf m = v_asf(v_iadd(v_iand(ix, v_seti(0x7fffff)), v_seti(VM_SQRTH_BITS)));
  return v_sub(m, v_set(1.0f));
}

VM_FN vf vk_log(vf x) {
  vm sub = v_lt(x, v_set(0x1p-126f)); /* subnormal: scale by 2^23 */
  vf xs = v_sel(sub, v_mul(x, v_set(0x1p23f)), x);
  vi e;
  vf f = vk_log_split(xs, &e);
  vf ef = v_sub(v_i2f(e), v_sel(sub, v_set(23.0f), v_set(0.0f)));
  vf y = vk_log_core(f, ef);
  y = v_sel(v_eq(x, v_set(INFINITY)), x, y);
  y = v_sel(v_eq(x, v_set(0.0f)), v_set(-INFINITY), y);
  y = v_sel(v_lt(x, v_set(0.0f)), v_set(NAN), y);
  return v_sel(v_nan(x), v_add(x, x), y);
}

/* log1p(x) = log(u) + c/u, u = 1 + x rounded and c = (1 + x) - u exact
 * (TwoSum); c/u enters as a correction of f, so that for u near 1
 * f + c = x exactly. */
VM_FN vf vk_log1p(vf x) {
  vf one = v_set(1.0f);
  vf u = v_add(x, one);
  vf bb = v_sub(u, one);
  vf c = v_add(v_sub(one, v_sub(u, bb)), v_sub(x, bb));
  vi e;
  vf f = vk_log_split(u, &e);
  vi ec = v_imin(e, v_seti(126));
  vf scale = v_pow2(v_isub(v_seti(0), ec));
  f = v_fma(c, scale, f);
  vf y = vk_log_core(f, v_i2f(e));
  y = v_sel(v_eq(x, v_set(INFINITY)), x, y);
  y = v_sel(v_eq(x, v_set(-1.0f)), v_set(-INFINITY), y);
  y = v_sel(v_lt(x, v_set(-1.0f)), v_set(NAN), y);
  y = v_sel(v_eq(x, v_set(0.0f)), x, y);
  return v_sel(v_nan(x), v_add(x, x), y);
}

/* ---- tanh, sigmoid, swish ------------------------------------------------ */

/* |x| < 0.625: odd polynomial; else 1 - 2 / (exp(2|x|) + 1) with x's sign
 * (rounds to 1 beyond 9.01; the clamp at 10 keeps exp finite) */
VM_FN vf vk_tanh(vf x) {
  vf ax = v_abs(x);
  vf x2 = v_mul(x, x);
  vf p = VM_H(v_set(VM_T4), x2, VM_T3);
  p = VM_H(p, x2, VM_T2);
  p = VM_H(p, x2, VM_T1);
  p = VM_H(p, x2, VM_T0);
  vf ys = v_fma(v_mul(x, x2), p, x);
  vf a = v_min(v_set(10.0f), ax);
  vf e = vk_exp_normal(v_add(a, a)); /* 2a in [0, 20] or NaN */
  vf yl = v_sub(v_set(1.0f), v_div(v_set(2.0f), v_add(e, v_set(1.0f))));
  /* both have x's sign, except ys at x = -0 */
  vf y = v_sel(v_lt(ax, v_set(VM_TANH_SMALL)), ys, yl);
  return v_or(y, v_sign(x));
}

/* e^x for |x| <= VM_EXP_NORMAL (not NaN): vk_exp_normal's value, its
 * 2^n added to y's exponent instead of multiplied (y 2^n is normal, so
 * the product is exact); k's bits shifted left by 23 are n's, VM_SHIFT's
 * low nine bits being zero.  Any other x gives garbage. */
VM_FN vf vk_exp_mid(vf x) {
  vf k = v_fma(x, v_set(VM_LOG2E), v_set(VM_SHIFT));
  vf nf = v_sub(k, v_set(VM_SHIFT));
  vf r = v_fma(nf, v_set(-VM_LN2_HI), x);
  r = v_fma(nf, v_set(-VM_LN2_LO), r);
  vf y = v_add(vk_expm1_poly(r), v_set(1.0f));
  return v_asf(v_iadd(v_asi(y), v_sll(v_asi(k), 23)));
}

/* Sigmoid for |x| <= VM_EXP_NORMAL: 1 / (1 + e^-x), e^-x at most 2^124
 * (fewer operations than the two-sided form below: swish 0.51 -> 0.42 ns
 * a float on one Zen 3 core, the same error bound).  Garbage elsewhere. */
VM_FN vf vk_sigmoid_mid(vf x) {
  vf t = vk_exp_mid(v_sub(v_set(0.0f), x));
  return v_div(v_set(1.0f), v_add(v_set(1.0f), t));
}

/* Beyond: 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below, so exp never
 * overflows and the result saturates to 0 and 1; NaN stays NaN. */
VM_FN vf vk_sigmoid_far(vf x) {
  vf t = vk_exp_neg(v_or(x, v_set(-0.0f))); /* e^-|x| */
  vf num = v_sel(v_ge(x, v_set(0.0f)), v_set(1.0f), t);
  return v_div(num, v_add(v_set(1.0f), t));
}

/* `normal` (a constant): the caller knows |x| <= VM_EXP_NORMAL in every
 * lane; else each lane takes the form for its value. */
VM_FN vf vk_sigmoid_n(vf x, int normal) {
  if (normal) return vk_sigmoid_mid(x);
  return v_sel(v_ge(v_set(VM_EXP_NORMAL), v_abs(x)), vk_sigmoid_mid(x),
               vk_sigmoid_far(x));
}
VM_FN vf vk_sigmoid(vf x) { return vk_sigmoid_n(x, 0); }

/* Swish for |x| <= VM_EXP_NORMAL: x / (1 + e^-x), one division where
 * x * sigmoid(x) took a division and a product (4096 floats in cache on
 * one core of an AVX-512 Xeon: 0.240 -> 0.223 ns a float, AVX2 0.287 ->
 * 0.267; largest error 2.51 -> 2.24 ulps).  Garbage elsewhere. */
VM_FN vf vk_swish_mid(vf x) {
  vf t = vk_exp_mid(v_sub(v_set(0.0f), x));
  return v_div(x, v_add(v_set(1.0f), t));
}

/* Every lane within VM_EXP_NORMAL takes vk_swish_mid, whatever its
 * neighbours are; beyond, x * vk_sigmoid_far(x). */
VM_FN vf vk_swish_n(vf x, int normal) {
  if (normal) return vk_swish_mid(x);
  return v_sel(v_ge(v_set(VM_EXP_NORMAL), v_abs(x)), vk_swish_mid(x),
               v_mul(x, vk_sigmoid_far(x)));
}
VM_FN vf vk_swish(vf x) { return vk_swish_n(x, 0); }

VM_FN vf vk_elu(vf x) {
  return v_sel(v_lt(x, v_set(0.0f)), vk_expm1(x), x);
}

/* ---- erf, erfc and GELU -------------------------------------------------- */

/* x + x P(x^2), erf for |x| < 0.875 (P small, so one rounding counts) */
VM_FN vf vk_erf_small(vf x) {
  vf x2 = v_mul(x, x);
  vf p = VM_H(v_set(VM_R6), x2, VM_R5);
  p = VM_H(p, x2, VM_R4);
  p = VM_H(p, x2, VM_R3);
  p = VM_H(p, x2, VM_R2);
  p = VM_H(p, x2, VM_R1);
  p = VM_H(p, x2, VM_R0);
  return v_fma(x, p, x);
}

/* a^2 = *hi + *lo for 0 <= a < 2^63: a's upper 12 significant bits
 * squared are exact, the rest is a^2 - ah^2 = (a - ah)(a + ah) */
VM_FN void vk_square2(vf a, vf *hi, vf *lo) {
  vf ah = v_asf(v_iand(v_asi(a), v_seti((int32_t)0xfffff000u)));
  *hi = v_mul(ah, ah);
  *lo = v_mul(v_sub(a, ah), v_add(a, ah));
}

/* erfc(z) for z in [0.5, VM_ERFC_MAX] from z and z^2 = hi + lo */
VM_FN vf vk_erfc_big(vf z, vf hi, vf lo) {
  vf t = v_div(v_set(2.0f), v_add(v_set(2.0f), z));
  vf p = VM_H(v_set(VM_C8), t, VM_C7);
  p = VM_H(p, t, VM_C6);
  p = VM_H(p, t, VM_C5);
  p = VM_H(p, t, VM_C4);
  p = VM_H(p, t, VM_C3);
  p = VM_H(p, t, VM_C2);
  p = VM_H(p, t, VM_C1);
  p = VM_H(p, t, VM_C0);
  vf e = vk_exp2(v_sub(v_set(0.0f), hi), v_sub(v_set(0.0f), lo));
  return v_mul(e, v_mul(t, p));
}

VM_FN vf vk_erf(vf x) {
  vf a = v_min(v_set(4.0f), v_abs(x)); /* erf rounds to 1 beyond 3.92 */
  vf hi, lo;
  vk_square2(a, &hi, &lo);
  vf yb = v_sub(v_set(1.0f), vk_erfc_big(a, hi, lo));
  yb = v_or(yb, v_sign(x));
  return v_sel(v_lt(v_abs(x), v_set(VM_ERF_SMALL)), vk_erf_small(x), yb);
}

VM_FN vf vk_erfc(vf x) {
  vf a = v_min(v_set(VM_ERFC_MAX), v_abs(x));
  vf hi, lo;
  vk_square2(a, &hi, &lo);
  vf e = vk_erfc_big(a, hi, lo);
  vf yb = v_sel(v_lt(x, v_set(0.0f)), v_sub(v_set(2.0f), e), e);
  vf ys = v_sub(v_set(1.0f), vk_erf_small(x));
  return v_sel(v_lt(v_abs(x), v_set(VM_ERFC_SMALL)), ys, yb);
}

/* 0.5 x erfc(-x / sqrt(2)); (x/sqrt(2))^2 is taken as x^2 / 2 from the
 * exact square of x, so the result keeps its relative accuracy far into
 * the negative tail */
VM_FN vf vk_gelu_erf(vf x) {
  /* beyond 14.5 the result rounds to x (above) or -0 (below); NaN
   * passes the clamp */
  vf xa = v_min(v_set(14.5f), v_abs(x));
  vf hi, lo;
  vk_square2(xa, &hi, &lo);
  vf e = vk_erfc_big(v_mul(xa, v_set(VM_RSQRT2)), v_mul(hi, v_set(0.5f)),
                     v_mul(lo, v_set(0.5f)));
  e = v_sel(v_lt(x, v_set(0.0f)), e, v_sub(v_set(2.0f), e));
  vf w = v_mul(x, v_set(VM_RSQRT2));
  vf es = v_add(v_set(1.0f), vk_erf_small(w));
  e = v_sel(v_lt(v_abs(w), v_set(VM_ERFC_SMALL)), es, e);
  return v_mul(v_mul(x, v_set(0.5f)), e);
}

/* `normal`: |x| <= VM_GELU_TANH_NORMAL, so |w| <= 66 < VM_EXP_NORMAL */
#define VM_GELU_TANH_NORMAL 9.0f
VM_FN vf vk_gelu_tanh_n(vf x, int normal) {
  vf w = v_mul(x, v_fma(v_mul(x, x), v_set(VM_G2), v_set(VM_G1)));
  return v_mul(x, vk_sigmoid_n(w, normal));
}
VM_FN vf vk_gelu_tanh(vf x) { return vk_gelu_tanh_n(x, 0); }

/* ---- the vector loops' list ---------------------------------------------
 * LOOP(NAME, FAST, BOUND) for each function: FAST(a) is the form a
 * vector (or block) whose every |x| is within BOUND may take alone, the
 * one each lane of vk_NAME takes within it (vk_sigmoid_mid's callers);
 * BOUND 0: none.  The AVX2 and AVX-512 files expand it with their loop. */
#define VM_NONE(a) (a)
#define VM_SIGMOID_1(a) vk_sigmoid_n(a, 1)
#define VM_SWISH_1(a) vk_swish_n(a, 1)
#define VM_GELU_TANH_1(a) vk_gelu_tanh_n(a, 1)
#define VM_LOOPS(LOOP)                                   \
  LOOP(exp, VM_NONE, 0.0f)                               \
  LOOP(expm1, VM_NONE, 0.0f)                             \
  LOOP(log, VM_NONE, 0.0f)                               \
  LOOP(log1p, VM_NONE, 0.0f)                             \
  LOOP(tanh, VM_NONE, 0.0f)                              \
  LOOP(sigmoid, VM_SIGMOID_1, VM_EXP_NORMAL)             \
  LOOP(erf, VM_NONE, 0.0f)                               \
  LOOP(erfc, VM_NONE, 0.0f)                              \
  LOOP(swish, VM_SWISH_1, VM_EXP_NORMAL)                 \
  LOOP(gelu_tanh, VM_GELU_TANH_1, VM_GELU_TANH_NORMAL)   \
  LOOP(gelu_erf, VM_NONE, 0.0f)                          \
  LOOP(elu, VM_NONE, 0.0f)

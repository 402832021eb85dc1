/*
 * backends/cpu/vmath.c - vmath.h's dispatch (AVX-512, AVX2 + FMA or the
 * portable path, asked of tfs_cpu_has at every call), the portable path
 * (vmath_kern.h on one float at a time) and the 16-bit float helper.
 */
/* GCC vectorizes at -O2 only with its "very cheap" cost model, which
 * rejects the portable loops (unknown trip count), and if-converts the
 * selects only when floating-point operations may not trap (nothing here
 * reads the exception flags); then it runs them four floats at a time on
 * SSE2, the same operations lane by lane, so the same values. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", \
                     "no-trapping-math")
#endif

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/cpu.h"
#include "core/half.h"
#include "backends/cpu/bf16_convert.h"
#include "backends/cpu/row_ops.h"
#include "backends/cpu/vmath.h"

#define VM_FN static inline

typedef float vf;
typedef int32_t vi;
typedef int vm;

VM_FN vf v_set(float a) { return a; }
VM_FN vi v_seti(int32_t a) { return a; }
VM_FN vf v_add(vf a, vf b) { return a + b; }
VM_FN vf v_sub(vf a, vf b) { return a - b; }
VM_FN vf v_mul(vf a, vf b) { return a * b; }
VM_FN vf v_div(vf a, vf b) { return a / b; }
/* two roundings: the portable path has no fused multiply-add */
VM_FN vf v_fma(vf a, vf b, vf c) {
  vf p = a * b;
  return p + c;
}
VM_FN vf v_min(vf a, vf b) { return a < b ? a : b; }
VM_FN vf v_max(vf a, vf b) { return a > b ? a : b; }
VM_FN vi v_asi(vf a) {
  vi i;
  memcpy(&i, &a, sizeof i);
  return i;
}
VM_FN vf v_asf(vi a) {
  vf f;
  memcpy(&f, &a, sizeof f);
  return f;
}
VM_FN vf v_abs(vf a) { return v_asf(v_asi(a) & 0x7fffffff); }
VM_FN vf v_sign(vf a) { return v_asf((vi)((uint32_t)v_asi(a) & 0x80000000u)); }
VM_FN vf v_or(vf a, vf b) { return v_asf(v_asi(a) | v_asi(b)); }
VM_FN vm v_lt(vf a, vf b) { return a < b; }
VM_FN vm v_ge(vf a, vf b) { return a >= b; }
VM_FN vm v_eq(vf a, vf b) { return a == b; }
VM_FN vm v_nan(vf a) { return a != a; }
VM_FN vf v_sel(vm m, vf a, vf b) { return m ? a : b; }
/* integer lanes wrap as the vector instructions do */
VM_FN vi v_iadd(vi a, vi b) { return (vi)((uint32_t)a + (uint32_t)b); }
VM_FN vi v_isub(vi a, vi b) { return (vi)((uint32_t)a - (uint32_t)b); }
VM_FN vi v_iand(vi a, vi b) { return a & b; }
VM_FN vi v_imin(vi a, vi b) { return a < b ? a : b; }
VM_FN vi v_sll(vi a, int k) { return (vi)((uint32_t)a << k); }
/* arithmetic shift of a negative value, spelled without relying on the
 * implementation-defined >> of negative ints */
VM_FN vi v_sra(vi a, int k) {
  return a < 0 ? (vi) ~(~(uint32_t)a >> k) : (vi)((uint32_t)a >> k);
}
VM_FN vf v_i2f(vi a) { return (float)a; }
VM_FN vf v_pow2(vi n) { return v_asf(v_sll(v_iadd(n, 127), 23)); }
/* y 2^(n/2) 2^(n - n/2): the first product is exact, so one rounding */
VM_FN vf v_scale(vf y, vf nf, vi ni) {
  (void)nf;
  vi n1 = v_sra(ni, 1);
  return y * v_pow2(n1) * v_pow2(v_isub(ni, n1));
}

#include "backends/cpu/vmath_kern.h"

#define VM_REF(NAME)                                                       \
  static void vm_##NAME##_ref(const float *x, float *y, int64_t n) {       \
    for (int64_t i = 0; i < n; i++) y[i] = vk_##NAME(x[i]);                \
  }
TFS_VM_FUNCS(VM_REF)

#define VM_DISPATCH(NAME)                                                  \
  void tfs_vm_##NAME##_f32(const float *x, float *y, int64_t n) {          \
    if (n <= 0) return;                                                    \
    tfs_cpu_isa isa = tfs_cpu_isa_max();                                   \
    if (isa >= TFS_CPU_ISA_AVX512)                                         \
      tfs_vm__##NAME##_avx512(x, y, n);                                    \
    else if (isa >= TFS_CPU_ISA_AVX2)                                      \
      tfs_vm__##NAME##_avx2(x, y, n);                                      \
    else                                                                   \
      vm_##NAME##_ref(x, y, n);                                            \
  }
TFS_VM_FUNCS(VM_DISPATCH)

double tfs_vm_exp_shifted_sum_f32(const float *x, float *y, int64_t n,
                                  float shift) {
  if (n <= 0) return 0.0;
  tfs_cpu_isa isa = tfs_cpu_isa_max();
  if (isa >= TFS_CPU_ISA_AVX512)
    return tfs_vm__exp_shifted_sum_avx512(x, y, n, shift);
  if (isa >= TFS_CPU_ISA_AVX2)
    return tfs_vm__exp_shifted_sum_avx2(x, y, n, shift);
  double sum = 0.0;
  for (int64_t i = 0; i < n; i++) {
    y[i] = vk_exp(x[i] - shift);
    sum += y[i];
  }
  return sum;
}

void tfs_vm_softmax_f32(const float *x, float *y, int64_t rows, int64_t n) {
  if (rows <= 0 || n <= 0) return;
  if (tfs_cpu_isa_max() >= TFS_CPU_ISA_AVX512) {
    tfs_vm__softmax_avx512(x, y, rows, n, 0, NULL);
    return;
  }
  for (int64_t r = 0; r < rows; r++, x += n, y += n) {
    double sum = tfs_vm_exp_shifted_sum_f32(x, y, n, tfs_row_max_f32(x, n));
    tfs_row_scale_f32(y, n, (float)(1.0 / sum));
  }
}

void tfs_vm_softmax_bf16(const uint16_t *x, uint16_t *y, int64_t rows,
                         int64_t n, float *tmp) {
  if (rows <= 0 || n <= 0) return;
  if (tfs_cpu_isa_max() >= TFS_CPU_ISA_AVX512) {
    tfs_vm__softmax_avx512(x, y, rows, n, 1, tmp);
    return;
  }
  for (int64_t r = 0; r < rows; r++, x += n, y += n) {
    tfs_bf16_to_f32(x, tmp, n);
    tfs_vm_softmax_f32(tmp, tmp, 1, n);
    tfs_bf16_from_f32(tmp, y, n);
  }
}

#define VM_BLOCK 256

void tfs_vm_map16(void (*f)(const float *, float *, int64_t),
                  const uint16_t *x, uint16_t *y, int64_t n, int bf16) {
  float buf[VM_BLOCK];
  for (int64_t i = 0; i < n; i += VM_BLOCK) {
    int64_t k = n - i < VM_BLOCK ? n - i : VM_BLOCK;
    if (bf16)
      tfs_bf16_to_f32(x + i, buf, k);
    else
      for (int64_t j = 0; j < k; j++) buf[j] = tfs_half_to_float(x[i + j]);
    f(buf, buf, k);
    if (bf16)
      tfs_bf16_from_f32(buf, y + i, k);
    else
      for (int64_t j = 0; j < k; j++) y[i + j] = tfs_float_to_half(buf[j]);
  }
}

/*
 * core/half.h - IEEE half and bfloat16 conversions (round to nearest even,
 * NaN kept quiet), as TensorFlow's Eigen::half and bfloat16 do them.
 */
#ifndef TFS_CORE_HALF_H
#define TFS_CORE_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t tfs__f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float tfs__u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline float tfs_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0) {
    if (man == 0) return tfs__u2f(sign);
    /* subnormal: value = man * 2^-24 */
    float v = (float)man * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exp == 31) return tfs__u2f(sign | 0x7f800000u | (man << 13));
  return tfs__u2f(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t tfs_float_to_half(float f) {
  uint32_t u = tfs__f2u(f);
  uint32_t sign = (u >> 16) & 0x8000;
  uint32_t a = u & 0x7fffffff;
  if (a >= 0x7f800000u) /* inf or nan */
    return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
  if (a >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
    return (uint16_t)(sign | 0x7c00);
  if (a < 0x38800000u) { /* below the smallest normal half: subnormal */
    float v = tfs__u2f(a) * 16777216.0f; /* scale by 2^24 */
    /* round to nearest even integer */
    uint32_t m = (uint32_t)v;
    float frac = v - (float)m;
    if (frac > 0.5f || (frac == 0.5f && (m & 1))) m++;
    return (uint16_t)(sign | m);
  }
  uint32_t exp = (a >> 23) - 112;
  uint32_t man = a & 0x7fffff;
  uint32_t h = (exp << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static inline float tfs_bf16_to_float(uint16_t b) {
  return tfs__u2f((uint32_t)b << 16);
}

static inline uint16_t tfs_float_to_bf16(float f) {
  uint32_t u = tfs__f2u(f);
  if ((u & 0x7fffffff) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  uint32_t lsb = (u >> 16) & 1;
  u += 0x7fff + lsb;
  return (uint16_t)(u >> 16);
}

#endif

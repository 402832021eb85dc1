/*
 * backends/cpu/bf16_convert.h - float32 <-> bfloat16 over arrays, on
 * AVX-512 (with AVX512_BF16's conversion where the CPU has it) or AVX2
 * where the CPU (tfs_cpu_has) allows, else one value at a time; every
 * path gives core/half.h's bits (round to nearest even, NaN kept quiet,
 * denormals kept), so a result never depends on the CPU.
 */
#ifndef TFS_BACKENDS_CPU_BF16_CONVERT_H
#define TFS_BACKENDS_CPU_BF16_CONVERT_H

#include <stdint.h>

/* dst[i] = tfs_float_to_bf16(src[i]) for i in [0, n).  dst may not
 * overlap src.  Thread-safe. */
void tfs_bf16_from_f32(const float *src, uint16_t *dst, int64_t n);

/* dst[i] = tfs_bf16_to_float(src[i]) for i in [0, n) (exact).  dst may
 * not overlap src.  Thread-safe. */
void tfs_bf16_to_f32(const uint16_t *src, float *dst, int64_t n);

/* Tests: 0 keeps tfs_bf16_from_f32 off AVX512_BF16's vcvtneps2bf16 (the
 * integer rounding of the AVX-512 level instead), 1 or -1 lets it take
 * the instruction where the CPU has it and the level in force is
 * avx512.  The bits are the same either way.  Returns the previous
 * setting; thread-safe. */
int tfs_bf16__set_native(int on);

#endif

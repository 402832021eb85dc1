/*
 * backends/cpu/store_act.h - the activations the convolution kernels
 * apply to a finished tile as they store it, after the bias: the indirect
 * GEMM micro-kernels, the packed path's tile epilogue, the thin pointwise
 * product, Winograd's output transforms and the depthwise rows.  Their
 * `relu` (GEMM, Winograd) and `act` (depthwise, TFS_DW_ACT_*) arguments
 * share these codes.
 *
 * Hard-swish is x * (min(max(x + 3, 0), 6) * (1/6)), the operations of
 * the fused epilogue's array form (tfs_fused_hard_swish_f32) in the same
 * order, so a tile gets the same bits whether the kernel applies it as it
 * stores or a pass over the finished rows does; NaN stays NaN.  There is
 * no product followed by a sum, so no fused multiply-add can change them.
 */
#ifndef TFS_BACKENDS_CPU_STORE_ACT_H
#define TFS_BACKENDS_CPU_STORE_ACT_H

enum {
  TFS_STORE_NONE = 0,
  TFS_STORE_RELU = 1,      /* max(0, x), NaN kept */
  TFS_STORE_RELU6 = 2,     /* min(6, max(0, x)), NaN kept */
  TFS_STORE_HARD_SWISH = 3 /* x * relu6(x + 3) / 6 */
};

/* 1 for the codes that clamp at zero (Relu, Relu6). */
static inline int tfs_store_clamps(int act) {
  return act == TFS_STORE_RELU || act == TFS_STORE_RELU6;
}

/* Hard-swish of one value (the reference every vector form matches). */
static inline float tfs_hard_swish1(float v) {
  float t = v + 3.0f;
  t = t < 0.0f ? 0.0f : t;
  t = t > 6.0f ? 6.0f : t;
  return v * (t * (1.0f / 6.0f));
}

/* Hard-swish of a vector of intrinsics prefix P (_mm256, _mm512): max(0,
 * t) and min(6, t) return t when it is NaN, as tfs_hard_swish1 keeps it. */
#define TFS_HARD_SWISH_VEC(P, v)                                           \
  P##_mul_ps((v), P##_mul_ps(P##_min_ps(P##_set1_ps(6.0f),                 \
                                        P##_max_ps(P##_setzero_ps(),       \
                                                   P##_add_ps(             \
                                                       (v),                \
                                                       P##_set1_ps(3.0f)))), \
                             P##_set1_ps(1.0f / 6.0f)))

#endif

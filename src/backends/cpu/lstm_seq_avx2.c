/*
 * backends/cpu/lstm_seq_avx2.c - the chunk step of _TfsLstmSequence on
 * AVX2 with FMA (lstm_seq_simd.h): 8 units a chunk, a ymm register per
 * gate, three rows of accumulators at a time, masked loads and stores
 * for a last chunk of fewer units.  Compiled with function attributes;
 * lstm_seq.c calls it only when tfs_cpu_has(TFS_CPU_ISA_AVX2).
 */
#include <immintrin.h>

#include "backends/cpu/vmath.h"

/* lanes [0, n) set: a window of 8 into eight -1s then eight 0s */
static const int32_t ls_mask_bits[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                         0,  0,  0,  0,  0,  0,  0,  0};

#define LS_TGT __attribute__((target("avx2,fma")))
#define LS_L 8
#define LS_V __m256
#define LS_M __m256i
#define LS_LOAD(p) _mm256_loadu_ps(p)
#define LS_STORE(p, v) _mm256_storeu_ps(p, v)
#define LS_LOADM(p, m) _mm256_maskload_ps(p, m)
#define LS_STOREM(p, m, v) _mm256_maskstore_ps(p, m, v)
#define LS_MASKN(n) \
  _mm256_loadu_si256((const __m256i *)(const void *)(ls_mask_bits + 8 - (n)))
#define LS_SET1(x) _mm256_set1_ps(x)
#define LS_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define LS_ADD(a, b) _mm256_add_ps(a, b)
#define LS_MUL(a, b) _mm256_mul_ps(a, b)
#define LS_OPAQUE(v) __asm__("" : "+x"(v))
#define LS_RMAX 3
#define LS_FULL_GROUPS 1
#define LS_SIGMOID tfs_vm__sigmoid_avx2
#define LS_TANH tfs_vm__tanh_avx2
#define LS_CHUNK tfs_lstm__chunk_avx2

#include "backends/cpu/lstm_seq_simd.h"

/*
 * backends/cpu/lstm_seq_avx512.c - the chunk step of _TfsLstmSequence on
 * AVX-512 (lstm_seq_simd.h): 16 units a chunk, a zmm register per gate,
 * six rows of accumulators at a time, masked loads and stores for a last
 * chunk of fewer units.  Compiled with function attributes; lstm_seq.c
 * calls it only when tfs_cpu_has(TFS_CPU_ISA_AVX512).
 */
#include <immintrin.h>

#include "backends/cpu/vmath.h"

#define LS_TGT __attribute__((target("avx512f")))
#define LS_L 16
#define LS_V __m512
#define LS_M __mmask16
#define LS_LOAD(p) _mm512_loadu_ps(p)
#define LS_STORE(p, v) _mm512_storeu_ps(p, v)
#define LS_LOADM(p, m) _mm512_maskz_loadu_ps(m, p)
#define LS_STOREM(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define LS_MASKN(n) ((__mmask16)((1u << (n)) - 1u))
#define LS_SET1(x) _mm512_set1_ps(x)
#define LS_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define LS_ADD(a, b) _mm512_add_ps(a, b)
#define LS_MUL(a, b) _mm512_mul_ps(a, b)
#define LS_OPAQUE(v) __asm__("" : "+v"(v))
#define LS_RMAX 6
#define LS_FULL_GROUPS 0
#define LS_SIGMOID tfs_vm__sigmoid_avx512
#define LS_TANH tfs_vm__tanh_avx512
#define LS_CHUNK tfs_lstm__chunk_avx512

#include "backends/cpu/lstm_seq_simd.h"

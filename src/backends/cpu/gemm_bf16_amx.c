/*
 * backends/cpu/gemm_bf16_amx.c - the bfloat16 GEMM's tile on AMX: a 32x32
 * float32 block of C in four 16x16 tiles (tmm0-3), each TDPBF16PS adding
 * 32 depth steps of a 16-row A tile (tmm4, tmm5) times a 16-column B tile
 * (tmm6, tmm7).  Every tile is configured as 16 rows of 64 bytes once per
 * thread's run of tiles (enter / leave around it).  Compiled with function
 * attributes; gemm_bf16.c calls it only where tfs_cpu_has_amx() says so.
 *
 * Panels (gemm_bf16.c packs them, padded with zeros to whole tiles):
 * A as [kp / 16][32 rows][16 pairs], so that each 16-row tile is 16 rows
 * of 64 bytes; B as [kp][32 columns] pairs, the layout vdpbf16ps uses, so
 * a B tile is 16 pair rows of 16 columns at a stride of 128 bytes.  A
 * pair holds depth 2q in its low half and 2q + 1 in its high half.
 */
#include <immintrin.h>
#include <stdint.h>

#include "backends/cpu/gemm_internal.h"

#define MR 32
#define NR 32
#define KA 16 /* pairs per tile row */
#define TGT __attribute__((target("avx512f,amx-tile,amx-bf16")))

/* The compiler does not see the tile loads and stores (inline assembly
 * in its intrinsics) touch memory: a barrier before the first tile load
 * and after the last tile store keeps C's and buf's accesses in order. */
#define MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/* The palette-1 configuration: eight tiles of 16 rows x 64 bytes. */
typedef struct amx_config {
  uint8_t palette, start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} amx_config;

static const amx_config kConfig = {1,
                                   0,
                                   {0},
                                   {64, 64, 64, 64, 64, 64, 64, 64},
                                   {16, 16, 16, 16, 16, 16, 16, 16}};

static TGT void amx_enter(void) { _tile_loadconfig(&kConfig); }

/* Frees the tile state, so the kernel need not save it at a context
 * switch. */
static TGT void amx_leave(void) { _tile_release(); }

/* C[rows, n] (=|+=) A * B over kp pairs (a multiple of KA) through the
 * tiles; C's rows and columns past rows and n are neither read nor
 * written.  A tile of all-zero rows past `rows` is skipped. */
static TGT void amx_tile(int rows, int64_t kp, const uint32_t *a,
                         const uint32_t *b, float *c, int64_t ldc, int n,
                         int acc) {
  const int full = rows == MR && n == NR, two = rows > 16;
  /* A partial block goes through buf: C's part copied in when acc, the
   * tiles stored there and copied out. */
  float buf[MR * NR] __attribute__((aligned(64)));
  const __mmask16 k0 = n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1);
  const __mmask16 k1 =
      n >= 32 ? 0xffff : n > 16 ? (__mmask16)((1u << (n - 16)) - 1) : 0;
  float *dst = c;
  int64_t ld = ldc;
  if (!full) {
    dst = buf;
    ld = NR;
    if (acc) {
      for (int i = 0; i < rows; i++) {
        _mm512_store_ps(buf + i * NR, _mm512_maskz_loadu_ps(k0, c + i * ldc));
        _mm512_store_ps(buf + i * NR + 16,
                        _mm512_maskz_loadu_ps(k1, c + i * ldc + 16));
      }
    }
  }
  const int64_t stride = ld * (int64_t)sizeof(float);
  MEMORY_BARRIER();
  if (acc) {
    _tile_loadd(0, dst, stride);
    _tile_loadd(1, dst + 16, stride);
    if (two) {
      _tile_loadd(2, dst + 16 * ld, stride);
      _tile_loadd(3, dst + 16 * ld + 16, stride);
    }
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  if (two) {
    for (int64_t q = 0; q < kp; q += KA) {
      _tile_loadd(4, a, 64);
      _tile_loadd(5, a + 16 * KA, 64);
      _tile_loadd(6, b, NR * 4);
      _tile_loadd(7, b + 16, NR * 4);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
      a += MR * KA;
      b += KA * NR;
    }
  } else {
    for (int64_t q = 0; q < kp; q += KA) {
      _tile_loadd(4, a, 64);
      _tile_loadd(6, b, NR * 4);
      _tile_loadd(7, b + 16, NR * 4);
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      a += MR * KA;
      b += KA * NR;
    }
  }
  _tile_stored(0, dst, stride);
  _tile_stored(1, dst + 16, stride);
  if (two) {
    _tile_stored(2, dst + 16 * ld, stride);
    _tile_stored(3, dst + 16 * ld + 16, stride);
  }
  MEMORY_BARRIER();
  if (full) return;
  for (int i = 0; i < rows; i++) {
    _mm512_mask_storeu_ps(c + i * ldc, k0, _mm512_load_ps(buf + i * NR));
    _mm512_mask_storeu_ps(c + i * ldc + 16, k1,
                          _mm512_load_ps(buf + i * NR + 16));
  }
}

/* A 192 x 512-deep A block (192 KiB) in L2 and a 256-pair x 32 B panel
 * (32 KiB) in L1 as for vdpbf16ps; the pool splits a product at the
 * multiply-adds a nanosecond measured on one Xeon core (some 250, six to
 * eight times the float32 kernels'). */
const tfs_gemm_bf16_isa tfs_gemm_bf16_isa_amx = {
    "amx_bf16 32x32", MR, NR, 512, 192, 4096, KA, 192,
    amx_enter, amx_leave, amx_tile, {NULL}};

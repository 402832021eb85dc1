/*
 * backends/cpu/bits.c - bit-level kernels: BitwiseAnd/Or/Xor, LeftShift
 * and RightShift (the shift amount clamped to [0, bits - 1] as
 * TensorFlow's CPU kernel does, right shifts of signed values
 * arithmetic), Invert, PopulationCount and Bitcast (a view of the input's
 * bytes with another dtype and shape).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

/* ---- bitwise binary ops ----------------------------------------------- */

#define MK_AND(N, T, U) EW_BIN(N, T, (T)(x & y))
#define MK_OR(N, T, U) EW_BIN(N, T, (T)(x | y))
#define MK_XOR(N, T, U) EW_BIN(N, T, (T)(x ^ y))
EW_INTS(band, MK_AND)
EW_INTS(bor, MK_OR)
EW_INTS(bxor, MK_XOR)

/* The shift amount y clamped to [0, bits - 1] (unsigned: to bits - 1). */
#define BITS_M1(T) ((unsigned)(sizeof(T) * 8 - 1))
#define CLAMP_S(T, y) \
  ((y) < 0 ? 0u : (uint64_t)(y) > BITS_M1(T) ? BITS_M1(T) : (unsigned)(y))
#define CLAMP_U(T, y) ((y) > BITS_M1(T) ? BITS_M1(T) : (unsigned)(y))
/* left shifts through the unsigned type (no overflow), in at least
 * unsigned int */
#define MK_SHL_S(N, T, U) EW_BIN(N, T, (T)(U)(1u * (U)x << CLAMP_S(T, y)))
#define MK_SHL_U(N, T, U) EW_BIN(N, T, (T)(U)(1u * (U)x << CLAMP_U(T, y)))
/* right shifts of signed values are arithmetic: done on the complement
 * of negative values, which is non-negative */
#define MK_SHR_S(N, T, U) \
  EW_BIN(N, T, x < 0 ? (T)~(T)(~x >> CLAMP_S(T, y)) \
                     : (T)(x >> CLAMP_S(T, y)))
#define MK_SHR_U(N, T, U) EW_BIN(N, T, (T)(x >> CLAMP_U(T, y)))
EW_SIGNED(shl, MK_SHL_S)
EW_UNSIGNED(shl, MK_SHL_U)
EW_SIGNED(shr, MK_SHR_S)
EW_UNSIGNED(shr, MK_SHR_U)

static const tfs_bin_table kAnd = {{EW_INT_ENTRIES(band)}, "", 1, 0};
static const tfs_bin_table kOr = {{EW_INT_ENTRIES(bor)}, "", 1, 0};
static const tfs_bin_table kXor = {{EW_INT_ENTRIES(bxor)}, "", 1, 0};
static const tfs_bin_table kShl = {{EW_INT_ENTRIES(shl)}, "", 1, 0};
static const tfs_bin_table kShr = {{EW_INT_ENTRIES(shr)}, "", 1, 0};

/* ---- Invert, PopulationCount ------------------------------------------ */

#define MK_INV(N, T, U) EW_UN(N, T, (T)~x)
#define MK_POP(N, T, U)                                                    \
  EW_UN_GEN(N, T, uint8_t, EW_ID, EW_ID,                                   \
            (uint8_t)__builtin_popcountll((unsigned long long)(U)x))
EW_INTS(inv, MK_INV)
EW_INTS(pop, MK_POP)

static const tfs_un_table kInvert = {{EW_INT_ENTRIES(inv)}, "", 1, 0};
static const tfs_un_table kPopcount = {{EW_INT_ENTRIES(pop)}, "", 2, 0};

/* ---- Bitcast ---------------------------------------------------------- */

static void bitcast_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_dtype to = c->out_types[0];
  size_t a = tfs_dtype__storage_size(x->dtype), b = tfs_dtype__storage_size(to);
  tfs_shape s = x->shape;
  int r = s.rank;
  if (a < b && !(r > 0 && s.dims[r - 1] * (int64_t)a == (int64_t)b)) {
    /* TensorFlow's kernel names the dtypes by their enum values */
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Cannot bitcast from %d to %d",
                  (int)x->dtype, (int)to);
    return;
  }
  if (a < b) {
    s.rank--;
  } else if (a > b) {
    if (r >= TFS_MAX_RANK) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Bitcast result has more than %d dimensions",
                    TFS_MAX_RANK);
      return;
    }
    s.dims[s.rank++] = (int64_t)(a / b);
  }
  tfs_buf__ref(x->buf);
  tfs_tensor *v = tfs_tensor__over_buf(to, &s, x->buf, x->data, c->st);
  if (!v) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_kctx_set_output(c, 0, v);
}

/* ---- the table -------------------------------------------------------- */

#define INTS (EW_DT_SIGNED | EW_DT_UNSIGNED)
#define BIN(OP, TABLE)                                                  \
  {OP, "CPU", "T", INTS, tfs_binary_prepare, tfs_binary_compute, free,  \
   0, &TABLE}
#define UN(OP, TABLE)                                                   \
  {OP, "CPU", "T", INTS, tfs_unary_prepare, tfs_unary_compute, free, 0, \
   &TABLE}
#define BITCAST_T                                                       \
  (TFS_DT_REAL | EW_DT_COMPLEX | EW_DT(QINT8) | EW_DT(QUINT8) |         \
   EW_DT(QINT16) | EW_DT(QUINT16) | EW_DT(QINT32))

const tfs_kernel_def tfs_cpu_kernels_bits[] = {
    BIN("BitwiseAnd", kAnd),
    BIN("BitwiseOr", kOr),
    BIN("BitwiseXor", kXor),
    BIN("LeftShift", kShl),
    BIN("RightShift", kShr),
    UN("Invert", kInvert),
    UN("PopulationCount", kPopcount),
    {"Bitcast", "CPU", "T", BITCAST_T, NULL, bitcast_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

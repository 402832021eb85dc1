/*
 * core/cpu.h - what this x86-64 CPU can run, asked in one place by every
 * code path that the CPU chooses (GEMM and convolution micro-kernels, the
 * AVX2 pooling loops, the SSE4.2 CRC32C, auto mixed precision's bfloat16
 * decision, the bfloat16 dot-product and AMX GEMMs), with the overrides that let
 * tests force each path on any host that can run it.
 */
#ifndef TFS_CORE_CPU_H
#define TFS_CORE_CPU_H

/* Instruction-set levels, each including the ones below it. */
typedef enum tfs_cpu_isa {
  TFS_CPU_ISA_BASELINE = 0, /* x86-64 with SSE2: portable C and OpenBLAS */
  TFS_CPU_ISA_SSE42 = 1,    /* SSE4.2 (hardware CRC32C) */
  TFS_CPU_ISA_AVX2 = 2,     /* AVX2 + FMA with the OS saving YMM state */
  TFS_CPU_ISA_AVX512 = 3    /* AVX-512 F with the OS saving ZMM state */
} tfs_cpu_isa;

/* The highest level this CPU (and its OS) supports, ignoring overrides.
 * Thread-safe; detected once. */
tfs_cpu_isa tfs_cpu_isa_detected(void);

/* The highest level code may use: the detected one, lowered by the
 * environment variable TFS_CPU_MAX_ISA (baseline, sse4.2, avx2, avx512;
 * read once, as oneDNN's ONEDNN_MAX_CPU_ISA) and by
 * tfs_cpu__set_max_isa.  Never above the detected level.  Thread-safe and
 * cheap (one atomic load after the first call). */
tfs_cpu_isa tfs_cpu_isa_max(void);

/* 1 when code may use instructions of `isa`. */
static inline int tfs_cpu_has(tfs_cpu_isa isa) {
  return tfs_cpu_isa_max() >= isa;
}

/* Tests: caps the level in this process (a level above the detected one
 * caps at the detected one); -1 returns to the environment's cap.  Code
 * that chose its path once (the GEMM family at first use) keeps it; the
 * GEMM has tfs_gemm__force_path for that. */
void tfs_cpu__set_max_isa(int isa);

/* The level's name ("baseline", "sse4.2", "avx2", "avx512"). */
const char *tfs_cpu_isa_name(tfs_cpu_isa isa);

/* Parses a level's name; returns it, or -1 for an unknown name. */
int tfs_cpu_isa_parse(const char *name);

/* 1 when the CPU computes bfloat16 natively (AVX512_BF16 or AMX-BF16 with
 * the OS saving that state), ignoring overrides. */
int tfs_cpu_bf16_detected(void);

/* Whether auto mixed precision may rewrite CPU ops to bfloat16: the
 * detected answer, overridden by the environment variable TFS_CPU_BF16=0
 * or 1 (read once) and by tfs_cpu__set_bf16.  Our bfloat16 kernels
 * compute in float32 and round, so forcing 1 on a CPU without native
 * bfloat16 is safe: it checks the rewrite and its values there.
 * Thread-safe. */
int tfs_cpu_bf16(void);

/* Tests: forces tfs_cpu_bf16 to 0 or 1; -1 returns to the environment's
 * answer or detection. */
void tfs_cpu__set_bf16(int on);

/* 1 when the CPU has the AVX-512 bfloat16 dot product (AVX512_BF16's
 * vdpbf16ps) with the OS saving ZMM state, ignoring overrides. */
int tfs_cpu_bf16_dot_detected(void);

/* Whether bfloat16 products use vdpbf16ps.  By default where it is
 * detected on CPUs other than Intel's: on the Intel Xeon measured,
 * vdpbf16ps did half the multiply-adds per second of the float32 FMAs,
 * and the widened float32 product was the faster (docs/PERFORMANCE.md);
 * other vendors' CPUs have not been measured.  The environment
 * variable TFS_CPU_BF16_DOT=0 or 1 (read once) and tfs_cpu__set_bf16_dot
 * turn it off or on (on only where detected); it is 0 whenever the level
 * in force (tfs_cpu_isa_max) is below avx512.  Where it is 0, bfloat16
 * products widen their operands to float32.  Thread-safe and cheap
 * (atomic loads); asked at each product, so the overrides take effect at
 * the next one. */
int tfs_cpu_has_bf16_dot(void);

/* Tests and benchmarks: 0 turns the bfloat16 dot product off in this
 * process, 1 on (where detected and the level allows); -1 returns to the
 * environment's answer or the default. */
void tfs_cpu__set_bf16_dot(int on);

/* 1 when the CPU has AMX-TILE and AMX-BF16 with the OS saving tile state,
 * AVX-512 is usable, and (on Linux) the kernel granted this process the
 * use of tile data, ignoring overrides.  Detection asks the kernel for
 * that permission once per process (arch_prctl ARCH_REQ_XCOMP_PERM). */
int tfs_cpu_amx_detected(void);

/* Whether bfloat16 products run on AMX tiles (TDPBF16PS), taking
 * precedence over vdpbf16ps and the widened product.  On by default where
 * detected; the environment variable TFS_CPU_AMX=0 or 1 (read once) and
 * tfs_cpu__set_amx turn it off or on (on only where detected); 0 whenever
 * the level in force is below avx512.  Thread-safe and cheap (atomic
 * loads); asked at each product and at each packing of constant
 * weights. */
int tfs_cpu_has_amx(void);

/* Tests and benchmarks: 0 turns AMX off in this process, 1 on (where
 * detected and the level allows); -1 returns to the environment's answer
 * or the default. */
void tfs_cpu__set_amx(int on);

#endif

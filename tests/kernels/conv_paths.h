/*
 * tests/kernels/conv_paths.h - runs a convolution test body on every GEMM
 * family this CPU has (AVX-512, AVX2, OpenBLAS), with patches read in
 * place by the indirect kernels and packed where the family has indirect
 * kernels, reporting each family as a CPU path.
 */
#ifndef TFS_TESTS_KERNELS_CONV_PATHS_H
#define TFS_TESTS_KERNELS_CONV_PATHS_H

#include "core/cpu.h"
#include "backends/cpu/gemm.h"
#include "testutil.h"

/* body(arg) once per family and patch form, reported as CPU path
 * `family` <gemm>; returns how many ran (OpenBLAS runs anywhere).  The
 * default family and the indirect kernels are restored after. */
static inline int nt_each_conv_path(const char *family,
                                    void (*body)(void *arg), void *arg) {
  static const struct {
    const char *gemm;
    int isa, indirect;
  } kPaths[] = {
      {"avx512", TFS_CPU_ISA_AVX512, 1},
      {"avx2", TFS_CPU_ISA_AVX2, 1},
      {"openblas", TFS_CPU_ISA_BASELINE, 0},
  };
  int tried = 0;
  for (size_t pi = 0; pi < sizeof kPaths / sizeof kPaths[0]; pi++) {
    const char *why = tu_isa_unavailable(kPaths[pi].isa);
    tu_cpu_path(family, kPaths[pi].gemm, why);
    if (why) continue;
    CU_ASSERT_EQUAL_FATAL(tfs_gemm__force_path(kPaths[pi].gemm), 0);
    for (int indirect = kPaths[pi].indirect; indirect >= 0; indirect--) {
      tfs_gemm__set_indirect(indirect);
      body(arg);
      tried++;
    }
  }
  tfs_gemm__set_indirect(1);
  tfs_gemm__force_path(NULL);
  return tried;
}

#endif

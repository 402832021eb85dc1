/*
 * tests/util/cpu_probe.c - prints what core/cpu.c decided for this
 * process, for tests/cpu_paths.sh: the detected instruction-set level,
 * the level in force after TFS_CPU_MAX_ISA, and the bfloat16 answers
 * before and after TFS_CPU_BF16.  One line:
 *   detected=avx512 max=avx2 bf16_detected=1 bf16=0
 */
#include <stdio.h>

#include "core/cpu.h"

int main(void) {
  printf("detected=%s max=%s bf16_detected=%d bf16=%d\n",
         tfs_cpu_isa_name(tfs_cpu_isa_detected()),
         tfs_cpu_isa_name(tfs_cpu_isa_max()), tfs_cpu_bf16_detected(),
         tfs_cpu_bf16());
  return 0;
}

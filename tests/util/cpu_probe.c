/*
 * tests/util/cpu_probe.c - prints what core/cpu.c decided for this
 * process, for tests/cpu_paths.sh: the detected instruction-set level,
 * the level in force after TFS_CPU_MAX_ISA, the bfloat16 answers before
 * and after TFS_CPU_BF16, the bfloat16 dot product's before and after
 * TFS_CPU_BF16_DOT and the cap, and AMX's before and after TFS_CPU_AMX and
 * the cap.  One line:
 *   detected=avx512 max=avx2 bf16_detected=1 bf16=0 bf16_dot_detected=1
 *   bf16_dot=0 amx_detected=1 amx=0
 */
#include <stdio.h>

#include "core/cpu.h"

int main(void) {
  printf("detected=%s max=%s bf16_detected=%d bf16=%d bf16_dot_detected=%d "
         "bf16_dot=%d amx_detected=%d amx=%d\n",
         tfs_cpu_isa_name(tfs_cpu_isa_detected()),
         tfs_cpu_isa_name(tfs_cpu_isa_max()), tfs_cpu_bf16_detected(),
         tfs_cpu_bf16(), tfs_cpu_bf16_dot_detected(), tfs_cpu_has_bf16_dot(),
         tfs_cpu_amx_detected(), tfs_cpu_has_amx());
  return 0;
}

/*
 * optimizer/cpu_features.c - whether this CPU computes bfloat16 natively,
 * which decides if auto mixed precision may use bfloat16 on CPU devices:
 * CPUID leaf 7 (AVX512_BF16 in subleaf 1 EAX bit 5, AMX-BF16 in subleaf 0
 * EDX bit 22) and XGETBV for the OS saving the AVX-512 / AMX state.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/optimizer.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long xgetbv0(void) {
  unsigned int lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

static int detect(void) {
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) /* OSXSAVE */
    return 0;
  unsigned long long xcr0 = xgetbv0();
  int avx512_os = (xcr0 & 0xe6) == 0xe6;    /* SSE, AVX, opmask, ZMM */
  int amx_os = (xcr0 & 0x60000) == 0x60000; /* XTILECFG, XTILEDATA */
  if (__get_cpuid_max(0, NULL) < 7) return 0;
  __cpuid_count(7, 0, a, b, c, d);
  int amx_bf16 = (d >> 22) & 1;
  int max_sub = (int)a;
  int avx512_bf16 = 0;
  if (max_sub >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    avx512_bf16 = (a >> 5) & 1;
  }
  return (avx512_bf16 && avx512_os) || (amx_bf16 && amx_os);
}
#else
static int detect(void) {
  return 0;
}
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_has_bf16;

static void init(void) {
  /* TFS_CPU_BF16=0/1 overrides detection (tests of both paths) */
  const char *env = getenv("TFS_CPU_BF16");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
    g_has_bf16 = env[0] == '1';
  else
    g_has_bf16 = detect();
}

int tfs_optimizer__cpu_has_bf16(void) {
  pthread_once(&g_once, init);
  return g_has_bf16;
}

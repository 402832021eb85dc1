/*
 * core/cpu.c - CPU feature detection (CPUID and XGETBV; on Linux the
 * permission to use AMX tile data) and the overrides that cap it:
 * TFS_CPU_MAX_ISA, TFS_CPU_BF16, TFS_CPU_BF16_DOT and TFS_CPU_AMX from
 * the environment, tfs_cpu__set_max_isa, tfs_cpu__set_bf16,
 * tfs_cpu__set_bf16_dot and tfs_cpu__set_amx from tests.
 */
#include "core/cpu.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

static const char *const kIsaNames[] = {"baseline", "sse4.2", "avx2",
                                        "avx512"};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

static unsigned long long xgetbv0(void) {
  unsigned int lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

typedef struct cpu_bits {
  tfs_cpu_isa isa;
  int bf16;
  int bf16_dot; /* AVX512_BF16 with ZMM state */
  int amx;      /* AMX-TILE and AMX-BF16, usable by this process */
  int intel;    /* GenuineIntel */
} cpu_bits;

/* Linux lets a process use AMX tile data only after asking once
 * (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, kernel 5.16 and
 * later); the permission covers every thread.  1 when granted. */
static int amx_permitted(void) {
#if defined(__linux__) && defined(SYS_arch_prctl)
  return syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                 18 /* XFEATURE_XTILEDATA */) == 0;
#else
  return 0;
#endif
}

static cpu_bits detect(void) {
  cpu_bits r = {TFS_CPU_ISA_BASELINE, 0, 0, 0, 0};
  unsigned int a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return r;
  r.intel = b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return r;
  int sse42 = (c >> 20) & 1, fma = (c >> 12) & 1;
  if (sse42) r.isa = TFS_CPU_ISA_SSE42;
  if (!(c & (1u << 27)) || !((c >> 28) & 1)) /* OSXSAVE, AVX */
    return r;
  unsigned long long xcr0 = xgetbv0();
  int ymm_os = (xcr0 & 0x6) == 0x6;          /* SSE, AVX state */
  int zmm_os = (xcr0 & 0xe6) == 0xe6;        /* + opmask, ZMM */
  int amx_os = (xcr0 & 0x60000) == 0x60000;  /* XTILECFG, XTILEDATA */
  if (__get_cpuid_max(0, NULL) < 7) return r;
  __cpuid_count(7, 0, a, b, c, d);
  int max_sub = (int)a;
  int avx2 = (b >> 5) & 1, avx512f = (b >> 16) & 1;
  int amx_bf16 = (d >> 22) & 1, amx_tile = (d >> 24) & 1, avx512_bf16 = 0;
  if (max_sub >= 1) {
    unsigned int a1, b1, c1, d1;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    avx512_bf16 = (a1 >> 5) & 1;
  }
  if (avx2 && fma && ymm_os) r.isa = TFS_CPU_ISA_AVX2;
  if (r.isa == TFS_CPU_ISA_AVX2 && avx512f && zmm_os)
    r.isa = TFS_CPU_ISA_AVX512;
  r.bf16 = (avx512_bf16 && zmm_os) || (amx_bf16 && amx_os);
  r.bf16_dot = avx512_bf16 && avx512f && zmm_os;
  /* the AMX kernels read and write C with AVX-512 */
  r.amx = amx_bf16 && amx_tile && amx_os && r.isa == TFS_CPU_ISA_AVX512 &&
          amx_permitted();
  return r;
}
#else
typedef struct cpu_bits {
  tfs_cpu_isa isa;
  int bf16;
  int bf16_dot; /* AVX512_BF16 with ZMM state */
  int amx;      /* AMX-TILE and AMX-BF16, usable by this process */
  int intel;    /* GenuineIntel */
} cpu_bits;
static cpu_bits detect(void) {
  cpu_bits r = {TFS_CPU_ISA_BASELINE, 0, 0, 0, 0};
  return r;
}
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static cpu_bits g_detected;
static int g_env_isa;  /* cap from TFS_CPU_MAX_ISA, or the detected level */
static int g_env_bf16; /* TFS_CPU_BF16, or the detected answer */
static atomic_int g_max = -1;      /* in force; -1 before init */
static atomic_int g_bf16 = -1;     /* tfs_cpu__set_bf16; -1 none */
static int g_env_dot;              /* the default or TFS_CPU_BF16_DOT */
static atomic_int g_dot = -1;      /* tfs_cpu__set_bf16_dot; -1 none */
static int g_env_amx;              /* the detected answer or TFS_CPU_AMX */
static atomic_int g_amx = -1;      /* tfs_cpu__set_amx; -1 none */

static int cap(int want) {
  return want < (int)g_detected.isa ? want : (int)g_detected.isa;
}

static void init(void) {
  g_detected = detect();
  g_env_isa = (int)g_detected.isa;
  const char *env = getenv("TFS_CPU_MAX_ISA");
  if (env && *env) {
    int lvl = tfs_cpu_isa_parse(env);
    if (lvl < 0)
      tfs_log(TFS_LOG_WARN,
              "TFS_CPU_MAX_ISA='%s' is not one of baseline, sse4.2, avx2, "
              "avx512; ignored", env);
    else
      g_env_isa = cap(lvl);
  }
  g_env_bf16 = g_detected.bf16;
  env = getenv("TFS_CPU_BF16");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
    g_env_bf16 = env[0] == '1';
  /* On the Intel Xeons measured (docs/PERFORMANCE.md) vdpbf16ps did a
   * quarter of the FMAs' instructions per second, half their float32
   * multiply-adds: the widened float32 product is faster there. */
  g_env_dot = g_detected.bf16_dot && !g_detected.intel;
  env = getenv("TFS_CPU_BF16_DOT");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
    g_env_dot = env[0] == '1' && g_detected.bf16_dot;
  g_env_amx = g_detected.amx;
  env = getenv("TFS_CPU_AMX");
  if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
    g_env_amx = env[0] == '1' && g_detected.amx;
  atomic_store(&g_max, g_env_isa);
}

tfs_cpu_isa tfs_cpu_isa_detected(void) {
  pthread_once(&g_once, init);
  return g_detected.isa;
}

tfs_cpu_isa tfs_cpu_isa_max(void) {
  int m = atomic_load_explicit(&g_max, memory_order_relaxed);
  if (m >= 0) return (tfs_cpu_isa)m;
  pthread_once(&g_once, init);
  return (tfs_cpu_isa)atomic_load(&g_max);
}

void tfs_cpu__set_max_isa(int isa) {
  pthread_once(&g_once, init);
  atomic_store(&g_max, isa < 0 ? g_env_isa : cap(isa));
}

const char *tfs_cpu_isa_name(tfs_cpu_isa isa) {
  return (unsigned)isa < 4 ? kIsaNames[isa] : "unknown";
}

int tfs_cpu_isa_parse(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < 4; i++)
    if (strcmp(name, kIsaNames[i]) == 0) return i;
  if (strcmp(name, "sse42") == 0) return TFS_CPU_ISA_SSE42;
  return -1;
}

int tfs_cpu_bf16_detected(void) {
  pthread_once(&g_once, init);
  return g_detected.bf16;
}

int tfs_cpu_bf16(void) {
  pthread_once(&g_once, init);
  int f = atomic_load(&g_bf16);
  return f >= 0 ? f : g_env_bf16;
}

void tfs_cpu__set_bf16(int on) {
  atomic_store(&g_bf16, on < 0 ? -1 : on != 0);
}

int tfs_cpu_bf16_dot_detected(void) {
  pthread_once(&g_once, init);
  return g_detected.bf16_dot;
}

int tfs_cpu_has_bf16_dot(void) {
  if (!tfs_cpu_has(TFS_CPU_ISA_AVX512)) return 0; /* also runs init */
  int f = atomic_load_explicit(&g_dot, memory_order_relaxed);
  return f >= 0 ? f && g_detected.bf16_dot : g_env_dot;
}

void tfs_cpu__set_bf16_dot(int on) {
  atomic_store(&g_dot, on < 0 ? -1 : on != 0);
}

int tfs_cpu_amx_detected(void) {
  pthread_once(&g_once, init);
  return g_detected.amx;
}

int tfs_cpu_has_amx(void) {
  if (!tfs_cpu_has(TFS_CPU_ISA_AVX512)) return 0; /* also runs init */
  int f = atomic_load_explicit(&g_amx, memory_order_relaxed);
  return f >= 0 ? f && g_detected.amx : g_env_amx;
}

void tfs_cpu__set_amx(int on) {
  atomic_store(&g_amx, on < 0 ? -1 : on != 0);
}

/*
 * core/util.h - small helpers every module uses: attributes, argument
 * checks for API misuse, string formatting with malloc, overflow checks.
 */
#ifndef TFS_CORE_UTIL_H
#define TFS_CORE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define TFS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TFS_LIKELY(x) __builtin_expect(!!(x), 1)
#define TFS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TFS_UNUSED __attribute__((unused))
#else
#define TFS_PRINTF(f, a)
#define TFS_LIKELY(x) (x)
#define TFS_UNLIKELY(x) (x)
#define TFS_UNUSED
#endif

#define TFS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* API misuse (a NULL required argument...): report INVALID_ARGUMENT with
 * the failing expression and return `ret`.  Never aborts. */
#define TFS_CHECK_ARG(expr, st, ret)                                        \
  do {                                                                      \
    if (TFS_UNLIKELY(!(expr))) {                                            \
      tfs_status_setf((st), TFS_INVALID_ARGUMENT,                           \
                      "invalid argument to %s: %s", __func__, #expr);       \
      return ret;                                                           \
    }                                                                       \
  } while (0)

/* malloc'd printf; NULL when memory runs out. */
char *tfs_asprintf(const char *fmt, ...) TFS_PRINTF(1, 2);
char *tfs_vasprintf(const char *fmt, va_list ap);
char *tfs_strdup(const char *s);
char *tfs_strndup(const char *s, size_t n);

/* a*b and a+b for non-negative int64 with overflow detection: return 0 and
 * set *out on success, -1 on overflow. */
static inline int tfs_mul_overflow_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}
static inline int tfs_add_overflow_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out) ? -1 : 0;
}

/* Growable array helper: ensures *cap >= need, reallocating *ptr with
 * elements of `elem` bytes.  Returns 0 or -1 on OOM (ptr unchanged). */
int tfs_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/* Monotonic clock in nanoseconds / microseconds. */
int64_t tfs_now_ns(void);
int64_t tfs_now_wall_us(void);

#endif

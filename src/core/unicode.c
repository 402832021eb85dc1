/*
 * core/unicode.c - UTF-8 decoding and simple case mapping (core/unicode.h).
 */
#include "core/unicode.h"

int tfs_utf8_decode(const unsigned char *s, size_t n, int32_t *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = (int32_t)c;
    return 1;
  }
  int len;
  int32_t v, min;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, v = (int32_t)(c & 0x1F), min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, v = (int32_t)(c & 0x0F), min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, v = (int32_t)(c & 0x07), min = 0x10000;
  } else {
    *cp = TFS_UTF8_INVALID;
    return 1;
  }
  if ((size_t)len > n) {
    *cp = TFS_UTF8_INVALID;
    return 1;
  }
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) {
      *cp = TFS_UTF8_INVALID;
      return 1;
    }
    v = (v << 6) | (int32_t)(s[i] & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
    *cp = TFS_UTF8_INVALID;
    return 1;
  }
  *cp = v;
  return len;
}

int tfs_utf8_encode(int32_t cp, char *out) {
  unsigned char *o = (unsigned char *)out;
  if (cp < 0x80) {
    o[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (unsigned char)(0xC0 | (cp >> 6));
    o[1] = (unsigned char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (unsigned char)(0xE0 | (cp >> 12));
    o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (unsigned char)(0xF0 | (cp >> 18));
  o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (unsigned char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Every step-th code point of [lo, hi] maps to itself plus delta; the
 * ranges of a table are disjoint and sorted. */
typedef struct {
  int32_t lo, hi, delta, step;
} case_range;

#include "core/unicode_case.h"

static int32_t map(const case_range *r, size_t n, int32_t cp) {
  size_t a = 0, b = n; /* the last range with lo <= cp */
  while (b - a > 1) {
    size_t mid = (a + b) / 2;
    if (r[mid].lo <= cp)
      a = mid;
    else
      b = mid;
  }
  if (n && cp >= r[a].lo && cp <= r[a].hi && (cp - r[a].lo) % r[a].step == 0)
    return cp + r[a].delta;
  return cp;
}

int32_t tfs_unicode_lower(int32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
  if (cp == 0x130) return 'i'; /* its full mapping adds U+0307 */
  return map(kLower, sizeof kLower / sizeof kLower[0], cp);
}

int32_t tfs_unicode_upper(int32_t cp) {
  if (cp < 0x80) return cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
  return map(kUpper, sizeof kUpper / sizeof kUpper[0], cp);
}

int tfs_unicode_is_cased(int32_t cp) {
  int32_t out[3];
  return tfs_unicode_upper(cp) != cp || tfs_unicode_lower(cp) != cp ||
         tfs_unicode_upper_full(cp, out) > 1;
}

int tfs_unicode_upper_full(int32_t cp, int32_t out[3]) {
  if (cp >= 0xDF) {
    size_t a = 0, b = sizeof kUpperFull / sizeof kUpperFull[0];
    while (a < b) {
      size_t mid = (a + b) / 2;
      if (kUpperFull[mid][0] < cp)
        a = mid + 1;
      else
        b = mid;
    }
    if (a < sizeof kUpperFull / sizeof kUpperFull[0] &&
        kUpperFull[a][0] == cp) {
      int n = 0;
      while (n < 3 && kUpperFull[a][n + 1]) {
        out[n] = kUpperFull[a][n + 1];
        n++;
      }
      return n;
    }
  }
  out[0] = tfs_unicode_upper(cp);
  return 1;
}

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

/* Upper-case letters [lo, hi]: DELTA ranges map to cp + delta; PAIRS
 * ranges hold (upper, lower) pairs starting at lo. */
enum { DELTA, PAIRS };
typedef struct {
  int32_t lo, hi;
  int kind;
  int32_t delta;
} case_range;

static const case_range kCase[] = {
    {0x41, 0x5A, DELTA, 32},       {0xC0, 0xD6, DELTA, 32},
    {0xD8, 0xDE, DELTA, 32},       {0x100, 0x12F, PAIRS, 1},
    {0x132, 0x137, PAIRS, 1},      {0x139, 0x148, PAIRS, 1},
    {0x14A, 0x177, PAIRS, 1},      {0x178, 0x178, DELTA, -121},
    {0x179, 0x17E, PAIRS, 1},      {0x1C4, 0x1C4, DELTA, 2},
    {0x1C7, 0x1C7, DELTA, 2},      {0x1CA, 0x1CA, DELTA, 2},
    {0x1CD, 0x1DC, PAIRS, 1},      {0x1DE, 0x1EF, PAIRS, 1},
    {0x1F1, 0x1F1, DELTA, 2},      {0x1F4, 0x1F5, PAIRS, 1},
    {0x1F8, 0x21F, PAIRS, 1},      {0x222, 0x233, PAIRS, 1},
    {0x386, 0x386, DELTA, 38},     {0x388, 0x38A, DELTA, 37},
    {0x38C, 0x38C, DELTA, 64},     {0x38E, 0x38F, DELTA, 63},
    {0x391, 0x3A1, DELTA, 32},     {0x3A3, 0x3AB, DELTA, 32},
    {0x3D8, 0x3EF, PAIRS, 1},      {0x400, 0x40F, DELTA, 80},
    {0x410, 0x42F, DELTA, 32},     {0x460, 0x481, PAIRS, 1},
    {0x48A, 0x4BF, PAIRS, 1},      {0x4C0, 0x4C0, DELTA, 15},
    {0x4C1, 0x4CE, PAIRS, 1},      {0x4D0, 0x52F, PAIRS, 1},
    {0x531, 0x556, DELTA, 48},     {0x1E00, 0x1E95, PAIRS, 1},
    {0x1EA0, 0x1EFF, PAIRS, 1},    {0xFF21, 0xFF3A, DELTA, 32},
};

/* Letters outside the ranges: {cp, upper, lower}. */
static const int32_t kSpecial[][3] = {
    {0xB5, 0x39C, 0xB5},     {0xFF, 0x178, 0xFF},    {0x130, 0x130, 0x69},
    {0x131, 0x49, 0x131},    {0x17F, 0x53, 0x17F},   {0x1C5, 0x1C4, 0x1C6},
    {0x1C8, 0x1C7, 0x1C9},   {0x1CB, 0x1CA, 0x1CC},  {0x1F2, 0x1F1, 0x1F3},
    {0x3C2, 0x3A3, 0x3C2},   {0x1E9E, 0x1E9E, 0xDF},
};

static int special(int32_t cp, int which, int32_t *out) {
  for (size_t i = 0; i < sizeof kSpecial / sizeof kSpecial[0]; i++)
    if (kSpecial[i][0] == cp) {
      *out = kSpecial[i][which];
      return 1;
    }
  return 0;
}

int32_t tfs_unicode_lower(int32_t cp) {
  int32_t s;
  if (cp < 0x41 || special(cp, 2, &s)) return cp < 0x41 ? cp : s;
  for (size_t i = 0; i < sizeof kCase / sizeof kCase[0]; i++) {
    const case_range *r = &kCase[i];
    if (cp < r->lo || cp > r->hi) continue;
    if (r->kind == DELTA) return cp + r->delta;
    return ((cp - r->lo) & 1) ? cp : cp + 1;
  }
  return cp;
}

int32_t tfs_unicode_upper(int32_t cp) {
  int32_t s;
  if (cp < 0x61 || special(cp, 1, &s)) return cp < 0x61 ? cp : s;
  for (size_t i = 0; i < sizeof kCase / sizeof kCase[0]; i++) {
    const case_range *r = &kCase[i];
    if (r->kind == DELTA) {
      if (cp >= r->lo + r->delta && cp <= r->hi + r->delta)
        return cp - r->delta;
    } else if (cp > r->lo && cp <= r->hi && ((cp - r->lo) & 1)) {
      return cp - 1;
    }
  }
  return cp;
}

int tfs_unicode_is_cased(int32_t cp) {
  return tfs_unicode_upper(cp) != cp || tfs_unicode_lower(cp) != cp ||
         cp == 0xDF || cp == 0x130 || cp == 0x1E9E;
}

/* {cp, expansion...} (0 ends a short expansion). */
static const int32_t kUpperFull[][4] = {
    {0xDF, 0x53, 0x53, 0},        {0x149, 0x2BC, 0x4E, 0},
    {0x1F0, 0x4A, 0x30C, 0},      {0x390, 0x399, 0x308, 0x301},
    {0x3B0, 0x3A5, 0x308, 0x301}, {0x587, 0x535, 0x552, 0},
    {0xFB00, 0x46, 0x46, 0},      {0xFB01, 0x46, 0x49, 0},
    {0xFB02, 0x46, 0x4C, 0},      {0xFB03, 0x46, 0x46, 0x49},
    {0xFB04, 0x46, 0x46, 0x4C},   {0xFB05, 0x53, 0x54, 0},
    {0xFB06, 0x53, 0x54, 0},
};

int tfs_unicode_upper_full(int32_t cp, int32_t out[3]) {
  for (size_t i = 0; i < sizeof kUpperFull / sizeof kUpperFull[0]; i++)
    if (kUpperFull[i][0] == cp) {
      int n = 0;
      while (n < 3 && kUpperFull[i][n + 1]) {
        out[n] = kUpperFull[i][n + 1];
        n++;
      }
      return n;
    }
  out[0] = tfs_unicode_upper(cp);
  return 1;
}

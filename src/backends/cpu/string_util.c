/*
 * backends/cpu/string_util.c - UTF-8 case conversion for StringUpper and
 * StringLower (backends/cpu/string_util.h).
 */
#include "backends/cpu/string_util.h"

#include "core/unicode.h"

static void put_cp(tfs_strbuf *b, int32_t cp) {
  char u[4];
  tfs_strbuf_append(b, u, (size_t)tfs_utf8_encode(cp, u));
}

/* Characters the final-sigma rule looks through (Unicode's
 * Case_Ignorable: apostrophes, the period and colon, modifier marks and
 * combining diacritics). */
static int case_ignorable(int32_t cp) {
  return cp == '\'' || cp == '.' || cp == ':' || cp == '^' || cp == '`' ||
         cp == 0xA8 || cp == 0xAD || cp == 0xAF || cp == 0xB4 ||
         cp == 0xB7 || cp == 0xB8 || cp == 0x2019 ||
         (cp >= 0x2B0 && cp <= 0x36F);
}

/* Whether the capital sigma at p[at..] ends a word: `before` says a cased
 * letter precedes it; none may follow it (case-ignorable characters
 * skipped both ways). */
static int final_sigma(const unsigned char *p, size_t n, size_t at,
                       size_t len, int before) {
  if (!before) return 0;
  for (size_t k = at + len; k < n;) {
    int32_t cp;
    k += (size_t)tfs_utf8_decode(p + k, n - k, &cp);
    if (!case_ignorable(cp)) return !tfs_unicode_is_cased(cp);
  }
  return 1;
}

void tfs_str__case_utf8(tfs_strbuf *b, const char *text, size_t n,
                        int upper) {
  const unsigned char *p = (const unsigned char *)text;
  int cased_before = 0; /* the last character not case-ignorable */
  for (size_t k = 0; k < n;) {
    int32_t cp;
    int len = tfs_utf8_decode(p + k, n - k, &cp);
    int before = cased_before;
    if (!case_ignorable(cp)) cased_before = cp >= 0 && tfs_unicode_is_cased(cp);
    if (cp < 0) {
      put_cp(b, 0xFFFD);
    } else if (upper) {
      int32_t out[3];
      int m = tfs_unicode_upper_full(cp, out);
      for (int i = 0; i < m; i++) put_cp(b, out[i]);
    } else if (cp == 0x130) {
      put_cp(b, 'i');
      put_cp(b, 0x307);
    } else if (cp == 0x3A3 && final_sigma(p, n, k, (size_t)len, before)) {
      put_cp(b, 0x3C2);
    } else {
      put_cp(b, tfs_unicode_lower(cp));
    }
    k += (size_t)len;
  }
}

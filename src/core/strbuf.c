/*
 * core/strbuf.c - growable strings and shortest float formatting.
 */
#include "core/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

static int reserve(tfs_strbuf *b, size_t extra) {
  if (b->oom) return -1;
  if (b->len + extra + 1 <= b->cap) return 0;
  size_t nc = b->cap ? b->cap * 2 : 64;
  while (nc < b->len + extra + 1) nc *= 2;
  char *p = tfs_realloc(b->data, nc);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->data = p;
  b->cap = nc;
  return 0;
}

void tfs_strbuf_append(tfs_strbuf *b, const char *s, size_t n) {
  if (reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}

void tfs_strbuf_puts(tfs_strbuf *b, const char *s) {
  tfs_strbuf_append(b, s, strlen(s));
}

void tfs_strbuf_putc(tfs_strbuf *b, char c) { tfs_strbuf_append(b, &c, 1); }

void tfs_strbuf_printf(tfs_strbuf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n >= 0 && reserve(b, (size_t)n) == 0) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

const char *tfs_strbuf_str(tfs_strbuf *b) {
  return b->data && !b->oom ? b->data : "";
}

char *tfs_strbuf_take(tfs_strbuf *b) {
  char *r;
  if (b->oom) {
    tfs_free(b->data);
    r = NULL;
  } else if (!b->data) {
    r = tfs_strdup("");
  } else {
    r = b->data;
  }
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
  return r;
}

void tfs_strbuf_free(tfs_strbuf *b) {
  tfs_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

static void fix_special(char *buf, size_t cap, double v) {
  if (isnan(v))
    snprintf(buf, cap, "%s", signbit(v) ? "-nan" : "nan");
  else
    snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
}

void tfs_format_float(char *buf, size_t cap, float v) {
  if (!isfinite(v)) {
    fix_special(buf, cap, v);
    return;
  }
  /* TensorFlow's FloatToBuffer: 6 significant digits when they read back
   * exactly, else 9. */
  snprintf(buf, cap, "%.*g", 6, (double)v);
  if (strtof(buf, NULL) != v) snprintf(buf, cap, "%.*g", 9, (double)v);
}

void tfs_format_double(char *buf, size_t cap, double v) {
  if (!isfinite(v)) {
    fix_special(buf, cap, v);
    return;
  }
  snprintf(buf, cap, "%.*g", 15, v);
  if (strtod(buf, NULL) != v) snprintf(buf, cap, "%.*g", 17, v);
}

void tfs_strbuf_put_escaped(tfs_strbuf *b, const char *p, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)p[k];
    switch (c) {
      case '\n': tfs_strbuf_puts(b, "\\n"); break;
      case '\r': tfs_strbuf_puts(b, "\\r"); break;
      case '\t': tfs_strbuf_puts(b, "\\t"); break;
      case '"': tfs_strbuf_puts(b, "\\\""); break;
      case '\'': tfs_strbuf_puts(b, "\\'"); break;
      case '\\': tfs_strbuf_puts(b, "\\\\"); break;
      default:
        if (c < 0x20 || c == 0x7f)
          tfs_strbuf_printf(b, "\\%03o", c);
        else
          tfs_strbuf_putc(b, (char)c);
    }
  }
}

/*
 * core/strbuf.h - a growable string buffer for building messages and text
 * output.  Out-of-memory is sticky: later appends are ignored and
 * tfs_strbuf_take returns NULL.
 */
#ifndef TFS_CORE_STRBUF_H
#define TFS_CORE_STRBUF_H

#include <stddef.h>

#include "core/util.h"

typedef struct tfs_strbuf {
  char *data;
  size_t len;
  size_t cap;
  int oom;
} tfs_strbuf;

#define TFS_STRBUF_INIT {NULL, 0, 0, 0}

void tfs_strbuf_append(tfs_strbuf *b, const char *s, size_t n);
void tfs_strbuf_puts(tfs_strbuf *b, const char *s);
void tfs_strbuf_putc(tfs_strbuf *b, char c);
void tfs_strbuf_printf(tfs_strbuf *b, const char *fmt, ...) TFS_PRINTF(2, 3);
/* Appends n bytes C-escaped as TensorFlow's CEscape does for print_v2:
 * \n \r \t \" \' \\, other control bytes as octal "\ooo"; UTF-8
 * bytes stay as they are. */
void tfs_strbuf_put_escaped(tfs_strbuf *b, const char *p, size_t n);
/* The text (NUL-terminated, "" if empty); borrowed until the next append. */
const char *tfs_strbuf_str(tfs_strbuf *b);
/* Hands the malloc'd text to the caller (NULL after OOM) and resets. */
char *tfs_strbuf_take(tfs_strbuf *b);
void tfs_strbuf_free(tfs_strbuf *b);

/* A float/double as TensorFlow's StrCat prints it: "%.6g" (float) or
 * "%.15g" (double) when that reads back exactly, else "%.9g" / "%.17g". */
void tfs_format_float(char *buf, size_t cap, float v);
void tfs_format_double(char *buf, size_t cap, double v);

#endif

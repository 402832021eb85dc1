/*
 * backends/cpu/string_util.h - helpers the CPU string kernels share
 * (string_ops.c, string_split.c, string_regex.c).
 */
#ifndef TFS_BACKENDS_CPU_STRING_UTIL_H
#define TFS_BACKENDS_CPU_STRING_UTIL_H

#include <stddef.h>

#include "core/strbuf.h"
#include "kernels/kernel.h"

/* Sets element i of string tensor o to p[0..n); on OOM fails the kernel
 * with RESOURCE_EXHAUSTED and returns -1. */
int tfs_str__set(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i,
                 const char *p, size_t n);
/* The same with b's text (fails when b ran out of memory). */
int tfs_str__set_buf(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i,
                     tfs_strbuf *b);

/* The byte after the character starting at s[i] (i < n), as ICU's
 * U8_FWD_1 steps: a valid sequence, or the longest valid prefix of one,
 * or one byte. */
size_t tfs_str__u8_fwd(const unsigned char *s, size_t i, size_t n);

/* Appends p[0..n) upper- (upper != 0) or lower-cased as ICU does with
 * full case mapping: U+00DF to "SS", final sigma, U+0130 to "i" with a
 * combining dot; each invalid UTF-8 byte becomes U+FFFD. */
void tfs_str__case_utf8(tfs_strbuf *b, const char *p, size_t n, int upper);

#endif

/*
 * core/unicode.h - UTF-8 decoding and simple Unicode case mapping for the
 * string ops and the regex engine (core/regex.h).
 *
 * Decoding is strict: a byte that does not start a well-formed sequence
 * (overlong forms, surrogates and values past U+10FFFF included) decodes
 * as one invalid unit of one byte.  Case mapping covers the scripts that
 * have case in the Basic Multilingual Plane's common blocks: Latin
 * (Basic, Latin-1, Extended-A, the paired parts of Extended-B and
 * Extended Additional), Greek, Cyrillic, Armenian and the fullwidth
 * Latin letters.  Other letters map to themselves.
 */
#ifndef TFS_CORE_UNICODE_H
#define TFS_CORE_UNICODE_H

#include <stddef.h>
#include <stdint.h>

/* Returned by tfs_utf8_decode for a byte that starts no valid sequence. */
#define TFS_UTF8_INVALID (-1)

/* Decodes the code point at s[0..n) (n >= 1) into *cp and returns the
 * number of bytes it takes; for an invalid byte *cp is TFS_UTF8_INVALID
 * and the length 1. */
int tfs_utf8_decode(const unsigned char *s, size_t n, int32_t *cp);

/* Encodes cp (0..0x10FFFF) into out (4 bytes room); returns its length. */
int tfs_utf8_encode(int32_t cp, char *out);

/* Simple (one to one) case mappings; cp itself where it has none. */
int32_t tfs_unicode_upper(int32_t cp);
int32_t tfs_unicode_lower(int32_t cp);

/* Non-zero when cp has a case mapping either way (a cased letter). */
int tfs_unicode_is_cased(int32_t cp);

/* The full upper-case mapping of cp, which may be longer than one code
 * point (U+00DF to "SS", the Latin ligatures, U+0149): writes up to 3
 * code points to out and returns how many. */
int tfs_unicode_upper_full(int32_t cp, int32_t out[3]);

#endif

/*
 * core/regex.h - a regular expression engine in RE2's syntax and with its
 * leftmost-first semantics, for the regex string ops.
 *
 * Patterns are UTF-8 and match code points.  Supported: literals and
 * escapes (\a \f \t \n \r \v, \xHH, \x{H...}, octal \0.., \Q...\E,
 * escaped punctuation), '.', classes with ranges, negation, POSIX names
 * ([:alpha:] ...) and the Perl classes \d \D \w \W \s \S (ASCII, as RE2),
 * anchors ^ $ \A \z \b \B, groups (capturing, (?P<name>...), (?:...)),
 * flags (?imsU) and (?imsU:...) with '-' to clear, alternation, the
 * repetitions * + ? {m} {m,} {m,n} (at most 1000) and their lazy forms.
 * Not supported (refused with "invalid escape sequence"): the Unicode
 * classes \p / \P and \C.  Invalid patterns get RE2's message
 * ("missing ): (abc").
 *
 * Matching is a Pike VM: time O(text length x program size), memory
 * O(program size x captures), no backtracking.  A compiled program holds
 * at most TFS_REGEX_MAX_INSTS instructions ("pattern too large - compile
 * failed" past that).  Invalid UTF-8 in the text matches nothing but
 * empty-width items; each such byte counts as one position.
 */
#ifndef TFS_CORE_REGEX_H
#define TFS_CORE_REGEX_H

#include <stddef.h>
#include <stdint.h>

#define TFS_REGEX_MAX_INSTS 50000
#define TFS_REGEX_MAX_REPEAT 1000

typedef struct tfs_regex tfs_regex;
typedef struct tfs_regex_matcher tfs_regex_matcher;

enum {
  TFS_REGEX_UNANCHORED = 0, /* the leftmost match at or after start */
  TFS_REGEX_ANCHOR_START = 1, /* a match beginning at start */
  TFS_REGEX_ANCHOR_BOTH = 2   /* a match of all of text[start..n) */
};

/* Compiles pat[0..n).  Returns a new regex (release with tfs_regex_free),
 * or NULL with the error text in err (RE2's wording, truncated to errcap)
 * or, when memory runs out, "out of memory". */
tfs_regex *tfs_regex_compile(const char *pat, size_t n, char *err,
                             size_t errcap);
void tfs_regex_free(tfs_regex *re);

/* The number of capturing groups. */
int tfs_regex_groups(const tfs_regex *re);

/* Matching state for one thread, tracking groups 0..ncap-1 (ncap at most
 * tfs_regex_groups + 1; 0 to only ask whether there is a match).  NULL on
 * OOM.  Release with tfs_regex_matcher_free. */
tfs_regex_matcher *tfs_regex_matcher_new(const tfs_regex *re, int ncap);
void tfs_regex_matcher_free(tfs_regex_matcher *m);

/* Searches text[0..n) from byte `start` (a code point boundary; ^, \b and
 * friends see the whole text).  Returns 1 on a match with the byte
 * offsets of group g in caps[2g], caps[2g+1] (-1 for a group that did not
 * take part; caps may be NULL when ncap is 0), 0 when there is none. */
int tfs_regex_exec(tfs_regex_matcher *m, const char *text, size_t n,
                   size_t start, int anchor, int64_t *caps);

#endif

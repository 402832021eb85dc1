/*
 * tests/core/test_regex.c - the regex engine (core/regex.h): RE2's syntax
 * and leftmost-first matches, captures, case folding, anchors, UTF-8 and
 * invalid bytes, RE2's error texts, and hostile patterns and texts that
 * must finish in linear time with bounded memory.
 */
#include <stdlib.h>
#include <string.h>

#include "core/regex.h"
#include "core/util.h"
#include "testutil.h"

/* The first match of pat in text: "start,end" of group g, "none", or
 * "error: ..." */
static const char *find(const char *pat, const char *text, int g,
                        int anchor) {
  static char out[256];
  char err[128];
  tfs_regex *re = tfs_regex_compile(pat, strlen(pat), err, sizeof err);
  if (!re) {
    snprintf(out, sizeof out, "error: %s", err);
    return out;
  }
  tfs_regex_matcher *m = tfs_regex_matcher_new(re, g + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  int64_t caps[40];
  if (tfs_regex_exec(m, text, strlen(text), 0, anchor, caps))
    snprintf(out, sizeof out, "%lld,%lld", (long long)caps[2 * g],
             (long long)caps[2 * g + 1]);
  else
    snprintf(out, sizeof out, "none");
  tfs_regex_matcher_free(m);
  tfs_regex_free(re);
  return out;
}

#define FIND(pat, text, want) \
  CU_ASSERT_STRING_EQUAL(find(pat, text, 0, TFS_REGEX_UNANCHORED), want)
#define GROUP(pat, text, g, want) \
  CU_ASSERT_STRING_EQUAL(find(pat, text, g, TFS_REGEX_UNANCHORED), want)
#define FULL(pat, text, want) \
  CU_ASSERT_STRING_EQUAL(find(pat, text, 0, TFS_REGEX_ANCHOR_BOTH), want)

static void test_literals_and_classes(void) {
  FIND("abc", "xxabcx", "2,5");
  FIND("a.c", "a\nc abc", "4,7");
  FIND("(?s)a.c", "a\nc", "0,3");
  FIND("[b-d]+", "abcde", "1,4");
  FIND("[^a-c]", "abcd", "3,4");
  FIND("[]a]+", "x]a]", "1,4");
  FIND("[a-]+", "x-a-", "1,4");
  FIND("\\d+", "ab123c", "2,5");
  FIND("\\D\\W", "1a ", "1,3");
  FIND("\\s+", "a \t\nb", "1,4");
  FIND("\\s", "a\vb", "none"); /* RE2: \s is [\t\n\f\r ] */
  FIND("\\w+", "-ab_9-", "1,5");
  FIND("[[:alpha:]]+", "12abC3", "2,5");
  FIND("[[:^digit:]]+", "12ab3", "2,4");
  FIND("[\\d.]+", "a1.5b", "1,4");
  FIND("\\x41\\x{42}\\101", "zABA", "1,4");
  FIND("\\Qa.b\\E+", "axb a.bb", "4,8");
  FIND("\\.\\*\\+", "a.*+", "1,4");
  FIND("a{,2}", "a{,2}", "0,5"); /* not a repetition: literal */
}

static void test_repetition_and_priority(void) {
  FIND("a*", "aaa", "0,3");
  FIND("a*?", "aaa", "0,0");
  FIND("a+?", "aaa", "0,1");
  FIND("a{2}", "aaaa", "0,2");
  FIND("a{2,}", "aaaa", "0,4");
  FIND("a{1,3}", "aaaa", "0,3");
  FIND("a{1,3}?", "aaaa", "0,1");
  FIND("(?U)a+", "aaa", "0,1");
  FIND("(?U)a+?", "aaa", "0,3");
  /* leftmost-first, not leftmost-longest */
  FIND("a|ab", "ab", "0,1");
  FIND("ab|a", "ab", "0,2");
  FIND("(a|ab)(c|bcd)", "abcd", "0,4");
  GROUP("(a|ab)(c|bcd)", "abcd", 1, "0,1");
  GROUP("(a*)+", "b", 1, "0,0");
  GROUP("(a)|b", "b", 1, "-1,-1");
  GROUP("(?P<x>b+)", "abbc", 1, "1,3");
  GROUP("(?:a(b))+", "ababx", 1, "3,4");
  /* x* of an x that can match empty is (x+)?: an empty pass leaves the
   * loop before x's later choices (RE2's order) */
  FIND("(?:1|[^ ]*?)*", "1b2", "0,2");
  FIND("(a|)*b", "aab", "0,3");
  FIND("x*", "", "0,0");
  FIND("((a{10}){10}){10}", "a", "none"); /* 1000: allowed */
  FIND("(?P<n>a)(?P<n>b)", "ab", "0,2");  /* RE2 takes repeated names */
  FIND("(?)a", "a", "0,1");
  FIND("", "abc", "0,0");
}

static void test_anchors_and_flags(void) {
  FIND("^a", "ba", "none");
  FIND("a$", "a\n", "none"); /* $ is the end of text without (?m) */
  FIND("(?m)a$", "a\nb", "0,1");
  FIND("(?m)^b", "a\nb", "2,3");
  FIND("\\bis\\b", "this is", "5,7");
  FIND("\\Bis", "this", "2,4");
  FIND("\\Aa\\z", "a", "0,1");
  FULL("a+", "aaa", "0,3");
  FULL("a+", "aab", "none");
  FULL("a|ab", "ab", "0,2");
  FIND("(?i)straße", "STRASSE Straße", "8,15");
  FIND("(?i)é", "xÉ", "1,3");
  FIND("(?i)[a-c]+", "xABcd", "1,4");
  FIND("(?i)[^a]", "Ab", "1,2");
  FIND("(?i:a)b", "ABAb", "2,4");
  FIND("(?i)a(?-i)b", "ABAb", "2,4");
  FIND("ι", "xιx", "1,3");
}

static void test_utf8_and_invalid(void) {
  FIND(".", "é", "0,2");
  FIND("[^a]", "\xff" "b", "1,2"); /* invalid bytes match nothing */
  FIND(".", "\xc3", "none");
  FIND("b", "\xe2\x82" "b", "2,3");
  FIND("[à-ü]+", "aéü", "1,5");
}

static void test_errors(void) {
  static const char *const cases[][2] = {
      {"(abc", "missing ): (abc"},
      {"abc)", "unexpected ): abc)"},
      {"[abc", "missing ]: [abc"},
      {"a**", "bad repetition operator: **"},
      {"a{2}{3}", "bad repetition operator: {2}{3}"},
      {"*a", "no argument for repetition operator: *"},
      {"??", "no argument for repetition operator: ??"},
      {"a{1001}", "invalid repetition size: {1001}"},
      {"x{2,1}", "invalid repetition size: {2,1}"},
      {"\\1", "invalid escape sequence: \\1"},
      {"\\Z", "invalid escape sequence: \\Z"},
      {"\\pN", "invalid escape sequence: \\p"},
      {"[z-a]", "invalid character class range: z-a"},
      {"[[:foo:]]", "invalid character class range: [:foo:]"},
      {"(?z)a", "invalid perl operator: (?z"},
      {"(?=a)", "invalid perl operator: (?="},
      {"(?P=n)", "invalid perl operator: (?P"},
      {"a\\", "trailing \\"},
      {"(?i", "invalid perl operator: (?i"},
      {"(?i-)", "invalid perl operator: (?i-)"},
      {"(?P<>a)", "invalid named capture group: (?P<>"},
      {"(?P<n!>a)", "invalid named capture group: (?P<n!>"},
      {"(?P<n", "invalid named capture group: (?P<n"},
      {"[]", "missing ]: []"},
      {"\\x{110000}", "invalid escape sequence: \\x{110000"},
      {"\\x{zz}", "invalid escape sequence: \\x{z"},
      {"\\xZZ", "invalid escape sequence: \\xZ"},
      /* nested counted repetitions multiply to at most 1000 */
      {"(a{100}){100}", "invalid repetition size: {100}"},
      {"(((a{10}){10}){10}){10}", "invalid repetition size: {10}"},
      {"(?:a{2}|b{501}){2}", "invalid repetition size: {2}"},
  };
  for (size_t i = 0; i < TFS_ARRAY_LEN(cases); i++) {
    char want[160];
    snprintf(want, sizeof want, "error: %s", cases[i][1]);
    const char *got = find(cases[i][0], "x", 0, 0);
    CU_ASSERT_STRING_EQUAL(got, want);
  }
}

/* Patterns that take exponential time in a backtracking engine. */
static void test_hostile(void) {
  size_t n = 20000;
  char *text = malloc(n + 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  memset(text, 'a', n);
  text[n] = 0;
  int64_t t0 = tfs_now_ns();
  FIND("(a*)*b", text, "none");
  FIND("(a|a)*b", text, "none");
  FIND("(a+)+$", text, "0,20000");
  FIND("(x+x+)+y", text, "none");
  FULL("(a|aa)+", text, "0,20000");
  FULL("(?:a?){30}a{30}", text, "none");
  text[n] = '!';
  text[n + 1] = 0;
  FULL("(a+)+", text, "none");
  /* well under a second each on any machine; a backtracker never ends */
  CU_ASSERT_TRUE(tfs_now_ns() - t0 < 60LL * 1000000000LL);
  free(text);

  /* program size and nesting are bounded */
  char big[51 * 7 + 1];
  for (int i = 0; i < 51; i++) memcpy(big + 7 * i, "a{1000}", 7);
  big[51 * 7] = 0;
  CU_ASSERT_STRING_EQUAL(find(big, "a", 0, 0),
                         "error: pattern too large - compile failed");
  CU_ASSERT_STRING_EQUAL(find(big + 14, "a", 0, 0), "none");
  size_t depth = 5000;
  char *deep = malloc(2 * depth + 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(deep);
  for (size_t i = 0; i < depth; i++) deep[i] = '(', deep[depth + i] = ')';
  deep[2 * depth] = 0;
  CU_ASSERT_STRING_EQUAL(find(deep, "a", 0, 0),
                         "error: expression nests too deeply");
  /* a long literal and a long alternation compile without deep recursion */
  char *lit = malloc(40001);
  CU_ASSERT_PTR_NOT_NULL_FATAL(lit);
  for (size_t i = 0; i < 30000; i++) lit[i] = (i % 2) ? '|' : 'b';
  lit[29999] = 'b';
  lit[30000] = 0;
  FIND(lit, "abb", "1,2"); /* the first alternative wins */
  lit[40000] = 0;
  memset(lit, 'c', 40000);
  FIND(lit, "cc", "none");
  free(deep);
  free(lit);
}

static void test_exec_from_offset(void) {
  char err[64];
  tfs_regex *re = tfs_regex_compile("\\bb|^c", 6, err, sizeof err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(re);
  CU_ASSERT_EQUAL(tfs_regex_groups(re), 0);
  tfs_regex_matcher *m = tfs_regex_matcher_new(re, 1);
  CU_ASSERT_PTR_NULL(tfs_regex_matcher_new(re, 2)); /* no group 1 */
  int64_t caps[2];
  /* from offset 1 the 'b' of "ab" is not at a word boundary, and ^ is
   * the beginning of the text, not of the search */
  CU_ASSERT_EQUAL(tfs_regex_exec(m, "cab b", 5, 1, 0, caps), 1);
  CU_ASSERT_EQUAL(caps[0], 4);
  CU_ASSERT_EQUAL(tfs_regex_exec(m, "cab b", 5, 1,
                                 TFS_REGEX_ANCHOR_START, caps), 0);
  tfs_regex_matcher_free(m);
  tfs_regex_free(re);

  /* an empty match may begin inside a multi-byte character, as RE2's
   * byte-wise search finds it: \B between two continuation bytes */
  re = tfs_regex_compile("\\B", 2, err, sizeof err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(re);
  m = tfs_regex_matcher_new(re, 1);
  const char *t = "\xc3\xa9" "a" "\xe6\x97\xa5" "b"; /* é a 日 b */
  CU_ASSERT_EQUAL(tfs_regex_exec(m, t, strlen(t), 3, 0, caps), 1);
  CU_ASSERT_EQUAL(caps[0], 4);
  CU_ASSERT_EQUAL(tfs_regex_exec(m, t, strlen(t), 3,
                                 TFS_REGEX_ANCHOR_START, caps), 0);
  tfs_regex_matcher_free(m);
  tfs_regex_free(re);
}

static const tfs_test_case regex_cases[] = {
    {"literals_and_classes", test_literals_and_classes},
    {"repetition_and_priority", test_repetition_and_priority},
    {"anchors_and_flags", test_anchors_and_flags},
    {"utf8_and_invalid", test_utf8_and_invalid},
    {"errors", test_errors},
    {"hostile", test_hostile},
    {"exec_from_offset", test_exec_from_offset},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"regex", regex_cases},
                                          {NULL, NULL}};

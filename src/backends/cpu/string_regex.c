/*
 * backends/cpu/string_regex.c - RegexReplace, StaticRegexReplace,
 * RegexFullMatch and StaticRegexFullMatch on the regex engine of
 * core/regex.h, with RE2's Replace / GlobalReplace / FullMatch rules as
 * TensorFlow calls them: \0..\9 in the rewrite name groups ("\\" is a
 * backslash); a rewrite naming a group the pattern lacks leaves the text
 * unchanged; after an empty match the next one may not be empty at the
 * same place (the search steps over one character); a bad escape in the
 * rewrite ends that rewrite (GlobalReplace) or leaves the text unchanged
 * (Replace).
 */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/regex.h"
#include "core/tstring.h"
#include "core/unicode.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/string_util.h"

typedef struct {
  tfs_regex *re;
  char *rewrite;
  size_t rlen;
  int global;
} regex_state;

static void state_release(void *p) {
  regex_state *s = p;
  if (!s) return;
  tfs_regex_free(s->re);
  tfs_free(s->rewrite);
  tfs_free(s);
}

/* The highest group number a rewrite names (RE2's MaxSubmatch). */
static int max_submatch(const char *r, size_t n) {
  int max = 0;
  for (size_t i = 0; i < n; i++)
    if (r[i] == '\\' && ++i < n && r[i] >= '0' && r[i] <= '9' &&
        r[i] - '0' > max)
      max = r[i] - '0';
  return max;
}

/* Appends the rewrite with groups filled in; 0 at a bad escape (what was
 * appended stays). */
static int rewrite(tfs_strbuf *b, const char *r, size_t rn, const char *t,
                   const int64_t *caps, int ncap) {
  for (size_t i = 0; i < rn; i++) {
    if (r[i] != '\\') {
      tfs_strbuf_putc(b, r[i]);
      continue;
    }
    int ch = ++i < rn ? (unsigned char)r[i] : -1;
    if (ch >= '0' && ch <= '9') {
      int g = ch - '0';
      if (g >= ncap) return 0;
      if (caps[2 * g] >= 0)
        tfs_strbuf_append(b, t + caps[2 * g],
                          (size_t)(caps[2 * g + 1] - caps[2 * g]));
    } else if (ch == '\\') {
      tfs_strbuf_putc(b, '\\');
    } else {
      return 0;
    }
  }
  return 1;
}

/* RE2::GlobalReplace / RE2::Replace of one string into b; 0 when the text
 * stays as it is. */
static int replace_one(tfs_regex_matcher *m, int ncap, const char *t,
                       size_t n, const char *r, size_t rn, int global,
                       tfs_strbuf *b) {
  int64_t caps[20];
  if (!global) {
    if (!tfs_regex_exec(m, t, n, 0, TFS_REGEX_UNANCHORED, caps)) return 0;
    tfs_strbuf_append(b, t, (size_t)caps[0]);
    if (!rewrite(b, r, rn, t, caps, ncap)) return 0;
    tfs_strbuf_append(b, t + caps[1], n - (size_t)caps[1]);
    return 1;
  }
  size_t p = 0;
  int64_t lastend = -1, count = 0;
  while (p <= n) {
    if (!tfs_regex_exec(m, t, n, p, TFS_REGEX_UNANCHORED, caps)) break;
    if ((int64_t)p < caps[0])
      tfs_strbuf_append(b, t + p, (size_t)caps[0] - p);
    if (caps[0] == lastend && caps[0] == caps[1]) {
      /* no empty match where the last one ended: step one character */
      size_t step = 1;
      if (p < n) {
        int32_t cp;
        step = (size_t)tfs_utf8_decode((const unsigned char *)t + p, n - p,
                                       &cp);
        tfs_strbuf_append(b, t + p, step);
      }
      p += step;
      continue;
    }
    rewrite(b, r, rn, t, caps, ncap);
    p = (size_t)caps[1];
    lastend = caps[1];
    count++;
  }
  if (count == 0) return 0;
  if (p < n) tfs_strbuf_append(b, t + p, n - p);
  return 1;
}

static void replace_all(tfs_kernel_ctx *c, const tfs_regex *re,
                        const char *r, size_t rn, int global) {
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  const tfs_tstring *src = tfs_tensor__strings(in);
  int ncap = 1 + max_submatch(r, rn);
  int valid = ncap <= 1 + tfs_regex_groups(re);
  tfs_regex_matcher *m = valid ? tfs_regex_matcher_new(re, ncap) : NULL;
  if (valid && !m) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory matching");
    return;
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  for (int64_t i = 0; i < in->nelems; i++) {
    const char *t = tfs_tstring_data(&src[i]);
    size_t n = tfs_tstring_size(&src[i]);
    b.len = 0;
    int changed = valid && replace_one(m, ncap, t, n, r, rn, global, &b);
    if (changed ? tfs_str__set_buf(c, o, i, &b) : tfs_str__set(c, o, i, t, n))
      break;
  }
  tfs_strbuf_free(&b);
  tfs_regex_matcher_free(m);
}

static void full_match_all(tfs_kernel_ctx *c, const tfs_regex *re) {
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  tfs_regex_matcher *m = tfs_regex_matcher_new(re, 0);
  if (!m) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory matching");
    return;
  }
  const tfs_tstring *src = tfs_tensor__strings(in);
  uint8_t *out = o->data;
  for (int64_t i = 0; i < in->nelems; i++)
    out[i] = (uint8_t)tfs_regex_exec(m, tfs_tstring_data(&src[i]),
                                     tfs_tstring_size(&src[i]), 0,
                                     TFS_REGEX_ANCHOR_BOTH, NULL);
  tfs_regex_matcher_free(m);
}

/* "Invalid pattern: P, error: E" */
static tfs_regex *compile(const char *p, size_t n, char *msg, size_t cap) {
  char err[256];
  tfs_regex *re = tfs_regex_compile(p, n, err, sizeof err);
  if (!re)
    snprintf(msg, cap, "Invalid pattern: %.*s, error: %s", (int)n, p, err);
  return re;
}

/* Input i (pattern or rewrite) must be a scalar. */
static const tfs_tstring *scalar_arg(tfs_kernel_ctx *c, int i,
                                     const char *what) {
  const tfs_tensor *t = c->inputs[i];
  if (t->shape.rank != 0) {
    char b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be scalar, but "
                  "received %s", what, tfs_shape_str(&t->shape, b, sizeof b));
    return NULL;
  }
  return tfs_tensor__strings(t);
}

static tfs_regex *pattern_input(tfs_kernel_ctx *c) {
  const tfs_tstring *p = scalar_arg(c, 1, "Pattern");
  if (!p) return NULL;
  char msg[1024];
  tfs_regex *re = compile(tfs_tstring_data(p), tfs_tstring_size(p), msg,
                          sizeof msg);
  if (!re) tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
  return re;
}

static void regex_replace_compute(tfs_kernel_ctx *c) {
  tfs_regex *re = pattern_input(c);
  if (!re) return;
  const tfs_tstring *r = scalar_arg(c, 2, "Rewrite");
  if (r)
    replace_all(c, re, tfs_tstring_data(r), tfs_tstring_size(r),
                (int)(intptr_t)c->state);
  tfs_regex_free(re);
}

static int global_prepare(tfs_kernel_init *ki) {
  int g = 1;
  tfs_attrs_get_bool(ki->attrs, "replace_global", &g);
  ki->state = (void *)(intptr_t)g;
  return 0;
}

static void regex_full_match_compute(tfs_kernel_ctx *c) {
  tfs_regex *re = pattern_input(c);
  if (!re) return;
  full_match_all(c, re);
  tfs_regex_free(re);
}

static int static_prepare(tfs_kernel_init *ki) {
  size_t pn = 0, rn = 0;
  const char *p = tfs_attrs_get_string(ki->attrs, "pattern", &pn);
  const char *r = tfs_attrs_get_string(ki->attrs, "rewrite", &rn);
  regex_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->global = 1;
  tfs_attrs_get_bool(ki->attrs, "replace_global", &s->global);
  char msg[1024];
  s->re = compile(p ? p : "", p ? pn : 0, msg, sizeof msg);
  if (!s->re) {
    state_release(s);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "%s", msg);
  }
  s->rewrite = tfs_strndup(r ? r : "", r ? rn : 0);
  s->rlen = r ? rn : 0;
  if (!s->rewrite) {
    state_release(s);
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  ki->state = s;
  return 0;
}

static void static_replace_compute(tfs_kernel_ctx *c) {
  const regex_state *s = c->state;
  replace_all(c, s->re, s->rewrite, s->rlen, s->global);
}

static void static_full_match_compute(tfs_kernel_ctx *c) {
  const regex_state *s = c->state;
  full_match_all(c, s->re);
}

const tfs_kernel_def tfs_cpu_kernels_string_regex[] = {
    {"RegexReplace", "CPU", NULL, 0, global_prepare, regex_replace_compute,
     NULL, 0, NULL},
    {"StaticRegexReplace", "CPU", NULL, 0, static_prepare,
     static_replace_compute, state_release, 0, NULL},
    {"RegexFullMatch", "CPU", NULL, 0, NULL, regex_full_match_compute, NULL,
     0, NULL},
    {"StaticRegexFullMatch", "CPU", NULL, 0, static_prepare,
     static_full_match_compute, state_release, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

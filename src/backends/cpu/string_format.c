/*
 * backends/cpu/string_format.c - StringFormat (tf.strings.format) and
 * PrintV2 (tf.print), with tensors in TensorFlow's print_v2 layout
 * (tfs_tensor__format_v2, core/tensor_format.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/tstring.h"
#include "core/util.h"
#include "backends/cpu/cpu_tables.h"

/* ---- StringFormat ------------------------------------------------------ */

typedef struct {
  int n;          /* template pieces: placeholders + 1 */
  char **piece;
  size_t *len;
  int64_t summarize;
} fmt_state;

static void fmt_release(void *p) {
  fmt_state *s = p;
  if (!s) return;
  for (int i = 0; i < s->n; i++) tfs_free(s->piece[i]);
  tfs_free(s->piece);
  tfs_free(s->len);
  tfs_free(s);
}

static int add_piece(fmt_state *s, const char *p, size_t n) {
  char **pp = tfs_realloc(s->piece, sizeof(char *) * (size_t)(s->n + 1));
  if (!pp) return -1;
  s->piece = pp;
  size_t *pl = tfs_realloc(s->len, sizeof(size_t) * (size_t)(s->n + 1));
  if (!pl) return -1;
  s->len = pl;
  if (!(s->piece[s->n] = tfs_strndup(p, n))) return -1;
  s->len[s->n++] = n;
  return 0;
}

/* absl::StrSplit(template, placeholder): non-overlapping; an empty
 * placeholder splits into single characters. */
static int split_template(fmt_state *s, const char *t, size_t tl,
                          const char *ph, size_t pl) {
  if (pl == 0) {
    if (tl == 0) return add_piece(s, "", 0);
    for (size_t i = 0; i < tl; i++)
      if (add_piece(s, t + i, 1)) return -1;
    return 0;
  }
  size_t start = 0;
  for (size_t i = 0; i + pl <= tl;) {
    if (memcmp(t + i, ph, pl) == 0) {
      if (add_piece(s, t + start, i - start)) return -1;
      i += pl;
      start = i;
    } else {
      i++;
    }
  }
  return add_piece(s, t + start, tl - start);
}

static int fmt_prepare(tfs_kernel_init *ki) {
  fmt_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  size_t tl = 0, pl = 0;
  const char *t = tfs_attrs_get_string(ki->attrs, "template", &tl);
  const char *ph = tfs_attrs_get_string(ki->attrs, "placeholder", &pl);
  s->summarize = 3;
  tfs_attrs_get_int(ki->attrs, "summarize", &s->summarize);
  if (split_template(s, t ? t : "%s", t ? tl : 2, ph ? ph : "%s",
                     ph ? pl : 2)) {
    fmt_release(s);
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (s->n - 1 != ki->ninputs) {
    int n = s->n - 1;
    fmt_release(s);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "num placeholders in template and num inputs must "
                        "match: %d vs. %d", n, ki->ninputs);
  }
  ki->state = s;
  return 0;
}

static void fmt_compute(tfs_kernel_ctx *c) {
  const fmt_state *s = c->state;
  tfs_strbuf b = TFS_STRBUF_INIT;
  for (int i = 0; i < c->ninputs; i++) {
    tfs_strbuf_append(&b, s->piece[i], s->len[i]);
    tfs_tensor__format_v2(&b, c->inputs[i], s->summarize);
  }
  tfs_strbuf_append(&b, s->piece[s->n - 1], s->len[s->n - 1]);
  tfs_shape scalar;
  tfs_shape_scalar(&scalar);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &scalar);
  const char *text = tfs_strbuf_str(&b);
  if (o && tfs_tstring_copy(tfs_tensor__strings(o), text, strlen(text)))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_strbuf_free(&b);
}

/* ---- PrintV2 ------------------------------------------------------------ */

enum { OUT_STDERR, OUT_STDOUT, OUT_INFO, OUT_WARNING, OUT_ERROR, OUT_FILE };

typedef struct {
  int stream;
  char *path;  /* OUT_FILE */
  char *end;
  size_t end_len;
} pv2_state;

static void pv2_release(void *p) {
  pv2_state *s = p;
  if (!s) return;
  tfs_free(s->path);
  tfs_free(s->end);
  tfs_free(s);
}

static int pv2_prepare(tfs_kernel_init *ki) {
  static const char *const kStreams[] = {"stderr", "stdout", "log(info)",
                                         "log(warning)", "log(error)"};
  size_t len = 0, elen = 0;
  const char *os = tfs_attrs_get_string(ki->attrs, "output_stream", &len);
  const char *end = tfs_attrs_get_string(ki->attrs, "end", &elen);
  if (!os) os = "stderr";
  pv2_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->stream = -1;
  for (int i = 0; i < 5; i++)
    if (strcmp(os, kStreams[i]) == 0) s->stream = i;
  if (s->stream < 0 && strncmp(os, "file://", 7) == 0) {
    s->stream = OUT_FILE;
    s->path = tfs_strdup(os + 7);
  }
  if (s->stream < 0) {
    pv2_release(s);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Unknown output stream: %s, Valid streams are: "
                        "stdout stderr log(info) log(warning) log(error)",
                        os);
  }
  s->end = tfs_strndup(end ? end : "\n", end ? elen : 1);
  s->end_len = end ? elen : 1;
  if (!s->end || (s->stream == OUT_FILE && !s->path)) {
    pv2_release(s);
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  ki->state = s;
  return 0;
}

static void pv2_compute(tfs_kernel_ctx *c) {
  const pv2_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  if (in->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input is expected to be scalar, "
                  "but got %s", tfs_shape_str(&in->shape, b, sizeof b));
    return;
  }
  const tfs_tstring *str = tfs_tensor__strings(in);
  tfs_strbuf msg = TFS_STRBUF_INIT;
  tfs_strbuf_append(&msg, tfs_tstring_data(str), tfs_tstring_size(str));
  if (tfs_log_has_listeners()) {
    /* log listeners take the text, with its end, in place of any stream */
    tfs_strbuf ended = TFS_STRBUF_INIT;
    tfs_strbuf_append(&ended, tfs_strbuf_str(&msg), msg.len);
    tfs_strbuf_append(&ended, s->end, s->end_len);
    int taken = tfs_log_to_listeners(tfs_strbuf_str(&ended));
    tfs_strbuf_free(&ended);
    if (taken) {
      tfs_strbuf_free(&msg);
      return;
    }
  }
  if (s->stream >= OUT_INFO && s->stream <= OUT_ERROR) {
    static const int kLevel[] = {TFS_LOG_INFO, TFS_LOG_WARN, TFS_LOG_ERROR};
    tfs_log(kLevel[s->stream - OUT_INFO], "%s", tfs_strbuf_str(&msg));
    tfs_strbuf_free(&msg);
    return;
  }
  tfs_strbuf_append(&msg, s->end, s->end_len);
  const char *text = tfs_strbuf_str(&msg);
  if (s->stream == OUT_STDERR) {
    tfs_kctx_log(c, text);
  } else if (s->stream == OUT_STDOUT) {
    fputs(text, stdout);
    fflush(stdout);
  } else {
    FILE *f = fopen(s->path, "a");
    if (!f || fputs(text, f) < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Failed to write to file: %s",
                    s->path);
    }
    if (f) fclose(f);
  }
  tfs_strbuf_free(&msg);
}

const tfs_kernel_def tfs_cpu_kernels_string_format[] = {
    {"StringFormat", "CPU", NULL, 0, fmt_prepare, fmt_compute, fmt_release,
     0, NULL},
    {"PrintV2", "CPU", NULL, 0, pv2_prepare, pv2_compute, pv2_release, 0,
     NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

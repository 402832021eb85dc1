/*
 * backends/cpu/string_ops.c - StringJoin, ReduceJoin, StringLength,
 * Substr, StringUpper, StringLower and StringStrip on string tensors
 * (24-byte tstring records, core/tstring.h), with TensorFlow's checks and
 * messages.  UTF-8 positions follow ICU's U8_FWD_1 as TensorFlow's
 * kernels do (a truncated sequence counts as one character); case mapping
 * with encoding "utf-8" uses core/unicode.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/tstring.h"
#include "core/unicode.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/string_util.h"

int tfs_str__set(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i,
                 const char *p, size_t n) {
  if (tfs_tstring_copy(&tfs_tensor__strings(o)[i], p, n)) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory building a "
                  "string of %zu bytes", n);
    return -1;
  }
  return 0;
}

int tfs_str__set_buf(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i,
                     tfs_strbuf *b) {
  if (b->oom) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory building a "
                  "string");
    return -1;
  }
  return tfs_str__set(c, o, i, b->data ? b->data : "", b->len);
}

/* ---- StringJoin ---------------------------------------------------------- */

/* The separator attr (StringJoin and ReduceJoin), with its length: NUL
 * bytes inside it are kept. */
typedef struct {
  char *sep;
  size_t len;
  int keep_dims;
} join_state;

static void join_release(void *p) {
  join_state *s = p;
  if (!s) return;
  tfs_free(s->sep);
  tfs_free(s);
}

static int join_prepare(tfs_kernel_init *ki) {
  join_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  size_t n = 0;
  const char *sep = tfs_attrs_get_string(ki->attrs, "separator", &n);
  s->sep = tfs_strndup(sep ? sep : "", sep ? n : 0);
  s->len = sep ? n : 0;
  tfs_attrs_get_bool(ki->attrs, "keep_dims", &s->keep_dims);
  if (!s->sep) {
    join_release(s);
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  ki->state = s;
  return 0;
}

static void string_join_compute(tfs_kernel_ctx *c) {
  const join_state *st = c->state;
  const tfs_shape *shape = NULL;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int k = 0; k < c->ninputs; k++) {
    const tfs_shape *s = &c->inputs[k]->shape;
    if (s->rank == 0) continue;
    if (!shape) {
      shape = s;
    } else if (!tfs_shape_equal(shape, s)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input shapes do not match: %s vs. %s",
                    tfs_shape_str(shape, a, sizeof a),
                    tfs_shape_str(s, b, sizeof b));
      return;
    }
  }
  tfs_shape scalar;
  tfs_shape_scalar(&scalar);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, shape ? shape : &scalar);
  if (!o) return;
  tfs_strbuf buf = TFS_STRBUF_INIT;
  for (int64_t i = 0; i < o->nelems; i++) {
    buf.len = 0;
    for (int k = 0; k < c->ninputs; k++) {
      const tfs_tensor *in = c->inputs[k];
      const tfs_tstring *s = &tfs_tensor__strings(in)[in->shape.rank ? i : 0];
      if (k) tfs_strbuf_append(&buf, st->sep, st->len);
      tfs_strbuf_append(&buf, tfs_tstring_data(s), tfs_tstring_size(s));
    }
    if (tfs_str__set_buf(c, o, i, &buf)) break;
  }
  tfs_strbuf_free(&buf);
}

/* ---- ReduceJoin ---------------------------------------------------------- */

static void reduce_join_compute(tfs_kernel_ctx *c) {
  const join_state *s = c->state;
  const tfs_tensor *in = c->inputs[0], *ax = c->inputs[1];
  int r = in->shape.rank;
  uint8_t red[TFS_MAX_RANK] = {0};
  const int32_t *axes = ax->data;
  for (int64_t k = 0; k < ax->nelems; k++) {
    int32_t a = axes[k];
    if (a < -r || a >= r) {
      tfs_kctx_fail(c, TFS_OUT_OF_RANGE, "Invalid reduction dimension %d "
                    "for input with %d dimension(s)", a, r);
      return;
    }
    int t = a < 0 ? a + r : a;
    if (red[t]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Duplicate reduction dimension %d", a);
      return;
    }
    red[t] = 1;
  }
  tfs_shape out = {.rank = 0};
  /* strides and the count of strings joined per output are only used
   * (and only computed: they could overflow) when the input has
   * elements */
  int64_t strides[TFS_MAX_RANK] = {0};
  int64_t st = 1, rn = in->nelems > 0;
  for (int d = r - 1; d >= 0 && in->nelems > 0; d--) {
    strides[d] = st;
    st *= in->shape.dims[d];
    if (red[d]) rn *= in->shape.dims[d];
  }
  for (int d = 0; d < r; d++) {
    if (!red[d])
      out.dims[out.rank++] = in->shape.dims[d];
    else if (s->keep_dims)
      out.dims[out.rank++] = 1;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o) return;
  const tfs_tstring *src = tfs_tensor__strings(in);
  tfs_strbuf buf = TFS_STRBUF_INIT;
  for (int64_t i = 0; i < o->nelems; i++) {
    /* the input offset of output i over the kept dims */
    int64_t rem = i, base = 0;
    for (int d = r - 1; d >= 0; d--) {
      if (red[d]) continue;
      int64_t n = in->shape.dims[d];
      base += (rem % n) * strides[d];
      rem /= n;
    }
    buf.len = 0;
    for (int64_t j = 0; j < rn; j++) {
      /* TensorFlow's order: the first axis given varies fastest */
      int64_t jr = j, off = base;
      for (int64_t k = 0; k < ax->nelems; k++) {
        int d = axes[k] < 0 ? axes[k] + r : axes[k];
        int64_t n = in->shape.dims[d];
        off += (jr % n) * strides[d];
        jr /= n;
      }
      if (j) tfs_strbuf_append(&buf, s->sep, s->len);
      tfs_strbuf_append(&buf, tfs_tstring_data(&src[off]),
                        tfs_tstring_size(&src[off]));
    }
    if (tfs_str__set_buf(c, o, i, &buf)) break;
  }
  tfs_strbuf_free(&buf);
}

/* ---- StringLength, Substr ------------------------------------------------ */

static const int kByte = 0, kUtf8 = 1;

static int unit_prepare(tfs_kernel_init *ki) {
  size_t n = 0;
  const char *u = tfs_attrs_get_string(ki->attrs, "unit", &n);
  ki->state = (void *)(intptr_t)(u && n == 9 && !memcmp(u, "UTF8_CHAR", 9)
                                     ? kUtf8 : kByte);
  return 0;
}

static void string_length_compute(tfs_kernel_ctx *c) {
  int utf8 = (int)(intptr_t)c->state == kUtf8;
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  const tfs_tstring *s = tfs_tensor__strings(in);
  int32_t *out = o->data;
  for (int64_t i = 0; i < in->nelems; i++) {
    const unsigned char *p = (const unsigned char *)tfs_tstring_data(&s[i]);
    size_t n = tfs_tstring_size(&s[i]), len = n;
    if (utf8) {
      len = 0;
      for (size_t k = 0; k < n; k++) len += (p[k] & 0xC0) != 0x80;
    }
    out[i] = (int32_t)len;
  }
}

size_t tfs_str__u8_fwd(const unsigned char *s, size_t i, size_t n) {
  unsigned b = s[i++];
  if (b < 0xC2 || b > 0xF4 || i == n) return i;
  unsigned t1 = s[i];
  if (b < 0xE0) return (t1 & 0xC0) == 0x80 ? i + 1 : i;
  if (b < 0xF0) {
    int ok = b == 0xE0 ? (t1 >= 0xA0 && t1 <= 0xBF)
             : b == 0xED ? (t1 >= 0x80 && t1 <= 0x9F)
                         : (t1 & 0xC0) == 0x80;
    if (!ok) return i;
    if (++i == n || (s[i] & 0xC0) != 0x80) return i;
    return i + 1;
  }
  int ok = b == 0xF0 ? (t1 >= 0x90 && t1 <= 0xBF)
           : b == 0xF4 ? (t1 >= 0x80 && t1 <= 0x8F)
                       : (t1 & 0xC0) == 0x80;
  if (!ok) return i;
  if (++i == n || (s[i] & 0xC0) != 0x80) return i;
  if (++i == n || (s[i] & 0xC0) != 0x80) return i;
  return i + 1;
}

/* The byte range of characters [pos, pos + len) of s (pos < 0 counts from
 * the end, len < 0 takes the rest for bytes and nothing for
 * characters); 0 when pos is out of range: beyond either end, or, for
 * characters, negative with a negative length. */
static int sub_range(const char *p, size_t n, int64_t pos, int64_t len,
                     int utf8, size_t *b0, size_t *b1) {
  const unsigned char *s = (const unsigned char *)p;
  if (!utf8) {
    int64_t sz = (int64_t)n;
    if (pos >= 0 ? pos > sz : pos < -sz) return 0;
    if (pos < 0) pos += sz;
    *b0 = (size_t)pos;
    *b1 = len < 0 || len > sz - pos ? n : (size_t)(pos + len);
    return 1;
  }
  int64_t chars = 0;
  for (size_t k = 0; k < n; k = tfs_str__u8_fwd(s, k, n)) chars++;
  /* from the end, a negative length is out of range too */
  if (pos >= 0 ? pos > chars : pos < -chars || len < 0) return 0;
  if (pos < 0) pos += chars;
  size_t k = 0;
  for (int64_t m = 0; m < pos; m++) k = tfs_str__u8_fwd(s, k, n);
  *b0 = k;
  for (int64_t m = 0; m < len && k < n; m++) k = tfs_str__u8_fwd(s, k, n);
  *b1 = k;
  return 1;
}

static int64_t int_at(const tfs_tensor *t, int64_t i) {
  return t->dtype == TFS_INT64 ? ((const int64_t *)t->data)[i]
                               : ((const int32_t *)t->data)[i];
}

/* One output element; index text for the message in `where`. */
static int substr_one(tfs_kernel_ctx *c, tfs_tensor *o, int64_t oi,
                      const tfs_tstring *s, int64_t pos, int64_t len,
                      int utf8, const char *where) {
  const char *p = tfs_tstring_data(s);
  size_t n = tfs_tstring_size(s), b0, b1;
  if (!sub_range(p, n, pos, len, utf8, &b0, &b1)) {
    if (utf8)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "pos %" PRId64 " out of range "
                    "for string at index %s", pos, where);
    else
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "pos %" PRId64 " out of range "
                    "for string b'%.*s' at index %s", pos, (int)n, p,
                    where);
    return -1;
  }
  return tfs_str__set(c, o, oi, p + b0, b1 - b0);
}

static void substr_compute(tfs_kernel_ctx *c) {
  int utf8 = (int)(intptr_t)c->state == kUtf8;
  const tfs_tensor *in = c->inputs[0], *pos = c->inputs[1],
                   *len = c->inputs[2];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN], where[64];
  if (!tfs_shape_equal(&pos->shape, &len->shape)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "pos and len should have the "
                  "same shape, got: %s vs. %s",
                  tfs_shape_str(&pos->shape, a, sizeof a),
                  tfs_shape_str(&len->shape, b, sizeof b));
    return;
  }
  const tfs_tstring *src = tfs_tensor__strings(in);
  if (tfs_shape_equal(&in->shape, &pos->shape) || pos->shape.rank == 0) {
    tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
    int scalar = pos->shape.rank == 0;
    for (int64_t i = 0; o && i < in->nelems; i++) {
      snprintf(where, sizeof where, "%" PRId64, i);
      if (substr_one(c, o, i, &src[i], int_at(pos, scalar ? 0 : i),
                     int_at(len, scalar ? 0 : i), utf8, where))
        return;
    }
    return;
  }
  tfs_shape out;
  if (tfs_shape_broadcast(&in->shape, &pos->shape, &out)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s",
                  tfs_shape_str(&in->shape, a, sizeof a),
                  tfs_shape_str(&pos->shape, b, sizeof b));
    return;
  }
  /* TensorFlow's kernel broadcasts ranks 1 and 2 only and refuses the
   * others with this UNIMPLEMENTED (case ops_strings/error_substr_3d_bcast) */
  if (out.rank > 2) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED, "Substr broadcast not implemented "
                  "for %d dimensions", out.rank);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o) return;
  int64_t cols = out.rank == 2 ? out.dims[1] : out.dims[0];
  int64_t rows = out.rank == 2 ? out.dims[0] : 1;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      /* each operand's element at (i, j), its size-1 dims broadcast */
      const tfs_tensor *ts[2] = {in, pos};
      int64_t idx[2];
      for (int t = 0; t < 2; t++) {
        const tfs_shape *sh = &ts[t]->shape;
        int64_t ci = sh->rank >= 1 && sh->dims[sh->rank - 1] > 1 ? j : 0;
        int64_t ri = sh->rank == 2 && sh->dims[0] > 1 ? i : 0;
        idx[t] = ri * (sh->rank >= 1 ? sh->dims[sh->rank - 1] : 1) + ci;
      }
      if (out.rank == 1 || utf8)
        snprintf(where, sizeof where, "%" PRId64, out.rank == 1 ? j : i);
      else
        snprintf(where, sizeof where, "(%" PRId64 ", %" PRId64 ")", i, j);
      if (substr_one(c, o, i * cols + j, &src[idx[0]], int_at(pos, idx[1]),
                     int_at(len, idx[1]), utf8, where))
        return;
    }
}

/* ---- StringUpper, StringLower, StringStrip ------------------------------- */

static int case_prepare(tfs_kernel_init *ki) {
  size_t n = 0;
  const char *e = tfs_attrs_get_string(ki->attrs, "encoding", &n);
  if (!e || n == 0) {
    ki->state = (void *)(intptr_t)0;
    return 0;
  }
  if (n == 5 && !memcmp(e, "utf-8", 5)) {
    ki->state = (void *)(intptr_t)1;
    return 0;
  }
  return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "only utf-8 or '' (no "
                      "encoding) is supported, received %.*s", (int)n, e);
}

static void case_compute(tfs_kernel_ctx *c, int upper) {
  int utf8 = (int)(intptr_t)c->state;
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  const tfs_tstring *s = tfs_tensor__strings(in);
  tfs_strbuf buf = TFS_STRBUF_INIT;
  for (int64_t i = 0; i < in->nelems; i++) {
    const char *p = tfs_tstring_data(&s[i]);
    size_t n = tfs_tstring_size(&s[i]);
    buf.len = 0;
    if (utf8) {
      tfs_str__case_utf8(&buf, p, n, upper);
    } else {
      for (size_t k = 0; k < n; k++) {
        char ch = p[k];
        if (upper && ch >= 'a' && ch <= 'z') ch = (char)(ch - 32);
        if (!upper && ch >= 'A' && ch <= 'Z') ch = (char)(ch + 32);
        tfs_strbuf_putc(&buf, ch);
      }
    }
    if (tfs_str__set_buf(c, o, i, &buf)) break;
  }
  tfs_strbuf_free(&buf);
}

static void upper_compute(tfs_kernel_ctx *c) { case_compute(c, 1); }
static void lower_compute(tfs_kernel_ctx *c) { case_compute(c, 0); }

static int is_ascii_space(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\v' ||
         ch == '\f' || ch == '\r';
}

static void strip_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  const tfs_tstring *s = tfs_tensor__strings(in);
  for (int64_t i = 0; i < in->nelems; i++) {
    const char *p = tfs_tstring_data(&s[i]);
    size_t b = 0, e = tfs_tstring_size(&s[i]);
    while (b < e && is_ascii_space(p[b])) b++;
    while (e > b && is_ascii_space(p[e - 1])) e--;
    if (tfs_str__set(c, o, i, p + b, e - b)) return;
  }
}

#define STR TFS_DT_BIT(TFS_STRING)

const tfs_kernel_def tfs_cpu_kernels_string[] = {
    {"StringJoin", "CPU", NULL, 0, join_prepare, string_join_compute,
     join_release, 0, NULL},
    {"ReduceJoin", "CPU", NULL, 0, join_prepare, reduce_join_compute,
     join_release, 0, NULL},
    {"StringLength", "CPU", NULL, 0, unit_prepare, string_length_compute,
     NULL, 0, NULL},
    {"Substr", "CPU", "T", TFS_DT_BIT(TFS_INT32) | TFS_DT_BIT(TFS_INT64),
     unit_prepare, substr_compute, NULL, 0, NULL},
    {"StringUpper", "CPU", NULL, 0, case_prepare, upper_compute, NULL, 0,
     NULL},
    {"StringLower", "CPU", NULL, 0, case_prepare, lower_compute, NULL, 0,
     NULL},
    {"StringStrip", "CPU", NULL, 0, NULL, strip_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

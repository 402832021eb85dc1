/*
 * backends/cpu/string_convert.c - StringToNumber and AsString.
 *
 * StringToNumber parses as TensorFlow's safe_strto* functions do: ASCII
 * whitespace around the number is ignored; floats take what C's strtod
 * takes (decimal and hexadecimal forms, "inf", "infinity" and "nan" in
 * any case, "nan(...)"), out-of-range values rounding to infinity or
 * zero; integers are an optional sign and decimal digits that must fit
 * the type (no sign '-' for the unsigned types).  Anything else fails
 * with TensorFlow's "StringToNumberOp could not correctly convert
 * string: " and the string (its first 1024 bytes, so that the message
 * keeps its node suffix).
 *
 * AsString formats each element with the printf format TensorFlow builds
 * from its attrs ("%", the fill flag, width, ".precision", then the
 * conversion of the dtype: d, u, lld, llu, or f / e / g for the floating
 * types, which print as double); complex numbers as "(re,im)"; booleans
 * as "true" / "false" whatever the attrs.  Strings are copied as they
 * are unless a width is given; then, cut to the precision when one is
 * given, they are padded with spaces to the width, on the right when the
 * fill is '-' (every byte counts, NULs too).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/tstring.h"
#include "backends/cpu/cpu_tables.h"

/* ---- StringToNumber ----------------------------------------------------- */

/* The span of s[0..n) without ASCII whitespace at either end. */
static void strip_space(const char **s, size_t *n) {
  const char *p = *s;
  size_t len = *n;
  while (len > 0 && isspace((unsigned char)p[0])) {
    p++;
    len--;
  }
  while (len > 0 && isspace((unsigned char)p[len - 1])) len--;
  *s = p;
  *n = len;
}

/* Decimal digits after an optional sign: the magnitude in *mag (0 when
 * it passes `limit`, with -1 returned) and the sign in *neg. */
static int parse_uint(const char *p, size_t n, uint64_t limit, int *neg,
                      uint64_t *mag) {
  *neg = 0;
  if (n > 0 && (p[0] == '+' || p[0] == '-')) {
    *neg = p[0] == '-';
    p++;
    n--;
  }
  if (n == 0) return -1;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < '0' || p[i] > '9') return -1;
    unsigned d = (unsigned)(p[i] - '0');
    if (v > (limit - d) / 10) return -1;
    v = v * 10 + d;
  }
  *mag = v;
  return 0;
}

/* One string parsed into out[i] of dtype dt; -1 when it does not parse. */
static int parse_one(const char *p, size_t n, tfs_dtype dt, void *out,
                     int64_t i, char *buf) {
  strip_space(&p, &n);
  if (n == 0) return -1;
  int neg;
  uint64_t m;
  switch (dt) {
    case TFS_FLOAT:
    case TFS_DOUBLE: {
      /* buf holds n + 1 bytes; an embedded NUL stops strtod short */
      memcpy(buf, p, n);
      buf[n] = 0;
      char *end = NULL;
      if (dt == TFS_FLOAT)
        ((float *)out)[i] = strtof(buf, &end);
      else
        ((double *)out)[i] = strtod(buf, &end);
      return end == buf + n ? 0 : -1;
    }
    case TFS_INT32:
      if (parse_uint(p, n, (uint64_t)INT32_MAX + 1, &neg, &m)) return -1;
      if (!neg && m > INT32_MAX) return -1;
      ((int32_t *)out)[i] = neg ? (int32_t)(0 - m) : (int32_t)m;
      return 0;
    case TFS_INT64:
      if (parse_uint(p, n, (uint64_t)INT64_MAX + 1, &neg, &m)) return -1;
      if (!neg && m > INT64_MAX) return -1;
      ((int64_t *)out)[i] = neg ? (int64_t)(0 - m) : (int64_t)m;
      return 0;
    case TFS_UINT32:
      if (parse_uint(p, n, UINT32_MAX, &neg, &m) || neg) return -1;
      ((uint32_t *)out)[i] = (uint32_t)m;
      return 0;
    case TFS_UINT64:
      if (parse_uint(p, n, UINT64_MAX, &neg, &m) || neg) return -1;
      ((uint64_t *)out)[i] = m;
      return 0;
    default:
      return -1;
  }
}

static void string_to_number_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o || in->nelems == 0) return;
  const tfs_tstring *s = tfs_tensor__strings(in);
  size_t longest = 0;
  for (int64_t i = 0; i < in->nelems; i++) {
    size_t n = tfs_tstring_size(&s[i]);
    if (n > longest) longest = n;
  }
  char *buf = NULL;
  if (o->dtype == TFS_FLOAT || o->dtype == TFS_DOUBLE) {
    buf = tfs_kctx_scratch(c, longest + 1);
    if (!buf) return;
  }
  for (int64_t i = 0; i < in->nelems; i++) {
    const char *p = tfs_tstring_data(&s[i]);
    size_t n = tfs_tstring_size(&s[i]);
    if (parse_one(p, n, o->dtype, o->data, i, buf)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "StringToNumberOp could not correctly convert string: "
                    "%.*s", n > 1024 ? 1024 : (int)n, p);
      return;
    }
  }
}

/* ---- AsString ----------------------------------------------------------- */

typedef struct {
  char fmt[64];     /* for one number (one part of a complex) */
  int64_t width;    /* strings: pad to this many bytes; < 0: copied */
  int64_t precision;/* strings: at most this many bytes, when >= 0 */
  int left;         /* strings: fill '-' */
} as_string_state;

static int is_float_type(tfs_dtype dt) {
  return dt == TFS_HALF || dt == TFS_BFLOAT16 || dt == TFS_FLOAT ||
         dt == TFS_DOUBLE || dt == TFS_COMPLEX64 || dt == TFS_COMPLEX128;
}

/* An int attr that TensorFlow reads into an int32. */
static int int32_attr(tfs_kernel_init *ki, const char *name, int64_t *v) {
  *v = -1;
  tfs_attrs_get_int(ki->attrs, name, v);
  if (*v < INT32_MIN || *v > INT32_MAX)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Attr %s has value %lld out of range for an int32",
                        name, (long long)*v);
  return 0;
}

/* TensorFlow's attr checks, in its order. */
static int as_string_check(tfs_kernel_init *ki, tfs_dtype dt,
                           int64_t precision, int sci, int shortest,
                           const char *fill, size_t fill_len) {
  if (!is_float_type(dt) && dt != TFS_STRING) {
    if (sci || shortest)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "scientific and shortest format not supported "
                          "for datatype %s", tfs_dtype_name(dt));
    if (precision >= 0)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "precision not supported for datatype %s",
                          tfs_dtype_name(dt));
  }
  if (fill_len > 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Fill string must be one or fewer characters");
  if (sci && shortest)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Cannot select both scientific and shortest "
                        "notation");
  if (fill_len == 1 && !memchr(" +-0#", fill[0], 5))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Fill argument not supported: \"%.*s\"",
                        (int)fill_len, fill);
  return 0;
}

static const char *conversion_of(tfs_dtype dt, int sci, int shortest) {
  switch (dt) {
    case TFS_UINT8:
    case TFS_UINT16:
    case TFS_UINT32: return "u";
    case TFS_INT8:
    case TFS_INT16:
    case TFS_INT32: return "d";
    case TFS_INT64: return "lld";
    case TFS_UINT64: return "llu";
    case TFS_STRING: return "s";
    case TFS_BOOL: return "";
    default: return shortest ? "g" : sci ? "e" : "f";
  }
}

static int as_string_prepare(tfs_kernel_init *ki) {
  tfs_dtype dt = ki->in_types[0];
  int64_t precision, width;
  int sci = 0, shortest = 0;
  if (int32_attr(ki, "precision", &precision)) return -1;
  tfs_attrs_get_bool(ki->attrs, "scientific", &sci);
  tfs_attrs_get_bool(ki->attrs, "shortest", &shortest);
  if (int32_attr(ki, "width", &width)) return -1;
  size_t fill_len = 0;
  const char *fill = tfs_attrs_get_string(ki->attrs, "fill", &fill_len);
  if (!fill) fill_len = 0;
  if (as_string_check(ki, dt, precision, sci, shortest, fill, fill_len))
    return -1;
  as_string_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  char flag[2] = {fill_len ? fill[0] : 0, 0};
  char w[16] = "", p[16] = "";
  if (width > -1) snprintf(w, sizeof w, "%d", (int)width);
  if (precision > -1) snprintf(p, sizeof p, ".%d", (int)precision);
  snprintf(s->fmt, sizeof s->fmt, "%%%s%s%s%s", flag, w, p,
           conversion_of(dt, sci, shortest));
  s->width = width;
  s->precision = precision;
  s->left = fill_len == 1 && fill[0] == '-';
  ki->state = s;
  return 0;
}

/* Element i of t as printf's double or integer argument into buf[cap];
 * returns the length it needs (not counting the NUL). */
static int format_number(const char *fmt, const tfs_tensor *t, int64_t i,
                         int part, char *buf, size_t cap) {
  const void *d = t->data;
  switch (t->dtype) {
    case TFS_INT8: return snprintf(buf, cap, fmt, ((const int8_t *)d)[i]);
    case TFS_INT16: return snprintf(buf, cap, fmt, ((const int16_t *)d)[i]);
    case TFS_INT32: return snprintf(buf, cap, fmt, ((const int32_t *)d)[i]);
    case TFS_INT64:
      return snprintf(buf, cap, fmt, (long long)((const int64_t *)d)[i]);
    case TFS_UINT8:
      return snprintf(buf, cap, fmt, (unsigned)((const uint8_t *)d)[i]);
    case TFS_UINT16:
      return snprintf(buf, cap, fmt, (unsigned)((const uint16_t *)d)[i]);
    case TFS_UINT32:
      return snprintf(buf, cap, fmt, ((const uint32_t *)d)[i]);
    case TFS_UINT64:
      return snprintf(buf, cap, fmt,
                      (unsigned long long)((const uint64_t *)d)[i]);
    case TFS_HALF:
      return snprintf(buf, cap, fmt,
                      (double)tfs_half_to_float(((const uint16_t *)d)[i]));
    case TFS_BFLOAT16:
      return snprintf(buf, cap, fmt,
                      (double)tfs_bf16_to_float(((const uint16_t *)d)[i]));
    case TFS_FLOAT:
      return snprintf(buf, cap, fmt, (double)((const float *)d)[i]);
    case TFS_DOUBLE: return snprintf(buf, cap, fmt, ((const double *)d)[i]);
    case TFS_COMPLEX64:
      return snprintf(buf, cap, fmt, (double)((const float *)d)[2 * i + part]);
    case TFS_COMPLEX128:
      return snprintf(buf, cap, fmt, ((const double *)d)[2 * i + part]);
    default: return -1;
  }
}

/* A growing buffer for one element's text, freed when compute ends. */
typedef struct {
  char *p;
  size_t cap;
} text_buf;

/* Room for n bytes; 1 after recording an error (a size over the session's
 * per-tensor limit, or no memory). */
static int reserve(tfs_kernel_ctx *c, text_buf *b, size_t n) {
  if (n <= b->cap) return 0;
  const tfs_run_limits *l = c->run ? c->run->limits : NULL;
  if (l && l->tensor_bytes > 0 && n > (uint64_t)l->tensor_bytes) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                  "A string of %zu bytes is over the session's limit of "
                  "%lld bytes per tensor", n, (long long)l->tensor_bytes);
    return 1;
  }
  char *p = tfs_realloc(b->p, n);
  if (!p) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return 1;
  }
  b->p = p;
  b->cap = n;
  return 0;
}

/* A string element padded to the state's width. */
static int pad_string(tfs_kernel_ctx *c, const as_string_state *s,
                      text_buf *b, const tfs_tstring *in, tfs_tstring *out) {
  const char *p = tfs_tstring_data(in);
  size_t n = tfs_tstring_size(in);
  if (s->width < 0) return tfs_tstring_copy(out, p, n);
  if (s->precision >= 0 && n > (size_t)s->precision) n = (size_t)s->precision;
  if ((size_t)s->width <= n) return tfs_tstring_copy(out, p, n);
  size_t w = (size_t)s->width;
  if (reserve(c, b, w)) return 1;
  memset(b->p, ' ', w);
  memcpy(b->p + (s->left ? 0 : w - n), p, n);
  return tfs_tstring_copy(out, b->p, w);
}

/* Element i of a number tensor formatted into a fresh string. */
static int format_element(tfs_kernel_ctx *c, const as_string_state *s,
                          text_buf *b, const tfs_tensor *in, int64_t i,
                          tfs_tstring *out) {
  int cplx = in->dtype == TFS_COMPLEX64 || in->dtype == TFS_COMPLEX128;
  int n0 = format_number(s->fmt, in, i, 0, NULL, 0);
  int n1 = cplx ? format_number(s->fmt, in, i, 1, NULL, 0) : 0;
  if (n0 < 0 || n1 < 0) {
    tfs_kctx_fail(c, TFS_INTERNAL, "AsString could not format element");
    return 1;
  }
  size_t total = (size_t)n0 + (size_t)n1 + (cplx ? 3 : 0);
  if (reserve(c, b, total + 1)) return 1;
  char *buf = b->p;
  if (!cplx) {
    format_number(s->fmt, in, i, 0, buf, total + 1);
  } else {
    buf[0] = '(';
    format_number(s->fmt, in, i, 0, buf + 1, (size_t)n0 + 1);
    buf[1 + n0] = ',';
    format_number(s->fmt, in, i, 1, buf + 2 + n0, (size_t)n1 + 1);
    buf[total - 1] = ')';
  }
  return tfs_tstring_copy(out, buf, total) ? -1 : 0;
}

static void as_string_compute(tfs_kernel_ctx *c) {
  const as_string_state *s = c->state;
  const tfs_tensor *in = c->inputs[0];
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &in->shape);
  if (!o) return;
  tfs_tstring *out = tfs_tensor__strings(o);
  text_buf b = {NULL, 0};
  for (int64_t i = 0; i < in->nelems; i++) {
    int rc;
    if (in->dtype == TFS_BOOL) {
      int t = ((const uint8_t *)in->data)[i] != 0;
      rc = tfs_tstring_copy(&out[i], t ? "true" : "false", t ? 4 : 5);
    } else if (in->dtype == TFS_STRING) {
      rc = pad_string(c, s, &b, &tfs_tensor__strings(in)[i], &out[i]);
    } else {
      rc = format_element(c, s, &b, in, i, &out[i]);
    }
    if (rc < 0) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    if (rc) break; /* rc > 0: the context holds the error */
  }
  tfs_free(b.p);
}

#define AS_STRING_TYPES                                                   \
  (TFS_DT_INTS | TFS_DT_FLOATS | TFS_DT_BIT(TFS_COMPLEX64) |              \
   TFS_DT_BIT(TFS_COMPLEX128) | TFS_DT_BIT(TFS_BOOL) |                    \
   TFS_DT_BIT(TFS_STRING))

const tfs_kernel_def tfs_cpu_kernels_string_convert[] = {
    {"StringToNumber", "CPU", "out_type",
     TFS_DT_BIT(TFS_FLOAT) | TFS_DT_BIT(TFS_DOUBLE) | TFS_DT_BIT(TFS_INT32) |
         TFS_DT_BIT(TFS_INT64) | TFS_DT_BIT(TFS_UINT32) |
         TFS_DT_BIT(TFS_UINT64),
     NULL, string_to_number_compute, NULL, 0, NULL},
    {"AsString", "CPU", "T", AS_STRING_TYPES, as_string_prepare,
     as_string_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

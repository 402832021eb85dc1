/*
 * tools/cli_feed_dtype.c - what a --feed value must look like and how a
 * value of another numeric dtype is made to fit, as TensorFlow's
 * Session.run(feed_dict=...) does with np.asarray(value, dtype=the
 * placeholder's dtype): a float64 .npy (np.save's default) feeds a float
 * placeholder, an int64 one an int32 placeholder.  Conversions that round
 * (float64 -> float32, float -> integer, large integers -> float) warn
 * once per feed; values out of the target's range are an error (numpy
 * would wrap them silently); --strict-dtypes refuses every mismatch.
 * Every error names the feed, its file, the expected and the actual
 * dtype and shape.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/strbuf.h"

static int g_strict;

void tfs_cli_set_strict_dtypes(int strict) { g_strict = strict; }

void tfs_cli_feed_expect_graph(tfs_graph *g, tfs_cli_feed *f) {
  f->want_dtype = tfs_operation_output_type(f->port);
  if (f->want_dtype > TFS_DTYPE_REF_OFFSET) /* a ref takes its base type */
    f->want_dtype = (tfs_dtype)(f->want_dtype - TFS_DTYPE_REF_OFFSET);
  f->want_rank = -1;
  tfs_status *st = tfs_status_new();
  if (!st) return;
  int nd = tfs_graph_tensor_num_dims(g, f->port, st);
  if (tfs_status_ok(st) && nd >= 0 && nd <= TFS_MAX_RANK) {
    tfs_graph_tensor_shape(g, f->port, f->want_dims, nd, st);
    if (tfs_status_ok(st)) f->want_rank = nd;
  }
  tfs_status_free(st);
}

void tfs_cli_feed_expect_info(const tfs_tensor_info *ti, tfs_cli_feed *f) {
  f->want_dtype = tfs_tensor_info_dtype(ti);
  int nd = tfs_tensor_info_rank(ti);
  f->want_rank = nd <= TFS_MAX_RANK ? nd : -1;
  for (int i = 0; i < f->want_rank; i++)
    f->want_dims[i] = tfs_tensor_info_dim(ti, i);
}

/* "float [?,4]" (an unknown rank prints as "<unknown>"). */
static void print_want(tfs_strbuf *b, const tfs_cli_feed *f) {
  tfs_strbuf_printf(b, "%s ", tfs_dtype_name(f->want_dtype));
  if (f->want_rank < 0) {
    tfs_strbuf_puts(b, "<unknown>");
    return;
  }
  tfs_strbuf_putc(b, '[');
  for (int i = 0; i < f->want_rank; i++) {
    if (i) tfs_strbuf_putc(b, ',');
    if (f->want_dims[i] < 0)
      tfs_strbuf_putc(b, '?');
    else
      tfs_strbuf_printf(b, "%lld", (long long)f->want_dims[i]);
  }
  tfs_strbuf_putc(b, ']');
}

/* Reports "feed 'x' (file a.npy): expected float [?,4], got double [3,5]"
 * followed by `tail`; returns TFS_CLI_FAILED. */
static int mismatch(const tfs_cli_feed *f, const tfs_tensor *t,
                    const char *tail) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  char shape[256];
  print_want(&b, f);
  int rc = tfs_cli_error(
      "feed '%s' (file %s%s%s): expected %s, got %s %s%s", f->name, f->file,
      f->npz_key ? ":" : "", f->npz_key ? f->npz_key : "",
      b.len ? tfs_strbuf_str(&b) : "?", tfs_dtype_name(tfs_tensor_dtype(t)),
      tfs_tensor_shape_string(t, shape, sizeof shape), tail);
  tfs_strbuf_free(&b);
  return rc;
}

static int shape_fits(const tfs_cli_feed *f, const tfs_tensor *t) {
  if (f->want_rank < 0) return 1;
  if (tfs_tensor_ndims(t) != f->want_rank) return 0;
  for (int i = 0; i < f->want_rank; i++)
    if (f->want_dims[i] >= 0 && f->want_dims[i] != tfs_tensor_dim(t, i))
      return 0;
  return 1;
}

static int is_float(tfs_dtype d) { return d == TFS_FLOAT || d == TFS_DOUBLE; }

static int is_int(tfs_dtype d) {
  switch (d) {
    case TFS_INT8: case TFS_INT16: case TFS_INT32: case TFS_INT64:
    case TFS_UINT8: case TFS_UINT16: case TFS_UINT32: case TFS_UINT64:
      return 1;
    default:
      return 0;
  }
}

/* One element, as the widest type of its kind. */
typedef struct num {
  double d;    /* floats */
  int64_t i;   /* signed integers and uint8..uint32 */
  uint64_t u;  /* uint64 */
} num;

static num get(tfs_dtype d, const void *p, int64_t k) {
  num v = {0, 0, 0};
  switch (d) {
    case TFS_FLOAT: v.d = ((const float *)p)[k]; break;
    case TFS_DOUBLE: v.d = ((const double *)p)[k]; break;
    case TFS_INT8: v.i = ((const int8_t *)p)[k]; break;
    case TFS_INT16: v.i = ((const int16_t *)p)[k]; break;
    case TFS_INT32: v.i = ((const int32_t *)p)[k]; break;
    case TFS_INT64: v.i = ((const int64_t *)p)[k]; break;
    case TFS_UINT8: v.i = ((const uint8_t *)p)[k]; break;
    case TFS_UINT16: v.i = ((const uint16_t *)p)[k]; break;
    case TFS_UINT32: v.i = ((const uint32_t *)p)[k]; break;
    case TFS_UINT64: v.u = ((const uint64_t *)p)[k]; break;
    default: break;
  }
  return v;
}

/* The range of an integer dtype. */
static void int_range(tfs_dtype d, int64_t *lo, uint64_t *hi) {
  switch (d) {
    case TFS_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case TFS_INT16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case TFS_INT32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case TFS_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    case TFS_UINT16: *lo = 0; *hi = UINT16_MAX; break;
    case TFS_UINT32: *lo = 0; *hi = UINT32_MAX; break;
    case TFS_UINT64: *lo = 0; *hi = UINT64_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
  }
}

static void put_int(tfs_dtype d, void *p, int64_t k, int64_t i, uint64_t u,
                    int is_u) {
  switch (d) {
    case TFS_INT8: ((int8_t *)p)[k] = (int8_t)i; break;
    case TFS_INT16: ((int16_t *)p)[k] = (int16_t)i; break;
    case TFS_INT32: ((int32_t *)p)[k] = (int32_t)i; break;
    case TFS_INT64: ((int64_t *)p)[k] = i; break;
    case TFS_UINT8: ((uint8_t *)p)[k] = (uint8_t)i; break;
    case TFS_UINT16: ((uint16_t *)p)[k] = (uint16_t)i; break;
    case TFS_UINT32: ((uint32_t *)p)[k] = (uint32_t)i; break;
    case TFS_UINT64: ((uint64_t *)p)[k] = is_u ? u : (uint64_t)i; break;
    default: break;
  }
}

/* Converts element k of `src` (dtype s) into `dst` (dtype d).  Returns 0,
 * 1 when the value changed (rounded), -1 when it does not fit (the value
 * is printed into `bad`). */
static int convert_one(tfs_dtype s, const void *src, tfs_dtype d, void *dst,
                       int64_t k, char *bad, size_t cap) {
  num v = get(s, src, k);
  int from_u = s == TFS_UINT64;
  if (is_float(d)) {
    double x = is_float(s) ? v.d : from_u ? (double)v.u : (double)v.i;
    long double kept;
    if (d == TFS_FLOAT) {
      float y = (float)x;
      if (isinf(y) && isfinite(x)) {
        snprintf(bad, cap, "%.17g", x);
        return -1;
      }
      ((float *)dst)[k] = y;
      kept = y;
    } else {
      ((double *)dst)[k] = x;
      kept = x;
    }
    if (is_float(s)) return !isnan(v.d) && kept != (long double)v.d;
    return kept != (from_u ? (long double)v.u : (long double)v.i);
  }
  int64_t lo;
  uint64_t hi;
  int_range(d, &lo, &hi);
  if (is_float(s)) {
    double t = trunc(v.d);
    if (isnan(v.d) || t < (double)lo || t >= (double)hi + 1.0) {
      snprintf(bad, cap, "%.17g", v.d);
      return -1;
    }
    if (d == TFS_UINT64)
      put_int(d, dst, k, 0, (uint64_t)t, 1);
    else
      put_int(d, dst, k, (int64_t)t, 0, 0);
    return t != v.d;
  }
  if (from_u ? v.u > hi : (v.i < lo || (v.i > 0 && (uint64_t)v.i > hi))) {
    if (from_u)
      snprintf(bad, cap, "%llu", (unsigned long long)v.u);
    else
      snprintf(bad, cap, "%lld", (long long)v.i);
    return -1;
  }
  put_int(d, dst, k, v.i, v.u, from_u);
  return 0;
}

/* A new tensor of dtype `d` with t's values; NULL after reporting. */
static tfs_tensor *convert(tfs_cli_feed *f, const tfs_tensor *t) {
  tfs_dtype s = tfs_tensor_dtype(t), d = f->want_dtype;
  tfs_status *st = tfs_status_new();
  tfs_tensor *o =
      st ? tfs_tensor_new(d, tfs_tensor_dims(t), tfs_tensor_ndims(t), st)
         : NULL;
  tfs_status_free(st);
  if (!o) {
    tfs_cli_error("feed '%s': out of memory", f->name);
    return NULL;
  }
  int64_t n = tfs_tensor_num_elements(t);
  int rounded = 0;
  char bad[64], tail[160];
  for (int64_t k = 0; k < n; k++) {
    int r = convert_one(s, tfs_tensor_data(t), d, tfs_tensor_data(o), k, bad,
                        sizeof bad);
    if (r < 0) {
      snprintf(tail, sizeof tail, "; value %s is out of range for %s", bad,
               tfs_dtype_name(d));
      mismatch(f, t, tail);
      tfs_tensor_free(o);
      return NULL;
    }
    rounded |= r;
  }
  if (rounded && !f->warned) {
    f->warned = 1;
    tfs_cli_warning("feed '%s' (file %s%s%s): %s values converted to %s "
                    "lose precision",
                    f->name, f->file, f->npz_key ? ":" : "",
                    f->npz_key ? f->npz_key : "", tfs_dtype_name(s),
                    tfs_dtype_name(d));
  }
  return o;
}

int tfs_cli_feed_conform(tfs_cli_feed *f, tfs_tensor **t) {
  if (f->want_dtype == TFS_INVALID) return TFS_CLI_OK;
  tfs_dtype s = tfs_tensor_dtype(*t);
  if (!shape_fits(f, *t)) return mismatch(f, *t, "");
  if (s == f->want_dtype) return TFS_CLI_OK;
  if (g_strict) return mismatch(f, *t, " (--strict-dtypes)");
  if (!(is_float(s) || is_int(s)) ||
      !(is_float(f->want_dtype) || is_int(f->want_dtype)))
    return mismatch(f, *t, "");
  tfs_tensor *o = convert(f, *t);
  if (!o) return TFS_CLI_FAILED;
  tfs_tensor_free(*t);
  *t = o;
  return TFS_CLI_OK;
}

/*
 * core/tensor_format.c - tensors as text: TensorFlow's print_v2 layout
 * (tf.print, StringFormat, tfs_tensor_to_string): "[[1 2]\n [3 4]]",
 * with "..." when a dimension exceeds 2*max_entries; and the legacy
 * SummarizeValue text (Assert, Print, attr summaries).
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/half.h"
#include "core/strbuf.h"
#include "core/tensor.h"
#include "core/variant.h"

static void put_elem(tfs_strbuf *b, const tfs_tensor *t, int64_t i,
                     int v2) {
  char tmp[64];
  const void *d = t->data;
  switch (t->dtype) {
    case TFS_FLOAT:
      tfs_format_float(tmp, sizeof tmp, ((const float *)d)[i]);
      break;
    case TFS_HALF:
      tfs_format_float(tmp, sizeof tmp,
                       tfs_half_to_float(((const uint16_t *)d)[i]));
      break;
    case TFS_BFLOAT16:
      tfs_format_float(tmp, sizeof tmp,
                       tfs_bf16_to_float(((const uint16_t *)d)[i]));
      break;
    case TFS_DOUBLE:
      tfs_format_double(tmp, sizeof tmp, ((const double *)d)[i]);
      break;
    case TFS_UINT64:
      snprintf(tmp, sizeof tmp, "%" PRIu64, ((const uint64_t *)d)[i]);
      break;
    case TFS_STRING: {
      const tfs_tstring *s = &tfs_tensor__strings(t)[i];
      if (v2) tfs_strbuf_putc(b, '"');
      tfs_strbuf_put_escaped(b, tfs_tstring_data(s), tfs_tstring_size(s));
      if (v2) tfs_strbuf_putc(b, '"');
      return;
    }
    case TFS_RESOURCE: {
      const tfs_resource_handle *h = tfs_tensor__handle(t, i);
      snprintf(tmp, sizeof tmp, "<ResourceHandle(name=\"%.20s\")>",
               h ? h->name : "");
      break;
    }
    case TFS_VARIANT:
      tfs_variant_describe(tfs_tensor__variant(t, i), b);
      return;
    case TFS_BOOL: case TFS_INT8: case TFS_INT16: case TFS_INT32:
    case TFS_INT64: case TFS_UINT8: case TFS_UINT16: case TFS_UINT32:
      snprintf(tmp, sizeof tmp, "%" PRId64, tfs_tensor__get_as_int64(t, i));
      break;
    default: /* complex and quantized types: as TensorFlow's print_v2 */
      tfs_strbuf_putc(b, '?');
      return;
  }
  tfs_strbuf_puts(b, tmp);
}

/* Between two entries of dimension `dim`: a space inside the innermost
 * dimension, else (rank - dim - 1) newlines and dim + 1 spaces. */
static void dim_spacing(tfs_strbuf *b, int dim, int rank) {
  if (dim == rank - 1) {
    tfs_strbuf_putc(b, ' ');
    return;
  }
  for (int j = 0; j < rank - dim - 1; j++) tfs_strbuf_putc(b, '\n');
  for (int j = 0; j <= dim; j++) tfs_strbuf_putc(b, ' ');
}

/* One dimension: `ends` entries from each end when it has more than
 * 2 * ends. */
static void put_dim(tfs_strbuf *b, const tfs_tensor *t, int dim,
                    int64_t ends, int64_t at) {
  int rank = t->shape.rank;
  if (dim == rank) {
    put_elem(b, t, at, 1);
    return;
  }
  int64_t n = t->shape.dims[dim], per = 1;
  for (int i = dim + 1; i < rank; i++) per *= t->shape.dims[i];
  int64_t tail = ends > n - ends ? ends : n - ends;
  tfs_strbuf_putc(b, '[');
  for (int64_t i = 0; i < ends && i < n; i++) {
    if (i > 0) dim_spacing(b, dim, rank);
    put_dim(b, t, dim + 1, ends, at + per * i);
  }
  if (n > 2 * ends) {
    dim_spacing(b, dim, rank);
    tfs_strbuf_puts(b, "...");
  }
  for (int64_t i = tail; i < n; i++) {
    dim_spacing(b, dim, rank);
    put_dim(b, t, dim + 1, ends, at + per * i);
  }
  tfs_strbuf_putc(b, ']');
}

void tfs_tensor__format_v2(tfs_strbuf *b, const tfs_tensor *t,
                           int64_t summarize) {
  int64_t ends = summarize < 0 || summarize > t->nelems ? t->nelems
                                                        : summarize;
  if (t->shape.rank == 0) {
    if (ends > 0 || summarize < 0)
      put_elem(b, t, 0, 1);
    else
      tfs_strbuf_puts(b, "...");
    return;
  }
  put_dim(b, t, 0, ends, 0);
}

/* TensorFlow's legacy SummarizeValue: flat "1 2 3" for vectors, "[1 2][3
 * 4]" for matrices, at most `limit` elements then "...". */
static void put_legacy(tfs_strbuf *b, const tfs_tensor *t, int dim,
                       int64_t limit, int64_t *idx) {
  if (*idx >= limit) return;
  int64_t n = t->shape.dims[dim];
  if (dim == t->shape.rank - 1) {
    for (int64_t i = 0; i < n; i++) {
      if (*idx >= limit) {
        if (dim != 0) tfs_strbuf_puts(b, "...");
        return;
      }
      if (i > 0) tfs_strbuf_putc(b, ' ');
      put_elem(b, t, (*idx)++, 0);
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    int open = 0;
    if (*idx < limit) {
      tfs_strbuf_putc(b, '[');
      open = 1;
    }
    put_legacy(b, t, dim + 1, limit, idx);
    if (*idx < limit || open) tfs_strbuf_putc(b, ']');
  }
}

char *tfs_tensor__summarize(const tfs_tensor *t, int64_t max_entries) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  if (t->shape.rank == 0) {
    put_elem(&b, t, 0, 0);
    return tfs_strbuf_take(&b);
  }
  int64_t limit = max_entries < 0 || max_entries > t->nelems ? t->nelems
                                                              : max_entries;
  int64_t idx = 0;
  put_legacy(&b, t, 0, limit, &idx);
  if (t->nelems > limit) tfs_strbuf_puts(&b, "...");
  return tfs_strbuf_take(&b);
}

char *tfs_tensor_to_string(const tfs_tensor *t, int max_entries) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  if (!t) return tfs_strdup("");
  tfs_tensor__format_v2(&b, t, max_entries);
  return tfs_strbuf_take(&b);
}

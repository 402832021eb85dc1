/*
 * core/tensor_format.c - tensors as text, in the nested-bracket layout
 * TensorFlow's tf.print / StringFormat use (print_v2 summarisation):
 * "[[1 2]\n [3 4]]", with "..." when a dimension exceeds 2*max_entries.
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/half.h"
#include "core/strbuf.h"
#include "core/tensor.h"

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
    default:
      snprintf(tmp, sizeof tmp, "%" PRId64, tfs_tensor__get_as_int64(t, i));
      break;
  }
  tfs_strbuf_puts(b, tmp);
}

static void put_dim(tfs_strbuf *b, const tfs_tensor *t, int dim,
                    int64_t offset, int64_t stride, int limit) {
  int64_t n = t->shape.dims[dim];
  int64_t inner = stride / (n ? n : 1);
  tfs_strbuf_putc(b, '[');
  int summarize = limit >= 0 && n > 2 * (int64_t)limit;
  for (int64_t k = 0; k < n; k++) {
    if (summarize && k == limit) {
      if (dim + 1 == t->shape.rank) {
        tfs_strbuf_puts(b, " ...");
      } else {
        tfs_strbuf_putc(b, '\n');
        for (int s = 0; s <= dim; s++) tfs_strbuf_putc(b, ' ');
        tfs_strbuf_puts(b, "...");
      }
      k = n - limit - 1;
      continue;
    }
    if (k > 0) {
      if (dim + 1 == t->shape.rank) {
        tfs_strbuf_putc(b, ' ');
      } else {
        tfs_strbuf_putc(b, '\n');
        for (int s = 0; s <= dim; s++) tfs_strbuf_putc(b, ' ');
      }
    }
    if (dim + 1 == t->shape.rank)
      put_elem(b, t, offset + k, 1);
    else
      put_dim(b, t, dim + 1, offset + k * inner, inner, limit);
  }
  tfs_strbuf_putc(b, ']');
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
  if (t->shape.rank == 0) {
    put_elem(&b, t, 0, 1);
  } else if (t->nelems == 0) {
    tfs_strbuf_puts(&b, "[]");
  } else {
    put_dim(&b, t, 0, 0, t->nelems, max_entries);
  }
  return tfs_strbuf_take(&b);
}

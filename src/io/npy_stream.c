/*
 * io/npy_stream.c - .npy files a batch at a time: a reader that seeks to
 * the rows it is asked for (Fortran order gathered column by column), and
 * a writer that appends rows and rewrites the header's shape at the end.
 * Neither ever holds more than one batch in memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/shape.h"
#include "core/status.h"
#include "core/tensor.h"
#include "io/npy.h"

struct tfs_npy_reader {
  FILE *f;
  char *path;
  uint64_t file_size;
  tfs_npy_header h;
};

struct tfs_npy_writer {
  FILE *f;
  char *path;
  tfs_dtype dtype;
  int nrow_dims;
  int64_t row_dims[TFS_MAX_RANK];
  int64_t rows;
  size_t header_len;
};

/* ---- reader -------------------------------------------------------------- */

tfs_npy_reader *tfs_npy_reader_open(const char *path, tfs_status *st) {
  TFS_CHECK_ARG(path, st, NULL);
  tfs_npy_reader *r = tfs_calloc(1, sizeof *r);
  if (!r || !(r->path = tfs_strdup(path))) {
    tfs_free(r);
    TFS_OOM(st);
    return NULL;
  }
  r->f = tfs_io__open_read(path, &r->file_size, st);
  if (!r->f) goto fail;
  if (tfs_npy__read_header(r->f, r->file_size, path, &r->h, st)) goto fail;
  if (r->h.dtype == TFS_STRING) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: byte-string arrays cannot be read row by row; read "
                    "the whole file instead",
                    path);
    goto fail;
  }
  tfs_status_clear(st);
  return r;
fail:
  tfs_npy_reader_free(r);
  return NULL;
}

tfs_dtype tfs_npy_reader_dtype(const tfs_npy_reader *r) { return r->h.dtype; }

int tfs_npy_reader_ndims(const tfs_npy_reader *r) { return r->h.ndims; }

const int64_t *tfs_npy_reader_dims(const tfs_npy_reader *r) {
  return r->h.dims;
}

void tfs_npy_reader_free(tfs_npy_reader *r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  tfs_free(r->path);
  tfs_free(r);
}

static int read_at(tfs_npy_reader *r, uint64_t off, void *dst, size_t n,
                   tfs_status *st) {
  if (n == 0) return 0;
  errno = 0;
  if (fseeko(r->f, (off_t)off, SEEK_SET) != 0 || fread(dst, 1, n, r->f) != n) {
    if (errno) {
      tfs_io__errno(st, r->path, "cannot read rows");
    } else {
      tfs_status_setf(st, TFS_DATA_LOSS,
                      "%s: file ended at byte %llu while reading rows (it "
                      "was truncated after it was opened)",
                      r->path, (unsigned long long)off);
    }
    return -1;
  }
  return 0;
}

tfs_tensor *tfs_npy_reader_read_rows(tfs_npy_reader *r, int64_t start,
                                     int64_t count, tfs_status *st) {
  TFS_CHECK_ARG(r, st, NULL);
  const tfs_npy_header *h = &r->h;
  if (h->ndims == 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: holds a scalar, which has no rows", r->path);
    return NULL;
  }
  int64_t d0 = h->dims[0];
  if (start < 0 || count < 0 || start > d0 || count > d0 - start) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "%s: rows [%lld, %lld) are outside the file's %lld rows",
                    r->path, (long long)start, (long long)start + count,
                    (long long)d0);
    return NULL;
  }
  /* product of dims[1:] and the bytes of `count` rows: the header parser
   * checked that they fit (NumPy's rule, also when d0 == 0), checked here
   * again since nothing below may wrap */
  int64_t row_elems = 1, row_bytes, all;
  int over = 0;
  for (int i = 1; i < h->ndims; i++)
    over |= tfs_mul_overflow_i64(row_elems, h->dims[i], &row_elems);
  over |= tfs_mul_overflow_i64(row_elems, (int64_t)h->elem_size, &row_bytes);
  over |= tfs_mul_overflow_i64(row_bytes, count, &all);
  if (over) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: shape in the .npy header overflows (too many "
                    "elements)", r->path);
    return NULL;
  }
  size_t es = h->elem_size;
  size_t bytes = (size_t)all;
  uint8_t *tmp = tfs_malloc(bytes ? bytes : 1);
  if (!tmp) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_tensor *t = NULL;
  if (!h->fortran_order) {
    uint64_t off = h->data_offset + (uint64_t)start * (uint64_t)row_elems * es;
    if (read_at(r, off, tmp, bytes, st)) goto out;
  } else {
    /* Column-major: each of the row_elems columns holds d0 consecutive
     * elements; take `count` of them from each. */
    for (int64_t c = 0; c < row_elems && count > 0; c++) {
      uint64_t off =
          h->data_offset + ((uint64_t)c * (uint64_t)d0 + (uint64_t)start) * es;
      if (read_at(r, off, tmp + (size_t)c * (size_t)count * es,
                  (size_t)count * es, st))
        goto out;
    }
  }
  t = tfs_npy__decode(h, tmp, count, r->path, st);
out:
  tfs_free(tmp);
  return t;
}

/* ---- writer -------------------------------------------------------------- */

static int write_header(tfs_npy_writer *w, int64_t rows, size_t pad_to,
                        tfs_status *st) {
  int64_t dims[TFS_MAX_RANK];
  dims[0] = rows;
  memcpy(dims + 1, w->row_dims, sizeof(int64_t) * (size_t)w->nrow_dims);
  tfs_strbuf b = TFS_STRBUF_INIT;
  size_t n = tfs_npy__format_header(&b, w->dtype, 0, dims, w->nrow_dims + 1,
                                    pad_to, w->path, st);
  int rc = -1;
  if (n) {
    errno = 0;
    if (fseeko(w->f, 0, SEEK_SET) != 0 || fwrite(b.data, 1, n, w->f) != n) {
      tfs_io__errno(st, w->path, "cannot write the header");
    } else {
      w->header_len = n;
      rc = 0;
    }
  }
  tfs_strbuf_free(&b);
  return rc;
}

tfs_npy_writer *tfs_npy_writer_open(const char *path, tfs_dtype dtype,
                                    const int64_t *row_dims, int nrow_dims,
                                    tfs_status *st) {
  TFS_CHECK_ARG(path && (row_dims || nrow_dims == 0), st, NULL);
  if (dtype == TFS_STRING) {
    tfs_status_setf(st, TFS_UNIMPLEMENTED,
                    "%s: string tensors cannot be written row by row (their "
                    "width must be known up front); write the whole tensor",
                    path);
    return NULL;
  }
  if (nrow_dims < 0 || nrow_dims >= TFS_MAX_RANK) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: rows of rank %d cannot be written (at most %d)", path,
                    nrow_dims, TFS_MAX_RANK - 1);
    return NULL;
  }
  for (int i = 0; i < nrow_dims; i++) {
    if (row_dims[i] < 0) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "%s: row dimension %d is negative", path, i);
      return NULL;
    }
  }
  tfs_npy_writer *w = tfs_calloc(1, sizeof *w);
  if (!w || !(w->path = tfs_strdup(path))) {
    tfs_free(w);
    TFS_OOM(st);
    return NULL;
  }
  w->dtype = dtype;
  w->nrow_dims = nrow_dims;
  for (int i = 0; i < nrow_dims; i++) w->row_dims[i] = row_dims[i];
  /* Reserve room for the largest row count the header could ever hold, so
   * the final header has exactly the same length. */
  tfs_strbuf probe = TFS_STRBUF_INIT;
  int64_t dims[TFS_MAX_RANK];
  dims[0] = INT64_MAX;
  for (int i = 0; i < nrow_dims; i++) dims[i + 1] = row_dims[i];
  size_t len = tfs_npy__format_header(&probe, dtype, 0, dims, nrow_dims + 1, 0,
                                      path, st);
  tfs_strbuf_free(&probe);
  if (!len) goto fail;
  w->f = tfs_io__open_write(path, "wb", st);
  if (!w->f || write_header(w, 0, len, st)) goto fail;
  tfs_status_clear(st);
  return w;
fail:
  tfs_npy_writer_free(w);
  return NULL;
}

void tfs_npy_writer_append(tfs_npy_writer *w, const tfs_tensor *rows,
                           tfs_status *st) {
  TFS_CHECK_ARG(w && rows, st, );
  int nd = tfs_tensor_ndims(rows);
  const int64_t *dims = tfs_tensor_dims(rows);
  int ok = tfs_tensor_dtype(rows) == w->dtype && nd == w->nrow_dims + 1;
  for (int i = 1; ok && i < nd; i++) ok = dims[i] == w->row_dims[i - 1];
  if (!ok) {
    tfs_shape want, got;
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    want.rank = w->nrow_dims + 1;
    want.dims[0] = -1;
    memcpy(want.dims + 1, w->row_dims, sizeof(int64_t) * (size_t)w->nrow_dims);
    got.rank = nd;
    for (int i = 0; i < nd; i++) got.dims[i] = dims[i];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "%s: cannot append %s %s rows to a file of %s %s", w->path,
                    tfs_dtype_name(tfs_tensor_dtype(rows)),
                    tfs_shape_str(&got, b, sizeof b), tfs_dtype_name(w->dtype),
                    tfs_shape_str(&want, a, sizeof a));
    return;
  }
  int64_t total;
  if (tfs_add_overflow_i64(w->rows, dims[0], &total)) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE, "%s: too many rows", w->path);
    return;
  }
  size_t n = tfs_tensor_byte_size(rows);
  errno = 0;
  if (fseeko(w->f, 0, SEEK_END) != 0 ||
      (n && fwrite(tfs_tensor_data(rows), 1, n, w->f) != n)) {
    tfs_io__errno(st, w->path, "cannot write rows");
    return;
  }
  w->rows = total;
  tfs_status_clear(st);
}

int64_t tfs_npy_writer_rows(const tfs_npy_writer *w) { return w->rows; }

void tfs_npy_writer_close(tfs_npy_writer *w, tfs_status *st) {
  TFS_CHECK_ARG(w, st, );
  int rc = write_header(w, w->rows, w->header_len, st);
  errno = 0;
  int cl = fclose(w->f);
  w->f = NULL;
  if (rc == 0 && cl != 0)
    tfs_io__errno(st, w->path, "cannot write");
  else if (rc == 0)
    tfs_status_clear(st);
  tfs_npy_writer_free(w);
}

void tfs_npy_writer_free(tfs_npy_writer *w) {
  if (!w) return;
  if (w->f) fclose(w->f);
  tfs_free(w->path);
  tfs_free(w);
}

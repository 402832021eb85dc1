/*
 * io/npy.h - the .npy header shared by the whole-file functions (npy.c)
 * and the row-wise reader and writer (npy_stream.c): parsing NumPy's
 * header dict, formatting one, and turning file bytes into a tensor.
 */
#ifndef TFS_IO_NPY_H
#define TFS_IO_NPY_H

#include <stdint.h>
#include <stdio.h>

#include "core/strbuf.h"
#include "tfsess/io.h"

/* The 6 magic bytes, then major and minor version bytes. */
#define TFS_NPY_MAGIC "\x93NUMPY"
#define TFS_NPY_MAGIC_LEN 6
/* Longest preamble: magic, version, 4-byte header length. */
#define TFS_NPY_PREAMBLE_MAX 12

typedef struct tfs_npy_header {
  tfs_dtype dtype;  /* TFS_STRING for 'S' arrays */
  size_t elem_size; /* bytes per element in the file */
  int swap;         /* file byte order differs from the host's */
  int fortran_order;
  int ndims;
  int64_t dims[TFS_MAX_RANK];
  int64_t nelems;
  uint64_t data_bytes; /* nelems * elem_size */
  size_t data_offset;  /* preamble + header: where the data starts */
  char descr[32];      /* as written, for messages */
} tfs_npy_header;

/* From the first bytes of a file (at least 10, up to
 * TFS_NPY_PREAMBLE_MAX), the size of preamble plus header.  `len` tells
 * how many bytes are there.  Returns 0, or -1 with an error naming
 * `name`. */
int tfs_npy__preamble(const uint8_t *buf, size_t len, const char *name,
                      size_t *total, tfs_status *st);

/* Parses preamble and header in buf[0..len) (len >= the total from
 * tfs_npy__preamble).  Returns 0, or -1 with an error naming `name`. */
int tfs_npy__parse_header(const uint8_t *buf, size_t len, const char *name,
                          tfs_npy_header *h, tfs_status *st);

/* Reads and parses the header of an open file positioned at its start;
 * `file_size` is the file's size, checked against the data the header
 * announces (DATA_LOSS when short).  Returns 0 or -1. */
int tfs_npy__read_header(FILE *f, uint64_t file_size, const char *name,
                         tfs_npy_header *h, tfs_status *st);

/* A new tensor of shape rows x dims[1:] (or the whole shape when
 * `rows` < 0) from file bytes data[0..) laid out as `h` says; swaps bytes
 * and transposes Fortran order.  For a row range of a Fortran-order file,
 * `data` must hold the range gathered per column as
 * tfs_npy_reader_read_rows lays it out (that is, Fortran order of the
 * sub-array).  Returns NULL with an error. */
tfs_tensor *tfs_npy__decode(const tfs_npy_header *h, const uint8_t *data,
                            int64_t rows, const char *name, tfs_status *st);

/* Appends preamble and header for dtype/dims to `out`.  `width` is the
 * element size of string arrays.  When `pad_to` is not 0 the result is
 * padded to exactly that many bytes (it must fit).  Returns the byte
 * count, or 0 with an error. */
size_t tfs_npy__format_header(tfs_strbuf *out, tfs_dtype dt, size_t width,
                              const int64_t *dims, int ndims, size_t pad_to,
                              const char *name, tfs_status *st);

/* Opens a file for reading and gets its size; NOT_FOUND /
 * PERMISSION_DENIED / INVALID_ARGUMENT with `path` in the message. */
FILE *tfs_io__open_read(const char *path, uint64_t *size, tfs_status *st);
/* Opens a file for writing (mode "wb", "r+b", "ab"), reporting errno. */
FILE *tfs_io__open_write(const char *path, const char *mode, tfs_status *st);
/* Sets `st` from errno after a failed read/write/close of `path`. */
void tfs_io__errno(tfs_status *st, const char *path, const char *what);

#endif /* TFS_IO_NPY_H */

/*
 * fuzz/fuzz_npy.c - libFuzzer target: .npy bytes through
 * tfs_npy_read_buffer (then printing the tensor, which decodes string
 * elements, and writing it back as .npy), and through the row reader
 * (tfs_npy_reader_open on a temp file, reading the first rows).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tfsess/tfsess.h"
#include "fuzz_tmpfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void whole(const uint8_t *data, size_t size, tfs_status *st) {
  tfs_tensor *t = tfs_npy_read_buffer(data, size, NULL, st);
  tfs_buffer *out;
  char *text;
  if (!t) return;
  text = tfs_tensor_to_string(t, 16);
  free(text);
  out = tfs_buffer_new();
  if (out) {
    tfs_npy_write_buffer(t, out, st);
    tfs_buffer_free(out);
  }
  tfs_tensor_free(t);
}

static void rows(const uint8_t *data, size_t size, tfs_status *st) {
  char path[64];
  tfs_npy_reader *r;
  if (fuzz_write_tmp(path, sizeof path, data, size) != 0) return;
  tfs_status_clear(st);
  r = tfs_npy_reader_open(path, st);
  if (r) {
    int nd = tfs_npy_reader_ndims(r);
    const int64_t *dims = tfs_npy_reader_dims(r);
    (void)tfs_npy_reader_dtype(r);
    if (nd > 0 && dims && dims[0] > 0) {
      int64_t count = dims[0] < 4 ? dims[0] : 4;
      tfs_tensor *t = tfs_npy_reader_read_rows(r, 0, count, st);
      tfs_tensor_free(t);
      tfs_status_clear(st);
      t = tfs_npy_reader_read_rows(r, dims[0] - 1, 1, st);
      tfs_tensor_free(t);
    }
    tfs_npy_reader_free(r);
  }
  unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfs_status *st = tfs_status_new();
  if (!st) return 0;
  whole(data, size, st);
  rows(data, size, st);
  tfs_status_free(st);
  return 0;
}

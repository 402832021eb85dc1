/*
 * fuzz/fuzz_npz.c - libFuzzer target: .npz (zip) bytes through
 * tfs_npz_read on a temp file, then every entry's name, tensor and
 * printed form, and a lookup by name.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tfsess/tfsess.h"
#include "fuzz_tmpfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  tfs_status *st = tfs_status_new();
  tfs_npz *z;
  int i, n;
  if (!st) return 0;
  if (fuzz_write_tmp(path, sizeof path, data, size) != 0) {
    tfs_status_free(st);
    return 0;
  }
  z = tfs_npz_read(path, st);
  n = z ? tfs_npz_count(z) : 0;
  for (i = 0; i < n; i++) {
    const char *name = tfs_npz_name(z, i);
    tfs_tensor *t = tfs_npz_tensor(z, i);
    char *text = t ? tfs_tensor_to_string(t, 8) : NULL;
    free(text);
    if (name) (void)tfs_npz_find(z, name);
  }
  tfs_npz_free(z);
  unlink(path);
  tfs_status_free(st);
  return 0;
}

/*
 * fuzz/fuzz_checkpoint.c - libFuzzer target: a V2 checkpoint.  The input
 * is a 4-byte little-endian length n, then n bytes of PREFIX.index, then
 * the bytes of PREFIX.data-00000-of-00001 (shorter inputs give an index
 * only).  Both are written under a fresh /tmp prefix; the reader opens
 * the index and reads every tensor it lists (at most 1000), each checked
 * against its size and CRC32C.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfsess/tfsess.h"
#include "fuzz_tmpfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_READS 1000

static int write_file(const char *path, const uint8_t *d, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  int rc = n && fwrite(d, 1, n, f) != n ? -1 : 0;
  return fclose(f) || rc ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char prefix[64], index[96], shard[128];
  size_t n = size;
  if (size >= 4) {
    n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 |
        (size_t)data[3] << 24;
    data += 4;
    size -= 4;
    if (n > size) n = size;
  }
  if (fuzz_write_tmp(prefix, sizeof prefix, NULL, 0) != 0) return 0;
  snprintf(index, sizeof index, "%s.index", prefix);
  snprintf(shard, sizeof shard, "%s.data-00000-of-00001", prefix);
  if (write_file(index, data, n) == 0 &&
      write_file(shard, data + n, size - n) == 0) {
    tfs_status *st = tfs_status_new();
    tfs_bundle_reader *r = st ? tfs_bundle_reader_open(prefix, st) : NULL;
    int count = r ? tfs_bundle_reader_count(r) : 0;
    for (int i = 0; i < count && i < MAX_READS; i++) {
      const int64_t *dims;
      (void)tfs_bundle_reader_shape(r, i, &dims);
      tfs_tensor *t = tfs_bundle_reader_read(r, tfs_bundle_reader_name(r, i),
                                             st);
      tfs_tensor_free(t);
      tfs_status_clear(st);
    }
    tfs_bundle_reader_free(r);
    tfs_status_free(st);
  }
  unlink(index);
  unlink(shard);
  unlink(prefix);
  return 0;
}

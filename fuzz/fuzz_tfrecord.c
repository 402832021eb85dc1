/*
 * fuzz/fuzz_tfrecord.c - libFuzzer target: TFRecord bytes (as a
 * TensorBoard event file holds them) read with tfs_record_reader from a
 * temp file, each record's CRCs checked, and each record decoded as an
 * Event proto (the library's internal protobuf-c parser, since there is
 * no public event reader).  At most 1000 records per input.
 */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "tfsess/tfsess.h"
#include "proto/event.pb-c.h"
#include "fuzz_tmpfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_RECORDS 1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  tfs_status *st = tfs_status_new();
  tfs_record_reader *r;
  int i;
  if (!st) return 0;
  if (fuzz_write_tmp(path, sizeof path, data, size) != 0) {
    tfs_status_free(st);
    return 0;
  }
  r = tfs_record_reader_open(path, st);
  for (i = 0; r && i < MAX_RECORDS; i++) {
    const void *rec;
    size_t len;
    Tensorflow__Event *ev;
    if (tfs_record_reader_next(r, &rec, &len, st) != 1) break;
    (void)tfs_record_reader_offset(r);
    ev = tensorflow__event__unpack(NULL, len, rec);
    if (ev) tensorflow__event__free_unpacked(ev, NULL);
  }
  tfs_record_reader_free(r);
  unlink(path);
  tfs_status_free(st);
  return 0;
}

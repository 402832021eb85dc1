/*
 * io/tfrecord.h - internals of the TFRecord framing shared with the event
 * writer and the tests: the software CRC32C (to check the hardware one
 * against), record framing into caller buffers, and a writer over a file
 * that the caller opened (the event writer creates its file exclusively).
 */
#ifndef TFS_IO_TFRECORD_H
#define TFS_IO_TFRECORD_H

#include <stdint.h>
#include <stdio.h>

#include "tfsess/io.h"

/* CRC32C continuing `crc`, always computed with the table method. */
uint32_t tfs_crc32c__sw(uint32_t crc, const void *data, size_t n);

/* The 12-byte header (length, masked CRC of the length) and the 4-byte
 * footer (masked CRC of the data) of a record holding data[0..len). */
void tfs_record__frame(uint64_t len, const void *data, uint8_t header[12],
                       uint8_t footer[4]);

/* A record writer over `f` (taken: closed by tfs_record_writer_free, or
 * here when memory runs out, then *out is NULL).  `path` is copied for
 * messages. */
void tfs_record__writer_adopt(tfs_record_writer **out, FILE *f,
                              const char *path, tfs_status *st);

#endif /* TFS_IO_TFRECORD_H */

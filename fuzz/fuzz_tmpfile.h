/*
 * fuzz/fuzz_tmpfile.h - helper for the fuzz targets whose reader takes a
 * path: writes the input to a new file made by mkstemp under /tmp.  The
 * caller removes it (unlink) when done.
 */
#ifndef TFS_FUZZ_TMPFILE_H
#define TFS_FUZZ_TMPFILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes data[0..size) to a new temp file whose name goes into path
 * (at least 32 bytes).  Returns 0, or -1 (no file left behind). */
static int fuzz_write_tmp(char *path, size_t cap, const uint8_t *data,
                          size_t size) {
  static const char tmpl[] = "/tmp/tfs-fuzz-XXXXXX";
  size_t done = 0;
  int fd;
  if (cap < sizeof tmpl) return -1;
  memcpy(path, tmpl, sizeof tmpl);
  fd = mkstemp(path);
  if (fd < 0) return -1;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) {
      close(fd);
      unlink(path);
      return -1;
    }
    done += (size_t)n;
  }
  close(fd);
  return 0;
}
#endif /* TFS_FUZZ_TMPFILE_H */

/*
 * core/file.c - reading a whole file into memory.
 */
#include "core/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/util.h"

int tfs_read_file(const char *path, char **out, size_t *len,
                  tfs_status *st) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT || errno == ENOTDIR) return 1;
    tfs_status_setf(st, TFS_PERMISSION_DENIED, "%s; %s", path,
                    strerror(errno));
    return -1;
  }
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    /* one byte beyond the data stays free for the NUL */
    if (n + 1 >= cap && tfs_grow((void **)&buf, &cap, n + 65536, 1)) {
      tfs_free(buf);
      fclose(f);
      TFS_OOM(st);
      return -1;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    tfs_free(buf);
    tfs_status_setf(st, TFS_DATA_LOSS, "%s: read error", path);
    return -1;
  }
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return 0;
}

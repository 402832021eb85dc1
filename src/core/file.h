/*
 * core/file.h - reading a whole file into memory (GraphDefs, SavedModel
 * protos, checkpoint indexes and state files).
 */
#ifndef TFS_CORE_FILE_H
#define TFS_CORE_FILE_H

#include <stddef.h>

#include "core/status.h"

/* Reads the whole file `path` into a new buffer *out of *len bytes,
 * followed by one NUL byte that *len does not count (text files can be
 * used as strings).  The caller frees *out with tfs_free.
 * Returns 0; 1 when the file does not exist (ENOENT or ENOTDIR: nothing
 * is set in `st`, *out untouched); -1 with an error in `st`:
 * PERMISSION_DENIED "PATH; reason" when it cannot be opened,
 * DATA_LOSS "PATH: read error", RESOURCE_EXHAUSTED.  Thread-safe. */
int tfs_read_file(const char *path, char **out, size_t *len,
                  tfs_status *st);

#endif

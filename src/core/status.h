/*
 * core/status.h - internal helpers around the public status object:
 * formatted setters and context added to an existing error.
 */
#ifndef TFS_CORE_STATUS_H
#define TFS_CORE_STATUS_H

#include "tfsess/status.h"
#include "core/util.h"

/* Sets code and a printf-formatted message. */
void tfs_status_setf(tfs_status *st, tfs_code code, const char *fmt, ...)
    TFS_PRINTF(3, 4);

/* Adds text after / before the message of a failed status (no-op if OK). */
void tfs_status_appendf(tfs_status *st, const char *fmt, ...)
    TFS_PRINTF(2, 3);
void tfs_status_prependf(tfs_status *st, const char *fmt, ...)
    TFS_PRINTF(2, 3);

/* Copies code and message from src to dst. */
void tfs_status_copy(tfs_status *dst, const tfs_status *src);

#define TFS_OOM(st) tfs_status_set((st), TFS_RESOURCE_EXHAUSTED, "out of memory")

#endif

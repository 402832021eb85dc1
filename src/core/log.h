/*
 * core/log.h - diagnostics to stderr.  The threshold comes from the
 * environment variable TFS_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error;
 * default 2), read once.
 */
#ifndef TFS_CORE_LOG_H
#define TFS_CORE_LOG_H

#include "core/util.h"

enum { TFS_LOG_DEBUG = 0, TFS_LOG_INFO = 1, TFS_LOG_WARN = 2,
       TFS_LOG_ERROR = 3 };

int tfs_log_enabled(int level);
void tfs_log(int level, const char *fmt, ...) TFS_PRINTF(2, 3);
/* Overrides the threshold (tests, the CLI's --verbose). */
void tfs_log_set_level(int level);

#endif

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

/* Listeners of what PrintV2 prints, as TensorFlow's
 * TF_RegisterLogListener: once one is registered, PrintV2 hands its text
 * (with its `end`) to every listener instead of writing it to its output
 * stream (TensorFlow's legacy Print op ignores listeners, and so does
 * ours).  Listeners stay for the life of the process and may be called
 * from any thread.  Returns 0, -1 when memory runs out. */
int tfs_log_add_listener(void (*listener)(const char *text));

/* Calls every listener with `text`; returns 1 when there was one (the
 * text is then delivered), 0 when there is none.  Thread-safe. */
int tfs_log_to_listeners(const char *text);

/* 1 when a listener is registered (a cheap check before building text). */
int tfs_log_has_listeners(void);

#endif

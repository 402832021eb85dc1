/*
 * tfsess/status.h - error reporting: a status object carries a code and a
 * message.  Codes are TensorFlow's error codes, number for number.
 *
 * Every fallible tfsess call takes a caller-owned `tfs_status *` as its last
 * argument.  Success clears it (code OK, message ""), failure fills it.
 * A status is used by one thread at a time.
 */
#ifndef TFSESS_STATUS_H
#define TFSESS_STATUS_H

#include "common.h"

TFS_BEGIN_DECLS

/* Error codes, equal to tensorflow/core/protobuf/error_codes.proto. */
typedef enum tfs_code {
  TFS_OK = 0,
  TFS_CANCELLED = 1,
  TFS_UNKNOWN = 2,
  TFS_INVALID_ARGUMENT = 3,
  TFS_DEADLINE_EXCEEDED = 4,
  TFS_NOT_FOUND = 5,
  TFS_ALREADY_EXISTS = 6,
  TFS_PERMISSION_DENIED = 7,
  TFS_RESOURCE_EXHAUSTED = 8,
  TFS_FAILED_PRECONDITION = 9,
  TFS_ABORTED = 10,
  TFS_OUT_OF_RANGE = 11,
  TFS_UNIMPLEMENTED = 12,
  TFS_INTERNAL = 13,
  TFS_UNAVAILABLE = 14,
  TFS_DATA_LOSS = 15,
  TFS_UNAUTHENTICATED = 16
} tfs_code;

typedef struct tfs_status tfs_status;

/* Returns a new status with code OK; caller frees with tfs_status_free.
 * Returns NULL only when memory is exhausted. */
TFS_API tfs_status *tfs_status_new(void);

/* Frees a status.  Accepts NULL. */
TFS_API void tfs_status_free(tfs_status *st);

/* Records `code` and a copy of `msg` (NULL means "").  TFS_OK clears the
 * message, whatever `msg` says. */
TFS_API void tfs_status_set(tfs_status *st, tfs_code code, const char *msg);

/* Resets to OK with an empty message. */
TFS_API void tfs_status_clear(tfs_status *st);

/* The code; TFS_OK for a NULL status. */
TFS_API tfs_code tfs_status_code(const tfs_status *st);

/* Non-zero when the code is TFS_OK. */
TFS_API int tfs_status_ok(const tfs_status *st);

/* The message: "" when OK.  Borrowed; valid until the status is next
 * changed or freed. */
TFS_API const char *tfs_status_message(const tfs_status *st);

/* TensorFlow's name of a code ("INVALID_ARGUMENT"); "UNKNOWN_CODE" for a
 * value outside the enum.  Static string. */
TFS_API const char *tfs_code_name(tfs_code code);

TFS_END_DECLS

#endif /* TFSESS_STATUS_H */

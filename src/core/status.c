/*
 * core/status.c - the status object: an error code and an owned message.
 */
#include "core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tfs_status {
  tfs_code code;
  char *msg;
};

static const char kEmpty[] = "";

tfs_status *tfs_status_new(void) {
  tfs_status *st = calloc(1, sizeof(*st));
  return st;
}

void tfs_status_free(tfs_status *st) {
  if (!st) return;
  free(st->msg);
  free(st);
}

void tfs_status_clear(tfs_status *st) {
  if (!st) return;
  st->code = TFS_OK;
  free(st->msg);
  st->msg = NULL;
}

void tfs_status_set(tfs_status *st, tfs_code code, const char *msg) {
  if (!st) return;
  if (code == TFS_OK) {
    tfs_status_clear(st);
    return;
  }
  char *copy = tfs_strdup(msg ? msg : "");
  free(st->msg);
  st->msg = copy; /* NULL when memory ran out: the code still tells */
  st->code = code;
}

void tfs_status_setf(tfs_status *st, tfs_code code, const char *fmt, ...) {
  va_list ap;
  if (!st) return;
  va_start(ap, fmt);
  char *m = tfs_vasprintf(fmt, ap);
  va_end(ap);
  if (code == TFS_OK) {
    free(m);
    tfs_status_clear(st);
    return;
  }
  free(st->msg);
  st->msg = m;
  st->code = code;
}

void tfs_status_appendf(tfs_status *st, const char *fmt, ...) {
  va_list ap;
  if (!st || st->code == TFS_OK) return;
  va_start(ap, fmt);
  char *tail = tfs_vasprintf(fmt, ap);
  va_end(ap);
  if (!tail) return;
  char *m = tfs_asprintf("%s%s", st->msg ? st->msg : "", tail);
  free(tail);
  if (!m) return;
  free(st->msg);
  st->msg = m;
}

void tfs_status_prependf(tfs_status *st, const char *fmt, ...) {
  va_list ap;
  if (!st || st->code == TFS_OK) return;
  va_start(ap, fmt);
  char *head = tfs_vasprintf(fmt, ap);
  va_end(ap);
  if (!head) return;
  char *m = tfs_asprintf("%s%s", head, st->msg ? st->msg : "");
  free(head);
  if (!m) return;
  free(st->msg);
  st->msg = m;
}

void tfs_status_copy(tfs_status *dst, const tfs_status *src) {
  if (!dst || dst == src) return;
  if (!src || src->code == TFS_OK) {
    tfs_status_clear(dst);
    return;
  }
  tfs_status_set(dst, src->code, src->msg);
}

tfs_code tfs_status_code(const tfs_status *st) {
  return st ? st->code : TFS_OK;
}

int tfs_status_ok(const tfs_status *st) {
  return !st || st->code == TFS_OK;
}

const char *tfs_status_message(const tfs_status *st) {
  if (!st || st->code == TFS_OK || !st->msg) return kEmpty;
  return st->msg;
}

const char *tfs_code_name(tfs_code code) {
  static const char *const names[] = {
      "OK",
      "CANCELLED",
      "UNKNOWN",
      "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED",
      "NOT_FOUND",
      "ALREADY_EXISTS",
      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION",
      "ABORTED",
      "OUT_OF_RANGE",
      "UNIMPLEMENTED",
      "INTERNAL",
      "UNAVAILABLE",
      "DATA_LOSS",
      "UNAUTHENTICATED",
  };
  if ((int)code < 0 || (size_t)code >= sizeof(names) / sizeof(names[0]))
    return "UNKNOWN_CODE";
  return names[code];
}

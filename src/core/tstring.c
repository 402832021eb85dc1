/*
 * core/tstring.c - TF_TString-compatible string records.
 */
#include "core/tstring.h"

#include <string.h>

#include "core/alloc.h"

void tfs_tstring_init(tfs_tstring *s) { memset(s, 0, sizeof(*s)); }

int tfs_tstring_type(const tfs_tstring *s) {
  return s->u.raw[0] & TFS_TSTR_TYPE_MASK;
}

void tfs_tstring_dealloc(tfs_tstring *s) {
  int type = tfs_tstring_type(s);
  if (type == TFS_TSTR_LARGE)
    tfs_free(s->u.large.ptr);
  else if (type == TFS_TSTR_VIEW && s->u.view.owner)
    (void)s->u.view.owner->unref(s->u.view.owner);
  tfs_tstring_init(s);
}

size_t tfs_tstring_size(const tfs_tstring *s) {
  switch (tfs_tstring_type(s)) {
    case TFS_TSTR_SMALL:
      return s->u.smll.size >> 2;
    case TFS_TSTR_LARGE:
      return s->u.large.size >> 2;
    case TFS_TSTR_OFFSET:
      return s->u.offset.size >> 2;
    default:
      return s->u.view.size >> 2;
  }
}

size_t tfs_tstring_capacity(const tfs_tstring *s) {
  switch (tfs_tstring_type(s)) {
    case TFS_TSTR_SMALL:
      return TFS_TSTR_SMALL_CAP;
    case TFS_TSTR_LARGE:
      return s->u.large.cap;
    default:
      return 0;
  }
}

const char *tfs_tstring_data(const tfs_tstring *s) {
  switch (tfs_tstring_type(s)) {
    case TFS_TSTR_SMALL:
      return s->u.smll.str;
    case TFS_TSTR_LARGE:
      return s->u.large.ptr;
    case TFS_TSTR_OFFSET:
      return (const char *)s + s->u.offset.offset;
    default:
      return s->u.view.ptr;
  }
}

int tfs_tstring_copy(tfs_tstring *s, const char *src, size_t n) {
  tfs_tstring_dealloc(s);
  if (n <= TFS_TSTR_SMALL_CAP) {
    s->u.smll.size = (uint8_t)(n << 2) | TFS_TSTR_SMALL;
    if (n) memcpy(s->u.smll.str, src, n);
    s->u.smll.str[n] = 0;
    return 0;
  }
  char *p = tfs_malloc(n + 1);
  if (!p) return -1;
  memcpy(p, src, n);
  p[n] = 0;
  s->u.large.size = (n << 2) | TFS_TSTR_LARGE;
  s->u.large.cap = n;
  s->u.large.ptr = p;
  return 0;
}

void tfs_tstring_assign_view(tfs_tstring *s, const char *src, size_t n) {
  tfs_tstring_dealloc(s);
  s->u.view.size = (n << 2) | TFS_TSTR_VIEW;
  s->u.view.ptr = src;
}

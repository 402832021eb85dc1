/*
 * core/tstring.h - the 24-byte string record of string tensors, laid out
 * exactly as TensorFlow's TF_TString (little-endian hosts): the low two bits
 * of the first byte give the kind (small, large, offset, view), the size is
 * stored shifted left by two.  Small strings (up to 22 bytes) live inline.
 */
#ifndef TFS_CORE_TSTRING_H
#define TFS_CORE_TSTRING_H

#include <stddef.h>
#include <stdint.h>

enum {
  TFS_TSTR_SMALL = 0,
  TFS_TSTR_LARGE = 1,
  TFS_TSTR_OFFSET = 2,
  TFS_TSTR_VIEW = 3,
  TFS_TSTR_TYPE_MASK = 3,
  TFS_TSTR_SMALL_CAP = 22
};

typedef struct {
  size_t size;
  size_t cap;
  char *ptr;
} tfs_tstr_large;

typedef struct {
  uint32_t size;
  uint32_t offset;
  uint32_t count;
} tfs_tstr_offset;

/* An owner a view may hold a reference on (TensorFlow 2.21's
 * TStringOwnerCApi, same layout): the view drops it when deallocated. */
typedef struct tfs_tstr_owner {
  void (*ref)(struct tfs_tstr_owner *self);
  _Bool (*unref)(struct tfs_tstr_owner *self);
  void *obj;
} tfs_tstr_owner;

typedef struct {
  size_t size;
  const char *ptr;
  tfs_tstr_owner *owner; /* NULL: the bytes belong to someone else */
} tfs_tstr_view;

typedef struct {
  uint8_t size;
  char str[TFS_TSTR_SMALL_CAP + 1];
} tfs_tstr_small;

typedef struct tfs_tstring {
  union {
    tfs_tstr_small smll;
    tfs_tstr_large large;
    tfs_tstr_offset offset;
    tfs_tstr_view view;
    uint8_t raw[24];
  } u;
} tfs_tstring;

_Static_assert(sizeof(tfs_tstring) == 24, "tstring must be 24 bytes");

void tfs_tstring_init(tfs_tstring *s);
/* Frees a large string's bytes or drops a view's owner reference, and
 * leaves an empty string. */
void tfs_tstring_dealloc(tfs_tstring *s);
int tfs_tstring_type(const tfs_tstring *s);
size_t tfs_tstring_size(const tfs_tstring *s);
size_t tfs_tstring_capacity(const tfs_tstring *s);
const char *tfs_tstring_data(const tfs_tstring *s);
/* Owning copy of src[0..n); returns 0, -1 when memory runs out (s is then
 * an empty string). */
int tfs_tstring_copy(tfs_tstring *s, const char *src, size_t n);
/* Non-owning view (no owner reference). */
void tfs_tstring_assign_view(tfs_tstring *s, const char *src, size_t n);

#endif

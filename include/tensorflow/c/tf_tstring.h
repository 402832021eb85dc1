/*
 * tensorflow/c/tf_tstring.h - tfsess's TensorFlow C API compatibility
 * layer: TF_TString, the 24-byte element of TF_STRING tensors (the layout
 * of tfsess's string records), its exported functions and the static
 * inline TF_TString_* helpers that TensorFlow programs call directly.
 */
#ifndef TENSORFLOW_C_TF_TSTRING_H_
#define TENSORFLOW_C_TF_TSTRING_H_

/*
 * Layout (little-endian hosts): the low two bits of the first byte give
 * the kind (small, large, offset, view) and sizes are stored shifted left
 * by two.  A small string (up to 22 bytes) lives inside the record with a
 * NUL after it; a large one points to malloc'd memory of capacity `cap`
 * (+1 for a NUL) that the record owns; a view points to memory it does
 * not own (TensorFlow 2.21 lets a view hold a reference on an owner
 * object, TStringOwnerCApi, released when the view goes away); an offset
 * is relative to the record (serialized tensors).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api_macros.h"
#include "tensorflow/c/tf_tensor.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#if !defined(_WIN32)
#error "tfsess's TF_TString supports little-endian hosts only"
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TF_TString_Type {
  TF_TSTR_SMALL = 0x00,
  TF_TSTR_LARGE = 0x01,
  TF_TSTR_OFFSET = 0x02,
  TF_TSTR_VIEW = 0x03,
  TF_TSTR_TYPE_MASK = 0x03
} TF_TString_Type;

/* Shared ownership of the bytes a view points to: `ref` adds a reference,
 * `unref` drops one (returning true when it was the last); `obj` is the
 * owner's own state. */
struct TStringOwnerCApi;
typedef void (*tstring_owner_ref_t)(struct TStringOwnerCApi *self);
typedef bool (*tstring_owner_unref_t)(struct TStringOwnerCApi *self);
typedef struct TStringOwnerCApi {
  tstring_owner_ref_t ref;
  tstring_owner_unref_t unref;
  void *obj;
} TStringOwnerCApi;

typedef struct TF_TString_Large {
  size_t size; /* (length << 2) | TF_TSTR_LARGE */
  size_t cap;  /* bytes usable, not counting the NUL */
  char *ptr;
} TF_TString_Large;

typedef struct TF_TString_Offset {
  uint32_t size;   /* (length << 2) | TF_TSTR_OFFSET */
  uint32_t offset; /* from the start of this record */
  uint32_t count;
} TF_TString_Offset;

typedef struct TF_TString_View {
  size_t size; /* (length << 2) | TF_TSTR_VIEW */
  const char *ptr;
  TStringOwnerCApi *owner_ref; /* a reference the view holds, or NULL */
} TF_TString_View;

typedef struct TF_TString_Raw {
  uint8_t raw[24];
} TF_TString_Raw;

typedef union TF_TString_Union {
  TF_TString_Large large;
  TF_TString_Offset offset;
  TF_TString_View view;
  TF_TString_Raw raw;
} TF_TString_Union;

/* 24 bytes less the size byte and the NUL. */
enum { TF_TString_SmallCapacity = 22 };

typedef struct TF_TString_Small {
  uint8_t size; /* (length << 2) | TF_TSTR_SMALL */
  char str[TF_TString_SmallCapacity + 1];
} TF_TString_Small;

typedef struct TF_TString {
  union {
    TF_TString_Small smll;
    TF_TString_Large large;
    TF_TString_Offset offset;
    TF_TString_View view;
    TF_TString_Raw raw;
  } u;
} TF_TString;

/* ---- exported functions (same behaviour as the inline helpers) ---------- */

TF_CAPI_EXPORT extern void TF_StringInit(TF_TString *t);
TF_CAPI_EXPORT extern void TF_StringCopy(TF_TString *dst, const char *src,
                                         size_t size);
TF_CAPI_EXPORT extern void TF_StringAssignView(TF_TString *dst, const char *src,
                                               size_t size);
TF_CAPI_EXPORT extern const char *TF_StringGetDataPointer(
    const TF_TString *tstr);
TF_CAPI_EXPORT extern TF_TString_Type TF_StringGetType(const TF_TString *str);
TF_CAPI_EXPORT extern size_t TF_StringGetSize(const TF_TString *tstr);
TF_CAPI_EXPORT extern size_t TF_StringGetCapacity(const TF_TString *str);
TF_CAPI_EXPORT extern void TF_StringDealloc(TF_TString *tstr);

/* ---- header-only helpers ------------------------------------------------- */

/* Capacity for a request of n bytes: the next multiple of 16, less one
 * byte kept for the NUL. */
static inline size_t TF_TString_AlignedCap(size_t n) {
  return ((n + 1 + 15) & ~(size_t)15) - 1;
}

static inline TF_TString_Type TF_TString_GetType(const TF_TString *str) {
  return (TF_TString_Type)(str->u.raw.raw[0] & TF_TSTR_TYPE_MASK);
}

/* An empty small string. */
static inline void TF_TString_Init(TF_TString *str) {
  memset(str->u.raw.raw, 0, sizeof(str->u.raw.raw));
}

/* Drops a view's reference on its owner (if it holds one). */
static inline void TF_TString_ReleaseOwner(TF_TString *str) {
  TStringOwnerCApi *owner = str->u.view.owner_ref;
  if (TF_TString_GetType(str) == TF_TSTR_VIEW && owner != NULL)
    (void)owner->unref(owner);
}

/* Frees a large string's memory, or releases a view's owner, and leaves
 * an empty string; offsets, small strings and views without an owner own
 * nothing and are left as they are. */
static inline void TF_TString_Dealloc(TF_TString *str) {
  TF_TString_Type type = TF_TString_GetType(str);
  if (type == TF_TSTR_LARGE && str->u.large.ptr != NULL) {
    free(str->u.large.ptr);
    TF_TString_Init(str);
  } else if (type == TF_TSTR_VIEW && str->u.view.owner_ref != NULL) {
    TF_TString_ReleaseOwner(str);
    TF_TString_Init(str);
  }
}

static inline size_t TF_TString_GetSize(const TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return (size_t)(str->u.smll.size >> 2);
    case TF_TSTR_LARGE:
      return str->u.large.size >> 2;
    case TF_TSTR_OFFSET:
      return (size_t)(str->u.offset.size >> 2);
    default:
      return str->u.view.size >> 2;
  }
}

static inline size_t TF_TString_GetCapacity(const TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return TF_TString_SmallCapacity;
    case TF_TSTR_LARGE:
      return str->u.large.cap;
    default:
      return 0;
  }
}

static inline const char *TF_TString_GetDataPointer(const TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.str;
    case TF_TSTR_LARGE:
      return str->u.large.ptr;
    case TF_TSTR_OFFSET:
      return (const char *)str + str->u.offset.offset;
    default:
      return str->u.view.ptr;
  }
}

/* Sets the size to new_size, keeping the first min(old, new) bytes and
 * leaving the rest unset; the string ends up owned (small or large).
 * Returns the writable bytes. */
static inline char *TF_TString_ResizeUninitialized(TF_TString *str,
                                                   size_t new_size) {
  TF_TString_Type type = TF_TString_GetType(str);
  size_t old_size = TF_TString_GetSize(str);
  size_t keep = old_size < new_size ? old_size : new_size;
  const char *old_ptr = TF_TString_GetDataPointer(str);
  size_t old_cap = TF_TString_GetCapacity(str);
  size_t cap;
  char *p;

  if (new_size <= TF_TString_SmallCapacity) {
    if (type != TF_TSTR_SMALL) {
      char tmp[TF_TString_SmallCapacity + 1];
      if (keep) memcpy(tmp, old_ptr, keep);
      if (type == TF_TSTR_LARGE) free(str->u.large.ptr);
      TF_TString_ReleaseOwner(str);
      if (keep) memcpy(str->u.smll.str, tmp, keep);
    }
    str->u.smll.size = (uint8_t)((new_size << 2) | TF_TSTR_SMALL);
    str->u.smll.str[new_size] = '\0';
    return str->u.smll.str;
  }
  if (type == TF_TSTR_LARGE && new_size < old_size && new_size < old_cap / 2)
    cap = TF_TString_AlignedCap(old_cap / 2);
  else if (type != TF_TSTR_LARGE || new_size > old_cap)
    cap = TF_TString_AlignedCap(new_size);
  else
    cap = old_cap;

  if (type == TF_TSTR_LARGE) {
    p = str->u.large.ptr;
    if (cap != old_cap) {
      p = (char *)realloc(p, cap + 1);
      if (p == NULL) return NULL;
    }
  } else {
    p = (char *)malloc(cap + 1);
    if (p == NULL) return NULL;
    if (keep) memcpy(p, old_ptr, keep);
    TF_TString_ReleaseOwner(str);
  }
  str->u.large.size = (new_size << 2) | TF_TSTR_LARGE;
  str->u.large.cap = cap;
  str->u.large.ptr = p;
  p[new_size] = '\0';
  return p;
}

/* Writable bytes; a view or offset string is first copied into memory the
 * record owns. */
static inline char *TF_TString_GetMutableDataPointer(TF_TString *str) {
  switch (TF_TString_GetType(str)) {
    case TF_TSTR_SMALL:
      return str->u.smll.str;
    case TF_TSTR_LARGE:
      return str->u.large.ptr;
    default:
      return TF_TString_ResizeUninitialized(str, TF_TString_GetSize(str));
  }
}

/* Makes room for at least new_cap bytes without changing the contents. */
static inline void TF_TString_Reserve(TF_TString *str, size_t new_cap) {
  TF_TString_Type type = TF_TString_GetType(str);
  size_t size = TF_TString_GetSize(str);
  char *p;

  if (new_cap <= TF_TString_SmallCapacity) return;
  if (type == TF_TSTR_LARGE && new_cap <= str->u.large.cap) return;
  if (new_cap < size) new_cap = size;
  new_cap = TF_TString_AlignedCap(new_cap);
  if (type == TF_TSTR_LARGE) {
    p = (char *)realloc(str->u.large.ptr, new_cap + 1);
    if (p == NULL) return;
  } else {
    p = (char *)malloc(new_cap + 1);
    if (p == NULL) return;
    memcpy(p, TF_TString_GetDataPointer(str), size);
    p[size] = '\0';
    TF_TString_ReleaseOwner(str);
    str->u.large.size = (size << 2) | TF_TSTR_LARGE;
  }
  str->u.large.ptr = p;
  str->u.large.cap = new_cap;
}

/* Reserve, at least doubling the capacity (for appends in a loop). */
static inline void TF_TString_ReserveAmortized(TF_TString *str,
                                               size_t new_cap) {
  size_t cap = TF_TString_GetCapacity(str);
  if (new_cap > cap)
    TF_TString_Reserve(str, new_cap > 2 * cap ? new_cap : 2 * cap);
}

/* Resizes, filling new bytes with `c`. */
static inline char *TF_TString_Resize(TF_TString *str, size_t new_size,
                                      char c) {
  size_t old_size = TF_TString_GetSize(str);
  char *p = TF_TString_ResizeUninitialized(str, new_size);
  if (p != NULL && new_size > old_size)
    memset(p + old_size, c, new_size - old_size);
  return p;
}

/* Points `dst` at src[0..size) without copying and takes a reference on
 * `owner_ref` (may be NULL), which the view drops when it is deallocated,
 * resized or reassigned. */
static inline void TF_TString_AssignViewWithOwner(TF_TString *dst,
                                                  const char *src, size_t size,
                                                  TStringOwnerCApi *owner_ref) {
  if (owner_ref != NULL) owner_ref->ref(owner_ref);
  TF_TString_Dealloc(dst);
  dst->u.view.size = (size << 2) | TF_TSTR_VIEW;
  dst->u.view.ptr = src;
  dst->u.view.owner_ref = owner_ref;
}

/* Points `dst` at src[0..size) without copying; the bytes must outlive
 * the view. */
static inline void TF_TString_AssignView(TF_TString *dst, const char *src,
                                         size_t size) {
  TF_TString_AssignViewWithOwner(dst, src, size, NULL);
}

/* Appends src[0..src_size). */
static inline void TF_TString_AppendN(TF_TString *dst, const char *src,
                                      size_t src_size) {
  size_t size;
  char *p;
  if (src_size == 0) return;
  size = TF_TString_GetSize(dst);
  TF_TString_ReserveAmortized(dst, size + src_size);
  p = TF_TString_ResizeUninitialized(dst, size + src_size);
  if (p != NULL) memcpy(p + size, src, src_size);
}

static inline void TF_TString_Append(TF_TString *dst, const TF_TString *src) {
  TF_TString_AppendN(dst, TF_TString_GetDataPointer(src),
                     TF_TString_GetSize(src));
}

/* Makes `dst` an owned copy of src[0..size). */
static inline void TF_TString_Copy(TF_TString *dst, const char *src,
                                   size_t size) {
  char *p = TF_TString_ResizeUninitialized(dst, size);
  if (p != NULL && size) memcpy(p, src, size);
}

/* dst = src: small strings and views are copied as records (a view's
 * owner gains a reference), large strings get their own memory, offsets
 * become views. */
static inline void TF_TString_Assign(TF_TString *dst, const TF_TString *src) {
  if (dst == src) return;
  switch (TF_TString_GetType(src)) {
    case TF_TSTR_SMALL:
      TF_TString_Dealloc(dst);
      *dst = *src;
      return;
    case TF_TSTR_VIEW:
      TF_TString_Dealloc(dst);
      *dst = *src;
      if (dst->u.view.owner_ref != NULL)
        dst->u.view.owner_ref->ref(dst->u.view.owner_ref);
      return;
    case TF_TSTR_LARGE:
      TF_TString_Dealloc(dst);
      TF_TString_Copy(dst, TF_TString_GetDataPointer(src),
                      TF_TString_GetSize(src));
      return;
    default:
      TF_TString_AssignView(dst, TF_TString_GetDataPointer(src),
                            TF_TString_GetSize(src));
      return;
  }
}

/* dst takes src's contents; src is left empty (large, view) or unchanged
 * (small, offset). */
static inline void TF_TString_Move(TF_TString *dst, TF_TString *src) {
  if (dst == src) return;
  TF_TString_Dealloc(dst);
  switch (TF_TString_GetType(src)) {
    case TF_TSTR_SMALL:
      *dst = *src;
      return;
    case TF_TSTR_LARGE:
    case TF_TSTR_VIEW:
      *dst = *src;
      TF_TString_Init(src);
      return;
    default:
      TF_TString_AssignView(dst, TF_TString_GetDataPointer(src),
                            TF_TString_GetSize(src));
      return;
  }
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TENSORFLOW_C_TF_TSTRING_H_ */

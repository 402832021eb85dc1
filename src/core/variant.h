/*
 * core/variant.h - DT_VARIANT elements.
 *
 * A variant tensor stores one pointer per element to a reference-counted
 * value of some kind (a TensorList, ...); NULL is an empty variant.  The
 * value's first member is a tfs_variant whose `type` says how to destroy
 * and describe it.  Copying a variant tensor takes a reference on each
 * value, so values are shared and must be treated as immutable while
 * shared: a kernel that wants to change one in place checks that it holds
 * the only reference (tfs_variant_is_unique) and otherwise copies it.
 */
#ifndef TFS_CORE_VARIANT_H
#define TFS_CORE_VARIANT_H

#include <stdatomic.h>

struct tfs_strbuf;

typedef struct tfs_variant_type {
  /* TensorFlow's type name ("tensorflow::TensorList"). */
  const char *type_name;
  /* Frees the value (called when the last reference goes). */
  void (*destroy)(void *value);
  /* Appends a short description (TensorFlow's Variant::DebugString) to b;
   * may be NULL ("<type_name>"). */
  void (*describe)(const void *value, struct tfs_strbuf *b);
} tfs_variant_type;

typedef struct tfs_variant {
  atomic_int refs;
  const tfs_variant_type *type;
} tfs_variant;

/* Initialises the header of a new value with one reference. */
static inline void tfs_variant_init(tfs_variant *v,
                                    const tfs_variant_type *type) {
  atomic_init(&v->refs, 1);
  v->type = type;
}

/* Takes a reference; v may be NULL.  Thread-safe.  Returns v. */
tfs_variant *tfs_variant_ref(tfs_variant *v);

/* Drops a reference, destroying the value with the last; v may be NULL.
 * Thread-safe. */
void tfs_variant_unref(tfs_variant *v);

/* Non-zero when the caller's reference is the only one. */
static inline int tfs_variant_is_unique(const tfs_variant *v) {
  return atomic_load_explicit(&v->refs, memory_order_acquire) == 1;
}

/* Appends TensorFlow's text for a variant element: the value's
 * description, "<type_name>", or "[empty variant]" for NULL. */
void tfs_variant_describe(const tfs_variant *v, struct tfs_strbuf *b);

#endif

/*
 * core/variant.c - reference counting and description of DT_VARIANT
 * element values.
 */
#include "core/variant.h"

#include <stddef.h>

#include "core/strbuf.h"

tfs_variant *tfs_variant_ref(tfs_variant *v) {
  if (v) atomic_fetch_add_explicit(&v->refs, 1, memory_order_relaxed);
  return v;
}

void tfs_variant_unref(tfs_variant *v) {
  if (!v) return;
  if (atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) == 1)
    v->type->destroy(v);
}

void tfs_variant_describe(const tfs_variant *v, struct tfs_strbuf *b) {
  if (!v) {
    tfs_strbuf_puts(b, "[empty variant]");
  } else if (v->type->describe) {
    v->type->describe(v, b);
  } else {
    tfs_strbuf_printf(b, "<%s>", v->type->type_name);
  }
}

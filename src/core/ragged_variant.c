/*
 * core/ragged_variant.c - the RaggedTensorVariant value: creation,
 * destruction and TensorFlow's debug text.
 */
#include "core/ragged_variant.h"

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"

static void ragged_destroy(void *value) {
  tfs_ragged_variant *r = value;
  for (int i = 0; i < r->ragged_rank; i++) tfs_tensor_free(r->splits[i]);
  tfs_free(r->splits);
  tfs_tensor_free(r->values);
  tfs_free(r);
}

/* TensorFlow's RaggedTensorVariant::DebugString, its missing ')'
 * included. */
static void ragged_describe(const void *value, tfs_strbuf *b) {
  const tfs_ragged_variant *r = value;
  tfs_strbuf_printf(b, "<RaggedTensorVariant(dtype=%s, ragged_rank=%d, "
                    "splits_dtype=%s>",
                    tfs_dtype_name(r->values->dtype), r->ragged_rank,
                    r->ragged_rank ? tfs_dtype_name(r->splits[0]->dtype)
                                   : "INVALID");
}

const tfs_variant_type tfs_ragged_variant_type = {
    "tensorflow::RaggedTensorVariant", ragged_destroy, ragged_describe};

tfs_ragged_variant *tfs_ragged_variant_new(int ragged_rank,
                                           tfs_tensor **splits,
                                           tfs_tensor *values,
                                           tfs_status *st) {
  tfs_ragged_variant *r = tfs_calloc(1, sizeof(*r));
  tfs_tensor **s = tfs_calloc((size_t)ragged_rank + 1, sizeof(*s));
  if (!r || !s) {
    tfs_free(r);
    tfs_free(s);
    for (int i = 0; i < ragged_rank; i++) tfs_tensor_free(splits[i]);
    tfs_tensor_free(values);
    TFS_OOM(st);
    return NULL;
  }
  tfs_variant_init(&r->base, &tfs_ragged_variant_type);
  for (int i = 0; i < ragged_rank; i++) s[i] = splits[i];
  r->ragged_rank = ragged_rank;
  r->splits = s;
  r->values = values;
  return r;
}

tfs_ragged_variant *tfs_ragged_variant_of(tfs_variant *v) {
  return v && v->type == &tfs_ragged_variant_type ? (tfs_ragged_variant *)v
                                                  : NULL;
}

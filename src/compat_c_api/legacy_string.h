/*
 * compat_c_api/legacy_string.h - TF_STRING tensors in TensorFlow's
 * pre-2.4 encoding (a uint64 offset table, then each string as a varint
 * length and its bytes), for programs written against that API.
 */
#ifndef TFS_COMPAT_C_API_LEGACY_STRING_H
#define TFS_COMPAT_C_API_LEGACY_STRING_H

/*
 * Such a tensor is told apart by its byte size: TF_AllocateTensor and
 * TF_NewTensor give a TF_STRING tensor the caller's size when it is not
 * sizeof(TF_TString) per element (an encoding that happens to take
 * exactly that many bytes is read as TF_TString records).  It is decoded
 * into a TF_TString tensor wherever tfsess takes a tensor in (feeds,
 * attrs, eager handles), with TensorFlow's "Malformed TF_STRING tensor"
 * errors.
 */

#include "compat_c_api/capi_internal.h"

/* Non-zero when `len` bytes for `shape` can only be the legacy encoding. */
int tfs_capi__string_len_is_legacy(const tfs_shape *shape, size_t len);

/* Legacy tensors over new zeroed memory / over caller memory (the
 * deallocator runs when the tensor goes). */
tfs_tensor *tfs_capi__legacy_alloc(const tfs_shape *shape, size_t len,
                                   tfs_status *st);
tfs_tensor *tfs_capi__legacy_wrap(const tfs_shape *shape, void *data,
                                  size_t len,
                                  void (*dealloc)(void *, size_t, void *),
                                  void *arg, tfs_status *st);

/* Non-zero for a TF_STRING tensor in the legacy encoding. */
static inline int tfs_capi__is_legacy(const tfs_tensor *t) {
  return t->dtype == TFS_STRING &&
         t->nbytes != (size_t)t->nelems * sizeof(tfs_tstring);
}

/* The tensor tfsess should see for the caller's `t`: `t` itself, or a new
 * TF_TString tensor decoded from a legacy one (TensorFlow's
 * "Malformed TF_STRING tensor; ..." errors).  *owned is set when the
 * result must be freed.  NULL with an error. */
tfs_tensor *tfs_capi__tensor_in(tfs_tensor *t, int *owned, tfs_status *st);

/* Same for an array: out[i] for in[i]; release with
 * tfs_capi__tensors_release.  Returns 0, or -1 with an error (nothing to
 * release then). */
int tfs_capi__tensors_in(tfs_tensor *const *in, int n, tfs_tensor **out,
                         tfs_status *st);
void tfs_capi__tensors_release(tfs_tensor *const *in, tfs_tensor **out,
                               int n);

#endif

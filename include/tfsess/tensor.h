/*
 * tfsess/tensor.h - dense tensors: a dtype, a shape and a buffer.
 *
 * Tensors are reference counted and immutable once shared: tfs_tensor_ref
 * adds a reference, tfs_tensor_free drops one.  Numeric buffers are 64-byte
 * aligned.  A string tensor's elements are 24-byte records with the layout
 * of TensorFlow's TF_TString; read them with tfs_tensor_string_at.
 * A tensor may be used from several threads once it is no longer written.
 */
#ifndef TFSESS_TENSOR_H
#define TFSESS_TENSOR_H

#include "common.h"
#include "dtype.h"
#include "status.h"

TFS_BEGIN_DECLS

typedef struct tfs_tensor tfs_tensor;

/* Called once when the last reference to a wrapped buffer goes away. */
typedef void (*tfs_deallocator)(void *data, size_t len, void *arg);

/* The most dimensions a tensor or shape may have. */
#define TFS_MAX_RANK 16

/* The alignment of buffers that tfsess allocates. */
#define TFS_TENSOR_ALIGNMENT 64

/* Returns a new tensor of `dt` and shape dims[0..ndims), its elements
 * zeroed (empty strings for TFS_STRING); caller frees with tfs_tensor_free.
 * dims may be NULL when ndims is 0 (a scalar).  Fails with
 * INVALID_ARGUMENT on a negative dim, a rank above TFS_MAX_RANK, an element
 * count that overflows, or a dtype without a fixed size other than string;
 * RESOURCE_EXHAUSTED when memory runs out.  Does not take ownership of
 * any argument. */
TFS_API tfs_tensor *tfs_tensor_new(tfs_dtype dt, const int64_t *dims,
                                   int ndims, tfs_status *st);

/* Like tfs_tensor_new, then copies `len` bytes from `data`; `len` must
 * equal the tensor's byte size (INVALID_ARGUMENT otherwise).  Not for
 * strings (see tfs_tensor_new_strings). */
TFS_API tfs_tensor *tfs_tensor_new_copy(tfs_dtype dt, const int64_t *dims,
                                        int ndims, const void *data,
                                        size_t len, tfs_status *st);

/* Wraps caller memory without copying (TensorFlow's TF_NewTensor rules):
 * fails (NULL, INVALID_ARGUMENT) when `len` is smaller than the byte size
 * the shape needs; when `data` is not 64-byte aligned it is copied into an
 * aligned buffer and `dealloc(data, len, arg)` is called before this
 * function returns; otherwise `dealloc` is called exactly once, when the
 * last reference goes.  `dealloc` may be NULL (memory then stays the
 * caller's).  For TFS_STRING, `data` is an array of 24-byte string records
 * that the tensor reads but never frees. */
TFS_API tfs_tensor *tfs_tensor_wrap(tfs_dtype dt, const int64_t *dims,
                                    int ndims, void *data, size_t len,
                                    tfs_deallocator dealloc, void *arg,
                                    tfs_status *st);

/* Returns a new string tensor of the given shape whose element i holds a
 * copy of strs[i][0..lens[i]) (embedded NULs allowed).  `lens` may be NULL
 * when every string is NUL-terminated.  Caller frees. */
TFS_API tfs_tensor *tfs_tensor_new_strings(const int64_t *dims, int ndims,
                                           const char *const *strs,
                                           const size_t *lens,
                                           tfs_status *st);

/* Scalars.  Each returns a new tensor (caller frees), NULL only when
 * memory runs out. */
TFS_API tfs_tensor *tfs_tensor_scalar_float(float v);
TFS_API tfs_tensor *tfs_tensor_scalar_double(double v);
TFS_API tfs_tensor *tfs_tensor_scalar_int32(int32_t v);
TFS_API tfs_tensor *tfs_tensor_scalar_int64(int64_t v);
TFS_API tfs_tensor *tfs_tensor_scalar_bool(int v);
TFS_API tfs_tensor *tfs_tensor_scalar_string(const char *s, size_t len);

/* Adds a reference and returns `t`.  Thread-safe. */
TFS_API tfs_tensor *tfs_tensor_ref(tfs_tensor *t);

/* Drops a reference; the last one frees the tensor.  Accepts NULL.
 * Thread-safe. */
TFS_API void tfs_tensor_free(tfs_tensor *t);

TFS_API tfs_dtype tfs_tensor_dtype(const tfs_tensor *t);
TFS_API int tfs_tensor_ndims(const tfs_tensor *t);
/* The size of dimension i; -1 when i is out of range. */
TFS_API int64_t tfs_tensor_dim(const tfs_tensor *t, int i);
/* Borrowed array of ndims sizes, valid while `t` lives. */
TFS_API const int64_t *tfs_tensor_dims(const tfs_tensor *t);
TFS_API int64_t tfs_tensor_num_elements(const tfs_tensor *t);
/* Bytes of the buffer; for strings, 24 bytes per element. */
TFS_API size_t tfs_tensor_byte_size(const tfs_tensor *t);
/* The buffer.  Borrowed, valid while `t` lives.  Write through it only
 * while you hold the only reference. */
TFS_API void *tfs_tensor_data(const tfs_tensor *t);

/* Non-zero when `t` has one reference and owns its buffer alone. */
TFS_API int tfs_tensor_is_unique(const tfs_tensor *t);

/* Element i of a string tensor and its length in *len (may be NULL).
 * Borrowed, valid while `t` lives.  NULL for a non-string tensor or an
 * index out of range. */
TFS_API const char *tfs_tensor_string_at(const tfs_tensor *t, int64_t i,
                                         size_t *len);

/* Sets element i of a string tensor that the caller holds alone.
 * INVALID_ARGUMENT for a non-string tensor, a shared tensor or a bad
 * index. */
TFS_API void tfs_tensor_set_string(tfs_tensor *t, int64_t i,
                                   const char *s, size_t len,
                                   tfs_status *st);

/* Returns a new reference-counted copy with its own buffer (caller frees). */
TFS_API tfs_tensor *tfs_tensor_clone(const tfs_tensor *t, tfs_status *st);

/* Formats the tensor as tf.print prints it (TensorFlow's print_v2
 * layout; at most `max_entries` elements at each end of a dimension,
 * with "..." between; negative: all): "[[1 2]\n [3 4]]", and blocks of a
 * rank-3 tensor separated by a blank line, "[[[1 2]\n  [3 4]]\n\n [[5
 * 6]\n  [7 8]]]"; strings quoted and C-escaped; "[]" for an empty
 * vector.
 * Returns a malloc'd string the caller frees with free(); NULL if memory
 * runs out.  Does not take ownership of t; thread-safe. */
TFS_API char *tfs_tensor_to_string(const tfs_tensor *t, int max_entries);

/* Shape printed as TensorFlow prints it: "[2,3]", "[]" for scalars.
 * Writes at most `cap` bytes to `buf` (NUL-terminated) and returns `buf`. */
TFS_API const char *tfs_tensor_shape_string(const tfs_tensor *t, char *buf,
                                            size_t cap);

TFS_END_DECLS

#endif /* TFSESS_TENSOR_H */

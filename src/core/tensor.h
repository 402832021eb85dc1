/*
 * core/tensor.h - the tensor and buffer structs, and the internal
 * constructors kernels and the executor use (uninitialised allocation,
 * views sharing a buffer, arena-backed buffers).
 *
 * A tensor is {dtype, shape, data pointer} over a reference-counted buffer.
 * Several tensors may share one buffer (a Reshape is a view).  Kinds of
 * buffer: OWNED (tfsess allocated it, 64-byte aligned), EXTERNAL (caller
 * memory with a deallocator), ARENA (a slot in a run's memory plan: valid
 * only while that run lasts; anything that keeps a tensor past the run must
 * copy it, see tfs_tensor__retainable).
 */
#ifndef TFS_CORE_TENSOR_H
#define TFS_CORE_TENSOR_H

#include <stdatomic.h>

#include "core/shape.h"
#include "core/tstring.h"
#include "tfsess/tensor.h"

enum { TFS_BUF_OWNED = 0, TFS_BUF_EXTERNAL = 1, TFS_BUF_ARENA = 2 };

/* A DT_RESOURCE element: the name of a resource a session holds. */
typedef struct tfs_resource_handle {
  char *container;
  char *name;
  char *type_name;   /* "Var", ... */
  tfs_dtype dtype;   /* of the value, for variables */
  tfs_shape shape;   /* declared shape, for variables */
} tfs_resource_handle;

typedef struct tfs_buf {
  atomic_int refs;
  uint8_t kind;
  uint8_t elem_kind;  /* 0: plain, 1: owned tstrings, 2: resource handles,
                         3: variant values (core/variant.h) */
  void *data;
  size_t len;
  int64_t nelems;     /* for elem_kind != 0 */
  tfs_deallocator dealloc;
  void *arg;
} tfs_buf;

struct tfs_tensor {
  atomic_int refs;
  tfs_dtype dtype;
  uint8_t embedded;  /* the struct belongs to its buffer's planner (an
                        arena slot): tfs_tensor_free does not free it */
  int64_t nelems;
  size_t nbytes;
  void *data;
  tfs_buf *buf;
  tfs_shape shape;
};

/* Initialises a tensor struct the caller owns (embedded = 1) over `buf`
 * (takes one buffer reference).  The struct must stay valid until the
 * buffer is released. */
void tfs_tensor__init_embedded(tfs_tensor *t, tfs_dtype dt,
                               const tfs_shape *shape, tfs_buf *buf,
                               void *data);

/* Bytes per stored element: 24 for strings, sizeof(pointer) for
 * resources and variants, tfs_dtype_size otherwise (0 for unsupported
 * types). */
size_t tfs_dtype__storage_size(tfs_dtype dt);

/* New tensor with an owned buffer: numeric elements uninitialised, string
 * elements empty, resource elements NULL.  Errors: INVALID_ARGUMENT for an
 * unsupported dtype or a shape that is not fully defined / overflows;
 * variant elements NULL (empty);
 * RESOURCE_EXHAUSTED. */
tfs_tensor *tfs_tensor__alloc(tfs_dtype dt, const tfs_shape *shape,
                              tfs_status *st);

/* New tensor over `buf` (takes one buffer reference from the caller). */
tfs_tensor *tfs_tensor__over_buf(tfs_dtype dt, const tfs_shape *shape,
                                 tfs_buf *buf, void *data, tfs_status *st);

/* A new tensor sharing src's buffer with another shape of the same element
 * count (Reshape, ExpandDims...).  NULL on OOM. */
tfs_tensor *tfs_tensor__view(const tfs_tensor *src, const tfs_shape *shape,
                             tfs_status *st);

/* A buffer over arena memory: never freed by tfsess.  (The executor's
 * memory planner makes ARENA buffers with a `dealloc` callback instead:
 * the callback runs when the last reference goes and owns the struct.) */
tfs_buf *tfs_buf__arena(void *data, size_t len);

void tfs_buf__ref(tfs_buf *b);
void tfs_buf__unref(tfs_buf *b);

/* Non-zero when the caller holds the only reference to `t` and its buffer
 * and the buffer may be written (owned or arena). */
static inline int tfs_tensor__is_exclusive(const tfs_tensor *t) {
  return atomic_load_explicit(&t->refs, memory_order_acquire) == 1 &&
         atomic_load_explicit(&t->buf->refs, memory_order_acquire) == 1 &&
         t->buf->kind != TFS_BUF_EXTERNAL && t->buf->elem_kind == 0;
}

/* Returns a reference to `t` safe to keep after the run (a copy when `t`
 * lives in an arena).  NULL on OOM. */
tfs_tensor *tfs_tensor__retainable(tfs_tensor *t, tfs_status *st);

/* Deep copy into an owned buffer. */
tfs_tensor *tfs_tensor__copy(const tfs_tensor *t, tfs_status *st);

static inline tfs_tstring *tfs_tensor__strings(const tfs_tensor *t) {
  return (tfs_tstring *)t->data;
}

/* Resource handles. */
tfs_resource_handle *tfs_resource_handle_new(const char *container,
                                             const char *name,
                                             const char *type_name,
                                             tfs_dtype dtype,
                                             const tfs_shape *shape);
void tfs_resource_handle_free(tfs_resource_handle *h);
/* Scalar DT_RESOURCE tensor owning `h` (freed on failure). */
tfs_tensor *tfs_tensor__resource(tfs_resource_handle *h, tfs_status *st);
static inline tfs_resource_handle *tfs_tensor__handle(const tfs_tensor *t,
                                                      int64_t i) {
  return ((tfs_resource_handle **)t->data)[i];
}

/* A TF1 ref edge value: a tensor of dtype base+100 pointing at `target`
 * (a variable) without owning it. */
tfs_tensor *tfs_tensor__ref_to(void *target, tfs_dtype base,
                               tfs_status *st);
static inline void *tfs_tensor__ref_target(const tfs_tensor *t) {
  return tfs_dtype_is_ref(t->dtype) ? t->data : NULL;
}

/* Variant element i (a reference the tensor keeps; NULL when empty). */
struct tfs_variant;
static inline struct tfs_variant *tfs_tensor__variant(const tfs_tensor *t,
                                                      int64_t i) {
  return ((struct tfs_variant **)t->data)[i];
}

/* New scalar DT_VARIANT tensor holding `v` (takes the caller's reference,
 * released on failure). */
tfs_tensor *tfs_tensor__variant_scalar(struct tfs_variant *v,
                                       tfs_status *st);

/* TensorFlow's Tensor::SummarizeValue(summarize, print_v2=true) appended
 * to b: nested brackets, elements separated by spaces, (rank - dim - 1)
 * newlines and dim + 1 spaces between blocks, at most `summarize`
 * entries at each end of a dimension with "..." between (negative: all);
 * strings quoted and C-escaped (UTF-8 bytes kept); empty tensors as
 * TensorFlow prints them ("[]" for [0], "[\n ...]" for [2,0]).  The one
 * formatter of tensors as text: tfs_tensor_to_string,
 * StringFormat and PrintV2 use it. */
struct tfs_strbuf;
void tfs_tensor__format_v2(struct tfs_strbuf *b, const tfs_tensor *t,
                           int64_t summarize);

/* TensorFlow's legacy Tensor::SummarizeValue text (Assert, Print, attr
 * summaries); malloc'd, NULL on OOM. */
char *tfs_tensor__summarize(const tfs_tensor *t, int64_t max_entries);

/* Element i converted to double (numeric and bool dtypes). */
double tfs_tensor__get_as_double(const tfs_tensor *t, int64_t i);
/* Element i of an integer tensor (int8..uint64, bool) as int64. */
int64_t tfs_tensor__get_as_int64(const tfs_tensor *t, int64_t i);

#endif

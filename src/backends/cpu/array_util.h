/*
 * backends/cpu/array_util.h - what the array kernels share: element copies
 * that work for every dtype by size (string records become owned copies),
 * the strided copy engine behind Transpose, Slice, StridedSlice,
 * ReverseV2, Tile, BroadcastTo and the space/depth rearrangements, and
 * readers for the small integer inputs (axes, sizes, paddings).
 */
#ifndef TFS_BACKENDS_CPU_ARRAY_UTIL_H
#define TFS_BACKENDS_CPU_ARRAY_UTIL_H

#include "backends/cpu/cpu_tables.h"

/* Every dtype a type-generic array kernel moves: plain values and
 * strings, not resource handles or variants. */
#define TFS_DT_ARRAY                                                     \
  (TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_STRING) |         \
   TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128) |              \
   TFS_DT_BIT(TFS_QINT8) | TFS_DT_BIT(TFS_QUINT8) |                      \
   TFS_DT_BIT(TFS_QINT16) | TFS_DT_BIT(TFS_QUINT16) |                    \
   TFS_DT_BIT(TFS_QINT32))

/* How to move one element. */
typedef struct tfs_elem {
  size_t size;    /* bytes */
  int is_string;  /* 24-byte TString records: copied as owned strings */
  int is_variant; /* variant pointers: copies take a reference */
} tfs_elem;

static inline tfs_elem tfs_elem_of(tfs_dtype dt) {
  tfs_elem e = {tfs_dtype__storage_size(dt), dt == TFS_STRING,
                dt == TFS_VARIANT};
  return e;
}

/* Copies n elements from src to dst (which must not overlap; string
 * destinations must hold initialised records, variant destinations
 * values or NULL, whose references are dropped).  Returns 0, or -1 when
 * memory ran out copying strings. */
int tfs_elem_copy(tfs_elem e, void *dst, const void *src, int64_t n);

/* Writes n copies of the element at `value`.  Returns 0 or -1 (OOM). */
int tfs_elem_fill(tfs_elem e, void *dst, const void *value, int64_t n);

/* A strided copy: for every index (i_0..i_{rank-1}) < dims,
 *   dst[sum i_k * dst_stride_k] = src[sum i_k * src_stride_k]
 * with strides in elements (a source stride may be 0 or negative). */
typedef struct tfs_strided {
  int rank;
  int64_t dims[2 * TFS_MAX_RANK];
  int64_t dst_stride[2 * TFS_MAX_RANK];
  int64_t src_stride[2 * TFS_MAX_RANK];
} tfs_strided;

/* Runs the copy over the intra-op pool.  dst and src point at the
 * element of index 0.  Returns 0, or -1 after failing `c` (OOM copying
 * strings). */
int tfs_strided_copy(tfs_kernel_ctx *c, tfs_elem e, void *dst,
                     const void *src, const tfs_strided *p);

/* Row-major strides (in elements) of dims[0..rank). */
void tfs_arr_strides(const int64_t *dims, int rank, int64_t *strides);

/* Product of dims[from..to). */
int64_t tfs_arr_prod(const int64_t *dims, int from, int to);

/* Appends a dim to a strided copy. */
static inline void tfs_strided_push(tfs_strided *p, int64_t dim,
                                    int64_t dst_stride, int64_t src_stride) {
  p->dims[p->rank] = dim;
  p->dst_stride[p->rank] = dst_stride;
  p->src_stride[p->rank] = src_stride;
  p->rank++;
}

/* Output i of `c` as a view of `in` with another shape (same element
 * count), or, with `offset` elements skipped, a window of it.  Returns 0
 * or -1 after failing `c`. */
int tfs_arr_set_view(tfs_kernel_ctx *c, int i, const tfs_tensor *in,
                     const tfs_shape *shape, int64_t offset);

/* Output i as a copy of input `in` (reusing its buffer when the kernel
 * holds it alone) with `shape`.  Returns the output or NULL. */
tfs_tensor *tfs_arr_copy_input(tfs_kernel_ctx *c, int in, int i,
                               const tfs_shape *shape);

/* Reads an int32/int64/int16/int8 scalar-or-one-element input as int64. */
static inline int64_t tfs_arr_scalar(const tfs_tensor *t) {
  return tfs_tensor__get_as_int64(t, 0);
}

/* Formats a flat index of `shape` as "i,j,k" into buf. */
const char *tfs_arr_index_str(int64_t flat, const int64_t *dims, int rank,
                              char *buf, size_t cap);

/* Fails `c` with "out of memory". */
void tfs_arr_oom(tfs_kernel_ctx *c);

#endif

/*
 * core/tensor_list.h - TensorFlow's TensorList, the DT_VARIANT value that
 * TF2's TensorArray, RNN layers and map_fn pass around: an element dtype,
 * a partial element shape, an optional bound on the length, and a vector
 * of tensors in which NULL marks an element not written yet (TensorFlow's
 * uninitialised tensor).
 *
 * Lists are shared by reference (core/variant.h): a kernel changes one in
 * place only when tfs_variant_is_unique says it holds the only reference
 * and its input tensor is its own; otherwise it works on
 * tfs_tensor_list_copy, which shares the element tensors (they are never
 * written after they enter a list).
 */
#ifndef TFS_CORE_TENSOR_LIST_H
#define TFS_CORE_TENSOR_LIST_H

#include "core/shape.h"
#include "core/tensor.h"
#include "core/variant.h"

typedef struct tfs_tensor_list {
  tfs_variant base;           /* first: the list is a variant value */
  tfs_dtype element_dtype;
  tfs_shape element_shape;    /* partial */
  int64_t max_num_elements;   /* -1: unbounded */
  int64_t n;                  /* length */
  int64_t cap;
  tfs_tensor **items;         /* n entries; NULL: not written yet */
} tfs_tensor_list;

/* The variant type of lists ("tensorflow::TensorList"). */
extern const tfs_variant_type tfs_tensor_list_type;

/* A new list of `n` unwritten elements (one reference).  NULL with
 * INVALID_ARGUMENT for a negative n, or RESOURCE_EXHAUSTED. */
tfs_tensor_list *tfs_tensor_list_new(tfs_dtype element_dtype,
                                     const tfs_shape *element_shape,
                                     int64_t n, tfs_status *st);

/* A new list with the same dtype, shape, bound and elements (the element
 * tensors are shared by reference).  NULL on OOM. */
tfs_tensor_list *tfs_tensor_list_copy(const tfs_tensor_list *l,
                                      tfs_status *st);

/* Sets the length to n: new elements are unwritten, dropped ones
 * released.  -1 on OOM. */
int tfs_tensor_list_resize(tfs_tensor_list *l, int64_t n, tfs_status *st);

/* Replaces element i (0 <= i < n) with `t`, taking the caller's
 * reference (t may be NULL). */
void tfs_tensor_list_set(tfs_tensor_list *l, int64_t i, tfs_tensor *t);

/* Appends `t`, taking the caller's reference (released on failure). */
int tfs_tensor_list_push(tfs_tensor_list *l, tfs_tensor *t, tfs_status *st);

/* The list a DT_VARIANT scalar holds, or NULL when `t` is not one. */
tfs_tensor_list *tfs_tensor_list_of(const tfs_tensor *t);

/* Wraps `l` (taking the caller's reference) in a new scalar DT_VARIANT
 * tensor.  NULL on OOM (l released). */
tfs_tensor *tfs_tensor_list_tensor(tfs_tensor_list *l, tfs_status *st);

#endif

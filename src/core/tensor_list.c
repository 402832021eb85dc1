/*
 * core/tensor_list.c - the TensorList variant value: creation, shallow
 * copies, growth and element replacement.
 */
#include "core/tensor_list.h"

#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"

static void list_destroy(void *value) {
  tfs_tensor_list *l = value;
  for (int64_t i = 0; i < l->n; i++) tfs_tensor_free(l->items[i]);
  tfs_free(l->items);
  tfs_free(l);
}

static void list_describe(const void *value, tfs_strbuf *b) {
  (void)value;
  tfs_strbuf_puts(b, "<TensorList>");
}

const tfs_variant_type tfs_tensor_list_type = {
    "tensorflow::TensorList", list_destroy, list_describe};

static int reserve(tfs_tensor_list *l, int64_t n, tfs_status *st) {
  if (n <= l->cap) return 0;
  int64_t cap = l->cap ? l->cap : 4;
  while (cap < n) cap = cap > INT64_MAX / 2 ? n : cap * 2;
  if ((uint64_t)cap > SIZE_MAX / sizeof(tfs_tensor *)) {
    TFS_OOM(st);
    return -1;
  }
  tfs_tensor **p = tfs_realloc(l->items, (size_t)cap * sizeof(*p));
  if (!p) {
    TFS_OOM(st);
    return -1;
  }
  l->items = p;
  l->cap = cap;
  return 0;
}

tfs_tensor_list *tfs_tensor_list_new(tfs_dtype element_dtype,
                                     const tfs_shape *element_shape,
                                     int64_t n, tfs_status *st) {
  if (n < 0) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "The num_elements to reserve must be a non negative "
                    "number, but got %lld",
                    (long long)n);
    return NULL;
  }
  tfs_tensor_list *l = tfs_calloc(1, sizeof(*l));
  if (!l) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_variant_init(&l->base, &tfs_tensor_list_type);
  l->element_dtype = element_dtype;
  l->element_shape = *element_shape;
  l->max_num_elements = -1;
  if (tfs_tensor_list_resize(l, n, st)) {
    list_destroy(l);
    return NULL;
  }
  return l;
}

tfs_tensor_list *tfs_tensor_list_copy(const tfs_tensor_list *l,
                                      tfs_status *st) {
  tfs_tensor_list *c = tfs_tensor_list_new(l->element_dtype,
                                           &l->element_shape, 0, st);
  if (!c) return NULL;
  c->max_num_elements = l->max_num_elements;
  if (reserve(c, l->n, st)) {
    list_destroy(c);
    return NULL;
  }
  for (int64_t i = 0; i < l->n; i++)
    c->items[i] = l->items[i] ? tfs_tensor_ref(l->items[i]) : NULL;
  c->n = l->n;
  return c;
}

int tfs_tensor_list_resize(tfs_tensor_list *l, int64_t n, tfs_status *st) {
  if (n > l->n) {
    if (reserve(l, n, st)) return -1;
    memset(l->items + l->n, 0, (size_t)(n - l->n) * sizeof(*l->items));
  } else {
    for (int64_t i = n; i < l->n; i++) tfs_tensor_free(l->items[i]);
  }
  l->n = n;
  return 0;
}

void tfs_tensor_list_set(tfs_tensor_list *l, int64_t i, tfs_tensor *t) {
  tfs_tensor_free(l->items[i]);
  l->items[i] = t;
}

int tfs_tensor_list_push(tfs_tensor_list *l, tfs_tensor *t, tfs_status *st) {
  if (reserve(l, l->n + 1, st)) {
    tfs_tensor_free(t);
    return -1;
  }
  l->items[l->n++] = t;
  return 0;
}

tfs_tensor_list *tfs_tensor_list_of(const tfs_tensor *t) {
  if (!t || t->dtype != TFS_VARIANT || t->nelems != 1) return NULL;
  tfs_variant *v = tfs_tensor__variant(t, 0);
  return v && v->type == &tfs_tensor_list_type ? (tfs_tensor_list *)v : NULL;
}

tfs_tensor *tfs_tensor_list_tensor(tfs_tensor_list *l, tfs_status *st) {
  return tfs_tensor__variant_scalar(&l->base, st);
}

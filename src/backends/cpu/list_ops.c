/*
 * backends/cpu/list_ops.c - TensorList kernels (EmptyTensorList,
 * TensorListReserve, ...GetItem, ...SetItem, ...Stack, ...): what TF2's
 * TensorArray, Keras RNN layers and map_fn run on.  A list is a DT_VARIANT
 * scalar holding a core/tensor_list.h value.  Kernels that return a
 * changed list change their input in place when they hold it alone (a
 * loop's SetItem then costs O(1)); otherwise they change a shallow copy.
 * Elements entering a list are copied out of run arenas
 * (tfs_tensor__retainable) and never written afterwards.
 */
#include <string.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/list_util.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/tensor_list.h"

/* Element dtypes: plain values, strings and variants (ragged rows in
 * tf.map_fn), all moved through tfs_elem_copy. */
#define LIST_TYPES (TFS_DT_ARRAY | TFS_DT_BIT(TFS_VARIANT))

/* ---- shared checks ------------------------------------------------------- */

/* The list input `in` holds, or NULL after failing c. */
static tfs_tensor_list *input_list(tfs_kernel_ctx *c, int in) {
  const tfs_tensor *t = c->inputs[in];
  tfs_tensor_list *l = tfs_tensor_list_of(t);
  if (!l) {
    char s[TFS_SHAPE_STRLEN];
    if (t->dtype == TFS_VARIANT && t->nelems == 1)
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input handle is not a list. Saw: '%s'",
                    tfs_tensor__variant(t, 0)
                        ? tfs_tensor__variant(t, 0)->type->type_name
                        : "");
    else
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Input list must be a scalar saw: %s",
                    tfs_shape_str(&t->shape, s, sizeof s));
  }
  return l;
}

/* The list input 0 holds, checked against the node's element_dtype. */
static tfs_tensor_list *typed_list(tfs_kernel_ctx *c, tfs_dtype want) {
  tfs_tensor_list *l = input_list(c, 0);
  if (l && l->element_dtype != want) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Invalid data types; op elements %s but list elements %s",
                  tfs_dtype_name(want), tfs_dtype_name(l->element_dtype));
    return NULL;
  }
  return l;
}

/* TensorFlow's TensorShapeFromTensor: -1 as a scalar is an unknown rank,
 * a vector gives dims (-1 unknown). */
static int shape_from_tensor(tfs_kernel_ctx *c, const tfs_tensor *t,
                             tfs_shape *out) {
  char s[TFS_SHAPE_STRLEN];
  if (t->shape.rank == 0) {
    if (tfs_tensor__get_as_int64(t, 0) == -1) {
      tfs_shape_unknown(out);
      return 0;
    }
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The only valid scalar shape tensor is the fully unknown "
                  "shape specified as -1.");
    return -1;
  }
  if (t->shape.rank != 1 || t->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape must be at most rank 1 but is rank %d; shape %s",
                  (int)t->shape.rank, tfs_shape_str(&t->shape, s, sizeof s));
    return -1;
  }
  out->rank = (int32_t)t->nelems;
  for (int64_t i = 0; i < t->nelems; i++) {
    int64_t d = tfs_tensor__get_as_int64(t, i);
    if (d < -1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Dimension %lld must be >= -1", (long long)d);
      return -1;
    }
    out->dims[i] = d;
  }
  return 0;
}

/* *out = a merged with b, or fail with TensorFlow's MergeWith text. */
static int merge_shapes(tfs_kernel_ctx *c, const tfs_shape *a,
                        const tfs_shape *b, tfs_shape *out) {
  tfs_shape m;
  if (tfs_shape_merge(a, b, &m)) {
    char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Incompatible shapes during merge: %s vs. %s",
                  tfs_shape_str(a, x, sizeof x),
                  tfs_shape_str(b, y, sizeof y));
    return -1;
  }
  *out = m;
  return 0;
}

/* TensorFlow's GetElementShapeFromInput: the list's element shape merged
 * with the shape in input `in`. */
static int element_shape_from_input(tfs_kernel_ctx *c,
                                    const tfs_tensor_list *l, int in,
                                    tfs_shape *out) {
  tfs_shape s;
  if (shape_from_tensor(c, c->inputs[in], &s)) return -1;
  return merge_shapes(c, &s, &l->element_shape, out);
}

/* Merges the shapes of the written elements (all of them, or those at
 * idx[0..n)) into *s when *s is not fully defined. */
static int merge_written(tfs_kernel_ctx *c, const tfs_tensor_list *l,
                         const int32_t *idx, int64_t n, tfs_shape *s) {
  if (tfs_shape_is_fully_defined(s)) return 0;
  int64_t count = idx ? n : l->n;
  for (int64_t k = 0; k < count; k++) {
    int64_t i = idx ? idx[k] : k;
    if (i < 0 || i >= l->n || !l->items[i]) continue;
    if (merge_shapes(c, s, &l->items[i]->shape, s)) return -1;
  }
  return 0;
}

tfs_tensor_list *tfs_list__writable(tfs_kernel_ctx *c, int in, int out) {
  tfs_tensor *t = c->inputs[in];
  tfs_tensor_list *l = tfs_tensor_list_of(t);
  if ((c->forwardable >> in & 1) && c->input_slots && c->input_slots[in] &&
      *c->input_slots[in] == t &&
      atomic_load_explicit(&t->refs, memory_order_acquire) == 1 &&
      atomic_load_explicit(&t->buf->refs, memory_order_acquire) == 1 &&
      tfs_variant_is_unique(&l->base)) {
    *c->input_slots[in] = NULL;
    c->forwardable &= ~(1ull << in);
    tfs_kctx_set_output(c, out, t);
    return l;
  }
  tfs_tensor_list *copy = tfs_tensor_list_copy(l, c->st);
  tfs_tensor *o = copy ? tfs_tensor_list_tensor(copy, c->st) : NULL;
  if (!o) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  tfs_kctx_set_output(c, out, o);
  return copy;
}

/* Sets output `out` to a new list tensor holding `l` (takes l). */
static void set_list_output(tfs_kernel_ctx *c, int out, tfs_tensor_list *l) {
  tfs_tensor *o = tfs_tensor_list_tensor(l, c->st);
  if (!o) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_kctx_set_output(c, out, o);
}

/* An element to keep in a list: `t` itself, or a copy when it lives in a
 * run arena.  NULL after failing c. */
static tfs_tensor *keepable(tfs_kernel_ctx *c, tfs_tensor *t) {
  tfs_tensor *k = tfs_tensor__retainable(t, c->st);
  if (!k) tfs_kctx_fail_status(c, c->st);
  return k;
}

/* A new owned tensor of `shape` holding n elements of src. */
static tfs_tensor *slice_copy(tfs_kernel_ctx *c, const tfs_tensor *src,
                              int64_t offset, const tfs_shape *shape) {
  tfs_tensor *t = tfs_tensor__alloc(src->dtype, shape, c->st);
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  tfs_elem e = tfs_elem_of(src->dtype);
  if (t->nelems &&
      tfs_elem_copy(e, t->data, (const char *)src->data + offset * e.size,
                    t->nelems)) {
    tfs_tensor_free(t);
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  return t;
}

/* The shape of one slice along dim 0 of `s`. */
static void drop_first_dim(const tfs_shape *s, tfs_shape *out) {
  out->rank = s->rank - 1;
  for (int i = 1; i < s->rank; i++) out->dims[i - 1] = s->dims[i];
}

/* *row = t's shape without its first dim, which must fit the list's
 * element shape `es` (TensorFlow's text when not). */
static int rows_fit(tfs_kernel_ctx *c, const tfs_shape *es,
                    const tfs_tensor *t, tfs_shape *row) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  drop_first_dim(&t->shape, row);
  tfs_shape m;
  if (tfs_shape_merge(es, row, &m)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Specified a list with shape %s from a tensor with shape %s",
                  tfs_shape_str(es, a, sizeof a),
                  tfs_shape_str(row, b, sizeof b));
    return -1;
  }
  return 0;
}

/* out = [d0] + s (s known rank). */
static int prepend_dim(tfs_kernel_ctx *c, int64_t d0, const tfs_shape *s,
                       tfs_shape *out) {
  if (s->rank + 1 > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "List elements of rank %d are too deep to stack",
                  (int)s->rank);
    return -1;
  }
  out->rank = s->rank + 1;
  out->dims[0] = d0;
  for (int i = 0; i < s->rank; i++) out->dims[i + 1] = s->dims[i];
  return 0;
}

typedef struct {
  tfs_dtype element_dtype;
  int64_t num_elements;   /* TensorListStack's attr */
  int resize;             /* TensorListSetItem's resize_if_index_out_of_bounds */
  tfs_shape attr_shape;   /* TensorListConcat's element_shape attr */
} list_state;

static int list_prepare(tfs_kernel_init *ki) {
  list_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->element_dtype = TFS_INVALID;
  tfs_attrs_get_type(ki->attrs, "element_dtype", &s->element_dtype);
  s->num_elements = -1;
  tfs_attrs_get_int(ki->attrs, "num_elements", &s->num_elements);
  tfs_attrs_get_bool(ki->attrs, "resize_if_index_out_of_bounds", &s->resize);
  const tfs_shape *sh = tfs_attrs_get_shape(ki->attrs, "element_shape");
  if (sh)
    s->attr_shape = *sh;
  else
    tfs_shape_unknown(&s->attr_shape);
  ki->state = s;
  return 0;
}

static void list_release(void *p) { tfs_free(p); }

#define ST(c) ((const list_state *)(c)->state)

/* A zero element of `shape` (for unwritten elements). */
static tfs_tensor *zeros(tfs_kernel_ctx *c, tfs_dtype dt,
                         const tfs_shape *shape) {
  tfs_tensor *t = tfs_tensor__alloc(dt, shape, c->st);
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return NULL;
  }
  if (dt != TFS_STRING && t->nbytes) memset(t->data, 0, t->nbytes);
  return t;
}

/* ---- making lists -------------------------------------------------------- */

static void empty_list_compute(tfs_kernel_ctx *c) {
  tfs_shape es;
  if (shape_from_tensor(c, c->inputs[0], &es)) return;
  const tfs_tensor *m = c->inputs[1];
  if (m->shape.rank != 0) {
    char s[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "max_num_elements expected to be a scalar but got shape: %s",
                  tfs_shape_str(&m->shape, s, sizeof s));
    return;
  }
  int64_t max = tfs_tensor__get_as_int64(m, 0);
  if (max < -1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "max_num_elements must be -1 or a non-negative number; "
                  "got %lld",
                  (long long)max);
    return;
  }
  tfs_tensor_list *l = tfs_tensor_list_new(ST(c)->element_dtype, &es, 0,
                                           c->st);
  if (!l) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  l->max_num_elements = max;
  set_list_output(c, 0, l);
}

static int scalar_int_input(tfs_kernel_ctx *c, int in, const char *what,
                            int64_t *v) {
  const tfs_tensor *t = c->inputs[in];
  if (t->shape.rank != 0) {
    char s[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "%s must be a scalar but got shape %s", what,
                  tfs_shape_str(&t->shape, s, sizeof s));
    return -1;
  }
  *v = tfs_tensor__get_as_int64(t, 0);
  return 0;
}

static void reserve_compute(tfs_kernel_ctx *c) {
  tfs_shape es;
  int64_t n;
  if (shape_from_tensor(c, c->inputs[0], &es) ||
      scalar_int_input(c, 1, "num_elements", &n))
    return;
  tfs_tensor_list *l = tfs_tensor_list_new(ST(c)->element_dtype, &es, n,
                                           c->st);
  if (!l) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  set_list_output(c, 0, l);
}

static void from_tensor_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[0];
  tfs_shape es, row;
  char a[TFS_SHAPE_STRLEN];
  if (shape_from_tensor(c, c->inputs[1], &es)) return;
  if (t->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tensor must be at least a vector, but saw shape: %s",
                  tfs_shape_str(&t->shape, a, sizeof a));
    return;
  }
  if (rows_fit(c, &es, t, &row)) return;
  int64_t n = t->shape.dims[0];
  tfs_tensor_list *l = tfs_tensor_list_new(t->dtype, &es, n, c->st);
  if (!l) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  int64_t per = tfs_shape_num_elements(&row);
  /* plain elements: views of one buffer that may outlive the run (t's
   * own, or one copy of an arena's), not an allocation and a copy each */
  tfs_tensor *base = n > 0 && per > 0 && t->buf->elem_kind == 0
                         ? keepable(c, (tfs_tensor *)t)
                         : NULL;
  if (c->failed) {
    tfs_variant_unref(&l->base);
    return;
  }
  const size_t esize = tfs_elem_of(t->dtype).size;
  for (int64_t i = 0; i < n; i++) {
    tfs_tensor *e;
    if (base) {
      tfs_buf__ref(base->buf);
      e = tfs_tensor__over_buf(t->dtype, &row, base->buf,
                               (char *)base->data + (size_t)(i * per) * esize,
                               c->st);
      if (!e) tfs_kctx_fail_status(c, c->st);
    } else {
      e = slice_copy(c, t, i * per, &row);
    }
    if (!e) {
      tfs_tensor_free(base);
      tfs_variant_unref(&l->base);
      return;
    }
    l->items[i] = e;
  }
  tfs_tensor_free(base);
  set_list_output(c, 0, l);
}

/* ---- reading lists -------------------------------------------------------- */

static void length_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = input_list(c, 0);
  if (!l) return;
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (o) *(int32_t *)o->data = (int32_t)l->n;
}

static void element_shape_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = input_list(c, 0);
  if (!l) return;
  const tfs_shape *es = &l->element_shape;
  tfs_shape s;
  if (es->rank < 0)
    tfs_shape_scalar(&s);
  else
    tfs_shape_1d(&s, es->rank);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  int64_t n = es->rank < 0 ? 1 : es->rank;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = es->rank < 0 ? -1 : es->dims[i];
    if (o->dtype == TFS_INT32)
      ((int32_t *)o->data)[i] = (int32_t)d;
    else
      ((int64_t *)o->data)[i] = d;
  }
}

/* The shape an unwritten element reads as, from the element_shape input
 * `in` and the written elements; fails c when it is not fully defined. */
static int unwritten_shape(tfs_kernel_ctx *c, const tfs_tensor_list *l,
                           int in, tfs_shape *out) {
  if (element_shape_from_input(c, l, in, out) ||
      merge_written(c, l, NULL, 0, out))
    return -1;
  if (!tfs_shape_is_fully_defined(out)) {
    char s[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to read an uninitialized tensor but element_shape "
                  "is not fully defined: %s and no list element is set.",
                  tfs_shape_str(out, s, sizeof s));
    return -1;
  }
  return 0;
}

static void get_item_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  int64_t i;
  if (!l || scalar_int_input(c, 1, "index", &i)) return;
  if (i < 0 || i >= l->n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to access element %lld in a list with %lld "
                  "elements.",
                  (long long)i, (long long)l->n);
    return;
  }
  if (l->items[i]) {
    tfs_kctx_set_output(c, 0, tfs_tensor_ref(l->items[i]));
    return;
  }
  tfs_shape s;
  if (unwritten_shape(c, l, 2, &s)) return;
  tfs_tensor *z = zeros(c, l->element_dtype, &s);
  if (z) tfs_kctx_set_output(c, 0, z);
}

/* Writes the elements at idx[0..n) (all when idx is NULL) into `o` one
 * after the other; unwritten ones as zeros of `es`. */
static void gather_into(tfs_kernel_ctx *c, const tfs_tensor_list *l,
                        const int32_t *idx, int64_t n, const tfs_shape *es,
                        tfs_tensor *o) {
  tfs_elem e = tfs_elem_of(o->dtype);
  int64_t per = tfs_shape_num_elements(es);
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int64_t k = 0; k < n; k++) {
    int64_t i = idx ? idx[k] : k;
    char *dst = (char *)o->data + k * per * (int64_t)e.size;
    const tfs_tensor *t = l->items[i];
    if (!t) {
      if (!e.is_string) memset(dst, 0, (size_t)(per * (int64_t)e.size));
      continue;
    }
    if (!tfs_shape_equal(&t->shape, es)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Incompatible shapes during merge: %s vs. %s",
                    tfs_shape_str(es, a, sizeof a),
                    tfs_shape_str(&t->shape, b, sizeof b));
      return;
    }
    if (per && tfs_elem_copy(e, dst, t->data, per)) {
      tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
      return;
    }
  }
}

/* Stack and Gather: merges the shapes of the elements at idx[0..n) (all
 * when idx is NULL) into *es, which must then be fully defined (else
 * `undefined` with the shape), and writes them as output 0, [n] + es. */
static void rows_output(tfs_kernel_ctx *c, const tfs_tensor_list *l,
                        const int32_t *idx, int64_t n, tfs_shape *es,
                        const char *undefined) {
  tfs_shape os;
  char s[TFS_SHAPE_STRLEN];
  if (merge_written(c, l, idx, n, es)) return;
  if (!tfs_shape_is_fully_defined(es)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s%s", undefined,
                  tfs_shape_str(es, s, sizeof s));
    return;
  }
  if (prepend_dim(c, n, es, &os)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (o && o->nelems) gather_into(c, l, idx, n, es, o);
}

static void stack_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  if (!l) return;
  int64_t want = ST(c)->num_elements;
  if (want != -1 && l->n != want) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Operation expected a list with %lld elements but got a "
                  "list with %lld elements.",
                  (long long)want, (long long)l->n);
    return;
  }
  tfs_shape es;
  char s[TFS_SHAPE_STRLEN];
  if (element_shape_from_input(c, l, 1, &es)) return;
  if (!tfs_shape_is_fully_defined(&es) && l->n == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to stack elements of an empty list with "
                  "non-fully-defined element_shape: %s",
                  tfs_shape_str(&es, s, sizeof s));
    return;
  }
  rows_output(c, l, NULL, l->n, &es,
              "Tried to stack list which only contains uninitialized "
              "tensors and has a non-fully-defined element_shape: ");
}

static void gather_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  if (!l) return;
  const tfs_tensor *ix = c->inputs[1];
  const int32_t *idx = ix->data;
  tfs_shape es;
  char s[TFS_SHAPE_STRLEN];
  if (element_shape_from_input(c, l, 2, &es)) return;
  if (!tfs_shape_is_fully_defined(&es) && ix->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to gather 0-elements from a list with "
                  "non-fully-defined shape: %s",
                  tfs_shape_str(&es, s, sizeof s));
    return;
  }
  for (int64_t k = 0; k < ix->nelems; k++) {
    if (idx[k] < 0 || idx[k] >= l->n) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Trying to gather element %d in a list with %lld "
                    "elements.",
                    idx[k], (long long)l->n);
      return;
    }
  }
  rows_output(c, l, idx, ix->nelems, &es,
              "Tried to gather uninitialized tensors from a list with "
              "non-fully-defined element_shape: ");
}

/* ---- changing lists ----------------------------------------------------- */

/* Checks that `t` may enter list l: dtype and element shape. */
static int check_item(tfs_kernel_ctx *c, const tfs_tensor_list *l,
                      tfs_dtype dt, const tfs_shape *shape,
                      const char *what) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (dt != l->element_dtype) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Invalid data types; list elements %s but tried to %s %s",
                  tfs_dtype_name(l->element_dtype), what,
                  tfs_dtype_name(dt));
    return -1;
  }
  tfs_shape m;
  if (tfs_shape_merge(&l->element_shape, shape, &m)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to %s item with incompatible shape. Item element "
                  "shape: %s list shape: %s",
                  what, tfs_shape_str(shape, a, sizeof a),
                  tfs_shape_str(&l->element_shape, b, sizeof b));
    return -1;
  }
  return 0;
}

static void set_item_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  int64_t i;
  if (!l || scalar_int_input(c, 1, "index", &i)) return;
  if (i < 0 || (i >= l->n && !ST(c)->resize)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to modify element %lld in a list with %lld "
                  "elements.",
                  (long long)i, (long long)l->n);
    return;
  }
  tfs_tensor *item = c->inputs[2];
  if (check_item(c, l, item->dtype, &item->shape, "set")) return;
  tfs_tensor *k = keepable(c, item);
  if (!k) return;
  tfs_tensor_list *w = tfs_list__writable(c, 0, 0);
  if (!w) {
    tfs_tensor_free(k);
    return;
  }
  if (i >= w->n && tfs_tensor_list_resize(w, i + 1, c->st)) {
    tfs_tensor_free(k);
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_tensor_list_set(w, i, k);
}

static void push_back_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = input_list(c, 0);
  if (!l) return;
  tfs_tensor *item = c->inputs[1];
  if (check_item(c, l, item->dtype, &item->shape, "push")) return;
  if (l->max_num_elements != -1 && l->n >= l->max_num_elements) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tried to push item into a full list list size: %lld, "
                  "max_num_elements: %lld",
                  (long long)l->n, (long long)l->max_num_elements);
    return;
  }
  tfs_tensor *k = keepable(c, item);
  if (!k) return;
  tfs_tensor_list *w = tfs_list__writable(c, 0, 0);
  if (!w) {
    tfs_tensor_free(k);
    return;
  }
  if (tfs_tensor_list_push(w, k, c->st)) tfs_kctx_fail_status(c, c->st);
}

static void pop_back_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  if (!l) return;
  if (l->n == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Trying to pop from an empty list.");
    return;
  }
  tfs_tensor *last = l->items[l->n - 1];
  tfs_tensor *item;
  if (last) {
    item = tfs_tensor_ref(last);
  } else {
    tfs_shape s;
    char b[TFS_SHAPE_STRLEN];
    if (element_shape_from_input(c, l, 1, &s)) return;
    if (!tfs_shape_is_fully_defined(&s)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Trying to read an uninitialized tensor but "
                    "element_shape is not fully defined.%s",
                    tfs_shape_str(&s, b, sizeof b));
      return;
    }
    item = zeros(c, l->element_dtype, &s);
    if (!item) return;
  }
  tfs_kctx_set_output(c, 1, item);
  tfs_tensor_list *w = tfs_list__writable(c, 0, 0);
  if (w) tfs_tensor_list_resize(w, w->n - 1, c->st);
}

static void resize_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = input_list(c, 0);
  int64_t n;
  if (!l || scalar_int_input(c, 1, "size", &n)) return;
  if (n < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorListSlice expects size to be non-negative. Got: %lld",
                  (long long)n);
    return;
  }
  tfs_tensor_list *w = tfs_list__writable(c, 0, 0);
  if (w && tfs_tensor_list_resize(w, n, c->st))
    tfs_kctx_fail_status(c, c->st);
}

/* Writes rows of `value` into w at idx (checked against w's bounds). */
static void scatter_rows(tfs_kernel_ctx *c, tfs_tensor_list *w,
                         const tfs_tensor *value, const tfs_tensor *ix) {
  tfs_shape row;
  drop_first_dim(&value->shape, &row);
  int64_t per = tfs_shape_num_elements(&row);
  const int32_t *idx = ix->data;
  for (int64_t k = 0; k < ix->nelems; k++) {
    if (idx[k] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Indices in TensorListScatter must all be non-negative.");
      return;
    }
    if (idx[k] >= w->n && tfs_tensor_list_resize(w, idx[k] + 1, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      return;
    }
    tfs_tensor *e = slice_copy(c, value, k * per, &row);
    if (!e) return;
    tfs_tensor_list_set(w, idx[k], e);
  }
}

/* Checks `value` (rows) against indices for the scatter family. */
static int check_scatter(tfs_kernel_ctx *c, const tfs_tensor *value,
                         const tfs_tensor *ix) {
  char a[TFS_SHAPE_STRLEN];
  if (value->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tensor must be at least a vector, but saw shape: %s",
                  tfs_shape_str(&value->shape, a, sizeof a));
    return -1;
  }
  if (value->shape.dims[0] != ix->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected len(indices) == tensor.shape[0], but saw: %lld "
                  "vs. %lld",
                  (long long)ix->nelems, (long long)value->shape.dims[0]);
    return -1;
  }
  return 0;
}

/* TensorListScatter and TensorListScatterV2 (num_elements input 3). */
static void scatter_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *value = c->inputs[0], *ix = c->inputs[1];
  tfs_shape es, row;
  if (shape_from_tensor(c, c->inputs[2], &es) || check_scatter(c, value, ix))
    return;
  if (rows_fit(c, &es, value, &row)) return;
  int64_t n = -1;
  if (c->ninputs > 3 && scalar_int_input(c, 3, "num_elements", &n)) return;
  int64_t maxi = -1;
  const int32_t *idx = ix->data;
  for (int64_t k = 0; k < ix->nelems; k++) maxi = idx[k] > maxi ? idx[k] : maxi;
  if (n < maxi + 1) n = maxi + 1;
  tfs_tensor_list *l = tfs_tensor_list_new(value->dtype, &es, n, c->st);
  if (!l) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  scatter_rows(c, l, value, ix);
  if (c->failed) {
    tfs_variant_unref(&l->base);
    return;
  }
  set_list_output(c, 0, l);
}

static void scatter_existing_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  const tfs_tensor *value = c->inputs[1], *ix = c->inputs[2];
  if (!l || check_scatter(c, value, ix)) return;
  tfs_shape row;
  drop_first_dim(&value->shape, &row);
  if (check_item(c, l, value->dtype, &row, "scatter")) return;
  tfs_tensor_list *w = tfs_list__writable(c, 0, 0);
  if (w) scatter_rows(c, w, value, ix);
}

/* ---- concat and split ---------------------------------------------------- */

/* TensorListConcat (element_shape attr) and TensorListConcatV2
 * (element_shape and leading_dims inputs): the elements joined along
 * their first dimension, and each one's length. */
static void concat_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *l = typed_list(c, ST(c)->element_dtype);
  if (!l) return;
  char a[TFS_SHAPE_STRLEN];
  tfs_shape es = ST(c)->attr_shape, rest;
  if (c->ninputs > 1 && element_shape_from_input(c, l, 1, &es)) return;
  if (es.rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Concat requires elements to be at least vectors, found "
                  "scalars instead.");
    return;
  }
  int64_t first = es.rank > 0 ? es.dims[0] : -1;
  if (es.rank > 0)
    drop_first_dim(&es, &rest);
  else
    tfs_shape_unknown(&rest);
  if (l->n == 0 && !tfs_shape_is_fully_defined(&rest)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "All except the first dimension must be fully defined when "
                  "concating an empty tensor list. element_shape: %s",
                  tfs_shape_str(&rest, a, sizeof a));
    return;
  }
  int same = 1;
  int64_t inferred = first;
  for (int64_t i = 0; i < l->n; i++) {
    const tfs_tensor *t = l->items[i];
    if (!t) continue;
    if (t->shape.rank < 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Concat saw a scalar shape at index %lld but requires at "
                    "least vectors.",
                    (long long)i);
      return;
    }
    tfs_shape tr;
    drop_first_dim(&t->shape, &tr);
    if (merge_shapes(c, &rest, &tr, &rest)) return;
    if (first != -1 && first != t->shape.dims[0]) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "First entry of element_shape input does not match the "
                    "first dim of list element at index: %lld Expected: %lld "
                    "Actual: %lld",
                    (long long)i, (long long)first,
                    (long long)t->shape.dims[0]);
      return;
    }
    if (first == -1 && same) {
      if (inferred == -1)
        inferred = t->shape.dims[0];
      else if (inferred != t->shape.dims[0])
        inferred = -1, same = 0;
    }
  }
  if (!tfs_shape_is_fully_defined(&rest)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Trying to concat list with only uninitialized tensors but "
                  "element_shape_except_first_dim is not fully defined: %s",
                  tfs_shape_str(&rest, a, sizeof a));
    return;
  }
  tfs_shape ls;
  tfs_shape_1d(&ls, l->n);
  tfs_tensor *lengths = tfs_kctx_alloc_output(c, 1, &ls);
  if (!lengths) return;
  int64_t *len = lengths->data, total = 0;
  const tfs_tensor *lead = c->ninputs > 2 ? c->inputs[2] : NULL;
  for (int64_t i = 0; i < l->n; i++) {
    if (l->items[i]) {
      len[i] = l->items[i]->shape.dims[0];
    } else if ((!lead || i >= lead->nelems) && inferred != -1) {
      len[i] = inferred;
    } else if (!lead) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Concating lists with uninitialized tensors is not "
                    "supported in this version of TensorListConcat. Consider "
                    "updating your GraphDef to run the newer version.");
      return;
    } else if (i >= lead->nelems) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "List contains uninitialized tensor at index %lld but "
                    "leading_dims has only %lld elements.",
                    (long long)i, (long long)lead->nelems);
      return;
    } else {
      len[i] = tfs_tensor__get_as_int64(lead, i);
    }
    if (len[i] < 0 || tfs_add_overflow_i64(total, len[i], &total)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Invalid leading dim %lld",
                    (long long)len[i]);
      return;
    }
  }
  tfs_shape os;
  if (prepend_dim(c, total, &rest, &os)) return;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &os);
  if (!o || !o->nelems) return;
  tfs_elem e = tfs_elem_of(o->dtype);
  int64_t per = tfs_shape_num_elements(&rest), at = 0;
  for (int64_t i = 0; i < l->n; i++) {
    int64_t n = len[i] * per;
    char *dst = (char *)o->data + at * (int64_t)e.size;
    if (l->items[i]) {
      if (n && tfs_elem_copy(e, dst, l->items[i]->data, n)) {
        tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return;
      }
    } else if (!e.is_string) {
      memset(dst, 0, (size_t)(n * (int64_t)e.size));
    }
    at += n;
  }
}

static void split_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *t = c->inputs[0], *lengths = c->inputs[2];
  tfs_shape es, row, erow;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (shape_from_tensor(c, c->inputs[1], &es)) return;
  if (es.rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "TensorListSplit requires element_shape to be at least of "
                  "rank 1, but saw: %s",
                  tfs_shape_str(&es, a, sizeof a));
    return;
  }
  if (t->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Tensor must be at least a vector, but saw shape: %s",
                  tfs_shape_str(&t->shape, a, sizeof a));
    return;
  }
  drop_first_dim(&t->shape, &row);
  if (es.rank > 0)
    drop_first_dim(&es, &erow);
  else
    tfs_shape_unknown(&erow);
  tfs_shape m;
  if (tfs_shape_merge(&erow, &row, &m)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "tensor shape %s is not compatible with element_shape %s",
                  tfs_shape_str(&t->shape, a, sizeof a),
                  tfs_shape_str(&es, b, sizeof b));
    return;
  }
  if (lengths->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected lengths to be a vector, received shape: %s",
                  tfs_shape_str(&lengths->shape, a, sizeof a));
    return;
  }
  tfs_tensor_list *l = tfs_tensor_list_new(t->dtype, &es, 0, c->st);
  if (!l) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  int64_t per = tfs_shape_num_elements(&row), start = 0;
  for (int64_t i = 0; i < lengths->nelems; i++) {
    int64_t n = tfs_tensor__get_as_int64(lengths, i);
    if (n < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Invalid value in lengths: %lld",
                    (long long)n);
      break;
    }
    if (n > t->shape.dims[0] - start) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Attempting to slice [%lld, %lld] from tensor with length "
                    "%lld",
                    (long long)start, (long long)(start + n),
                    (long long)t->shape.dims[0]);
      break;
    }
    tfs_shape s = t->shape;
    s.dims[0] = n;
    tfs_tensor *e = slice_copy(c, t, start * per, &s);
    if (!e) break;
    if (tfs_tensor_list_push(l, e, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      break;
    }
    start += n;
  }
  if (!c->failed && start != t->shape.dims[0])
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Unused values in tensor. Length of tensor: %lld Values "
                  "used: %lld",
                  (long long)t->shape.dims[0], (long long)start);
  if (c->failed) {
    tfs_variant_unref(&l->base);
    return;
  }
  set_list_output(c, 0, l);
}

static void concat_lists_compute(tfs_kernel_ctx *c) {
  tfs_tensor_list *a = input_list(c, 0), *b = a ? input_list(c, 1) : NULL;
  if (!b) return;
  char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
  if (a->element_dtype != ST(c)->element_dtype ||
      b->element_dtype != ST(c)->element_dtype) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input_a.type_list.element_dtype != element_dtype: %s vs. "
                  "%s",
                  tfs_dtype_name(a->element_dtype),
                  tfs_dtype_name(ST(c)->element_dtype));
    return;
  }
  tfs_shape m;
  if (tfs_shape_merge(&a->element_shape, &b->element_shape, &m)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Lists have incompatible element shapes: %s vs. %s",
                  tfs_shape_str(&a->element_shape, x, sizeof x),
                  tfs_shape_str(&b->element_shape, y, sizeof y));
    return;
  }
  tfs_tensor_list *o = tfs_tensor_list_copy(a, c->st);
  if (!o) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  o->element_shape = m;
  for (int64_t i = 0; i < b->n; i++) {
    if (tfs_tensor_list_push(o, b->items[i] ? tfs_tensor_ref(b->items[i])
                                            : NULL,
                             c->st)) {
      tfs_variant_unref(&o->base);
      tfs_kctx_fail_status(c, c->st);
      return;
    }
  }
  set_list_output(c, 0, o);
}

#define ANY NULL, 0
#define EL "element_dtype", LIST_TYPES
#define K(op, types, fn) \
  {op, "CPU", types, list_prepare, fn, list_release, 0, NULL}

const tfs_kernel_def tfs_cpu_kernels_list[] = {
    K("EmptyTensorList", ANY, empty_list_compute),
    K("TensorListReserve", ANY, reserve_compute),
    K("TensorListFromTensor", EL, from_tensor_compute),
    K("TensorListLength", ANY, length_compute),
    K("TensorListElementShape", ANY, element_shape_compute),
    K("TensorListGetItem", EL, get_item_compute),
    K("TensorListSetItem", EL, set_item_compute),
    K("TensorListPushBack", EL, push_back_compute),
    K("TensorListPopBack", EL, pop_back_compute),
    K("TensorListStack", EL, stack_compute),
    K("TensorListGather", EL, gather_compute),
    K("TensorListScatter", EL, scatter_compute),
    K("TensorListScatterV2", EL, scatter_compute),
    K("TensorListScatterIntoExistingList", EL, scatter_existing_compute),
    K("TensorListResize", ANY, resize_compute),
    K("TensorListConcat", EL, concat_compute),
    K("TensorListConcatV2", EL, concat_compute),
    K("TensorListSplit", EL, split_compute),
    K("TensorListConcatLists", ANY, concat_lists_compute),
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

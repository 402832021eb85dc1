/*
 * core/attr_value.c - attribute values: construction, copy, comparison,
 * TensorFlow-style summaries, and the sorted attr map.
 */
#include "core/attr_value.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"

void tfs_attr_int(tfs_attr_value *v, int64_t i) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_INT;
  v->u.i = i;
}

void tfs_attr_float(tfs_attr_value *v, float f) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_FLOAT;
  v->u.f = f;
}

void tfs_attr_bool(tfs_attr_value *v, int b) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_BOOL;
  v->u.b = b ? 1 : 0;
}

void tfs_attr_type_val(tfs_attr_value *v, tfs_dtype t) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_TYPE;
  v->u.type = t;
}

static int bytes_set(tfs_bytes *b, const char *s, size_t len) {
  b->ptr = tfs_strndup(s ? s : "", s ? len : 0);
  b->len = b->ptr ? (s ? len : 0) : 0;
  return b->ptr ? 0 : -1;
}

int tfs_attr_string(tfs_attr_value *v, const char *s, size_t len) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_STRING;
  return bytes_set(&v->u.s, s, len);
}

int tfs_attr_shape(tfs_attr_value *v, const tfs_shape *s) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_SHAPE;
  v->u.shape = tfs_malloc(sizeof(tfs_shape));
  if (!v->u.shape) return -1;
  *v->u.shape = *s;
  return 0;
}

void tfs_attr_tensor(tfs_attr_value *v, tfs_tensor *t) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_TENSOR;
  v->u.tensor = tfs_tensor_ref(t);
}

int tfs_attr_placeholder(tfs_attr_value *v, const char *name) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_PLACEHOLDER;
  v->u.placeholder = tfs_strdup(name ? name : "");
  return v->u.placeholder ? 0 : -1;
}

int tfs_attr_func(tfs_attr_value *v, const char *name, size_t len) {
  memset(v, 0, sizeof(*v));
  v->type = TFS_ATTR_FUNC;
  v->u.func = tfs_calloc(1, sizeof(tfs_func_attr));
  if (!v->u.func) return -1;
  v->u.func->name = tfs_strndup(name ? name : "", name ? len : 0);
  if (!v->u.func->name) {
    tfs_free(v->u.func);
    v->u.func = NULL;
    return -1;
  }
  return 0;
}

static size_t elem_size(tfs_attr_type t) {
  switch (t) {
    case TFS_ATTR_STRING: return sizeof(tfs_bytes);
    case TFS_ATTR_INT: return sizeof(int64_t);
    case TFS_ATTR_FLOAT: return sizeof(float);
    case TFS_ATTR_BOOL: return sizeof(uint8_t);
    case TFS_ATTR_TYPE: return sizeof(tfs_dtype);
    case TFS_ATTR_SHAPE: return sizeof(tfs_shape);
    case TFS_ATTR_TENSOR: return sizeof(tfs_tensor *);
    case TFS_ATTR_FUNC: return sizeof(tfs_func_attr);
    default: return 0;
  }
}

static void func_clear(tfs_func_attr *f) {
  tfs_free(f->name);
  if (f->attrs) {
    tfs_attrs_clear(f->attrs);
    tfs_free(f->attrs);
  }
}

static int func_copy(tfs_func_attr *d, const tfs_func_attr *s) {
  d->name = tfs_strdup(s->name);
  d->attrs = NULL;
  if (!d->name) return -1;
  if (s->attrs) {
    d->attrs = tfs_calloc(1, sizeof(tfs_attrs));
    if (!d->attrs || tfs_attrs_copy(d->attrs, s->attrs)) {
      func_clear(d);
      return -1;
    }
  }
  return 0;
}

int tfs_attr_list(tfs_attr_value *v, tfs_attr_type type, int n,
                  const void *items) {
  memset(v, 0, sizeof(*v));
  v->type = (uint8_t)type;
  v->is_list = 1;
  size_t es = elem_size(type);
  v->u.list.v = tfs_calloc(n > 0 ? (size_t)n : 1, es ? es : 1);
  if (!v->u.list.v) return -1;
  if (n <= 0) return 0;
  if (type == TFS_ATTR_STRING) {
    const tfs_bytes *src = items;
    tfs_bytes *dst = v->u.list.v;
    for (int i = 0; i < n; i++) {
      if (bytes_set(&dst[i], src[i].ptr, src[i].len)) {
        v->u.list.n = i;
        tfs_attr_value_clear(v);
        return -1;
      }
    }
  } else if (type == TFS_ATTR_TENSOR) {
    tfs_tensor *const *src = items;
    tfs_tensor **dst = v->u.list.v;
    for (int i = 0; i < n; i++) dst[i] = tfs_tensor_ref(src[i]);
  } else if (type == TFS_ATTR_FUNC) {
    const tfs_func_attr *src = items;
    tfs_func_attr *dst = v->u.list.v;
    for (int i = 0; i < n; i++) {
      if (func_copy(&dst[i], &src[i])) {
        v->u.list.n = i;
        tfs_attr_value_clear(v);
        return -1;
      }
    }
  } else {
    memcpy(v->u.list.v, items, es * (size_t)n);
  }
  v->u.list.n = n;
  return 0;
}

void tfs_attr_value_clear(tfs_attr_value *v) {
  if (!v) return;
  if (v->is_list) {
    int n = v->u.list.n;
    if (v->u.list.v) {
      if (v->type == TFS_ATTR_STRING) {
        tfs_bytes *b = v->u.list.v;
        for (int i = 0; i < n; i++) tfs_free(b[i].ptr);
      } else if (v->type == TFS_ATTR_TENSOR) {
        tfs_tensor **t = v->u.list.v;
        for (int i = 0; i < n; i++) tfs_tensor_free(t[i]);
      } else if (v->type == TFS_ATTR_FUNC) {
        tfs_func_attr *f = v->u.list.v;
        for (int i = 0; i < n; i++) func_clear(&f[i]);
      }
    }
    tfs_free(v->u.list.v);
  } else {
    switch (v->type) {
      case TFS_ATTR_STRING: tfs_free(v->u.s.ptr); break;
      case TFS_ATTR_SHAPE: tfs_free(v->u.shape); break;
      case TFS_ATTR_TENSOR: tfs_tensor_free(v->u.tensor); break;
      case TFS_ATTR_PLACEHOLDER: tfs_free(v->u.placeholder); break;
      case TFS_ATTR_FUNC:
        if (v->u.func) {
          func_clear(v->u.func);
          tfs_free(v->u.func);
        }
        break;
      default: break;
    }
  }
  memset(v, 0, sizeof(*v));
}

int tfs_attr_value_copy(tfs_attr_value *dst, const tfs_attr_value *src) {
  if (src->is_list)
    return tfs_attr_list(dst, (tfs_attr_type)src->type, src->u.list.n,
                         src->u.list.v);
  switch (src->type) {
    case TFS_ATTR_STRING:
      return tfs_attr_string(dst, src->u.s.ptr, src->u.s.len);
    case TFS_ATTR_SHAPE: return tfs_attr_shape(dst, src->u.shape);
    case TFS_ATTR_TENSOR: tfs_attr_tensor(dst, src->u.tensor); return 0;
    case TFS_ATTR_PLACEHOLDER:
      return tfs_attr_placeholder(dst, src->u.placeholder);
    case TFS_ATTR_FUNC: {
      memset(dst, 0, sizeof(*dst));
      dst->type = TFS_ATTR_FUNC;
      dst->u.func = tfs_calloc(1, sizeof(tfs_func_attr));
      if (!dst->u.func) return -1;
      if (func_copy(dst->u.func, src->u.func)) {
        tfs_free(dst->u.func);
        dst->u.func = NULL;
        return -1;
      }
      return 0;
    }
    default:
      *dst = *src;
      return 0;
  }
}

static int tensor_equal(const tfs_tensor *a, const tfs_tensor *b) {
  if (a == b) return 1;
  if (!a || !b || a->dtype != b->dtype ||
      !tfs_shape_equal(&a->shape, &b->shape))
    return 0;
  if (a->dtype == TFS_STRING) {
    for (int64_t i = 0; i < a->nelems; i++) {
      size_t la, lb;
      const char *sa = tfs_tensor_string_at(a, i, &la);
      const char *sb = tfs_tensor_string_at(b, i, &lb);
      if (la != lb || memcmp(sa, sb, la)) return 0;
    }
    return 1;
  }
  return memcmp(a->data, b->data, a->nbytes) == 0;
}

static int func_equal(const tfs_func_attr *a, const tfs_func_attr *b) {
  if (strcmp(a->name, b->name)) return 0;
  if (!a->attrs || !b->attrs)
    return (!a->attrs || a->attrs->n == 0) && (!b->attrs || b->attrs->n == 0);
  return tfs_attrs_equal(a->attrs, b->attrs);
}

int tfs_attr_value_equal(const tfs_attr_value *a, const tfs_attr_value *b) {
  if (a->type != b->type || a->is_list != b->is_list) return 0;
  if (a->is_list) {
    int n = a->u.list.n;
    if (n != b->u.list.n) return 0;
    for (int i = 0; i < n; i++) {
      switch (a->type) {
        case TFS_ATTR_STRING: {
          const tfs_bytes *x = &((const tfs_bytes *)a->u.list.v)[i];
          const tfs_bytes *y = &((const tfs_bytes *)b->u.list.v)[i];
          if (x->len != y->len || memcmp(x->ptr, y->ptr, x->len)) return 0;
          break;
        }
        case TFS_ATTR_SHAPE:
          if (!tfs_shape_equal(&((const tfs_shape *)a->u.list.v)[i],
                               &((const tfs_shape *)b->u.list.v)[i]))
            return 0;
          break;
        case TFS_ATTR_TENSOR:
          if (!tensor_equal(((tfs_tensor *const *)a->u.list.v)[i],
                            ((tfs_tensor *const *)b->u.list.v)[i]))
            return 0;
          break;
        case TFS_ATTR_FUNC:
          if (!func_equal(&((const tfs_func_attr *)a->u.list.v)[i],
                          &((const tfs_func_attr *)b->u.list.v)[i]))
            return 0;
          break;
        default: {
          size_t es = elem_size((tfs_attr_type)a->type);
          if (memcmp((const char *)a->u.list.v + es * (size_t)i,
                     (const char *)b->u.list.v + es * (size_t)i, es))
            return 0;
        }
      }
    }
    return 1;
  }
  switch (a->type) {
    case TFS_ATTR_STRING:
      return a->u.s.len == b->u.s.len &&
             memcmp(a->u.s.ptr, b->u.s.ptr, a->u.s.len) == 0;
    case TFS_ATTR_INT: return a->u.i == b->u.i;
    case TFS_ATTR_FLOAT:
      return memcmp(&a->u.f, &b->u.f, sizeof(float)) == 0;
    case TFS_ATTR_BOOL: return a->u.b == b->u.b;
    case TFS_ATTR_TYPE: return a->u.type == b->u.type;
    case TFS_ATTR_SHAPE: return tfs_shape_equal(a->u.shape, b->u.shape);
    case TFS_ATTR_TENSOR: return tensor_equal(a->u.tensor, b->u.tensor);
    case TFS_ATTR_PLACEHOLDER:
      return strcmp(a->u.placeholder, b->u.placeholder) == 0;
    case TFS_ATTR_FUNC: return func_equal(a->u.func, b->u.func);
    default: return 0;
  }
}

const char *tfs_attr_type_string(const tfs_attr_value *v) {
  static const char *const scalar[] = {"string", "int",    "float",
                                       "bool",   "type",   "shape",
                                       "tensor", "placeholder", "func"};
  static const char *const list[] = {
      "list(string)", "list(int)",    "list(float)",
      "list(bool)",   "list(type)",   "list(shape)",
      "list(tensor)", "list(placeholder)", "list(func)"};
  if (v->type > TFS_ATTR_FUNC) return "unknown";
  return v->is_list ? list[v->type] : scalar[v->type];
}

static void summarize_string(tfs_strbuf *b, const char *s, size_t n) {
  tfs_strbuf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      tfs_strbuf_putc(b, '\\');
      tfs_strbuf_putc(b, (char)c);
    } else if (c == '\n') {
      tfs_strbuf_puts(b, "\\n");
    } else if (c < 0x20 || c >= 0x7f) {
      tfs_strbuf_printf(b, "\\%03o", c);
    } else {
      tfs_strbuf_putc(b, (char)c);
    }
  }
  tfs_strbuf_putc(b, '"');
}

static void summarize_tensor(tfs_strbuf *b, const tfs_tensor *t) {
  char sh[TFS_SHAPE_STRLEN];
  char *vals = tfs_tensor__summarize(t, 3);
  tfs_strbuf_printf(b, "<Tensor<type: %s shape: %s values: %s>>",
                    tfs_dtype_name(t->dtype),
                    tfs_shape_str(&t->shape, sh, sizeof sh),
                    vals ? vals : "");
  free(vals);
}

static void summarize_one(tfs_strbuf *b, tfs_attr_type type,
                          const void *p) {
  char tmp[TFS_SHAPE_STRLEN];
  switch (type) {
    case TFS_ATTR_STRING: {
      const tfs_bytes *s = p;
      summarize_string(b, s->ptr, s->len);
      break;
    }
    case TFS_ATTR_INT:
      tfs_strbuf_printf(b, "%lld", (long long)*(const int64_t *)p);
      break;
    case TFS_ATTR_FLOAT:
      tfs_format_float(tmp, sizeof tmp, *(const float *)p);
      tfs_strbuf_puts(b, tmp);
      break;
    case TFS_ATTR_BOOL:
      tfs_strbuf_puts(b, *(const uint8_t *)p ? "true" : "false");
      break;
    case TFS_ATTR_TYPE:
      tfs_strbuf_puts(b, tfs_dtype_enum_name(*(const tfs_dtype *)p));
      break;
    case TFS_ATTR_SHAPE:
      tfs_strbuf_puts(b, tfs_shape_str(p, tmp, sizeof tmp));
      break;
    case TFS_ATTR_TENSOR:
      summarize_tensor(b, *(tfs_tensor *const *)p);
      break;
    case TFS_ATTR_FUNC: {
      const tfs_func_attr *f = p;
      tfs_strbuf_puts(b, f->name);
      if (f->attrs && f->attrs->n) {
        tfs_strbuf_putc(b, '[');
        for (int i = 0; i < f->attrs->n; i++) {
          if (i) tfs_strbuf_puts(b, ", ");
          tfs_strbuf_printf(b, "%s=", f->attrs->e[i].name);
          tfs_attr_value_summary(b, &f->attrs->e[i].value);
        }
        tfs_strbuf_putc(b, ']');
      }
      break;
    }
    default:
      break;
  }
}

void tfs_attr_value_summary(tfs_strbuf *b, const tfs_attr_value *v) {
  if (v->is_list) {
    size_t es = elem_size((tfs_attr_type)v->type);
    tfs_strbuf_putc(b, '[');
    for (int i = 0; i < v->u.list.n; i++) {
      if (i) tfs_strbuf_puts(b, ", ");
      summarize_one(b, (tfs_attr_type)v->type,
                    (const char *)v->u.list.v + es * (size_t)i);
    }
    tfs_strbuf_putc(b, ']');
    return;
  }
  switch (v->type) {
    case TFS_ATTR_STRING: summarize_one(b, TFS_ATTR_STRING, &v->u.s); break;
    case TFS_ATTR_INT: summarize_one(b, TFS_ATTR_INT, &v->u.i); break;
    case TFS_ATTR_FLOAT: summarize_one(b, TFS_ATTR_FLOAT, &v->u.f); break;
    case TFS_ATTR_BOOL: summarize_one(b, TFS_ATTR_BOOL, &v->u.b); break;
    case TFS_ATTR_TYPE: summarize_one(b, TFS_ATTR_TYPE, &v->u.type); break;
    case TFS_ATTR_SHAPE: summarize_one(b, TFS_ATTR_SHAPE, v->u.shape); break;
    case TFS_ATTR_TENSOR:
      summarize_one(b, TFS_ATTR_TENSOR, &v->u.tensor);
      break;
    case TFS_ATTR_PLACEHOLDER:
      tfs_strbuf_printf(b, "$%s", v->u.placeholder);
      break;
    case TFS_ATTR_FUNC: summarize_one(b, TFS_ATTR_FUNC, v->u.func); break;
    default: break;
  }
}

/* ---- attr maps ---------------------------------------------------------- */

void tfs_attrs_init(tfs_attrs *a) { memset(a, 0, sizeof(*a)); }

void tfs_attrs_clear(tfs_attrs *a) {
  for (int i = 0; i < a->n; i++) {
    tfs_free(a->e[i].name);
    tfs_attr_value_clear(&a->e[i].value);
  }
  tfs_free(a->e);
  memset(a, 0, sizeof(*a));
}

static int find_pos(const tfs_attrs *a, const char *name, int *found) {
  int lo = 0, hi = a->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(a->e[mid].name, name);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = 0;
  return lo;
}

const tfs_attr_value *tfs_attrs_find(const tfs_attrs *a, const char *name) {
  int found;
  if (!a) return NULL;
  int p = find_pos(a, name, &found);
  return found ? &a->e[p].value : NULL;
}

int tfs_attrs_set(tfs_attrs *a, const char *name, tfs_attr_value *v) {
  int found;
  int p = find_pos(a, name, &found);
  if (found) {
    tfs_attr_value_clear(&a->e[p].value);
    a->e[p].value = *v;
    memset(v, 0, sizeof(*v));
    return 0;
  }
  char *nm = tfs_strdup(name);
  size_t cap = (size_t)a->cap;
  if (!nm || tfs_grow((void **)&a->e, &cap, (size_t)a->n + 1,
                      sizeof(tfs_attr_entry))) {
    tfs_free(nm);
    tfs_attr_value_clear(v);
    return -1;
  }
  a->cap = (int)cap;
  memmove(&a->e[p + 1], &a->e[p], sizeof(tfs_attr_entry) * (size_t)(a->n - p));
  a->e[p].name = nm;
  a->e[p].value = *v;
  memset(v, 0, sizeof(*v));
  a->n++;
  return 0;
}

int tfs_attrs_remove(tfs_attrs *a, const char *name) {
  int found;
  int p = find_pos(a, name, &found);
  if (!found) return -1;
  tfs_free(a->e[p].name);
  tfs_attr_value_clear(&a->e[p].value);
  memmove(&a->e[p], &a->e[p + 1],
          sizeof(tfs_attr_entry) * (size_t)(a->n - p - 1));
  a->n--;
  return 0;
}

int tfs_attrs_copy(tfs_attrs *dst, const tfs_attrs *src) {
  tfs_attrs_init(dst);
  if (!src->n) return 0;
  dst->e = tfs_calloc((size_t)src->n, sizeof(tfs_attr_entry));
  if (!dst->e) return -1;
  dst->cap = src->n;
  for (int i = 0; i < src->n; i++) {
    dst->e[i].name = tfs_strdup(src->e[i].name);
    if (!dst->e[i].name ||
        tfs_attr_value_copy(&dst->e[i].value, &src->e[i].value)) {
      tfs_free(dst->e[i].name);
      dst->n = i;
      tfs_attrs_clear(dst);
      return -1;
    }
    dst->n = i + 1;
  }
  return 0;
}

int tfs_attrs_equal(const tfs_attrs *a, const tfs_attrs *b) {
  if (a->n != b->n) return 0;
  for (int i = 0; i < a->n; i++) {
    if (strcmp(a->e[i].name, b->e[i].name) ||
        !tfs_attr_value_equal(&a->e[i].value, &b->e[i].value))
      return 0;
  }
  return 1;
}

static const tfs_attr_value *get(const tfs_attrs *a, const char *name,
                                 tfs_attr_type t, int list) {
  const tfs_attr_value *v = tfs_attrs_find(a, name);
  if (!v || v->type != t || v->is_list != list) return NULL;
  return v;
}

int tfs_attrs_get_int(const tfs_attrs *a, const char *name, int64_t *out) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_INT, 0);
  if (!v) return -1;
  *out = v->u.i;
  return 0;
}

int tfs_attrs_get_float(const tfs_attrs *a, const char *name, float *out) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_FLOAT, 0);
  if (!v) return -1;
  *out = v->u.f;
  return 0;
}

int tfs_attrs_get_bool(const tfs_attrs *a, const char *name, int *out) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_BOOL, 0);
  if (!v) return -1;
  *out = v->u.b;
  return 0;
}

int tfs_attrs_get_type(const tfs_attrs *a, const char *name,
                       tfs_dtype *out) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_TYPE, 0);
  if (!v) return -1;
  *out = v->u.type;
  return 0;
}

const char *tfs_attrs_get_string(const tfs_attrs *a, const char *name,
                                 size_t *len) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_STRING, 0);
  if (!v) return NULL;
  if (len) *len = v->u.s.len;
  return v->u.s.ptr;
}

const tfs_shape *tfs_attrs_get_shape(const tfs_attrs *a, const char *name) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_SHAPE, 0);
  return v ? v->u.shape : NULL;
}

const tfs_tensor *tfs_attrs_get_tensor(const tfs_attrs *a,
                                       const char *name) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_TENSOR, 0);
  return v ? v->u.tensor : NULL;
}

const int64_t *tfs_attrs_get_int_list(const tfs_attrs *a, const char *name,
                                      int *n) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_INT, 1);
  if (!v) return NULL;
  *n = v->u.list.n;
  return v->u.list.v;
}

const tfs_dtype *tfs_attrs_get_type_list(const tfs_attrs *a,
                                         const char *name, int *n) {
  const tfs_attr_value *v = get(a, name, TFS_ATTR_TYPE, 1);
  if (!v) return NULL;
  *n = v->u.list.n;
  return v->u.list.v;
}

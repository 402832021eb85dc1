/*
 * graph_builder/attr_proto.c - AttrValue <-> tfs_attr_value: scalars,
 * lists (whose element kind comes from the one non-empty field, or from
 * the op definition for `list {}`), shapes, tensors, function references.
 */
#include "graph_builder/attr_proto.h"

#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/tensor_proto.h"

const char *tfs_attr_def__type_string(const tfs_attr_def *def) {
  tfs_attr_value v;
  memset(&v, 0, sizeof v);
  v.type = def->type;
  v.is_list = def->is_list;
  return tfs_attr_type_string(&v);
}

/* ---- from protos --------------------------------------------------------- */

static int func_from_proto(const Tensorflow__NameAttrList *p,
                           tfs_func_attr *f, tfs_status *st);

static int bytes_copy(tfs_bytes *b, const ProtobufCBinaryData *d) {
  b->ptr = tfs_strndup(d->len ? (const char *)d->data : "", d->len);
  b->len = b->ptr ? d->len : 0;
  return b->ptr ? 0 : -1;
}

/* The list field that holds values: its attr kind, or -1 for none; -2
 * when several do. */
static int list_kind(const Tensorflow__AttrValue__ListValue *l) {
  const size_t counts[] = {
      [TFS_ATTR_STRING] = l->n_s,     [TFS_ATTR_INT] = l->n_i,
      [TFS_ATTR_FLOAT] = l->n_f,      [TFS_ATTR_BOOL] = l->n_b,
      [TFS_ATTR_TYPE] = l->n_type,    [TFS_ATTR_SHAPE] = l->n_shape,
      [TFS_ATTR_TENSOR] = l->n_tensor, [TFS_ATTR_PLACEHOLDER] = 0,
      [TFS_ATTR_FUNC] = l->n_func};
  int kind = -1;
  for (int k = 0; k < (int)TFS_ARRAY_LEN(counts); k++) {
    if (!counts[k]) continue;
    if (kind >= 0) return -2;
    kind = k;
  }
  return kind;
}

static int list_elems(const Tensorflow__AttrValue__ListValue *l, int kind,
                      tfs_attr_value *out, tfs_status *st) {
  size_t n = 0;
  switch (kind) {
    case TFS_ATTR_STRING: n = l->n_s; break;
    case TFS_ATTR_INT: n = l->n_i; break;
    case TFS_ATTR_FLOAT: n = l->n_f; break;
    case TFS_ATTR_BOOL: n = l->n_b; break;
    case TFS_ATTR_TYPE: n = l->n_type; break;
    case TFS_ATTR_SHAPE: n = l->n_shape; break;
    case TFS_ATTR_TENSOR: n = l->n_tensor; break;
    case TFS_ATTR_FUNC: n = l->n_func; break;
    default: break;
  }
  if (n > (size_t)INT32_MAX) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "AttrValue list is too long");
    return -1;
  }
  /* Same element kinds as tfs_attr_list, so tfs_attr_value_clear frees
   * whatever part was filled. */
  if (tfs_attr_list(out, (tfs_attr_type)kind, 0, NULL)) goto oom;
  static const size_t es[] = {
      [TFS_ATTR_STRING] = sizeof(tfs_bytes),
      [TFS_ATTR_INT] = sizeof(int64_t),
      [TFS_ATTR_FLOAT] = sizeof(float),
      [TFS_ATTR_BOOL] = sizeof(uint8_t),
      [TFS_ATTR_TYPE] = sizeof(tfs_dtype),
      [TFS_ATTR_SHAPE] = sizeof(tfs_shape),
      [TFS_ATTR_TENSOR] = sizeof(tfs_tensor *),
      [TFS_ATTR_PLACEHOLDER] = 1,
      [TFS_ATTR_FUNC] = sizeof(tfs_func_attr)};
  void *v = tfs_calloc(n ? n : 1, es[kind]);
  if (!v) goto oom;
  tfs_free(out->u.list.v);
  out->u.list.v = v;
  for (size_t i = 0; i < n; i++) {
    int rc = 0;
    switch (kind) {
      case TFS_ATTR_STRING:
        if (bytes_copy(&((tfs_bytes *)v)[i], &l->s[i])) {
          TFS_OOM(st);
          rc = -1;
        }
        break;
      case TFS_ATTR_INT: ((int64_t *)v)[i] = l->i[i]; break;
      case TFS_ATTR_FLOAT: ((float *)v)[i] = l->f[i]; break;
      case TFS_ATTR_BOOL: ((uint8_t *)v)[i] = l->b[i] != 0; break;
      case TFS_ATTR_TYPE: ((tfs_dtype *)v)[i] = (tfs_dtype)l->type[i]; break;
      case TFS_ATTR_SHAPE:
        rc = tfs_shape__from_proto(l->shape[i], 1, &((tfs_shape *)v)[i], st);
        break;
      case TFS_ATTR_TENSOR: {
        tfs_tensor *t = NULL;
        if (l->tensor[i]) {
          t = tfs_tensor__from_proto(l->tensor[i], st);
        } else {
          tfs_shape scalar = {.rank = 0};
          t = tfs_tensor__alloc(TFS_FLOAT, &scalar, st);
        }
        ((tfs_tensor **)v)[i] = t;
        rc = t ? 0 : -1;
        break;
      }
      case TFS_ATTR_FUNC:
        rc = func_from_proto(l->func[i], &((tfs_func_attr *)v)[i], st);
        break;
      default: break;
    }
    /* a half-made element is counted: clearing frees what it holds */
    out->u.list.n = (int)i + 1;
    if (rc) return -1;
  }
  out->u.list.n = (int)n;
  return 0;
oom:
  TFS_OOM(st);
  return -1;
}

static int attrs_from_entries(Tensorflow__NameAttrList__AttrEntry **e,
                              size_t n, tfs_attrs *out, tfs_status *st) {
  for (size_t i = 0; i < n; i++) {
    tfs_attr_value v;
    memset(&v, 0, sizeof v);
    if (!e[i] || !e[i]->value) continue;
    int rc = tfs_attr_value__from_proto(e[i]->value, NULL, &v, st);
    if (rc < 0) {
      tfs_attr_value_clear(&v);
      tfs_status_prependf(st, "attr '%s': ", e[i]->key);
      return -1;
    }
    if (rc == 0 && tfs_attrs_set(out, e[i]->key, &v)) {
      TFS_OOM(st);
      return -1;
    }
  }
  return 0;
}

static int func_from_proto(const Tensorflow__NameAttrList *p,
                           tfs_func_attr *f, tfs_status *st) {
  f->name = tfs_strdup(p && p->name ? p->name : "");
  if (!f->name) goto oom;
  if (!p || p->n_attr == 0) return 0;
  f->attrs = tfs_calloc(1, sizeof(tfs_attrs));
  if (!f->attrs) goto oom;
  tfs_attrs_init(f->attrs);
  return attrs_from_entries(p->attr, p->n_attr, f->attrs, st);
oom:
  TFS_OOM(st);
  return -1;
}

static int scalar_from_proto(const Tensorflow__AttrValue *p,
                             tfs_attr_value *out, tfs_status *st) {
  int rc = 0;
  switch (p->value_case) {
    case TENSORFLOW__ATTR_VALUE__VALUE_S:
      rc = tfs_attr_string(out, (const char *)p->s.data, p->s.len);
      break;
    case TENSORFLOW__ATTR_VALUE__VALUE_I: tfs_attr_int(out, p->i); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_F: tfs_attr_float(out, p->f); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_B: tfs_attr_bool(out, p->b); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE:
      tfs_attr_type_val(out, (tfs_dtype)p->type);
      break;
    case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: {
      tfs_shape s;
      if (tfs_shape__from_proto(p->shape, 1, &s, st)) return -1;
      rc = tfs_attr_shape(out, &s);
      break;
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: {
      tfs_tensor *t = tfs_tensor__from_proto(p->tensor, st);
      if (!t) return -1;
      tfs_attr_tensor(out, t); /* takes its own reference */
      tfs_tensor_free(t);
      break;
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER:
      rc = tfs_attr_placeholder(out, p->placeholder);
      break;
    case TENSORFLOW__ATTR_VALUE__VALUE_FUNC:
      memset(out, 0, sizeof(*out));
      out->type = TFS_ATTR_FUNC;
      out->u.func = tfs_calloc(1, sizeof(tfs_func_attr));
      if (!out->u.func) {
        rc = -1;
        break;
      }
      return func_from_proto(p->func, out->u.func, st);
    default:
      break;
  }
  if (rc) TFS_OOM(st);
  return rc ? -1 : 0;
}

int tfs_attr_value__from_proto(const Tensorflow__AttrValue *p,
                               const tfs_attr_def *def, tfs_attr_value *out,
                               tfs_status *st) {
  memset(out, 0, sizeof(*out));
  if (p->value_case == TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET) {
    if (!def) return 1;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "AttrValue missing value with expected type '%s'",
                    tfs_attr_def__type_string(def));
    return -1;
  }
  if (p->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST)
    return scalar_from_proto(p, out, st);
  static const Tensorflow__AttrValue__ListValue empty =
      TENSORFLOW__ATTR_VALUE__LIST_VALUE__INIT;
  const Tensorflow__AttrValue__ListValue *l = p->list ? p->list : &empty;
  int kind = list_kind(l);
  if (kind == -2) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "AttrValue had a list with values of more than one type");
    return -1;
  }
  if (kind == -1)
    kind = def && def->type != TFS_ATTR_PLACEHOLDER ? def->type
                                                    : TFS_ATTR_STRING;
  return list_elems(l, kind, out, st);
}

/* ---- to protos ----------------------------------------------------------- */

static Tensorflow__NameAttrList *func_to_proto(const tfs_func_attr *f,
                                               tfs_pb_arena *a,
                                               tfs_status *st) {
  Tensorflow__NameAttrList *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) return NULL;
  tensorflow__name_attr_list__init(p);
  p->name = tfs_pb_arena_strdup(a, f->name);
  if (!p->name) return NULL;
  int n = f->attrs ? f->attrs->n : 0;
  if (n == 0) return p;
  p->attr = tfs_pb_arena_array(a, (size_t)n, sizeof(void *));
  Tensorflow__NameAttrList__AttrEntry *e =
      tfs_pb_arena_array(a, (size_t)n, sizeof(*e));
  if (!p->attr || !e) return NULL;
  for (int i = 0; i < n; i++) {
    tensorflow__name_attr_list__attr_entry__init(&e[i]);
    e[i].key = f->attrs->e[i].name;
    e[i].value = tfs_attr_value__to_proto(&f->attrs->e[i].value, a, st);
    if (!e[i].value) return NULL;
    p->attr[i] = &e[i];
  }
  p->n_attr = (size_t)n;
  return p;
}

static int list_to_proto(const tfs_attr_value *v,
                         Tensorflow__AttrValue__ListValue *l,
                         tfs_pb_arena *a, tfs_status *st) {
  size_t n = (size_t)v->u.list.n;
  const void *src = v->u.list.v;
  if (n == 0) return 0;
#define ARR(field, T)                                                       \
  do {                                                                      \
    l->field = tfs_pb_arena_array(a, n, sizeof(T));                         \
    if (!l->field) return -1;                                               \
    l->n_##field = n;                                                       \
  } while (0)
  switch (v->type) {
    case TFS_ATTR_STRING:
      ARR(s, ProtobufCBinaryData);
      for (size_t i = 0; i < n; i++) {
        l->s[i].data = (uint8_t *)((const tfs_bytes *)src)[i].ptr;
        l->s[i].len = ((const tfs_bytes *)src)[i].len;
      }
      break;
    case TFS_ATTR_INT:
      ARR(i, int64_t);
      memcpy(l->i, src, n * sizeof(int64_t));
      break;
    case TFS_ATTR_FLOAT:
      ARR(f, float);
      memcpy(l->f, src, n * sizeof(float));
      break;
    case TFS_ATTR_BOOL:
      ARR(b, protobuf_c_boolean);
      for (size_t i = 0; i < n; i++) l->b[i] = ((const uint8_t *)src)[i];
      break;
    case TFS_ATTR_TYPE:
      ARR(type, Tensorflow__DataType);
      for (size_t i = 0; i < n; i++)
        l->type[i] = (Tensorflow__DataType)((const tfs_dtype *)src)[i];
      break;
    case TFS_ATTR_SHAPE:
      ARR(shape, void *);
      for (size_t i = 0; i < n; i++)
        if (!(l->shape[i] =
                  tfs_shape__to_proto(&((const tfs_shape *)src)[i], a)))
          return -1;
      break;
    case TFS_ATTR_TENSOR:
      ARR(tensor, void *);
      for (size_t i = 0; i < n; i++)
        if (!(l->tensor[i] = tfs_tensor__to_proto(
                  ((tfs_tensor *const *)src)[i], a, st)))
          return -2;
      break;
    case TFS_ATTR_FUNC:
      ARR(func, void *);
      for (size_t i = 0; i < n; i++)
        if (!(l->func[i] =
                  func_to_proto(&((const tfs_func_attr *)src)[i], a, st)))
          return -2;
      break;
    default:
      break;
  }
#undef ARR
  return 0;
}

Tensorflow__AttrValue *tfs_attr_value__to_proto(const tfs_attr_value *v,
                                                tfs_pb_arena *a,
                                                tfs_status *st) {
  Tensorflow__AttrValue *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) goto oom;
  tensorflow__attr_value__init(p);
  if (v->is_list) {
    p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    p->list = tfs_pb_arena_alloc(a, sizeof(*p->list));
    if (!p->list) goto oom;
    tensorflow__attr_value__list_value__init(p->list);
    int rc = list_to_proto(v, p->list, a, st);
    if (rc == -2) return NULL;
    if (rc) goto oom;
    return p;
  }
  switch (v->type) {
    case TFS_ATTR_STRING:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
      p->s.data = (uint8_t *)v->u.s.ptr;
      p->s.len = v->u.s.len;
      break;
    case TFS_ATTR_INT:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
      p->i = v->u.i;
      break;
    case TFS_ATTR_FLOAT:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
      p->f = v->u.f;
      break;
    case TFS_ATTR_BOOL:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
      p->b = v->u.b;
      break;
    case TFS_ATTR_TYPE:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
      p->type = (Tensorflow__DataType)v->u.type;
      break;
    case TFS_ATTR_SHAPE:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
      if (!(p->shape = tfs_shape__to_proto(v->u.shape, a))) goto oom;
      break;
    case TFS_ATTR_TENSOR:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
      if (!(p->tensor = tfs_tensor__to_proto(v->u.tensor, a, st)))
        return NULL;
      break;
    case TFS_ATTR_PLACEHOLDER:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;
      p->placeholder = v->u.placeholder;
      break;
    case TFS_ATTR_FUNC:
      p->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
      if (!(p->func = func_to_proto(v->u.func, a, st))) {
        if (a->oom) goto oom;
        return NULL;
      }
      break;
    default:
      break;
  }
  return p;
oom:
  TFS_OOM(st);
  return NULL;
}

/* ---- serialized forms ---------------------------------------------------- */

int tfs_attr_value__parse(const void *data, size_t len,
                          const tfs_attr_def *def, tfs_attr_value *out,
                          tfs_status *st) {
  int oom;
  memset(out, 0, sizeof(*out));
  ProtobufCMessage *m =
      tfs_pb__unpack(&tensorflow__attr_value__descriptor, data, len, &oom);
  if (!m) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT, "Unparseable AttrValue proto");
    return -1;
  }
  int rc = tfs_attr_value__from_proto((Tensorflow__AttrValue *)m, def, out,
                                      st);
  tfs_pb__free(m);
  if (rc == 1) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "AttrValue has no value");
    return -1;
  }
  if (rc) {
    tfs_attr_value_clear(out);
    return -1;
  }
  tfs_status_clear(st);
  return 0;
}

int tfs_attr_value__serialize(const tfs_attr_value *v, tfs_buffer *out,
                              tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__AttrValue *p = tfs_attr_value__to_proto(v, &a, st);
  int rc = p ? tfs_pb__pack(&p->base, out, st) : -1;
  tfs_pb_arena_free(&a);
  return rc;
}

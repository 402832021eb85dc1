/*
 * ops/op_def_parse.c - parses op specs written in TensorFlow's signature
 * notation into tfs_op_def, and renders TensorFlow's SummarizeOpDef text.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "ops/op_def.h"

typedef struct {
  const char *p, *end;
  const char *what; /* for messages */
  const char *op;
  tfs_status *st;
  int failed;
} cursor;

static void fail(cursor *c, const char *msg) {
  if (c->failed) return;
  c->failed = 1;
  tfs_status_setf(c->st, TFS_INVALID_ARGUMENT,
                  "Bad op spec for '%s' (%s): %s at '%.*s'", c->op, c->what,
                  msg, (int)(c->end - c->p), c->p);
}

static void skip_ws(cursor *c) {
  while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

static int accept(cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return 1;
  }
  return 0;
}

static int accept_word(cursor *c, const char *w) {
  skip_ws(c);
  size_t n = strlen(w);
  if ((size_t)(c->end - c->p) >= n && strncmp(c->p, w, n) == 0 &&
      (c->p + n == c->end || !(isalnum((unsigned char)c->p[n]) ||
                               c->p[n] == '_'))) {
    c->p += n;
    return 1;
  }
  return 0;
}

/* Identifier into a malloc'd string. */
static char *ident(cursor *c) {
  skip_ws(c);
  const char *s = c->p;
  while (c->p < c->end &&
         (isalnum((unsigned char)*c->p) || *c->p == '_'))
    c->p++;
  if (c->p == s) {
    fail(c, "expected a name");
    return NULL;
  }
  char *r = tfs_strndup(s, (size_t)(c->p - s));
  if (!r) fail(c, "out of memory");
  return r;
}

/* Splits `s` at top-level ';' into pieces; calls fn on each. */
typedef int (*piece_fn)(cursor *c, void *arg);
static int for_each_piece(const char *s, const char *what, const char *op,
                          tfs_status *st, piece_fn fn, void *arg) {
  if (!s) return 0;
  const char *p = s;
  while (*p) {
    const char *q = p;
    int depth = 0;
    while (*q && !(*q == ';' && depth == 0)) {
      if (*q == '(' || *q == '{' || *q == '[') depth++;
      if (*q == ')' || *q == '}' || *q == ']') depth--;
      q++;
    }
    cursor c = {p, q, what, op, st, 0};
    skip_ws(&c);
    if (c.p < c.end) {
      if (fn(&c, arg) || c.failed) return -1;
      skip_ws(&c);
      if (c.p != c.end) {
        fail(&c, "unexpected text");
        return -1;
      }
    }
    p = *q ? q + 1 : q;
  }
  return 0;
}

/* ---- type sets ---------------------------------------------------------- */

static const tfs_dtype kNumber[] = {
    TFS_FLOAT,  TFS_DOUBLE,  TFS_INT32,   TFS_UINT8,    TFS_INT16,
    TFS_INT8,   TFS_COMPLEX64, TFS_INT64, TFS_QINT8,    TFS_QUINT8,
    TFS_QINT32, TFS_BFLOAT16, TFS_QINT16, TFS_QUINT16,  TFS_UINT16,
    TFS_COMPLEX128, TFS_HALF, TFS_UINT32, TFS_UINT64};
static const tfs_dtype kRealNumber[] = {
    TFS_FLOAT, TFS_DOUBLE,   TFS_INT32,  TFS_UINT8, TFS_INT16, TFS_INT8,
    TFS_INT64, TFS_BFLOAT16, TFS_UINT16, TFS_HALF,  TFS_UINT32, TFS_UINT64};
static const tfs_dtype kFloatingPoint[] = {TFS_HALF, TFS_BFLOAT16, TFS_FLOAT,
                                           TFS_DOUBLE};

typedef struct {
  int n, cap;
  tfs_dtype *v;
} dtype_vec;

static int parse_dtype_name(cursor *c, tfs_dtype *out) {
  char *nm = ident(c);
  if (!nm) return -1;
  tfs_dtype dt = tfs_dtype_from_name(nm);
  tfs_free(nm);
  if (dt == TFS_INVALID) {
    fail(c, "unknown dtype");
    return -1;
  }
  *out = dt;
  return 0;
}

/* ---- attr values ----------------------------------------------------- */

static int parse_scalar_value(cursor *c, uint8_t type, tfs_attr_value *v) {
  skip_ws(c);
  switch (type) {
    case TFS_ATTR_STRING: {
      if (!accept(c, '\'')) {
        fail(c, "expected a quoted string");
        return -1;
      }
      const char *s = c->p;
      while (c->p < c->end && *c->p != '\'') c->p++;
      if (c->p >= c->end) {
        fail(c, "unterminated string");
        return -1;
      }
      int r = tfs_attr_string(v, s, (size_t)(c->p - s));
      c->p++;
      return r;
    }
    case TFS_ATTR_INT: {
      char *e;
      long long x = strtoll(c->p, &e, 10);
      if (e == c->p) {
        fail(c, "expected an integer");
        return -1;
      }
      c->p = e;
      tfs_attr_int(v, x);
      return 0;
    }
    case TFS_ATTR_FLOAT: {
      char *e;
      float x = strtof(c->p, &e);
      if (e == c->p) {
        fail(c, "expected a float");
        return -1;
      }
      c->p = e;
      tfs_attr_float(v, x);
      return 0;
    }
    case TFS_ATTR_BOOL:
      if (accept_word(c, "true")) {
        tfs_attr_bool(v, 1);
        return 0;
      }
      if (accept_word(c, "false")) {
        tfs_attr_bool(v, 0);
        return 0;
      }
      fail(c, "expected true or false");
      return -1;
    case TFS_ATTR_TYPE: {
      tfs_dtype dt;
      if (parse_dtype_name(c, &dt)) return -1;
      tfs_attr_type_val(v, dt);
      return 0;
    }
    case TFS_ATTR_SHAPE: {
      tfs_shape s;
      if (accept(c, '<')) {
        if (!accept_word(c, "unknown") || !accept(c, '>')) {
          fail(c, "expected <unknown>");
          return -1;
        }
        s.rank = -1;
      } else {
        if (!accept(c, '[')) {
          fail(c, "expected a shape");
          return -1;
        }
        s.rank = 0;
        while (!accept(c, ']')) {
          if (s.rank && !accept(c, ',')) {
            fail(c, "expected ','");
            return -1;
          }
          skip_ws(c);
          if (accept(c, '?')) {
            s.dims[s.rank++] = -1;
            continue;
          }
          char *e;
          long long d = strtoll(c->p, &e, 10);
          if (e == c->p || s.rank >= TFS_MAX_RANK) {
            fail(c, "bad dim");
            return -1;
          }
          c->p = e;
          s.dims[s.rank++] = d;
        }
      }
      return tfs_attr_shape(v, &s);
    }
    default:
      fail(c, "defaults of this attr kind are not supported in specs");
      return -1;
  }
}

static int parse_value(cursor *c, uint8_t type, int is_list,
                       tfs_attr_value *v) {
  if (!is_list) return parse_scalar_value(c, type, v);
  if (!accept(c, '[')) {
    fail(c, "expected a list");
    return -1;
  }
  tfs_attr_value acc;
  if (tfs_attr_list(&acc, (tfs_attr_type)type, 0, NULL)) return -1;
  while (!accept(c, ']')) {
    if (acc.u.list.n && !accept(c, ',')) {
      fail(c, "expected ','");
      tfs_attr_value_clear(&acc);
      return -1;
    }
    tfs_attr_value one;
    if (parse_scalar_value(c, type, &one)) {
      tfs_attr_value_clear(&acc);
      return -1;
    }
    /* append: rebuild the list with one more element */
    int n = acc.u.list.n;
    tfs_attr_value grown;
    const void *item;
    switch (type) {
      case TFS_ATTR_STRING: item = &one.u.s; break;
      case TFS_ATTR_INT: item = &one.u.i; break;
      case TFS_ATTR_FLOAT: item = &one.u.f; break;
      case TFS_ATTR_BOOL: item = &one.u.b; break;
      case TFS_ATTR_TYPE: item = &one.u.type; break;
      case TFS_ATTR_SHAPE: item = one.u.shape; break;
      default: item = NULL;
    }
    size_t es = type == TFS_ATTR_STRING  ? sizeof(tfs_bytes)
                : type == TFS_ATTR_INT   ? sizeof(int64_t)
                : type == TFS_ATTR_FLOAT ? sizeof(float)
                : type == TFS_ATTR_BOOL  ? 1
                : type == TFS_ATTR_TYPE  ? sizeof(tfs_dtype)
                                         : sizeof(tfs_shape);
    char *tmp = tfs_malloc(es * (size_t)(n + 1));
    if (!tmp || !item) {
      tfs_free(tmp);
      tfs_attr_value_clear(&one);
      tfs_attr_value_clear(&acc);
      fail(c, "out of memory");
      return -1;
    }
    if (n) memcpy(tmp, acc.u.list.v, es * (size_t)n);
    memcpy(tmp + es * (size_t)n, item, es);
    int r = tfs_attr_list(&grown, (tfs_attr_type)type, n + 1, tmp);
    tfs_free(tmp);
    tfs_attr_value_clear(&one);
    tfs_attr_value_clear(&acc);
    if (r) {
      fail(c, "out of memory");
      return -1;
    }
    acc = grown;
  }
  *v = acc;
  return 0;
}

/* ---- attrs ------------------------------------------------------------ */

typedef struct {
  tfs_op_def *op;
  int cap;
} attr_acc;

static int kind_from_word(cursor *c, uint8_t *type) {
  static const struct {
    const char *w;
    uint8_t t;
  } kinds[] = {{"string", TFS_ATTR_STRING}, {"int", TFS_ATTR_INT},
               {"float", TFS_ATTR_FLOAT},   {"bool", TFS_ATTR_BOOL},
               {"type", TFS_ATTR_TYPE},     {"shape", TFS_ATTR_SHAPE},
               {"tensor", TFS_ATTR_TENSOR}, {"func", TFS_ATTR_FUNC}};
  for (size_t i = 0; i < TFS_ARRAY_LEN(kinds); i++) {
    if (accept_word(c, kinds[i].w)) {
      *type = kinds[i].t;
      return 0;
    }
  }
  return -1;
}

static int set_allowed_types(tfs_attr_def *a, const tfs_dtype *v, int n) {
  return tfs_attr_list(&a->allowed, TFS_ATTR_TYPE, n, v);
}

/* "{float, int32}" or "{'A', 'B'}" */
static int parse_braces(cursor *c, tfs_attr_def *a) {
  skip_ws(c);
  if (c->p < c->end && *c->p == '\'') {
    a->type = TFS_ATTR_STRING;
    tfs_bytes items[64];
    int n = 0;
    do {
      if (!accept(c, '\'')) {
        fail(c, "expected a quoted string");
        return -1;
      }
      const char *s = c->p;
      while (c->p < c->end && *c->p != '\'') c->p++;
      if (c->p >= c->end || n >= 64) {
        fail(c, "bad string set");
        return -1;
      }
      items[n].ptr = (char *)s;
      items[n].len = (size_t)(c->p - s);
      n++;
      c->p++;
    } while (accept(c, ','));
    if (!accept(c, '}')) {
      fail(c, "expected '}'");
      return -1;
    }
    /* tfs_attr_list copies ptr[0..len) */
    return tfs_attr_list(&a->allowed, TFS_ATTR_STRING, n, items);
  }
  a->type = TFS_ATTR_TYPE;
  tfs_dtype v[64];
  int n = 0;
  do {
    if (n >= 64 || parse_dtype_name(c, &v[n])) {
      fail(c, "bad type set");
      return -1;
    }
    n++;
  } while (accept(c, ','));
  if (!accept(c, '}')) {
    fail(c, "expected '}'");
    return -1;
  }
  return set_allowed_types(a, v, n);
}

static int parse_attr_type(cursor *c, tfs_attr_def *a) {
  if (accept_word(c, "list")) {
    a->is_list = 1;
    if (!accept(c, '(')) {
      fail(c, "expected '('");
      return -1;
    }
    if (accept(c, '{')) {
      if (parse_braces(c, a)) return -1;
    } else if (kind_from_word(c, &a->type)) {
      fail(c, "unknown attr kind");
      return -1;
    }
    if (!accept(c, ')')) {
      fail(c, "expected ')'");
      return -1;
    }
    return 0;
  }
  if (accept(c, '{')) return parse_braces(c, a);
  if (accept_word(c, "numbertype")) {
    a->type = TFS_ATTR_TYPE;
    return set_allowed_types(a, kNumber, (int)TFS_ARRAY_LEN(kNumber));
  }
  if (accept_word(c, "realnumbertype")) {
    a->type = TFS_ATTR_TYPE;
    return set_allowed_types(a, kRealNumber, (int)TFS_ARRAY_LEN(kRealNumber));
  }
  if (accept_word(c, "floatingpoint")) {
    a->type = TFS_ATTR_TYPE;
    return set_allowed_types(a, kFloatingPoint,
                             (int)TFS_ARRAY_LEN(kFloatingPoint));
  }
  if (kind_from_word(c, &a->type)) {
    fail(c, "unknown attr kind");
    return -1;
  }
  return 0;
}

static int attr_piece(cursor *c, void *arg) {
  attr_acc *acc = arg;
  tfs_op_def *op = acc->op;
  size_t cap = (size_t)acc->cap;
  if (tfs_grow((void **)&op->attrs, &cap, (size_t)op->nattrs + 1,
               sizeof(tfs_attr_def))) {
    fail(c, "out of memory");
    return -1;
  }
  acc->cap = (int)cap;
  tfs_attr_def *a = &op->attrs[op->nattrs];
  memset(a, 0, sizeof(*a));
  op->nattrs++;
  a->name = ident(c);
  if (!a->name) return -1;
  if (!accept(c, ':')) {
    fail(c, "expected ':'");
    return -1;
  }
  if (parse_attr_type(c, a)) return -1;
  if (accept(c, '>')) {
    if (!accept(c, '=')) {
      fail(c, "expected '>='");
      return -1;
    }
    skip_ws(c);
    char *e;
    a->min = strtoll(c->p, &e, 10);
    if (e == c->p) {
      fail(c, "expected a minimum");
      return -1;
    }
    c->p = e;
    a->has_min = 1;
  }
  if (accept(c, '=')) {
    if (parse_value(c, a->type, a->is_list, &a->def)) return -1;
    a->has_default = 1;
  }
  return 0;
}

/* ---- args ------------------------------------------------------------- */

typedef struct {
  tfs_op_def *op;
  int is_output;
  int cap;
} arg_acc;

static int arg_piece(cursor *c, void *arg) {
  arg_acc *acc = arg;
  tfs_arg_def **arr = acc->is_output ? &acc->op->outputs : &acc->op->inputs;
  int *n = acc->is_output ? &acc->op->noutputs : &acc->op->ninputs;
  size_t cap = (size_t)acc->cap;
  if (tfs_grow((void **)arr, &cap, (size_t)*n + 1, sizeof(tfs_arg_def))) {
    fail(c, "out of memory");
    return -1;
  }
  acc->cap = (int)cap;
  tfs_arg_def *a = &(*arr)[*n];
  memset(a, 0, sizeof(*a));
  (*n)++;
  a->name = ident(c);
  if (!a->name) return -1;
  if (!accept(c, ':')) {
    fail(c, "expected ':'");
    return -1;
  }
  if (accept_word(c, "Ref")) {
    a->is_ref = 1;
    if (!accept(c, '(')) {
      fail(c, "expected '('");
      return -1;
    }
  }
  char *first = ident(c);
  if (!first) return -1;
  if (accept(c, '*')) {
    a->number_attr = first;
    first = ident(c);
    if (!first) return -1;
  }
  if (a->is_ref && !accept(c, ')')) {
    tfs_free(first);
    fail(c, "expected ')'");
    return -1;
  }
  /* `first` is a type attr, a list(type) attr, or a dtype name. */
  const tfs_attr_def *ad = tfs_op_def_attr(acc->op, first);
  if (ad && ad->type == TFS_ATTR_TYPE && !ad->is_list) {
    a->type_attr = first;
  } else if (ad && ad->type == TFS_ATTR_TYPE && ad->is_list) {
    a->type_list_attr = first;
  } else {
    a->type = tfs_dtype_from_name(first);
    tfs_free(first);
    if (a->type == TFS_INVALID) {
      fail(c, "argument type is neither a type attr nor a dtype");
      return -1;
    }
  }
  if (a->number_attr) {
    const tfs_attr_def *na = tfs_op_def_attr(acc->op, a->number_attr);
    if (!na || na->type != TFS_ATTR_INT || na->is_list) {
      fail(c, "number attr must be an int attr");
      return -1;
    }
  }
  return 0;
}

/* ---- summary ------------------------------------------------------------ */

static void summarize_arg(tfs_strbuf *b, const tfs_arg_def *a) {
  tfs_strbuf_printf(b, "%s:", a->name);
  if (a->is_ref) tfs_strbuf_puts(b, "Ref(");
  if (a->number_attr) tfs_strbuf_printf(b, "%s*", a->number_attr);
  if (a->type_attr)
    tfs_strbuf_puts(b, a->type_attr);
  else if (a->type_list_attr)
    tfs_strbuf_puts(b, a->type_list_attr);
  else
    tfs_strbuf_puts(b, tfs_dtype_name(a->type));
  if (a->is_ref) tfs_strbuf_puts(b, ")");
}

static char *summarize(const tfs_op_def *op) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "Op<name=%s; signature=", op->name);
  for (int i = 0; i < op->ninputs; i++) {
    if (i) tfs_strbuf_puts(&b, ", ");
    summarize_arg(&b, &op->inputs[i]);
  }
  tfs_strbuf_puts(&b, " -> ");
  for (int i = 0; i < op->noutputs; i++) {
    if (i) tfs_strbuf_puts(&b, ", ");
    summarize_arg(&b, &op->outputs[i]);
  }
  for (int i = 0; i < op->nattrs; i++) {
    const tfs_attr_def *a = &op->attrs[i];
    tfs_attr_value probe;
    memset(&probe, 0, sizeof probe);
    probe.type = a->type;
    probe.is_list = a->is_list;
    tfs_strbuf_printf(&b, "; attr=%s:%s", a->name,
                      tfs_attr_type_string(&probe));
    if (a->has_default) {
      tfs_strbuf_puts(&b, ",default=");
      tfs_attr_value_summary(&b, &a->def);
    }
    if (a->has_min) tfs_strbuf_printf(&b, ",min=%lld", (long long)a->min);
    if (a->allowed.u.list.n) {
      tfs_strbuf_puts(&b, ",allowed=");
      tfs_attr_value_summary(&b, &a->allowed);
    }
  }
  if (op->flags & TFS_OP_COMMUTATIVE) tfs_strbuf_puts(&b, "; is_commutative=true");
  if (op->flags & TFS_OP_AGGREGATE) tfs_strbuf_puts(&b, "; is_aggregate=true");
  if (op->flags & TFS_OP_STATEFUL) tfs_strbuf_puts(&b, "; is_stateful=true");
  if (op->flags & TFS_OP_ALLOWS_UNINIT)
    tfs_strbuf_puts(&b, "; allows_uninitialized_input=true");
  tfs_strbuf_puts(&b, ">");
  return tfs_strbuf_take(&b);
}

/* ---- entry points ------------------------------------------------------- */

int tfs_op_def_parse(const tfs_op_spec *spec, tfs_op_def *out,
                     tfs_status *st) {
  memset(out, 0, sizeof(*out));
  out->name = tfs_strdup(spec->name);
  out->shape_fn = spec->shape_fn;
  out->flags = spec->flags;
  if (!out->name) goto oom;
  attr_acc aa = {out, 0};
  if (for_each_piece(spec->attrs, "attrs", spec->name, st, attr_piece, &aa))
    goto fail;
  arg_acc ia = {out, 0, 0};
  if (for_each_piece(spec->inputs, "inputs", spec->name, st, arg_piece, &ia))
    goto fail;
  arg_acc oa = {out, 1, 0};
  if (for_each_piece(spec->outputs, "outputs", spec->name, st, arg_piece,
                     &oa))
    goto fail;
  out->summary = summarize(out);
  if (!out->summary) goto oom;
  return 0;
oom:
  TFS_OOM(st);
fail:
  tfs_op_def_clear(out);
  return -1;
}

static void clear_args(tfs_arg_def *a, int n) {
  for (int i = 0; i < n; i++) {
    tfs_free(a[i].name);
    tfs_free(a[i].type_attr);
    tfs_free(a[i].number_attr);
    tfs_free(a[i].type_list_attr);
  }
  tfs_free(a);
}

void tfs_op_def_clear(tfs_op_def *op) {
  tfs_free(op->name);
  clear_args(op->inputs, op->ninputs);
  clear_args(op->outputs, op->noutputs);
  for (int i = 0; i < op->nattrs; i++) {
    tfs_free(op->attrs[i].name);
    tfs_attr_value_clear(&op->attrs[i].def);
    tfs_attr_value_clear(&op->attrs[i].allowed);
  }
  tfs_free(op->attrs);
  tfs_free(op->summary);
  memset(op, 0, sizeof(*op));
}

const tfs_attr_def *tfs_op_def_attr(const tfs_op_def *op, const char *name) {
  for (int i = 0; i < op->nattrs; i++)
    if (op->attrs[i].name && strcmp(op->attrs[i].name, name) == 0)
      return &op->attrs[i];
  return NULL;
}

int tfs_op_def_input_index(const tfs_op_def *op, const char *name) {
  for (int i = 0; i < op->ninputs; i++)
    if (strcmp(op->inputs[i].name, name) == 0) return i;
  return -1;
}

int tfs_op_def_output_index(const tfs_op_def *op, const char *name) {
  for (int i = 0; i < op->noutputs; i++)
    if (strcmp(op->outputs[i].name, name) == 0) return i;
  return -1;
}

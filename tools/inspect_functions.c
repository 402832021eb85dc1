/*
 * tools/inspect_functions.c - the "Concrete Functions:" section that
 * `tfsess inspect DIR` prints for a TF2 export, as saved_model_cli show
 * --all prints it: the functions attached to the root object of the
 * SavedObjectGraph (MetaGraphDef field 7, read here from the MetaGraph's
 * unknown fields), sorted by name, each with the input signatures of its
 * concrete functions written the way Python writes the values.
 *
 * saved_model_cli gets there by loading the model in Python; when such a
 * load would fail (several MetaGraphs, an object graph that does not
 * parse, a signature Python cannot decode, a function missing from the
 * library, a cycle between library functions) it prints "N/A (could not
 * be listed due to unknown reasons)", and so does this file.  The order
 * of one function's concrete functions is that of their names after a
 * load, "__inference_<name>_<uid>" compared as strings, the uids growing
 * in the order the loader creates the library's functions (a topological
 * sort of their calls), which is repeated here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config_proto/pb_util.h"
#include "core/hashmap.h"
#include "core/strbuf.h"
#include "proto/saved_model.pb-c.h"
#include "proto/saved_object_graph.pb-c.h"

typedef Tensorflow__StructuredValue sval;
typedef Tensorflow__SavedObjectGraph object_graph;

/* MetaGraphDef.object_graph_def, which the MetaGraphDef schema leaves
 * unknown. */
#define OBJECT_GRAPH_FIELD 7
/* The object graph sits two messages deep in saved_model.pb. */
#define OBJECT_GRAPH_DEPTH (TFS_PB_MAX_DEPTH - 2)
/* Bound on the printer's recursion (the parse depth bounds it already). */
#define MAX_VALUE_DEPTH 64

#define K(x) TENSORFLOW__STRUCTURED_VALUE__KIND_##x

enum { V_OK = 0, V_INVALID = 1, V_UNSUPPORTED = 2 };

/* ---- Python's names and str() / repr() of decoded values ---------------- */

static const char *const kDtypeNames[] = {
    NULL,          "float32",          "float64",         "int32",
    "uint8",       "int16",            "int8",            "string",
    "complex64",   "int64",            "bool",            "qint8",
    "quint8",      "qint32",           "bfloat16",        "qint16",
    "quint16",     "uint16",           "complex128",      "float16",
    "resource",    "variant",          "uint32",          "uint64",
    "float8_e5m2", "float8_e4m3fn",    "float8_e4m3fnuz", "float8_e4m3b11fnuz",
    "float8_e5m2fnuz", "int4",         "uint4",           "int2",
    "uint2",       "float4_e2m1fn"};
#define N_DTYPES ((int)(sizeof kDtypeNames / sizeof kDtypeNames[0]))

/* tf.DType's name ("float32", "int32_ref"); 0 when Python refuses the
 * value. */
static int dtype_name(int dt, char *buf, size_t cap) {
  int ref = dt > 100, base = ref ? dt - 100 : dt;
  if (base <= 0 || base >= N_DTYPES) return 0;
  snprintf(buf, cap, "%s%s", kDtypeNames[base], ref ? "_ref" : "");
  return 1;
}

/* Decodes one UTF-8 code point at *p (advancing it); -1 for a bad byte,
 * which then counts as one byte. */
static long utf8_next(const unsigned char **p) {
  const unsigned char *s = *p;
  int n = s[0] < 0x80 ? 0 : s[0] >= 0xc2 && s[0] < 0xe0 ? 1
                        : s[0] >= 0xe0 && s[0] < 0xf0 ? 2
                        : s[0] >= 0xf0 && s[0] < 0xf5 ? 3 : -1;
  if (n < 0) {
    (*p)++;
    return -1;
  }
  long c = n == 0 ? s[0] : s[0] & (0x3f >> n);
  for (int i = 1; i <= n; i++) {
    if ((s[i] & 0xc0) != 0x80) {
      (*p)++;
      return -1;
    }
    c = (c << 6) | (s[i] & 0x3f);
  }
  *p += n + 1;
  return c;
}

/* Python's str.isprintable() for a code point past ASCII, approximately:
 * the C1 controls, the no-break and other separators, format characters
 * and private use are not. */
static int py_printable(long c) {
  return !((c >= 0x80 && c <= 0xa0) || c == 0xad ||
           (c >= 0x600 && c <= 0x605) || c == 0x61c || c == 0x6dd ||
           c == 0x70f || c == 0x1680 || c == 0x180e ||
           (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
           (c >= 0x205f && c <= 0x206f) || c == 0x3000 ||
           (c >= 0xd800 && c <= 0xf8ff) || c == 0xfeff ||
           (c >= 0xfff9 && c <= 0xfffb) || c == 0xfffe || c == 0xffff ||
           c >= 0xf0000);
}

/* repr() of a str. */
static void put_str_repr(tfs_strbuf *b, const char *s) {
  char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
  tfs_strbuf_putc(b, q);
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    const unsigned char *start = p;
    long c = utf8_next(&p);
    if (c < 0)
      tfs_strbuf_printf(b, "\\x%02x", *start);
    else if (c == q || c == '\\')
      tfs_strbuf_printf(b, "\\%c", (char)c);
    else if (c == '\n')
      tfs_strbuf_puts(b, "\\n");
    else if (c == '\r')
      tfs_strbuf_puts(b, "\\r");
    else if (c == '\t')
      tfs_strbuf_puts(b, "\\t");
    else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !py_printable(c)))
      tfs_strbuf_printf(b, c < 0x100 ? "\\x%02lx" : c < 0x10000 ? "\\u%04lx"
                                                               : "\\U%08lx",
                        c);
    else
      tfs_strbuf_append(b, (const char *)start, (size_t)(p - start));
  }
  tfs_strbuf_putc(b, q);
}

/* repr() of a float: the shortest digits that read back, fixed notation
 * for decimal exponents -4..15, else "1e+16" style. */
static void put_float_repr(tfs_strbuf *b, double v) {
  if (isnan(v)) {
    tfs_strbuf_puts(b, "nan");
    return;
  }
  if (isinf(v)) {
    tfs_strbuf_puts(b, v < 0 ? "-inf" : "inf");
    return;
  }
  char buf[64];
  for (int prec = 0; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  char digits[32];
  size_t nd = 0;
  const char *p = buf;
  if (*p == '-') {
    tfs_strbuf_putc(b, '-');
    p++;
  }
  for (; *p && *p != 'e'; p++)
    if (*p != '.' && nd < sizeof digits - 1) digits[nd++] = *p;
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  int exp10 = *p == 'e' ? atoi(p + 1) : 0, decpt = exp10 + 1;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      tfs_strbuf_puts(b, "0.");
      for (int i = 0; i < -decpt; i++) tfs_strbuf_putc(b, '0');
      tfs_strbuf_puts(b, digits);
    } else if ((size_t)decpt >= nd) {
      tfs_strbuf_puts(b, digits);
      for (size_t i = nd; i < (size_t)decpt; i++) tfs_strbuf_putc(b, '0');
      tfs_strbuf_puts(b, ".0");
    } else {
      tfs_strbuf_printf(b, "%.*s.%s", decpt, digits, digits + decpt);
    }
  } else {
    tfs_strbuf_putc(b, digits[0]);
    if (nd > 1) tfs_strbuf_printf(b, ".%s", digits + 1);
    tfs_strbuf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
  }
}

/* str() (repr 0) or repr() (repr 1) of a TensorShape. */
static void put_shape(tfs_strbuf *b, const Tensorflow__TensorShapeProto *s,
                      int repr) {
  if (s && s->unknown_rank) {
    tfs_strbuf_puts(b, repr ? "TensorShape(None)" : "<unknown>");
    return;
  }
  size_t n = s ? s->n_dim : 0;
  tfs_strbuf_puts(b, repr ? "TensorShape([" : "(");
  for (size_t i = 0; i < n; i++) {
    if (i) tfs_strbuf_puts(b, ", ");
    if (s->dim[i]->size < 0)
      tfs_strbuf_puts(b, "None");
    else
      tfs_strbuf_printf(b, "%lld", (long long)s->dim[i]->size);
  }
  tfs_strbuf_puts(b, repr ? "])" : n == 1 ? ",)" : ")");
}

static void put_tensor_spec(tfs_strbuf *b,
                            const Tensorflow__TensorSpecProto *t) {
  char dt[40] = "";
  dtype_name(t->dtype, dt, sizeof dt);
  tfs_strbuf_puts(b, "TensorSpec(shape=");
  put_shape(b, t->shape, 0);
  tfs_strbuf_printf(b, ", dtype=tf.%s, name=", dt);
  if (t->name[0])
    put_str_repr(b, t->name);
  else
    tfs_strbuf_puts(b, "None");
  tfs_strbuf_putc(b, ')');
}

static int put_value(tfs_strbuf *b, const sval *v, int repr, int depth);

/* The values of a list, tuple or named tuple, comma-separated as repr()
 * writes them ("k=" before each of a named tuple's). */
static int put_items(tfs_strbuf *b, const sval *v, int depth) {
  int rc = V_OK;
  if (v->kind_case == K(NAMED_TUPLE_VALUE)) {
    const Tensorflow__NamedTupleValue *t = v->named_tuple_value;
    for (size_t i = 0; rc == V_OK && i < t->n_values; i++) {
      tfs_strbuf_printf(b, "%s%s=", i ? ", " : "", t->values[i]->key);
      rc = put_value(b, t->values[i]->value, 1, depth + 1);
    }
    return rc;
  }
  size_t n = v->kind_case == K(LIST_VALUE) ? v->list_value->n_values
                                           : v->tuple_value->n_values;
  sval **items = v->kind_case == K(LIST_VALUE) ? v->list_value->values
                                               : v->tuple_value->values;
  for (size_t i = 0; rc == V_OK && i < n; i++) {
    if (i) tfs_strbuf_puts(b, ", ");
    rc = put_value(b, items[i], 1, depth + 1);
  }
  if (v->kind_case == K(TUPLE_VALUE) && n == 1) tfs_strbuf_putc(b, ',');
  return rc;
}

/* Which entries of a dict Python sees: a key given twice keeps its last
 * value.  A malloc'd flag per entry; NULL when memory runs out. */
static unsigned char *dict_keep(const Tensorflow__DictValue *d) {
  unsigned char *keep = calloc(d->n_fields + 1, 1);
  tfs_map last = TFS_MAP_INIT;
  int failed = !keep;
  for (size_t i = 0; !failed && i < d->n_fields; i++)
    failed = tfs_map_put_str(&last, d->fields[i]->key, (void *)(i + 1));
  for (size_t i = 0; !failed && i < d->n_fields; i++)
    keep[i] = (size_t)tfs_map_get_str(&last, d->fields[i]->key) == i + 1;
  tfs_map_free(&last);
  if (failed) {
    free(keep);
    return NULL;
  }
  return keep;
}

/* str() (repr 0) or repr() (repr 1) of a decoded value; V_UNSUPPORTED for
 * the kinds whose Python text is not reproduced here. */
static int put_value(tfs_strbuf *b, const sval *v, int repr, int depth) {
  if (!v || depth > MAX_VALUE_DEPTH) return V_UNSUPPORTED;
  char dt[40] = "";
  int rc = V_OK;
  switch (v->kind_case) {
    case K(NONE_VALUE): tfs_strbuf_puts(b, "None"); break;
    case K(FLOAT64_VALUE): put_float_repr(b, v->float64_value); break;
    case K(INT64_VALUE):
      tfs_strbuf_printf(b, "%lld", (long long)v->int64_value);
      break;
    case K(BOOL_VALUE):
      tfs_strbuf_puts(b, v->bool_value ? "True" : "False");
      break;
    case K(STRING_VALUE):
      if (repr)
        put_str_repr(b, v->string_value);
      else
        tfs_strbuf_puts(b, v->string_value);
      break;
    case K(TENSOR_SHAPE_VALUE):
      put_shape(b, v->tensor_shape_value, repr);
      break;
    case K(TENSOR_DTYPE_VALUE):
      dtype_name(v->tensor_dtype_value, dt, sizeof dt);
      tfs_strbuf_printf(b, repr ? "tf.%s" : "<dtype: '%s'>", dt);
      break;
    case K(TENSOR_SPEC_VALUE): put_tensor_spec(b, v->tensor_spec_value); break;
    case K(LIST_VALUE):
      tfs_strbuf_putc(b, '[');
      rc = put_items(b, v, depth);
      tfs_strbuf_putc(b, ']');
      break;
    case K(TUPLE_VALUE):
    case K(NAMED_TUPLE_VALUE):
      if (v->kind_case == K(NAMED_TUPLE_VALUE))
        tfs_strbuf_puts(b, v->named_tuple_value->name);
      tfs_strbuf_putc(b, '(');
      rc = put_items(b, v, depth);
      tfs_strbuf_putc(b, ')');
      break;
    case K(DICT_VALUE): {
      const Tensorflow__DictValue *d = v->dict_value;
      unsigned char *keep = dict_keep(d);
      int first = 1;
      if (!keep) return -1;
      tfs_strbuf_putc(b, '{');
      for (size_t i = 0; rc == V_OK && i < d->n_fields; i++) {
        if (!keep[i]) continue;
        if (!first) tfs_strbuf_puts(b, ", ");
        first = 0;
        put_str_repr(b, d->fields[i]->key);
        tfs_strbuf_puts(b, ": ");
        rc = put_value(b, d->fields[i]->value, 1, depth + 1);
      }
      tfs_strbuf_putc(b, '}');
      free(keep);
      break;
    }
    default: rc = V_UNSUPPORTED; /* type specs, bounded specs, tensors */
  }
  return rc;
}

/* type(value).__name__ */
static const char *type_name(const sval *v) {
  switch (v->kind_case) {
    case K(NONE_VALUE): return "NoneType";
    case K(FLOAT64_VALUE): return "float";
    case K(INT64_VALUE): return "int";
    case K(STRING_VALUE): return "str";
    case K(BOOL_VALUE): return "bool";
    case K(TENSOR_SHAPE_VALUE): return "TensorShape";
    case K(TENSOR_DTYPE_VALUE): return "DType";
    case K(TENSOR_SPEC_VALUE): return "TensorSpec";
    case K(LIST_VALUE): return "list";
    case K(TUPLE_VALUE): return "tuple";
    case K(DICT_VALUE): return "dict";
    case K(NAMED_TUPLE_VALUE): return v->named_tuple_value->name;
    default: return NULL;
  }
}

/* ---- what Python's decoder accepts --------------------------------------- */

static int is_py_keyword(const char *s) {
  static const char *const kw[] = {
      "False", "None",   "True",     "and",    "as",     "assert", "async",
      "await", "break",  "class",    "continue", "def",  "del",    "elif",
      "else",  "except", "finally",  "for",    "from",   "global", "if",
      "import", "in",    "is",       "lambda", "nonlocal", "not",  "or",
      "pass",  "raise",  "return",   "try",    "while",  "with",   "yield"};
  for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
    if (strcmp(s, kw[i]) == 0) return 1;
  return 0;
}

/* str.isidentifier() and not a keyword (letters past ASCII are taken as
 * letters). */
static int is_py_name(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  if (!*p || (*p >= '0' && *p <= '9')) return 0;
  for (; *p; p++)
    if (!(*p == '_' || *p >= 0x80 || (*p >= 'a' && *p <= 'z') ||
          (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
      return 0;
  return !is_py_keyword(s);
}

static int check_shape(const Tensorflow__TensorShapeProto *s) {
  if (!s || s->unknown_rank) return V_OK;
  for (size_t i = 0; i < s->n_dim; i++)
    if (s->dim[i]->size < -1) return V_INVALID; /* Dimension(-2) raises */
  return V_OK;
}

/* V_INVALID where nested_structure_coder.decode_proto raises (-1 when
 * memory runs out). */
static int check_value(const sval *v, int depth) {
  if (!v || depth > MAX_VALUE_DEPTH) return V_INVALID;
  char dt[40];
  int rc;
  size_t n = 0;
  sval **items = NULL;
  switch (v->kind_case) {
    case TENSORFLOW__STRUCTURED_VALUE__KIND__NOT_SET: return V_INVALID;
    case K(TENSOR_SHAPE_VALUE): return check_shape(v->tensor_shape_value);
    case K(TENSOR_DTYPE_VALUE):
      return dtype_name(v->tensor_dtype_value, dt, sizeof dt) ? V_OK
                                                              : V_INVALID;
    case K(TENSOR_SPEC_VALUE):
      if (!dtype_name(v->tensor_spec_value->dtype, dt, sizeof dt))
        return V_INVALID;
      return check_shape(v->tensor_spec_value->shape);
    case K(LIST_VALUE):
      n = v->list_value->n_values;
      items = v->list_value->values;
      break;
    case K(TUPLE_VALUE):
      n = v->tuple_value->n_values;
      items = v->tuple_value->values;
      break;
    case K(DICT_VALUE):
      for (size_t i = 0; i < v->dict_value->n_fields; i++)
        if ((rc = check_value(v->dict_value->fields[i]->value, depth + 1)))
          return rc;
      return V_OK;
    case K(NAMED_TUPLE_VALUE): {
      const Tensorflow__NamedTupleValue *t = v->named_tuple_value;
      tfs_map seen = TFS_MAP_INIT;
      int rc = is_py_name(t->name) ? V_OK : V_INVALID;
      for (size_t i = 0; rc == V_OK && i < t->n_values; i++) {
        const char *key = t->values[i]->key;
        if (!is_py_name(key) || key[0] == '_' || tfs_map_get_str(&seen, key))
          rc = V_INVALID; /* namedtuple() refuses the field names */
        else if (tfs_map_put_str(&seen, key, (void *)key))
          rc = -1;
        else
          rc = check_value(t->values[i]->value, depth + 1);
      }
      tfs_map_free(&seen);
      return rc;
    }
    default: return V_OK;
  }
  for (size_t i = 0; i < n; i++)
    if ((rc = check_value(items[i], depth + 1))) return rc;
  return V_OK;
}

/* ---- saved_model_cli's _print_args -------------------------------------- */

/* The elements Python iterates over in `value` (a dict: its keys, as
 * string values made on the fly by the caller). */
static size_t seq_len(const sval *v) {
  switch (v->kind_case) {
    case K(LIST_VALUE): return v->list_value->n_values;
    case K(TUPLE_VALUE): return v->tuple_value->n_values;
    case K(NAMED_TUPLE_VALUE): return v->named_tuple_value->n_values;
    case K(TENSOR_SHAPE_VALUE):
      return v->tensor_shape_value ? v->tensor_shape_value->n_dim : 0;
    default: return 0;
  }
}

static const sval *seq_at(const sval *v, size_t i) {
  switch (v->kind_case) {
    case K(LIST_VALUE): return v->list_value->values[i];
    case K(TUPLE_VALUE): return v->tuple_value->values[i];
    default: return v->named_tuple_value->values[i]->value;
  }
}

/* _maybe_add_quotes: str(value), in single quotes when it is a str. */
static int put_quoted(tfs_strbuf *b, const sval *v) {
  if (v && v->kind_case == K(STRING_VALUE)) {
    tfs_strbuf_printf(b, "'%s'", v->string_value);
    return V_OK;
  }
  return put_value(b, v, 0, 1);
}

/* One argument under "Argument #N" (10 spaces of indent). */
static int print_element(tfs_strbuf *b, const sval *e) {
  const char *in = "          ";
  int rc = V_OK;
  switch (e->kind_case) {
    case K(STRING_VALUE):
      tfs_strbuf_printf(b, "%s%s\n", in, e->string_value);
      return V_OK;
    case K(TENSOR_SPEC_VALUE): {
      const char *name = e->tensor_spec_value->name;
      tfs_strbuf_printf(b, "%s%s: ", in, name[0] ? name : "None");
      put_tensor_spec(b, e->tensor_spec_value);
      tfs_strbuf_putc(b, '\n');
      return V_OK;
    }
    case K(TENSOR_SHAPE_VALUE):
      /* iterating a shape of unknown rank raises */
      if (e->tensor_shape_value && e->tensor_shape_value->unknown_rank)
        return V_UNSUPPORTED;
      /* fall through */
    case K(LIST_VALUE):
    case K(TUPLE_VALUE):
    case K(NAMED_TUPLE_VALUE): {
      tfs_strbuf_printf(b, "%sDType: %s\n%sValue: [", in, type_name(e), in);
      size_t n = seq_len(e);
      for (size_t i = 0; rc == V_OK && i < n; i++) {
        if (e->kind_case == K(TENSOR_SHAPE_VALUE)) {
          int64_t d = e->tensor_shape_value->dim[i]->size;
          if (d < 0)
            tfs_strbuf_puts(b, "None");
          else
            tfs_strbuf_printf(b, "%lld", (long long)d);
        } else {
          rc = put_quoted(b, seq_at(e, i));
        }
        tfs_strbuf_puts(b, ", ");
      }
      tfs_strbuf_puts(b, "\b\b]\n");
      return rc;
    }
    case K(DICT_VALUE): {
      const Tensorflow__DictValue *d = e->dict_value;
      unsigned char *keep = dict_keep(d);
      if (!keep) return -1;
      tfs_strbuf_printf(b, "%sDType: dict\n%sValue: {", in, in);
      for (size_t i = 0; rc == V_OK && i < d->n_fields; i++) {
        if (!keep[i]) continue;
        tfs_strbuf_printf(b, "'%s': ", d->fields[i]->key);
        rc = put_quoted(b, d->fields[i]->value);
        tfs_strbuf_puts(b, ", ");
      }
      tfs_strbuf_puts(b, "\b\b}\n");
      free(keep);
      return rc;
    }
    default:
      if (!type_name(e)) return V_UNSUPPORTED;
      tfs_strbuf_printf(b, "%sDType: %s\n%sValue: ", in, type_name(e), in);
      rc = put_value(b, e, 0, 1);
      tfs_strbuf_putc(b, '\n');
      return rc;
  }
}

/* _print_args(arguments, argument_type, indent=4) over a decoded
 * sequence or dict. */
static int print_args(tfs_strbuf *b, const sval *args, const char *what) {
  int rc = V_OK;
  if (args->kind_case == K(DICT_VALUE)) {
    const Tensorflow__DictValue *d = args->dict_value;
    unsigned char *keep = dict_keep(d);
    size_t k = 0;
    if (!keep) return -1;
    for (size_t i = 0; i < d->n_fields; i++)
      if (keep[i])
        tfs_strbuf_printf(b, "        %s #%zu\n          %s\n", what, ++k,
                          d->fields[i]->key);
    free(keep);
    return V_OK;
  }
  if (args->kind_case == K(TENSOR_SHAPE_VALUE)) return V_UNSUPPORTED;
  size_t n = seq_len(args);
  for (size_t i = 0; rc == V_OK && i < n; i++) {
    tfs_strbuf_printf(b, "        %s #%zu\n", what, i + 1);
    rc = print_element(b, seq_at(args, i));
  }
  return rc;
}

/* Python's truth value of args or kwargs: 1, 0, or -1 where what follows
 * in saved_model_cli is not reproduced (a non-empty str, a spec). */
static int truth(const sval *v) {
  switch (v->kind_case) {
    case K(NONE_VALUE): return 0;
    case K(BOOL_VALUE): return v->bool_value;
    case K(INT64_VALUE): return v->int64_value != 0;
    case K(FLOAT64_VALUE): return v->float64_value != 0;
    case K(STRING_VALUE): return v->string_value[0] ? -1 : 0;
    case K(DICT_VALUE): return v->dict_value->n_fields != 0;
    case K(LIST_VALUE):
    case K(TUPLE_VALUE):
    case K(NAMED_TUPLE_VALUE): return seq_len(v) != 0;
    default: return -1;
  }
}

/* One "Option #N": args, kwargs = the canonicalized input signature. */
static int print_option(tfs_strbuf *b, size_t index, const sval *sig) {
  if (!(sig->kind_case == K(TUPLE_VALUE) || sig->kind_case == K(LIST_VALUE) ||
        sig->kind_case == K(NAMED_TUPLE_VALUE)) ||
      seq_len(sig) != 2)
    return V_UNSUPPORTED;
  const sval *args = seq_at(sig, 0), *kwargs = seq_at(sig, 1);
  int ta = truth(args), tk = truth(kwargs), rc = V_OK;
  if (ta < 0 || tk < 0) return V_UNSUPPORTED;
  if (ta) {
    tfs_strbuf_printf(b, "    Option #%zu\n      Callable with:\n", index);
    rc = print_args(b, args, "Argument");
  }
  if (rc == V_OK && tk) rc = print_args(b, kwargs, "Named Argument");
  return rc;
}

/* ---- the loader's naming of concrete functions ------------------------- */

typedef struct load_order {
  tfs_map pos; /* library function name -> 1 + creation index */
  tfs_map cfs; /* name -> its SavedConcreteFunction (a map keeps the last) */
} load_order;

static int add_dep(tfs_map *deps, const char ***list, size_t *n, size_t *cap,
                   const char *name) {
  if (tfs_map_get_str(deps, name)) return 0;
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 8;
    const char **l = realloc(*list, c * sizeof *l);
    if (!l) return -1;
    *list = l;
    *cap = c;
  }
  (*list)[(*n)++] = name;
  return tfs_map_put_str(deps, name, (void *)name);
}

/* The functions `fd` calls, as function_deserialization lists them. */
static int list_deps(const Tensorflow__FunctionDef *fd, const tfs_map *names,
                     const tfs_map *grads, const char ***list, size_t *n) {
  tfs_map seen = TFS_MAP_INIT;
  size_t cap = 0;
  int rc = 0;
  *list = NULL;
  *n = 0;
  for (size_t i = 0; rc == 0 && i < fd->n_node_def; i++) {
    const Tensorflow__NodeDef *nd = fd->node_def[i];
    const char *gfn = NULL;
    for (size_t a = 0; a < nd->n_attr; a++) {
      const Tensorflow__AttrValue *v = nd->attr[a]->value;
      if (strcmp(nd->attr[a]->key, "_gradient_op_type") == 0 &&
          strcmp(nd->op, "StatefulPartitionedCall") != 0 &&
          strcmp(nd->op, "PartitionedCall") != 0)
        gfn = v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S &&
                      v->s.len
                  ? tfs_map_get(grads, v->s.data, v->s.len)
                  : NULL;
    }
    if (tfs_map_get_str(names, nd->op)) {
      rc = add_dep(&seen, list, n, &cap, nd->op);
    } else if (gfn) {
      rc = add_dep(&seen, list, n, &cap, gfn);
    } else {
      for (size_t a = 0; rc == 0 && a < nd->n_attr; a++) {
        const Tensorflow__AttrValue *v = nd->attr[a]->value;
        if (!v) continue;
        if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func)
          rc = add_dep(&seen, list, n, &cap, v->func->name);
        else if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST)
          for (size_t k = 0; rc == 0 && k < v->list->n_func; k++)
            rc = add_dep(&seen, list, n, &cap, v->list->func[k]->name);
      }
    }
  }
  tfs_map_free(&seen);
  return rc;
}

static const char *fdef_name(const Tensorflow__FunctionDef *fd) {
  return fd->signature ? fd->signature->name : "";
}

/* Numbers the library's functions in the order the loader creates them:
 * load_function_def_library's topological sort, which takes the ready
 * functions from the end of its list.  Returns V_OK, V_INVALID where the
 * loader raises (a call to a function outside the library, a cycle), or
 * -1 when memory runs out. */
static int load_order_init(load_order *lo,
                           const Tensorflow__FunctionDefLibrary *lib) {
  size_t n = lib ? lib->n_function : 0, npairs = 0, pcap = 0, done = 0;
  tfs_map grads = TFS_MAP_INIT;
  size_t *in = calloc(n + 1, sizeof *in), *cnt = calloc(n + 2, sizeof *cnt);
  size_t *ready = calloc(n + 1, sizeof *ready), *pairs = NULL, *edge = NULL;
  int rc = in && cnt && ready ? V_OK : -1;
  for (size_t i = 0; rc == V_OK && i < n; i++)
    if (!tfs_map_get_str(&lo->pos, fdef_name(lib->function[i])) &&
        tfs_map_put_str(&lo->pos, fdef_name(lib->function[i]),
                        (void *)(i + 1)))
      rc = -1;
  for (size_t i = 0; rc == V_OK && lib && i < lib->n_registered_gradients;
       i++) {
    const Tensorflow__RegisteredGradient *g = lib->registered_gradients[i];
    if (g->registered_op_type[0] &&
        tfs_map_put_str(&grads, g->registered_op_type, g->gradient_func))
      rc = -1;
  }
  /* pairs (callee, caller) in caller order; a callee outside the library
   * keeps its caller from ever being ready. */
  for (size_t i = 0; rc == V_OK && i < n; i++) {
    const char **deps = NULL;
    size_t nd = 0;
    if (list_deps(lib->function[i], &lo->pos, &grads, &deps, &nd)) rc = -1;
    in[i] = nd;
    for (size_t k = 0; rc == V_OK && k < nd; k++) {
      size_t j = (size_t)tfs_map_get_str(&lo->pos, deps[k]);
      if (!j) continue;
      if (npairs == pcap) {
        size_t c = pcap ? 2 * pcap : 64;
        size_t *p = realloc(pairs, 2 * c * sizeof *p);
        if (!p) {
          rc = -1;
          break;
        }
        pairs = p;
        pcap = c;
      }
      pairs[2 * npairs] = j - 1;
      pairs[2 * npairs + 1] = i;
      npairs++;
      cnt[j]++;
    }
    free(deps);
  }
  if (rc == V_OK && !(edge = malloc((npairs + 1) * sizeof *edge))) rc = -1;
  if (rc == V_OK) {
    for (size_t j = 1; j <= n; j++) cnt[j] += cnt[j - 1]; /* starts */
    size_t *fill = ready; /* borrowed as the fill cursor */
    for (size_t j = 0; j < n; j++) fill[j] = cnt[j];
    for (size_t p = 0; p < npairs; p++)
      edge[fill[pairs[2 * p]]++] = pairs[2 * p + 1];
    size_t top = 0;
    for (size_t i = 0; i < n; i++)
      if (!in[i]) ready[top++] = i;
    while (top) {
      size_t node = ready[--top];
      if (tfs_map_put_str(&lo->pos, fdef_name(lib->function[node]),
                          (void *)(++done))) {
        rc = -1;
        break;
      }
      for (size_t e = cnt[node]; e < cnt[node + 1]; e++)
        if (--in[edge[e]] == 0) ready[top++] = edge[e];
    }
    if (rc == V_OK && done != n) rc = V_INVALID;
  }
  free(in);
  free(cnt);
  free(ready);
  free(pairs);
  free(edge);
  tfs_map_free(&grads);
  return rc;
}

/* The uid a fresh saved_model_cli process gives the library function it
 * creates k-th (from 1): 6, 10, 15, ... (five uids a function), up to
 * the last digit, which the string order does not depend on.  Exact for
 * functions whose import takes no uids of its own; bodies that do
 * (control flow, gradients) push later uids higher, which changes the
 * order only where the number of digits then differs. */
#define LOADED_UID(k) (1 + 5 * (size_t)(k))

/* The key saved_model_cli sorts one function's concrete functions by:
 * the loaded name "__inference_<clean>_<uid>" less its common prefix,
 * where <clean> drops a saved "__inference_" name's prefix and "_<digits>"
 * suffix. */
static char *sort_key(const load_order *lo, const char *name) {
  static const char kPrefix[] = "__inference_";
  size_t len = strlen(name), keep = len;
  const char *from = name;
  if (strncmp(name, kPrefix, sizeof kPrefix - 1) == 0) {
    const char *rest = name + sizeof kPrefix - 1, *us = strrchr(rest, '_');
    if (us && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1)) {
      from = rest;
      keep = (size_t)(us - rest);
    }
  }
  char *key = malloc(keep + 24);
  if (key)
    snprintf(key, keep + 24, "%.*s_%zu", (int)keep, from,
             LOADED_UID((size_t)tfs_map_get_str(&lo->pos, name)));
  return key;
}

/* ---- the object graph --------------------------------------------------- */

/* The payload of a length-delimited unknown field, which protobuf-c keeps
 * with its length prefix: the offset of the payload, or 0 when the prefix
 * does not match the field's size. */
static size_t payload_start(const ProtobufCMessageUnknownField *u) {
  uint64_t n = 0;
  for (size_t i = 0; i < u->len && i < 10; i++) {
    n |= (uint64_t)(u->data[i] & 0x7f) << (7 * i);
    if (!(u->data[i] & 0x80)) return n == u->len - i - 1 ? i + 1 : 0;
  }
  return 0;
}

/* MetaGraphDef field 7 (its occurrences merge, as protobuf's do);
 * NULL with *bad set when a field 7 is not a well-formed length-delimited
 * field. */
static uint8_t *object_graph_bytes(const Tensorflow__MetaGraphDef *mg,
                                   size_t *len, int *bad) {
  size_t total = 0;
  *bad = 0;
  for (size_t i = 0; i < mg->base.n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &mg->base.unknown_fields[i];
    if (u->tag != OBJECT_GRAPH_FIELD) continue;
    if (u->wire_type != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED ||
        !payload_start(u))
      *bad = 1;
    total += u->len;
  }
  uint8_t *buf = *bad ? NULL : malloc(total + 1);
  if (!buf) return NULL;
  *len = 0;
  for (size_t i = 0; i < mg->base.n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &mg->base.unknown_fields[i];
    if (u->tag != OBJECT_GRAPH_FIELD) continue;
    size_t at = payload_start(u);
    memcpy(buf + *len, u->data + at, u->len - at);
    *len += u->len - at;
  }
  return buf;
}

/* The saved concrete function called `name`. */
static const Tensorflow__SavedConcreteFunction *find_cf(const load_order *lo,
                                                        const char *name) {
  return tfs_map_get_str(&lo->cfs, name);
}

/* The names of the concrete functions of node `o`, a function or a bare
 * concrete function (n = 0 for any other object). */
static char **node_functions(const Tensorflow__SavedObject *o, size_t *n) {
  if (o->kind_case == TENSORFLOW__SAVED_OBJECT__KIND_FUNCTION) {
    *n = o->function->n_concrete_functions;
    return o->function->concrete_functions;
  }
  if (o->kind_case == TENSORFLOW__SAVED_OBJECT__KIND_BARE_CONCRETE_FUNCTION) {
    *n = 1;
    return &o->bare_concrete_function->concrete_function_name;
  }
  *n = 0;
  return NULL;
}

/* V_INVALID where Python's load of the object graph raises. */
static int check_graph(const object_graph *g, const load_order *lo) {
  if (!g->n_nodes) return V_INVALID;
  for (size_t i = 0; i < g->n_nodes; i++) {
    const Tensorflow__SavedObject *o = g->nodes[i];
    for (size_t c = 0; c < o->n_children; c++)
      if (o->children[c]->node_id < 0 ||
          (size_t)o->children[c]->node_id >= g->n_nodes)
        return V_INVALID;
    size_t n;
    char **names = node_functions(o, &n);
    for (size_t k = 0; k < n; k++)
      if (!tfs_map_get_str(&lo->pos, names[k])) return V_INVALID;
  }
  for (size_t i = 0; i < g->n_concrete_functions; i++) {
    const Tensorflow__SavedObjectGraph__ConcreteFunctionsEntry *e =
        g->concrete_functions[i];
    if (!tfs_map_get_str(&lo->pos, e->key) || find_cf(lo, e->key) != e->value)
      continue;
    if (!e->value) return V_INVALID;
    int rc = check_value(e->value->canonicalized_input_signature, 0);
    if (rc == V_OK) rc = check_value(e->value->output_signature, 0);
    if (rc != V_OK) return rc;
  }
  return V_OK;
}

/* A string with its position, for sorting stably with qsort. */
typedef struct keyed {
  const char *key;
  size_t pos;
} keyed;

static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The options of one function: its concrete functions in the order of
 * their loaded names. */
static int print_function(tfs_strbuf *b, const load_order *lo,
                          const Tensorflow__SavedObject *o) {
  size_t n;
  char **names = node_functions(o, &n);
  keyed *order = calloc(n + 1, sizeof *order);
  int rc = order ? V_OK : -1;
  for (size_t i = 0; rc == V_OK && i < n; i++) {
    order[i].pos = i;
    if (!(order[i].key = sort_key(lo, names[i]))) rc = -1;
  }
  if (rc == V_OK) qsort(order, n, sizeof *order, cmp_keyed);
  for (size_t k = 0; rc == V_OK && k < n; k++) {
    const Tensorflow__SavedConcreteFunction *cf =
        find_cf(lo, names[order[k].pos]);
    if (cf && cf->canonicalized_input_signature) {
      rc = print_option(b, k + 1, cf->canonicalized_input_signature);
    } else if (o->kind_case ==
               TENSORFLOW__SAVED_OBJECT__KIND_BARE_CONCRETE_FUNCTION) {
      /* no signature: the argument keywords */
      const Tensorflow__SavedBareConcreteFunction *bf =
          o->bare_concrete_function;
      if (bf->n_argument_keywords)
        tfs_strbuf_printf(b, "    Option #%zu\n      Callable with:\n", k + 1);
      for (size_t a = 0; a < bf->n_argument_keywords; a++)
        tfs_strbuf_printf(b, "        Argument #%zu\n          %s\n", a + 1,
                          bf->argument_keywords[a]);
    } else {
      rc = V_UNSUPPORTED;
    }
  }
  for (size_t i = 0; order && i < n; i++) free((char *)order[i].key);
  free(order);
  return rc;
}

/* The section's text after "Concrete Functions:" for a parsed graph. */
static int print_graph(tfs_strbuf *b, const object_graph *g,
                       const load_order *lo) {
  const Tensorflow__SavedObject *root = g->nodes[0];
  size_t n = root->n_children;
  keyed *kids = calloc(n + 1, sizeof *kids);
  if (!kids) return -1;
  for (size_t i = 0; i < n; i++)
    kids[i] = (keyed){root->children[i]->local_name, i};
  qsort(kids, n, sizeof *kids, cmp_keyed);
  int rc = V_OK;
  for (size_t i = 0; rc == V_OK && i < n; i++) {
    /* a name given twice names the later object */
    if (i + 1 < n && strcmp(kids[i].key, kids[i + 1].key) == 0) continue;
    const Tensorflow__SavedObject *o =
        g->nodes[root->children[kids[i].pos]->node_id];
    if (o->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_FUNCTION &&
        o->kind_case != TENSORFLOW__SAVED_OBJECT__KIND_BARE_CONCRETE_FUNCTION)
      continue;
    tfs_strbuf_printf(b, "\n  Function Name: '%s'\n", kids[i].key);
    rc = print_function(b, lo, o);
  }
  free(kids);
  return rc;
}

int tfs_cli_print_concrete_functions(const Tensorflow__SavedModel *sm) {
  static const char kFailed[] =
      " N/A (could not be listed due to unknown reasons)\n";
  static const char kUnsupported[] =
      " N/A (tfsess does not print some values of these functions' "
      "signatures: type specs, tensors, or shapes saved_model_cli cannot "
      "list)\n";
  if (sm->n_meta_graphs != 1) {
    /* Python's load needs tags to pick one of several MetaGraphs */
    printf("\nConcrete Functions:%s", kFailed);
    return TFS_CLI_OK;
  }
  const Tensorflow__MetaGraphDef *mg = sm->meta_graphs[0];
  size_t len = 0;
  int bad = 0, oom = 0, rc = V_OK;
  uint8_t *bytes = object_graph_bytes(mg, &len, &bad);
  if (!bytes && !bad) return tfs_cli_error("out of memory");
  object_graph *g =
      bytes ? (object_graph *)tfs_pb__unpack_nested(
                  &tensorflow__saved_object_graph__descriptor, bytes, len,
                  OBJECT_GRAPH_DEPTH, &oom)
            : NULL;
  free(bytes);
  if (oom) return tfs_cli_error("out of memory");
  load_order lo = {TFS_MAP_INIT, TFS_MAP_INIT};
  tfs_strbuf b = TFS_STRBUF_INIT;
  for (size_t i = 0; g && rc == V_OK && i < g->n_concrete_functions; i++)
    if (tfs_map_put_str(&lo.cfs, g->concrete_functions[i]->key,
                        g->concrete_functions[i]->value))
      rc = -1;
  if (rc == V_OK && !g)
    rc = V_INVALID;
  else if (rc == V_OK && (rc = load_order_init(
                &lo, mg->graph_def ? mg->graph_def->library : NULL)) == V_OK &&
           (rc = check_graph(g, &lo)) == V_OK)
    rc = print_graph(&b, g, &lo);
  if (rc == V_OK && b.oom) rc = -1;
  if (rc == V_OK)
    printf("\nConcrete Functions:%s", tfs_strbuf_str(&b));
  else if (rc != -1)
    printf("\nConcrete Functions:%s",
           rc == V_INVALID ? kFailed : kUnsupported);
  tfs_strbuf_free(&b);
  tfs_map_free(&lo.pos);
  tfs_map_free(&lo.cfs);
  if (g) tfs_pb__free(&g->base);
  return rc == -1 ? tfs_cli_error("out of memory") : TFS_CLI_OK;
}

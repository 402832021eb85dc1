/*
 * config_proto/pb_text_write.c - protobuf's text format written from
 * protobuf-c messages, as Python's text_format.MessageToString writes it:
 * set fields in field-number order, two spaces per nesting level, strings
 * and bytes C-escaped with octal escapes, floats in their shortest
 * round-trip form, enums by name, map entries sorted by key, unknown
 * fields left out.
 */
#include "config_proto/pb_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "proto/meta_graph.pb-c.h"

#define MEMBER(m, off) ((const void *)((const char *)(m) + (off)))

typedef struct {
  tfs_strbuf out;
  tfs_status *st;
  int failed;
} printer;

static void indent(printer *P, int level) {
  for (int i = 0; i < level; i++) tfs_strbuf_append(&P->out, "  ", 2);
}

/* ---- scalars ------------------------------------------------------------- */

/* protobuf's CEscape: \n \r \t \" \' \\ by name, bytes below 32 and from
 * 127 up as three octal digits, the rest as they are. */
static void put_escaped(printer *P, const uint8_t *p, size_t n) {
  tfs_strbuf_putc(&P->out, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    switch (c) {
      case '\n': tfs_strbuf_append(&P->out, "\\n", 2); break;
      case '\r': tfs_strbuf_append(&P->out, "\\r", 2); break;
      case '\t': tfs_strbuf_append(&P->out, "\\t", 2); break;
      case '"': tfs_strbuf_append(&P->out, "\\\"", 2); break;
      case '\'': tfs_strbuf_append(&P->out, "\\'", 2); break;
      case '\\': tfs_strbuf_append(&P->out, "\\\\", 2); break;
      default:
        if (c < 32 || c >= 127) {
          char o[5] = {'\\', (char)('0' + (c >> 6)),
                       (char)('0' + ((c >> 3) & 7)), (char)('0' + (c & 7)),
                       0};
          tfs_strbuf_append(&P->out, o, 4);
        } else {
          tfs_strbuf_putc(&P->out, (char)c);
        }
    }
  }
  tfs_strbuf_putc(&P->out, '"');
}

/* A finite double as Python's repr() writes it: the shortest digits that
 * read back exactly; positional with at least one decimal ("1.0",
 * "0.0001") when the decimal exponent is in [-4, 16), else scientific
 * with a two-digit exponent at least ("1e-05", "1.5e+16"). */
static void put_repr(printer *P, double v) {
  char sci[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
    if (strtod(sci, NULL) == v) break;
  }
  /* sci is [-]D[.DDD]e[+-]XX */
  char digits[24];
  size_t nd = 0;
  const char *s = sci;
  int neg = *s == '-';
  if (neg) s++;
  for (; *s && *s != 'e'; s++)
    if (*s != '.') digits[nd++] = *s;
  int exp10 = atoi(s + 1);
  while (nd > 1 && digits[nd - 1] == '0') nd--;
  digits[nd] = 0;
  if (neg) tfs_strbuf_putc(&P->out, '-');
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      tfs_strbuf_append(&P->out, "0.", 2);
      for (int i = -1; i > exp10; i--) tfs_strbuf_putc(&P->out, '0');
      tfs_strbuf_append(&P->out, digits, nd);
    } else {
      size_t whole = (size_t)exp10 + 1;
      for (size_t i = 0; i < whole; i++)
        tfs_strbuf_putc(&P->out, i < nd ? digits[i] : '0');
      tfs_strbuf_putc(&P->out, '.');
      if (nd > whole)
        tfs_strbuf_append(&P->out, digits + whole, nd - whole);
      else
        tfs_strbuf_putc(&P->out, '0');
    }
    return;
  }
  tfs_strbuf_putc(&P->out, digits[0]);
  if (nd > 1) {
    tfs_strbuf_putc(&P->out, '.');
    tfs_strbuf_append(&P->out, digits + 1, nd - 1);
  }
  tfs_strbuf_printf(&P->out, "e%c%02d", exp10 < 0 ? '-' : '+',
                    exp10 < 0 ? -exp10 : exp10);
}

static int put_special(printer *P, double v) {
  if (isnan(v)) {
    tfs_strbuf_puts(&P->out, "nan");
    return 1;
  }
  if (isinf(v)) {
    tfs_strbuf_puts(&P->out, v < 0 ? "-inf" : "inf");
    return 1;
  }
  return 0;
}

/* A float field: the fewest significant digits, six at least, whose
 * value reads back as the same float (protobuf's ToShortestFloat), then
 * written as the double it is. */
static void put_float(printer *P, float f) {
  if (put_special(P, f)) return;
  double r = f;
  for (int prec = 6; prec <= 9; prec++) {
    char b[40];
    snprintf(b, sizeof b, "%.*g", prec, (double)f);
    r = strtod(b, NULL);
    if ((float)r == f) break;
  }
  put_repr(P, r);
}

static void put_double(printer *P, double d) {
  if (!put_special(P, d)) put_repr(P, d);
}

static void put_enum(printer *P, const ProtobufCEnumDescriptor *e,
                     int32_t v) {
  const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(e, v);
  if (ev)
    tfs_strbuf_puts(&P->out, ev->name);
  else
    tfs_strbuf_printf(&P->out, "%" PRId32, v);
}

static int print_message(printer *P, const ProtobufCMessage *m, int level);

/* One value of field f stored at p, after "name" was written. */
static void put_value(printer *P, const ProtobufCFieldDescriptor *f,
                      const void *p, int level) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      tfs_strbuf_printf(&P->out, ": %" PRId32 "\n", *(const int32_t *)p);
      return;
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
      tfs_strbuf_printf(&P->out, ": %" PRIu32 "\n", *(const uint32_t *)p);
      return;
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      tfs_strbuf_printf(&P->out, ": %" PRId64 "\n", *(const int64_t *)p);
      return;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
      tfs_strbuf_printf(&P->out, ": %" PRIu64 "\n", *(const uint64_t *)p);
      return;
    case PROTOBUF_C_TYPE_FLOAT:
      tfs_strbuf_append(&P->out, ": ", 2);
      put_float(P, *(const float *)p);
      break;
    case PROTOBUF_C_TYPE_DOUBLE:
      tfs_strbuf_append(&P->out, ": ", 2);
      put_double(P, *(const double *)p);
      break;
    case PROTOBUF_C_TYPE_BOOL:
      tfs_strbuf_puts(&P->out,
                      *(const protobuf_c_boolean *)p ? ": true" : ": false");
      break;
    case PROTOBUF_C_TYPE_ENUM:
      tfs_strbuf_append(&P->out, ": ", 2);
      put_enum(P, f->descriptor, *(const int32_t *)p);
      break;
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(char *const *)p;
      tfs_strbuf_append(&P->out, ": ", 2);
      put_escaped(P, (const uint8_t *)(s ? s : ""), s ? strlen(s) : 0);
      break;
    }
    case PROTOBUF_C_TYPE_BYTES: {
      const ProtobufCBinaryData *b = p;
      tfs_strbuf_append(&P->out, ": ", 2);
      put_escaped(P, b->data, b->len);
      break;
    }
    case PROTOBUF_C_TYPE_MESSAGE: {
      const ProtobufCMessage *sub = *(ProtobufCMessage *const *)p;
      tfs_strbuf_append(&P->out, " {\n", 3);
      if (sub) print_message(P, sub, level + 1);
      indent(P, level);
      tfs_strbuf_putc(&P->out, '}');
      break;
    }
  }
  tfs_strbuf_putc(&P->out, '\n');
}

/* ---- presence ------------------------------------------------------------ */

static size_t value_size(ProtobufCType type) {
  switch (type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_ENUM:
      return 4;
    case PROTOBUF_C_TYPE_FLOAT: return sizeof(float);
    case PROTOBUF_C_TYPE_DOUBLE: return sizeof(double);
    case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
    default: return 8; /* the 64-bit integers */
  }
}

/* Whether a non-repeated field is present as protobuf's ListFields says:
 * a oneof member when it is the case, a field with a has_ flag when the
 * flag is set, proto3 scalars when their bits are not all zero. */
static int is_present(const ProtobufCMessage *m,
                      const ProtobufCFieldDescriptor *f) {
  const void *p = MEMBER(m, f->offset);
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)MEMBER(m, f->quantifier_offset) == f->id;
  if (f->label == PROTOBUF_C_LABEL_REQUIRED) return 1;
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(char *const *)p;
      if (f->label == PROTOBUF_C_LABEL_OPTIONAL)
        return s && s != f->default_value;
      return s && *s;
    }
    case PROTOBUF_C_TYPE_MESSAGE:
      return *(ProtobufCMessage *const *)p != NULL;
    default:
      break;
  }
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL)
    return *(const protobuf_c_boolean *)MEMBER(m, f->quantifier_offset);
  if (f->type == PROTOBUF_C_TYPE_BYTES)
    return ((const ProtobufCBinaryData *)p)->len != 0;
  static const unsigned char zero[8];
  return memcmp(p, zero, value_size(f->type)) != 0;
}

/* ---- maps ---------------------------------------------------------------- */

/* A repeated field of map entries: protoc names the entry type after the
 * field ("attr" -> "AttrEntry") with key = 1 and value = 2. */
static int is_map(const ProtobufCFieldDescriptor *f) {
  if (f->type != PROTOBUF_C_TYPE_MESSAGE ||
      f->label != PROTOBUF_C_LABEL_REPEATED)
    return 0;
  const ProtobufCMessageDescriptor *d = f->descriptor;
  if (d->n_fields != 2 || d->fields[0].id != 1 || d->fields[1].id != 2 ||
      strcmp(d->fields[0].name, "key") != 0 ||
      strcmp(d->fields[1].name, "value") != 0)
    return 0;
  /* CamelCase(field name) + "Entry" */
  const char *n = f->name, *s = d->short_name;
  int up = 1;
  for (; *n; n++) {
    if (*n == '_') {
      up = 1;
      continue;
    }
    char c = up && *n >= 'a' && *n <= 'z' ? (char)(*n - 'a' + 'A') : *n;
    up = 0;
    if (*s++ != c) return 0;
  }
  return strcmp(s, "Entry") == 0;
}

static int key_cmp(const ProtobufCMessage *a, const ProtobufCMessage *b) {
  const ProtobufCFieldDescriptor *k = &a->descriptor->fields[0];
  const void *pa = MEMBER(a, k->offset), *pb = MEMBER(b, k->offset);
  switch (k->type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char *sa = *(char *const *)pa, *sb = *(char *const *)pb;
      return strcmp(sa ? sa : "", sb ? sb : "");
    }
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32: {
      int32_t x = *(const int32_t *)pa, y = *(const int32_t *)pb;
      return (x > y) - (x < y);
    }
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: {
      uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
      return (x > y) - (x < y);
    }
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: {
      uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
      return (x > y) - (x < y);
    }
    case PROTOBUF_C_TYPE_BOOL: {
      int x = !!*(const protobuf_c_boolean *)pa;
      int y = !!*(const protobuf_c_boolean *)pb;
      return x - y;
    }
    default: {
      int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
      return (x > y) - (x < y);
    }
  }
}

/* Stable bottom-up merge sort of n entries by key (tmp has room for n). */
static void sort_entries(const ProtobufCMessage **v,
                         const ProtobufCMessage **tmp, size_t n) {
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n;
      size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = key_cmp(v[j], v[i]) < 0 ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
    }
    memcpy(v, tmp, n * sizeof *v);
  }
}

/* A map entry as Python writes it: the key and a scalar value when they
 * are not zero / empty, a message value always (`value {` `}` even when
 * empty). */
static void print_entry(printer *P, const ProtobufCMessage *e, int level) {
  for (int i = 0; i < 2; i++) {
    const ProtobufCFieldDescriptor *f = &e->descriptor->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE && !is_present(e, f)) continue;
    indent(P, level);
    tfs_strbuf_puts(&P->out, f->name);
    put_value(P, f, MEMBER(e, f->offset), level);
  }
}

static int print_map(printer *P, const ProtobufCFieldDescriptor *f,
                     ProtobufCMessage *const *v, size_t n, int level) {
  const ProtobufCMessage **sorted =
      n <= SIZE_MAX / (2 * sizeof *sorted)
          ? tfs_malloc(2 * n * sizeof *sorted)
          : NULL;
  if (!sorted) {
    P->failed = 1;
    TFS_OOM(P->st);
    return -1;
  }
  memcpy(sorted, v, n * sizeof *sorted);
  sort_entries(sorted, sorted + n, n);
  for (size_t i = 0; i < n; i++) {
    indent(P, level);
    tfs_strbuf_puts(&P->out, f->name);
    tfs_strbuf_append(&P->out, " {\n", 3);
    print_entry(P, sorted[i], level + 1);
    indent(P, level);
    tfs_strbuf_append(&P->out, "}\n", 2);
  }
  tfs_free(sorted);
  return 0;
}

/* ---- messages ------------------------------------------------------------ */

/* A tensorflow.AnyValue (google.protobuf.Any) whose type tfsess knows and
 * whose value parses: `[type_url] { ... }`.  Returns 1 when written. */
static int print_any(printer *P, const ProtobufCMessage *m, int level) {
  const Tensorflow__AnyValue *any = (const Tensorflow__AnyValue *)m;
  const char *url = any->type_url;
  const char *slash = url ? strrchr(url, '/') : NULL;
  if (!slash) return 0;
  const ProtobufCMessageDescriptor *d =
      tfs_pb__find_message(slash + 1, strlen(slash + 1));
  if (!d) return 0;
  ProtobufCMessage *inner =
      tfs_pb__unpack(d, any->value.data, any->value.len, NULL);
  if (!inner) return 0;
  indent(P, level);
  tfs_strbuf_putc(&P->out, '[');
  tfs_strbuf_puts(&P->out, url);
  tfs_strbuf_append(&P->out, "] {\n", 4);
  int rc = print_message(P, inner, level + 1);
  indent(P, level);
  tfs_strbuf_append(&P->out, "}\n", 2);
  tfs_pb__free(inner);
  return rc == 0;
}

static int print_field(printer *P, const ProtobufCMessage *m,
                       const ProtobufCFieldDescriptor *f, int level) {
  if (f->label != PROTOBUF_C_LABEL_REPEATED) {
    if (!is_present(m, f)) return 0;
    indent(P, level);
    tfs_strbuf_puts(&P->out, f->name);
    put_value(P, f, MEMBER(m, f->offset), level);
    return P->failed ? -1 : 0;
  }
  size_t n = *(const size_t *)MEMBER(m, f->quantifier_offset);
  const char *arr = *(char *const *)MEMBER(m, f->offset);
  if (n == 0) return 0;
  if (is_map(f))
    return print_map(P, f, (ProtobufCMessage *const *)(const void *)arr, n,
                     level);
  size_t sz = value_size(f->type);
  for (size_t i = 0; i < n && !P->failed; i++) {
    indent(P, level);
    tfs_strbuf_puts(&P->out, f->name);
    put_value(P, f, arr + i * sz, level);
  }
  return P->failed ? -1 : 0;
}

static int print_message(printer *P, const ProtobufCMessage *m, int level) {
  if (P->failed) return -1;
  if (level > TFS_PB_MAX_DEPTH) {
    P->failed = 1;
    tfs_status_setf(P->st, TFS_INVALID_ARGUMENT,
                    "Message nested deeper than %d levels",
                    TFS_PB_MAX_DEPTH);
    return -1;
  }
  const ProtobufCMessageDescriptor *d = m->descriptor;
  if (d == &tensorflow__any_value__descriptor && print_any(P, m, level))
    return P->failed ? -1 : 0;
  /* protobuf-c keeps fields sorted by number */
  for (unsigned i = 0; i < d->n_fields; i++)
    if (print_field(P, m, &d->fields[i], level)) return -1;
  return P->failed ? -1 : 0;
}

static void free_text(void *data, size_t len) {
  (void)len;
  tfs_free(data);
}

int tfs_pb__print_text(const ProtobufCMessage *m, tfs_buffer *out,
                       tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  printer P = {TFS_STRBUF_INIT, st, 0};
  if (print_message(&P, m, 0)) {
    tfs_strbuf_free(&P.out);
    return -1;
  }
  size_t len = P.out.len;
  char *text = tfs_strbuf_take(&P.out);
  if (!text) {
    TFS_OOM(st);
    return -1;
  }
  out->data = text;
  out->length = len;
  out->data_deallocator = free_text;
  tfs_status_clear(st);
  return 0;
}

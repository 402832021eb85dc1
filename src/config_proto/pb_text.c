/*
 * config_proto/pb_text.c - protobuf's text format over protobuf-c
 * descriptors: a tokenizer that splits the text as protobuf's
 * io::Tokenizer does (identifiers, integers, floats, quoted strings,
 * single-character symbols, `#` comments) and a recursive-descent parser
 * that builds the message with tfs_pb__allocator, so tfs_pb__free
 * releases whatever was built, also after an error.  Errors carry the
 * line and column of the token in hand and protobuf's wording.
 */
#include "config_proto/pb_text.h"

#include <ctype.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/pb_text_internal.h"
#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "proto/meta_graph.pb-c.h"

/* ---- tokens -------------------------------------------------------------- */

typedef enum { T_END, T_IDENT, T_INT, T_FLOAT, T_STRING, T_SYMBOL } tok_type;

typedef struct {
  tok_type type;
  const char *p; /* the token's text in the input (quotes included) */
  size_t n;
  int line, col; /* 0-based */
} token;

typedef struct {
  const char *pos, *end;
  int line, col;
  token cur;
  tfs_status *st;
  int failed;
  int depth_left; /* nesting budget */
  const char *const *skip;
} parser;

/* Longest token text quoted in a message. */
enum { QUOTE_MAX = 200 };

static void fail_at(parser *P, int line, int col, const char *fmt, ...)
    TFS_PRINTF(4, 5);

static void fail_at(parser *P, int line, int col, const char *fmt, ...) {
  if (P->failed) return;
  P->failed = 1;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tfs_status_setf(P->st, TFS_INVALID_ARGUMENT, "%d:%d: %s", line + 1,
                  col + 1, msg);
}

/* An error at the current token. */
#define FAIL(P, ...) fail_at((P), (P)->cur.line, (P)->cur.col, __VA_ARGS__)

static void oom(parser *P) {
  if (P->failed) return;
  P->failed = 1;
  TFS_OOM(P->st);
}

/* The current token's text for messages, cut at QUOTE_MAX bytes. */
#define CUR_LEN(P) (int)((P)->cur.n < QUOTE_MAX ? (P)->cur.n : QUOTE_MAX)
#define CUR_TEXT(P) CUR_LEN(P), (P)->cur.p

/* ---- tokenizer ----------------------------------------------------------- */

static int at(const parser *P, size_t k) {
  return (size_t)(P->end - P->pos) > k ? (unsigned char)P->pos[k] : -1;
}

static void advance(parser *P) {
  char c = *P->pos++;
  if (c == '\n') {
    P->line++;
    P->col = 0;
  } else if (c == '\t') {
    P->col += 8 - P->col % 8;
  } else {
    P->col++;
  }
}

static int is_letter(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_hex(int c) { return c >= 0 && isxdigit(c); }
static int is_octal(int c) { return c >= '0' && c <= '7'; }

static void skip_space(parser *P) {
  for (;;) {
    int c = at(P, 0);
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' ||
        c == '\f') {
      advance(P);
    } else if (c == '#') {
      while (at(P, 0) >= 0 && at(P, 0) != '\n') advance(P);
    } else {
      return;
    }
  }
}

/* A number starting at pos (a digit, or '.' and a digit). */
static int lex_number(parser *P) {
  int is_float = 0, c0 = at(P, 0);
  if (c0 == '0' && (at(P, 1) == 'x' || at(P, 1) == 'X')) {
    advance(P);
    advance(P);
    if (!is_hex(at(P, 0))) {
      fail_at(P, P->line, P->col, "\"0x\" must be followed by hex digits.");
      return -1;
    }
    while (is_hex(at(P, 0))) advance(P);
  } else if (c0 == '0' && is_digit(at(P, 1))) {
    advance(P);
    while (is_octal(at(P, 0))) advance(P);
    if (is_digit(at(P, 0))) {
      fail_at(P, P->line, P->col,
              "Numbers starting with leading zero must be in octal.");
      return -1;
    }
  } else {
    while (is_digit(at(P, 0))) advance(P);
    if (at(P, 0) == '.') {
      is_float = 1;
      advance(P);
      while (is_digit(at(P, 0))) advance(P);
    }
    if (at(P, 0) == 'e' || at(P, 0) == 'E') {
      is_float = 1;
      advance(P);
      if (at(P, 0) == '-' || at(P, 0) == '+') advance(P);
      if (!is_digit(at(P, 0))) {
        fail_at(P, P->line, P->col, "\"e\" must be followed by exponent.");
        return -1;
      }
      while (is_digit(at(P, 0))) advance(P);
    }
    if (at(P, 0) == 'f' || at(P, 0) == 'F') {
      is_float = 1;
      advance(P);
    }
  }
  if (is_letter(at(P, 0))) {
    fail_at(P, P->line, P->col, "Need space between number and identifier.");
    return -1;
  }
  if (at(P, 0) == '.') {
    fail_at(P, P->line, P->col,
            is_float
                ? "Already saw decimal point or exponent; can't have another "
                  "one."
                : "Hex and octal numbers must be integers.");
    return -1;
  }
  P->cur.type = is_float ? T_FLOAT : T_INT;
  return 0;
}

/* Checks the escape after a backslash (pos is on the escape letter). */
static int lex_escape(parser *P) {
  int c = at(P, 0);
  if (c < 0) return 0; /* the caller reports the end of the string */
  if (strchr("abfnrtv\\?'\"", c) && c != 0) {
    advance(P);
  } else if (is_octal(c)) {
    advance(P);
  } else if (c == 'x' || c == 'X') {
    advance(P);
    if (!is_hex(at(P, 0))) {
      fail_at(P, P->line, P->col, "Expected hex digits for escape sequence.");
      return -1;
    }
  } else if (c == 'u' || c == 'U') {
    int n = c == 'u' ? 4 : 8;
    advance(P);
    uint32_t v = 0;
    for (int i = 0; i < n; i++) {
      int h = at(P, (size_t)i);
      if (!is_hex(h)) {
        v = UINT32_MAX;
        break;
      }
      v = v * 16 + (uint32_t)(is_digit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    if (v > 0x10ffff) {
      fail_at(P, P->line, P->col,
              n == 4 ? "Expected four hex digits for \\u escape sequence."
                     : "Expected eight hex digits up to 10ffff for \\U "
                       "escape sequence");
      return -1;
    }
  } else {
    fail_at(P, P->line, P->col, "Invalid escape sequence in string literal.");
    return -1;
  }
  return 0;
}

static int lex_string(parser *P) {
  int quote = at(P, 0);
  advance(P);
  for (;;) {
    int c = at(P, 0);
    if (c < 0) {
      fail_at(P, P->line, P->col, "Unexpected end of string.");
      return -1;
    }
    if (c == '\n') {
      fail_at(P, P->line, P->col,
              "String literals cannot cross line boundaries.");
      return -1;
    }
    advance(P);
    if (c == quote) break;
    if (c == '\\' && lex_escape(P)) return -1;
  }
  P->cur.type = T_STRING;
  return 0;
}

/* Moves to the next token; T_END at the end of the input. */
static int next(parser *P) {
  if (P->failed) return -1;
  skip_space(P);
  token *t = &P->cur;
  t->p = P->pos;
  t->line = P->line;
  t->col = P->col;
  int c = at(P, 0);
  int r = 0;
  if (c < 0) {
    t->type = T_END;
  } else if (is_letter(c)) {
    while (is_letter(at(P, 0)) || is_digit(at(P, 0))) advance(P);
    t->type = T_IDENT;
  } else if (is_digit(c) || (c == '.' && is_digit(at(P, 1)))) {
    r = lex_number(P);
  } else if (c == '"' || c == '\'') {
    r = lex_string(P);
  } else if (c < ' ' || c == 0x7f) {
    fail_at(P, P->line, P->col,
            "Invalid control characters encountered in text.");
    r = -1;
  } else if (c >= 0x80) {
    fail_at(P, P->line, P->col, "Interpreting non ascii codepoint %d.", c);
    r = -1;
  } else {
    advance(P);
    t->type = T_SYMBOL;
  }
  t->n = (size_t)(P->pos - t->p);
  if (r) t->type = T_END; /* nothing reads on after an error */
  return r;
}

static int looking_at(const parser *P, char sym) {
  return P->cur.type == T_SYMBOL && P->cur.p[0] == sym;
}

static int try_consume(parser *P, char sym) {
  if (!looking_at(P, sym)) return 0;
  next(P);
  return 1;
}

static int consume(parser *P, char sym) {
  if (P->failed) return -1;
  if (!looking_at(P, sym)) {
    FAIL(P, "Expected \"%c\", found \"%.*s\".", sym, CUR_TEXT(P));
    return -1;
  }
  return next(P);
}

static int consume_identifier(parser *P, token *out) {
  if (P->failed) return -1;
  if (P->cur.type != T_IDENT) {
    FAIL(P, "Expected identifier, got: %.*s", CUR_TEXT(P));
    return -1;
  }
  *out = P->cur;
  return next(P);
}

/* ---- growable byte buffer ------------------------------------------------ */

typedef struct {
  char *p;
  size_t n, cap;
} strbuf;

static int sb_reserve(parser *P, strbuf *b, size_t more) {
  if (more <= b->cap - b->n) return 0;
  if (more > SIZE_MAX / 2 - b->n) {
    oom(P);
    return -1;
  }
  size_t cap = (b->n + more) * 2;
  if (cap < 32) cap = 32;
  char *p = tfs_realloc(b->p, cap);
  if (!p) {
    oom(P);
    return -1;
  }
  b->p = p;
  b->cap = cap;
  return 0;
}

static int sb_add(parser *P, strbuf *b, const char *s, size_t n) {
  if (n == 0) return 0;
  if (sb_reserve(P, b, n)) return -1;
  memcpy(b->p + b->n, s, n);
  b->n += n;
  return 0;
}

/* ---- string literals ----------------------------------------------------- */

static int hex_value(int c) {
  return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

static size_t utf8_encode(uint32_t cp, char out[4]) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Reads n hex digits at s (the tokenizer checked they are there). */
static uint32_t read_hex(const char *s, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; i++) v = v * 16 + (uint32_t)hex_value(s[i]);
  return v;
}

/* Decodes one escape at s (after the backslash, before `end`) into out;
 * returns the bytes of input used. */
static size_t decode_escape(const char *s, const char *end, char out[4],
                            size_t *nout) {
  static const char from[] = "abfnrtv\\?'\"";
  static const char to[] = "\a\b\f\n\r\t\v\\?'\"";
  const char *e = strchr(from, *s);
  *nout = 1;
  if (e && *s) {
    out[0] = to[e - from];
    return 1;
  }
  if (is_octal(*s)) {
    unsigned v = 0;
    size_t k = 0;
    while (k < 3 && s + k < end && is_octal(s[k])) v = v * 8 + (s[k++] - '0');
    out[0] = (char)v;
    return k;
  }
  if (*s == 'x' || *s == 'X') {
    unsigned v = 0;
    size_t k = 1;
    while (k < 3 && s + k < end && is_hex((unsigned char)s[k]))
      v = v * 16 + (unsigned)hex_value(s[k++]);
    out[0] = (char)v;
    return k;
  }
  if (*s == 'u' || *s == 'U') {
    int n = *s == 'u' ? 4 : 8;
    uint32_t cp = read_hex(s + 1, n);
    size_t used = 1 + (size_t)n;
    /* a high surrogate and a \u low surrogate make one code point */
    if (n == 4 && cp >= 0xd800 && cp <= 0xdbff && end - (s + used) >= 6 &&
        s[used] == '\\' && s[used + 1] == 'u' && is_hex(s[used + 2]) &&
        is_hex(s[used + 3]) && is_hex(s[used + 4]) && is_hex(s[used + 5])) {
      uint32_t lo = read_hex(s + used + 2, 4);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        used += 6;
      }
    }
    *nout = utf8_encode(cp, out);
    return used;
  }
  out[0] = *s;
  return 1;
}

/* Appends the decoded contents of the string token `t` to b. */
static int decode_literal(parser *P, const token *t, strbuf *b) {
  const char *s = t->p + 1, *end = t->p + t->n - 1;
  while (s < end) {
    const char *run = s;
    while (s < end && *s != '\\') s++;
    if (sb_add(P, b, run, (size_t)(s - run))) return -1;
    if (s < end) {
      char out[4];
      size_t nout;
      s += 1 + decode_escape(s + 1, end, out, &nout);
      if (sb_add(P, b, out, nout)) return -1;
    }
  }
  return 0;
}

/* Consumes one or more adjacent string literals; b holds their bytes and
 * a terminating NUL (not counted in b->n). */
static int consume_string(parser *P, strbuf *b) {
  if (P->failed) return -1;
  if (P->cur.type != T_STRING) {
    FAIL(P, "Expected string, got: %.*s", CUR_TEXT(P));
    return -1;
  }
  while (P->cur.type == T_STRING) {
    if (decode_literal(P, &P->cur, b) || next(P)) return -1;
  }
  if (sb_add(P, b, "", 1)) return -1;
  b->n--;
  return 0;
}

/* ---- numbers ------------------------------------------------------------- */

/* The integer token's value if at most max (decimal, 0x hex or 0 octal). */
static int parse_integer(const token *t, uint64_t max, uint64_t *out) {
  const char *s = t->p, *end = t->p + t->n;
  unsigned base = 10;
  if (t->n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  } else if (t->n > 1 && s[0] == '0') {
    base = 8;
    s++;
  }
  uint64_t v = 0;
  for (; s < end; s++) {
    unsigned d = (unsigned)hex_value(*s);
    if (d > max || v > (max - d) / base) return -1;
    v = v * base + d;
  }
  *out = v;
  return 0;
}

static int consume_unsigned(parser *P, uint64_t max, uint64_t *out) {
  if (P->failed) return -1;
  if (P->cur.type != T_INT) {
    FAIL(P, "Expected integer, got: %.*s", CUR_TEXT(P));
    return -1;
  }
  if (parse_integer(&P->cur, max, out)) {
    FAIL(P, "Integer out of range (%.*s)", CUR_TEXT(P));
    return -1;
  }
  return next(P);
}

static int consume_signed(parser *P, uint64_t max, int64_t *out) {
  int neg = try_consume(P, '-');
  uint64_t u;
  if (consume_unsigned(P, max + (neg ? 1 : 0), &u)) return -1;
  *out = neg ? (int64_t)(0 - u) : (int64_t)u;
  return 0;
}

/* strtod over a copy of the token's text without its f suffix. */
static int token_to_double(parser *P, const token *t, double *out) {
  size_t n = t->n;
  if (n && (t->p[n - 1] == 'f' || t->p[n - 1] == 'F')) n--;
  char small[64];
  char *buf = n < sizeof small ? small : tfs_malloc(n + 1);
  if (!buf) {
    oom(P);
    return -1;
  }
  memcpy(buf, t->p, n);
  buf[n] = '\0';
  *out = strtod(buf, NULL);
  if (buf != small) tfs_free(buf);
  return 0;
}

static int ascii_ieq(const token *t, const char *w) {
  size_t n = strlen(w);
  if (t->n != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)t->p[i]) != w[i]) return 0;
  return 1;
}

static int consume_double(parser *P, double *out) {
  if (P->failed) return -1;
  int neg = try_consume(P, '-');
  token t = P->cur;
  if (t.type == T_INT) {
    if (t.n > 1 && t.p[0] == '0') {
      FAIL(P, "Expect a decimal number, got: %.*s", CUR_TEXT(P));
      return -1;
    }
    uint64_t u;
    if (parse_integer(&t, UINT64_MAX, &u) == 0)
      *out = (double)u;
    else if (token_to_double(P, &t, out))
      return -1;
  } else if (t.type == T_FLOAT) {
    if (token_to_double(P, &t, out)) return -1;
  } else if (t.type == T_IDENT &&
             (ascii_ieq(&t, "inf") || ascii_ieq(&t, "infinity"))) {
    *out = INFINITY;
  } else if (t.type == T_IDENT && ascii_ieq(&t, "nan")) {
    *out = NAN;
  } else {
    char low[QUOTE_MAX + 1];
    int n = CUR_LEN(P);
    for (int i = 0; i < n; i++)
      low[i] = t.type == T_IDENT ? (char)tolower((unsigned char)t.p[i])
                                 : t.p[i];
    FAIL(P, "Expected double, got: %.*s", n, low);
    return -1;
  }
  if (neg) *out = -*out;
  return next(P);
}

static float double_to_float(double v) {
  if (v > FLT_MAX) return INFINITY;
  if (v < -FLT_MAX) return -INFINITY;
  return (float)v;
}

/* ---- message layout ------------------------------------------------------ */

/* One parsed field value. */
typedef union {
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  float f;
  double d;
  protobuf_c_boolean b;
  char *s;
  ProtobufCBinaryData bin;
  ProtobufCMessage *m;
} pb_value;

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

#define MEMBER(m, off) ((void *)((char *)(m) + (off)))

static int has_flag(const ProtobufCFieldDescriptor *f) {
  return f->label == PROTOBUF_C_LABEL_OPTIONAL &&
         !(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
         f->type != PROTOBUF_C_TYPE_STRING &&
         f->type != PROTOBUF_C_TYPE_MESSAGE;
}

static int value_is_zero(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
    case PROTOBUF_C_TYPE_STRING: {
      const char *s = *(char *const *)p;
      return !s || !*s;
    }
    case PROTOBUF_C_TYPE_BYTES:
      return ((const ProtobufCBinaryData *)p)->len == 0;
    case PROTOBUF_C_TYPE_MESSAGE:
      return *(ProtobufCMessage *const *)p == NULL;
    default: {
      static const unsigned char zero[8];
      return memcmp(p, zero, value_size(f->type)) == 0;
    }
  }
}

/* Whether a non-repeated field is set, as protobuf's HasField says:
 * proto3 fields without presence are set when not zero / empty. */
static int field_is_set(const ProtobufCMessage *m,
                        const ProtobufCFieldDescriptor *f) {
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)MEMBER(m, f->quantifier_offset) == f->id;
  if (has_flag(f))
    return *(const protobuf_c_boolean *)MEMBER(m, f->quantifier_offset);
  const void *p = MEMBER(m, f->offset);
  if (f->type == PROTOBUF_C_TYPE_STRING &&
      f->label == PROTOBUF_C_LABEL_OPTIONAL)
    return *(char *const *)p && *(char *const *)p != f->default_value;
  return !value_is_zero(f, p);
}

static void free_value(const ProtobufCFieldDescriptor *f, pb_value *v) {
  if (f->type == PROTOBUF_C_TYPE_STRING) tfs_free(v->s);
  if (f->type == PROTOBUF_C_TYPE_BYTES) tfs_free(v->bin.data);
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) tfs_pb__free(v->m);
}

/* Frees a string or bytes member unless it is the field's default. */
static void release_member(const ProtobufCFieldDescriptor *f, void *p) {
  if (f->type == PROTOBUF_C_TYPE_STRING) {
    char *s = *(char **)p;
    if (s && s != f->default_value && s != protobuf_c_empty_string)
      tfs_free(s);
  } else if (f->type == PROTOBUF_C_TYPE_BYTES) {
    ProtobufCBinaryData *b = p;
    const ProtobufCBinaryData *d = f->default_value;
    if (b->data && (!d || d->data != b->data)) tfs_free(b->data);
  }
}

/* Stores v in the field (appending to a repeated one) and takes
 * ownership of what v points to, also on failure. */
static int store(parser *P, ProtobufCMessage *m,
                 const ProtobufCFieldDescriptor *f, pb_value *v) {
  size_t es = value_size(f->type);
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    size_t *n = MEMBER(m, f->quantifier_offset);
    char **arr = MEMBER(m, f->offset);
    if ((*n & (*n - 1)) == 0) { /* 0 or a power of two: the array is full */
      size_t cap = *n ? *n * 2 : 1;
      char *grown = cap <= SIZE_MAX / es ? tfs_realloc(*arr, cap * es) : NULL;
      if (!grown) {
        free_value(f, v);
        oom(P);
        return -1;
      }
      *arr = grown;
    }
    memcpy(*arr + *n * es, v, es);
    (*n)++;
    return 0;
  }
  void *p = MEMBER(m, f->offset);
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
    *(uint32_t *)MEMBER(m, f->quantifier_offset) = f->id;
  } else {
    if (has_flag(f)) *(protobuf_c_boolean *)MEMBER(m, f->quantifier_offset) = 1;
    release_member(f, p);
  }
  memcpy(p, v, es);
  return 0;
}

static ProtobufCMessage *new_message(parser *P,
                                     const ProtobufCMessageDescriptor *d) {
  ProtobufCMessage *m = tfs_malloc(d->sizeof_message);
  if (!m) {
    oom(P);
    return NULL;
  }
  d->message_init(m);
  return m;
}

/* ---- skipping unmodelled fields ----------------------------------------- */

static int skip_message(parser *P);

static int is_float_word(const token *t) {
  return ascii_ieq(t, "inf") || ascii_ieq(t, "infinity") ||
         ascii_ieq(t, "nan");
}

/* A value of an unmodelled field; in_list: an element of `[...]`, which
 * cannot itself be a list. */
static int skip_value(parser *P, int in_list) {
  if (P->failed) return -1;
  if (P->cur.type == T_STRING) {
    while (P->cur.type == T_STRING)
      if (next(P)) return -1;
    return 0;
  }
  if (!in_list && try_consume(P, '[')) {
    for (;;) {
      if (looking_at(P, '{') || looking_at(P, '<') ? skip_message(P)
                                                    : skip_value(P, 1))
        return -1;
      if (try_consume(P, ']')) return P->failed ? -1 : 0;
      if (consume(P, ',')) return -1;
    }
  }
  int minus = try_consume(P, '-');
  if (P->cur.type != T_INT && P->cur.type != T_FLOAT &&
      P->cur.type != T_IDENT) {
    FAIL(P, "Cannot skip field value, unexpected token: %.*s", CUR_TEXT(P));
    return -1;
  }
  if (minus && P->cur.type == T_IDENT && !is_float_word(&P->cur)) {
    char low[QUOTE_MAX + 1];
    int n = CUR_LEN(P);
    for (int i = 0; i < n; i++)
      low[i] = (char)tolower((unsigned char)P->cur.p[i]);
    FAIL(P, "Invalid float number: %.*s", n, low);
    return -1;
  }
  return next(P);
}

/* Skips `name: value`, `name {...}` or `[type/url] {...}` and a separator. */
static int skip_field(parser *P) {
  token t;
  if (try_consume(P, '[')) {
    if (consume_identifier(P, &t)) return -1;
    while (try_consume(P, '.') || try_consume(P, '/'))
      if (consume_identifier(P, &t)) return -1;
    if (consume(P, ']')) return -1;
  } else if (consume_identifier(P, &t)) {
    return -1;
  }
  int r = try_consume(P, ':') && !looking_at(P, '{') && !looking_at(P, '<')
              ? skip_value(P, 0)
              : skip_message(P);
  if (r) return -1;
  if (!try_consume(P, ';')) try_consume(P, ',');
  return P->failed ? -1 : 0;
}

static int enter(parser *P) {
  if (--P->depth_left < 0) {
    FAIL(P, "Message is too deep, the parser exceeded the configured "
            "recursion limit of %d.", TFS_PB_MAX_DEPTH);
    return -1;
  }
  return 0;
}

/* Consumes `{` or `<` and returns the closing delimiter, or 0. */
static char open_message(parser *P) {
  if (try_consume(P, '<')) return P->failed ? 0 : '>';
  return consume(P, '{') ? 0 : '}';
}

static int skip_message(parser *P) {
  if (enter(P)) return -1;
  char close = open_message(P);
  if (!close) return -1;
  while (!looking_at(P, '>') && !looking_at(P, '}'))
    if (skip_field(P)) return -1;
  if (consume(P, close)) return -1;
  P->depth_left++;
  return 0;
}

static int is_skipped(const parser *P, const ProtobufCMessageDescriptor *d,
                      const token *name) {
  size_t dl = strlen(d->name);
  for (const char *const *s = P->skip; s && *s; s++)
    if (strncmp(*s, d->name, dl) == 0 && (*s)[dl] == '.' &&
        strlen(*s + dl + 1) == name->n &&
        memcmp(*s + dl + 1, name->p, name->n) == 0)
      return 1;
  return 0;
}

/* ---- values -------------------------------------------------------------- */

static int parse_message_body(parser *P, ProtobufCMessage *m, char close);

static int consume_enum(parser *P, const ProtobufCFieldDescriptor *f,
                        int open, int32_t *out) {
  const ProtobufCEnumDescriptor *ed = f->descriptor;
  if (P->cur.type == T_IDENT) {
    token t = P->cur;
    char name[256];
    const ProtobufCEnumValue *ev = NULL;
    if (t.n < sizeof name) {
      memcpy(name, t.p, t.n);
      name[t.n] = '\0';
      ev = protobuf_c_enum_descriptor_get_value_by_name(ed, name);
    }
    if (next(P)) return -1;
    if (!ev) {
      FAIL(P, "Unknown enumeration value of \"%.*s\" for field \"%s\".",
           (int)(t.n < QUOTE_MAX ? t.n : QUOTE_MAX), t.p, f->name);
      return -1;
    }
    *out = ev->value;
    return 0;
  }
  if (!looking_at(P, '-') && P->cur.type != T_INT) {
    FAIL(P, "Expected integer or identifier, got: %.*s", CUR_TEXT(P));
    return -1;
  }
  int64_t v;
  if (consume_signed(P, INT32_MAX, &v)) return -1;
  if (!open && !protobuf_c_enum_descriptor_get_value(ed, (int)v)) {
    FAIL(P, "Unknown enumeration value of \"%" PRId64 "\" for field \"%s\".",
         v, f->name);
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

static int consume_bool(parser *P, const ProtobufCFieldDescriptor *f,
                        protobuf_c_boolean *out) {
  if (P->cur.type == T_INT) {
    uint64_t u;
    if (consume_unsigned(P, 1, &u)) return -1;
    *out = u != 0;
    return 0;
  }
  token t;
  if (consume_identifier(P, &t)) return -1;
  static const char *const yes[] = {"true", "True", "t"};
  static const char *const no[] = {"false", "False", "f"};
  for (int i = 0; i < 3; i++) {
    if (t.n == strlen(yes[i]) && memcmp(t.p, yes[i], t.n) == 0) {
      *out = 1;
      return 0;
    }
    if (t.n == strlen(no[i]) && memcmp(t.p, no[i], t.n) == 0) {
      *out = 0;
      return 0;
    }
  }
  FAIL(P, "Invalid value for boolean field \"%s\". Value: \"%.*s\".", f->name,
       (int)(t.n < QUOTE_MAX ? t.n : QUOTE_MAX), t.p);
  return -1;
}

/* Whether the message type's enums are open (proto3).  protobuf-c's
 * descriptors do not record the syntax; tfsess's schemas are all proto3,
 * and a type with required fields can only be proto2. */
static int is_proto3(const ProtobufCMessageDescriptor *d) {
  for (unsigned i = 0; i < d->n_fields; i++)
    if (d->fields[i].label == PROTOBUF_C_LABEL_REQUIRED) return 0;
  return 1;
}

/* Parses one scalar value of field f into v (owning strings / bytes). */
static int consume_scalar(parser *P, const ProtobufCMessageDescriptor *d,
                          const ProtobufCFieldDescriptor *f, pb_value *v) {
  int64_t i;
  uint64_t u;
  double x;
  memset(v, 0, sizeof *v);
  switch (f->type) {
    case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      if (consume_signed(P, INT32_MAX, &i)) return -1;
      v->i32 = (int32_t)i;
      return 0;
    case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      return consume_signed(P, INT64_MAX, &v->i64);
    case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
      if (consume_unsigned(P, UINT32_MAX, &u)) return -1;
      v->u32 = (uint32_t)u;
      return 0;
    case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
      return consume_unsigned(P, UINT64_MAX, &v->u64);
    case PROTOBUF_C_TYPE_FLOAT:
      if (consume_double(P, &x)) return -1;
      v->f = double_to_float(x);
      return 0;
    case PROTOBUF_C_TYPE_DOUBLE:
      return consume_double(P, &v->d);
    case PROTOBUF_C_TYPE_BOOL:
      return consume_bool(P, f, &v->b);
    case PROTOBUF_C_TYPE_ENUM:
      return consume_enum(P, f, is_proto3(d), &v->i32);
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: {
      strbuf b = {NULL, 0, 0};
      if (consume_string(P, &b)) {
        tfs_free(b.p);
        return -1;
      }
      if (f->type == PROTOBUF_C_TYPE_STRING) {
        v->s = b.p;
      } else {
        v->bin.len = b.n;
        v->bin.data = (uint8_t *)b.p;
      }
      return 0;
    }
    default:
      FAIL(P, "Field \"%s\" has a type the text format does not take.",
           f->name);
      return -1;
  }
}

/* `{ ... }` or `< ... >` for message field f: the new message is stored
 * in m first, so an error leaves it to the caller's free. */
static int consume_field_message(parser *P, ProtobufCMessage *m,
                                 const ProtobufCFieldDescriptor *f) {
  if (enter(P)) return -1;
  char close = open_message(P);
  if (!close) return -1;
  pb_value v;
  v.m = new_message(P, f->descriptor);
  if (!v.m || store(P, m, f, &v)) return -1;
  if (parse_message_body(P, v.m, close)) return -1;
  P->depth_left++;
  return 0;
}

static int consume_one(parser *P, ProtobufCMessage *m,
                       const ProtobufCFieldDescriptor *f) {
  if (f->type == PROTOBUF_C_TYPE_MESSAGE)
    return consume_field_message(P, m, f);
  pb_value v;
  if (consume_scalar(P, m->descriptor, f, &v)) return -1;
  return store(P, m, f, &v);
}

/* ---- google.protobuf.Any ------------------------------------------------- */

/* `[prefix/full.type.Name] { ... }` inside a tensorflow.AnyValue. */
static int consume_any(parser *P, ProtobufCMessage *m) {
  Tensorflow__AnyValue *any = (Tensorflow__AnyValue *)m;
  strbuf url = {NULL, 0, 0};
  token t;
  int r = -1;
  size_t prefix_len;
  if (consume_identifier(P, &t) || sb_add(P, &url, t.p, t.n)) goto out;
  while (try_consume(P, '.'))
    if (consume_identifier(P, &t) || sb_add(P, &url, ".", 1) ||
        sb_add(P, &url, t.p, t.n))
      goto out;
  if (consume(P, '/') || sb_add(P, &url, "/", 1)) goto out;
  prefix_len = url.n;
  if (consume_identifier(P, &t) || sb_add(P, &url, t.p, t.n)) goto out;
  while (try_consume(P, '.'))
    if (consume_identifier(P, &t) || sb_add(P, &url, ".", 1) ||
        sb_add(P, &url, t.p, t.n))
      goto out;
  if (consume(P, ']')) goto out;
  try_consume(P, ':');
  if (P->failed) goto out;
  const ProtobufCMessageDescriptor *d =
      tfs_pb__find_message(url.p + prefix_len, url.n - prefix_len);
  if (!d) {
    FAIL(P, "Could not find type \"%.*s\" stored in google.protobuf.Any.",
         (int)(url.n < QUOTE_MAX ? url.n : QUOTE_MAX), url.p);
    goto out;
  }
  if (enter(P)) goto out;
  char close = open_message(P);
  ProtobufCMessage *inner = close ? new_message(P, d) : NULL;
  if (!inner) goto out;
  if (parse_message_body(P, inner, close)) {
    tfs_pb__free(inner);
    goto out;
  }
  P->depth_left++;
  size_t n = protobuf_c_message_get_packed_size(inner);
  uint8_t *packed = tfs_malloc(n ? n : 1);
  if (packed) protobuf_c_message_pack(inner, packed);
  tfs_pb__free(inner);
  if (!packed || sb_add(P, &url, "", 1)) {
    tfs_free(packed);
    oom(P);
    goto out;
  }
  if ((any->type_url && any->type_url[0]) || any->value.len) {
    tfs_free(packed);
    FAIL(P, "Non-repeated Any specified multiple times.");
    goto out;
  }
  const ProtobufCFieldDescriptor *fu = &m->descriptor->fields[0];
  const ProtobufCFieldDescriptor *fv = &m->descriptor->fields[1];
  release_member(fu, &any->type_url);
  release_member(fv, &any->value);
  any->type_url = url.p;
  url.p = NULL;
  any->value.data = packed;
  any->value.len = n;
  r = 0;
out:
  tfs_free(url.p);
  return r;
}

/* ---- fields -------------------------------------------------------------- */

/* `name: [v, ...]` (the `[` consumed); `[]` is empty. */
static int consume_list(parser *P, ProtobufCMessage *m,
                        const ProtobufCFieldDescriptor *f) {
  if (try_consume(P, ']')) return P->failed ? -1 : 0;
  for (;;) {
    if (consume_one(P, m, f)) return -1;
    if (try_consume(P, ']')) return P->failed ? -1 : 0;
    if (consume(P, ',')) return -1;
  }
}

static int check_not_set(parser *P, ProtobufCMessage *m,
                         const ProtobufCFieldDescriptor *f) {
  if (f->label == PROTOBUF_C_LABEL_REPEATED) return 0;
  if (field_is_set(m, f)) {
    FAIL(P, "Non-repeated field \"%s\" is specified multiple times.",
         f->name);
    return -1;
  }
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
    uint32_t other = *(const uint32_t *)MEMBER(m, f->quantifier_offset);
    const ProtobufCFieldDescriptor *o =
        other ? protobuf_c_message_descriptor_get_field(m->descriptor, other)
              : NULL;
    if (o) {
      FAIL(P, "Field \"%s\" is specified along with field \"%s\", another "
              "member of oneof \"%s\".",
           f->name, o->name, tfs_pb__oneof_name(m->descriptor, f));
      return -1;
    }
  }
  return 0;
}

static const ProtobufCFieldDescriptor *find_field(
    const ProtobufCMessageDescriptor *d, const token *name) {
  char buf[256];
  if (name->n >= sizeof buf) return NULL;
  memcpy(buf, name->p, name->n);
  buf[name->n] = '\0';
  return protobuf_c_message_descriptor_get_field_by_name(d, buf);
}

static int consume_field(parser *P, ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  if (d == &tensorflow__any_value__descriptor && try_consume(P, '['))
    return consume_any(P, m);
  token name;
  if (try_consume(P, '[')) {
    /* extensions: none of tfsess's types has any */
    strbuf full = {NULL, 0, 0};
    int r = consume_identifier(P, &name) || sb_add(P, &full, name.p, name.n);
    while (!r && try_consume(P, '.'))
      r = consume_identifier(P, &name) || sb_add(P, &full, ".", 1) ||
          sb_add(P, &full, name.p, name.n);
    if (!r && !consume(P, ']'))
      FAIL(P, "Extension \"%.*s\" is not defined or is not an extension of "
              "\"%s\".",
           (int)(full.n < QUOTE_MAX ? full.n : QUOTE_MAX), full.p, d->name);
    tfs_free(full.p);
    return -1;
  }
  if (consume_identifier(P, &name)) return -1;
  const ProtobufCFieldDescriptor *f = find_field(d, &name);
  if (!f) {
    if (!is_skipped(P, d, &name)) {
      FAIL(P, "Message type \"%s\" has no field named \"%.*s\".", d->name,
           (int)(name.n < QUOTE_MAX ? name.n : QUOTE_MAX), name.p);
      return -1;
    }
    int r = try_consume(P, ':') && !looking_at(P, '{') && !looking_at(P, '<')
                ? skip_value(P, 0)
                : skip_message(P);
    if (r) return -1;
  } else {
    if (check_not_set(P, m, f)) return -1;
    if (f->type == PROTOBUF_C_TYPE_MESSAGE)
      try_consume(P, ':');
    else if (consume(P, ':'))
      return -1;
    if (P->failed) return -1;
    if (f->label == PROTOBUF_C_LABEL_REPEATED && try_consume(P, '[')) {
      if (consume_list(P, m, f)) return -1;
    } else if (consume_one(P, m, f)) {
      return -1;
    }
  }
  if (!try_consume(P, ';')) try_consume(P, ',');
  return P->failed ? -1 : 0;
}

/* Fields up to the closing delimiter (consumed), or to the end of the
 * input for the top level (close 0). */
static int parse_message_body(parser *P, ProtobufCMessage *m, char close) {
  if (!close) {
    while (P->cur.type != T_END)
      if (consume_field(P, m)) return -1;
    return P->failed ? -1 : 0;
  }
  while (!looking_at(P, '>') && !looking_at(P, '}'))
    if (consume_field(P, m)) return -1;
  return consume(P, close);
}

ProtobufCMessage *tfs_pb__parse_text(const ProtobufCMessageDescriptor *desc,
                                     const char *text, size_t len,
                                     const char *const *skip_fields,
                                     tfs_status *st) {
  tfs_status_clear(st);
  if (!desc || (!text && len)) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "tfs_pb__parse_text needs a descriptor and text");
    return NULL;
  }
  parser P;
  memset(&P, 0, sizeof P);
  P.pos = text ? text : "";
  P.end = P.pos + len;
  P.st = st;
  P.depth_left = TFS_PB_MAX_DEPTH;
  P.skip = skip_fields;
  ProtobufCMessage *m = new_message(&P, desc);
  if (!m) return NULL;
  if (next(&P) || parse_message_body(&P, m, 0)) {
    tfs_pb__free(m);
    return NULL;
  }
  return m;
}

/*
 * tests/io/json_mini.c - the strict JSON parser of json_mini.h.
 */
#include "json_mini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *s, *p;
  char *err;
  size_t errlen;
  int depth;
} parser;

static int fail(parser *ps, const char *why) {
  if (ps->err && ps->err[0] == 0)
    snprintf(ps->err, ps->errlen, "%s at offset %ld", why,
             (long)(ps->p - ps->s));
  return -1;
}

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
    ps->p++;
}

static int hex4(parser *ps, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = ps->p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return fail(ps, "bad \\u escape");
  }
  ps->p += 4;
  *out = v;
  return 0;
}

static void put_utf8(char *out, size_t *n, unsigned cp) {
  if (cp < 0x80) {
    out[(*n)++] = (char)cp;
  } else if (cp < 0x800) {
    out[(*n)++] = (char)(0xC0 | (cp >> 6));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[(*n)++] = (char)(0xE0 | (cp >> 12));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  } else {
    out[(*n)++] = (char)(0xF0 | (cp >> 18));
    out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[(*n)++] = (char)(0x80 | (cp & 0x3F));
  }
}

static int parse_string(parser *ps, char **out) {
  ps->p++; /* the opening quote */
  const char *start = ps->p;
  size_t cap = 1;
  while (*ps->p && *ps->p != '"') {
    if (*ps->p == '\\' && ps->p[1]) ps->p++;
    ps->p++;
    cap += 4;
  }
  ps->p = start;
  char *s = malloc(cap);
  size_t n = 0;
  if (!s) return fail(ps, "out of memory");
  for (;;) {
    unsigned char c = (unsigned char)*ps->p;
    if (c == 0) {
      free(s);
      return fail(ps, "unterminated string");
    }
    if (c == '"') break;
    if (c < 0x20) {
      free(s);
      return fail(ps, "raw control character in a string");
    }
    if (c != '\\') {
      s[n++] = (char)c;
      ps->p++;
      continue;
    }
    char e = *++ps->p;
    ps->p++;
    const char *simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      static const char map[] = "\"\\/\b\f\n\r\t";
      s[n++] = map[simple - "\"\\/bfnrt"];
      continue;
    }
    unsigned cp, lo;
    if (e != 'u' || hex4(ps, &cp)) {
      free(s);
      return fail(ps, "bad escape");
    }
    if (cp >= 0xD800 && cp < 0xDC00) {
      if (ps->p[0] != '\\' || ps->p[1] != 'u') {
        free(s);
        return fail(ps, "lone surrogate");
      }
      ps->p += 2;
      if (hex4(ps, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
        free(s);
        return fail(ps, "bad surrogate pair");
      }
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (cp >= 0xDC00 && cp < 0xE000) {
      free(s);
      return fail(ps, "lone surrogate");
    }
    put_utf8(s, &n, cp);
  }
  ps->p++;
  s[n] = 0;
  *out = s;
  return 0;
}

static int parse_number(parser *ps, double *out) {
  const char *p = ps->p;
  if (*p == '-') p++;
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    while (*p >= '0' && *p <= '9') p++;
  } else {
    return fail(ps, "bad number");
  }
  if (*p == '.') {
    p++;
    if (!(*p >= '0' && *p <= '9')) return fail(ps, "bad fraction");
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) return fail(ps, "bad exponent");
    while (*p >= '0' && *p <= '9') p++;
  }
  *out = strtod(ps->p, NULL);
  ps->p = p;
  return 0;
}

static int parse_value(parser *ps, json_val *v);

static int add_item(parser *ps, json_val *v, int *cap, char *key) {
  if (v->n == *cap) {
    *cap = *cap ? 2 * *cap : 8;
    json_val *items = realloc(v->items, (size_t)*cap * sizeof *items);
    if (!items) return fail(ps, "out of memory");
    v->items = items;
    if (v->kind == JSON_OBJ) {
      char **keys = realloc(v->keys, (size_t)*cap * sizeof *keys);
      if (!keys) return fail(ps, "out of memory");
      v->keys = keys;
    }
  }
  memset(&v->items[v->n], 0, sizeof *v->items);
  if (v->kind == JSON_OBJ) v->keys[v->n] = key;
  v->n++;
  return parse_value(ps, &v->items[v->n - 1]);
}

static int parse_container(parser *ps, json_val *v, char close) {
  int cap = 0;
  ps->p++;
  skip_ws(ps);
  if (*ps->p == close) {
    ps->p++;
    return 0;
  }
  for (;;) {
    char *key = NULL;
    if (v->kind == JSON_OBJ) {
      if (*ps->p != '"') return fail(ps, "expected a key");
      if (parse_string(ps, &key)) return -1;
      skip_ws(ps);
      if (*ps->p != ':') {
        free(key);
        return fail(ps, "expected ':'");
      }
      ps->p++;
    }
    if (add_item(ps, v, &cap, key)) {
      if (v->kind == JSON_OBJ && (v->n == 0 || v->keys[v->n - 1] != key))
        free(key);
      return -1;
    }
    skip_ws(ps);
    if (*ps->p == close) {
      ps->p++;
      return 0;
    }
    if (*ps->p != ',') return fail(ps, "expected ',' or the end");
    ps->p++;
    skip_ws(ps);
  }
}

static int parse_value(parser *ps, json_val *v) {
  skip_ws(ps);
  if (++ps->depth > 200) return fail(ps, "nested too deep");
  int rc = 0;
  char c = *ps->p;
  if (c == '{' || c == '[') {
    v->kind = c == '{' ? JSON_OBJ : JSON_ARR;
    rc = parse_container(ps, v, c == '{' ? '}' : ']');
  } else if (c == '"') {
    v->kind = JSON_STR;
    rc = parse_string(ps, &v->str);
  } else if (strncmp(ps->p, "true", 4) == 0 ||
             strncmp(ps->p, "false", 5) == 0) {
    v->kind = JSON_BOOL;
    v->num = c == 't';
    ps->p += c == 't' ? 4 : 5;
  } else if (strncmp(ps->p, "null", 4) == 0) {
    v->kind = JSON_NULL;
    ps->p += 4;
  } else {
    v->kind = JSON_NUM;
    rc = parse_number(ps, &v->num);
  }
  ps->depth--;
  return rc;
}

static void free_inner(json_val *v) {
  for (int i = 0; i < v->n; i++) {
    free_inner(&v->items[i]);
    if (v->kind == JSON_OBJ) free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
}

json_val *json_parse(const char *text, char *err, size_t errlen) {
  parser ps = {text, text, err, errlen, 0};
  if (err && errlen) err[0] = 0;
  json_val *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  int rc = parse_value(&ps, v);
  if (rc == 0) {
    skip_ws(&ps);
    if (*ps.p) rc = fail(&ps, "text after the value");
  }
  if (rc) {
    json_free(v);
    return NULL;
  }
  return v;
}

void json_free(json_val *v) {
  if (!v) return;
  free_inner(v);
  free(v);
}

const json_val *json_get(const json_val *v, const char *key) {
  if (!v || v->kind != JSON_OBJ) return NULL;
  for (int i = 0; i < v->n; i++)
    if (strcmp(v->keys[i], key) == 0) return &v->items[i];
  return NULL;
}

const char *json_get_str(const json_val *v, const char *key) {
  const json_val *m = json_get(v, key);
  return m && m->kind == JSON_STR ? m->str : NULL;
}

/*
 * tests/io/json_mini.h - a small strict JSON parser (RFC 8259: no
 * trailing commas, no raw control characters in strings, JSON's number
 * grammar, \uXXXX with surrogate pairs) for the suites that check the
 * Chrome trace files: the text becomes a tree they walk.
 */
#ifndef TFS_TESTS_IO_JSON_MINI_H
#define TFS_TESTS_IO_JSON_MINI_H

#include <stddef.h>

typedef enum {
  JSON_NULL,
  JSON_BOOL,
  JSON_NUM,
  JSON_STR,
  JSON_ARR,
  JSON_OBJ
} json_kind;

typedef struct json_val {
  json_kind kind;
  double num;             /* JSON_NUM; JSON_BOOL: 0 or 1 */
  char *str;              /* JSON_STR (UTF-8, NUL-terminated) */
  int n;                  /* JSON_ARR / JSON_OBJ: number of items */
  struct json_val *items; /* their values */
  char **keys;            /* JSON_OBJ: their keys */
} json_val;

/* Parses the whole text (whitespace around the value allowed).  Returns
 * the tree (free with json_free) or NULL with the reason and offset in
 * err. */
json_val *json_parse(const char *text, char *err, size_t errlen);
void json_free(json_val *v);

/* The member `key` of an object, or NULL (also when v is no object). */
const json_val *json_get(const json_val *v, const char *key);
/* Its string, or NULL when missing or not a string. */
const char *json_get_str(const json_val *v, const char *key);

#endif

/*
 * core/attr_value.h - attribute values (TensorFlow's AttrValue): scalars,
 * lists, shapes, tensors, function references and placeholders, plus a
 * sorted name->value map used by nodes and op definitions.
 */
#ifndef TFS_CORE_ATTR_VALUE_H
#define TFS_CORE_ATTR_VALUE_H

#include "core/shape.h"
#include "core/strbuf.h"
#include "core/tensor.h"

/* Numbering equals TensorFlow's TF_AttrType. */
typedef enum tfs_attr_type {
  TFS_ATTR_STRING = 0,
  TFS_ATTR_INT = 1,
  TFS_ATTR_FLOAT = 2,
  TFS_ATTR_BOOL = 3,
  TFS_ATTR_TYPE = 4,
  TFS_ATTR_SHAPE = 5,
  TFS_ATTR_TENSOR = 6,
  TFS_ATTR_PLACEHOLDER = 7,
  TFS_ATTR_FUNC = 8
} tfs_attr_type;

typedef struct tfs_bytes {
  char *ptr;  /* NUL-terminated copy */
  size_t len;
} tfs_bytes;

struct tfs_attrs;

typedef struct tfs_func_attr {
  char *name;
  struct tfs_attrs *attrs; /* may be NULL */
} tfs_func_attr;

typedef struct tfs_attr_value {
  uint8_t type;    /* tfs_attr_type */
  uint8_t is_list;
  union {
    tfs_bytes s;
    int64_t i;
    float f;
    uint8_t b;
    tfs_dtype type;
    tfs_shape *shape;
    tfs_tensor *tensor;
    char *placeholder;
    tfs_func_attr *func;
    struct {
      int n;
      void *v; /* tfs_bytes[], int64_t[], float[], uint8_t[], tfs_dtype[],
                  tfs_shape[], tfs_tensor*[], tfs_func_attr[] */
    } list;
  } u;
} tfs_attr_value;

typedef struct tfs_attr_entry {
  char *name;
  tfs_attr_value value;
} tfs_attr_entry;

typedef struct tfs_attrs {
  int n, cap;
  tfs_attr_entry *e; /* sorted by name */
} tfs_attrs;

/* Constructors fill *v; the ones that copy return 0 or -1 on OOM. */
void tfs_attr_int(tfs_attr_value *v, int64_t i);
void tfs_attr_float(tfs_attr_value *v, float f);
void tfs_attr_bool(tfs_attr_value *v, int b);
void tfs_attr_type_val(tfs_attr_value *v, tfs_dtype t);
int tfs_attr_string(tfs_attr_value *v, const char *s, size_t len);
int tfs_attr_shape(tfs_attr_value *v, const tfs_shape *s);
/* Takes a new reference to t. */
void tfs_attr_tensor(tfs_attr_value *v, tfs_tensor *t);
int tfs_attr_placeholder(tfs_attr_value *v, const char *name);
int tfs_attr_func(tfs_attr_value *v, const char *name, size_t len);
/* Lists of n elements copied from `items` (element kinds as in the union;
 * strings given as tfs_bytes whose bytes are copied; tensors get new
 * references).  n may be 0. */
int tfs_attr_list(tfs_attr_value *v, tfs_attr_type type, int n,
                  const void *items);

void tfs_attr_value_clear(tfs_attr_value *v);
int tfs_attr_value_copy(tfs_attr_value *dst, const tfs_attr_value *src);
int tfs_attr_value_equal(const tfs_attr_value *a, const tfs_attr_value *b);
/* TensorFlow's SummarizeAttrValue text. */
void tfs_attr_value_summary(tfs_strbuf *b, const tfs_attr_value *v);
/* "int", "list(type)", ... */
const char *tfs_attr_type_string(const tfs_attr_value *v);

/* Attr maps. */
void tfs_attrs_init(tfs_attrs *a);
void tfs_attrs_clear(tfs_attrs *a);
const tfs_attr_value *tfs_attrs_find(const tfs_attrs *a, const char *name);
/* Inserts or replaces `name`, taking ownership of *v (cleared on return,
 * also on failure).  Returns 0 or -1 on OOM. */
int tfs_attrs_set(tfs_attrs *a, const char *name, tfs_attr_value *v);
int tfs_attrs_remove(tfs_attrs *a, const char *name);
int tfs_attrs_copy(tfs_attrs *dst, const tfs_attrs *src);
int tfs_attrs_equal(const tfs_attrs *a, const tfs_attrs *b);

/* Typed getters: return 0 when found with that type, else -1. */
int tfs_attrs_get_int(const tfs_attrs *a, const char *name, int64_t *out);
int tfs_attrs_get_float(const tfs_attrs *a, const char *name, float *out);
int tfs_attrs_get_bool(const tfs_attrs *a, const char *name, int *out);
int tfs_attrs_get_type(const tfs_attrs *a, const char *name, tfs_dtype *out);
/* Borrowed. */
const char *tfs_attrs_get_string(const tfs_attrs *a, const char *name,
                                 size_t *len);
const tfs_shape *tfs_attrs_get_shape(const tfs_attrs *a, const char *name);
const tfs_tensor *tfs_attrs_get_tensor(const tfs_attrs *a, const char *name);
/* List getters: *n and a borrowed pointer to the elements. */
const int64_t *tfs_attrs_get_int_list(const tfs_attrs *a, const char *name,
                                      int *n);
const tfs_dtype *tfs_attrs_get_type_list(const tfs_attrs *a,
                                         const char *name, int *n);

#endif

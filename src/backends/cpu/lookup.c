/*
 * backends/cpu/lookup.c - TensorFlow's lookup table kernels: HashTableV2
 * and MutableHashTableV2 make (on their first run) a table in the
 * session's resource manager and output its handle; the ops on the handle
 * find, insert, remove, count, export and import entries, and the
 * initializers fill a HashTable once, from two vectors or from a text file
 * (vocabularies).  Checks and messages are TensorFlow 2.21's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/lookup_table.h"
#include "core/alloc.h"
#include "core/resource_mgr.h"
#include "core/strbuf.h"

#define DEFAULT_CONTAINER "localhost"
#define TABLE_TYPE "N10tensorflow6lookup15LookupInterfaceE"

/* ---- the table ops ------------------------------------------------------ */

typedef struct {
  char *container;
  char *name;
  tfs_table_kind kind;
  tfs_dtype kdt, vdt;
} table_state;

static void table_release(void *p) {
  table_state *s = p;
  if (!s) return;
  tfs_free(s->container);
  tfs_free(s->name);
  tfs_free(s);
}

#define B(dt) TFS_DT_BIT(dt)
/* The value dtypes TensorFlow registers per key dtype, on the CPU. */
static uint64_t values_for(tfs_table_kind kind, tfs_dtype key) {
  uint64_t num = B(TFS_INT32) | B(TFS_FLOAT) | B(TFS_DOUBLE);
  switch (key) {
    case TFS_STRING:
      return num | B(TFS_INT64) | B(TFS_BOOL) |
             (kind == TFS_TABLE_HASH ? B(TFS_STRING) : 0);
    case TFS_INT64:
      return num | B(TFS_INT64) | B(TFS_STRING);
    case TFS_INT32:
      return num | (kind == TFS_TABLE_HASH ? B(TFS_STRING) : 0);
    default:
      return 0;
  }
}

/* "DT_INT64", as TensorFlow names a dtype in attr lists. */
static void dt_enum_name(tfs_dtype dt, char *buf, size_t cap) {
  const char *n = tfs_dtype_name(dt);
  size_t k = (size_t)snprintf(buf, cap, "DT_");
  for (; *n && k + 1 < cap; n++)
    buf[k++] = (char)(*n >= 'a' && *n <= 'z' ? *n - 'a' + 'A' : *n);
  buf[k] = 0;
}

static int table_prepare(tfs_kernel_init *ki) {
  table_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->kind = (tfs_table_kind)(intptr_t)ki->kdata;
  tfs_attrs_get_type(ki->attrs, "key_dtype", &s->kdt);
  tfs_attrs_get_type(ki->attrs, "value_dtype", &s->vdt);
  if (!((unsigned)s->vdt < 64 &&
        (values_for(s->kind, s->kdt) & B(s->vdt)))) {
    char k[32], v[32];
    dt_enum_name(s->kdt, k, sizeof k);
    dt_enum_name(s->vdt, v, sizeof v);
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "No OpKernel was registered to support Op '%s' used "
                        "by {{node %s}} with these attrs: [key_dtype=%s, "
                        "value_dtype=%s]",
                        ki->op->name, ki->node_name, k, v);
  }
  size_t len;
  const char *container = tfs_attrs_get_string(ki->attrs, "container", &len);
  const char *shared = tfs_attrs_get_string(ki->attrs, "shared_name", &len);
  int by_node = 0;
  tfs_attrs_get_bool(ki->attrs, "use_node_name_sharing", &by_node);
  s->container = tfs_strdup(container && *container ? container
                                                     : DEFAULT_CONTAINER);
  /* Without a shared name TensorFlow makes a name of its own that stays
   * the same for the kernel's life; a session's plans share the table of
   * a node through its name. */
  if (shared && *shared)
    s->name = tfs_strdup(shared);
  else if (by_node)
    s->name = tfs_strdup(ki->node_name);
  else
    s->name = tfs_asprintf("_table_%s", ki->node_name);
  if (!s->container || !s->name)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

/* Tables in the session's resource manager: freed with it, nothing to
 * wake (no lookup waits). */
static const tfs_resource_kind kTableKind = {TABLE_TYPE, tfs_table__free,
                                             NULL};

static void *create_table(void *arg, tfs_status *st) {
  const table_state *s = arg;
  tfs_lookup_table *t = tfs_table__new(s->kind, s->kdt, s->vdt);
  if (!t) TFS_OOM(st);
  return t;
}

static void table_compute(tfs_kernel_ctx *c) {
  table_state *s = c->state;
  int created;
  tfs_lookup_table *t = tfs_resource_mgr_lookup_or_create(
      tfs_kctx_resources(c), s->container, s->name, &kTableKind, create_table,
      (void *)s, &created, c->st);
  if (!t) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (tfs_table__key_dtype(t) != s->kdt ||
      tfs_table__value_dtype(t) != s->vdt || tfs_table__kind(t) != s->kind) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Conflicting key/value dtypes %s->%s with %s->%s",
                  tfs_dtype_name(s->kdt), tfs_dtype_name(s->vdt),
                  tfs_dtype_name(tfs_table__key_dtype(t)),
                  tfs_dtype_name(tfs_table__value_dtype(t)));
    return;
  }
  tfs_shape sc;
  tfs_shape_scalar(&sc);
  tfs_resource_handle *h =
      tfs_resource_handle_new(s->container, s->name, TABLE_TYPE, TFS_INVALID,
                              &sc);
  tfs_tensor *o = h ? tfs_tensor__resource(h, c->st) : NULL;
  if (!o) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_kctx_set_output(c, 0, o);
}

/* ---- ops on a table's handle -------------------------------------------- */

/* The table behind input 0, or NULL after failing. */
static tfs_lookup_table *table_of(tfs_kernel_ctx *c) {
  const tfs_resource_handle *h = tfs_kctx_input_handle(c, 0);
  if (!h) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected a scalar resource handle");
    return NULL;
  }
  tfs_lookup_table *tb = tfs_resource_mgr_lookup(
      tfs_kctx_resources(c), h->container, h->name, &kTableKind);
  if (!tb)
    tfs_kctx_fail(c, TFS_NOT_FOUND,
                  "Resource %s/%s/%s does not exist.", h->container, h->name,
                  TABLE_TYPE);
  return tb;
}

/* TensorFlow's MatchSignature: the node's input and output dtypes against
 * (resource, key, value) as the op uses them.  `ins`/`outs`: how many of
 * key, value the inputs and outputs hold. */
static int match_signature(tfs_kernel_ctx *c, tfs_lookup_table *t, int ins,
                           int outs, const tfs_dtype *have_in,
                           const tfs_dtype *have_out) {
  tfs_dtype want[2] = {tfs_table__key_dtype(t), tfs_table__value_dtype(t)};
  const tfs_dtype *want_out = outs == 1 ? want + 1 : want;
  int ok = 1;
  for (int i = 0; i < ins; i++) ok &= have_in[i] == want[i];
  for (int i = 0; i < outs; i++) ok &= have_out[i] == want_out[i];
  if (ok) return 0;
  tfs_strbuf h = TFS_STRBUF_INIT, w = TFS_STRBUF_INIT;
  tfs_strbuf_puts(&h, "resource");
  tfs_strbuf_puts(&w, "resource");
  for (int i = 0; i < ins; i++) {
    tfs_strbuf_printf(&h, ", %s", tfs_dtype_name(have_in[i]));
    tfs_strbuf_printf(&w, ", %s", tfs_dtype_name(want[i]));
  }
  tfs_strbuf_puts(&h, "->");
  tfs_strbuf_puts(&w, "->");
  for (int i = 0; i < outs; i++) {
    tfs_strbuf_printf(&h, "%s%s", i ? ", " : "",
                      tfs_dtype_name(have_out[i]));
    tfs_strbuf_printf(&w, "%s%s", i ? ", " : "",
                      tfs_dtype_name(want_out[i]));
  }
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Signature mismatch, have: %s expected: %s",
                tfs_strbuf_str(&h), tfs_strbuf_str(&w));
  tfs_strbuf_free(&h);
  tfs_strbuf_free(&w);
  return -1;
}

static int match_inputs(tfs_kernel_ctx *c, tfs_lookup_table *t, int ins) {
  tfs_dtype have[2] = {c->inputs[1]->dtype,
                       ins > 1 ? c->inputs[2]->dtype : TFS_INVALID};
  return match_signature(c, t, ins, 0, have, NULL);
}

static void find_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t) return;
  const tfs_tensor *keys = c->inputs[1], *def = c->inputs[2];
  tfs_dtype have[2] = {keys->dtype, def->dtype};
  if (match_signature(c, t, 2, 1, have, c->out_types)) return;
  if (tfs_table__kind(t) == TFS_TABLE_HASH && !tfs_table__initialized(t)) {
    tfs_kctx_fail(c, TFS_FAILED_PRECONDITION, "Table not initialized.");
    return;
  }
  /* the default is a value (a scalar) or one value per key */
  int per_key = tfs_shape_equal(&def->shape, &keys->shape);
  if (def->shape.rank != 0 && !per_key) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected shape [] or %s for default value, got %s",
                  tfs_shape_str(&keys->shape, a, sizeof a),
                  tfs_shape_str(&def->shape, b, sizeof b));
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &keys->shape);
  if (!o) return;
  /* TensorFlow's HashTable reads only the first element of a default
   * given per key; a MutableHashTable uses each */
  tfs_table__find(t, keys, def,
                  per_key && tfs_table__kind(t) == TFS_TABLE_MUTABLE, o);
}

/* Values must have the keys' shape (scalar values). */
static int check_values_shape(tfs_kernel_ctx *c, const tfs_tensor *keys,
                              const tfs_tensor *values) {
  if (tfs_shape_equal(&keys->shape, &values->shape)) return 0;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Expected shape %s for value, got %s",
                tfs_shape_str(&keys->shape, a, sizeof a),
                tfs_shape_str(&values->shape, b, sizeof b));
  return -1;
}

static void insert_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t || match_inputs(c, t, 2)) return;
  if (tfs_table__kind(t) == TFS_TABLE_HASH) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Insert not supported by InitializableLookupTable "
                  "implementations");
    return;
  }
  if (check_values_shape(c, c->inputs[1], c->inputs[2])) return;
  if (tfs_table__insert(t, c->inputs[1], c->inputs[2], c->st))
    tfs_kctx_fail_status(c, c->st);
}

static void remove_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t || match_inputs(c, t, 1)) return;
  if (tfs_table__kind(t) == TFS_TABLE_HASH) {
    tfs_kctx_fail(c, TFS_UNIMPLEMENTED,
                  "Remove not supported by InitializableLookupTable "
                  "implementations");
    return;
  }
  tfs_table__remove(t, c->inputs[1]);
}

static void size_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t) return;
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (o) *(int64_t *)o->data = tfs_table__size(t);
}

static void export_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t || match_signature(c, t, 0, 2, NULL, c->out_types)) return;
  if (tfs_table__kind(t) == TFS_TABLE_HASH && !tfs_table__initialized(t)) {
    tfs_kctx_fail(c, TFS_ABORTED, "HashTable is not initialized.");
    return;
  }
  tfs_tensor *k, *v;
  if (tfs_table__export(t, &k, &v, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_kctx_set_output(c, 0, k);
  tfs_kctx_set_output(c, 1, v);
}

/* Fills a HashTable once from keys and values (InitializeTableV2, and
 * LookupTableImportV2 on a HashTable).  On a table already initialised,
 * TensorFlow accepts as many keys as the table has entries (it compares
 * the counts only) and leaves the table as it is. */
static void init_from_tensors(tfs_kernel_ctx *c, tfs_lookup_table *t) {
  const tfs_tensor *keys = c->inputs[1], *values = c->inputs[2];
  if (keys->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "keys and values cannot be empty tensors.");
    return;
  }
  tfs_table__lock_init(t);
  if (tfs_table__initialized(t)) {
    if (tfs_table__size(t) != keys->nelems)
      tfs_kctx_fail(c, TFS_FAILED_PRECONDITION,
                    "Table was already initialized with different data.");
  } else if (tfs_table__insert(t, keys, values, c->st)) {
    tfs_table__clear(t);
    tfs_kctx_fail_status(c, c->st);
  } else {
    tfs_table__set_initialized(t);
  }
  tfs_table__unlock_init(t);
}

static void init_table_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t || match_inputs(c, t, 2)) return;
  const tfs_tensor *keys = c->inputs[1], *values = c->inputs[2];
  if (keys->shape.rank != 1 ||
      !tfs_shape_equal(&keys->shape, &values->shape)) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Keys and values must be 1-D tensors of the same size: %s "
                  "vs %s",
                  tfs_shape_str(&keys->shape, a, sizeof a),
                  tfs_shape_str(&values->shape, b, sizeof b));
    return;
  }
  if (tfs_table__kind(t) != TFS_TABLE_HASH) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Table %s is not initializable", TABLE_TYPE);
    return;
  }
  init_from_tensors(c, t);
}

static void import_compute(tfs_kernel_ctx *c) {
  tfs_lookup_table *t = table_of(c);
  if (!t || match_inputs(c, t, 2)) return;
  const tfs_tensor *keys = c->inputs[1], *values = c->inputs[2];
  if (check_values_shape(c, keys, values)) return;
  if (tfs_table__kind(t) == TFS_TABLE_HASH) {
    init_from_tensors(c, t);
    return;
  }
  tfs_table__lock_init(t);
  tfs_table__clear(t);
  if (tfs_table__insert(t, keys, values, c->st))
    tfs_kctx_fail_status(c, c->st);
  tfs_table__unlock_init(t);
}

/* ---- InitializeTableFromTextFileV2 -------------------------------------- */

#define WHOLE_LINE (-2)
#define LINE_NUMBER (-1)

typedef struct {
  int64_t key_index, value_index, vocab_size, offset;
  char delim;
} text_state;

static int text_prepare(tfs_kernel_init *ki) {
  text_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->vocab_size = -1;
  s->delim = '\t';
  tfs_attrs_get_int(ki->attrs, "key_index", &s->key_index);
  tfs_attrs_get_int(ki->attrs, "value_index", &s->value_index);
  tfs_attrs_get_int(ki->attrs, "vocab_size", &s->vocab_size);
  tfs_attrs_get_int(ki->attrs, "offset", &s->offset);
  size_t len = 1;
  const char *d = tfs_attrs_get_string(ki->attrs, "delimiter", &len);
  if (d && len != 1)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "delimiter should be only 1 char");
  if (d) s->delim = d[0];
  return 0;
}

/* The dtype checks TensorFlow makes before it opens the file. */
static int check_text_dtypes(tfs_kernel_ctx *c, const text_state *s,
                             tfs_dtype kdt, tfs_dtype vdt) {
  const char *what[2] = {"Key", "Value"};
  int64_t idx[2] = {s->key_index, s->value_index};
  tfs_dtype dt[2] = {kdt, vdt};
  for (int i = 0; i < 2; i++) {
    if (idx[i] == LINE_NUMBER && dt[i] != TFS_INT64) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s index for line number requires table %s dtype of "
                    "int64, got %s",
                    what[i], i ? "value" : "key", tfs_dtype_name(dt[i]));
      return -1;
    }
    if (idx[i] == WHOLE_LINE && dt[i] != TFS_STRING && dt[i] != TFS_INT64 &&
        dt[i] != TFS_INT32) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%s index for whole line requires table %s dtype of "
                    "integer or string, got %s",
                    what[i], i ? "value" : "key", tfs_dtype_name(dt[i]));
      return -1;
    }
  }
  return 0;
}

/* Reads one field as dtype dt (TensorFlow's safe_strto* rules: spaces
 * around the number are allowed, nothing else).  0, or -1. */
static int parse_field(const char *f, size_t len, tfs_dtype dt,
                       tfs_table_scalar *o) {
  memset(o, 0, sizeof *o);
  o->s = f;
  o->len = len;
  if (dt == TFS_STRING) return 0;
  char buf[128];
  if (len >= sizeof buf) return -1;
  memcpy(buf, f, len);
  buf[len] = 0;
  char *p = buf, *e;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r')) p++;
  if (!*p) return -1;
  errno = 0;
  if (dt == TFS_INT64 || dt == TFS_INT32) {
    long long v = strtoll(p, &e, 10);
    if (errno || e == p) return -1;
    if (dt == TFS_INT32 && (v < INT32_MIN || v > INT32_MAX)) return -1;
    o->i = v;
  } else {
    o->d = dt == TFS_FLOAT ? (double)strtof(p, &e) : strtod(p, &e);
    if (e == p) return -1;
  }
  while (*e == ' ' || (*e >= '\t' && *e <= '\r')) e++;
  return *e ? -1 : 0;
}

typedef struct {
  const char *p;
  size_t len;
} field;

/* Field `idx` of a line split at `delim`; -1 when the line has fewer
 * (n: the number of fields). */
static int nth_field(const char *line, size_t len, char delim, int64_t idx,
                     field *out, int64_t *n) {
  int64_t k = 0;
  size_t start = 0;
  int found = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || line[i] == delim) {
      if (k == idx) {
        out->p = line + start;
        out->len = i - start;
        found = 1;
      }
      k++;
      start = i + 1;
    }
  }
  *n = k;
  return found ? 0 : -1;
}

/* Key or value of line `n` from index `idx`; -1 after failing. */
static int line_item(tfs_kernel_ctx *c, const text_state *s, int64_t idx,
                     tfs_dtype dt, const char *line, size_t len, int64_t n,
                     tfs_table_scalar *o) {
  field f = {line, len};
  if (idx == LINE_NUMBER) {
    memset(o, 0, sizeof *o);
    o->i = n + s->offset;
    return 0;
  }
  if (idx != WHOLE_LINE) {
    int64_t nf;
    nth_field(line, len, s->delim, idx, &f, &nf);
  }
  if (parse_field(f.p, f.len, dt, o) == 0) return 0;
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                "Field %.*s in line %lld is not a valid %s.",
                (int)(f.len > 200 ? 200 : f.len), f.p, (long long)n,
                tfs_dtype_name(dt));
  return -1;
}

/* Reads the file into the table, line by line. */
static int read_text(tfs_kernel_ctx *c, const text_state *s,
                     tfs_lookup_table *t, const char *path, FILE *fp) {
  tfs_dtype kdt = tfs_table__key_dtype(t), vdt = tfs_table__value_dtype(t);
  int64_t maxidx = s->key_index > s->value_index ? s->key_index
                                                 : s->value_index;
  char *line = NULL;
  size_t cap = 0;
  int64_t n = 0, pos = 0;
  int rc = 0;
  ssize_t got;
  while (rc == 0 && (s->vocab_size < 0 || n < s->vocab_size) &&
         (got = getline(&line, &cap, fp)) >= 0) {
    pos += got;
    size_t len = (size_t)got;
    if (len && line[len - 1] == '\n') len--;
    if (len && line[len - 1] == '\r') len--;
    if (len == 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Invalid content in %s: empty line found at position "
                    "%lld.", path, (long long)pos);
      rc = -1;
      break;
    }
    if (maxidx >= 0) {
      field f;
      int64_t nf;
      if (nth_field(line, len, s->delim, maxidx, &f, &nf)) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Invalid number of columns in %s line %lld (%.*s) : "
                      "expected at least %lld got %lld",
                      path, (long long)n, (int)(len > 200 ? 200 : len), line,
                      (long long)(maxidx + 1), (long long)nf);
        rc = -1;
        break;
      }
    }
    tfs_table_scalar k, v;
    if (line_item(c, s, s->key_index, kdt, line, len, n, &k) ||
        line_item(c, s, s->value_index, vdt, line, len, n, &v)) {
      rc = -1;
      break;
    }
    if (tfs_table__insert_one(t, &k, &v, c->st)) {
      tfs_kctx_fail_status(c, c->st);
      rc = -1;
    }
    n++;
  }
  free(line);
  if (rc == 0 && s->vocab_size >= 0 && n != s->vocab_size) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Invalid vocab_size in %s: expected %lld but got %lld",
                  path, (long long)s->vocab_size, (long long)n);
    rc = -1;
  }
  return rc;
}

/* Reads an opened file into an uninitialised table; marks it initialised,
 * or empties it again after failing. */
static void fill_from_file(tfs_kernel_ctx *c, const text_state *s,
                           tfs_lookup_table *t, const char *path, FILE *fp) {
  int ch = fgetc(fp);
  if (ch == EOF && s->vocab_size < 0) {
    /* TensorFlow counts the lines first, and fails on an empty file */
    tfs_kctx_fail(c, TFS_OUT_OF_RANGE, "Read less bytes than requested");
  } else if (s->vocab_size == 0) {
    tfs_kctx_fail(c, TFS_OUT_OF_RANGE,
                  "Finished reading 0 of lines from %s", path);
  } else {
    if (ch != EOF) ungetc(ch, fp);
    if (read_text(c, s, t, path, fp))
      tfs_table__clear(t);
    else
      tfs_table__set_initialized(t);
  }
}

static void init_text_compute(tfs_kernel_ctx *c) {
  const text_state *s = c->state;
  tfs_lookup_table *t = table_of(c);
  if (!t) return;
  const tfs_tensor *fn = c->inputs[1];
  if (fn->dtype != TFS_STRING || fn->shape.rank != 0) {
    char a[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "filename should be a single string, but got %s",
                  tfs_shape_str(&fn->shape, a, sizeof a));
    return;
  }
  if (tfs_table__kind(t) != TFS_TABLE_HASH) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Table %s is not initializable", TABLE_TYPE);
    return;
  }
  if (check_text_dtypes(c, s, tfs_table__key_dtype(t),
                        tfs_table__value_dtype(t)))
    return;
  tfs_tstring *ts = tfs_tensor__strings(fn);
  size_t plen = tfs_tstring_size(ts);
  char *path = tfs_malloc(plen + 1);
  if (!path) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  memcpy(path, tfs_tstring_data(ts), plen);
  path[plen] = 0;
  tfs_table__lock_init(t);
  if (memchr(path, 0, plen)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "filename holds a NUL byte");
    goto out;
  }
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    tfs_kctx_fail(c, errno == ENOENT ? TFS_NOT_FOUND : TFS_UNKNOWN,
                  "%s; %s", path, strerror(errno));
    goto out;
  }
  /* TensorFlow opens the file even for a table already initialised,
   * then leaves the table as it is */
  if (!tfs_table__initialized(t)) fill_from_file(c, s, t, path, fp);
  fclose(fp);
out:
  tfs_table__unlock_init(t);
  tfs_free(path);
}

#define ANY NULL, 0
#define KEYS (B(TFS_STRING) | B(TFS_INT64) | B(TFS_INT32))
const tfs_kernel_def tfs_cpu_kernels_lookup[] = {
    {"HashTableV2", "CPU", "key_dtype", KEYS, table_prepare, table_compute,
     table_release, 0, (const void *)(intptr_t)TFS_TABLE_HASH},
    {"MutableHashTableV2", "CPU", "key_dtype", KEYS, table_prepare,
     table_compute, table_release, 0,
     (const void *)(intptr_t)TFS_TABLE_MUTABLE},
    {"LookupTableFindV2", "CPU", ANY, NULL, find_compute, NULL, 0, NULL},
    {"LookupTableInsertV2", "CPU", ANY, NULL, insert_compute, NULL, 0, NULL},
    {"LookupTableRemoveV2", "CPU", ANY, NULL, remove_compute, NULL, 0, NULL},
    {"LookupTableSizeV2", "CPU", ANY, NULL, size_compute, NULL, 0, NULL},
    {"LookupTableExportV2", "CPU", ANY, NULL, export_compute, NULL, 0, NULL},
    {"LookupTableImportV2", "CPU", ANY, NULL, import_compute, NULL, 0, NULL},
    {"InitializeTableV2", "CPU", ANY, NULL, init_table_compute, NULL, 0,
     NULL},
    {"InitializeTableFromTextFileV2", "CPU", ANY, text_prepare,
     init_text_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

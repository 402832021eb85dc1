/*
 * backends/cpu/parse_example.c - ParseExample, ParseExampleV2 and
 * ParseSingleExample: serialized tf.Example protos (example_proto.c)
 * into dense tensors (fixed shapes filled from defaults, or a variable
 * first dim padded with the default), sparse tensors (indices, values,
 * dense shape) and ragged values with row splits.  Within one Example
 * the last entry of a key wins.  TensorFlow's fast parser is the
 * reference: a batch (a vector of protos) reports errors with "Name: ...,
 * Key: ..., Index: ..." as FastParseExample does, a single proto (the
 * scalar form of V2, ParseSingleExample) with "Key: ..." as
 * FastParseSingleExample does, its results without the batch dim.
 */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/tstring.h"
#include "core/util.h"
#include "backends/cpu/array_util.h"
#include "backends/cpu/example_proto.h"

enum { DENSE, SPARSE, RAGGED };

typedef struct pe_state {
  int version; /* 1, 2, or 0 for ParseSingleExample */
  int ns, nd, nr;
  tfs_dtype *stypes, *dtypes, *rtypes, *rsplits;
  tfs_shape *dshapes;  /* as given (a first dim of -1: variable) */
  int64_t *stride;     /* values per row of each dense feature */
  tfs_bytes *skeys, *dkeys; /* ParseSingleExample's attrs */
} pe_state;

static void pe_release(void *p) {
  pe_state *s = p;
  if (!s) return;
  tfs_free(s->stypes);
  tfs_free(s->dshapes);
  tfs_free(s->stride);
  for (int i = 0; s->skeys && i < s->ns; i++) tfs_free(s->skeys[i].ptr);
  for (int i = 0; s->dkeys && i < s->nd; i++) tfs_free(s->dkeys[i].ptr);
  tfs_free(s->skeys);
  tfs_free(s->dkeys);
  tfs_free(s);
}

static int copy_types(const tfs_attrs *a, const char *name, tfs_dtype *dst,
                      int n) {
  int k = 0;
  const tfs_dtype *t = tfs_attrs_get_type_list(a, name, &k);
  if (k != n) return -1;
  if (n) memcpy(dst, t, (size_t)n * sizeof *dst);
  return 0;
}

static int copy_keys(const tfs_attrs *a, const char *name, int n,
                     tfs_bytes **out) {
  const tfs_attr_value *v = tfs_attrs_find(a, name);
  int k = v && v->is_list ? v->u.list.n : 0;
  if (k != n) return -1;
  *out = tfs_calloc((size_t)n + 1, sizeof(tfs_bytes));
  if (!*out) return -2;
  const tfs_bytes *b = n ? v->u.list.v : NULL;
  for (int i = 0; i < n; i++) {
    (*out)[i].ptr = tfs_malloc(b[i].len + 1);
    if (!(*out)[i].ptr) return -2;
    memcpy((*out)[i].ptr, b[i].ptr, b[i].len + 1);
    (*out)[i].len = b[i].len;
  }
  return 0;
}

/* The dense shapes and their strides (the shape function refused
 * unknown ranks and inner dims). */
static int read_dense_shapes(tfs_kernel_init *ki, pe_state *s) {
  const tfs_attr_value *v = tfs_attrs_find(ki->attrs, "dense_shapes");
  int n = v && v->is_list ? v->u.list.n : 0;
  if (n != s->nd)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "len(dense_keys) != len(dense_shapes)");
  const tfs_shape *sh = n ? v->u.list.v : NULL;
  for (int i = 0; i < n; i++) {
    s->dshapes[i] = sh[i];
    int64_t st = 1;
    int ok = sh[i].rank >= 0;
    for (int d = 0; ok && d < sh[i].rank; d++) {
      if (sh[i].dims[d] < 0) {
        ok = d == 0;
        continue;
      }
      if (tfs_mul_overflow_i64(st, sh[i].dims[d], &st))
        return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                            "dense_shapes[%d] has too many elements", i);
    }
    if (!ok) {
      char b[TFS_SHAPE_STRLEN];
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "dense_shapes[%d] has unknown rank or unknown "
                          "inner dimensions: %s", i,
                          tfs_shape_str(&sh[i], b, sizeof b));
    }
    s->stride[i] = st;
  }
  return 0;
}

static int pe_prepare(tfs_kernel_init *ki) {
  pe_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->version = (int)(intptr_t)ki->kdata;
  int64_t ns = 0, nd = 0;
  const char *tdense = "Tdense";
  int k;
  if (s->version == 1) {
    tfs_attrs_get_int(ki->attrs, "Nsparse", &ns);
    tfs_attrs_get_int(ki->attrs, "Ndense", &nd);
  } else {
    tfs_attrs_get_int(ki->attrs, "num_sparse", &ns);
    tfs_attrs_get_type_list(ki->attrs, tdense, &k);
    nd = k;
  }
  if (ns < 0 || nd < 0 || ns > 100000 || nd > 100000)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "bad feature counts");
  s->ns = (int)ns;
  s->nd = (int)nd;
  if (s->version == 2) {
    tfs_attrs_get_type_list(ki->attrs, "ragged_value_types", &k);
    s->nr = k;
  }
  size_t nt = (size_t)s->ns + (size_t)s->nd + 2 * (size_t)s->nr + 1;
  s->stypes = tfs_calloc(nt, sizeof(tfs_dtype));
  s->dshapes = tfs_calloc((size_t)s->nd + 1, sizeof(tfs_shape));
  s->stride = tfs_calloc((size_t)s->nd + 1, sizeof(int64_t));
  if (!s->stypes || !s->dshapes || !s->stride)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->dtypes = s->stypes + s->ns;
  s->rtypes = s->dtypes + s->nd;
  s->rsplits = s->rtypes + s->nr;
  if (copy_types(ki->attrs, "sparse_types", s->stypes, s->ns))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "len(sparse_keys) != len(sparse_types)");
  if (copy_types(ki->attrs, tdense, s->dtypes, s->nd))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "len(dense_keys) != len(dense_types)");
  if (s->version == 2 &&
      (copy_types(ki->attrs, "ragged_value_types", s->rtypes, s->nr) ||
       copy_types(ki->attrs, "ragged_split_types", s->rsplits, s->nr)))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "len(ragged_keys) != len(ragged_split_types)");
  if (s->version == 0) {
    int r = copy_keys(ki->attrs, "sparse_keys", s->ns, &s->skeys);
    if (r == -1)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "len(sparse_keys) != len(sparse_types)");
    if (!r) r = copy_keys(ki->attrs, "dense_keys", s->nd, &s->dkeys);
    if (r == -1)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "len(dense_keys) != len(dense_types)");
    if (r)
      return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  return read_dense_shapes(ki, s);
}

/* ---- one run ------------------------------------------------------------ */

typedef struct feat {
  const char *key;
  size_t klen;
  int kind, idx;
  tfs_dtype dt;
  int64_t stride;    /* dense */
  int varlen;        /* dense with a variable first dim */
  const tfs_tensor *def;
  tfs_tensor *out;   /* fixed dense output */
  tfs_ex_sink sink;  /* growing values (varlen, sparse, ragged) */
  int64_t *ends;     /* per example: values stored after it */
  int64_t seen;      /* the last example that set it */
} feat;

typedef struct run {
  tfs_kernel_ctx *c;
  const pe_state *s;
  int single;        /* one proto: results without the batch dim */
  int64_t batch;
  const tfs_tensor *names;
  feat *f;
  int nf;
  tfs_ex_str *fixed; /* scratch for fixed string values */
  tfs_ex_entries ent;
} run;

static const char *list_name(tfs_dtype dt) {
  return dt == TFS_FLOAT ? "float" : dt == TFS_INT64 ? "int64" : "bytes";
}

static void oom(run *r) {
  tfs_kctx_fail(r->c, TFS_RESOURCE_EXHAUSTED,
                "out of memory while parsing Example protos");
}

/* "Name: n, Key: k, Index: i.  " (batch) or "Key: k.  " (one proto)
 * then `what`. */
static void feature_error(run *r, const feat *f, int64_t i,
                          const char *what) {
  const char *kp = f->klen ? f->key : "";
  if (r->single) {
    tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT, "Key: %.*s.  %s",
                  (int)f->klen, kp, what);
    return;
  }
  const char *name = "<unknown>";
  size_t nlen = 9;
  if (r->names && r->names->nelems > 0) {
    const tfs_tstring *t = tfs_tensor__strings(r->names) + i;
    name = tfs_tstring_data(t);
    nlen = tfs_tstring_size(t);
  }
  tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT,
                "Name: %.*s, Key: %.*s, Index: %lld.  %s", (int)nlen, name,
                (int)f->klen, kp, (long long)i, what);
}

static void set_string(run *r, tfs_tstring *t, const char *p, size_t n) {
  if (tfs_tstring_copy(t, p, n)) oom(r);
}

/* Copies the default of fixed dense feature f into example i's rows. */
static void fill_default(run *r, feat *f, int64_t i) {
  size_t es = tfs_dtype_size(f->dt);
  if (f->dt == TFS_STRING) {
    const tfs_tstring *src = tfs_tensor__strings(f->def);
    tfs_tstring *dst = tfs_tensor__strings(f->out) + i * f->stride;
    for (int64_t k = 0; k < f->stride; k++)
      set_string(r, &dst[k], tfs_tstring_data(&src[k]),
                 tfs_tstring_size(&src[k]));
    return;
  }
  memcpy((char *)f->out->data + (size_t)(i * f->stride) * es, f->def->data,
         (size_t)f->stride * es);
}

/* A fixed dense feature's list into example i's rows. */
static int read_fixed(run *r, feat *f, int64_t i, const tfs_ex_entry *e) {
  size_t es = tfs_dtype_size(f->dt);
  tfs_ex_sink sk = {0};
  sk.cap = (size_t)f->stride;
  sk.data = f->dt == TFS_STRING
                ? (void *)r->fixed
                : (char *)f->out->data + (size_t)(i * f->stride) * es;
  int rc = tfs_ex_read_list(e->feat, e->flen, f->dt, &sk);
  char msg[300];
  const char *ln = list_name(f->dt);
  if (rc < 0) {
    oom(r);
    return -1;
  }
  if (rc || sk.count != (size_t)f->stride) {
    if (!r->single) {
      char b[TFS_SHAPE_STRLEN];
      if (rc)
        snprintf(msg, sizeof msg, "Can't parse serialized Example.");
      else
        snprintf(msg, sizeof msg, "Number of %s values != expected.  "
                 "Values size: %zu but output shape: %s", ln, sk.count,
                 tfs_shape_str(&r->s->dshapes[f->idx], b, sizeof b));
    } else if (rc || (f->dt == TFS_STRING && sk.count > sk.cap)) {
      snprintf(msg, sizeof msg, "Can't parse serialized Example: Parsing "
               "%s_list failed.", ln);
    } else {
      snprintf(msg, sizeof msg, "Can't parse serialized Example: Some "
               "%s_list slice was not parsed.", ln);
    }
    feature_error(r, f, i, msg);
    return -1;
  }
  if (f->dt == TFS_STRING) {
    tfs_tstring *dst = tfs_tensor__strings(f->out) + i * f->stride;
    for (int64_t k = 0; k < f->stride; k++)
      set_string(r, &dst[k], r->fixed[k].p, r->fixed[k].n);
  }
  return r->c->failed ? -1 : 0;
}

/* A variable-length list (varlen dense, sparse, ragged) appended. */
static int read_growing(run *r, feat *f, int64_t i, const tfs_ex_entry *e,
                        tfs_dtype dt) {
  char msg[300];
  if (dt != TFS_INVALID) {
    int rc = tfs_ex_read_list(e->feat, e->flen, f->dt, &f->sink);
    if (rc < 0) {
      oom(r);
      return -1;
    }
    if (rc) {
      const char *ln = list_name(f->dt);
      if (!r->single)
        snprintf(msg, sizeof msg, "Can't parse serialized Example.");
      else if (f->dt == TFS_STRING)
        snprintf(msg, sizeof msg, "Can't parse serialized Example: Could "
                 "not get num elements in bytes_list.");
      else
        snprintf(msg, sizeof msg, "Can't parse serialized Example: "
                 "Parsing %s_list failed.", ln);
      feature_error(r, f, i, msg);
      return -1;
    }
  }
  if (f->kind == DENSE && !r->single && f->stride > 0 &&
      f->sink.len % (size_t)f->stride) {
    char b[TFS_SHAPE_STRLEN];
    snprintf(msg, sizeof msg, "Number of %s values is not a multiple of "
             "stride length. Saw %zu values but output shape is: %s",
             list_name(f->dt), f->sink.len,
             tfs_shape_str(&r->s->dshapes[f->idx], b, sizeof b));
    feature_error(r, f, i, msg);
    return -1;
  }
  f->ends[i] = (int64_t)f->sink.len;
  return 0;
}

static feat *find_feat(run *r, const tfs_ex_entry *e) {
  for (int k = 0; k < r->nf; k++) {
    feat *f = &r->f[k];
    if (f->klen == e->klen && (!f->klen || !memcmp(f->key, e->key, f->klen)))
      return f;
  }
  return NULL;
}

/* One entry of example i, the later duplicates already handled. */
static int take_entry(run *r, int64_t i, const tfs_ex_entry *e) {
  feat *f = find_feat(r, e);
  if (!f) return 0;
  tfs_dtype dt;
  char msg[200];
  if (tfs_ex_feature_dtype(e->feat, e->flen, &dt)) {
    tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT, "Unsupported datatype.");
    return -1;
  }
  if (f->kind == DENSE) {
    if (dt == TFS_INVALID || f->seen == i) return 0;
    f->seen = i;
    if (dt != f->dt) {
      snprintf(msg, sizeof msg, "Data types don't match. Data type: %s but "
               "expected type: %s", tfs_dtype_name(dt),
               tfs_dtype_name(f->dt));
      feature_error(r, f, i, msg);
      return -1;
    }
    return f->varlen ? read_growing(r, f, i, e, dt) : read_fixed(r, f, i, e);
  }
  if (f->seen == i) return 0;
  f->seen = i;
  if (dt != TFS_INVALID && dt != f->dt) {
    snprintf(msg, sizeof msg, "Data types don't match. Expected type: %s, "
             "Actual type: %s", tfs_dtype_name(f->dt), tfs_dtype_name(dt));
    feature_error(r, f, i, msg);
    return -1;
  }
  return read_growing(r, f, i, e, dt);
}

/* Features example i lacks: defaults, or empty lists. */
static int finish_example(run *r, int64_t i) {
  for (int k = 0; k < r->nf; k++) {
    feat *f = &r->f[k];
    if (f->seen == i) continue;
    if (f->kind != DENSE || f->varlen) {
      f->ends[i] = i ? f->ends[i - 1] : 0;
      continue;
    }
    if (f->def->nelems == 0) {
      const char *kp = f->klen ? f->key : "";
      if (r->single) {
        tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT,
                      "Feature: %.*s (data type: %s) is required but could "
                      "not be found.", (int)f->klen, kp,
                      tfs_dtype_name(f->dt));
      } else {
        const char *name = "<unknown>";
        size_t nlen = 9;
        if (r->names && r->names->nelems > 0) {
          const tfs_tstring *t = tfs_tensor__strings(r->names) + i;
          name = tfs_tstring_data(t);
          nlen = tfs_tstring_size(t);
        }
        tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT,
                      "Name: %.*s, Feature: %.*s (data type: %s) is "
                      "required but could not be found.", (int)nlen, name,
                      (int)f->klen, kp, tfs_dtype_name(f->dt));
      }
      return -1;
    }
    fill_default(r, f, i);
  }
  return r->c->failed ? -1 : 0;
}

static int parse_all(run *r, const tfs_tensor *ser) {
  const tfs_tstring *sv = tfs_tensor__strings(ser);
  for (int64_t i = 0; i < r->batch; i++) {
    const char *p = tfs_tstring_data(&sv[i]);
    size_t n = tfs_tstring_size(&sv[i]);
    int rc = tfs_ex_parse((const uint8_t *)p, n, &r->ent);
    if (rc < 0) {
      oom(r);
      return -1;
    }
    if (rc) {
      tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT,
                    "Could not parse example input, value: '%.*s'",
                    (int)(n > 4096 ? 4096 : n), p);
      return -1;
    }
    for (size_t j = r->ent.n; j-- > 0;)
      if (take_entry(r, i, &r->ent.v[j])) return -1;
    if (finish_example(r, i)) return -1;
  }
  return 0;
}

/* ---- outputs ------------------------------------------------------------ */

/* Values [from, to) of a growing sink into out at element `at`. */
static void put_values(run *r, const feat *f, tfs_tensor *out, int64_t at,
                       int64_t from, int64_t to) {
  if (f->dt != TFS_STRING) {
    size_t es = tfs_dtype_size(f->dt);
    if (to > from)
      memcpy((char *)out->data + (size_t)at * es,
             (const char *)f->sink.data + (size_t)from * es,
             (size_t)(to - from) * es);
    return;
  }
  const tfs_ex_str *v = f->sink.data;
  tfs_tstring *dst = tfs_tensor__strings(out) + at;
  for (int64_t k = from; k < to; k++) set_string(r, dst++, v[k].p, v[k].n);
}

static int64_t example_start(const feat *f, int64_t i) {
  return i ? f->ends[i - 1] : 0;
}

/* Output indices: sparse (indices, values, shapes), then dense, then
 * ragged (values, splits). */
static int write_sparse(run *r, feat *f, int ns) {
  int64_t n = (int64_t)f->sink.len, maxlen = 0;
  tfs_shape sh;
  tfs_shape_2d(&sh, n, r->single ? 1 : 2);
  tfs_tensor *ix = tfs_kctx_alloc_output(r->c, f->idx, &sh);
  tfs_shape_1d(&sh, n);
  tfs_tensor *val = ix ? tfs_kctx_alloc_output(r->c, ns + f->idx, &sh)
                       : NULL;
  tfs_shape_1d(&sh, r->single ? 1 : 2);
  tfs_tensor *ds = val ? tfs_kctx_alloc_output(r->c, 2 * ns + f->idx, &sh)
                       : NULL;
  if (!ds) return -1;
  int64_t *ip = ix->data;
  for (int64_t i = 0; i < r->batch; i++) {
    int64_t a = example_start(f, i), b = f->ends[i];
    if (b - a > maxlen) maxlen = b - a;
    for (int64_t k = a; k < b; k++) {
      if (!r->single) *ip++ = i;
      *ip++ = k - a;
    }
  }
  put_values(r, f, val, 0, 0, n);
  int64_t *dp = ds->data;
  if (r->single) {
    dp[0] = n;
  } else {
    dp[0] = r->batch;
    dp[1] = maxlen;
  }
  return r->c->failed ? -1 : 0;
}

static int write_ragged(run *r, feat *f, int o) {
  tfs_shape sh;
  tfs_shape_1d(&sh, (int64_t)f->sink.len);
  tfs_tensor *val = tfs_kctx_alloc_output(r->c, o + f->idx, &sh);
  tfs_shape_1d(&sh, r->single ? 0 : r->batch + 1);
  tfs_tensor *sp = val ? tfs_kctx_alloc_output(r->c, o + r->s->nr + f->idx,
                                               &sh)
                       : NULL;
  if (!sp) return -1;
  put_values(r, f, val, 0, 0, (int64_t)f->sink.len);
  for (int64_t i = 0; !r->single && i <= r->batch; i++) {
    int64_t v = i ? f->ends[i - 1] : 0;
    if (r->s->rsplits[f->idx] == TFS_INT32)
      ((int32_t *)sp->data)[i] = (int32_t)v;
    else
      ((int64_t *)sp->data)[i] = v;
  }
  return r->c->failed ? -1 : 0;
}

/* A variable-length dense feature: [batch,] rows, inner dims; short
 * examples padded with the default. */
static int write_varlen(run *r, feat *f, int o) {
  const tfs_shape *ds = &r->s->dshapes[f->idx];
  int64_t rows = 0;
  for (int64_t i = 0; f->stride > 0 && i < r->batch; i++) {
    int64_t k = (f->ends[i] - example_start(f, i)) / f->stride;
    if (k > rows) rows = k;
  }
  if (r->single && f->stride > 0 && f->sink.len % (size_t)f->stride) {
    tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT,
                  "Error while parsing feature with key %.*s: number of "
                  "elements should be divisible by %lld, found %zu instead",
                  (int)f->klen, f->klen ? f->key : "",
                  (long long)f->stride, f->sink.len);
    return -1;
  }
  tfs_shape sh = {.rank = 0};
  if (!r->single) sh.dims[sh.rank++] = r->batch;
  sh.dims[sh.rank++] = rows;
  for (int d = 1; d < ds->rank; d++) sh.dims[sh.rank++] = ds->dims[d];
  tfs_tensor *out = tfs_kctx_alloc_output(r->c, o + f->idx, &sh);
  if (!out) return -1;
  int64_t row = rows * f->stride;
  size_t es = tfs_dtype_size(f->dt);
  for (int64_t k = 0; k < out->nelems; k++) {
    if (f->dt == TFS_STRING) {
      const tfs_tstring *d0 = tfs_tensor__strings(f->def);
      set_string(r, tfs_tensor__strings(out) + k, tfs_tstring_data(d0),
                 tfs_tstring_size(d0));
    } else {
      memcpy((char *)out->data + (size_t)k * es, f->def->data, es);
    }
  }
  for (int64_t i = 0; i < r->batch; i++)
    put_values(r, f, out, i * row, example_start(f, i), f->ends[i]);
  return r->c->failed ? -1 : 0;
}

static int write_outputs(run *r) {
  const pe_state *s = r->s;
  for (int k = 0; k < r->nf; k++) {
    feat *f = &r->f[k];
    int rc = 0;
    if (f->kind == SPARSE) rc = write_sparse(r, f, s->ns);
    else if (f->kind == RAGGED) rc = write_ragged(r, f, 3 * s->ns + s->nd);
    else if (f->varlen) rc = write_varlen(r, f, 3 * s->ns);
    if (rc) return -1;
  }
  return 0;
}

/* ---- inputs ------------------------------------------------------------- */

static int fail_shape(tfs_kernel_ctx *c, const char *fmt,
                      const tfs_shape *a, const tfs_shape *b) {
  char x[TFS_SHAPE_STRLEN], y[TFS_SHAPE_STRLEN];
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, fmt, tfs_shape_str(a, x, sizeof x),
                b ? tfs_shape_str(b, y, sizeof y) : "");
  return -1;
}

/* The defaults against the dense shapes, as TensorFlow checks them. */
static int check_defaults(tfs_kernel_ctx *c, const pe_state *s,
                          tfs_tensor *const *defs) {
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  for (int d = 0; d < s->nd; d++) {
    const tfs_shape *ds = &s->dshapes[d], *vs = &defs[d]->shape;
    int varlen = ds->rank > 0 && ds->dims[0] < 0;
    if (varlen && defs[d]->nelems != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "dense_shape[%d] is a variable length shape: %s, "
                    "therefore def_value[%d] must contain a single element "
                    "(the padding element).  But its shape is: %s", d,
                    tfs_shape_str(ds, a, sizeof a), d,
                    tfs_shape_str(vs, b, sizeof b));
      return -1;
    }
    if (varlen || defs[d]->nelems == 0) continue;
    int ok = ds->rank == vs->rank;
    for (int k = 0; ok && k < ds->rank; k++)
      ok = ds->dims[k] < 0 || ds->dims[k] == vs->dims[k];
    if (!ok) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "def_value[%d].shape() == %s is not compatible with "
                    "dense_shapes_[%d] == %s", d,
                    tfs_shape_str(vs, a, sizeof a), d,
                    tfs_shape_str(ds, b, sizeof b));
      return -1;
    }
  }
  return 0;
}

/* Key k of a V2 key vector, or a V1 scalar key input. */
static int key_of(tfs_kernel_ctx *c, const tfs_tensor *t, int64_t k,
                  const char *what, feat *f) {
  if (k >= t->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected %s but got: %lld vs. %lld", what,
                  (long long)t->nelems, (long long)k + 1);
    return -1;
  }
  const tfs_tstring *ts = tfs_tensor__strings(t) + k;
  f->key = tfs_tstring_data(ts);
  f->klen = tfs_tstring_size(ts);
  return 0;
}

static int v1_key(tfs_kernel_ctx *c, const tfs_tensor *t, const char *arg,
                  int i, feat *f) {
  if (t->shape.rank != 0) {
    char b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Expected %s[%d] to be a scalar, "
                  "got shape: %s", arg, i,
                  tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  return key_of(c, t, 0, "one key", f);
}

/* The features' keys, kinds and dtypes from the inputs (or attrs). */
static int setup_features(run *r) {
  tfs_kernel_ctx *c = r->c;
  const pe_state *s = r->s;
  tfs_tensor *const *in = c->inputs;
  int dd = s->version == 1 ? 2 + s->ns + s->nd : s->version == 2 ? 5 : 1;
  for (int k = 0; k < r->nf; k++) {
    feat *f = &r->f[k];
    f->seen = -1;
    int i = k;
    f->kind = i < s->nd ? DENSE : i < s->nd + s->ns ? SPARSE : RAGGED;
    i -= f->kind == DENSE ? 0 : f->kind == SPARSE ? s->nd : s->nd + s->ns;
    f->idx = i;
    int rc = 0;
    if (f->kind == DENSE) {
      f->dt = s->dtypes[i];
      f->stride = s->stride[i];
      f->varlen = s->dshapes[i].rank > 0 && s->dshapes[i].dims[0] < 0;
      f->def = in[dd + i];
      if (s->version == 0) {
        f->key = s->dkeys[i].ptr;
        f->klen = s->dkeys[i].len;
      } else if (s->version == 1) {
        rc = v1_key(c, in[2 + s->ns + i], "dense_keys", i, f);
      } else {
        rc = key_of(c, in[3], i, "len(dense_keys) == len(dense_types)", f);
      }
    } else if (f->kind == SPARSE) {
      f->dt = s->stypes[i];
      if (s->version == 0) {
        f->key = s->skeys[i].ptr;
        f->klen = s->skeys[i].len;
      } else if (s->version == 1) {
        rc = v1_key(c, in[2 + i], "sparse_keys", i, f);
      } else {
        rc = key_of(c, in[2], i, "len(sparse_keys) == num_sparse", f);
      }
    } else {
      f->dt = s->rtypes[i];
      rc = key_of(c, in[4], i,
                  "len(ragged_keys) == len(ragged_value_types)", f);
    }
    if (rc) return -1;
    if (f->kind != DENSE || f->varlen) {
      f->sink.growing = 1;
      f->ends = tfs_calloc((size_t)r->batch + 1, sizeof(int64_t));
      if (!f->ends) {
        oom(r);
        return -1;
      }
    }
  }
  return 0;
}

/* The fixed dense outputs, allocated before parsing. */
static int alloc_fixed(run *r) {
  for (int k = 0; k < r->s->nd; k++) {
    feat *f = &r->f[k];
    if (f->varlen) continue;
    const tfs_shape *ds = &r->s->dshapes[k];
    tfs_shape sh = {.rank = 0};
    if (!r->single) sh.dims[sh.rank++] = r->batch;
    if (sh.rank + ds->rank > TFS_MAX_RANK) {
      tfs_kctx_fail(r->c, TFS_INVALID_ARGUMENT, "dense_shapes[%d] has too "
                    "many dimensions", k);
      return -1;
    }
    for (int d = 0; d < ds->rank; d++) sh.dims[sh.rank++] = ds->dims[d];
    f->out = tfs_kctx_alloc_output(r->c, 3 * r->s->ns + k, &sh);
    if (!f->out) return -1;
  }
  return 0;
}

static int check_inputs(tfs_kernel_ctx *c, const pe_state *s, run *r) {
  const tfs_tensor *ser = c->inputs[0];
  if (s->version == 0 && ser->shape.rank != 0)
    return fail_shape(c, "Expected serialized to be a scalar, got shape: %s",
                      &ser->shape, NULL);
  if (s->version == 1 && ser->shape.rank != 1)
    return fail_shape(c, "Expected serialized to be a vector, got shape: %s",
                      &ser->shape, NULL);
  if (s->version == 2 && ser->shape.rank > 1)
    return fail_shape(c, "Expected serialized to be a scalar or vector, "
                      "got shape: %s", &ser->shape, NULL);
  if (s->version) {
    r->names = c->inputs[1];
    if (r->names->nelems > 0 &&
        !tfs_shape_equal(&r->names->shape, &ser->shape))
      return fail_shape(c, "Expected names have the same shape as "
                        "serialized: name.shape=%s, serialized.shape=%s",
                        &r->names->shape, &ser->shape);
  }
  int dd = s->version == 1 ? 2 + s->ns + s->nd : s->version == 2 ? 5 : 1;
  return check_defaults(c, s, c->inputs + dd);
}

static void pe_compute(tfs_kernel_ctx *c) {
  const pe_state *s = c->state;
  run r = {.c = c, .s = s};
  if (check_inputs(c, s, &r)) return;
  const tfs_tensor *ser = c->inputs[0];
  r.single = ser->shape.rank == 0;
  r.batch = r.single ? 1 : ser->shape.dims[0];
  r.nf = s->nd + s->ns + s->nr;
  int64_t maxstride = 1;
  for (int d = 0; d < s->nd; d++)
    if (s->dtypes[d] == TFS_STRING && s->stride[d] > maxstride)
      maxstride = s->stride[d];
  r.f = tfs_calloc((size_t)r.nf + 1, sizeof(feat));
  r.fixed = tfs_calloc((size_t)maxstride, sizeof(tfs_ex_str));
  if (!r.f || !r.fixed) {
    oom(&r);
  } else if (!setup_features(&r) && !alloc_fixed(&r) &&
             !parse_all(&r, ser)) {
    if (r.single && r.names && r.names->nelems > 0) r.names = NULL;
    write_outputs(&r);
  }
  for (int k = 0; r.f && k < r.nf; k++) {
    tfs_free(r.f[k].sink.data);
    tfs_free(r.f[k].ends);
  }
  tfs_free(r.f);
  tfs_free(r.fixed);
  tfs_ex_entries_free(&r.ent);
}

const tfs_kernel_def tfs_cpu_kernels_parse_example[] = {
    {"ParseExample", "CPU", NULL, 0, pe_prepare, pe_compute, pe_release, 0,
     (const void *)(intptr_t)1},
    {"ParseExampleV2", "CPU", NULL, 0, pe_prepare, pe_compute, pe_release,
     0, (const void *)(intptr_t)2},
    {"ParseSingleExample", "CPU", NULL, 0, pe_prepare, pe_compute,
     pe_release, 0, (const void *)(intptr_t)0},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

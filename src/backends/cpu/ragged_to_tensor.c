/*
 * backends/cpu/ragged_to_tensor.c - RaggedTensorToTensor: a ragged tensor
 * given by its row partitions (ROW_SPLITS, VALUE_ROWIDS, or the first
 * dimension's size followed by VALUE_ROWIDS) and flat values, written
 * into a dense tensor of the requested shape (unknown dims take the
 * number of rows and the widest row), rows cut where the shape is
 * narrower and the rest filled with default_value broadcast to one value.
 *
 * Each partition level maps its children to their flat position in the
 * output (-1: cut off); the values then land where the last level puts
 * them and every slot left over gets the default.  TensorFlow's messages;
 * partitions that need more values than there are are refused (TensorFlow
 * reads past the values there).
 */
#include <stdio.h>
#include <string.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/ragged.h"
#include "core/alloc.h"
#include "core/util.h"

enum { FIRST_DIM_SIZE, VALUE_ROWIDS, ROW_SPLITS };

typedef struct to_tensor_state {
  int nparts;
  int ragged;     /* ragged rank */
  int first_size; /* partition 0 is FIRST_DIM_SIZE */
  uint8_t types[];
} to_tensor_state;

int tfs_ragged__to_tensor_prepare(tfs_kernel_init *ki) {
  const tfs_attr_value *v = tfs_attrs_find(ki->attrs, "row_partition_types");
  int n = v && v->is_list ? v->u.list.n : 0;
  const tfs_bytes *t = n ? v->u.list.v : NULL;
  to_tensor_state *s = tfs_calloc(1, sizeof(*s) + (size_t)n + 1);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  s->nparts = n;
  for (int i = 0; i < n; i++) {
    if (strcmp(t[i].ptr, "FIRST_DIM_SIZE") == 0)
      s->types[i] = FIRST_DIM_SIZE;
    else if (strcmp(t[i].ptr, "VALUE_ROWIDS") == 0)
      s->types[i] = VALUE_ROWIDS;
    else if (strcmp(t[i].ptr, "ROW_SPLITS") == 0)
      s->types[i] = ROW_SPLITS;
    else
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "Unsupported partition type: %s", t[i].ptr);
  }
  if (n == 0 || n != ki->ninputs - 3)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "Number of row partition tensors (%d) does not "
                        "equal the number of row partition types(%d).",
                        ki->ninputs - 3, n);
  s->first_size = s->types[0] == FIRST_DIM_SIZE;
  s->ragged = s->first_size ? n - 1 : n;
  for (int i = 1; i < n; i++)
    if (s->types[i] == FIRST_DIM_SIZE)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                          "FIRST_DIM_SIZE must be first");
  if (s->first_size && (n < 2 || s->types[1] != VALUE_ROWIDS))
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "FIRST_DIM_SIZE must be followed by VALUE_ROWIDS");
  return 0;
}

/* "[2,?,3]" (TensorShape::DebugString), "<unknown>" for unknown rank. */
static const char *dbg(const tfs_shape *s, char *buf, size_t cap) {
  if (s->rank < 0) {
    snprintf(buf, cap, "<unknown>");
    return buf;
  }
  size_t off = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < s->rank && off + 24 < cap; i++)
    off += (size_t)(s->dims[i] < 0
                        ? snprintf(buf + off, cap - off, i ? ",?" : "?")
                        : snprintf(buf + off, cap - off, i ? ",%lld" : "%lld",
                                   (long long)s->dims[i]));
  snprintf(buf + off, cap - off, "]");
  return buf;
}

/* TensorFlow's TensorShapeFromTensor on the shape input. */
static int shape_input(tfs_kernel_ctx *c, tfs_shape *out) {
  const tfs_tensor *t = c->inputs[0];
  if (t->shape.rank == 0) {
    if (tfs_tensor__get_as_int64(t, 0) == -1) {
      tfs_shape_unknown(out);
      return 0;
    }
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The only valid scalar shape tensor is the fully unknown "
                  "shape specified as -1.");
    return -1;
  }
  if (t->shape.rank != 1 || t->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  t->shape.rank != 1
                      ? "Shape must be at most rank 1 but is rank %d"
                      : "Shape has %d dimensions, more than this build "
                        "supports",
                  t->shape.rank != 1 ? (int)t->shape.rank : (int)t->nelems);
    return -1;
  }
  out->rank = (int32_t)t->nelems;
  for (int64_t i = 0; i < t->nelems; i++) {
    int64_t d = tfs_tensor__get_as_int64(t, i);
    if (d < -1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= -1",
                    (long long)d);
      return -1;
    }
    out->dims[i] = d;
  }
  return 0;
}

/* TensorFlow's ValidateDefaultValueShape on the actual shapes. */
static int check_default(tfs_kernel_ctx *c) {
  const tfs_shape *vs = &c->inputs[1]->shape, *ds = &c->inputs[2]->shape;
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (ds->rank >= vs->rank) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "default_value.shape=%s and rt_input.flat_values.shape=%s "
                  "are incompatible: default_value.rank = %d  must be less "
                  "than rt_input.flat_values.rank = %d",
                  dbg(ds, a, sizeof a), dbg(vs, b, sizeof b), ds->rank,
                  vs->rank);
    return -1;
  }
  for (int i = 0; i < ds->rank && i < vs->rank - 1; i++) {
    int64_t d = ds->dims[i], v = vs->dims[i + 1];
    if (d != 1 && d != v) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "default_value.shape=%s and rt_input.flat_values.shape=%s"
                    " are incompatible: default_value.shape[%d] = %lld but "
                    "rt_input.flat_values.shape[%d] = %lld",
                    dbg(ds, a, sizeof a), dbg(vs, b, sizeof b),
                    i - ds->rank, (long long)d, i - ds->rank, (long long)v);
      return -1;
    }
  }
  return 0;
}

/* The partition tensor that splits output dim d into dim d + 1. */
static const tfs_tensor *part(tfs_kernel_ctx *c, const to_tensor_state *s,
                              int d, int *type) {
  int i = s->first_size ? d + 1 : d;
  *type = s->types[i];
  return c->inputs[3 + i];
}

/* The widest row of level d: the largest split difference, or the
 * longest run of equal row ids. */
static int64_t max_width(const tfs_tensor *p, int type) {
  int64_t w = 0, n = p->nelems;
  if (type == ROW_SPLITS) {
    for (int64_t i = 0; i + 1 < n; i++) {
      int64_t x = tfs_ragged__at(p, i + 1) - tfs_ragged__at(p, i);
      if (x > w) w = x;
    }
    return w;
  }
  if (n == 0) return 0;
  int64_t run = 0;
  for (int64_t i = 1; i < n; i++) {
    if (tfs_ragged__at(p, i) != tfs_ragged__at(p, i - 1)) {
      if (i - run > w) w = i - run;
      run = i;
    }
  }
  return n - run > w ? n - run : w;
}

/* The output's dims (TensorFlow's CalculateOutputSize).  first: the
 * number of rows of the ragged tensor. */
static int output_dims(tfs_kernel_ctx *c, const to_tensor_state *s,
                       int64_t first, tfs_shape *out) {
  if (check_default(c)) return -1;
  tfs_shape shape;
  if (shape_input(c, &shape)) return -1;
  const tfs_shape *vs = &c->inputs[1]->shape;
  char a[TFS_SHAPE_STRLEN];
  int want = s->ragged + vs->rank;
  if (shape.rank >= 0 && shape.rank != want) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "rt_input.shape and shape=%s are incompatible: "
                  "rt_input.rank = %d but shape.rank = %d",
                  dbg(&shape, a, sizeof a), want, shape.rank);
    return -1;
  }
  if (want > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "RaggedTensorToTensor result has %d dimensions, more "
                  "than %d", want, TFS_MAX_RANK);
    return -1;
  }
  out->rank = want;
  for (int i = 0; i < want; i++)
    out->dims[i] = shape.rank >= 0 ? shape.dims[i] : -1;
  for (int i = 1; i < vs->rank; i++) {
    int64_t v = vs->dims[i], *o = &out->dims[want - vs->rank + i];
    if (*o >= 0 && *o != v) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "rt_input.shape and shape=%s are incompatible: "
                    "rt_input.shape[%d] = %lld but shape[%d] = %lld",
                    dbg(&shape, a, sizeof a), i + s->ragged, (long long)v,
                    i + s->ragged, (long long)*o);
      return -1;
    }
    *o = v;
  }
  if (out->dims[0] < 0) out->dims[0] = first;
  for (int i = 1; i <= s->ragged; i++) {
    int type;
    const tfs_tensor *p = part(c, s, i - 1, &type);
    if (out->dims[i] < 0) out->dims[i] = max_width(p, type);
  }
  for (int i = 0; i < want; i++) {
    if (out->dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Dimension %lld must be >= 0",
                    (long long)out->dims[i]);
      return -1;
    }
  }
  int64_t n = 1;
  for (int i = 0; i < want; i++) {
    if (tfs_mul_overflow_i64(n, out->dims[i], &n)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Encountered overflow when multiplying shape %s",
                    tfs_shape_str(out, a, sizeof a));
      return -1;
    }
  }
  return 0;
}

/* Scratch for n int64 values, or NULL after failing c. */
static int64_t *scratch_i64(tfs_kernel_ctx *c, int64_t n) {
  if (n < 0 || (uint64_t)n > SIZE_MAX / 8 - 1) {
    tfs_arr_oom(c);
    return NULL;
  }
  return tfs_kctx_scratch(c, (size_t)(n ? n : 1) * 8);
}

/* Where level d's children go, from their parents' places (par; NULL at
 * level 0: row i at i * mult when i < rows).  Returns the children's
 * count with *outp set, or -1 after failing c. */
static int64_t level_index(tfs_kernel_ctx *c, const tfs_tensor *p, int type,
                           const int64_t *par, int64_t npar, int64_t pmult,
                           int64_t prows, int64_t mult, int64_t width,
                           int64_t **outp) {
#define PARENT(i) (par ? par[i] : ((i) < prows ? (i) * pmult : -1))
  int64_t m = p->nelems, count = 0;
  int64_t *o;
  if (type == ROW_SPLITS) {
    if (m - 1 > npar) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Row partition size is greater than output size: %lld "
                    "> %lld", (long long)(m - 1), (long long)npar);
      return -1;
    }
    for (int64_t i = 0; i + 1 < m; i++) {
      int64_t len = tfs_ragged__at(p, i + 1) - tfs_ragged__at(p, i);
      if (len > 0 && tfs_add_overflow_i64(count, len, &count)) count = -1;
      if (count < 0) break;
    }
    if (m > 0 && count != tfs_ragged__at(p, m - 1)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Invalid row split size.");
      return -1;
    }
    if (!(o = scratch_i64(c, count))) return -1;
    for (int64_t i = 0, k = 0; i + 1 < m; i++) {
      int64_t len = tfs_ragged__at(p, i + 1) - tfs_ragged__at(p, i);
      int64_t at = PARENT(i), real = at < 0 ? 0 : len < width ? len : width;
      for (int64_t j = 0; j < len; j++)
        o[k++] = j < real ? at + j * mult : -1;
    }
    *outp = o;
    return count;
  }
  if (!(o = scratch_i64(c, m))) return -1;
  int64_t col = 0, row = 0, at = -1;
  for (int64_t i = 0; i < m; i++) {
    int64_t id = tfs_ragged__at(p, i);
    if (i > 0 && id == row) {
      if (at >= 0) at = ++col < width ? at + mult : -1;
    } else {
      if (id < 0 || id >= npar) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Got %s_value_rowid=%lld which is not less than %lld",
                      i ? "next" : "current", (long long)id,
                      (long long)npar);
        return -1;
      }
      col = 0;
      row = id;
      at = PARENT(id);
    }
    o[i] = at;
  }
  *outp = o;
  return m;
#undef PARENT
}

/* Writes the values where idx[0..n) puts them and the default into every
 * other slot of es elements. */
static void write_output(tfs_kernel_ctx *c, tfs_tensor *out,
                         const int64_t *idx, int64_t n, int64_t es) {
  const tfs_tensor *v = c->inputs[1], *dv = c->inputs[2];
  tfs_elem e = tfs_elem_of(out->dtype);
  int64_t slots = es ? out->nelems / es : 0;
  uint8_t *done = tfs_kctx_scratch(c, (size_t)(slots ? slots : 1));
  if (!done) return;
  memset(done, 0, (size_t)slots);
  char *o = out->data;
  const char *src = v->data;
  for (int64_t i = 0; i < n; i++) {
    if (idx[i] < 0) continue;
    int64_t slot = idx[i] / es;
    done[slot] = 1;
    if (tfs_elem_copy(e, o + idx[i] * e.size, src + i * es * e.size, es))
      goto oom;
  }
  /* the default, broadcast to one value of es elements */
  int64_t *map = NULL;
  if (dv->nelems != 1 && dv->nelems != es) {
    const tfs_shape *ds = &dv->shape;
    int er = v->shape.rank - 1;
    const int64_t *ed = out->shape.dims + out->shape.rank - er;
    for (int j = 0; j < ds->rank; j++) {
      int64_t d = ds->dims[ds->rank - 1 - j], w = ed[er - 1 - j];
      if (d != 1 && d != w) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Error broadcasting default_value");
        return;
      }
    }
    if (!(map = scratch_i64(c, es))) return;
    for (int64_t j = 0; j < es; j++) {
      int64_t rest = j, at = 0, stride = 1;
      for (int k = 0; k < er; k++) {
        int64_t dim = ed[er - 1 - k], x = rest % dim;
        rest /= dim;
        int dk = ds->rank - 1 - k;
        if (dk < 0) continue;
        if (ds->dims[dk] != 1) at += x * stride;
        stride *= ds->dims[dk];
      }
      map[j] = at;
    }
  }
  for (int64_t s = 0; s < slots; s++) {
    if (done[s]) continue;
    char *d = o + s * es * e.size;
    int rc = 0;
    if (dv->nelems == 1)
      rc = tfs_elem_fill(e, d, dv->data, es);
    else if (!map)
      rc = tfs_elem_copy(e, d, dv->data, es);
    for (int64_t j = 0; map && j < es && !rc; j++)
      rc = tfs_elem_copy(e, d + j * e.size,
                         (const char *)dv->data + map[j] * e.size, 1);
    if (rc) goto oom;
  }
  return;
oom:
  tfs_arr_oom(c);
}

void tfs_ragged__to_tensor_compute(tfs_kernel_ctx *c) {
  const to_tensor_state *s = c->state;
  const tfs_tensor *p0 = c->inputs[3];
  if (p0->nelems == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Invalid first partition input. Tensor requires at least "
                  "one element.");
    return;
  }
  int64_t first;
  if (s->types[0] == VALUE_ROWIDS) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Cannot handle VALUE_ROWIDS in first dimension.");
    return;
  }
  if (s->first_size ? p0->nelems != 1 : p0->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s",
                  s->first_size ? "FIRST_DIM_SIZE must be a scalar."
                                : "Row partition must be a vector.");
    return;
  }
  first = s->first_size ? tfs_ragged__at(p0, 0) : p0->shape.dims[0] - 1;
  if (c->inputs[1]->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "values must have rank >= 1");
    return;
  }
  tfs_shape os;
  if (output_dims(c, s, first, &os)) return;
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &os);
  if (!out || out->nelems == 0) return;
  int64_t mult[TFS_MAX_RANK];
  mult[s->ragged] = tfs_arr_prod(os.dims, s->ragged + 1, os.rank);
  for (int i = s->ragged - 1; i >= 0; i--)
    mult[i] = mult[i + 1] * os.dims[i + 1];
  int64_t *idx = NULL, n = first < 0 ? 0 : first;
  for (int d = 0; d < s->ragged; d++) {
    int type;
    const tfs_tensor *p = part(c, s, d, &type);
    int64_t *next;
    n = level_index(c, p, type, idx, n, mult[0], os.dims[0], mult[d + 1],
                    os.dims[d + 1], &next);
    if (n < 0) return;
    idx = next;
  }
  if (n > c->inputs[1]->shape.dims[0]) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The row partitions need %lld values but values has %lld",
                  (long long)n, (long long)c->inputs[1]->shape.dims[0]);
    return;
  }
  write_output(c, out, idx, n, mult[s->ragged]);
}

/*
 * backends/cpu/set_ops.c - DenseToDenseSetOperation: per group (every
 * index of the dims before the last, the same for both inputs) the set of
 * the row's values in set1 and in set2, combined by "a-b", "b-a",
 * "intersection" or "union", as a sparse tensor whose rows hold each
 * result in ascending order (strings by their bytes), as TensorFlow's
 * std::set ordering gives them.  result_shape is the group shape and the
 * size of the largest result.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/tstring.h"
#include "backends/cpu/cpu_tables.h"

enum { SET_A_MINUS_B, SET_B_MINUS_A, SET_INTERSECTION, SET_UNION };

typedef struct {
  int op;
} set_state;

static int set_prepare(tfs_kernel_init *ki) {
  size_t n = 0;
  const char *op = tfs_attrs_get_string(ki->attrs, "set_operation", &n);
  static const char *const names[] = {"a-b", "b-a", "intersection",
                                      "union"};
  for (int i = 0; i < 4; i++) {
    if (op && strlen(names[i]) == n && memcmp(op, names[i], n) == 0) {
      set_state *s = tfs_calloc(1, sizeof(*s));
      if (!s)
        return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
      s->op = i;
      ki->state = s;
      return 0;
    }
  }
  return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "Invalid set_operation %.*s.",
                      (int)n, op ? op : "");
}

/* One value: an integer widened to int64, or a string. */
typedef struct {
  int64_t v;
  const tfs_tstring *s;
} set_key;

static int cmp_int(const void *a, const void *b) {
  int64_t x = ((const set_key *)a)->v, y = ((const set_key *)b)->v;
  return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
  const tfs_tstring *x = ((const set_key *)a)->s, *y = ((const set_key *)b)->s;
  size_t nx = tfs_tstring_size(x), ny = tfs_tstring_size(y);
  int r = memcmp(tfs_tstring_data(x), tfs_tstring_data(y),
                 nx < ny ? nx : ny);
  if (r) return r;
  return (nx > ny) - (nx < ny);
}

static int64_t load_int(const tfs_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFS_INT8: return ((const int8_t *)t->data)[i];
    case TFS_INT16: return ((const int16_t *)t->data)[i];
    case TFS_INT32: return ((const int32_t *)t->data)[i];
    case TFS_UINT8: return ((const uint8_t *)t->data)[i];
    case TFS_UINT16: return ((const uint16_t *)t->data)[i];
    default: return ((const int64_t *)t->data)[i];
  }
}

static void store_int(tfs_tensor *t, int64_t i, int64_t v) {
  switch (t->dtype) {
    case TFS_INT8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case TFS_INT16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    case TFS_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    case TFS_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case TFS_UINT16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
    default: ((int64_t *)t->data)[i] = v; break;
  }
}

/* Row `g` of t (n values) into k[], sorted without repeats; returns how
 * many remain. */
static int64_t load_row(const tfs_tensor *t, int64_t g, int64_t n,
                        set_key *k, int (*cmp)(const void *, const void *)) {
  const tfs_tstring *s = t->dtype == TFS_STRING ? tfs_tensor__strings(t)
                                                : NULL;
  for (int64_t j = 0; j < n; j++) {
    k[j].s = s ? &s[g * n + j] : NULL;
    k[j].v = s ? 0 : load_int(t, g * n + j);
  }
  if (n > 1) qsort(k, (size_t)n, sizeof(*k), cmp);
  int64_t m = 0;
  for (int64_t j = 0; j < n; j++)
    if (m == 0 || cmp(&k[m - 1], &k[j]) != 0) k[m++] = k[j];
  return m;
}

/* The set operation on sorted a[na] and b[nb] into out; returns the
 * count. */
static int64_t combine(int op, const set_key *a, int64_t na, const set_key *b,
                       int64_t nb, set_key *out,
                       int (*cmp)(const void *, const void *)) {
  if (op == SET_B_MINUS_A) {
    const set_key *t = a;
    int64_t tn = na;
    a = b;
    na = nb;
    b = t;
    nb = tn;
  }
  int64_t i = 0, j = 0, m = 0;
  while (i < na || j < nb) {
    int r = i == na ? 1 : j == nb ? -1 : cmp(&a[i], &b[j]);
    int take = op == SET_UNION ||
               (op == SET_INTERSECTION ? r == 0 : r < 0);
    if (take) out[m++] = r <= 0 ? a[i] : b[j];
    if (r <= 0) i++;
    if (r >= 0) j++;
  }
  return m;
}

/* "[2,3]" for the first `rank` dims of s into buf. */
static const char *dims_str(const tfs_shape *s, int rank, char *buf,
                            size_t cap) {
  tfs_shape g = *s;
  g.rank = rank;
  return tfs_shape_str(&g, buf, cap);
}

/* TensorFlow's group shape checks; returns the number of groups to
 * visit, -1 after an error. */
static int64_t check_groups(tfs_kernel_ctx *c, const tfs_tensor *a,
                            const tfs_tensor *b) {
  char x[128], y[128];
  const tfs_tensor *in[2] = {a, b};
  for (int k = 0; k < 2; k++)
    if (in[k]->shape.rank < 2) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Shape %s has rank %d < 2",
                    tfs_shape_str(&in[k]->shape, x, sizeof x),
                    in[k]->shape.rank);
      return -1;
    }
  int ra = a->shape.rank - 1, rb = b->shape.rank - 1;
  int same = ra == rb;
  for (int d = 0; same && d < ra; d++)
    same = a->shape.dims[d] == b->shape.dims[d];
  if (!same) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Mismatched shapes %s vs %s",
                  dims_str(&a->shape, ra, x, sizeof x),
                  dims_str(&b->shape, rb, y, sizeof y));
    return -1;
  }
  /* With a row of values in either input, the group count is at most
   * that input's element count; with none, every result is empty and
   * the groups need not be visited (their count may pass INT64_MAX). */
  if (a->nelems == 0 && b->nelems == 0) return 0;
  int64_t g = 1;
  for (int d = 0; d < ra; d++) g *= a->shape.dims[d];
  return g;
}

/* Writes the three outputs from res[total] and the per-group counts. */
static void write_outputs(tfs_kernel_ctx *c, const tfs_tensor *a,
                          const set_key *res, const int64_t *count,
                          int64_t groups, int64_t total, int64_t widest) {
  int rank = a->shape.rank;
  tfs_shape si, sv, ss;
  tfs_shape_2d(&si, total, rank);
  tfs_shape_1d(&sv, total);
  tfs_shape_1d(&ss, rank);
  tfs_tensor *oi = tfs_kctx_alloc_output(c, 0, &si);
  tfs_tensor *ov = oi ? tfs_kctx_alloc_output(c, 1, &sv) : NULL;
  tfs_tensor *os = ov ? tfs_kctx_alloc_output(c, 2, &ss) : NULL;
  if (!os) return;
  int64_t *shape = os->data, *ix = oi->data;
  for (int d = 0; d < rank - 1; d++) shape[d] = a->shape.dims[d];
  shape[rank - 1] = widest;
  int64_t k = 0;
  for (int64_t g = 0; g < groups; g++) {
    for (int64_t j = 0; j < count[g]; j++, k++) {
      int64_t rem = g;
      for (int d = rank - 2; d >= 0; d--) {
        ix[k * rank + d] = rem % a->shape.dims[d];
        rem /= a->shape.dims[d];
      }
      ix[k * rank + rank - 1] = j;
      if (a->dtype == TFS_STRING) {
        const tfs_tstring *s = res[k].s;
        if (tfs_tstring_copy(&tfs_tensor__strings(ov)[k],
                             tfs_tstring_data(s), tfs_tstring_size(s))) {
          tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
          return;
        }
      } else {
        store_int(ov, k, res[k].v);
      }
    }
  }
}

static void set_compute(tfs_kernel_ctx *c) {
  const set_state *st = c->state;
  const tfs_tensor *a = c->inputs[0], *b = c->inputs[1];
  int64_t groups = check_groups(c, a, b);
  if (groups < 0) return;
  if (groups == 0) { /* rows of any length in no group, or no values */
    write_outputs(c, a, NULL, NULL, 0, 0, 0);
    return;
  }
  int64_t na = a->shape.dims[a->shape.rank - 1];
  int64_t nb = b->shape.dims[b->shape.rank - 1];
  int (*cmp)(const void *, const void *) =
      a->dtype == TFS_STRING ? cmp_str : cmp_int;
  /* with a group to visit, every count below is bounded by the inputs'
   * element counts */
  size_t cap = (size_t)(a->nelems + b->nelems);
  set_key *ka = tfs_kctx_scratch(c, sizeof(set_key) * (size_t)(na + 1));
  set_key *kb = ka ? tfs_kctx_scratch(c, sizeof(set_key) * (size_t)(nb + 1))
                   : NULL;
  set_key *res = kb ? tfs_kctx_scratch(c, sizeof(set_key) * (cap + 1))
                    : NULL;
  int64_t *count = res ? tfs_kctx_scratch(
                             c, sizeof(int64_t) * (size_t)(groups + 1))
                       : NULL;
  if (!count) return;
  int64_t total = 0, widest = 0;
  for (int64_t g = 0; g < groups; g++) {
    int64_t ma = load_row(a, g, na, ka, cmp);
    int64_t mb = load_row(b, g, nb, kb, cmp);
    count[g] = combine(st->op, ka, ma, kb, mb, res + total, cmp);
    total += count[g];
    if (count[g] > widest) widest = count[g];
  }
  write_outputs(c, a, res, count, groups, total, widest);
}

const tfs_kernel_def tfs_cpu_kernels_set_ops[] = {
    {"DenseToDenseSetOperation", "CPU", "T",
     TFS_DT_BIT(TFS_INT8) | TFS_DT_BIT(TFS_INT16) | TFS_DT_BIT(TFS_INT32) |
         TFS_DT_BIT(TFS_INT64) | TFS_DT_BIT(TFS_UINT8) |
         TFS_DT_BIT(TFS_UINT16) | TFS_DT_BIT(TFS_STRING),
     set_prepare, set_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

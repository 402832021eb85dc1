/*
 * backends/cpu/ragged_variant.c - RaggedTensorToVariant and
 * RaggedTensorFromVariant: a ragged tensor packed into DT_VARIANT values
 * (core/ragged_variant.h), whole or one value per row (batched_input), and
 * unpacked again, stacking the rows of a variant tensor of any rank into
 * one ragged tensor.  This is how tf.map_fn moves ragged rows through its
 * loop.  TensorFlow's validation order and messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/ragged.h"
#include "core/alloc.h"
#include "core/ragged_variant.h"
#include "core/strbuf.h"
#include "core/util.h"

/* ---- RaggedTensorToVariant ----------------------------------------------- */

/* TensorFlow's checks of nested splits before they are encoded. */
static int check_splits(tfs_kernel_ctx *c, int rr) {
  const tfs_tensor *v = c->inputs[rr];
  if (rr > 0 && v->shape.rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requires flat_values to have rank>=1 when "
                  "nested_row_splits is not empty, but is 0.");
    return -1;
  }
  for (int i = 0; i < rr; i++) {
    const tfs_tensor *s = c->inputs[i];
    int64_t n = s->nelems;
    const char *p = "Invalid ragged splits: ";
    if (s->shape.rank != 1) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%sragged splits must be rank 1 but is rank %d", p,
                    (int)s->shape.rank);
      return -1;
    }
    if (n == 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%sragged splits must have at least one splits, but is "
                    "empty", p);
      return -1;
    }
    if (tfs_ragged__at(s, 0) != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%sfirst element of ragged splits  must be 0 but is "
                    "%lld", p, (long long)tfs_ragged__at(s, 0));
      return -1;
    }
    for (int64_t j = 1; j < n; j++) {
      int64_t a = tfs_ragged__at(s, j - 1), b = tfs_ragged__at(s, j);
      if (b < a) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "%sragged splits must be monotonically increasing, "
                      "but ragged_splits[%lld]=%lld is smaller than "
                      "row_splits[%lld]=%lld", p, (long long)j,
                      (long long)b, (long long)(j - 1), (long long)a);
        return -1;
      }
    }
    int64_t nv = i + 1 < rr ? c->inputs[i + 1]->nelems - 1 : v->shape.dims[0];
    if (tfs_ragged__at(s, n - 1) != nv) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "%slast element of ragged splits must be the number of "
                    "ragged values(%lld) but is %lld", p, (long long)nv,
                    (long long)tfs_ragged__at(s, n - 1));
      return -1;
    }
  }
  return 0;
}

/* A new tensor holding rows [a, b) of t (dim 0). */
static tfs_tensor *slice_rows(const tfs_tensor *t, int64_t a, int64_t b,
                              tfs_status *st) {
  tfs_shape s = t->shape;
  s.dims[0] = b - a;
  tfs_tensor *o = tfs_tensor__alloc(t->dtype, &s, st);
  if (!o) return NULL;
  int64_t row = tfs_arr_prod(t->shape.dims, 1, t->shape.rank);
  tfs_elem e = tfs_elem_of(t->dtype);
  if (o->nelems &&
             tfs_elem_copy(e, o->data,
                           (const char *)t->data + a * row * e.size,
                           (b - a) * row)) {
    tfs_tensor_free(o);
    TFS_OOM(st);
    return NULL;
  }
  return o;
}

/* The value of row r of a batched ragged tensor of ragged rank rr (its
 * splits and values sliced and rebased), or of the values' row r when rr
 * is 0.  NULL with st set. */
static tfs_ragged_variant *encode_row(tfs_kernel_ctx *c, int rr, int64_t r,
                                      tfs_status *st) {
  tfs_tensor *parts[TFS_MAX_RANK * 8];
  int64_t a = r, b = r + 1;
  int n = 0;
  for (int i = 0; i < rr; i++) {
    const tfs_tensor *s = c->inputs[i];
    if (i > 0) {
      parts[n] = slice_rows(s, a, b + 1, st);
      if (!parts[n]) goto fail;
      /* rebased so that the row's splits start at 0 */
      int64_t base = tfs_ragged__at(s, a);
      for (int64_t k = 0; k <= b - a; k++) {
        int64_t x = tfs_ragged__at(s, a + k) - base;
        if (s->dtype == TFS_INT32)
          ((int32_t *)parts[n]->data)[k] = (int32_t)x;
        else
          ((int64_t *)parts[n]->data)[k] = x;
      }
      n++;
    }
    int64_t na = tfs_ragged__at(s, a), nb = tfs_ragged__at(s, b);
    a = na;
    b = nb;
  }
  const tfs_tensor *v = c->inputs[rr];
  tfs_tensor *vals;
  if (rr == 0) { /* one row of a dense tensor: its shape less dim 0 */
    vals = slice_rows(v, r, r + 1, st);
    if (vals) {
      vals->shape.rank--;
      memmove(vals->shape.dims, vals->shape.dims + 1,
              (size_t)vals->shape.rank * sizeof(int64_t));
    }
  } else {
    vals = slice_rows(v, a, b, st);
  }
  if (!vals) goto fail;
  return tfs_ragged_variant_new(n, parts, vals, st);
fail:
  for (int i = 0; i < n; i++) tfs_tensor_free(parts[i]);
  return NULL;
}

static void to_variant_compute(tfs_kernel_ctx *c) {
  int rr = c->ninputs - 1, batched = *(const int *)c->state;
  if (rr > TFS_MAX_RANK * 8) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "RAGGED_RANK %d is more than this build supports", rr);
    return;
  }
  if (check_splits(c, rr)) return;
  tfs_status *st = tfs_status_new();
  if (!st) {
    tfs_arr_oom(c);
    return;
  }
  tfs_shape s;
  if (!batched) {
    tfs_tensor *parts[TFS_MAX_RANK * 8 + 1];
    int n = 0;
    for (; n <= rr; n++)
      if (!(parts[n] = tfs_tensor__retainable(c->inputs[n], st))) break;
    if (n <= rr) {
      for (int i = 0; i < n; i++) tfs_tensor_free(parts[i]);
      goto out;
    }
    tfs_ragged_variant *r = tfs_ragged_variant_new(rr, parts, parts[rr], st);
    if (!r) goto out;
    tfs_tensor *o = tfs_tensor__variant_scalar(&r->base, st);
    if (o) tfs_kctx_set_output(c, 0, o);
    goto out;
  }
  const tfs_tensor *top = c->inputs[0];
  int64_t rows = rr ? top->nelems - 1 : top->shape.dims[0];
  if (rr == 0 && top->shape.rank == 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Requires flat_values to have rank>=1 when batched_input "
                  "is true, but is 0.");
    goto out;
  }
  tfs_shape_1d(&s, rows);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) goto out;
  for (int64_t r = 0; r < rows; r++) {
    tfs_ragged_variant *v = encode_row(c, rr, r, st);
    if (!v) break;
    ((tfs_variant **)o->data)[r] = &v->base;
  }
out:
  if (tfs_status_code(st) != TFS_OK) tfs_kctx_fail_status(c, st);
  tfs_status_free(st);
}

static int to_variant_prepare(tfs_kernel_init *ki) {
  int *b = tfs_calloc(1, sizeof(int));
  if (!b) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_attrs_get_bool(ki->attrs, "batched_input", b);
  ki->state = b;
  return 0;
}

/* ---- RaggedTensorFromVariant --------------------------------------------- */

typedef struct from_state {
  int64_t irr, orr;
  tfs_dtype tvalues, tsplits;
} from_state;

static int from_variant_prepare(tfs_kernel_init *ki) {
  from_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  tfs_attrs_get_int(ki->attrs, "input_ragged_rank", &s->irr);
  tfs_attrs_get_int(ki->attrs, "output_ragged_rank", &s->orr);
  tfs_attrs_get_type(ki->attrs, "Tvalues", &s->tvalues);
  s->tsplits = TFS_INT64;
  tfs_attrs_get_type(ki->attrs, "Tsplits", &s->tsplits);
  return 0;
}

/* The value of element i, checked against the node's ranks and dtypes. */
static tfs_ragged_variant *decode(tfs_kernel_ctx *c, const from_state *s,
                                  int64_t irr, int64_t i) {
  tfs_variant *v = tfs_tensor__variant(c->inputs[0], i);
  tfs_ragged_variant *r = tfs_ragged_variant_of(v);
  if (!r) {
    tfs_strbuf b = TFS_STRBUF_INIT;
    tfs_variant_describe(v, &b);
    const char *d = tfs_strbuf_str(&b);
    size_t n = strlen(d);
    int strip = n >= 2 && d[0] == '<' && d[n - 1] == '>';
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input Variant element at index %lld doesn't hold a "
                  "RaggedTensorVariant: Variant<type: %s value: %.*s>",
                  (long long)i, v ? v->type->type_name : "",
                  (int)(n - 2 * strip), d + strip);
    tfs_strbuf_free(&b);
    return NULL;
  }
  if (r->ragged_rank != irr) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Encoded input RaggedTensorVariant has ragged_rank=%d.  "
                  "Expected ragged_rank=%lld.", r->ragged_rank,
                  (long long)irr);
    return NULL;
  }
  if (r->values->dtype != s->tvalues) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected values Tensor dtype: %s, found: %s",
                  tfs_dtype_name(s->tvalues),
                  tfs_dtype_name(r->values->dtype));
    return NULL;
  }
  if (irr > 0 && r->splits[0]->dtype != s->tsplits) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Expected row_splits Tensor dtype: %s, found: %s",
                  tfs_dtype_name(s->tsplits),
                  tfs_dtype_name(r->splits[0]->dtype));
    return NULL;
  }
  return r;
}

/* Writes v at o[i] (int32 or int64); fails c when an int32 overflows. */
static int put(tfs_kernel_ctx *c, tfs_tensor *o, int64_t i, int64_t v) {
  if (o->dtype == TFS_INT64) {
    ((int64_t *)o->data)[i] = v;
    return 0;
  }
  if (v > INT32_MAX) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Row split %lld does not fit in the int32 splits type",
                  (long long)v);
    return -1;
  }
  ((int32_t *)o->data)[i] = (int32_t)v;
  return 0;
}

/* Output level `lvl` of stacked components: a uniform level of the batch
 * shape, the components' row counts, or their splits of level
 * lvl - batch_rank concatenated. */
static int stack_level(tfs_kernel_ctx *c, tfs_ragged_variant *const *r,
                       int64_t n, int lvl) {
  const tfs_shape *bs = &c->inputs[0]->shape;
  int br = bs->rank;
  tfs_shape s;
  tfs_tensor *o;
  if (lvl < br - 1) {
    int64_t rows = tfs_arr_prod(bs->dims, 0, lvl + 1), w = bs->dims[lvl + 1];
    tfs_shape_1d(&s, rows + 1);
    if (!(o = tfs_kctx_alloc_output(c, lvl, &s))) return -1;
    for (int64_t i = 0; i <= rows; i++)
      if (put(c, o, i, i * w)) return -1;
    return 0;
  }
  int j = lvl - br; /* the components' level, -1: their rows */
  int64_t len = 1, total = 0;
  for (int64_t i = 0; i < n; i++)
    len += j < 0 ? 1 : r[i]->splits[j]->nelems - 1;
  tfs_shape_1d(&s, len);
  if (!(o = tfs_kctx_alloc_output(c, lvl, &s))) return -1;
  if (put(c, o, 0, 0)) return -1;
  for (int64_t i = 0, k = 1; i < n; i++) {
    if (j < 0) {
      const tfs_tensor *x = r[i]->ragged_rank ? r[i]->splits[0]
                                              : r[i]->values;
      total += r[i]->ragged_rank ? x->nelems - 1 : x->shape.dims[0];
      if (put(c, o, k++, total)) return -1;
      continue;
    }
    const tfs_tensor *x = r[i]->splits[j];
    for (int64_t m = 1; m < x->nelems; m++)
      if (put(c, o, k++, total + tfs_ragged__at(x, m))) return -1;
    total += tfs_ragged__at(x, x->nelems - 1);
  }
  return 0;
}

/* The components' values concatenated along dim 0. */
static void stack_values(tfs_kernel_ctx *c, tfs_ragged_variant *const *r,
                         int64_t n, int out) {
  tfs_shape s;
  tfs_shape_1d(&s, 0);
  for (int64_t i = 0; i < n; i++) {
    const tfs_shape *vs = &r[i]->values->shape;
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    if (i == 0) {
      s = *vs;
      s.dims[0] = 0;
    } else if (vs->rank != s.rank) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Rank of values must match for all components; values "
                    "shape at index 0: %s, values shape at index %lld: %s",
                    tfs_shape_str(&r[0]->values->shape, a, sizeof a),
                    (long long)i, tfs_shape_str(vs, b, sizeof b));
      return;
    }
    for (int d = 1; d < vs->rank; d++) {
      if (vs->dims[d] != s.dims[d]) {
        tfs_shape x = r[0]->values->shape, y = *vs;
        x.rank--, y.rank--;
        memmove(x.dims, x.dims + 1, (size_t)x.rank * sizeof(int64_t));
        memmove(y.dims, y.dims + 1, (size_t)y.rank * sizeof(int64_t));
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "All flat_values must have compatible shapes.  Shape "
                      "at index 0: %s.  Shape at index %lld: %s.  If you "
                      "are using tf.map_fn, then you may need to specify an "
                      "explicit fn_output_signature with appropriate "
                      "ragged_rank, and/or convert output tensors to "
                      "RaggedTensors.", tfs_shape_str(&x, a, sizeof a),
                      (long long)i, tfs_shape_str(&y, b, sizeof b));
        return;
      }
    }
    s.dims[0] += vs->dims[0];
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, out, &s);
  if (!o || o->nelems == 0) return;
  tfs_elem e = tfs_elem_of(o->dtype);
  char *dst = o->data;
  for (int64_t i = 0; i < n; i++) {
    const tfs_tensor *v = r[i]->values;
    if (tfs_elem_copy(e, dst, v->data, v->nelems)) {
      tfs_arr_oom(c);
      return;
    }
    dst += v->nelems * e.size;
  }
}

static void from_variant_compute(tfs_kernel_ctx *c) {
  const from_state *s = c->state;
  const tfs_tensor *enc = c->inputs[0];
  int64_t irr = s->irr < 0 ? s->orr - enc->shape.rank : s->irr;
  if (s->orr != irr + enc->shape.rank || irr < 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "output_ragged_rank must be equal to input_ragged_rank + "
                  "encoded_ragged.dims(); output_ragged_rank: %lld, "
                  "input_ragged_rank: %lld, encoded_variant.dims(): %d.",
                  (long long)s->orr, (long long)irr, (int)enc->shape.rank);
    return;
  }
  int64_t n = enc->nelems, bytes;
  tfs_ragged_variant **r;
  if (tfs_mul_overflow_i64(n ? n : 1, (int64_t)sizeof(*r), &bytes) ||
      !(r = tfs_kctx_scratch(c, (size_t)bytes))) {
    if (!c->failed) tfs_arr_oom(c);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    if (!(r[i] = decode(c, s, irr, i))) return;
  if (enc->shape.rank == 0) { /* the value as it is */
    for (int i = 0; i < irr; i++)
      tfs_kctx_set_output(c, i, tfs_tensor_ref(r[0]->splits[i]));
    tfs_kctx_set_output(c, (int)irr, tfs_tensor_ref(r[0]->values));
    return;
  }
  if (irr == 0) {
    for (int64_t i = 0; i < n; i++) {
      if (r[i]->values->shape.rank == 0) {
        char *t = tfs_tensor__summarize(r[i]->values, 3);
        char sh[TFS_SHAPE_STRLEN];
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Ragged values must have rank >= 1; encoded scalar "
                      "element at index %lld has values Tensor: "
                      "Tensor<type: %s shape: %s values: %s>", (long long)i,
                      tfs_dtype_name(r[i]->values->dtype),
                      tfs_shape_str(&r[i]->values->shape, sh, sizeof sh),
                      t ? t : "");
        free(t);
        return;
      }
    }
  }
  for (int lvl = 0; lvl < s->orr; lvl++)
    if (stack_level(c, r, n, lvl)) return;
  stack_values(c, r, n, (int)s->orr);
}

const tfs_kernel_def tfs_cpu_kernels_ragged_variant[] = {
    {"RaggedTensorToVariant", "CPU", "Tvalues", TFS_DT_ARRAY,
     to_variant_prepare, to_variant_compute, tfs_free, 0, NULL},
    {"RaggedTensorFromVariant", "CPU", "Tvalues", TFS_DT_ARRAY,
     from_variant_prepare, from_variant_compute, tfs_free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

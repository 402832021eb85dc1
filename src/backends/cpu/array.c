/*
 * backends/cpu/array.c - Const, Placeholder, PlaceholderWithDefault,
 * Identity, Reshape, Shape, Fill, ZerosLike.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"

/* ---- Const ---------------------------------------------------------------- */

static int const_prepare(tfs_kernel_init *ki) {
  const tfs_tensor *v = tfs_attrs_get_tensor(ki->attrs, "value");
  if (!v) return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "Const has no value");
  ki->state = tfs_tensor_ref((tfs_tensor *)v);
  return 0;
}

static void const_release(void *state) { tfs_tensor_free(state); }

static void const_compute(tfs_kernel_ctx *c) {
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->state));
}

/* ---- placeholders ---------------------------------------------------------- */

static int placeholder_prepare(tfs_kernel_init *ki) {
  /* The message is fixed per node: build it once. */
  tfs_dtype dt = TFS_INVALID;
  tfs_attrs_get_type(ki->attrs, "dtype", &dt);
  const tfs_shape *s = tfs_attrs_get_shape(ki->attrs, "shape");
  char buf[TFS_SHAPE_STRLEN];
  char *msg;
  if (s && s->rank > 0)
    msg = tfs_asprintf("You must feed a value for placeholder tensor '%s' "
                       "with dtype %s and shape %s", ki->node_name,
                       tfs_dtype_name(dt), tfs_shape_str(s, buf, sizeof buf));
  else
    msg = tfs_asprintf("You must feed a value for placeholder tensor '%s' "
                       "with dtype %s", ki->node_name, tfs_dtype_name(dt));
  if (!msg) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = msg;
  return 0;
}

static void placeholder_compute(tfs_kernel_ctx *c) {
  tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", (const char *)c->state);
}

static void pass_through(tfs_kernel_ctx *c) {
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(c->inputs[0]));
}

/* ---- EnsureShape --------------------------------------------------------- */

typedef struct {
  tfs_shape want;
  char input[256]; /* the input as the NodeDef names it */
} ensure_state;

static int ensure_shape_prepare(tfs_kernel_init *ki) {
  const tfs_shape *s = tfs_attrs_get_shape(ki->attrs, "shape");
  if (!s)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "EnsureShape needs a shape attr");
  ensure_state *e = tfs_malloc(sizeof *e);
  if (!e) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  e->want = *s;
  tfs_ki_input_str(ki, 0, e->input, sizeof e->input);
  ki->state = e;
  return 0;
}

static void ensure_shape_compute(tfs_kernel_ctx *c) {
  const ensure_state *e = c->state;
  tfs_tensor *x = c->inputs[0];
  if (!tfs_shape_is_compatible(&e->want, &x->shape)) {
    char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Shape of tensor %s %s is not compatible with expected "
                  "shape %s.", e->input, tfs_shape_str(&x->shape, a, sizeof a),
                  tfs_shape_str(&e->want, b, sizeof b));
    return;
  }
  tfs_kctx_set_output(c, 0, tfs_tensor_ref(x));
}

/* ---- Reshape ------------------------------------------------------------- */

/* The -1 size at `unknown` as TensorFlow infers it: zero sizes are left
 * out of `product` and, when the requested shape has one, the input's
 * zero dimensions are left out of its count too, so that [0,4] reshaped
 * to [-1,0] gives [4,0]. */
static int reshape_infer(tfs_kernel_ctx *c, const tfs_tensor *in,
                         tfs_shape *out, int unknown, int64_t product,
                         int sizes_zero) {
  int64_t count = 1;
  int in_zero = 0;
  for (int d = 0; d < in->shape.rank; d++) {
    if (in->shape.dims[d] > 0 || !sizes_zero)
      count *= in->shape.dims[d];
    else
      in_zero = 1;
  }
  int64_t missing = count / product;
  if (!in_zero && product * missing != count) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input to reshape is a tensor with %lld values, but the "
                  "requested shape requires a multiple of %lld",
                  (long long)count, (long long)product);
    return -1;
  }
  out->dims[unknown] = missing;
  return 0;
}

static void reshape_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0], *sh = c->inputs[1];
  char buf[TFS_SHAPE_STRLEN];
  if (sh->shape.rank > 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "sizes input must be 1-D, not %s",
                  tfs_shape_str(&sh->shape, buf, sizeof buf));
    return;
  }
  if (sh->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Reshape to rank %lld exceeds the maximum rank %d",
                  (long long)sh->nelems, TFS_MAX_RANK);
    return;
  }
  tfs_shape out;
  out.rank = (int)sh->nelems;
  int unknown = -1, sizes_zero = 0;
  int64_t product = 1; /* of the known non-zero sizes */
  for (int i = 0; i < out.rank; i++) {
    int64_t d = tfs_tensor__get_as_int64(sh, i);
    if (d == -1) {
      if (unknown >= 0) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Only one input size may be -1, not both %d and %d",
                      unknown, i);
        return;
      }
      unknown = i;
      out.dims[i] = -1;
      continue;
    }
    if (d < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Size %d must be non-negative, not %lld", i,
                    (long long)d);
      return;
    }
    out.dims[i] = d;
    if (d == 0) {
      sizes_zero = 1;
      continue;
    }
    if (tfs_mul_overflow_i64(product, d, &product)) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Reshape target has too many elements");
      return;
    }
  }
  if (unknown >= 0 && reshape_infer(c, in, &out, unknown, product, sizes_zero))
    return;
  int64_t count = tfs_shape_num_elements(&out);
  if (count != in->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input to reshape is a tensor with %lld values, but the "
                  "requested shape has %lld",
                  (long long)in->nelems, (long long)count);
    return;
  }
  tfs_tensor *v = tfs_tensor__view(in, &out, c->st);
  if (!v) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_kctx_set_output(c, 0, v);
}

/* ---- Shape --------------------------------------------------------------- */

static void shape_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *in = c->inputs[0];
  tfs_shape s;
  tfs_shape_1d(&s, in->shape.rank);
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  for (int i = 0; i < in->shape.rank; i++) {
    if (o->dtype == TFS_INT32) {
      if (in->shape.dims[i] > INT32_MAX) {
        tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                      "Shape output type is 32-bit but dim %d is %lld", i,
                      (long long)in->shape.dims[i]);
        return;
      }
      ((int32_t *)o->data)[i] = (int32_t)in->shape.dims[i];
    } else {
      ((int64_t *)o->data)[i] = in->shape.dims[i];
    }
  }
}

/* ---- Fill / ZerosLike ------------------------------------------------------ */

static void fill_bytes(tfs_tensor *o, const void *value) {
  size_t es = tfs_dtype__storage_size(o->dtype);
  char *d = o->data;
  for (int64_t i = 0; i < o->nelems; i++) memcpy(d + (size_t)i * es, value, es);
}

static void fill_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *dims = c->inputs[0], *value = c->inputs[1];
  char buf[TFS_SHAPE_STRLEN];
  /* TensorFlow's kernel also takes a scalar for dims (one dimension) and
   * a one-element vector for value */
  if (dims->shape.rank > 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "dims must represent a vector, got shape %s",
                  tfs_shape_str(&dims->shape, buf, sizeof buf));
    return;
  }
  if (value->shape.rank > 1 || value->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "value must represent a scalar, got shape %s",
                  tfs_shape_str(&value->shape, buf, sizeof buf));
    return;
  }
  if (dims->nelems > TFS_MAX_RANK) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Fill of rank %lld exceeds the maximum rank %d",
                  (long long)dims->nelems, TFS_MAX_RANK);
    return;
  }
  tfs_shape s;
  s.rank = (int)dims->nelems;
  for (int i = 0; i < s.rank; i++) {
    s.dims[i] = tfs_tensor__get_as_int64(dims, i);
    if (s.dims[i] < 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "Dimension %lld must be >= 0",
                    (long long)s.dims[i]);
      return;
    }
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &s);
  if (!o) return;
  if (o->dtype == TFS_STRING) {
    size_t len;
    const char *str = tfs_tensor_string_at(value, 0, &len);
    for (int64_t i = 0; i < o->nelems; i++) {
      if (tfs_tstring_copy(&tfs_tensor__strings(o)[i], str, len)) {
        tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return;
      }
    }
    return;
  }
  fill_bytes(o, value->data);
}

static void zeros_like_compute(tfs_kernel_ctx *c) {
  const tfs_tensor *x = c->inputs[0];
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (o && o->dtype != TFS_STRING && o->nbytes) memset(o->data, 0, o->nbytes);
}

#define ANY NULL, 0

const tfs_kernel_def tfs_cpu_kernels_array[] = {
    {"Const", "CPU", ANY, const_prepare, const_compute, const_release, 0,
     NULL},
    {"Placeholder", "CPU", ANY, placeholder_prepare, placeholder_compute,
     free, 0, NULL},
    {"PlaceholderV2", "CPU", ANY, placeholder_prepare, placeholder_compute,
     free, 0, NULL},
    {"PlaceholderWithDefault", "CPU", ANY, NULL, pass_through, NULL, 0, NULL},
    {"EnsureShape", "CPU", ANY, ensure_shape_prepare, ensure_shape_compute,
     tfs_free, 0, NULL},
    {"Identity", "CPU", ANY, NULL, pass_through, NULL, 0, NULL},
    {"Reshape", "CPU", ANY, NULL, reshape_compute, NULL, 0, NULL},
    {"Shape", "CPU", ANY, NULL, shape_compute, NULL, 0, NULL},
    {"Fill", "CPU", ANY, NULL, fill_compute, NULL, 0, NULL},
    {"ZerosLike", "CPU", ANY, NULL, zeros_like_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

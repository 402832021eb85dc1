/*
 * backends/cpu/dataset.c - tf.data as TF1 graphs hold it: the dataset ops
 * (TensorDataset, TensorSliceDataset, RangeDataset, BatchDatasetV2,
 * RepeatDataset, TakeDataset, SkipDataset) make immutable dataset values
 * that DT_VARIANT tensors carry; IteratorV2 makes an iterator in the
 * session's resources, MakeIterator starts it on a dataset and
 * IteratorGetNext takes the next element, OUT_OF_RANGE "End of sequence"
 * at the end, as TensorFlow.
 */

/*
 * A dataset is a reference-counted variant value: its kind, its
 * parameters and (for the transformations) a reference to its input.
 * An iteration over it is a chain of cursors, one per dataset, each
 * pulling from its input's cursor; the iterator resource holds the head
 * of the chain under its mutex, so runs taking elements at once get each
 * element once.  Elements are tensors kept out of run arenas; slices
 * and batches are fresh copies.
 */
#include <string.h>

#include "backends/cpu/array_util.h"
#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"
#include "core/strbuf.h"
#include "core/tstring.h"
#include "core/variant.h"

#define DEFAULT_CONTAINER "localhost"
#define MAX_COMPONENTS 64

enum ds_kind { DS_TENSOR, DS_SLICES, DS_RANGE, DS_BATCH, DS_REPEAT, DS_TAKE,
               DS_SKIP, DS_MAP };

typedef struct dataset {
  tfs_variant base;            /* first member */
  int kind;
  int ncomp;
  tfs_dtype types[MAX_COMPONENTS];
  tfs_tensor *comps[MAX_COMPONENTS]; /* TENSOR, SLICES */
  int64_t rows;                /* SLICES */
  int64_t a, b, c;             /* RANGE start stop step; counts; batch */
  int drop_remainder;          /* BATCH */
  struct dataset *input;       /* transformations */
  tfs_func_attr fn;            /* MAP: f (name owned, no attrs) */
  int ncaptured;               /* MAP: other_arguments, after the input */
  tfs_tensor **captured;
} dataset;

static void dataset_destroy(void *p) {
  dataset *d = p;
  for (int i = 0; i < d->ncomp; i++) tfs_tensor_free(d->comps[i]);
  if (d->input) tfs_variant_unref(&d->input->base);
  for (int i = 0; i < d->ncaptured; i++) tfs_tensor_free(d->captured[i]);
  tfs_free(d->captured);
  tfs_free(d->fn.name);
  tfs_free(d);
}

static void dataset_describe(const void *p, tfs_strbuf *b) {
  (void)p;
  tfs_strbuf_puts(b, "<DatasetVariant>");
}

static const tfs_variant_type kDatasetType = {
    "tensorflow::data::WrappedDatasetVariantWrapper", dataset_destroy,
    dataset_describe};

static dataset *dataset_of(const tfs_tensor *t) {
  if (!t || t->dtype != TFS_VARIANT || t->nelems != 1) return NULL;
  tfs_variant *v = tfs_tensor__variant(t, 0);
  return v && v->type == &kDatasetType ? (dataset *)v : NULL;
}

/* ---- cursors ------------------------------------------------------------- */

typedef struct cursor {
  const dataset *ds;
  struct cursor *input;        /* NULL until first needed (REPEAT: per epoch) */
  int64_t pos;                 /* elements produced / skipped / epochs */
  int started;                 /* SKIP: skipped; REPEAT: epoch has output */
} cursor;

static void cursor_free(cursor *c) {
  while (c) {
    cursor *in = c->input;
    tfs_free(c);
    c = in;
  }
}

/* A cursor at the start of ds (and of its inputs).  NULL on OOM. */
static cursor *cursor_new(const dataset *ds) {
  cursor *c = tfs_calloc(1, sizeof(*c));
  if (!c) return NULL;
  c->ds = ds;
  if (ds->input && ds->kind != DS_REPEAT) {
    c->input = cursor_new(ds->input);
    if (!c->input) {
      tfs_free(c);
      return NULL;
    }
  }
  return c;
}

static int next(tfs_kernel_ctx *k, cursor *c, tfs_tensor **out, int *end);

/* Row `row` of t as a new tensor. */
static tfs_tensor *row_of(tfs_kernel_ctx *k, const tfs_tensor *t,
                          int64_t row) {
  tfs_shape s = t->shape;
  memmove(&s.dims[0], &s.dims[1], sizeof(int64_t) * (size_t)(s.rank - 1));
  s.rank--;
  tfs_tensor *r = tfs_tensor__alloc(t->dtype, &s, k->st);
  if (!r) {
    tfs_kctx_fail_status(k, k->st);
    return NULL;
  }
  tfs_elem e = tfs_elem_of(t->dtype);
  if (r->nelems &&
      tfs_elem_copy(e, r->data,
                    (const char *)t->data + row * r->nelems * (int64_t)e.size,
                    r->nelems)) {
    tfs_tensor_free(r);
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  return r;
}

static void free_all(tfs_tensor **t, int n) {
  for (int i = 0; i < n; i++) {
    tfs_tensor_free(t[i]);
    t[i] = NULL;
  }
}

static int range_next(tfs_kernel_ctx *k, cursor *c, tfs_tensor **out,
                      int *end) {
  const dataset *d = c->ds;
  int64_t v;
  if (tfs_mul_overflow_i64(c->pos, d->c, &v) ||
      tfs_add_overflow_i64(v, d->a, &v) || (d->c > 0 ? v >= d->b : v <= d->b)) {
    *end = 1;
    return 0;
  }
  tfs_shape s = {.rank = 0};
  tfs_tensor *t = tfs_tensor__alloc(d->types[0], &s, k->st);
  if (!t) {
    tfs_kctx_fail_status(k, k->st);
    return -1;
  }
  if (t->dtype == TFS_INT32)
    *(int32_t *)t->data = (int32_t)v;
  else
    *(int64_t *)t->data = v;
  out[0] = t;
  c->pos++;
  return 0;
}

/* The next batch: up to d->c elements stacked on a new first dimension,
 * each component's elements of one shape. */
static int batch_next(tfs_kernel_ctx *k, cursor *c, tfs_tensor **out,
                      int *end) {
  const dataset *d = c->ds;
  int n = d->ncomp;
  int64_t want = d->c, got = 0, cap = 0;
  tfs_tensor **rows = NULL;
  int rc = 0;
  while (got < want) {
    if (got == cap) {
      int64_t ncap = cap ? cap * 2 : (want < 16 ? want : 16);
      tfs_tensor **r = ncap > INT32_MAX ? NULL
                       : tfs_realloc(rows, sizeof(void *) * (size_t)(ncap * n));
      if (!r) {
        tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
        rc = -1;
        break;
      }
      rows = r;
      cap = ncap;
    }
    int e = 0;
    if (next(k, c->input, &rows[got * n], &e)) {
      rc = -1;
      break;
    }
    if (e) break;
    got++;
  }
  if (rc == 0 && (got == 0 || (got < want && d->drop_remainder))) *end = 1;
  for (int j = 0; rc == 0 && !*end && j < n; j++) {
    const tfs_tensor *first = rows[j];
    /* as TensorFlow's batch copy: element counts must agree, the first
     * element's shape is the batch's */
    for (int64_t i = 1; i < got; i++)
      if (rows[i * n + j]->nelems != first->nelems) {
        char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
        const tfs_shape *s = &rows[i * n + j]->shape;
        tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                      "Cannot add tensor to the batch: number of elements "
                      "does not match. Shapes are: [tensor]: %s, [batch]: %s",
                      tfs_dims_str(s->dims, s->rank, a, sizeof a),
                      tfs_dims_str(first->shape.dims, first->shape.rank, b,
                                   sizeof b));
        rc = -1;
        break;
      }
    if (rc) break;
    tfs_shape s = first->shape;
    if (s.rank + 1 > TFS_MAX_RANK) {
      tfs_kctx_fail(k, TFS_INVALID_ARGUMENT, "batched rank exceeds %d",
                    TFS_MAX_RANK);
      rc = -1;
      break;
    }
    memmove(&s.dims[1], &s.dims[0], sizeof(int64_t) * (size_t)s.rank);
    s.dims[0] = got;
    s.rank++;
    tfs_tensor *t = tfs_tensor__alloc(first->dtype, &s, k->st);
    if (!t) {
      tfs_kctx_fail_status(k, k->st);
      rc = -1;
      break;
    }
    out[j] = t;
    tfs_elem e = tfs_elem_of(first->dtype);
    int64_t per = first->nelems;
    for (int64_t i = 0; i < got && per; i++)
      if (tfs_elem_copy(e, (char *)t->data + i * per * (int64_t)e.size,
                        rows[i * n + j]->data, per)) {
        tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
        rc = -1;
        break;
      }
  }
  if (rc) free_all(out, n);
  for (int64_t i = 0; i < got; i++) free_all(&rows[i * n], n);
  tfs_free(rows);
  return rc;
}

/* Repeat: a new input cursor per epoch; an epoch that yields nothing ends
 * the sequence (TensorFlow's guard against an endless empty loop). */
static int repeat_next(tfs_kernel_ctx *k, cursor *c, tfs_tensor **out,
                       int *end) {
  const dataset *d = c->ds;
  for (;;) {
    if (d->a >= 0 && c->pos >= d->a) {
      *end = 1;
      return 0;
    }
    if (!c->input) {
      c->input = cursor_new(d->input);
      c->started = 0;
      if (!c->input) {
        tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
        return -1;
      }
    }
    int e = 0;
    if (next(k, c->input, out, &e)) return -1;
    if (!e) {
      c->started = 1;
      return 0;
    }
    cursor_free(c->input);
    c->input = NULL;
    c->pos++;
    if (!c->started) {
      *end = 1;
      return 0;
    }
  }
}

/* Map: the input's next element and the captured arguments through f,
 * called with the run's function runtime as PartitionedCall calls. */
static int map_next(tfs_kernel_ctx *k, cursor *c, tfs_tensor **out,
                    int *end) {
  const dataset *d = c->ds;
  const tfs_fn_runtime *rt = k->run ? k->run->fnrt : NULL;
  if (!rt) {
    tfs_kctx_fail(k, TFS_UNIMPLEMENTED,
                  "Function '%s' cannot be called here (no function "
                  "runtime)", d->fn.name);
    return -1;
  }
  int nin = d->input->ncomp, n = nin + d->ncaptured;
  tfs_tensor *in[2 * MAX_COMPONENTS] = {NULL};
  if (n > 2 * MAX_COMPONENTS) {
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT, "too many map arguments: %d", n);
    return -1;
  }
  if (next(k, c->input, in, end)) return -1;
  if (*end) return 0;
  for (int i = 0; i < d->ncaptured; i++) in[nin + i] = d->captured[i];
  int rc = rt->call(rt->ctx, &d->fn, in, n, out, d->ncomp, k->st);
  free_all(in, nin);
  if (rc) {
    tfs_kctx_fail_status(k, k->st);
    return -1;
  }
  return 0;
}

/* The next element of c into out[0..ncomp): 0 with *end set at the end,
 * or -1 after failing k. */
static int next(tfs_kernel_ctx *k, cursor *c, tfs_tensor **out, int *end) {
  const dataset *d = c->ds;
  switch (d->kind) {
    case DS_TENSOR:
      if (c->pos++ > 0) {
        *end = 1;
        return 0;
      }
      for (int i = 0; i < d->ncomp; i++) out[i] = tfs_tensor_ref(d->comps[i]);
      return 0;
    case DS_SLICES:
      if (c->pos >= d->rows) {
        *end = 1;
        return 0;
      }
      for (int i = 0; i < d->ncomp; i++)
        if (!(out[i] = row_of(k, d->comps[i], c->pos))) {
          free_all(out, i);
          return -1;
        }
      c->pos++;
      return 0;
    case DS_RANGE:
      return range_next(k, c, out, end);
    case DS_BATCH:
      return batch_next(k, c, out, end);
    case DS_REPEAT:
      return repeat_next(k, c, out, end);
    case DS_MAP:
      return map_next(k, c, out, end);
    case DS_TAKE:
      if (d->a >= 0 && c->pos >= d->a) {
        *end = 1;
        return 0;
      }
      if (next(k, c->input, out, end)) return -1;
      c->pos++;
      return 0;
    default: /* DS_SKIP */
      while (!c->started && (d->a < 0 || c->pos < d->a)) {
        int e = 0;
        if (next(k, c->input, out, &e)) return -1;
        if (e) {
          *end = 1;
          return 0;
        }
        free_all(out, d->ncomp);
        c->pos++;
      }
      c->started = 1;
      return next(k, c->input, out, end);
  }
}

/* ---- the dataset ops ----------------------------------------------------- */

/* The attrs every dataset op has: output types (Toutput_types for the
 * sources that take components). */
static int ds_prepare(tfs_kernel_init *ki) {
  int n = 0;
  const tfs_dtype *t = tfs_attrs_get_type_list(ki->attrs, "output_types", &n);
  if (!t) t = tfs_attrs_get_type_list(ki->attrs, "Toutput_types", &n);
  if (!t || n < 1 || n > MAX_COMPONENTS)
    return tfs_ki_error(ki, TFS_INVALID_ARGUMENT,
                        "a dataset needs 1 to %d components, got %d",
                        MAX_COMPONENTS, n);
  dataset *proto = tfs_calloc(1, sizeof(*proto));
  if (!proto) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  proto->kind = (int)(intptr_t)ki->kdata;
  proto->ncomp = n;
  memcpy(proto->types, t, sizeof(tfs_dtype) * (size_t)n);
  ki->state = proto;
  if (proto->kind == DS_MAP) {
    const tfs_attr_value *f = tfs_attrs_find(ki->attrs, "f");
    if (!f || f->is_list || f->type != TFS_ATTR_FUNC || !f->u.func)
      return tfs_ki_error(ki, TFS_INVALID_ARGUMENT, "f must be a function");
    proto->fn.name = tfs_strdup(f->u.func->name);
    if (!proto->fn.name)
      return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (proto->kind == DS_RANGE && t[0] != TFS_INT64 && t[0] != TFS_INT32)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED,
                        "RangeDataset of %s is not supported",
                        tfs_dtype_name(t[0]));
  return 0;
}

/* Scalar int64 input i (or bool). */
static int scalar_in(tfs_kernel_ctx *k, int i, int64_t *v) {
  const tfs_tensor *t = k->inputs[i];
  if (t->nelems != 1 || t->shape.rank != 0) {
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT, "input %d must be a scalar", i);
    return -1;
  }
  *v = t->dtype == TFS_BOOL ? *(const uint8_t *)t->data
                            : *(const int64_t *)t->data;
  return 0;
}

/* MapDataset: keeps the other_arguments (inputs 1..). */
static int capture(tfs_kernel_ctx *k, dataset *d) {
  int n = k->ninputs - 1;
  d->captured = tfs_calloc((size_t)n + 1, sizeof(tfs_tensor *));
  if (!d->captured) {
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return -1;
  }
  for (; d->ncaptured < n; d->ncaptured++) {
    tfs_tensor *t = tfs_tensor__retainable(k->inputs[1 + d->ncaptured], k->st);
    if (!t) {
      tfs_kctx_fail_status(k, k->st);
      return -1;
    }
    d->captured[d->ncaptured] = t;
  }
  return 0;
}

static void ds_release(void *p) {
  dataset *proto = p;
  if (proto) tfs_free(proto->fn.name);
  tfs_free(proto);
}

static void ds_compute(tfs_kernel_ctx *k) {
  const dataset *proto = k->state;
  dataset *d = tfs_calloc(1, sizeof(*d));
  if (!d) {
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_variant_init(&d->base, &kDatasetType);
  d->kind = proto->kind;
  if (proto->fn.name && !(d->fn.name = tfs_strdup(proto->fn.name))) {
    tfs_free(d);
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  d->ncomp = proto->ncomp;
  memcpy(d->types, proto->types, sizeof d->types);
  int rc = 0;
  if ((d->kind == DS_TENSOR || d->kind == DS_SLICES) &&
      k->ninputs != d->ncomp) {
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT, "expected %d components, got %d",
                  d->ncomp, k->ninputs);
    rc = -1;
  } else if (d->kind == DS_TENSOR || d->kind == DS_SLICES) {
    for (int i = 0; rc == 0 && i < d->ncomp; i++) {
      const tfs_tensor *t = k->inputs[i];
      if (d->kind == DS_SLICES && t->shape.rank < 1) {
        tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                      "All components must be at least 1-dimensional");
        rc = -1;
      } else if (d->kind == DS_SLICES && i > 0 && t->shape.dims[0] != d->rows) {
        tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                      "All components must have the same size in the 0th "
                      "dimension");
        rc = -1;
      } else if (!(d->comps[i] = tfs_tensor__retainable(k->inputs[i], k->st))) {
        tfs_kctx_fail_status(k, k->st);
        rc = -1;
      } else if (d->kind == DS_SLICES) {
        d->rows = t->shape.dims[0];
      }
    }
  } else if (d->kind == DS_RANGE) {
    rc = scalar_in(k, 0, &d->a) || scalar_in(k, 1, &d->b) ||
         scalar_in(k, 2, &d->c);
    if (rc == 0 && d->c == 0) {
      tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                    "step must be a non-zero integer.");
      rc = -1;
    }
  } else {
    dataset *in = dataset_of(k->inputs[0]);
    if (!in) {
      tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                    "input_dataset must be a scalar dataset variant");
      rc = -1;
    } else {
      d->input = (dataset *)tfs_variant_ref(&in->base);
      rc = d->kind == DS_MAP ? capture(k, d) : scalar_in(k, 1, &d->a);
    }
    if (rc == 0 && d->kind == DS_BATCH) {
      int64_t drop = 0;
      d->c = d->a;
      rc = scalar_in(k, 2, &drop);
      d->drop_remainder = drop != 0;
      if (rc == 0 && d->c <= 0) {
        tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                      "Batch size must be greater than zero.");
        rc = -1;
      }
    }
  }
  tfs_tensor *out = rc == 0 ? tfs_tensor__variant_scalar(&d->base, k->st)
                            : NULL;
  if (rc) {
    tfs_variant_unref(&d->base);
    return;
  }
  if (!out) {
    tfs_kctx_fail_status(k, k->st);
    return;
  }
  tfs_kctx_set_output(k, 0, out);
}

/* ---- iterators ----------------------------------------------------------- */

typedef struct iterator {
  pthread_mutex_t mu;
  cursor *cur;                 /* NULL until MakeIterator; guarded by: mu */
  tfs_variant *ds;             /* the dataset cur iterates */
} iterator;

static void iterator_free(void *p) {
  iterator *it = p;
  cursor_free(it->cur);
  tfs_variant_unref(it->ds);
  pthread_mutex_destroy(&it->mu);
  tfs_free(it);
}

static const tfs_resource_kind kIteratorKind = {"Iterator", iterator_free,
                                                NULL};

static void *iterator_create(void *arg, tfs_status *st) {
  (void)arg;
  iterator *it = tfs_calloc(1, sizeof(*it));
  if (!it) {
    TFS_OOM(st);
    return NULL;
  }
  pthread_mutex_init(&it->mu, NULL);
  return it;
}

typedef struct iter_state {
  char *container, *key;
  char *factory;               /* OneShotIterator's dataset_factory */
} iter_state;

static void iter_state_release(void *p) {
  iter_state *s = p;
  if (!s) return;
  tfs_free(s->container);
  tfs_free(s->key);
  tfs_free(s->factory);
  tfs_free(s);
}

static int iterator_prepare(tfs_kernel_init *ki) {
  iter_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  size_t len;
  const char *container = tfs_attrs_get_string(ki->attrs, "container", &len);
  const char *shared = tfs_attrs_get_string(ki->attrs, "shared_name", &len);
  s->container = tfs_strdup(container && *container ? container
                                                     : DEFAULT_CONTAINER);
  s->key = shared && *shared ? tfs_asprintf("s/%s", shared)
                             : tfs_asprintf("n/%s", ki->node_name);
  if (!s->container || !s->key)
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  const tfs_attr_value *f = tfs_attrs_find(ki->attrs, "dataset_factory");
  if (f && !f->is_list && f->type == TFS_ATTR_FUNC && f->u.func &&
      !(s->factory = tfs_strdup(f->u.func->name)))
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  return 0;
}

/* OneShotIterator: the first run calls dataset_factory (through the
 * run's function runtime) and starts the iterator on its dataset. */
static void one_shot_start(tfs_kernel_ctx *k, const iter_state *s,
                           iterator *it) {
  const tfs_fn_runtime *rt = k->run ? k->run->fnrt : NULL;
  tfs_func_attr f = {s->factory, NULL};
  tfs_tensor *out = NULL;
  if (!rt || !s->factory) {
    tfs_kctx_fail(k, TFS_UNIMPLEMENTED,
                  "dataset_factory cannot be called here (no function "
                  "runtime)");
    return;
  }
  if (rt->call(rt->ctx, &f, NULL, 0, &out, 1, k->st)) {
    tfs_kctx_fail_status(k, k->st);
    return;
  }
  dataset *d = dataset_of(out);
  cursor *c = d ? cursor_new(d) : NULL;
  if (!d)
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                  "dataset_factory must return a dataset variant");
  else if (!c)
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
  else {
    it->cur = c;
    it->ds = tfs_variant_ref(&d->base);
  }
  tfs_tensor_free(out);
}

static void iterator_compute(tfs_kernel_ctx *k) {
  iter_state *s = k->state;
  int created;
  iterator *it = tfs_resource_mgr_lookup_or_create(
      tfs_kctx_resources(k), s->container, s->key, &kIteratorKind,
      iterator_create, NULL, &created, k->st);
  if (!it) {
    tfs_kctx_fail_status(k, k->st);
    return;
  }
  if (s->factory) {
    pthread_mutex_lock(&it->mu);
    if (!it->ds) one_shot_start(k, s, it);
    pthread_mutex_unlock(&it->mu);
    if (k->failed) return;
  }
  tfs_resource_handle *h = tfs_resource_handle_new(
      s->container, s->key, "Iterator", TFS_INVALID, NULL);
  tfs_tensor *t = h ? tfs_tensor__resource(h, k->st) : NULL;
  if (!t) {
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_kctx_set_output(k, 0, t);
}

/* The iterator input i names; NULL after failing k. */
static iterator *iterator_of(tfs_kernel_ctx *k, int i) {
  const tfs_resource_handle *h = tfs_kctx_input_handle(k, i);
  iterator *it = h ? tfs_resource_mgr_lookup(tfs_kctx_resources(k),
                                             h->container, h->name,
                                             &kIteratorKind)
                   : NULL;
  if (!it)
    tfs_kctx_fail(k, TFS_NOT_FOUND, "Resource %s/%s/Iterator does not exist.",
                  h ? h->container : "", h ? h->name : "");
  return it;
}

static void make_iterator_compute(tfs_kernel_ctx *k) {
  dataset *d = dataset_of(k->inputs[0]);
  if (!d) {
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                  "dataset must be a scalar dataset variant");
    return;
  }
  iterator *it = iterator_of(k, 1);
  if (!it) return;
  cursor *c = cursor_new(d);
  if (!c) {
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return;
  }
  tfs_variant *ref = tfs_variant_ref(&d->base);
  pthread_mutex_lock(&it->mu);
  cursor *old = it->cur;
  tfs_variant *old_ds = it->ds;
  it->cur = c;
  it->ds = ref;
  pthread_mutex_unlock(&it->mu);
  cursor_free(old);
  tfs_variant_unref(old_ds);
}

static void get_next_compute(tfs_kernel_ctx *k) {
  iterator *it = iterator_of(k, 0);
  if (!it) return;
  tfs_tensor *out[MAX_COMPONENTS] = {NULL};
  int end = 0, rc = 0;
  pthread_mutex_lock(&it->mu);
  const dataset *d = it->cur ? it->cur->ds : NULL;
  if (!d) {
    tfs_kctx_fail(k, TFS_FAILED_PRECONDITION,
                  "GetNext() failed because the iterator has not been "
                  "initialized. Ensure that you have run the initializer "
                  "operation for this iterator before getting the next "
                  "element.");
    rc = -1;
  } else if (d->ncomp != k->noutputs) {
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                  "Number of components does not match: iterator has %d "
                  "outputs, the dataset %d", k->noutputs, d->ncomp);
    rc = -1;
  } else {
    rc = next(k, it->cur, out, &end);
  }
  pthread_mutex_unlock(&it->mu);
  if (rc) return;
  if (end) {
    tfs_kctx_fail(k, TFS_OUT_OF_RANGE, "End of sequence");
    return;
  }
  for (int i = 0; i < d->ncomp; i++) {
    if (out[i]->dtype != k->out_types[i]) {
      tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                    "Data type mismatch at component %d: expected %s but got "
                    "%s.", i, tfs_dtype_name(k->out_types[i]),
                    tfs_dtype_name(out[i]->dtype));
      free_all(out, d->ncomp);
      return;
    }
  }
  for (int i = 0; i < d->ncomp; i++) tfs_kctx_set_output(k, i, out[i]);
}

/* Appends a length-delimited protobuf field (tag, varint length, bytes). */
static void put_field(tfs_strbuf *b, int field, const char *v) {
  size_t n = strlen(v);
  char hdr[12];
  int k = 0;
  hdr[k++] = (char)(field << 3 | 2);
  do {
    hdr[k++] = (char)((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>= 7;
  } while (n);
  tfs_strbuf_append(b, hdr, (size_t)k);
  tfs_strbuf_append(b, v, strlen(v));
}

/* IteratorToStringHandle: the iterator's handle as a serialized
 * ResourceHandleProto (container, name, type name). */
static void to_string_handle_compute(tfs_kernel_ctx *k) {
  const tfs_resource_handle *h = tfs_kctx_input_handle(k, 0);
  if (!h) {
    tfs_kctx_fail(k, TFS_INVALID_ARGUMENT,
                  "Expected a scalar iterator resource handle");
    return;
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  put_field(&b, 2, h->container);
  put_field(&b, 3, h->name);
  put_field(&b, 5, "Iterator");
  tfs_shape s = {.rank = 0};
  tfs_tensor *o = b.oom ? NULL : tfs_kctx_alloc_output(k, 0, &s);
  if (b.oom)
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
  else if (o && tfs_tstring_copy(tfs_tensor__strings(o), b.data, b.len))
    tfs_kctx_fail(k, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_strbuf_free(&b);
}

/* ---- the table ----------------------------------------------------------- */

#define DS(op, kind)                                                     \
  {op, "CPU", NULL, 0, ds_prepare, ds_compute, ds_release, 0,            \
   (const void *)(intptr_t)(kind)}
const tfs_kernel_def tfs_cpu_kernels_dataset[] = {
    DS("TensorDataset", DS_TENSOR),
    DS("TensorSliceDataset", DS_SLICES),
    DS("RangeDataset", DS_RANGE),
    DS("BatchDatasetV2", DS_BATCH),
    DS("RepeatDataset", DS_REPEAT),
    DS("TakeDataset", DS_TAKE),
    DS("SkipDataset", DS_SKIP),
    DS("MapDataset", DS_MAP),
    {"IteratorV2", "CPU", NULL, 0, iterator_prepare, iterator_compute,
     iter_state_release, 0, NULL},
    {"OneShotIterator", "CPU", NULL, 0, iterator_prepare, iterator_compute,
     iter_state_release, 0, NULL},
    {"MakeIterator", "CPU", NULL, 0, NULL, make_iterator_compute, NULL, 0,
     NULL},
    {"IteratorGetNext", "CPU", NULL, 0, NULL, get_next_compute, NULL, 0,
     NULL},
    {"IteratorToStringHandle", "CPU", NULL, 0, NULL,
     to_string_handle_compute, NULL, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

/*
 * backends/cpu/save_restore.c - the V2 checkpoint kernels: SaveV2 and
 * RestoreV2 over the TensorBundle writer and reader (io/), plain tensors
 * and slices given by "shape and slice" specs, MergeV2Checkpoints (the
 * last step of a sharded save), ShardedFilename and ShardedFilespec.
 * Validation order and messages are TensorFlow's save_restore_v2_ops.cc.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/cpu/cpu_tables.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/tstring.h"
#include "io/tensor_bundle.h"
#include "tfsess/checkpoint.h"

/* String element i of t as a NUL-terminated copy (caller frees); NULL
 * after failing the kernel when it holds a NUL byte or memory runs out. */
static char *cstr_at(tfs_kernel_ctx *c, const tfs_tensor *t, int64_t i,
                     const char *what) {
  const tfs_tstring *s = &tfs_tensor__strings(t)[i];
  size_t n = tfs_tstring_size(s);
  const char *p = tfs_tstring_data(s);
  if (memchr(p, 0, n)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s %lld contains a NUL byte: %s",
                  what, (long long)i, p);
    return NULL;
  }
  char *r = tfs_malloc(n + 1);
  if (!r) {
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  memcpy(r, p, n);
  r[n] = 0;
  return r;
}

/* TensorFlow's ValidateInputs, shared by SaveV2 and RestoreV2. */
static int validate_inputs(tfs_kernel_ctx *c, int is_save) {
  const tfs_tensor *prefix = c->inputs[0], *names = c->inputs[1],
                   *specs = c->inputs[2];
  char a[TFS_SHAPE_STRLEN], b[TFS_SHAPE_STRLEN];
  if (prefix->nelems != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input prefix should have a single "
                  "element, got %lld instead.", (long long)prefix->nelems);
    return -1;
  }
  if (names->shape.rank != 1 || specs->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Input tensor_names and shape_and_slices should be an 1-D "
                  "tensors, got %s and %s instead.",
                  tfs_shape_str(&names->shape, a, sizeof a),
                  tfs_shape_str(&specs->shape, b, sizeof b));
    return -1;
  }
  if (names->nelems != specs->nelems) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "tensor_names and shape_and_slices have different number "
                  "of elements: %lld vs. %lld", (long long)names->nelems,
                  (long long)specs->nelems);
    return -1;
  }
  if (is_save && c->ninputs != names->nelems + 3) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Got %lld tensor names but %d "
                  "tensors.", (long long)names->nelems, c->ninputs - 3);
    return -1;
  }
  return 0;
}

/* ---- SaveV2 -------------------------------------------------------------- */

/* Adds tensor i (input i + 3) under name with spec (maybe empty). */
static int save_one(tfs_kernel_ctx *c, tfs_bundle_writer *w, int64_t i,
                    const char *name, tfs_status *st) {
  const tfs_tensor *t = c->inputs[i + 3];
  const tfs_tstring *sp = &tfs_tensor__strings(c->inputs[2])[i];
  size_t sl = tfs_tstring_size(sp);
  if (sl == 0) {
    tfs_bundle_writer_add(w, name, t, st);
    return tfs_status_ok(st) ? 0 : -1;
  }
  tfs_slice_spec spec;
  if (tfs_slice_spec_parse(tfs_tstring_data(sp), sl, &spec, st)) return -1;
  int same = spec.rank == t->shape.rank;
  for (int d = 0; same && d < spec.rank; d++)
    same = spec.slice_dims[d] == t->shape.dims[d];
  if (!same) {
    char b[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Slice in shape_and_slice specification does not match "
                    "the shape of the tensor to  save: %.*s, tensor: %s",
                    (int)sl, tfs_tstring_data(sp),
                    tfs_shape_str(&t->shape, b, sizeof b));
    return -1;
  }
  tfs_bundle_writer_add_slice(w, name, spec.rank, spec.dims, spec.start,
                              spec.length, t, st);
  return tfs_status_ok(st) ? 0 : -1;
}

static void save_v2_compute(tfs_kernel_ctx *c) {
  if (validate_inputs(c, 1)) return;
  char *prefix = cstr_at(c, c->inputs[0], 0, "prefix");
  if (!prefix) return;
  tfs_status *st = tfs_status_new();
  tfs_bundle_writer *w = tfs_bundle_writer_open(prefix, st);
  for (int64_t i = 0; w && i < c->inputs[1]->nelems; i++) {
    char *name = cstr_at(c, c->inputs[1], i, "tensor name");
    int rc = name ? save_one(c, w, i, name, st) : -1;
    tfs_free(name);
    if (rc) break;
  }
  if (w && !c->failed && tfs_status_ok(st)) tfs_bundle_writer_finish(w, st);
  if (!c->failed && !tfs_status_ok(st)) tfs_kctx_fail_status(c, st);
  tfs_bundle_writer_free(w);
  tfs_status_free(st);
  tfs_free(prefix);
}

/* ---- RestoreV2 ----------------------------------------------------------- */

typedef struct {
  int n;
  tfs_dtype dtypes[]; /* the dtypes attr */
} restore_state;

static int restore_v2_prepare(tfs_kernel_init *ki) {
  int n = 0;
  const tfs_dtype *dt = tfs_attrs_get_type_list(ki->attrs, "dtypes", &n);
  restore_state *s = tfs_calloc(1, sizeof *s + (size_t)n * sizeof(tfs_dtype));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->n = n;
  if (n) memcpy(s->dtypes, dt, (size_t)n * sizeof *dt);
  ki->state = s;
  return 0;
}

static const tfs_tensor *g_sort_names; /* only during qsort, under a lock */

static int cmp_names(const void *a, const void *b) {
  const tfs_tstring *s = tfs_tensor__strings(g_sort_names);
  const tfs_tstring *x = &s[*(const int64_t *)a], *y = &s[*(const int64_t *)b];
  size_t xl = tfs_tstring_size(x), yl = tfs_tstring_size(y);
  int r = memcmp(tfs_tstring_data(x), tfs_tstring_data(y), xl < yl ? xl : yl);
  if (r) return r;
  if (xl != yl) return xl < yl ? -1 : 1;
  int64_t d = *(const int64_t *)a - *(const int64_t *)b;
  return d < 0 ? -1 : d > 0;
}

/* The names' indexes in TensorFlow's restore order: sorted by name. */
static int64_t *sorted_order(const tfs_tensor *names) {
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  int64_t n = names->nelems;
  int64_t *ord = tfs_malloc((size_t)(n ? n : 1) * sizeof *ord);
  if (!ord) return NULL;
  for (int64_t i = 0; i < n; i++) ord[i] = i;
  pthread_mutex_lock(&mu);
  g_sort_names = names;
  qsort(ord, (size_t)n, sizeof *ord, cmp_names);
  pthread_mutex_unlock(&mu);
  return ord;
}

/* Looks every name up (in input order: the first missing key fails),
 * then compares dtypes in name order, reporting every mismatch, one line
 * each, as TensorFlow 2.21's RestoreV2 does. */
static int check_dtypes(tfs_kernel_ctx *c, tfs_bundle_reader *r,
                        const int64_t *ord, char **names) {
  const restore_state *s = c->state;
  int64_t n = c->inputs[1]->nelems;
  for (int64_t i = 0; i < n; i++)
    if (tfs_bundle_reader_find(r, names[i]) < 0) {
      tfs_kctx_fail(c, TFS_NOT_FOUND, "Key %s not found in checkpoint",
                    names[i]);
      return -1;
    }
  tfs_strbuf msg = TFS_STRBUF_INIT;
  for (int64_t k = 0; k < n; k++) {
    int64_t i = ord[k];
    tfs_dtype have =
        tfs_bundle_reader_dtype(r, tfs_bundle_reader_find(r, names[i]));
    if (have != s->dtypes[i]) {
      char line[1024];
      int len = snprintf(line, sizeof line, "%stensor_name = %s; expected "
                         "dtype %s does not equal original dtype %s",
                         msg.len ? "\n" : "", names[i],
                         tfs_dtype_name(s->dtypes[i]), tfs_dtype_name(have));
      tfs_strbuf_append(&msg, line, len < (int)sizeof line ? (size_t)len
                                                           : sizeof line - 1);
    }
  }
  int bad = msg.len > 0;
  if (bad) tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", tfs_strbuf_str(&msg));
  tfs_strbuf_free(&msg);
  return bad ? -1 : 0;
}

/* Restores tensor i (a name the checkpoint has) into output i. */
static int restore_one(tfs_kernel_ctx *c, tfs_bundle_reader *r, int64_t i,
                       const char *name, tfs_status *st) {
  const tfs_tstring *sp = &tfs_tensor__strings(c->inputs[2])[i];
  size_t sl = tfs_tstring_size(sp);
  if (sl == 0) {
    tfs_tensor *t = tfs_bundle_reader_read(r, name, st);
    if (!t) return -1;
    tfs_kctx_set_output(c, (int)i, t);
    return 0;
  }
  tfs_slice_spec spec;
  if (tfs_slice_spec_parse(tfs_tstring_data(sp), sl, &spec, st)) return -1;
  const int64_t *dims;
  int j = tfs_bundle_reader_find(r, name);
  int rank = tfs_bundle_reader_shape(r, j, &dims);
  int same = rank == spec.rank;
  for (int d = 0; same && d < rank; d++) same = dims[d] == spec.dims[d];
  if (!same) {
    tfs_shape a = {.rank = spec.rank}, b = {.rank = rank};
    memcpy(a.dims, spec.dims, (size_t)spec.rank * sizeof *a.dims);
    memcpy(b.dims, dims, (size_t)rank * sizeof *b.dims);
    char as[TFS_SHAPE_STRLEN], bs[TFS_SHAPE_STRLEN];
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "tensor_name = %s; shape in shape_and_slice spec %s does "
                    "not match the shape stored in checkpoint: %s", name,
                    tfs_shape_str(&a, as, sizeof as),
                    tfs_shape_str(&b, bs, sizeof bs));
    return -1;
  }
  tfs_shape out_shape = {.rank = rank};
  memcpy(out_shape.dims, spec.slice_dims, (size_t)rank * sizeof(int64_t));
  tfs_tensor *out = tfs_kctx_alloc_output(c, (int)i, &out_shape);
  if (!out) return -1;
  tfs_bundle_reader_read_slice(r, name, spec.start, spec.length, out, st);
  return tfs_status_ok(st) ? 0 : -1;
}

static void restore_v2_compute(tfs_kernel_ctx *c) {
  const restore_state *s = c->state;
  const tfs_tensor *names = c->inputs[1];
  if (names->nelems != s->n) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Got %lld tensor names, but %d "
                  "expected dtypes.", (long long)names->nelems, s->n);
    return;
  }
  if (validate_inputs(c, 0)) return;
  char *prefix = cstr_at(c, c->inputs[0], 0, "prefix");
  char **cnames = tfs_calloc((size_t)(s->n ? s->n : 1), sizeof *cnames);
  int64_t *ord = sorted_order(names);
  tfs_status *st = tfs_status_new();
  tfs_bundle_reader *r = NULL;
  if (!cnames || !ord) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED,
                                     "out of memory");
  for (int i = 0; !c->failed && prefix && i < s->n; i++)
    cnames[i] = cstr_at(c, names, i, "tensor name");
  if (!c->failed && prefix && !(r = tfs_bundle_reader_open(prefix, st)))
    tfs_kctx_fail_status(c, st);
  if (!c->failed && prefix && !check_dtypes(c, r, ord, cnames)) {
    for (int k = 0; k < s->n; k++)
      if (restore_one(c, r, ord[k], cnames[ord[k]], st)) {
        if (!c->failed) tfs_kctx_fail_status(c, st);
        break;
      }
  }
  tfs_bundle_reader_free(r);
  tfs_status_free(st);
  for (int i = 0; cnames && i < s->n; i++) tfs_free(cnames[i]);
  tfs_free(cnames);
  tfs_free(ord);
  tfs_free(prefix);
}

/* ---- MergeV2Checkpoints -------------------------------------------------- */

typedef struct {
  int delete_old_dirs, allow_missing_files;
} merge_state;

static int merge_prepare(tfs_kernel_init *ki) {
  merge_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->delete_old_dirs = 1;
  tfs_attrs_get_bool(ki->attrs, "delete_old_dirs", &s->delete_old_dirs);
  tfs_attrs_get_bool(ki->attrs, "allow_missing_files",
                     &s->allow_missing_files);
  ki->state = s;
  return 0;
}

/* TensorFlow's io::Dirname: "" without a '/', "/" for "/x". */
static char *dirname_of(const char *p) {
  const char *slash = strrchr(p, '/');
  size_t n = !slash ? 0 : slash == p ? 1 : (size_t)(slash - p);
  char *d = tfs_malloc(n + 1);
  if (d) {
    memcpy(d, p, n);
    d[n] = 0;
  }
  return d;
}

static void merge_compute(tfs_kernel_ctx *c) {
  const merge_state *s = c->state;
  const tfs_tensor *in = c->inputs[0], *dest = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  if (in->shape.rank != 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input checkpoint_prefixes should "
                  "be an 1-D tensor, got %s instead.",
                  tfs_shape_str(&in->shape, b, sizeof b));
    return;
  }
  if (dest->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "Input destination_prefix should "
                  "be a scalar tensor, got %s instead.",
                  tfs_shape_str(&dest->shape, b, sizeof b));
    return;
  }
  int64_t n = in->nelems;
  char **pre = tfs_calloc((size_t)(n ? n : 1), sizeof *pre);
  char *to = pre ? cstr_at(c, dest, 0, "destination_prefix") : NULL;
  if (!pre) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; to && !c->failed && i < n; i++)
    pre[i] = cstr_at(c, in, i, "checkpoint prefix");
  if (to && !c->failed) {
    tfs_status *st = tfs_status_new();
    tfs_bundle_merge((const char *const *)pre, (int)n, to,
                     s->allow_missing_files, st);
    if (!tfs_status_ok(st)) tfs_kctx_fail_status(c, st);
    tfs_status_free(st);
  }
  if (!c->failed && s->delete_old_dirs) {
    /* best effort, as TensorFlow: a directory not empty stays */
    char *merged_dir = dirname_of(to);
    for (int64_t i = 0; merged_dir && i < n; i++) {
      char *d = dirname_of(pre[i]);
      if (d && strcmp(d, merged_dir) != 0) rmdir(d);
      tfs_free(d);
    }
    tfs_free(merged_dir);
  }
  for (int64_t i = 0; pre && i < n; i++) tfs_free(pre[i]);
  tfs_free(pre);
  tfs_free(to);
}

/* ---- ShardedFilename, ShardedFilespec ------------------------------------ */

static int scalar_inputs(tfs_kernel_ctx *c, const char *const *what) {
  char b[TFS_SHAPE_STRLEN];
  for (int i = 0; i < c->ninputs; i++)
    if (c->inputs[i]->shape.rank != 0) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s must be a scalar, got shape "
                    "%s", what[i],
                    tfs_shape_str(&c->inputs[i]->shape, b, sizeof b));
      return -1;
    }
  return 0;
}

/* Sets the scalar string output to base (up to its first NUL, as
 * TensorFlow's c_str()) followed by the formatted tail. */
static void set_filename(tfs_kernel_ctx *c, const char *tail) {
  const tfs_tstring *s = tfs_tensor__strings(c->inputs[0]);
  const char *base = tfs_tstring_data(s);
  size_t bl = strnlen(base, tfs_tstring_size(s)), tl = strlen(tail);
  tfs_shape scalar = {.rank = 0};
  tfs_tensor *out = tfs_kctx_alloc_output(c, 0, &scalar);
  char *buf = out ? tfs_malloc(bl + tl + 1) : NULL;
  if (out && !buf) tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  if (!buf) return;
  memcpy(buf, base, bl);
  memcpy(buf + bl, tail, tl + 1);
  if (tfs_tstring_copy(&tfs_tensor__strings(out)[0], buf, bl + tl))
    tfs_kctx_fail(c, TFS_RESOURCE_EXHAUSTED, "out of memory");
  tfs_free(buf);
}

static void sharded_filename_compute(tfs_kernel_ctx *c) {
  static const char *const what[] = {"basename", "shard", "num_shards"};
  if (scalar_inputs(c, what)) return;
  char tail[64];
  snprintf(tail, sizeof tail, "-%05d-of-%05d",
           *(const int32_t *)c->inputs[1]->data,
           *(const int32_t *)c->inputs[2]->data);
  set_filename(c, tail);
}

static void sharded_filespec_compute(tfs_kernel_ctx *c) {
  static const char *const what[] = {"basename", "num_shards"};
  if (scalar_inputs(c, what)) return;
  char tail[64];
  snprintf(tail, sizeof tail, "-\?\?\?\?\?-of-%05d",
           *(const int32_t *)c->inputs[1]->data);
  set_filename(c, tail);
}

const tfs_kernel_def tfs_cpu_kernels_save_restore[] = {
    {"SaveV2", "CPU", NULL, 0, NULL, save_v2_compute, NULL, 0, NULL},
    {"RestoreV2", "CPU", NULL, 0, restore_v2_prepare, restore_v2_compute,
     tfs_free, 0, NULL},
    {"MergeV2Checkpoints", "CPU", NULL, 0, merge_prepare, merge_compute,
     tfs_free, 0, NULL},
    {"ShardedFilename", "CPU", NULL, 0, NULL, sharded_filename_compute, NULL,
     0, NULL},
    {"ShardedFilespec", "CPU", NULL, 0, NULL, sharded_filespec_compute, NULL,
     0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

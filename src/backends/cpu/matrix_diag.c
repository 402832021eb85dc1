/*
 * backends/cpu/matrix_diag.c - the MatrixDiag, MatrixDiagPart and
 * MatrixSetDiag families, V1 to V3: a band of diagonals k = [lower, upper]
 * packed one diagonal per row, the highest first, each row padded on the
 * side the alignment names (V2: LEFT_LEFT; V3: the align attr, RIGHT_LEFT
 * by default).  TensorFlow's validation order and messages; every POD
 * dtype, moved by size.
 */
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/array_util.h"

typedef struct {
  int version;    /* 1, 2 or 3 */
  int left_super; /* superdiagonals packed to the left */
  int left_sub;   /* subdiagonals packed to the left */
} diag_state;

static const int kVersions[] = {1, 2, 3};

static int diag_prepare(tfs_kernel_init *ki) {
  diag_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  s->version = *(const int *)ki->kdata;
  s->left_super = s->left_sub = 1;
  if (s->version == 3) {
    size_t n = 0;
    const char *a = tfs_attrs_get_string(ki->attrs, "align", &n);
    if (!a) {
      a = "RIGHT_LEFT";
      n = strlen(a);
    }
    s->left_super = n >= 5 && memcmp(a, "LEFT_", 5) == 0;
    s->left_sub = n >= 5 && memcmp(a + n - 5, "_LEFT", 5) == 0;
  }
  ki->state = s;
  return 0;
}

/* Length of diagonal d of a rows x cols matrix and where its values start
 * in a packed row of max_len elements. */
static void diag_layout(const diag_state *s, int64_t d, int64_t rows,
                        int64_t cols, int64_t max_len, int64_t *len,
                        int64_t *off) {
  int64_t a = rows + (d < 0 ? d : 0), b = cols - (d > 0 ? d : 0);
  *len = a < b ? a : b;
  if (*len < 0) *len = 0;
  int left = (d >= 0 && s->left_super) || (d <= 0 && s->left_sub);
  *off = left ? 0 : max_len - *len;
}

/* Reads k (a scalar or a vector of one or two int32) into [lo, hi]. */
static int read_k(tfs_kernel_ctx *c, const tfs_tensor *k,
                  const char *empty_msg, int64_t *lo, int64_t *hi) {
  char b[TFS_SHAPE_STRLEN];
  if (k->shape.rank > 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "diag_index must be a scalar or vector, received shape: %s",
                  tfs_shape_str(&k->shape, b, sizeof b));
    return -1;
  }
  if (k->nelems <= 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", empty_msg);
    return -1;
  }
  *lo = *hi = tfs_tensor__get_as_int64(k, 0);
  if (k->shape.rank == 1) {
    if (k->nelems > 2) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "diag_index must have only one or two elements, "
                    "received %lld elements.", (long long)k->nelems);
      return -1;
    }
    if (k->nelems > 1) *hi = tfs_tensor__get_as_int64(k, 1);
  }
  return 0;
}

/* Both indices inside a rows x cols matrix (0 always passes) and in
 * order.  `dot` is the period DiagPart's lower-bound message has. */
static int check_band(tfs_kernel_ctx *c, int64_t rows, int64_t cols,
                      int64_t lo, int64_t hi, const char *dot) {
  if (!((-rows < lo && lo < cols) || lo == 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "lower_diag_index is out of bound: %lld%s It must be "
                  "between %lld and %lld", (long long)lo, dot,
                  (long long)-rows, (long long)cols);
    return -1;
  }
  if (!((-rows < hi && hi < cols) || hi == 0)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "upper_diag_index is out of bound: %lld It must be "
                  "between %lld and %lld", (long long)hi, (long long)-rows,
                  (long long)cols);
    return -1;
  }
  if (lo > hi) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "lower_diag_index must not be larger than "
                  "upper_diag_index: %lld > %lld", (long long)lo,
                  (long long)hi);
    return -1;
  }
  return 0;
}

/* A scalar input's only element, or NULL after failing with `msg`. */
static const void *scalar_input(tfs_kernel_ctx *c, int i, int any_shape,
                                const char *msg) {
  const tfs_tensor *t = c->inputs[i];
  if (any_shape ? t->nelems != 1 : t->shape.rank != 0) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
    return NULL;
  }
  return t->data;
}

/* ---- MatrixDiagPart ------------------------------------------------------ */

/* A band of diagonals and the matrices it is read from or written to:
 * MatrixDiagPart's and MatrixDiag's work, split over the intra-op pool. */
typedef struct {
  const diag_state *s;
  size_t es;
  const char *src, *pad;
  char *dst;
  int64_t rows, cols, lo, hi, ndiags, max_len;
} band_job;

/* One packed row (one diagonal of one matrix) per unit. */
static void part_range(void *arg, int64_t begin, int64_t end) {
  const band_job *j = arg;
  size_t es = j->es;
  for (int64_t u = begin; u < end; u++) {
    int64_t b = u / j->ndiags, m = u % j->ndiags, d = j->hi - m, len, off;
    diag_layout(j->s, d, j->rows, j->cols, j->max_len, &len, &off);
    const char *mat = j->src + (size_t)(b * j->rows * j->cols) * es;
    char *row = j->dst + (size_t)(u * j->max_len) * es;
    int64_t y0 = d < 0 ? -d : 0, x0 = d > 0 ? d : 0;
    for (int64_t n = 0; n < j->max_len; n++) {
      const char *from = j->pad;
      if (n >= off && n < off + len)
        from = mat + (size_t)((y0 + n - off) * j->cols + x0 + n - off) * es;
      memcpy(row + (size_t)n * es, from, es);
    }
  }
}

static void diag_part_compute(tfs_kernel_ctx *c) {
  const diag_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  int64_t lo = 0, hi = 0;
  static const char zero[16];
  const char *pad = zero;
  if (s->version > 1) {
    if (read_k(c, c->inputs[1], "Expected diag_index to have at least 1 "
               "element", &lo, &hi))
      return;
    if (!(pad = scalar_input(c, 2, 1, "Padding must be scalar."))) return;
  }
  int r = x->shape.rank;
  if (r < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input must be at least 2-dim, received shape: %s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return;
  }
  int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1];
  if (check_band(c, rows, cols, lo, hi, ".")) return;
  int64_t ndiags = hi - lo + 1;
  int64_t a = rows + (hi < 0 ? hi : 0), e = cols - (lo > 0 ? lo : 0);
  int64_t max_len = a < e ? a : e;
  tfs_shape out = x->shape;
  out.rank = r - 2;
  if (ndiags > 1) out.dims[out.rank++] = ndiags;
  out.dims[out.rank++] = max_len;
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  band_job j = {s, tfs_dtype__storage_size(x->dtype), x->data, pad,
                o->data, rows, cols, lo, hi, ndiags, max_len};
  tfs_kctx_parallel_for(c, o->nelems / max_len, max_len + 4, part_range,
                        &j);
}

/* ---- MatrixDiag ---------------------------------------------------------- */

/* One output row per unit. */
static void diag_range(void *arg, int64_t begin, int64_t end) {
  const band_job *j = arg;
  size_t es = j->es;
  for (int64_t u = begin; u < end; u++) {
    int64_t b = u / j->rows, i = u % j->rows;
    const char *band = j->src + (size_t)(b * j->ndiags * j->max_len) * es;
    char *row = j->dst + (size_t)(u * j->cols) * es;
    for (int64_t jj = 0; jj < j->cols; jj++) {
      int64_t d = jj - i, len, off;
      const char *from = j->pad;
      if (d >= j->lo && d <= j->hi) {
        diag_layout(j->s, d, j->rows, j->cols, j->max_len, &len, &off);
        int64_t n = jj - (d > 0 ? d : 0) + off;
        if (n >= 0 && n < j->max_len)
          from = band + (size_t)((j->hi - d) * j->max_len + n) * es;
      }
      memcpy(row + (size_t)jj * es, from, es);
    }
  }
}

/* TensorFlow's inference of num_rows and num_cols (-1: unknown) from the
 * band and the diagonal length, with its checks.  Returns 0 or -1. */
static int diag_dims(tfs_kernel_ctx *c, int64_t max_len, int64_t lo,
                     int64_t hi, int64_t *rows, int64_t *cols) {
  int64_t min_rows = max_len - (hi < 0 ? hi : 0);
  int64_t min_cols = max_len + (lo > 0 ? lo : 0);
  const char *msg = NULL;
  if (*rows != -1 && *rows < min_rows)
    msg = "The number of rows is too small.";
  else if (*cols != -1 && *cols < min_cols)
    msg = "The number of columns is too small.";
  if (!msg) {
    if (*rows == -1 && *cols == -1)
      *rows = *cols = min_rows > min_cols ? min_rows : min_cols;
    else if (*rows == -1)
      *rows = min_rows;
    else if (*cols == -1)
      *cols = min_cols;
    if (*rows != min_rows && *cols != min_cols)
      msg = "The number of rows or columns is not consistent with the "
            "specified d_lower, d_upper, and diagonal.";
  }
  if (msg) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "%s", msg);
    return -1;
  }
  return 0;
}

/* Reads V2's k, num_rows, num_cols and padding_value. */
static int diag_v2_args(tfs_kernel_ctx *c, int64_t *lo, int64_t *hi,
                        int64_t *rows, int64_t *cols, const char **pad) {
  if (read_k(c, c->inputs[1], "Expected diag_index to have at least 1 "
             "element", lo, hi))
    return -1;
  const void *p;
  if (!(p = scalar_input(c, 2, 0, "num_rows must be a scalar"))) return -1;
  *rows = tfs_tensor__get_as_int64(c->inputs[2], 0);
  if (!(p = scalar_input(c, 3, 0, "num_cols must be a scalar"))) return -1;
  *cols = tfs_tensor__get_as_int64(c->inputs[3], 0);
  if (!(p = scalar_input(c, 4, 0, "padding_value must be a scalar")))
    return -1;
  *pad = p;
  return 0;
}

static void diag_compute(tfs_kernel_ctx *c) {
  const diag_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  char b[TFS_SHAPE_STRLEN];
  int64_t lo = 0, hi = 0, rows = -1, cols = -1;
  static const char zero[16];
  const char *pad = zero;
  if (s->version > 1 && diag_v2_args(c, &lo, &hi, &rows, &cols, &pad))
    return;
  int r = x->shape.rank;
  if (r < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "diagonal must be at least 1-dim, received shape: %s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return;
  }
  if (lo > hi) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "lower_diag_index must not be larger than "
                  "upper_diag_index: %lld > %lld", (long long)lo,
                  (long long)hi);
    return;
  }
  int64_t ndiags = hi - lo + 1;
  if (lo != hi && (r < 2 || x->shape.dims[r - 2] != ndiags)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The number of diagonals provided in the input does not "
                  "match the lower_diag_index and upper_diag_index range.");
    return;
  }
  int64_t max_len = x->shape.dims[r - 1];
  if (diag_dims(c, max_len, lo, hi, &rows, &cols)) return;
  tfs_shape out = x->shape;
  if (ndiags == 1) {
    if (r >= TFS_MAX_RANK) {
      tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                    "MatrixDiag output of rank %d exceeds the maximum rank "
                    "%d", r + 1, TFS_MAX_RANK);
      return;
    }
    out.dims[r - 1] = rows;
    out.dims[out.rank++] = cols;
  } else {
    out.dims[r - 2] = rows;
    out.dims[r - 1] = cols;
  }
  int64_t n;
  if (tfs_shape_num_elements_checked(&out, &n, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &out);
  if (!o || o->nelems == 0) return;
  band_job j = {s, tfs_dtype__storage_size(x->dtype), x->data, pad,
                o->data, rows, cols, lo, hi, ndiags, max_len};
  tfs_kctx_parallel_for(c, o->nelems / cols, cols + 4, diag_range, &j);
}

/* ---- MatrixSetDiag ------------------------------------------------------- */

typedef struct {
  const diag_state *s;
  size_t es;
  const char *src;
  char *dst;
  int64_t rows, cols, hi, ndiags, max_len;
} set_job;

/* One diagonal of one matrix per unit. */
static void set_range(void *arg, int64_t begin, int64_t end) {
  const set_job *j = arg;
  size_t es = j->es;
  for (int64_t u = begin; u < end; u++) {
    int64_t b = u / j->ndiags, m = u % j->ndiags, d = j->hi - m, len, off;
    diag_layout(j->s, d, j->rows, j->cols, j->max_len, &len, &off);
    char *mat = j->dst + (size_t)(b * j->rows * j->cols) * es;
    const char *row = j->src + (size_t)(u * j->max_len) * es;
    int64_t y0 = d < 0 ? -d : 0, x0 = d > 0 ? d : 0;
    for (int64_t n = 0; n < len && n + off < j->max_len; n++)
      memcpy(mat + (size_t)((y0 + n) * j->cols + x0 + n) * es,
             row + (size_t)(n + off) * es, es);
  }
}

/* The diagonal's shape must be the input's batch dims, the band's count
 * (when more than one) and the longest diagonal's length. */
static int check_set_diag(tfs_kernel_ctx *c, const tfs_tensor *x,
                          const tfs_tensor *dg, int64_t lo, int64_t hi,
                          int64_t *max_len) {
  int r = x->shape.rank, dr = dg->shape.rank;
  int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1];
  int64_t ndiags = hi - lo + 1;
  if (lo != hi && dr < r - 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Diagonal tensor rank must be large enough to contain a "
                  "diagonal-count dimension. Input rank: %d, Expected "
                  "diagonal rank >= %d, Received diagonal rank: %d", r,
                  r - 1, dr);
    return -1;
  }
  if (lo != hi && dg->shape.dims[r - 2] != ndiags) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "The number of diagonals provided in `diag` is not "
                  "consistent with `lower_diag_index` and "
                  "`upper_diag_index`");
    return -1;
  }
  tfs_shape want = x->shape;
  want.rank = r - 2;
  if (ndiags > 1) want.dims[want.rank++] = ndiags;
  int64_t a = rows + (hi < 0 ? hi : 0), e = cols - (lo > 0 ? lo : 0);
  *max_len = a < e ? a : e;
  want.dims[want.rank++] = *max_len;
  if (!tfs_shape_equal(&want, &dg->shape)) {
    char s1[TFS_SHAPE_STRLEN], s2[TFS_SHAPE_STRLEN], s3[TFS_SHAPE_STRLEN];
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "Either first dimensions of diagonal don't match "
                  "input.shape[:-2], or diagonal.shape[:-1] is not equal to "
                  "the longests diagonal in range "
                  "[lower_diag_index:upper_diag_index].\nInput shape: %s\n"
                  "Diagonal shape: %s\nExpected diagonal shape: %s",
                  tfs_shape_str(&x->shape, s1, sizeof s1),
                  tfs_shape_str(&dg->shape, s2, sizeof s2),
                  tfs_shape_str(&want, s3, sizeof s3));
    return -1;
  }
  return 0;
}

static void set_diag_compute(tfs_kernel_ctx *c) {
  const diag_state *s = c->state;
  const tfs_tensor *x = c->inputs[0], *dg = c->inputs[1];
  char b[TFS_SHAPE_STRLEN];
  int64_t lo = 0, hi = 0, max_len;
  if (s->version > 1 &&
      read_k(c, c->inputs[2], "diag_index must have at least one element",
             &lo, &hi))
    return;
  int r = x->shape.rank;
  if (r < 2) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "input must be at least 2-dim, received shape: %s",
                  tfs_shape_str(&x->shape, b, sizeof b));
    return;
  }
  if (dg->shape.rank < 1) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "diagonal must be at least 1-dim, received shape: %s",
                  tfs_shape_str(&dg->shape, b, sizeof b));
    return;
  }
  int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1];
  if (check_band(c, rows, cols, lo, hi, "") ||
      check_set_diag(c, x, dg, lo, hi, &max_len))
    return;
  tfs_tensor *o = tfs_kctx_forward_or_alloc(c, 0, 0, &x->shape);
  if (!o) return;
  size_t es = tfs_dtype__storage_size(x->dtype);
  if (o != x && x->nelems > 0) memcpy(o->data, x->data, x->nbytes);
  if (dg->nelems == 0) return;
  int64_t ndiags = hi - lo + 1;
  set_job j = {s, es, dg->data, o->data, rows, cols, hi, ndiags, max_len};
  tfs_kctx_parallel_for(c, dg->nelems / max_len, max_len + 4, set_range,
                        &j);
}

/* Every plain dtype TensorFlow's TF_CALL_POD_TYPES covers. */
#define POD                                                              \
  "T", (TFS_DT_REAL | TFS_DT_BIT(TFS_BOOL) | TFS_DT_BIT(TFS_COMPLEX64) | \
        TFS_DT_BIT(TFS_COMPLEX128))
#define V(n) tfs_free, 0, &kVersions[(n) - 1]

const tfs_kernel_def tfs_cpu_kernels_matrix_diag[] = {
    {"MatrixDiag", "CPU", POD, diag_prepare, diag_compute, V(1)},
    {"MatrixDiagV2", "CPU", POD, diag_prepare, diag_compute, V(2)},
    {"MatrixDiagV3", "CPU", POD, diag_prepare, diag_compute, V(3)},
    {"MatrixDiagPart", "CPU", POD, diag_prepare, diag_part_compute, V(1)},
    {"MatrixDiagPartV2", "CPU", POD, diag_prepare, diag_part_compute, V(2)},
    {"MatrixDiagPartV3", "CPU", POD, diag_prepare, diag_part_compute, V(3)},
    {"MatrixSetDiag", "CPU", POD, diag_prepare, set_diag_compute, V(1)},
    {"MatrixSetDiagV2", "CPU", POD, diag_prepare, set_diag_compute, V(2)},
    {"MatrixSetDiagV3", "CPU", POD, diag_prepare, set_diag_compute, V(3)},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

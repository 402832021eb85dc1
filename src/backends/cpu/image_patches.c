/*
 * backends/cpu/image_patches.c - ExtractImagePatches on the CPU: every
 * ksize_rows x ksize_cols patch (taps `rates` apart, SAME or VALID
 * padding with zeros) of an NHWC image laid out along the depth of the
 * output as [ksize_rows, ksize_cols, depth].  A copy of elements, so one
 * kernel serves every dtype TensorFlow's CPU kernel registers.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "backends/cpu/cpu_tables.h"
#include "ops/nn_window.h"

typedef struct patches_state {
  int64_t k[2], s[2], r[2];
  tfs_padding padding;
} patches_state;

/* TensorFlow's check of one of ksizes, strides, rates: 4 values, 1 in the
 * batch and depth positions, >= 1 across space. */
static int read_vec4(tfs_kernel_init *ki, const char *name, int64_t out[2]) {
  int n = 0;
  const int64_t *v = tfs_attrs_get_int_list(ki->attrs, name, &n);
  if (!v || n != 4 || v[0] != 1 || v[3] != 1)
    return tfs_ki_error(ki, TFS_UNIMPLEMENTED, "Only support %s across space.",
                        name);
  if (v[1] < 1 || v[2] < 1 || v[1] > INT32_MAX || v[2] > INT32_MAX)
    return tfs_ki_error(ki, TFS_OUT_OF_RANGE, "%s is out of range.", name);
  out[0] = v[1];
  out[1] = v[2];
  return 0;
}

static int patches_prepare(tfs_kernel_init *ki) {
  patches_state *s = tfs_calloc(1, sizeof *s);
  if (!s) return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  ki->state = s;
  if (read_vec4(ki, "ksizes", s->k) || read_vec4(ki, "strides", s->s) ||
      read_vec4(ki, "rates", s->r))
    return -1;
  size_t len = 0;
  const char *p = tfs_attrs_get_string(ki->attrs, "padding", &len);
  s->padding = p && strcmp(p, "SAME") == 0 ? TFS_PADDING_SAME
                                           : TFS_PADDING_VALID;
  return 0;
}

typedef struct patches_job {
  const patches_state *s;
  const char *in;
  char *out;
  size_t es;
  int64_t h, w, c, oh, ow, pt, pl;
} patches_job;

/* Output rows [r0, r1), a row being one (b, oy). */
static void patches_rows(void *arg, int64_t r0, int64_t r1) {
  const patches_job *j = arg;
  const patches_state *s = j->s;
  size_t run = (size_t)j->c * j->es;
  for (int64_t r = r0; r < r1; r++) {
    int64_t b = r / j->oh, oy = r % j->oh;
    char *o = j->out + (size_t)(r * j->ow) * s->k[0] * s->k[1] * run;
    for (int64_t ox = 0; ox < j->ow; ox++) {
      for (int64_t ky = 0; ky < s->k[0]; ky++) {
        int64_t y = oy * s->s[0] - j->pt + ky * s->r[0];
        for (int64_t kx = 0; kx < s->k[1]; kx++, o += run) {
          int64_t x = ox * s->s[1] - j->pl + kx * s->r[1];
          if (y < 0 || y >= j->h || x < 0 || x >= j->w)
            memset(o, 0, run);
          else
            memcpy(o, j->in + (size_t)((b * j->h + y) * j->w + x) * run, run);
        }
      }
    }
  }
}

static void patches_compute(tfs_kernel_ctx *c) {
  const patches_state *s = c->state;
  const tfs_tensor *x = c->inputs[0];
  char buf[TFS_SHAPE_STRLEN];
  if (x->shape.rank != 4) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT, "input must be 4-dimensional%s",
                  tfs_shape_str(&x->shape, buf, sizeof buf));
    return;
  }
  patches_job j = {s, x->data, NULL, tfs_dtype_size(x->dtype),
                   x->shape.dims[1], x->shape.dims[2], x->shape.dims[3],
                   0, 0, 0, 0};
  int64_t pb, pr, depth;
  if (tfs_window_output_size(j.h, s->k[0], s->r[0], s->s[0], s->padding,
                             &j.pt, &pb, &j.oh, c->st) ||
      tfs_window_output_size(j.w, s->k[1], s->r[1], s->s[1], s->padding,
                             &j.pl, &pr, &j.ow, c->st)) {
    tfs_kctx_fail_status(c, c->st);
    return;
  }
  if (tfs_mul_overflow_i64(s->k[0], s->k[1], &depth) ||
      tfs_mul_overflow_i64(depth, j.c, &depth)) {
    tfs_kctx_fail(c, TFS_INVALID_ARGUMENT,
                  "patch depth overflows: %lld x %lld x %lld",
                  (long long)s->k[0], (long long)s->k[1], (long long)j.c);
    return;
  }
  tfs_shape os = {4, {x->shape.dims[0], j.oh, j.ow, depth}};
  tfs_tensor *y = tfs_kctx_alloc_output(c, 0, &os);
  if (!y || y->nelems == 0) return;
  j.out = y->data;
  tfs_kctx_parallel_for(c, os.dims[0] * j.oh, j.ow * depth + 1, patches_rows,
                        &j);
}

const tfs_kernel_def tfs_cpu_kernels_image_patches[] = {
    {"ExtractImagePatches", "CPU", "T",
     TFS_DT_REAL | TFS_DT_BIT(TFS_COMPLEX64) | TFS_DT_BIT(TFS_COMPLEX128),
     patches_prepare, patches_compute, free, 0, NULL},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

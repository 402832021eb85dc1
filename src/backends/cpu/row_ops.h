/*
 * backends/cpu/row_ops.h - reductions and passes over one contiguous row
 * of floats, the inner loops of Softmax, LogSoftmax and _TfsLayerNorm
 * (row_ops.c).
 *
 * Each function runs AVX2 or portable C by tfs_cpu_has (an AVX-512 CPU
 * takes the AVX2 loops; tfs_cpu__set_max_isa forces the portable one).
 * Both paths keep the same partial sums in the same order and never fuse
 * a multiply into an add, so they give the same bits for every input.
 * All functions are thread-safe and allocate nothing.
 */
#ifndef TFS_BACKENDS_CPU_ROW_OPS_H
#define TFS_BACKENDS_CPU_ROW_OPS_H

#include <stdint.h>

/* The largest of x[0, n), NaN when any of them is NaN, -inf for n == 0.
 * Which zero a row of +0 and -0 gives is not specified. */
float tfs_row_max_f32(const float *x, int64_t n);

/* The sum of x[0, n) taken in double over sixteen running partial sums
 * (element i in sum i % 16, for i below n rounded down to 16), combined
 * as t_l = (s_l + s_{4+l}) + (s_{8+l} + s_{12+l}) for l = 0..3, the last
 * n % 16 added to t_0 in order, then (t_0 + t_1) + (t_2 + t_3). */
double tfs_row_sum_f64(const float *x, int64_t n);

/* y[i] = x[i] - s for i < n; y may equal x. */
void tfs_row_sub_f32(const float *x, float *y, int64_t n, float s);

/* y[i] = a[i] + b[i] for i < n; y may equal a or b. */
void tfs_row_add_f32(const float *a, const float *b, float *y, int64_t n);

/* x[i] *= s for i < n. */
void tfs_row_scale_f32(float *x, int64_t n, float s);

/* Layer normalization of `rows` rows of d floats: per row, mean = sum / d
 * and variance = (sum of (x - mean)^2) / d, both summed over eight
 * running partial sums (element i in sum i % 8, the last d % 8 in a ninth
 * added first), then with r = 1 / sqrt(variance + eps) and m = r *
 * scale[i], y[i] = x[i] * m + (-mean * m + offset[i]), each product and
 * sum rounded to float (the order of the Keras subgraph's ops).  y may
 * equal x. */
void tfs_row_layer_norm_f32(const float *x, float *y, int64_t rows,
                            int64_t d, const float *scale,
                            const float *offset, float eps);

#endif

/*
 * backends/cpu/image_nms.h - what the non-max suppression kernels share:
 * a candidate heap that pops in the order of libstdc++'s
 * std::priority_queue (TensorFlow's kernels use one, and their ties
 * follow from it) and TensorFlow's intersection-over-union.
 */
#ifndef TFS_BACKENDS_CPU_IMAGE_NMS_H
#define TFS_BACKENDS_CPU_IMAGE_NMS_H

#include <stdint.h>

/* A selection candidate: its box, its (possibly decayed) score and the
 * first selected box it has not been compared with yet. */
typedef struct {
  int32_t box;
  float score;
  int32_t begin;
} tfs_nms_cand;

/* Strict "a pops after b" order. */
typedef int (*tfs_nms_less)(const tfs_nms_cand *a, const tfs_nms_cand *b);

/* Adds v to the max-heap h[0..*n) (room for one more) and increments *n;
 * std::push_heap's steps. */
void tfs_nms_heap_push(tfs_nms_cand *h, int64_t *n, tfs_nms_cand v,
                       tfs_nms_less less);

/* Removes and returns the top of the non-empty heap h[0..*n), decrementing
 * *n; std::pop_heap's steps. */
tfs_nms_cand tfs_nms_heap_pop(tfs_nms_cand *h, int64_t *n,
                              tfs_nms_less less);

/* std::__adjust_heap: moves the hole at `hole` down the heap h[0..len)
 * and places v; used by the heap sort of the sort emulation. */
void tfs_nms_heap_adjust(tfs_nms_cand *h, int64_t hole, int64_t len,
                         tfs_nms_cand v, tfs_nms_less less);

/* Intersection over union of two boxes given as 4 floats (y1, x1, y2,
 * x2, corners in either order); 0 when either box has no area.  Computed
 * in float in TensorFlow's order of operations. */
float tfs_nms_iou(const float *bi, const float *bj);

#endif

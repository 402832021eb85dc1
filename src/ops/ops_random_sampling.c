/*
 * ops/ops_random_sampling.c - the sampling ops: RandomShuffle and
 * StatelessShuffle (rows in a random order), Multinomial and
 * StatelessMultinomial (class indices drawn from logits),
 * SampleDistortedBoundingBox, its V2 and
 * StatelessSampleDistortedBoundingBox (a random crop covering enough of
 * some box), with TensorFlow's attrs and shape functions.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

#define RANDOM (TFS_OP_STATEFUL | TFS_OP_NO_FOLD)
#define SEEDS "seed: int = 0; seed2: int = 0; "
#define REAL                                                            \
  "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64}"

static int64_t dim_of(const tfs_shape *s, int i) {
  return s->rank > i ? s->dims[i] : -1;
}

/* Dim i of input `in` is `want` when known ("Dimension must be 3 but is
 * 4"). */
static int dim_is(tfs_shape_ctx *c, int in, int i, int64_t want) {
  int64_t d = dim_of(&c->in_shapes[in], i);
  if (d >= 0 && d != want)
    return tfs_sc_error(c, "Dimension must be %lld but is %lld",
                        (long long)want, (long long)d);
  return 0;
}

/* logits [batch, classes], num_samples a scalar: [batch, num_samples] */
static int multinomial_out(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 0)) return -1;
  int64_t n = -1, v;
  if (tfs_sc_const_scalar(c, 1, &v) == 0) {
    if (v < 0)
      return tfs_sc_error(c, "Dimension size, given by scalar input 1, "
                          "must be non-negative but is %lld", (long long)v);
    n = v;
  }
  tfs_shape *o = &c->out_shapes[0];
  o->rank = 2;
  o->dims[0] = dim_of(&c->in_shapes[0], 0);
  o->dims[1] = n;
  return 0;
}

static int stateless_multinomial_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 2, 1) || dim_is(c, 2, 0, 2)) return -1;
  return multinomial_out(c);
}

/* image_size [3], bounding_boxes [batch, n, 4], then the scalar
 * min_object_covered and the [2] seed when the op has them; outputs
 * begin [3], size [3], bboxes [1, 1, 4]. */
static int bbox_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 1) || tfs_sc_with_rank(c, 1, 3)) return -1;
  if (c->ninputs > 2 && tfs_sc_with_rank(c, 2, 0)) return -1;
  if (c->ninputs > 3 && tfs_sc_with_rank(c, 3, 1)) return -1;
  if (dim_is(c, 0, 0, 3) || dim_is(c, 1, 2, 4)) return -1;
  if (c->ninputs > 3 && dim_is(c, 3, 0, 2)) return -1;
  for (int i = 0; i < 2; i++) {
    c->out_shapes[i].rank = 1;
    c->out_shapes[i].dims[0] = 3;
  }
  c->out_shapes[2].rank = 3;
  c->out_shapes[2].dims[0] = 1;
  c->out_shapes[2].dims[1] = 1;
  c->out_shapes[2].dims[2] = 4;
  return 0;
}

#define BBOX_T "T: {uint8, int8, int16, int32, int64}; "
#define BBOX_OUT "begin: T; size: T; bboxes: float"
#define BBOX_ATTRS                                                    \
  "aspect_ratio_range: list(float) = [0.75, 1.33]; "                  \
  "area_range: list(float) = [0.05, 1]; max_attempts: int = 100; "    \
  "use_image_if_no_bounding_boxes: bool = false"

const tfs_op_spec tfs_ops_random_sampling[] = {
    {"RandomShuffle", "value: T", "output: T", SEEDS "T: type",
     tfs_shape_fn_unchanged, RANDOM},
    {"StatelessShuffle", "value: T; key: uint64; counter: uint64; alg: int32",
     "output: T", "T: type", tfs_shape_fn_unchanged, 0},
    {"Multinomial", "logits: T; num_samples: int32", "output: output_dtype",
     SEEDS "T: " REAL "; output_dtype: {int32, int64} = int64",
     multinomial_out, RANDOM},
    {"StatelessMultinomial", "logits: T; num_samples: int32; seed: Tseed",
     "output: output_dtype",
     "T: " REAL "; Tseed: {int32, int64} = int64; "
     "output_dtype: {int32, int64} = int64",
     stateless_multinomial_shape, 0},
    {"SampleDistortedBoundingBox", "image_size: T; bounding_boxes: float",
     BBOX_OUT,
     BBOX_T SEEDS "min_object_covered: float = 0.1; " BBOX_ATTRS,
     bbox_shape, RANDOM},
    {"SampleDistortedBoundingBoxV2",
     "image_size: T; bounding_boxes: float; min_object_covered: float",
     BBOX_OUT, BBOX_T SEEDS BBOX_ATTRS, bbox_shape, RANDOM},
    {"StatelessSampleDistortedBoundingBox",
     "image_size: T; bounding_boxes: float; min_object_covered: float; "
     "seed: Tseed",
     BBOX_OUT, BBOX_T "Tseed: {int32, int64}; " BBOX_ATTRS, bbox_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};

/*
 * ops/ops_mpi.c - Horovod's collective ops (horovod.tensorflow's op
 * names, attrs and shape functions): HorovodAllreduce,
 * HorovodGroupedAllreduce, HorovodAllgather, HorovodBroadcast and the
 * world's numbers HorovodSize, HorovodLocalSize, HorovodRank,
 * HorovodLocalRank.  The kernels are backends/cpu/mpi_ops.c.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* The input's shape with dimension 0 unknown (rank 1 or more). */
static int allgather_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 1) != 0) return -1;
  c->out_shapes[0] = c->in_shapes[0];
  if (c->out_shapes[0].rank > 0) c->out_shapes[0].dims[0] = -1;
  return 0;
}

/* Output i has input i's shape. */
static int grouped_shape(tfs_shape_ctx *c) {
  for (int i = 0; i < c->noutputs && i < c->ninputs; i++)
    c->out_shapes[i] = c->in_shapes[i];
  return 0;
}

#define REDUCE_T "T: {uint8, int8, int32, int64, half, bfloat16, float, double}"
#define GATHER_T                                                           \
  "T: {uint8, int8, uint16, int16, int32, int64, half, bfloat16, float, " \
  "double, bool}"
#define COLLECTIVE (TFS_OP_STATEFUL | TFS_OP_NO_FOLD)

const tfs_op_spec tfs_ops_mpi[] = {
    {"HorovodAllreduce", "tensor: T", "sum: T",
     REDUCE_T "; reduce_op: int; prescale_factor: float; postscale_factor: "
     "float; ignore_name_scope: bool = false; process_set_id: int = 0",
     tfs_shape_fn_unchanged, COLLECTIVE},
    {"HorovodGroupedAllreduce", "tensors: num_tensors * T",
     "sum: num_tensors * T",
     REDUCE_T "; reduce_op: int; prescale_factor: float; postscale_factor: "
     "float; ignore_name_scope: bool = false; num_tensors: int >= 1; "
     "process_set_id: int = 0",
     grouped_shape, COLLECTIVE},
    {"HorovodAllgather", "tensor: T", "output: T",
     GATHER_T "; ignore_name_scope: bool = false; process_set_id: int = 0",
     allgather_shape, COLLECTIVE},
    {"HorovodBroadcast", "tensor: T", "output: T",
     GATHER_T "; root_rank: int; ignore_name_scope: bool = false; "
     "process_set_id: int = 0",
     tfs_shape_fn_unchanged, COLLECTIVE},
    {"HorovodSize", "", "size: int32", "process_set_id: int = 0",
     tfs_shape_fn_scalar, COLLECTIVE},
    {"HorovodLocalSize", "", "local_size: int32", "", tfs_shape_fn_scalar,
     COLLECTIVE},
    {"HorovodRank", "", "rank: int32", "process_set_id: int = 0",
     tfs_shape_fn_scalar, COLLECTIVE},
    {"HorovodLocalRank", "", "local_rank: int32", "", tfs_shape_fn_scalar,
     COLLECTIVE},
    {NULL, NULL, NULL, NULL, NULL, 0},
};

/*
 * ops/ops_extra.c - string/number conversion (StringToNumber, AsString),
 * set operations on dense tensors (DenseToDenseSetOperation), CTC greedy
 * decoding (CTCGreedyDecoder) and one step of an LSTM cell
 * (LSTMBlockCell).  Signatures are TensorFlow 2.21's; shape functions
 * follow its shape inference and its wording.
 */
#include "core/status.h"
#include "ops/array_shape_fns.h"
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* DenseToDenseSetOperation: both inputs of rank >= 2 and equal rank, the
 * group dims (all but the last) merged; outputs a sparse tensor of the
 * inputs' rank. */
static int set_operation_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank_at_least(c, 0, 2) ||
      tfs_sc_with_rank_at_least(c, 1, 2))
    return -1;
  const tfs_shape *a = &c->in_shapes[0], *b = &c->in_shapes[1];
  int64_t rank = a->rank >= 0 ? a->rank : b->rank;
  if (a->rank >= 0 && tfs_sc_with_rank(c, 1, a->rank)) return -1;
  if (a->rank >= 0 && b->rank >= 0) {
    tfs_shape ga = *a, gb = *b, unused;
    ga.rank--;
    gb.rank--;
    if (tfs_sc_merge_shapes(c, &ga, &gb, &unused)) return -1;
  }
  tfs_shape_2d(&c->out_shapes[0], -1, rank);
  tfs_shape_1d(&c->out_shapes[1], -1);
  tfs_shape_1d(&c->out_shapes[2], rank);
  return 0;
}

static int ctc_greedy_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 3) || tfs_sc_with_rank(c, 1, 1)) return -1;
  const tfs_shape *x = &c->in_shapes[0], *len = &c->in_shapes[1];
  int64_t batch = x->rank == 3 ? x->dims[1] : -1;
  if (len->rank == 1 && tfs_sc_merge_dim(c, batch, len->dims[0], &batch))
    return -1;
  tfs_shape_2d(&c->out_shapes[0], -1, 2);
  tfs_shape_1d(&c->out_shapes[1], -1);
  tfs_shape_1d(&c->out_shapes[2], 2);
  tfs_shape_2d(&c->out_shapes[3], batch, 1);
  return 0;
}

/* LSTMBlockCell: x and cs_prev are matrices; every output is
 * [batch_size (x's rows), cell_size (cs_prev's columns)]. */
static int lstm_block_cell_shape(tfs_shape_ctx *c) {
  if (tfs_sc_with_rank(c, 0, 2) || tfs_sc_with_rank(c, 1, 2)) return -1;
  const tfs_shape *x = &c->in_shapes[0], *cs = &c->in_shapes[1];
  tfs_shape out;
  tfs_shape_2d(&out, x->rank == 2 ? x->dims[0] : -1,
               cs->rank == 2 ? cs->dims[1] : -1);
  for (int i = 0; i < 7; i++) c->out_shapes[i] = out;
  return 0;
}

/* ---- the table ----------------------------------------------------------- */

const tfs_op_spec tfs_ops_extra[] = {
    {"StringToNumber", "string_tensor: string", "output: out_type",
     "out_type: {float, double, int32, int64, uint32, uint64} = float",
     tfs_shape_fn_unchanged, 0},
    {"AsString", "input: T", "output: string",
     "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
     "uint16, half, uint32, uint64, complex64, complex128, bool, variant, "
     "string}; precision: int = -1; scientific: bool = false; "
     "shortest: bool = false; width: int = -1; fill: string = ''",
     tfs_shape_fn_unchanged, 0},
    {"DenseToDenseSetOperation", "set1: T; set2: T",
     "result_indices: int64; result_values: T; result_shape: int64",
     "set_operation: string; validate_indices: bool = true; "
     "T: {int8, int16, int32, int64, uint8, uint16, string}",
     set_operation_shape, 0},
    {"CTCGreedyDecoder", "inputs: T; sequence_length: int32",
     "decoded_indices: int64; decoded_values: int64; decoded_shape: int64; "
     "log_probability: T",
     "merge_repeated: bool = false; blank_index: int = -1; "
     "T: {float, double} = float",
     ctc_greedy_shape, 0},
    {"LSTMBlockCell",
     "x: T; cs_prev: T; h_prev: T; w: T; wci: T; wcf: T; wco: T; b: T",
     "i: T; cs: T; f: T; o: T; ci: T; co: T; h: T",
     "forget_bias: float = 1; cell_clip: float = 3; "
     "use_peephole: bool = false; T: {half, float}",
     lstm_block_cell_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};

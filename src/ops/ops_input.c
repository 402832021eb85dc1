/*
 * ops/ops_input.c - the stateful ops of TF1 input pipelines: FIFO queues
 * (FIFOQueueV2 and the ops on its handle) and tf.data (the dataset ops a
 * tf.compat.v1 iterator's graph holds, IteratorV2, MakeIterator,
 * IteratorGetNext), with TensorFlow's signatures and shape functions.
 * Stateful as in TensorFlow: the queue and iterator ops and the source
 * datasets.  The kernels: backends/cpu/queue.c, backends/cpu/dataset.c.
 */
#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

/* IteratorGetNext: the shapes in its output_shapes attr (TensorFlow's
 * DatasetIteratorShapeFn); unknown when the attr does not list one per
 * output. */
static int get_next_shape(tfs_shape_ctx *c) {
  const tfs_attr_value *v = tfs_attrs_find(c->attrs, "output_shapes");
  if (!v || !v->is_list || v->u.list.n != c->noutputs)
    return tfs_shape_fn_unknown(c);
  const tfs_shape *shapes = v->u.list.v;
  for (int i = 0; i < c->noutputs; i++) c->out_shapes[i] = shapes[i];
  return 0;
}

/* Datasets whose scalar inputs (counts, batch sizes) must be scalars. */
static int count_dataset_shape(tfs_shape_ctx *c) {
  for (int i = 1; i < c->ninputs; i++)
    if (tfs_sc_with_rank(c, i, 0)) return -1;
  return tfs_shape_fn_scalar(c);
}

static int range_dataset_shape(tfs_shape_ctx *c) {
  for (int i = 0; i < 3; i++)
    if (tfs_sc_with_rank(c, i, 0)) return -1;
  return tfs_shape_fn_scalar(c);
}

#define QLIST "component_types: list(type) >= 1; timeout_ms: int = -1"
#define DS_ATTRS                                                         \
  "output_types: list(type) >= 1; output_shapes: list(shape) >= 1; "    \
  "metadata: string = ''"

const tfs_op_spec tfs_ops_input[] = {
    /* ---- queues ---- */
    {"FIFOQueueV2", "", "handle: resource",
     "component_types: list(type) >= 1; shapes: list(shape) >= 0 = []; "
     "capacity: int = -1; container: string = ''; shared_name: string = ''",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"QueueEnqueueV2", "handle: resource; components: Tcomponents", "",
     "Tcomponents: list(type) >= 1; timeout_ms: int = -1",
     tfs_shape_fn_no_outputs, TFS_OP_STATEFUL},
    {"QueueEnqueueManyV2", "handle: resource; components: Tcomponents", "",
     "Tcomponents: list(type) >= 1; timeout_ms: int = -1",
     tfs_shape_fn_no_outputs, TFS_OP_STATEFUL},
    {"QueueDequeueV2", "handle: resource", "components: component_types",
     QLIST, tfs_shape_fn_unknown, TFS_OP_STATEFUL},
    {"QueueDequeueManyV2", "handle: resource; n: int32",
     "components: component_types", QLIST, tfs_shape_fn_unknown,
     TFS_OP_STATEFUL},
    {"QueueDequeueUpToV2", "handle: resource; n: int32",
     "components: component_types", QLIST, tfs_shape_fn_unknown,
     TFS_OP_STATEFUL},
    {"QueueCloseV2", "handle: resource", "",
     "cancel_pending_enqueues: bool = false", tfs_shape_fn_no_outputs,
     TFS_OP_STATEFUL},
    {"QueueSizeV2", "handle: resource", "size: int32", "",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"QueueIsClosedV2", "handle: resource", "is_closed: bool", "",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    /* ---- tf.data ---- */
    {"TensorDataset", "components: Toutput_types", "handle: variant",
     "Toutput_types: list(type) >= 1; output_shapes: list(shape) >= 1; "
     "metadata: string = ''",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"TensorSliceDataset", "components: Toutput_types", "handle: variant",
     "Toutput_types: list(type) >= 1; output_shapes: list(shape) >= 1; "
     "is_files: bool = false; metadata: string = ''; replicate_on_split: "
     "bool = false",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"RangeDataset", "start: int64; stop: int64; step: int64",
     "handle: variant", DS_ATTRS "; replicate_on_split: bool = false",
     range_dataset_shape, TFS_OP_STATEFUL},
    {"BatchDatasetV2",
     "input_dataset: variant; batch_size: int64; drop_remainder: bool",
     "handle: variant", "parallel_copy: bool = false; " DS_ATTRS,
     count_dataset_shape, 0},
    {"RepeatDataset", "input_dataset: variant; count: int64",
     "handle: variant", DS_ATTRS, count_dataset_shape, 0},
    {"TakeDataset", "input_dataset: variant; count: int64",
     "handle: variant", DS_ATTRS, count_dataset_shape, 0},
    {"SkipDataset", "input_dataset: variant; count: int64",
     "handle: variant", DS_ATTRS, count_dataset_shape, 0},
    {"MapDataset", "input_dataset: variant; other_arguments: Targuments",
     "handle: variant",
     "f: func; Targuments: list(type) >= 0; output_types: list(type) >= 1; "
     "output_shapes: list(shape) >= 1; use_inter_op_parallelism: bool = "
     "true; preserve_cardinality: bool = false; force_synchronous: bool = "
     "false; metadata: string = ''",
     tfs_shape_fn_scalar, 0},
    {"IteratorV2", "", "handle: resource",
     "shared_name: string; container: string; output_types: list(type) "
     ">= 1; output_shapes: list(shape) >= 1",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"OneShotIterator", "", "handle: resource",
     "dataset_factory: func; output_types: list(type) >= 1; output_shapes: "
     "list(shape) >= 1; container: string = ''; shared_name: string = ''",
     tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {"MakeIterator", "dataset: variant; iterator: resource", "", "",
     tfs_shape_fn_no_outputs, TFS_OP_STATEFUL},
    {"IteratorGetNext", "iterator: resource", "components: output_types",
     "output_types: list(type) >= 1; output_shapes: list(shape) >= 1",
     get_next_shape, TFS_OP_STATEFUL},
    {"IteratorToStringHandle", "resource_handle: resource",
     "string_handle: string", "", tfs_shape_fn_scalar, TFS_OP_STATEFUL},
    {NULL, NULL, NULL, NULL, NULL, 0},
};

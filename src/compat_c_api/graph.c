/*
 * compat_c_api/graph.c - TF_Graph and TF_OperationDescription (tfsess's
 * graph and op builder): creating operations, their inputs and every
 * TF_SetAttr* setter, and the graph's shape queries.
 */
#include <string.h>

#include "compat_c_api/capi_internal.h"
#include "compat_c_api/legacy_string.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/tensor_proto.h"

TF_Graph *TF_NewGraph(void) { return tfs_graph_new(); }

void TF_DeleteGraph(TF_Graph *g) { tfs_graph_free(g); }

/* ---- shapes -------------------------------------------------------------- */

static int check_graph_output(TF_Graph *g, TF_Output o, tfs_status *st) {
  if (!o.oper || o.oper->graph != g) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT,
                   "Output does not belong to this graph");
    return -1;
  }
  if (o.index < 0 || o.index >= o.oper->noutputs) {
    tfs_status_setf(st, TFS_OUT_OF_RANGE,
                    "Node '%s' (type: '%s', num of outputs: %d) does not "
                    "have output %d",
                    o.oper->name, o.oper->def->name, o.oper->noutputs,
                    o.index);
    return -1;
  }
  return 0;
}

/* TensorFlow's InferenceContext::Merge, with its messages. */
static int merge_shapes(const tfs_shape *a, const tfs_shape *b,
                        tfs_shape *out, tfs_status *st) {
  char sa[TFS_SHAPE_STRLEN], sb[TFS_SHAPE_STRLEN];
  if (a->rank >= 0 && b->rank >= 0 && a->rank != b->rank) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Shapes must be equal rank, but are %d and %d", a->rank,
                    b->rank);
    return -1;
  }
  for (int i = 0; a->rank >= 0 && i < a->rank && b->rank >= 0; i++) {
    if (a->dims[i] >= 0 && b->dims[i] >= 0 && a->dims[i] != b->dims[i]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Dimension %d in both shapes must be equal, but are "
                      "%lld and %lld. Shapes are %s and %s.",
                      i, (long long)a->dims[i], (long long)b->dims[i],
                      tfs_shape_str(a, sa, sizeof sa),
                      tfs_shape_str(b, sb, sizeof sb));
      return -1;
    }
  }
  tfs_shape_merge(a, b, out);
  return 0;
}

void TF_UpdateEdge(TF_Graph *graph, TF_Output new_src, TF_Input dst,
                   TF_Status *status) {
  tfs_input in = {dst.oper, dst.index};
  tfs_graph_update_edge(graph, tfs_capi__out(new_src), in, ST(status));
}

void TF_GraphSetTensorShape(TF_Graph *graph, TF_Output output,
                            const int64_t *dims, const int num_dims,
                            TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_shape s, merged;
  if (check_graph_output(graph, output, st)) return;
  if (num_dims < 0) {
    s.rank = -1;
  } else {
    if (num_dims > 0 && !dims) {
      tfs_status_set(st, TFS_INVALID_ARGUMENT, "dims is NULL");
      return;
    }
    if (num_dims > TFS_MAX_RANK) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Shapes of rank %d are not supported (at most %d)",
                      num_dims, TFS_MAX_RANK);
      return;
    }
    s.rank = num_dims;
    for (int i = 0; i < num_dims; i++) s.dims[i] = dims[i] < 0 ? -1 : dims[i];
  }
  pthread_mutex_lock(&graph->mu);
  tfs_shape *cur = &output.oper->out_shapes[output.index];
  if (merge_shapes(cur, &s, &merged, st) == 0) {
    *cur = merged;
    tfs_status_clear(st);
  }
  pthread_mutex_unlock(&graph->mu);
}

int TF_GraphGetTensorNumDims(TF_Graph *graph, TF_Output output,
                             TF_Status *status) {
  tfs_status *st = ST(status);
  if (check_graph_output(graph, output, st)) return -1;
  return tfs_graph_tensor_num_dims(graph, tfs_capi__out(output), st);
}

void TF_GraphGetTensorShape(TF_Graph *graph, TF_Output output, int64_t *dims,
                            int num_dims, TF_Status *status) {
  tfs_status *st = ST(status);
  if (check_graph_output(graph, output, st)) return;
  tfs_graph_tensor_shape(graph, tfs_capi__out(output), dims, num_dims, st);
}

/* ---- building operations ------------------------------------------------- */

TF_OperationDescription *TF_NewOperationLocked(TF_Graph *graph,
                                               const char *op_type,
                                               const char *oper_name) {
  return tfs_op_desc_new(graph, op_type, oper_name);
}

TF_OperationDescription *TF_NewOperation(TF_Graph *graph, const char *op_type,
                                         const char *oper_name) {
  return tfs_op_desc_new(graph, op_type, oper_name);
}

void TF_SetDevice(TF_OperationDescription *desc, const char *device) {
  tfs_op_desc_set_device(desc, device);
}

void TF_AddInput(TF_OperationDescription *desc, TF_Output input) {
  tfs_op_desc_add_input(desc, tfs_capi__out(input));
}

void TF_AddInputList(TF_OperationDescription *desc, const TF_Output *inputs,
                     int num_inputs) {
  tfs_output stack[16] = {{NULL, 0}};
  tfs_output *in = stack;
  if (num_inputs > 16) {
    in = tfs_malloc(sizeof(tfs_output) * (size_t)num_inputs);
    if (!in) {
      /* recorded as an empty list: finish reports the count mismatch */
      tfs_op_desc_add_input_list(desc, NULL, 0);
      return;
    }
  }
  for (int i = 0; i < num_inputs; i++) in[i] = tfs_capi__out(inputs[i]);
  tfs_op_desc_add_input_list(desc, in, num_inputs < 0 ? 0 : num_inputs);
  if (in != stack) tfs_free(in);
}

void TF_AddControlInput(TF_OperationDescription *desc, TF_Operation *input) {
  tfs_op_desc_add_control_input(desc, input);
}

void TF_ColocateWith(TF_OperationDescription *desc, TF_Operation *op) {
  tfs_op_desc_colocate_with(desc, op);
}

/* TensorFlow's C API reports an unknown op type while building as
 * INVALID_ARGUMENT (tfsess's builder says NOT_FOUND, as the op registry
 * does). */
static void fix_unknown_op_code(tfs_status *st) {
  static const char kPrefix[] = "Op type not registered";
  if (tfs_status_code(st) == TFS_NOT_FOUND &&
      strncmp(tfs_status_message(st), kPrefix, sizeof kPrefix - 1) == 0) {
    char *msg = tfs_strdup(tfs_status_message(st));
    if (msg) tfs_status_set(st, TFS_INVALID_ARGUMENT, msg);
    tfs_free(msg);
  }
}

TF_Operation *TF_FinishOperationLocked(TF_OperationDescription *desc,
                                       TF_Status *status) {
  return TF_FinishOperation(desc, status);
}

TF_Operation *TF_FinishOperation(TF_OperationDescription *desc,
                                 TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_operation *op = tfs_op_desc_finish(desc, st);
  if (!op) fix_unknown_op_code(st);
  return op;
}

/* ---- attribute setters --------------------------------------------------- */

void TF_SetAttrString(TF_OperationDescription *desc, const char *attr_name,
                      const void *value, size_t length) {
  tfs_op_desc_set_attr_string(desc, attr_name, value, length);
}

void TF_SetAttrStringList(TF_OperationDescription *desc,
                          const char *attr_name, const void *const *values,
                          const size_t *lengths, int num_values) {
  tfs_op_desc_set_attr_string_list(desc, attr_name, values, lengths,
                                   num_values);
}

void TF_SetAttrInt(TF_OperationDescription *desc, const char *attr_name,
                   int64_t value) {
  tfs_op_desc_set_attr_int(desc, attr_name, value);
}

void TF_SetAttrIntList(TF_OperationDescription *desc, const char *attr_name,
                       const int64_t *values, int num_values) {
  tfs_op_desc_set_attr_int_list(desc, attr_name, values, num_values);
}

void TF_SetAttrFloat(TF_OperationDescription *desc, const char *attr_name,
                     float value) {
  tfs_op_desc_set_attr_float(desc, attr_name, value);
}

void TF_SetAttrFloatList(TF_OperationDescription *desc, const char *attr_name,
                         const float *values, int num_values) {
  tfs_op_desc_set_attr_float_list(desc, attr_name, values, num_values);
}

void TF_SetAttrBool(TF_OperationDescription *desc, const char *attr_name,
                    unsigned char value) {
  tfs_op_desc_set_attr_bool(desc, attr_name, value != 0);
}

void TF_SetAttrBoolList(TF_OperationDescription *desc, const char *attr_name,
                        const unsigned char *values, int num_values) {
  tfs_op_desc_set_attr_bool_list(desc, attr_name, values, num_values);
}

void TF_SetAttrType(TF_OperationDescription *desc, const char *attr_name,
                    TF_DataType value) {
  tfs_op_desc_set_attr_type(desc, attr_name, (tfs_dtype)value);
}

void TF_SetAttrTypeList(TF_OperationDescription *desc, const char *attr_name,
                        const TF_DataType *values, int num_values) {
  tfs_op_desc_set_attr_type_list(desc, attr_name, (const tfs_dtype *)values,
                                 num_values);
}

void TF_SetAttrPlaceholder(TF_OperationDescription *desc,
                           const char *attr_name, const char *placeholder) {
  tfs_op_desc_set_attr_placeholder(desc, attr_name, placeholder);
}

void TF_SetAttrFuncName(TF_OperationDescription *desc, const char *attr_name,
                        const char *value, size_t length) {
  tfs_op_desc_set_attr_func_name(desc, attr_name, value, length);
}

void TF_SetAttrShape(TF_OperationDescription *desc, const char *attr_name,
                     const int64_t *dims, int num_dims) {
  tfs_op_desc_set_attr_shape(desc, attr_name, dims, num_dims);
}

void TF_SetAttrShapeList(TF_OperationDescription *desc, const char *attr_name,
                         const int64_t *const *dims, const int *num_dims,
                         int num_shapes) {
  tfs_op_desc_set_attr_shape_list(desc, attr_name, dims, num_dims,
                                  num_shapes);
}

/* Sets a parsed shape on the description. */
static void set_shape(TF_OperationDescription *desc, const char *name,
                      const tfs_shape *s) {
  tfs_op_desc_set_attr_shape(desc, name, s->rank > 0 ? s->dims : NULL,
                             s->rank);
}

void TF_SetAttrTensorShapeProto(TF_OperationDescription *desc,
                                const char *attr_name, const void *proto,
                                size_t proto_len, TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_shape s;
  if (tfs_shape__parse_proto(proto, proto_len, &s, st)) return;
  set_shape(desc, attr_name, &s);
  tfs_status_clear(st);
}

void TF_SetAttrTensorShapeProtoList(TF_OperationDescription *desc,
                                    const char *attr_name,
                                    const void *const *protos,
                                    const size_t *proto_lens, int num_shapes,
                                    TF_Status *status) {
  tfs_status *st = ST(status);
  int n = num_shapes < 0 ? 0 : num_shapes;
  tfs_shape *s = tfs_malloc(sizeof(tfs_shape) * (size_t)(n ? n : 1));
  const int64_t **dims = tfs_malloc(sizeof(int64_t *) * (size_t)(n ? n : 1));
  int *ranks = tfs_malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!s || !dims || !ranks) {
    TFS_OOM(st);
    goto done;
  }
  for (int i = 0; i < n; i++) {
    if (tfs_shape__parse_proto(protos[i], proto_lens[i], &s[i], st))
      goto done;
    dims[i] = s[i].dims;
    ranks[i] = s[i].rank;
  }
  tfs_op_desc_set_attr_shape_list(desc, attr_name, dims, ranks, n);
  tfs_status_clear(st);
done:
  tfs_free(s);
  tfs_free(dims);
  tfs_free(ranks);
}

/* A private copy of a caller's tensor (decoded when in the legacy string
 * encoding): the caller may change or delete its tensor afterwards. */
static tfs_tensor *attr_tensor_copy(TF_Tensor *value, tfs_status *st) {
  int owned;
  tfs_tensor *t = tfs_capi__tensor_in(value, &owned, st);
  if (!t || owned) return t;
  return tfs_tensor__copy(t, st);
}

void TF_SetAttrTensor(TF_OperationDescription *desc, const char *attr_name,
                      TF_Tensor *value, TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_tensor *t = attr_tensor_copy(value, st);
  if (!t) return;
  tfs_op_desc_set_attr_tensor(desc, attr_name, t, st);
  tfs_tensor_free(t);
}

void TF_SetAttrTensorList(TF_OperationDescription *desc,
                          const char *attr_name, TF_Tensor *const *values,
                          int num_values, TF_Status *status) {
  tfs_status *st = ST(status);
  int n = num_values < 0 ? 0 : num_values, made = 0;
  tfs_tensor **ts = tfs_calloc((size_t)(n ? n : 1), sizeof(tfs_tensor *));
  if (!ts) {
    TFS_OOM(st);
    return;
  }
  for (; made < n; made++) {
    ts[made] = attr_tensor_copy(values[made], st);
    if (!ts[made]) break;
  }
  if (made == n) tfs_op_desc_set_attr_tensor_list(desc, attr_name, ts, n, st);
  for (int i = 0; i < made; i++) tfs_tensor_free(ts[i]);
  tfs_free(ts);
}

/* Sets a parsed AttrValue through the public setters. */
static void set_value(TF_OperationDescription *d, const char *name,
                      const tfs_attr_value *v, tfs_status *st) {
  if (!v->is_list) {
    switch (v->type) {
      case TFS_ATTR_STRING:
        tfs_op_desc_set_attr_string(d, name, v->u.s.ptr, v->u.s.len);
        break;
      case TFS_ATTR_INT: tfs_op_desc_set_attr_int(d, name, v->u.i); break;
      case TFS_ATTR_FLOAT: tfs_op_desc_set_attr_float(d, name, v->u.f); break;
      case TFS_ATTR_BOOL: tfs_op_desc_set_attr_bool(d, name, v->u.b); break;
      case TFS_ATTR_TYPE: tfs_op_desc_set_attr_type(d, name, v->u.type); break;
      case TFS_ATTR_SHAPE: set_shape(d, name, v->u.shape); break;
      case TFS_ATTR_TENSOR:
        tfs_op_desc_set_attr_tensor(d, name, v->u.tensor, st);
        return;
      case TFS_ATTR_PLACEHOLDER:
        tfs_op_desc_set_attr_placeholder(d, name, v->u.placeholder);
        break;
      case TFS_ATTR_FUNC:
        tfs_op_desc_set_attr_func_name(d, name, v->u.func->name,
                                       strlen(v->u.func->name));
        break;
      default: break;
    }
    tfs_status_clear(st);
    return;
  }
  int n = v->u.list.n;
  const void *items = v->u.list.v;
  switch (v->type) {
    case TFS_ATTR_STRING: {
      const tfs_bytes *b = items;
      const void **vals = tfs_malloc(sizeof(void *) * (size_t)(n ? n : 1));
      size_t *lens = tfs_malloc(sizeof(size_t) * (size_t)(n ? n : 1));
      if (vals && lens) {
        for (int i = 0; i < n; i++) {
          vals[i] = b[i].ptr;
          lens[i] = b[i].len;
        }
        tfs_op_desc_set_attr_string_list(d, name, vals, lens, n);
      }
      tfs_free(vals);
      tfs_free(lens);
      break;
    }
    case TFS_ATTR_INT: tfs_op_desc_set_attr_int_list(d, name, items, n); break;
    case TFS_ATTR_FLOAT:
      tfs_op_desc_set_attr_float_list(d, name, items, n);
      break;
    case TFS_ATTR_BOOL:
      tfs_op_desc_set_attr_bool_list(d, name, items, n);
      break;
    case TFS_ATTR_TYPE:
      tfs_op_desc_set_attr_type_list(d, name, items, n);
      break;
    case TFS_ATTR_SHAPE: {
      const tfs_shape *s = items;
      const int64_t **dims = tfs_malloc(sizeof(void *) * (size_t)(n ? n : 1));
      int *ranks = tfs_malloc(sizeof(int) * (size_t)(n ? n : 1));
      if (dims && ranks) {
        for (int i = 0; i < n; i++) {
          dims[i] = s[i].dims;
          ranks[i] = s[i].rank;
        }
        tfs_op_desc_set_attr_shape_list(d, name, dims, ranks, n);
      }
      tfs_free(dims);
      tfs_free(ranks);
      break;
    }
    case TFS_ATTR_TENSOR:
      tfs_op_desc_set_attr_tensor_list(d, name, (tfs_tensor *const *)items, n,
                                       st);
      return;
    default:
      tfs_status_setf(st, TFS_UNIMPLEMENTED,
                      "Attr '%s': lists of functions are not supported by "
                      "tfsess", name);
      return;
  }
  tfs_status_clear(st);
}

void TF_SetAttrValueProto(TF_OperationDescription *desc,
                          const char *attr_name, const void *proto,
                          size_t proto_len, TF_Status *status) {
  tfs_status *st = ST(status);
  tfs_attr_value v;
  memset(&v, 0, sizeof v);
  int rc = tfs_attr_value__parse(proto, proto_len, NULL, &v, st);
  if (rc < 0) return;
  if (rc == 0) set_value(desc, attr_name, &v, st);
  else tfs_status_clear(st);
  tfs_attr_value_clear(&v);
}

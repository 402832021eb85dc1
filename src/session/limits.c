/*
 * session/limits.c - resource limits and safe mode: resolving the
 * configured values, the list of ops that reach outside the graph, and
 * the plan-time checks.  The per-allocation checks live with the
 * kernels' context (kernels/kernel_ctx.c), which gets tfs_run_limits.
 */
#include "session/limits.h"

#include <string.h>

#include "config_proto/pb_util.h"
#include "graph_builder/function_lib.h"
#include "core/status.h"
#include "tfsess/session.h"

static int64_t pick(int64_t v, int safe, int64_t safe_default) {
  if (v < 0) return 0;
  if (v > 0) return v;
  return safe ? safe_default : 0;
}

int64_t tfs_limits__effective(const tfs_config_limits *c, int which) {
  int safe = c->safe_mode;
  switch (which) {
    case TFS_LIMIT_TENSOR_BYTES:
      return pick(c->max_tensor_bytes, safe, TFS_SAFE_TENSOR_BYTES);
    case TFS_LIMIT_RUN_BYTES:
      return pick(c->max_run_bytes, safe, TFS_SAFE_RUN_BYTES);
    case TFS_LIMIT_GRAPH_NODES:
      return pick(c->max_graph_nodes, safe, TFS_SAFE_GRAPH_NODES);
    case TFS_LIMIT_NESTING: {
      int64_t v = pick(c->max_nesting, safe, TFS_SAFE_NESTING);
      return v <= 0 || v > TFS_PB_MAX_DEPTH ? TFS_PB_MAX_DEPTH : v;
    }
    case TFS_LIMIT_OP_ELEMENTS:
      return pick(c->max_op_elements, safe, TFS_SAFE_OP_ELEMENTS);
    default:
      return 0;
  }
}

void tfs_limits__resolve(const tfs_config_limits *c, tfs_session_limits *out) {
  memset(out, 0, sizeof(*out));
  out->safe_mode = c->safe_mode != 0;
  out->graph_nodes = tfs_limits__effective(c, TFS_LIMIT_GRAPH_NODES);
  out->nesting = (int)tfs_limits__effective(c, TFS_LIMIT_NESTING);
  out->run.tensor_bytes = tfs_limits__effective(c, TFS_LIMIT_TENSOR_BYTES);
  out->run.run_bytes = tfs_limits__effective(c, TFS_LIMIT_RUN_BYTES);
  out->run.op_elements = tfs_limits__effective(c, TFS_LIMIT_OP_ELEMENTS);
  out->any_run_limit = out->run.tensor_bytes || out->run.run_bytes ||
                       out->run.op_elements;
  out->nallowed = c->nallowed_ops;
  out->allowed = c->allowed_ops;
}

/* ---- ops that reach outside the graph -------------------------------- */

typedef struct host_op {
  const char *type;
  const char *what;
} host_op;

static const char kReads[] = "reads files";
static const char kWrites[] = "writes files";
static const char kCode[] = "runs code outside the graph";
static const char kNet[] = "reaches the network";

/* TensorFlow's ops that open, list, map or write files, run host code or
 * talk to other processes.  Types tfsess has no kernel for are listed
 * too, so that a kernel added later is refused from the start. */
static const host_op kHostOps[] = {
    {"ReadFile", kReads}, {"MatchingFiles", kReads},
    {"RestoreV2", kReads}, {"Restore", kReads}, {"RestoreSlice", kReads},
    {"ImmutableConst", kReads}, {"LoadAndRemapMatrix", kReads},
    {"InitializeTableFromTextFile", kReads},
    {"InitializeTableFromTextFileV2", kReads},
    {"TFRecordReader", kReads}, {"TFRecordReaderV2", kReads},
    {"WholeFileReader", kReads}, {"WholeFileReaderV2", kReads},
    {"TextLineReader", kReads}, {"TextLineReaderV2", kReads},
    {"FixedLengthRecordReader", kReads},
    {"FixedLengthRecordReaderV2", kReads}, {"LMDBReader", kReads},
    {"TFRecordDataset", kReads}, {"TFRecordDatasetV2", kReads},
    {"TextLineDataset", kReads}, {"FixedLengthRecordDataset", kReads},
    {"FixedLengthRecordDatasetV2", kReads}, {"LoadDataset", kReads},
    {"DecodeProtoV2", kReads}, {"EncodeProto", kReads},
    {"WriteFile", kWrites}, {"SaveV2", kWrites}, {"Save", kWrites},
    {"SaveSlices", kWrites}, {"MergeV2Checkpoints", kWrites},
    {"SaveDataset", kWrites}, {"SaveDatasetV2", kWrites},
    {"CreateSummaryFileWriter", kWrites}, {"CreateSummaryDbWriter", kWrites},
    {"WriteSummary", kWrites}, {"WriteScalarSummary", kWrites},
    {"WriteHistogramSummary", kWrites}, {"WriteImageSummary", kWrites},
    {"WriteAudioSummary", kWrites}, {"WriteGraphSummary", kWrites},
    {"WriteRawProtoSummary", kWrites}, {"FlushSummaryWriter", kWrites},
    {"CloseSummaryWriter", kWrites}, {"ImportEvent", kWrites},
    {"SummaryWriter", kWrites},
    {"DebugIdentity", kWrites}, {"DebugIdentityV2", kWrites},
    {"DebugIdentityV3", kWrites}, {"DebugNanCount", kWrites},
    {"DebugNumericSummary", kWrites}, {"DebugNumericSummaryV2", kWrites},
    {"PyFunc", kCode}, {"PyFuncStateless", kCode}, {"EagerPyFunc", kCode},
    {"Rpc", kNet}, {"TryRpc", kNet},
};

/* By op type and, for PrintV2, the output_stream attr (os, len; NULL:
 * absent). */
static const char *host_access(const char *type, const char *os,
                               size_t len) {
  for (size_t i = 0; i < sizeof kHostOps / sizeof kHostOps[0]; i++)
    if (strcmp(type, kHostOps[i].type) == 0) return kHostOps[i].what;
  /* PrintV2 to stderr, stdout or the log is fine; "file://PATH" writes */
  if (strcmp(type, "PrintV2") == 0 && os && len >= 7 &&
      memcmp(os, "file://", 7) == 0)
    return kWrites;
  return NULL;
}

const char *tfs_limits__host_access(const tfs_operation *op) {
  size_t len = 0;
  const char *os = tfs_attrs_get_string(&op->attrs, "output_stream", &len);
  return host_access(op->def->name, os, len);
}

/* ---- inside functions ------------------------------------------------- */

typedef struct fn_check {
  const tfs_session_limits *l;
  const Tensorflow__NodeDef *bad;
  const char *what;
} fn_check;

static int allowed(const tfs_session_limits *l, const char *type);

static int check_body_node(const Tensorflow__NodeDef *nd, void *arg) {
  fn_check *c = arg;
  const char *os = NULL;
  size_t len = 0;
  for (size_t i = 0; i < nd->n_attr; i++)
    if (strcmp(nd->attr[i]->key, "output_stream") == 0 &&
        nd->attr[i]->value &&
        nd->attr[i]->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S) {
      os = (const char *)nd->attr[i]->value->s.data;
      len = nd->attr[i]->value->s.len;
    }
  const char *what = host_access(nd->op, os, len);
  if (!what || allowed(c->l, nd->op)) return 0;
  c->bad = nd;
  c->what = what;
  return 1;
}

/* Function `fname` (and those it calls), called by `op`, checked as its
 * own nodes are. */
static int check_function(const tfs_session_limits *l, const tfs_graph *g,
                          const tfs_operation *op, const char *fname,
                          tfs_status *st) {
  fn_check c = {l, NULL, NULL};
  int rc = tfs_flib__walk_nodes(g, fname, check_body_node, &c);
  if (rc < 0) return TFS_OOM(st), -1;
  if (rc == 0) return 0;
  tfs_status_setf(st, TFS_PERMISSION_DENIED,
                  "Node '%s' in function '%s' (called by node '%s') (op "
                  "%s) %s, which safe mode refuses; allow the op type in "
                  "the session's options to run it",
                  c.bad->name, fname, op->name, c.bad->op, c.what);
  return -1;
}

/* Every function `op` calls: by its op type (a function called by name)
 * and through func attrs. */
static int check_calls(const tfs_session_limits *l, const tfs_graph *g,
                       const tfs_operation *op, tfs_status *st) {
  if (tfs_flib__is_function_op(op->def) &&
      check_function(l, g, op, op->def->name, st))
    return -1;
  for (int k = 0; k < op->attrs.n; k++) {
    const tfs_attr_value *v = &op->attrs.e[k].value;
    if (v->type != TFS_ATTR_FUNC) continue;
    int n = v->is_list ? v->u.list.n : 1;
    for (int j = 0; j < n; j++) {
      const tfs_func_attr *f =
          v->is_list ? &((const tfs_func_attr *)v->u.list.v)[j] : v->u.func;
      if (f && f->name && check_function(l, g, op, f->name, st)) return -1;
    }
  }
  return 0;
}

static int allowed(const tfs_session_limits *l, const char *type) {
  for (int i = 0; i < l->nallowed; i++)
    if (l->allowed[i] && strcmp(l->allowed[i], type) == 0) return 1;
  return 0;
}

int tfs_limits__check_plan(const tfs_session_limits *l, const tfs_graph *g,
                           tfs_operation *const *nodes, int n,
                           size_t graph_size, tfs_status *st) {
  if (l->graph_nodes > 0 && (int64_t)graph_size > l->graph_nodes) {
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "Graph has %zu nodes, over the session's limit of %lld "
                    "nodes",
                    graph_size, (long long)l->graph_nodes);
    return -1;
  }
  if (!l->safe_mode) return 0;
  for (int i = 0; i < n; i++) {
    if (check_calls(l, g, nodes[i], st)) return -1;
    const char *what = tfs_limits__host_access(nodes[i]);
    if (!what || allowed(l, nodes[i]->def->name)) continue;
    tfs_status_setf(st, TFS_PERMISSION_DENIED,
                    "Node '%s' (op %s) %s, which safe mode refuses; allow "
                    "the op type in the session's options to run it",
                    nodes[i]->name, nodes[i]->def->name, what);
    return -1;
  }
  return 0;
}

/*
 * saved_model/loader_steps.c - the steps of TensorFlow's SavedModel loader
 * around the session: the constant checks before it is created, the asset
 * feeds, the variable restore through the MetaGraph's Saver and the init
 * op.  See tfsess/saved_model.h.
 */
#include <string.h>
#include <sys/stat.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "core/util.h"
#include "graph_builder/graph_internal.h"
#include "saved_model/sm_internal.h"

/* ---- constants ----------------------------------------------------------- */

static int shape_unknown(const Tensorflow__TensorShapeProto *s) {
  if (!s) return 0;
  if (s->unknown_rank) return 1;
  for (size_t i = 0; i < s->n_dim; i++)
    if (s->dim[i]->size < 0) return 1;
  return 0;
}

static int check_nodes(Tensorflow__NodeDef *const *nodes, size_t n,
                       tfs_status *st) {
  for (size_t i = 0; i < n; i++) {
    const Tensorflow__NodeDef *nd = nodes[i];
    const Tensorflow__AttrValue *value = NULL;
    for (size_t a = 0; a < nd->n_attr; a++)
      if (strcmp(nd->attr[a]->key, "value") == 0) value = nd->attr[a]->value;
    if (value && value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR &&
        value->tensor && shape_unknown(value->tensor->tensor_shape)) {
      tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                      "Saved model contains node \"%s\" (op \"%s\") which "
                      "initializes from a tensor with -1 elements",
                      nd->name, nd->op);
      return -1;
    }
    if (!value && strcmp(nd->op, "Const") == 0) {
      tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                      "Saved model contains node \"%s\" which is a constant "
                      "tensor but no value has been provided",
                      nd->name);
      return -1;
    }
  }
  return 0;
}

int tfs_sm__validate_consts(const Tensorflow__GraphDef *gd, tfs_status *st) {
  if (check_nodes(gd->node, gd->n_node, st)) return -1;
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  for (size_t f = 0; lib && f < lib->n_function; f++) {
    const Tensorflow__FunctionDef *fd = lib->function[f];
    if (check_nodes(fd->node_def, fd->n_node_def, st)) return -1;
    const char *name = fd->signature ? fd->signature->name : "";
    for (size_t i = 0; i < fd->n_node_def; i++) {
      if (strcmp(fd->node_def[i]->op, name) == 0) {
        tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                        "Function %s is self recursive and TensorFlow does "
                        "not support this scenario.",
                        name);
        return -1;
      }
    }
  }
  return 0;
}

/* ---- feeds --------------------------------------------------------------- */

typedef struct feeds {
  int n, cap;
  tfs_output *out;
  tfs_tensor **val;
} feeds;

static void feeds_free(feeds *f) {
  for (int i = 0; i < f->n; i++) tfs_tensor_free(f->val[i]);
  tfs_free(f->out);
  tfs_free(f->val);
}

int tfs_sm__find_tensor(tfs_graph *g, const char *name, tfs_output *out,
                       tfs_status *st) {
  size_t len;
  int idx;
  tfs_operation *op = NULL;
  if (tfs_graph__parse_tensor_name(name, &len, &idx) == 0) {
    char *opname = tfs_strndup(name, len);
    if (!opname) {
      TFS_OOM(st);
      return -1;
    }
    op = tfs_graph_operation_by_name(g, opname);
    tfs_free(opname);
  }
  if (!op || idx < 0 || idx >= tfs_operation_num_outputs(op)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Tensor %s, specified in either feed_devices or "
                    "fetch_devices was not found in the Graph",
                    name);
    return -1;
  }
  out->oper = op;
  out->index = idx;
  return 0;
}

/* Appends o = t, taking t (freed on failure). */
static int feeds_push(feeds *f, tfs_output o, tfs_tensor *t, tfs_status *st) {
  if (f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 4;
    tfs_output *no = tfs_realloc(f->out, (size_t)cap * sizeof *no);
    if (no) f->out = no;
    tfs_tensor **nv =
        no ? tfs_realloc(f->val, (size_t)cap * sizeof *nv) : NULL;
    if (nv) f->val = nv;
    if (!no || !nv) {
      tfs_tensor_free(t);
      TFS_OOM(st);
      return -1;
    }
    f->cap = cap;
  }
  f->out[f->n] = o;
  f->val[f->n++] = t;
  return 0;
}

/* Adds the feed name = scalar string dir/sub/file. */
static int feed_path(tfs_graph *g, feeds *f, const char *name,
                     const char *dir, const char *sub, const char *file,
                     tfs_status *st) {
  tfs_output o;
  if (tfs_sm__find_tensor(g, name, &o, st)) return -1;
  char *path = tfs_asprintf("%s/%s/%s", dir, sub, file);
  tfs_tensor *t = path ? tfs_tensor_scalar_string(path, strlen(path)) : NULL;
  tfs_free(path);
  if (!t) {
    TFS_OOM(st);
    return -1;
  }
  return feeds_push(f, o, t, st);
}

static const Tensorflow__CollectionDef *collection(
    const Tensorflow__MetaGraphDef *mg, const char *key) {
  for (size_t i = 0; i < mg->n_collection_def; i++)
    if (strcmp(mg->collection_def[i]->key, key) == 0)
      return mg->collection_def[i]->value;
  return NULL;
}

/* One asset's feed: its tensor and assets/<filename>. */
static int feed_asset(tfs_saved_model *m, feeds *f,
                      const Tensorflow__AssetFileDef *a, tfs_status *st) {
  const Tensorflow__TensorInfo *ti = a->tensor_info;
  const char *name =
      ti && ti->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_NAME
          ? ti->name
          : "";
  /* an asset listed twice for one tensor (TF1 builders add a
   * TextFileInitializer's file to ASSET_FILEPATHS again when the caller
   * lists it too) is fed once */
  tfs_output o;
  if (tfs_sm__find_tensor(m->g, name, &o, st)) return -1;
  for (int i = 0; i < f->n; i++)
    if (f->out[i].oper == o.oper && f->out[i].index == o.index) return 0;
  return feed_path(m->g, f, name, m->dir, "assets", a->filename, st);
}

/* Asset feeds from asset_file_def, else from the TF1 collection
 * saved_model_assets (an any_list of AssetFileDef). */
static int asset_feeds(tfs_saved_model *m, const Tensorflow__MetaGraphDef *mg,
                       feeds *f, tfs_status *st) {
  if (mg->n_asset_file_def) {
    for (size_t i = 0; i < mg->n_asset_file_def; i++)
      if (feed_asset(m, f, mg->asset_file_def[i], st)) return -1;
    return 0;
  }
  const Tensorflow__CollectionDef *c = collection(mg, "saved_model_assets");
  if (!c || c->kind_case != TENSORFLOW__COLLECTION_DEF__KIND_ANY_LIST ||
      !c->any_list)
    return 0;
  for (size_t i = 0; i < c->any_list->n_value; i++) {
    const Tensorflow__AnyValue *any = c->any_list->value[i];
    int oom = 0;
    Tensorflow__AssetFileDef *a = (Tensorflow__AssetFileDef *)tfs_pb__unpack(
        &tensorflow__asset_file_def__descriptor, any->value.data,
        any->value.len, &oom);
    if (!a) {
      if (oom)
        TFS_OOM(st);
      else
        tfs_status_set(st, TFS_INVALID_ARGUMENT,
                       "Failed to unpack asset file definition: the "
                       "saved_model_assets collection holds no AssetFileDef");
      return -1;
    }
    int rc = feed_asset(m, f, a, st);
    tfs_pb__free(&a->base);
    if (rc) return -1;
  }
  return 0;
}

/* ---- restore and init ---------------------------------------------------- */

static int run_target(tfs_saved_model *m, const feeds *f, const char *target,
                      const tfs_buffer *run_options, tfs_status *st) {
  size_t len;
  int idx;
  /* a target is an op name; "NoOp" and "init:0" both name op init */
  tfs_operation *op = NULL;
  if (tfs_graph__parse_tensor_name(target, &len, &idx) == 0) {
    char *name = tfs_strndup(target, len);
    if (!name) {
      TFS_OOM(st);
      return -1;
    }
    op = tfs_graph_operation_by_name(m->g, name);
    tfs_free(name);
  }
  if (!op) {
    tfs_status_setf(st, TFS_NOT_FOUND,
                    "Node %s, specified as a target, was not found in the "
                    "Graph",
                    target);
    return -1;
  }
  tfs_session_run_ex(m->s, run_options, f->out, f->val, f->n, NULL, NULL, 0,
                     &op, 1, NULL, st);
  return tfs_status_ok(st) ? 0 : -1;
}

static int file_exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static int restore(tfs_saved_model *m, const Tensorflow__MetaGraphDef *mg,
                   const feeds *assets, const tfs_buffer *run_options,
                   tfs_status *st) {
  const Tensorflow__SaverDef *sd = mg->saver_def;
  if (!sd) return 0;
  char *index = tfs_asprintf("%s/variables/variables.index", m->dir);
  if (!index) {
    TFS_OOM(st);
    return -1;
  }
  int have = file_exists(index);
  tfs_free(index);
  if (!have) return 0; /* a SavedModel without variables */
  feeds f = {0, 0, NULL, NULL}; /* the variables prefix, then assets */
  int rc = feed_path(m->g, &f, sd->filename_tensor_name, m->dir,
                     "variables", "variables", st);
  for (int i = 0; rc == 0 && i < assets->n; i++)
    rc = feeds_push(&f, assets->out[i], tfs_tensor_ref(assets->val[i]), st);
  if (rc == 0) rc = run_target(m, &f, sd->restore_op_name, run_options, st);
  feeds_free(&f);
  return rc;
}

/* The init op: signature __saved_model_init_op's output of that key, else
 * the collection saved_model_main_op, else legacy_init_op.  *name NULL:
 * none. */
static int init_op(const tfs_saved_model *m,
                   const Tensorflow__MetaGraphDef *mg, const char **name,
                   tfs_status *st) {
  *name = NULL;
  for (size_t i = 0; i < mg->n_signature_def; i++) {
    if (strcmp(mg->signature_def[i]->key, "__saved_model_init_op")) continue;
    const Tensorflow__SignatureDef *sd = mg->signature_def[i]->value;
    for (size_t j = 0; sd && j < sd->n_outputs; j++) {
      const Tensorflow__TensorInfo *ti = sd->outputs[j]->value;
      if (strcmp(sd->outputs[j]->key, "__saved_model_init_op") == 0 && ti &&
          ti->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_NAME) {
        *name = ti->name;
        return 0;
      }
    }
  }
  const Tensorflow__CollectionDef *c = collection(mg, "saved_model_main_op");
  if (!c) c = collection(mg, "legacy_init_op");
  if (!c) return 0;
  if (c->kind_case != TENSORFLOW__COLLECTION_DEF__KIND_NODE_LIST ||
      !c->node_list || c->node_list->n_value != 1) {
    tfs_status_setf(st, TFS_FAILED_PRECONDITION,
                    "Expected exactly one main op in : %s", m->dir);
    return -1;
  }
  *name = c->node_list->value[0];
  return 0;
}

int tfs_sm__restore_and_init(tfs_saved_model *m,
                             const Tensorflow__MetaGraphDef *mg,
                             const tfs_buffer *run_options, tfs_status *st) {
  feeds assets = {0, 0, NULL, NULL};
  const char *init = NULL;
  int rc = asset_feeds(m, mg, &assets, st);
  if (rc == 0) rc = restore(m, mg, &assets, run_options, st);
  if (rc == 0) rc = init_op(m, mg, &init, st);
  if (rc == 0 && init) rc = run_target(m, &assets, init, run_options, st);
  feeds_free(&assets);
  return rc;
}

/*
 * io/saver.c - tf.compat.v1.train.Saver's graph: the save and restore
 * subgraph TensorFlow's BulkSaverBuilder adds for a list of variables
 * (write_version V2), node for node: names, ops, attrs (the
 * _has_manual_control_dependencies marks and colocations Python adds),
 * devices and the order of inputs.  See tfsess/saver.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "io/saver_internal.h"
#include "tfsess/tensor.h"

#define CPU0 "/device:CPU:0"
#define CPU_ANY "/device:CPU:*"

/* ---- options ------------------------------------------------------------- */

tfs_saver_options *tfs_saver_options_new(void) {
  tfs_saver_options *o = tfs_calloc(1, sizeof *o);
  if (!o) return NULL;
  o->max_to_keep = 5;
  o->keep_hours = 10000.0f;
  return o;
}

void tfs_saver_options_free(tfs_saver_options *o) {
  if (!o) return;
  tfs_free(o->name);
  tfs_free(o->filename);
  tfs_free(o);
}

void tfs_saver_options_set_sharded(tfs_saver_options *o, int on) {
  if (o) o->sharded = on != 0;
}

void tfs_saver_options_set_max_to_keep(tfs_saver_options *o, int n) {
  if (o) o->max_to_keep = n < 0 ? 0 : n;
}

void tfs_saver_options_set_keep_every_n_hours(tfs_saver_options *o,
                                              float hours) {
  if (o) o->keep_hours = hours;
}

static void set_str(char **dst, const char *s) {
  tfs_free(*dst);
  *dst = s ? tfs_strdup(s) : NULL;
}

void tfs_saver_options_set_name(tfs_saver_options *o, const char *name) {
  if (o) set_str(&o->name, name);
}

void tfs_saver_options_set_filename(tfs_saver_options *o,
                                    const char *filename) {
  if (o) set_str(&o->filename, filename);
}

/* ---- the variables ------------------------------------------------------- */

typedef struct {
  const char *key;    /* borrowed: the caller's key or the op's name */
  tfs_operation *var; /* VariableV2 / Variable, or the VarHandleOp */
  tfs_output value;   /* what SaveV2 saves */
  tfs_dtype dt;
  int resource;
  int full_shape; /* the variable's shape is fully defined */
} sv_item;

static int is_ref_var(const char *type) {
  return !strcmp(type, "VariableV2") || !strcmp(type, "Variable") ||
         !strcmp(type, "AutoReloadVariable");
}

static tfs_operation *finish(tfs_op_desc *d, tfs_status *st) {
  if (!d) {
    TFS_OOM(st);
    return NULL;
  }
  return tfs_op_desc_finish(d, st);
}

/* A VarHandleOp's ReadVariableOp: NAME/Read/ReadVariableOp, another one
 * reading it, or a new NAME/Read/ReadVariableOp. */
static tfs_operation *read_op(tfs_graph *g, tfs_operation *h,
                              tfs_status *st) {
  char *want = tfs_asprintf("%s/Read/ReadVariableOp", tfs_operation_name(h));
  if (!want) {
    TFS_OOM(st);
    return NULL;
  }
  tfs_operation *r = tfs_graph_operation_by_name(g, want);
  if (r && (strcmp(tfs_operation_op_type(r), "ReadVariableOp") ||
            tfs_operation_input((tfs_input){r, 0}).oper != h))
    r = NULL;
  tfs_output ho = {h, 0};
  int nc = r ? 0 : tfs_operation_output_num_consumers(ho);
  if (nc > 0) {
    tfs_input *cons = tfs_malloc((size_t)nc * sizeof *cons);
    if (!cons) {
      tfs_free(want);
      TFS_OOM(st);
      return NULL;
    }
    nc = tfs_operation_output_consumers(ho, cons, nc);
    for (int i = 0; i < nc && !r; i++)
      if (!strcmp(tfs_operation_op_type(cons[i].oper), "ReadVariableOp"))
        r = cons[i].oper;
    tfs_free(cons);
  }
  if (!r) {
    int taken = tfs_graph_operation_by_name(g, want) != NULL;
    tfs_op_desc *d = tfs_op_desc_new(g, "ReadVariableOp", taken ? NULL : want);
    if (d) {
      tfs_op_desc_add_input(d, ho);
      tfs_op_desc_set_attr_type(d, "dtype",
                                tfs_operation_attr_type(h, "dtype", st));
      const char *dev = tfs_operation_device(h);
      if (dev && *dev) tfs_op_desc_set_device(d, dev);
    }
    r = finish(d, st);
  }
  tfs_free(want);
  return r;
}

static int shape_defined(tfs_operation *op) {
  int64_t dims[TFS_MAX_RANK];
  tfs_status *tmp = tfs_status_new();
  int rank = tfs_operation_attr_shape(op, "shape", dims, TFS_MAX_RANK, tmp);
  int ok = tmp && tfs_status_ok(tmp) && rank >= 0 && rank <= TFS_MAX_RANK;
  for (int d = 0; ok && d < rank; d++)
    if (dims[d] < 0) ok = 0;
  tfs_status_free(tmp);
  return ok;
}

/* Fills `it` for operation `op`; *name gets the name the variable is
 * saved under by default. */
static int resolve(tfs_graph *g, tfs_operation *op, sv_item *it,
                   const char **name, tfs_status *st) {
  const char *type = tfs_operation_op_type(op);
  memset(it, 0, sizeof *it);
  *name = tfs_operation_name(op);
  if (is_ref_var(type)) {
    it->var = op;
    it->value = (tfs_output){op, 0};
    it->dt = tfs_operation_attr_type(op, "dtype", st);
  } else if (!strcmp(type, "VarHandleOp") || !strcmp(type, "ReadVariableOp")) {
    tfs_operation *h = op, *r = op;
    if (!strcmp(type, "ReadVariableOp")) {
      h = tfs_operation_input((tfs_input){op, 0}).oper;
      if (!h || strcmp(tfs_operation_op_type(h), "VarHandleOp")) goto bad;
      *name = tfs_operation_name(h);
    } else {
      r = read_op(g, h, st);
      if (!r) return -1;
    }
    it->var = h;
    it->value = (tfs_output){r, 0};
    it->dt = tfs_operation_attr_type(r, "dtype", st);
    it->resource = 1;
  } else {
    goto bad;
  }
  it->full_shape = shape_defined(it->var);
  return tfs_status_ok(st) ? 0 : -1;
bad:
  tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                  "names_to_saveables must be a dict mapping string names to "
                  "Tensors/Variables. Not a variable: %s (%s)",
                  tfs_operation_name(op), type);
  return -1;
}

static int by_key(const void *a, const void *b) {
  return strcmp(((const sv_item *)a)->key, ((const sv_item *)b)->key);
}

/* The saveables sorted by key, TensorFlow's checks on names and ops. */
static sv_item *collect(tfs_graph *g, const char *const *keys,
                        tfs_operation *const *vars, int n, int *count,
                        tfs_status *st) {
  tfs_operation **all = NULL;
  if (!vars && !keys) { /* every variable of the graph */
    size_t pos = 0, cap = 0;
    n = 0;
    for (tfs_operation *op; (op = tfs_graph_next_operation(g, &pos));) {
      const char *t = tfs_operation_op_type(op);
      if (!is_ref_var(t) && strcmp(t, "VarHandleOp")) continue;
      if (tfs_grow((void **)&all, &cap, (size_t)n + 1, sizeof *all)) {
        tfs_free(all);
        TFS_OOM(st);
        return NULL;
      }
      all[n++] = op;
    }
    vars = all;
  }
  if (n <= 0) {
    tfs_free(all);
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "No variables to save");
    return NULL;
  }
  sv_item *it = tfs_calloc((size_t)n, sizeof *it);
  if (!it) {
    tfs_free(all);
    TFS_OOM(st);
    return NULL;
  }
  int i = 0;
  for (; i < n; i++) {
    const char *name;
    if (!vars[i] || (keys && !keys[i])) {
      tfs_status_set(st, TFS_INVALID_ARGUMENT,
                     "tfs_saver_new: a NULL variable or key");
      break;
    }
    if (resolve(g, vars[i], &it[i], &name, st)) break;
    it[i].key = keys ? keys[i] : name;
  }
  tfs_free(all);
  if (i < n) {
    tfs_free(it);
    return NULL;
  }
  qsort(it, (size_t)n, sizeof *it, by_key);
  for (i = 1; i < n; i++)
    if (!strcmp(it[i].key, it[i - 1].key)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "At least two variables have the same name: %s",
                      it[i].key);
      break;
    }
  for (int a = 0; a < n && tfs_status_ok(st); a++)
    for (int b = a + 1; b < n; b++)
      if (it[a].var == it[b].var) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "The same saveable will be restored with two "
                        "names: %s",
                        it[b].key);
        break;
      }
  if (!tfs_status_ok(st)) {
    tfs_free(it);
    return NULL;
  }
  *count = n;
  return it;
}

/* ---- node helpers -------------------------------------------------------- */

typedef struct {
  tfs_graph *g;
  const char *sc; /* the saver's name scope */
  tfs_status *st;
} sv_ctx;

static int scope_taken(tfs_graph *g, const char *sc) {
  if (tfs_graph_operation_by_name(g, sc)) return 1;
  size_t len = strlen(sc), pos = 0;
  for (tfs_operation *op; (op = tfs_graph_next_operation(g, &pos));) {
    const char *n = tfs_operation_name(op);
    if (!strncmp(n, sc, len) && n[len] == '/') return 1;
  }
  return 0;
}

/* "SC/base", "SC/base_1", ...: the first name no operation has. */
static char *uniq(sv_ctx *c, const char *base) {
  char *n = tfs_asprintf("%s/%s", c->sc, base);
  for (int i = 1; n && scope_taken(c->g, n); i++) {
    tfs_free(n);
    n = tfs_asprintf("%s/%s_%d", c->sc, base, i);
  }
  if (!n) TFS_OOM(c->st);
  return n;
}

static tfs_op_desc *desc(sv_ctx *c, const char *type, const char *name,
                         const char *device) {
  if (!name || !tfs_status_ok(c->st)) return NULL;
  tfs_op_desc *d = tfs_op_desc_new(c->g, type, name);
  if (d && device && *device) tfs_op_desc_set_device(d, device);
  return d;
}

static tfs_operation *done(sv_ctx *c, tfs_op_desc *d) {
  if (!tfs_status_ok(c->st)) {
    tfs_op_desc_free(d);
    return NULL;
  }
  return finish(d, c->st);
}

static void mark_control(tfs_op_desc *d) {
  tfs_op_desc_set_attr_bool(d, "_has_manual_control_dependencies", 1);
}

/* A Const of strings: a scalar (vec 0, n 1) or a vector. */
static tfs_output str_const(sv_ctx *c, const char *name, const char **s,
                            int n, int vec, const char *device) {
  tfs_output none = {NULL, 0};
  tfs_op_desc *d = desc(c, "Const", name, device);
  if (!d) return none;
  int64_t dim = n;
  tfs_tensor *t = tfs_tensor_new_strings(vec ? &dim : NULL, vec, s, NULL,
                                         c->st);
  if (t) tfs_op_desc_set_attr_tensor(d, "value", t, c->st);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_STRING);
  tfs_tensor_free(t);
  tfs_output o = {done(c, d), 0};
  return o;
}

static tfs_output int_const(sv_ctx *c, const char *name, int32_t v,
                            const char *device) {
  tfs_output none = {NULL, 0};
  tfs_op_desc *d = desc(c, "Const", name, device);
  if (!d) return none;
  tfs_tensor *t = tfs_tensor_scalar_int32(v);
  if (t) tfs_op_desc_set_attr_tensor(d, "value", t, c->st);
  else TFS_OOM(c->st);
  tfs_op_desc_set_attr_type(d, "dtype", TFS_INT32);
  tfs_tensor_free(t);
  tfs_output o = {done(c, d), 0};
  return o;
}

/* Const "SC/<op>/<what>" holding the keys or the empty slice specs. */
static tfs_output names_const(sv_ctx *c, const char *op, const char *what,
                              const sv_item *it, int n, const char *device) {
  const char **s = tfs_calloc((size_t)n, sizeof *s);
  char *name = tfs_asprintf("%s/%s", op, what);
  tfs_output o = {NULL, 0};
  if (!s || !name) {
    TFS_OOM(c->st);
  } else {
    int keys = !strcmp(what, "tensor_names");
    for (int i = 0; i < n; i++) s[i] = keys ? it[i].key : "";
    o = str_const(c, name, s, n, 1, device);
  }
  tfs_free(s);
  tfs_free(name);
  return o;
}

static int by_op_name(const void *a, const void *b) {
  return strcmp(tfs_operation_name(*(tfs_operation *const *)a),
                tfs_operation_name(*(tfs_operation *const *)b));
}

/* NoOp `base` with control inputs ops[0..n), in name order as
 * TensorFlow writes them. */
static tfs_operation *group(sv_ctx *c, const char *base, tfs_operation **ops,
                            int n, const char *device, int marked) {
  char *name = uniq(c, base);
  tfs_op_desc *d = desc(c, "NoOp", name, device);
  tfs_free(name);
  if (!d) return NULL;
  qsort(ops, (size_t)n, sizeof *ops, by_op_name);
  for (int i = 0; i < n; i++) tfs_op_desc_add_control_input(d, ops[i]);
  if (marked) mark_control(d);
  return done(c, d);
}

/* ---- saving -------------------------------------------------------------- */

/* SaveV2 of it[0..n) to `prefix` and SC/control_dependency: the prefix
 * once the save ran (BaseSaverBuilder._AddSaveOps). */
static tfs_output add_save(sv_ctx *c, tfs_output prefix, const sv_item *it,
                           int n, const char *device, int marked) {
  tfs_output none = {NULL, 0};
  char *op = uniq(c, "SaveV2");
  if (!op) return none;
  tfs_output names = names_const(c, op, "tensor_names", it, n, device);
  tfs_output specs = names_const(c, op, "shape_and_slices", it, n, device);
  tfs_op_desc *d = desc(c, "SaveV2", op, device);
  tfs_free(op);
  tfs_output *vals = tfs_malloc((size_t)n * sizeof *vals);
  tfs_dtype *dts = tfs_malloc((size_t)n * sizeof *dts);
  if (d && (!vals || !dts)) TFS_OOM(c->st);
  if (d && vals && dts) {
    for (int i = 0; i < n; i++) {
      vals[i] = it[i].value;
      dts[i] = it[i].dt;
    }
    tfs_op_desc_add_input(d, prefix);
    tfs_op_desc_add_input(d, names);
    tfs_op_desc_add_input(d, specs);
    tfs_op_desc_add_input_list(d, vals, n);
    tfs_op_desc_set_attr_type_list(d, "dtypes", dts, n);
    mark_control(d);
  }
  tfs_free(vals);
  tfs_free(dts);
  tfs_operation *save = done(c, d);
  char *cd = uniq(c, "control_dependency");
  d = desc(c, "Identity", cd, device);
  tfs_free(cd);
  if (!d || !save) {
    tfs_op_desc_free(d);
    return none;
  }
  tfs_op_desc_add_input(d, prefix);
  tfs_op_desc_add_control_input(d, save);
  tfs_op_desc_colocate_with(d, prefix.oper);
  tfs_op_desc_set_attr_type(d, "T", TFS_STRING);
  if (marked) mark_control(d);
  tfs_output o = {done(c, d), 0};
  return o;
}

/* ---- restoring ----------------------------------------------------------- */

/* The op restoring one variable from `value`: Assign for a ref variable,
 * Identity + AssignVariableOp for a resource one. */
static tfs_operation *restore_one(sv_ctx *c, const sv_item *it,
                                  tfs_output value, const char *device) {
  if (!it->resource) {
    char *name = uniq(c, "Assign");
    tfs_op_desc *d = desc(c, "Assign", name, device);
    tfs_free(name);
    if (!d) return NULL;
    tfs_op_desc_add_input(d, it->value);
    tfs_op_desc_add_input(d, value);
    tfs_op_desc_set_attr_bool(d, "validate_shape", it->full_shape);
    tfs_op_desc_set_attr_bool(d, "use_locking", 1);
    tfs_op_desc_set_attr_type(d, "T", it->dt);
    tfs_op_desc_colocate_with(d, it->var);
    mark_control(d);
    return done(c, d);
  }
  const char *vdev = tfs_operation_device(it->var);
  if (!vdev || !*vdev) vdev = device;
  char *name = uniq(c, "Identity");
  tfs_op_desc *d = desc(c, "Identity", name, vdev);
  tfs_free(name);
  if (!d) return NULL;
  tfs_op_desc_add_input(d, value);
  tfs_op_desc_set_attr_type(d, "T", it->dt);
  tfs_output id = {done(c, d), 0};
  name = uniq(c, "AssignVariableOp");
  d = desc(c, "AssignVariableOp", name, vdev);
  tfs_free(name);
  if (!d || !id.oper) {
    tfs_op_desc_free(d);
    return NULL;
  }
  tfs_op_desc_add_input(d, (tfs_output){it->var, 0});
  tfs_op_desc_add_input(d, id);
  tfs_op_desc_set_attr_type(d, "dtype", it->dt);
  tfs_op_desc_set_attr_bool(d, "validate_shape", 0);
  mark_control(d);
  return done(c, d);
}

/* One RestoreV2 for it[0..n) on CPU:0, the assignments and the NoOp
 * `name` grouping them (BulkSaverBuilder's _AddRestoreOps). */
static tfs_operation *add_restore(sv_ctx *c, tfs_output prefix,
                                  const sv_item *it, int n,
                                  const char *device, const char *name,
                                  int marked) {
  char *op = uniq(c, "RestoreV2");
  if (!op) return NULL;
  tfs_output names = names_const(c, op, "tensor_names", it, n, CPU0);
  tfs_output specs = names_const(c, op, "shape_and_slices", it, n, CPU0);
  tfs_op_desc *d = desc(c, "RestoreV2", op, CPU0);
  tfs_free(op);
  tfs_dtype *dts = tfs_malloc((size_t)n * sizeof *dts);
  tfs_operation **ops = tfs_malloc((size_t)n * sizeof *ops);
  if (d && (!dts || !ops)) TFS_OOM(c->st);
  if (d && dts && ops) {
    for (int i = 0; i < n; i++) dts[i] = it[i].dt;
    tfs_op_desc_add_input(d, prefix);
    tfs_op_desc_add_input(d, names);
    tfs_op_desc_add_input(d, specs);
    tfs_op_desc_set_attr_type_list(d, "dtypes", dts, n);
  }
  tfs_free(dts);
  tfs_operation *r = done(c, d);
  tfs_operation *g = NULL;
  int i = 0;
  for (; r && ops && i < n; i++) {
    ops[i] = restore_one(c, &it[i], (tfs_output){r, i}, device);
    if (!ops[i]) break;
  }
  if (r && ops && i == n) g = group(c, name, ops, n, device, marked);
  tfs_free(ops);
  return g;
}

/* ---- sharded ------------------------------------------------------------- */

/* saveable_object_util.set_cpu0: the device's job/replica/task with
 * /device:CPU:0.  Caller frees. */
static char *set_cpu0(const char *dev) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  const char *p = dev ? dev : "";
  while (*p) {
    const char *q = strchr(p + 1, '/');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if (!strncmp(p, "/job:", 5) || !strncmp(p, "/replica:", 9) ||
        !strncmp(p, "/task:", 6))
      tfs_strbuf_append(&b, p, len);
    p += len;
  }
  tfs_strbuf_puts(&b, CPU0);
  return tfs_strbuf_take(&b);
}

static const char *item_device(const sv_item *it) {
  const char *d = tfs_operation_device(it->var);
  return d ? d : "";
}

static int by_device(const void *a, const void *b) {
  int r = strcmp(item_device(a), item_device(b));
  return r ? r : by_key(a, b);
}

/* The prefix's temporary "_temp/part" (".part" on S3) form the shards
 * are written under. */
static tfs_output tmp_prefix(sv_ctx *c, tfs_output prefix) {
  tfs_output none = {NULL, 0};
  char *name = uniq(c, "StaticRegexFullMatch");
  tfs_op_desc *d = desc(c, "StaticRegexFullMatch", name, CPU_ANY);
  tfs_free(name);
  if (!d) return none;
  tfs_op_desc_add_input(d, prefix);
  tfs_op_desc_set_attr_string(d, "pattern", "^s3://.*", 8);
  tfs_output cond = {done(c, d), 0};
  const char *part = ".part", *temp = "_temp/part";
  char *n1 = uniq(c, "Const");
  tfs_output a = str_const(c, n1, &part, 1, 0, CPU_ANY);
  tfs_free(n1);
  char *n2 = uniq(c, "Const");
  tfs_output b = str_const(c, n2, &temp, 1, 0, CPU_ANY);
  tfs_free(n2);
  name = uniq(c, "Select");
  d = desc(c, "Select", name, CPU_ANY);
  tfs_free(name);
  if (!d) return none;
  tfs_op_desc_add_input(d, cond);
  tfs_op_desc_add_input(d, a);
  tfs_op_desc_add_input(d, b);
  tfs_op_desc_set_attr_type(d, "T", TFS_STRING);
  tfs_output suffix = {done(c, d), 0};
  name = uniq(c, "StringJoin");
  d = desc(c, "StringJoin", name, CPU_ANY);
  tfs_free(name);
  if (!d) return none;
  tfs_output parts[2] = {prefix, suffix};
  tfs_op_desc_add_input_list(d, parts, 2);
  tfs_op_desc_set_attr_string(d, "separator", "", 0);
  tfs_output o = {done(c, d), 0};
  return o;
}

/* SC/ShardedFilename[_k] for shard `shard`. */
static tfs_output sharded_name(sv_ctx *c, tfs_output tmp, int shard,
                               tfs_output nshards, const char *dev) {
  tfs_output none = {NULL, 0};
  char *op = uniq(c, "ShardedFilename");
  char *sn = op ? tfs_asprintf("%s/shard", op) : NULL;
  if (op && !sn) TFS_OOM(c->st);
  tfs_output s = int_const(c, sn, shard, dev);
  tfs_free(sn);
  tfs_op_desc *d = desc(c, "ShardedFilename", op, dev);
  tfs_free(op);
  if (!d) return none;
  tfs_op_desc_add_input(d, tmp);
  tfs_op_desc_add_input(d, s);
  tfs_op_desc_add_input(d, nshards);
  tfs_output o = {done(c, d), 0};
  return o;
}

/* MergeV2Checkpoints of the shards' prefixes into `prefix` and
 * SC/Identity: the prefix once merged. */
static tfs_output merge(sv_ctx *c, tfs_output prefix, const tfs_output *parts,
                        tfs_operation **saves, int nshards, const char *dev) {
  tfs_output none = {NULL, 0};
  char *op = uniq(c, "MergeV2Checkpoints");
  char *pn = op ? tfs_asprintf("%s/checkpoint_prefixes", op) : NULL;
  if (op && !pn) TFS_OOM(c->st);
  tfs_op_desc *d = desc(c, "Pack", pn, dev);
  tfs_free(pn);
  if (!d) {
    tfs_free(op);
    return none;
  }
  tfs_op_desc_add_input_list(d, parts, nshards);
  qsort(saves, (size_t)nshards, sizeof *saves, by_op_name);
  for (int i = 0; i < nshards; i++) tfs_op_desc_add_control_input(d, saves[i]);
  tfs_op_desc_set_attr_int(d, "axis", 0);
  tfs_output packed = {done(c, d), 0};
  d = desc(c, "MergeV2Checkpoints", op, dev);
  tfs_free(op);
  if (!d) return none;
  tfs_op_desc_add_input(d, packed);
  tfs_op_desc_add_input(d, prefix);
  tfs_op_desc_set_attr_bool(d, "delete_old_dirs", 1);
  tfs_op_desc_set_attr_bool(d, "allow_missing_files", 0);
  mark_control(d);
  tfs_operation *m = done(c, d);
  char *name = uniq(c, "Identity");
  d = desc(c, "Identity", name, dev);
  tfs_free(name);
  if (!d) return none;
  tfs_op_desc_add_input(d, prefix);
  tfs_operation **deps = tfs_malloc((size_t)(nshards + 1) * sizeof *deps);
  if (!deps || !m) {
    if (!deps) TFS_OOM(c->st);
    tfs_free(deps);
    tfs_op_desc_free(d);
    return none;
  }
  deps[0] = m;
  memcpy(deps + 1, saves, (size_t)nshards * sizeof *deps);
  qsort(deps, (size_t)nshards + 1, sizeof *deps, by_op_name);
  for (int i = 0; i <= nshards; i++) tfs_op_desc_add_control_input(d, deps[i]);
  tfs_free(deps);
  tfs_op_desc_set_attr_type(d, "T", TFS_STRING);
  tfs_output o = {done(c, d), 0};
  return o;
}

/* The sharded save and restore: one shard per device, sorted by device
 * (_AddShardedSaveOpsForV2, _AddShardedRestoreOps). */
static int add_sharded(sv_ctx *c, tfs_output prefix, sv_item *it, int n,
                       tfs_output *saved, tfs_operation **restored) {
  qsort(it, (size_t)n, sizeof *it, by_device);
  int nshards = 0;
  for (int i = 0; i < n; i++)
    if (!i || strcmp(item_device(&it[i]), item_device(&it[i - 1])))
      nshards++;
  tfs_output tmp = tmp_prefix(c, prefix);
  char *nsname = uniq(c, "num_shards");
  tfs_output ns = int_const(c, nsname, nshards, NULL);
  tfs_free(nsname);
  tfs_output *parts = tfs_calloc((size_t)nshards, sizeof *parts);
  tfs_operation **saves = tfs_calloc((size_t)nshards, sizeof *saves);
  tfs_operation **shards = tfs_calloc((size_t)nshards, sizeof *shards);
  if (!parts || !saves || !shards) TFS_OOM(c->st);
  char *last = NULL;
  for (int s = 0, i = 0; tfs_status_ok(c->st) && s < nshards; s++) {
    int j = i + 1;
    while (j < n && !strcmp(item_device(&it[j]), item_device(&it[i]))) j++;
    tfs_free(last);
    last = set_cpu0(item_device(&it[i]));
    parts[s] = sharded_name(c, tmp, s, ns, last);
    tfs_output cd = add_save(c, parts[s], it + i, j - i, last, 1);
    saves[s] = cd.oper;
    i = j;
  }
  if (tfs_status_ok(c->st)) *saved = merge(c, prefix, parts, saves, nshards,
                                           last);
  for (int s = 0, i = 0; tfs_status_ok(c->st) && s < nshards; s++) {
    int j = i + 1;
    while (j < n && !strcmp(item_device(&it[j]), item_device(&it[i]))) j++;
    shards[s] = add_restore(c, prefix, it + i, j - i, item_device(&it[i]),
                            "restore_shard", 1);
    i = j;
  }
  if (tfs_status_ok(c->st))
    *restored = group(c, "restore_all", shards, nshards, NULL, 0);
  tfs_free(last);
  tfs_free(parts);
  tfs_free(saves);
  tfs_free(shards);
  return tfs_status_ok(c->st) ? 0 : -1;
}

/* ---- the saver ----------------------------------------------------------- */

/* SC/filename/input, SC/filename and SC/Const: the prefix fed to save
 * and restore, "model" by default. */
static tfs_output prefix_nodes(sv_ctx *c, const char *filename) {
  tfs_output none = {NULL, 0};
  char *fname = uniq(c, "filename");
  char *in = fname ? tfs_asprintf("%s/input", fname) : NULL;
  if (fname && !in) TFS_OOM(c->st);
  tfs_output prev = str_const(c, in, &filename, 1, 0, NULL);
  tfs_free(in);
  for (int k = 0; k < 2; k++) {
    char *name = k ? uniq(c, "Const") : fname;
    tfs_op_desc *d = desc(c, "PlaceholderWithDefault", name, NULL);
    tfs_free(name);
    if (!d) return none;
    tfs_op_desc_add_input(d, prev);
    tfs_op_desc_set_attr_shape(d, "shape", NULL, 0);
    tfs_op_desc_set_attr_type(d, "dtype", TFS_STRING);
    prev = (tfs_output){done(c, d), 0};
  }
  return prev;
}

static char *scope_name(tfs_graph *g, const char *base) {
  char *n = tfs_strdup(base);
  for (int i = 1; n && scope_taken(g, n); i++) {
    tfs_free(n);
    n = tfs_asprintf("%s_%d", base, i);
  }
  return n;
}

static tfs_saver *build(tfs_graph *g, const char *const *keys,
                        tfs_operation *const *vars, int n,
                        const tfs_saver_options *opts, tfs_status *st) {
  TFS_CHECK_ARG(g != NULL && n >= 0, st, NULL);
  tfs_saver_options defaults = {0, 5, 10000.0f, NULL, NULL};
  const tfs_saver_options *o = opts ? opts : &defaults;
  int count = 0;
  sv_item *it = collect(g, keys, vars, n, &count, st);
  if (!it) return NULL;
  char *sc = scope_name(g, o->name && *o->name ? o->name : "save");
  tfs_saver *s = tfs_calloc(1, sizeof *s);
  if (!sc || !s) {
    TFS_OOM(st);
    goto fail;
  }
  sv_ctx c = {g, sc, st};
  tfs_output prefix =
      prefix_nodes(&c, o->filename ? o->filename : "model");
  tfs_output saved = {NULL, 0};
  tfs_operation *restored = NULL;
  if (!tfs_status_ok(st)) goto fail;
  if (o->sharded) {
    if (add_sharded(&c, prefix, it, count, &saved, &restored)) goto fail;
  } else {
    saved = add_save(&c, prefix, it, count, NULL, 0);
    if (saved.oper)
      restored = add_restore(&c, prefix, it, count, NULL, "restore_all", 0);
  }
  if (!tfs_status_ok(st)) goto fail;
  s->g = g;
  s->filename_tensor = tfs_asprintf("%s:0", tfs_operation_name(prefix.oper));
  s->save_tensor = tfs_asprintf("%s:0", tfs_operation_name(saved.oper));
  s->restore_op = tfs_strdup(tfs_operation_name(restored));
  s->sharded = o->sharded;
  s->max_to_keep = o->max_to_keep;
  s->keep_hours = o->keep_hours;
  s->next_keep_time = tfs_saver__now() + (double)o->keep_hours * 3600.0;
  if (!s->filename_tensor || !s->save_tensor || !s->restore_op) {
    TFS_OOM(st);
    goto fail;
  }
  tfs_free(sc);
  tfs_free(it);
  return s;
fail:
  tfs_saver_free(s);
  tfs_free(sc);
  tfs_free(it);
  return NULL;
}

tfs_saver *tfs_saver_new(tfs_graph *g, tfs_operation *const *vars, int n,
                         const tfs_saver_options *opts, tfs_status *st) {
  TFS_CHECK_ARG(vars != NULL || n == 0, st, NULL);
  return build(g, NULL, vars, n, opts, st);
}

tfs_saver *tfs_saver_new_keyed(tfs_graph *g, const char *const *keys,
                               tfs_operation *const *vars, int n,
                               const tfs_saver_options *opts,
                               tfs_status *st) {
  TFS_CHECK_ARG(keys != NULL && vars != NULL, st, NULL);
  return build(g, keys, vars, n, opts, st);
}

void tfs_saver_free(tfs_saver *s) {
  if (!s) return;
  tfs_free(s->filename_tensor);
  tfs_free(s->save_tensor);
  tfs_free(s->restore_op);
  for (int i = 0; i < s->nlast; i++) tfs_free(s->last[i].path);
  for (int i = 0; i < s->ndoomed; i++) tfs_free(s->doomed[i].path);
  tfs_free(s->last);
  tfs_free(s->doomed);
  tfs_free(s);
}

/* ---- SaverDef ------------------------------------------------------------ */

const char *tfs_saver_filename_tensor_name(const tfs_saver *s) {
  return s ? s->filename_tensor : NULL;
}
const char *tfs_saver_save_tensor_name(const tfs_saver *s) {
  return s ? s->save_tensor : NULL;
}
const char *tfs_saver_restore_op_name(const tfs_saver *s) {
  return s ? s->restore_op : NULL;
}
int tfs_saver_max_to_keep(const tfs_saver *s) { return s ? s->max_to_keep : 0; }
int tfs_saver_sharded(const tfs_saver *s) { return s ? s->sharded : 0; }
float tfs_saver_keep_every_n_hours(const tfs_saver *s) {
  return s ? s->keep_hours : 0.0f;
}
int tfs_saver_version(const tfs_saver *s) { return s ? 2 : 0; }

static void put_varint(tfs_strbuf *b, uint64_t v) {
  while (v >= 0x80) {
    tfs_strbuf_putc(b, (char)(v | 0x80));
    v >>= 7;
  }
  tfs_strbuf_putc(b, (char)v);
}

static void put_str(tfs_strbuf *b, int field, const char *s) {
  size_t n = strlen(s);
  if (!n) return;
  put_varint(b, (uint64_t)field << 3 | 2);
  put_varint(b, n);
  tfs_strbuf_append(b, s, n);
}

static void free_data(void *data, size_t len) {
  (void)len;
  free(data);
}

void tfs_saver_to_saver_def(const tfs_saver *s, tfs_buffer *out,
                            tfs_status *st) {
  TFS_CHECK_ARG(s != NULL && out != NULL && out->data == NULL, st, );
  tfs_strbuf b = TFS_STRBUF_INIT;
  put_str(&b, 1, s->filename_tensor);
  put_str(&b, 2, s->save_tensor);
  put_str(&b, 3, s->restore_op);
  if (s->max_to_keep) {
    put_varint(&b, 4 << 3);
    put_varint(&b, (uint64_t)(int64_t)s->max_to_keep);
  }
  if (s->sharded) {
    put_varint(&b, 5 << 3);
    put_varint(&b, 1);
  }
  if (s->keep_hours != 0.0f) {
    uint32_t bits;
    memcpy(&bits, &s->keep_hours, 4);
    put_varint(&b, 6 << 3 | 5);
    for (int i = 0; i < 4; i++) tfs_strbuf_putc(&b, (char)(bits >> (8 * i)));
  }
  put_varint(&b, 7 << 3);
  put_varint(&b, 2);
  size_t len = b.len;
  char *bytes = tfs_strbuf_take(&b);
  if (!bytes) {
    TFS_OOM(st);
    return;
  }
  void *copy = malloc(len ? len : 1);
  if (!copy) {
    tfs_free(bytes);
    TFS_OOM(st);
    return;
  }
  memcpy(copy, bytes, len);
  tfs_free(bytes);
  out->data = copy;
  out->length = len;
  out->data_deallocator = free_data;
}

/*
 * graph_builder/import_options.c - GraphDef import options and results
 * (TF_ImportGraphDefOptions / TF_ImportGraphDefResults): plain records
 * that graphdef_import.c reads and fills.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "graph_builder/graphdef_import.h"

tfs_import_options *tfs_import_options_new(void) {
  return tfs_calloc(1, sizeof(tfs_import_options));
}

void tfs_import_options_free(tfs_import_options *o) {
  if (!o) return;
  tfs_free(o->prefix);
  tfs_free(o->default_device);
  for (int i = 0; i < o->nmap; i++) tfs_free(o->map[i].src_name);
  tfs_free(o->map);
  tfs_free(o->deps);
  for (int i = 0; i < o->nret_out; i++) tfs_free(o->ret_out[i].name);
  tfs_free(o->ret_out);
  for (int i = 0; i < o->nret_ops; i++) tfs_free(o->ret_ops[i]);
  tfs_free(o->ret_ops);
  tfs_free(o);
}

static void set_str(tfs_import_options *o, char **dst, const char *s) {
  char *c = tfs_strdup(s ? s : "");
  if (!c) {
    o->oom = 1;
    return;
  }
  tfs_free(*dst);
  *dst = c;
}

void tfs_import_options_set_prefix(tfs_import_options *o,
                                   const char *prefix) {
  if (o) set_str(o, &o->prefix, prefix);
}

void tfs_import_options_set_default_device(tfs_import_options *o,
                                           const char *device) {
  if (o) set_str(o, &o->default_device, device);
}

void tfs_import_options_set_uniquify_names(tfs_import_options *o,
                                           int uniquify) {
  if (o) o->uniquify_names = uniquify != 0;
}

void tfs_import_options_set_uniquify_prefix(tfs_import_options *o,
                                            int uniquify) {
  if (o) o->uniquify_prefix = uniquify != 0;
}

void tfs_import_options_set_max_nesting(tfs_import_options *o, int depth) {
  if (o) o->max_nesting = depth;
}

void tfs_import_options_set_max_nodes(tfs_import_options *o, int64_t nodes) {
  if (o) o->max_nodes = nodes > 0 ? nodes : 0;
}

/* Adds or replaces (a later mapping of the same key wins, as in
 * TensorFlow's input_map). */
static void add_mapping(tfs_import_options *o, const char *src, int idx,
                        tfs_output dst) {
  if (!src) src = "";
  for (int i = 0; i < o->nmap; i++) {
    if (o->map[i].src_index == idx && strcmp(o->map[i].src_name, src) == 0) {
      o->map[i].dst = dst;
      return;
    }
  }
  size_t cap = (size_t)o->mapcap;
  char *name = tfs_strdup(src);
  if (!name || tfs_grow((void **)&o->map, &cap, (size_t)o->nmap + 1,
                        sizeof(*o->map))) {
    tfs_free(name);
    o->oom = 1;
    return;
  }
  o->mapcap = (int)cap;
  o->map[o->nmap].src_name = name;
  o->map[o->nmap].src_index = idx;
  o->map[o->nmap].dst = dst;
  o->nmap++;
}

void tfs_import_options_add_input_mapping(tfs_import_options *o,
                                          const char *src_name,
                                          int src_index, tfs_output dst) {
  if (o) add_mapping(o, src_name, src_index < 0 ? -1 : src_index, dst);
}

void tfs_import_options_remap_control_dependency(tfs_import_options *o,
                                                 const char *src_name,
                                                 tfs_operation *dst) {
  tfs_output d = {dst, -1};
  if (o) add_mapping(o, src_name, -1, d);
}

void tfs_import_options_add_control_dependency(tfs_import_options *o,
                                               tfs_operation *op) {
  if (!o) return;
  size_t cap = (size_t)o->depcap;
  if (tfs_grow((void **)&o->deps, &cap, (size_t)o->ndeps + 1,
               sizeof(*o->deps))) {
    o->oom = 1;
    return;
  }
  o->depcap = (int)cap;
  o->deps[o->ndeps++] = op;
}

void tfs_import_options_add_return_output(tfs_import_options *o,
                                          const char *oper_name, int index) {
  if (!o) return;
  size_t cap = (size_t)o->ret_out_cap;
  char *name = tfs_strdup(oper_name ? oper_name : "");
  if (!name || tfs_grow((void **)&o->ret_out, &cap, (size_t)o->nret_out + 1,
                        sizeof(*o->ret_out))) {
    tfs_free(name);
    o->oom = 1;
    return;
  }
  o->ret_out_cap = (int)cap;
  o->ret_out[o->nret_out].name = name;
  o->ret_out[o->nret_out].index = index;
  o->nret_out++;
}

int tfs_import_options_num_return_outputs(const tfs_import_options *o) {
  return o ? o->nret_out : 0;
}

void tfs_import_options_add_return_operation(tfs_import_options *o,
                                             const char *oper_name) {
  if (!o) return;
  size_t cap = (size_t)o->ret_ops_cap;
  char *name = tfs_strdup(oper_name ? oper_name : "");
  if (!name || tfs_grow((void **)&o->ret_ops, &cap, (size_t)o->nret_ops + 1,
                        sizeof(*o->ret_ops))) {
    tfs_free(name);
    o->oom = 1;
    return;
  }
  o->ret_ops_cap = (int)cap;
  o->ret_ops[o->nret_ops++] = name;
}

int tfs_import_options_num_return_operations(const tfs_import_options *o) {
  return o ? o->nret_ops : 0;
}

/* ---- results ------------------------------------------------------------- */

void tfs_import_results_return_outputs(tfs_import_results *r, int *n,
                                       tfs_output **outputs) {
  if (n) *n = r ? r->nout : 0;
  if (outputs) *outputs = r ? r->outputs : NULL;
}

void tfs_import_results_return_operations(tfs_import_results *r, int *n,
                                          tfs_operation ***opers) {
  if (n) *n = r ? r->nops : 0;
  if (opers) *opers = r ? r->ops : NULL;
}

void tfs_import_results_missing_unused_input_mappings(
    tfs_import_results *r, int *n, const char ***src_names,
    int **src_indexes) {
  if (n) *n = r ? r->nmissing : 0;
  if (src_names) *src_names = r ? (const char **)r->missing_names : NULL;
  if (src_indexes) *src_indexes = r ? r->missing_idx : NULL;
}

void tfs_import_results_free(tfs_import_results *r) {
  if (!r) return;
  tfs_free(r->outputs);
  tfs_free(r->ops);
  for (int i = 0; i < r->nmissing; i++) tfs_free(r->missing_names[i]);
  tfs_free(r->missing_names);
  tfs_free(r->missing_idx);
  tfs_free(r);
}

/*
 * device/placer_msg.c - the placer's error messages in TensorFlow's
 * wording (colocation_graph.cc, placer.cc): the colocation debug info, the
 * registered-kernels listing, and the explicit-request failures.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "device/placer_internal.h"
#include "tfs_config.h"

/* "CPU GPU " for the types in `mask`, by priority. */
static void put_types(tfs_strbuf *b, const tfs_placer *p, unsigned mask,
                      const char *sep, int trailing) {
  int first = 1;
  for (int t = 0; t < p->ntypes; t++) {
    if (!(mask >> t & 1)) continue;
    if (!first && !trailing) tfs_strbuf_puts(b, sep);
    tfs_strbuf_puts(b, p->types[t]->name);
    if (trailing) tfs_strbuf_puts(b, sep);
    first = 0;
  }
}

static int device_index(const tfs_placer *p, const tfs_device *d) {
  for (int i = 0; d && i < p->ds->n; i++)
    if (p->ds->devices[i] == d) return i;
  return -1;
}

/* Member::DebugString (TensorFlow leaves the parenthesis open). */
static void put_member(tfs_strbuf *b, const tfs_placer *p,
                       const tfs_member *m) {
  char req[TFS_DEVICE_NAME_MAX], res[TFS_DEVICE_NAME_MAX];
  tfs_strbuf_printf(b,
                    "Member(assigned_device_name_index_=%d "
                    "requested_device_name_='%s' assigned_device_name_='%s' "
                    "resource_device_name_='%s' supported_device_types_=[",
                    device_index(p, m->assigned),
                    tfs_device_name__str(&m->requested, req, sizeof req),
                    m->assigned ? m->assigned->name : "",
                    tfs_device_name__str(&m->resource, res, sizeof res));
  put_types(b, p, m->supported, ", ", 0);
  tfs_strbuf_puts(b, "] possible_devices_=[]");
}

char *tfs_placer__debug_info(tfs_placer *p, int root) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_puts(&b, "\nColocation Debug Info:\nColocation group had the "
                      "following types and supported devices: \nRoot ");
  put_member(&b, p, &p->m[root]);
  /* one line per op type, in the order the members come */
  for (int k = 0; k < p->n; k++) {
    int i = p->order[k];
    if (tfs_placer__root(p, i) != root) continue;
    const char *type = p->nodes[i]->def->name;
    int seen = 0;
    for (int j = 0; j < k && !seen; j++) {
      int o = p->order[j];
      seen = tfs_placer__root(p, o) == root &&
             strcmp(p->nodes[o]->def->name, type) == 0;
    }
    if (seen) continue;
    tfs_strbuf_printf(&b, "\n%s: ", type);
    put_types(&b, p, tfs_placer__supported_types(p, p->nodes[i]), " ", 1);
  }
  tfs_strbuf_puts(&b, "\n\nColocation members, user-requested devices, and "
                      "framework assigned devices, if any:");
  for (int k = 0; k < p->n; k++) {
    int i = p->order[k];
    if (tfs_placer__root(p, i) != root) continue;
    const tfs_operation *op = p->nodes[i];
    tfs_strbuf_printf(&b, "\n  %s (%s) %s", op->name, op->def->name,
                      op->device ? op->device : "");
    if (p->out && p->out[i])
      tfs_strbuf_printf(&b, " framework assigned device=%s",
                        p->out[i]->name);
  }
  tfs_strbuf_putc(&b, '\n');
  return tfs_strbuf_take(&b);
}

/* KernelsRegisteredForOp: "  device='CPU'; T in [DT_FLOAT, DT_DOUBLE]\n"
 * per kernel, or "  <no registered kernels>\n". */
static void put_kernels(tfs_strbuf *b, const tfs_op_def *op) {
  int n = 0, any = 0;
  const tfs_kernel_def *const *all = tfs_kernel_all(&n);
  for (int i = 0; i < n; i++) {
    const tfs_kernel_def *k = all[i];
    if (strcmp(k->op, op->name) != 0) continue;
    any = 1;
    tfs_strbuf_printf(b, "  device='%s'", k->device);
    if (k->type_attr && k->types) {
      tfs_strbuf_printf(b, "; %s in [", k->type_attr);
      int first = 1;
      for (int d = 1; d < 64; d++) {
        if (!(k->types & TFS_DT_BIT(d)) || !tfs_dtype_is_valid((tfs_dtype)d))
          continue;
        tfs_strbuf_printf(b, "%s%s", first ? "" : ", ",
                          tfs_dtype_enum_name((tfs_dtype)d));
        first = 0;
      }
      tfs_strbuf_putc(b, ']');
    }
    tfs_strbuf_putc(b, '\n');
  }
  if (!any) tfs_strbuf_puts(b, "  <no registered kernels>\n");
}

/* "T=DT_FLOAT, transpose_a=false" (every attr, sorted by name). */
static void put_attrs(tfs_strbuf *b, const tfs_attrs *a) {
  for (int i = 0; i < a->n; i++) {
    tfs_strbuf_printf(b, "%s%s=", i ? ", " : "", a->e[i].name);
    tfs_attr_value_summary(b, &a->e[i].value);
  }
}

static int fail_with(tfs_strbuf *b, tfs_status *st) {
  const char *m = tfs_strbuf_str(b);
  tfs_status_set(st, TFS_INVALID_ARGUMENT, m ? m : "out of memory");
  tfs_strbuf_free(b);
  return -1;
}

int tfs_placer__no_kernel_error(tfs_placer *p, const tfs_operation *op,
                                tfs_status *st) {
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "No OpKernel was registered to support Op '%s' used "
                    "by {{node %s}} with these attrs: [", op->def->name,
                    op->name);
  put_attrs(&b, &op->attrs);
  char *types = tfs_device_set__type_list(p->ds);
  tfs_strbuf_printf(&b, "]\nRegistered devices: %s\nRegistered kernels:\n",
                    types ? types : "[]");
  tfs_free(types);
  put_kernels(&b, op->def);
  tfs_strbuf_printf(&b, "\n\t [[{{node %s}}]]", op->name);
  return fail_with(&b, st);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "{{node a}} was explicitly assigned to X but available devices are
 * [ ... ]. Make sure the device specification refers to a valid device." */
static void put_no_such_device(tfs_strbuf *b, const tfs_placer *p,
                               const tfs_operation *op,
                               const tfs_device_name *spec) {
  const char **names = tfs_malloc(sizeof(char *) * (size_t)(p->ds->n + 1));
  int n = 0;
  for (int i = 0; names && i < p->ds->n; i++)
    names[n++] = p->ds->devices[i]->name;
  if (names) qsort(names, (size_t)n, sizeof(char *), cmp_str);
  tfs_strbuf_printf(b, "{{node %s}} was explicitly assigned to %s but "
                    "available devices are [ ", op->name, op->device);
  for (int i = 0; i < n; i++)
    tfs_strbuf_printf(b, "%s%s", i ? ", " : "", names[i]);
  tfs_strbuf_puts(b, " ]. Make sure the device specification refers to a "
                     "valid device.");
#ifndef TFS_HAVE_CUDA
  if (spec->has_type && strcasecmp(spec->type, "gpu") == 0)
    tfs_strbuf_puts(b, " The requested device appears to be a GPU, but "
                       "CUDA is not enabled.");
#else
  (void)spec;
#endif
  tfs_free(names);
}

int tfs_placer__unsatisfiable_error(tfs_placer *p, int i, int root,
                                    tfs_status *st) {
  const tfs_operation *op = p->nodes[i];
  const tfs_member *r = &p->m[root];
  char *dbg = tfs_placer__debug_info(p, root);
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_device_name own;
  int own_ok = op->device && tfs_device_name__parse(op->device, &own) == 0;
  if (own_ok && tfs_device_name__equal(&own, &r->requested)) {
    int matching = 0;
    for (int k = 0; k < p->ds->n; k++)
      matching += tfs_device_name__matches(&own, &p->ds->devices[k]->parsed);
    if (!matching) {
      put_no_such_device(&b, p, op, &own);
    } else if (own.has_type) {
      tfs_strbuf_printf(&b, "Could not satisfy explicit device specification "
                        "'%s' because no supported kernel for %s devices is "
                        "available.%s\nOp: %s\nNode attrs: ", op->device,
                        own.type, dbg ? dbg : "", op->def->name);
      put_attrs(&b, &op->attrs);
      tfs_strbuf_puts(&b, "\nRegistered kernels:\n");
      put_kernels(&b, op->def);
    } else {
      tfs_strbuf_printf(&b, "Could not satisfy explicit device specification "
                        "'%s%s", op->device, dbg ? dbg : "");
    }
  } else {
    char merged[TFS_DEVICE_NAME_MAX];
    tfs_strbuf_printf(&b, "Could not satisfy explicit device specification "
                      "'%s' because the node {{colocation_node %s}} was "
                      "colocated with a group of nodes that required "
                      "incompatible device '%s'. All available devices [",
                      op->device ? op->device : "", op->name,
                      tfs_device_name__str(&r->requested, merged,
                                           sizeof merged));
    for (int k = 0; k < p->ds->n; k++)
      tfs_strbuf_printf(&b, "%s%s", k ? ", " : "", p->ds->devices[k]->name);
    tfs_strbuf_printf(&b, "]. %s", dbg ? dbg : "");
  }
  tfs_free(dbg);
  return fail_with(&b, st);
}

int tfs_placer__no_device_error(tfs_placer *p, int i, int root,
                                tfs_status *st) {
  const tfs_operation *op = p->nodes[i];
  char *dbg = tfs_placer__debug_info(p, root);
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "Node had no OpKernel registered to support this "
                    "operation: Operation was %s and inputs were [",
                    op->def->name);
  for (int k = 0; k < op->ninputs; k++)
    tfs_strbuf_printf(&b, "%s%s", k ? ", " : "",
                      tfs_dtype_name(op->in_types[k]));
  tfs_strbuf_printf(&b, "].\n%s", dbg ? dbg : "");
  tfs_free(dbg);
  return fail_with(&b, st);
}

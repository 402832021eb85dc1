/*
 * device/placer.c - assigns a device to every node of a plan, as
 * TensorFlow's Placer and ColocationGraph do: colocation groups (union-find
 * over `_class` "loc:@x" and ref/resource edges) with merged device
 * requests and the device types that support every member, then one
 * device per group, soft placement, the generator and metadata heuristics
 * and the placement log.  Messages: placer_msg.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/hashmap.h"
#include "core/log.h"
#include "core/status.h"
#include "device/placer_internal.h"

/* ---- union-find ------------------------------------------------------------ */

int tfs_placer__root(tfs_placer *p, int i) {
  while (p->m[i].parent != i) {
    p->m[i].parent = p->m[p->m[i].parent].parent;
    i = p->m[i].parent;
  }
  return i;
}

/* TensorFlow's Member::Merge: the shallower tree goes under the deeper;
 * on a tie x's root wins.  Returns the new root. */
static int merge_roots(tfs_placer *p, int xr, int yr, int dry_run,
                       int *old_root) {
  tfs_member *x = &p->m[xr], *y = &p->m[yr];
  int nr, orr;
  if (x->rank < y->rank) {
    nr = yr;
    orr = xr;
    if (!dry_run) x->parent = yr;
  } else if (x->rank > y->rank) {
    nr = xr;
    orr = yr;
    if (!dry_run) y->parent = xr;
  } else {
    nr = xr;
    orr = yr;
    if (!dry_run) {
      y->parent = xr;
      x->rank++;
    }
  }
  *old_root = orr;
  return nr;
}

/* Merges the groups of nodes x and y (ColocationGraph::ColocateNodes).
 * Nothing changes on failure. */
int tfs_placer__colocate(tfs_placer *p, int x, int y, tfs_status *st) {
  int xr = tfs_placer__root(p, x), yr = tfs_placer__root(p, y);
  if (xr == yr) return 0;
  int orr, nr = merge_roots(p, xr, yr, 1, &orr);
  tfs_member *n = &p->m[nr], *o = &p->m[orr];
  tfs_device_name res = n->resource, req = n->requested;
  if (tfs_device_name__merge(&res, &o->resource, 0, st) ||
      tfs_device_name__merge(&req, &o->requested, p->soft, st)) {
    tfs_status_prependf(st, "Cannot colocate nodes {{colocation_node %s}} "
                        "and {{colocation_node %s}}: ",
                        p->nodes[x]->name, p->nodes[y]->name);
    return -1;
  }
  tfs_device_name__ensure(&req, &res);
  unsigned both = n->supported & o->supported;
  if (!both) {
    char *dx = tfs_placer__debug_info(p, xr), *dy = tfs_placer__debug_info(p, yr);
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot colocate nodes {{colocation_node %s}} and "
                    "{{colocation_node %s}} because no device type supports "
                    "both of those nodes and the other nodes colocated with "
                    "them.%s%s", p->nodes[x]->name, p->nodes[y]->name,
                    dx ? dx : "", dy ? dy : "");
    tfs_free(dx);
    tfs_free(dy);
    return -1;
  }
  n->resource = res;
  n->requested = req;
  n->supported = both;
  merge_roots(p, xr, yr, 0, &orr);
  return 0;
}

/* ---- initialisation ----------------------------------------------------- */

/* The distinct device types of the set by priority (then name). */
static void collect_types(tfs_placer *p) {
  for (int i = 0; i < p->ds->n; i++) {
    tfs_device *d = p->ds->devices[i];
    int t = 0;
    while (t < p->ntypes && p->types[t] != d->type) t++;
    if (t == p->ntypes && p->ntypes < TFS_PLACER_MAX_TYPES) {
      p->types[p->ntypes] = d->type;
      p->type_dev[p->ntypes++] = d;
    }
  }
  for (int i = 1; i < p->ntypes; i++) { /* insertion sort */
    for (int j = i; j > 0; j--) {
      const tfs_device_type *a = p->types[j - 1], *b = p->types[j];
      if (a->priority > b->priority ||
          (a->priority == b->priority && strcmp(a->name, b->name) <= 0))
        break;
      p->types[j - 1] = b;
      p->types[j] = a;
      tfs_device *td = p->type_dev[j - 1];
      p->type_dev[j - 1] = p->type_dev[j];
      p->type_dev[j] = td;
    }
  }
}

unsigned tfs_placer__supported_types(tfs_placer *p,
                                     const tfs_operation *op) {
  unsigned mask = 0;
  for (int t = 0; t < p->ntypes; t++)
    if (tfs_device__supports(p->type_dev[t], op->def, &op->attrs))
      mask |= 1u << t;
  return mask;
}

static int ref_or_resource(tfs_dtype dt) {
  return tfs_dtype_is_ref(dt) || dt == TFS_RESOURCE;
}

/* A node with no inputs whose one output is a ref or a resource
 * (VariableV2, VarHandleOp): its request is a resource device, which
 * colocated readers do not override. */
static int resource_generator(const tfs_operation *op) {
  return op->ninputs == 0 && op->noutputs == 1 &&
         ref_or_resource(op->out_types[0]);
}

static int init_member(tfs_placer *p, int i, tfs_status *st) {
  tfs_operation *op = p->nodes[i];
  tfs_member *m = &p->m[i];
  m->parent = i;
  m->supported = tfs_placer__supported_types(p, op);
  if (!m->supported) return tfs_placer__no_kernel_error(p, op, st);
  if (!op->device || !op->device[0]) return 0;
  tfs_device_name parsed;
  if (tfs_device_name__parse(op->device, &parsed)) {
    char *def = tfs_graph__summarize_node(op);
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Malformed device specification '%s' in node: "
                    "{name:'%s' id:%d op device:{requested: '%s', "
                    "assigned: ''} def:{%s}}\n\t [[{{node %s}}]]",
                    op->device, op->name, op->id, op->device,
                    def ? def : "", op->name);
    tfs_free(def);
    return -1;
  }
  m->requested = parsed;
  if (resource_generator(op)) m->resource = parsed;
  return 0;
}

/* TensorFlow's ops that forward resources without reading them. */
static int exempt_from_resource_colocation(const tfs_operation *op) {
  static const char *const kExempt[] = {
      "IdentityN", "If", "While", "StatelessIf", "StatelessWhile",
      "PartitionedCall", "StatefulPartitionedCall", NULL};
  for (int i = 0; kExempt[i]; i++)
    if (strcmp(op->def->name, kExempt[i]) == 0) return 1;
  return 0;
}

/* Ref and resource edges join their ends; the reader's request yields to
 * the source's (EnsureCompatibilityAcrossResourceEdge). */
static int colocate_resource_edge(tfs_placer *p, int src, int dst,
                                  tfs_status *st) {
  tfs_member *sr = &p->m[tfs_placer__root(p, src)];
  tfs_member *dr = &p->m[tfs_placer__root(p, dst)];
  char a[TFS_DEVICE_NAME_MAX], b[TFS_DEVICE_NAME_MAX];
  if (!tfs_device_name__compatible(&sr->resource, &dr->resource)) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Cannot place the graph because a reference or resource "
                    "edge connects colocation groups with incompatible "
                    "resource devices: %s vs %s. The edge src node is %s , "
                    "and the dst node is %s",
                    tfs_device_name__str(&sr->resource, a, sizeof a),
                    tfs_device_name__str(&dr->resource, b, sizeof b),
                    p->nodes[src]->name, p->nodes[dst]->name);
    return -1;
  }
  if (!tfs_device_name__compatible(&sr->requested, &dr->requested)) {
    if (p->opts->log_device_placement)
      tfs_log(TFS_LOG_INFO,
              "Ignoring device specification %s for node '%s' because the "
              "input edge from '%s' is a reference connection and already "
              "has a device field set to %s",
              tfs_device_name__str(&dr->requested, a, sizeof a),
              p->nodes[dst]->name, p->nodes[src]->name,
              tfs_device_name__str(&sr->requested, b, sizeof b));
    dr->requested = sr->requested;
    tfs_device_name__ensure(&dr->requested, &dr->resource);
  }
  if (tfs_placer__colocate(p, src, dst, st)) {
    tfs_status_prependf(st, "Nodes were connected by a reference connection "
                        "(requiring them to be on the same device), but the "
                        "two nodes were assigned two different devices: ");
    tfs_status_appendf(st, "\n\t [[{{node %s}}]]", p->nodes[dst]->name);
    return -1;
  }
  return 0;
}

static int colocate_resource_edges(tfs_placer *p, tfs_status *st) {
  for (int i = 0; i < p->n; i++) {
    tfs_operation *op = p->nodes[i];
    if (exempt_from_resource_colocation(op)) continue;
    for (int k = 0; k < op->ninputs; k++) {
      if (!ref_or_resource(op->in_types[k])) continue;
      int src = tfs_placer__index(p, op->inputs[k].oper);
      if (src >= 0 && colocate_resource_edge(p, src, i, st)) return -1;
    }
  }
  return 0;
}

/* ColocateNodeToGroup: the first node of a group is its root. */
static int join_group(tfs_placer *p, tfs_map *groups, int i, const char *name,
                      tfs_status *st) {
  void *v = tfs_map_get_str(groups, name);
  if (!v) {
    if (tfs_map_put_str(groups, name, (void *)(intptr_t)(i + 1))) {
      TFS_OOM(st);
      return -1;
    }
    return 0;
  }
  int root = (int)(intptr_t)v - 1;
  if (tfs_placer__colocate(p, i, root, st) == 0) return 0;
  tfs_status_appendf(st, "\n\t [[{{node %s}}]]", p->nodes[i]->name);
  if (!p->soft) return -1;
  if (p->opts->log_device_placement)
    tfs_log(TFS_LOG_INFO,
            "Ignoring request to colocate node '%s' with nodes in "
            "colocation group '%s' because soft placement is on and an "
            "attempt at doing so resulted in the following error: %s",
            p->nodes[i]->name, name, tfs_status_message(st));
  tfs_status_clear(st);
  return 0;
}

static int colocate_classes(tfs_placer *p, tfs_status *st) {
  tfs_map groups = TFS_MAP_INIT;
  int rc = 0;
  for (int k = 0; k < p->n && rc == 0; k++) {
    int i = p->order[k];
    tfs_operation *op = p->nodes[i];
    const tfs_attr_value *cls = tfs_attrs_find(&op->attrs, "_class");
    if (cls && cls->type == TFS_ATTR_STRING && cls->is_list) {
      const tfs_bytes *v = cls->u.list.v;
      for (int j = 0; j < cls->u.list.n && rc == 0; j++)
        if (strncmp(v[j].ptr, "loc:@", 5) == 0)
          rc = join_group(p, &groups, i, v[j].ptr + 5, st);
    } else if (cls && cls->type == TFS_ATTR_STRING && cls->u.s.len) {
      tfs_log(TFS_LOG_ERROR, "The value for colocation attribute '_class' "
              "must be a list of strings, not a single string: %s",
              op->name);
    }
    if (rc == 0) rc = join_group(p, &groups, i, op->name, st);
  }
  tfs_map_free(&groups);
  return rc;
}

/* ---- choosing devices ------------------------------------------------------ */

/* Devices matching `spec` whose type is in `supported`, by type priority
 * then name (FindMatchingDevices + FilterSupportedDevices). */
int tfs_placer__candidates(const tfs_placer *p, const tfs_device_name *spec,
                           unsigned supported, tfs_device **out) {
  int n = 0;
  for (int t = 0; t < p->ntypes; t++) {
    if (!(supported >> t & 1)) continue;
    int first = n;
    for (int i = 0; i < p->ds->n; i++) {
      tfs_device *d = p->ds->devices[i];
      if (d->type != p->types[t]) continue;
      if (spec && !tfs_device_name__matches(spec, &d->parsed)) continue;
      int j = n++;
      while (j > first && strcmp(out[j - 1]->name, d->name) > 0) {
        out[j] = out[j - 1];
        j--;
      }
      out[j] = d;
    }
  }
  return n;
}

/* ColocationGraph::GetSoftDeviceCandidates. */
static int soft_candidates(tfs_placer *p, const tfs_member *r, int root,
                           tfs_device **out) {
  tfs_device_name soft = r->requested;
  if (!r->resource.has_type) soft.has_type = 0;
  if (!r->resource.has_id) soft.has_id = 0;
  int n = tfs_placer__candidates(p, &soft, r->supported, out);
  if (n) return n;
  soft = r->requested;
  soft.has_type = soft.has_id = 0;
  n = tfs_placer__candidates(p, &soft, r->supported, out);
  if (n && tfs_log_enabled(TFS_LOG_WARN)) {
    char *dbg = tfs_placer__debug_info(p, root);
    tfs_log(TFS_LOG_WARN,
            "Failed to place the graph without changing the devices of some "
            "resources. Some of the operations (that had to be colocated "
            "with resource generating operations) are not supported on the "
            "resources' devices. Current candidate devices are [\n  %s].\n"
            "See below for details of this colocation group:%s",
            out[0]->name, dbg ? dbg : "");
    tfs_free(dbg);
  }
  return n;
}

/* The devices node i may go to (ColocationGraph::GetDevicesForNode). */
static int devices_for_node(tfs_placer *p, int i, tfs_device **out,
                            tfs_status *st) {
  int root = tfs_placer__root(p, i);
  tfs_member *r = &p->m[root];
  if (r->assigned) {
    out[0] = r->assigned;
    return 1;
  }
  int n;
  if (tfs_device_name__has_details(&r->requested)) {
    n = tfs_placer__candidates(p, &r->requested, r->supported, out);
    if (!n && p->soft) n = soft_candidates(p, r, root, out);
    if (!n) return tfs_placer__unsatisfiable_error(p, i, root, st);
  } else {
    n = tfs_placer__candidates(p, NULL, r->supported, out);
    if (!n) return tfs_placer__no_device_error(p, i, root, st);
  }
  return n;
}

static int contains(tfs_device *const *v, int n, const tfs_device *d) {
  for (int i = 0; i < n; i++)
    if (v[i] == d) return 1;
  return 0;
}

static int is_metadata(const tfs_operation *op) {
  const char *t = op->def->name;
  return !strcmp(t, "Shape") || !strcmp(t, "ShapeN") || !strcmp(t, "Rank") ||
         !strcmp(t, "Size");
}

static int is_generator(const tfs_operation *op) {
  return op->ninputs == 0 && op->noutputs == 1 &&
         !tfs_dtype_is_ref(op->out_types[0]);
}

/* Heuristic A: the device every consumer in the array went to, or NULL. */
static tfs_device *consumers_device(tfs_placer *p, const tfs_operation *op,
                                    tfs_device **out) {
  tfs_device *dev = NULL;
  int any = 0;
  for (int o = 0; o < op->noutputs; o++) {
    const tfs_consumer_list *cl = &op->consumers[o];
    for (int k = 0; k < cl->n; k++) {
      int j = tfs_placer__index(p, cl->v[k].oper);
      if (j < 0) continue;
      if (any && out[j] != dev) return NULL;
      dev = out[j];
      any = 1;
    }
  }
  for (int k = 0; k < op->ncontrol_out; k++) {
    int j = tfs_placer__index(p, op->control_outputs[k]);
    if (j < 0) continue;
    if (any && out[j] != dev) return NULL;
    dev = out[j];
    any = 1;
  }
  return dev;
}

static void log_assignment(tfs_placer *p, const tfs_operation *op,
                           const tfs_device *d) {
  if (!p->opts->log_device_placement) return;
  if (!p->opts->log) {
    printf("%s: (%s): %s\n", op->name, op->def->name, d->name);
    return;
  }
  char *line = tfs_asprintf("%s: (%s): %s", op->name, op->def->name, d->name);
  if (line) p->opts->log(p->opts->log_arg, line);
  tfs_free(line);
}

static int assign_node(tfs_placer *p, int i, int second_pass,
                       tfs_device **cand, tfs_device **out, tfs_status *st) {
  tfs_operation *op = p->nodes[i];
  int n = devices_for_node(p, i, cand, st);
  if (n < 0) {
    tfs_status_prependf(st, "Cannot assign a device for operation %s: ",
                        op->name);
    tfs_status_appendf(st, "\n\t [[{{node %s}}]]", op->name);
    return -1;
  }
  tfs_device *chosen = NULL;
  if (!second_pass && is_metadata(op) && op->ninputs > 0) {
    int j = tfs_placer__index(p, op->inputs[0].oper);
    if (j >= 0 && out[j] && contains(cand, n, out[j])) chosen = out[j];
  }
  if (second_pass) {
    tfs_device *c = consumers_device(p, op, out);
    if (c && contains(cand, n, c)) chosen = c;
  }
  if (!chosen) chosen = cand[0];
  out[i] = chosen;
  p->m[tfs_placer__root(p, i)].assigned = chosen;
  log_assignment(p, op, chosen);
  return 0;
}

/* ---- driver ------------------------------------------------------------------ */

int tfs_placer__index(const tfs_placer *p, const tfs_operation *op) {
  if (!op || op->graph != p->graph || op->id < 0 ||
      (size_t)op->id >= p->nindex)
    return -1;
  return p->index[op->id];
}

/* Node order by operation id (TensorFlow places in node-id order): ids
 * are distinct, so a walk of the id index gives it. */
static void order_by_id(tfs_placer *p) {
  int k = 0;
  for (size_t id = 0; id < p->nindex; id++)
    if (p->index[id] >= 0) p->order[k++] = p->index[id];
}

static int setup(tfs_placer *p, tfs_operation *const *nodes, int n,
                 const tfs_device_set *ds, const tfs_placer_options *opts,
                 tfs_status *st) {
  memset(p, 0, sizeof *p);
  p->nodes = nodes;
  p->n = n;
  p->ds = ds;
  p->opts = opts;
  p->soft = opts->allow_soft_placement;
  p->graph = n ? nodes[0]->graph : NULL;
  int maxid = 0;
  for (int i = 0; i < n; i++)
    if (nodes[i]->id > maxid) maxid = nodes[i]->id;
  p->nindex = (size_t)maxid + 1;
  p->index = tfs_malloc(sizeof(int) * p->nindex);
  p->m = tfs_calloc((size_t)n + 1, sizeof(tfs_member));
  p->order = tfs_malloc(sizeof(int) * ((size_t)n + 1));
  if (!p->index || !p->m || !p->order) {
    TFS_OOM(st);
    return -1;
  }
  for (size_t k = 0; k < p->nindex; k++) p->index[k] = -1;
  for (int i = 0; i < n; i++) {
    if (p->index[nodes[i]->id] >= 0) {
      tfs_status_setf(st, TFS_INTERNAL, "placer: node '%s' given twice",
                      nodes[i]->name);
      return -1;
    }
    p->index[nodes[i]->id] = i;
  }
  order_by_id(p);
  collect_types(p);
  return 0;
}

static void teardown(tfs_placer *p) {
  tfs_free(p->index);
  tfs_free(p->m);
  tfs_free(p->order);
}

int tfs_placer__place(tfs_operation *const *nodes, int n,
                      const tfs_device_set *ds,
                      const tfs_placer_options *opts, tfs_device **out,
                      tfs_status *st) {
  static const tfs_placer_options kDefaults = {0, 0, NULL, NULL};
  if (!opts) opts = &kDefaults;
  if (!ds || ds->n == 0) {
    tfs_status_set(st, TFS_FAILED_PRECONDITION, "No devices are registered");
    return -1;
  }
  tfs_placer p;
  tfs_device **cand = tfs_malloc(sizeof(tfs_device *) * (size_t)(ds->n + 1));
  int rc = -1;
  if (!cand) {
    TFS_OOM(st);
    return -1;
  }
  if (setup(&p, nodes, n, ds, opts, st)) goto done;
  p.out = out;
  for (int i = 0; i < n; i++) out[i] = NULL;
  for (int k = 0; k < n; k++)
    if (init_member(&p, p.order[k], st)) goto done;
  if (colocate_resource_edges(&p, st) || colocate_classes(&p, st)) goto done;
  for (int k = 0; k < n; k++) {
    int i = p.order[k];
    if (is_generator(nodes[i])) continue; /* heuristic A: second pass */
    if (assign_node(&p, i, 0, cand, out, st)) goto done;
  }
  for (int k = 0; k < n; k++) {
    int i = p.order[k];
    if (is_generator(nodes[i]) && assign_node(&p, i, 1, cand, out, st))
      goto done;
  }
  rc = 0;
  tfs_status_clear(st);
done:
  teardown(&p);
  tfs_free(cand);
  return rc;
}

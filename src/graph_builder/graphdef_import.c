/*
 * graph_builder/graphdef_import.c - GraphDef bytes into a graph, following
 * TensorFlow's GraphConstructor: names and inputs checked up front, nodes
 * added in topological order (ties broken by GraphDef order), options
 * applied (prefix, input map, control dependencies, uniquified names,
 * default device), all or nothing, errors in TensorFlow's wording.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "graph_builder/attr_proto.h"
#include "graph_builder/function_lib.h"
#include "graph_builder/graphdef_import.h"
#include "graph_builder/graphdef_internal.h"

typedef struct gnode {
  const Tensorflow__NodeDef *nd;
  tfs_operation *op;   /* once added */
  int pending;         /* inputs not yet added */
  int nouts, outcap;
  int *outs;           /* GraphDef indices of the nodes that use this one */
} gnode;

typedef struct importer {
  tfs_graph *g;
  const tfs_import_options *o;
  const Tensorflow__GraphDef *gd;
  size_t nops0;        /* graph size before the import */
  int n;
  gnode *nodes;
  tfs_map names;       /* GraphDef name -> index + 1 */
  tfs_map gd_prefixes; /* "a", "a/b" of GraphDef names "a/b/c" */
  tfs_map g_prefixes;  /* the same for names already in the graph */
  tfs_map mapkeys;     /* source name -> first mapping index + 1 */
  uint8_t *map_used;
  tfs_strbuf prefix;   /* "prefix/" or empty */
  tfs_map renamed;     /* uniquified: (prefixed) name -> new name */
  char **new_names;
  int nrenamed;
  int *heap, nheap;    /* ready nodes, smallest GraphDef index first */
  int nback, backcap;  /* back edges into Merge nodes (while loops), */
  struct back_edge {   /* added once every node exists */
    int dst, input, src, index;
  } *back;
} importer;

/* ---- small helpers ------------------------------------------------------- */

static int oom(tfs_status *st) {
  TFS_OOM(st);
  return -1;
}

static int is_ldd(char c) { /* letter, digit, dot */
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.';
}

/* TensorFlow's node name rule: [A-Za-z0-9.][A-Za-z0-9_./-]*, where a '>'
 * must be followed by [A-Za-z0-9.]. */
static int valid_name(const char *s, size_t n) {
  if (n == 0 || !is_ldd(s[0])) return 0;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    if (c == '>') {
      if (i + 1 >= n || !is_ldd(s[i + 1])) return 0;
      i++;
    } else if (!is_ldd(c) && c != '_' && c != '-' && c != '/') {
      return 0;
    }
  }
  return 1;
}

/* TensorFlow's ParseTensorName: "name:digits", "^name" (index -1), else
 * the whole string with index 0.  An index too large for int is
 * clamped (and then fails as an invalid output). */
static void parse_input(const char *s, const char **name, size_t *len,
                        int *index) {
  size_t n = strlen(s), p = n;
  long long v = 0, mul = 1;
  while (p > 1 && s[p - 1] >= '0' && s[p - 1] <= '9') {
    if (mul <= 1000000000LL) {
      v += (s[p - 1] - '0') * mul;
      mul *= 10;
    } else if (s[p - 1] != '0') {
      v = INT32_MAX; /* clamped below */
    }
    p--;
  }
  if (p > 1 && s[p - 1] == ':' && p < n) {
    *name = s;
    *len = p - 1;
    *index = v > INT32_MAX ? INT32_MAX : (int)v;
  } else if (s[0] == '^') {
    *name = s + 1;
    *len = n - 1;
    *index = -1;
  } else {
    *name = s;
    *len = n;
    *index = 0;
  }
}

static void add_prefixes(tfs_map *m, const char *name, int *failed) {
  for (const char *p = strchr(name, '/'); p; p = strchr(p + 1, '/'))
    if (tfs_map_put(m, name, (size_t)(p - name), (void *)1)) *failed = 1;
}

static int in_graph(importer *im, const char *s, size_t n) {
  return tfs_map_get(&im->g->by_name, s, n) != NULL ||
         tfs_map_get(&im->g_prefixes, s, n) != NULL;
}

static int in_graphdef(importer *im, const char *s, size_t n) {
  return tfs_map_get(&im->names, s, n) != NULL ||
         tfs_map_get(&im->gd_prefixes, s, n) != NULL;
}

/* TensorFlow's FindUniqueName: base, base_1, base_2, ... not used in the
 * graph (and, for a generated name, not in the GraphDef either). */
static char *unique_name(importer *im, const char *base) {
  char *name = tfs_strdup(base);
  for (int k = 1; name; k++) {
    size_t n = strlen(name);
    if (!in_graph(im, name, n) && (k == 1 || !in_graphdef(im, name, n)))
      break;
    tfs_free(name);
    name = tfs_asprintf("%s_%d", base, k);
  }
  return name;
}

/* The input mapping for name[0..n):idx, if any (`which` gets its
 * index).  mapkeys gives the first mapping of a name; the few others
 * with that name follow it in the options. */
static const tfs_import_mapping *find_mapping(importer *im, const char *s,
                                              size_t n, int idx, int *which) {
  if (im->o->nmap == 0) return NULL;
  void *v = tfs_map_get(&im->mapkeys, s, n);
  if (!v) return NULL;
  for (int i = (int)((intptr_t)v - 1); i < im->o->nmap; i++) {
    const tfs_import_mapping *m = &im->o->map[i];
    if (m->src_index == idx && strlen(m->src_name) == n &&
        memcmp(m->src_name, s, n) == 0) {
      *which = i;
      return m;
    }
  }
  return NULL;
}

/* ---- heap of ready nodes ------------------------------------------------- */

static void heap_push(importer *im, int v) {
  int i = im->nheap++;
  while (i > 0 && im->heap[(i - 1) / 2] > v) {
    im->heap[i] = im->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  im->heap[i] = v;
}

static int heap_pop(importer *im) {
  int top = im->heap[0], v = im->heap[--im->nheap], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= im->nheap) break;
    if (c + 1 < im->nheap && im->heap[c + 1] < im->heap[c]) c++;
    if (im->heap[c] >= v) break;
    im->heap[i] = im->heap[c];
    i = c;
  }
  if (im->nheap) im->heap[i] = v;
  return top;
}

/* ---- checks before adding anything --------------------------------------- */

static int check_versions(const Tensorflow__VersionDef *v, tfs_status *st) {
  if (!v) return 0;
  if (v->producer < TFS_GRAPH_DEF_VERSION_MIN_PRODUCER) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "GraphDef producer version %d below min producer %d "
                    "supported by TensorFlow %s.  Please regenerate your "
                    "graph.", v->producer, TFS_GRAPH_DEF_VERSION_MIN_PRODUCER,
                    TFS_TF_VERSION_STRING);
    return -1;
  }
  if (v->min_consumer > TFS_GRAPH_DEF_VERSION) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "GraphDef min consumer version %d above current version "
                    "%d for TensorFlow %s.  Please upgrade TensorFlow.",
                    v->min_consumer, TFS_GRAPH_DEF_VERSION,
                    TFS_TF_VERSION_STRING);
    return -1;
  }
  for (size_t i = 0; i < v->n_bad_consumers; i++) {
    if (v->bad_consumers[i] != TFS_GRAPH_DEF_VERSION) continue;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "GraphDef disallows consumer version %d.  Please upgrade "
                    "TensorFlow: this version is likely buggy.",
                    TFS_GRAPH_DEF_VERSION);
    return -1;
  }
  return 0;
}

/* TensorFlow's GraphConstructor::UpdateVersionDef for an import: the graph
 * keeps the lowest producer and the highest min_consumer (a GraphDef
 * without versions says producer 0), so that an export still says which
 * version's ops and semantics the nodes follow (PlaceholderV2, removed at
 * version 23, stays valid in a producer 21 graph).  Caller holds g->mu. */
static void merge_versions(tfs_graph *g, const Tensorflow__VersionDef *v) {
  if (!g->has_versions) {
    g->producer = TFS_GRAPH_DEF_VERSION;
    g->min_consumer = 0;
    g->has_versions = 1;
  }
  int producer = v ? v->producer : 0;
  int min_consumer = v ? v->min_consumer : 0;
  if (producer < g->producer) g->producer = producer;
  if (min_consumer > g->min_consumer) g->min_consumer = min_consumer;
}

/* Index of the GraphDef and of names in the graph; TensorFlow's
 * EnsureNoNameCollisions and BuildNodeIndex. */
static int index_names(importer *im, tfs_status *st) {
  int failed = 0;
  for (size_t i = 0; i < im->nops0; i++)
    add_prefixes(&im->g_prefixes, im->g->ops[i]->name, &failed);
  for (int i = 0; i < im->n; i++)
    add_prefixes(&im->gd_prefixes, im->nodes[i].nd->name, &failed);
  if (failed) return oom(st);
  const char *prefix = im->o->prefix ? im->o->prefix : "";
  size_t plen = strlen(prefix);
  if (plen && prefix[plen - 1] == '/') plen--;
  if (plen == 0 && !im->o->uniquify_names) {
    for (int i = 0; i < im->n; i++) {
      const char *nm = im->nodes[i].nd->name;
      if (!in_graph(im, nm, strlen(nm))) continue;
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Node name '%s' already exists in the Graph", nm);
      return -1;
    }
  } else if (plen) {
    if (!valid_name(prefix, plen)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Imported node name prefix '%.*s/' would lead to "
                      "invalid node names", (int)plen, prefix);
      return -1;
    }
    char *p = tfs_strndup(prefix, plen);
    if (!p) return oom(st);
    if (in_graph(im, p, plen) && im->o->uniquify_prefix) {
      char *u = unique_name(im, p);
      tfs_free(p);
      if (!u) return oom(st);
      p = u;
    }
    tfs_strbuf_printf(&im->prefix, "%s/", p);
    tfs_free(p);
    if (im->prefix.oom) return oom(st);
  }
  return 0;
}

static void mapping_str(tfs_strbuf *b, const char *name, int idx) {
  if (idx < 0)
    tfs_strbuf_printf(b, "^%s", name);
  else
    tfs_strbuf_printf(b, "%s:%d", name, idx);
}

/* TensorFlow's ValidateInputMapAndControlDependencies, with operations
 * given as pointers: they must belong to this graph. */
static int check_options(importer *im, tfs_status *st) {
  const tfs_import_options *o = im->o;
  for (int i = 0; i < o->nmap; i++) {
    const tfs_import_mapping *m = &o->map[i];
    tfs_operation *d = m->dst.oper;
    int ok = d && d->graph == im->g && (size_t)d->id < im->nops0 &&
             im->g->ops[d->id] == d;
    int bad_kind = (m->src_index < 0) != (m->dst.index < 0);
    if (ok && !bad_kind) continue;
    tfs_strbuf b = TFS_STRBUF_INIT;
    const char *dname = d && ok ? d->name : "(unknown)";
    if (!ok)
      tfs_strbuf_printf(&b, "node '%s' in input_map does not exist in graph "
                        "(input_map entry: ", dname);
    else
      tfs_strbuf_puts(&b, "input_map entry ");
    mapping_str(&b, m->src_name, m->src_index);
    tfs_strbuf_puts(&b, "->");
    mapping_str(&b, dname, m->dst.index);
    tfs_strbuf_puts(&b, ok ? " between control edge and non-control edge"
                           : ")");
    tfs_status_set(st, TFS_INVALID_ARGUMENT, tfs_strbuf_str(&b));
    tfs_strbuf_free(&b);
    return -1;
  }
  for (int i = 0; i < o->ndeps; i++) {
    tfs_operation *d = o->deps[i];
    if (d && d->graph == im->g && (size_t)d->id < im->nops0 &&
        im->g->ops[d->id] == d)
      continue;
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "node '%s' in control_dependencies does not exist in "
                    "graph", d && d->graph == im->g ? d->name : "(unknown)");
    return -1;
  }
  im->map_used = tfs_calloc((size_t)o->nmap + 1, 1);
  if (!im->map_used) return oom(st);
  for (int i = o->nmap - 1; i >= 0; i--)
    if (tfs_map_put_str(&im->mapkeys, o->map[i].src_name,
                        (void *)(intptr_t)(i + 1)))
      return oom(st);
  return 0;
}

static int check_node_defs(importer *im, tfs_status *st) {
  for (int i = 0; i < im->n; i++) {
    const Tensorflow__NodeDef *nd = im->nodes[i].nd;
    const char *nm = nd->name;
    if (!valid_name(nm, strlen(nm))) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Node '%s': Node name contains invalid characters", nm);
      return -1;
    }
    if (tfs_map_get_str(&im->names, nm)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Node '%s' is not unique",
                      nm);
      return -1;
    }
    if (tfs_map_put_str(&im->names, nm, (void *)(intptr_t)(i + 1)))
      return oom(st);
    if (!nd->op || !*nd->op) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Node '%s' does not specify an operation", nm);
      return -1;
    }
    int in_control = 0;
    for (size_t k = 0; k < nd->n_input; k++) {
      if (nd->input[k][0] == '^') {
        in_control = 1;
      } else if (in_control) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Node '%s': Control dependencies must come after "
                        "regular dependencies", nm);
        return -1;
      }
    }
  }
  return 0;
}

static int is_op(const Tensorflow__NodeDef *nd, const char *a,
                 const char *b) {
  return strcmp(nd->op, a) == 0 || strcmp(nd->op, b) == 0;
}

/* A Merge fed by a NextIteration (a while loop) waits for its control
 * inputs and one data input only; inputs that are not there yet when it
 * is added become back edges (TensorFlow's InitFromEdges). */
static int merge_pending(importer *im, const Tensorflow__NodeDef *nd) {
  int nctrl = 0, loop = 0;
  for (size_t k = 0; k < nd->n_input; k++) {
    const char *s;
    size_t len;
    int idx;
    parse_input(nd->input[k], &s, &len, &idx);
    if (idx < 0) {
      nctrl++;
      continue;
    }
    void *v = tfs_map_get(&im->names, s, len);
    if (v && is_op(im->nodes[(intptr_t)v - 1].nd, "NextIteration",
                   "RefNextIteration"))
      loop = 1;
  }
  return loop ? nctrl + 1 : (int)nd->n_input;
}

/* TensorFlow's InitFromEdges: pending counts and consumer lists. */
static int link_edges(importer *im, tfs_status *st) {
  for (int i = 0; i < im->n; i++) {
    const Tensorflow__NodeDef *nd = im->nodes[i].nd;
    int pending = is_op(nd, "Merge", "RefMerge") ? merge_pending(im, nd)
                                                 : (int)nd->n_input;
    for (size_t k = 0; k < nd->n_input; k++) {
      const char *s;
      size_t len;
      int idx, which;
      parse_input(nd->input[k], &s, &len, &idx);
      if (find_mapping(im, s, len, idx, &which)) {
        pending--;
        continue;
      }
      void *v = tfs_map_get(&im->names, s, len);
      if (!v) {
        tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                        "Node '%s': Unknown input node '%s'", nd->name,
                        nd->input[k]);
        return -1;
      }
      gnode *src = &im->nodes[(intptr_t)v - 1];
      size_t cap = (size_t)src->outcap;
      if (tfs_grow((void **)&src->outs, &cap, (size_t)src->nouts + 1,
                   sizeof(int)))
        return oom(st);
      src->outcap = (int)cap;
      src->outs[src->nouts++] = i;
    }
    im->nodes[i].pending = pending;
    if (pending == 0) heap_push(im, i);
  }
  return 0;
}

/* ---- adding one node ----------------------------------------------------- */

typedef struct resolved {
  int ndata, nctrl;
  tfs_output *data;
  tfs_operation **ctrl;
} resolved;

static void add_ctrl(resolved *r, tfs_operation *op) {
  for (int i = 0; i < r->nctrl; i++)
    if (r->ctrl[i] == op) return;
  r->ctrl[r->nctrl++] = op;
}

/* Inputs of `nd` as outputs and control operations, after the input map;
 * the import's control dependencies go to nodes that have no input from
 * the GraphDef itself. */
static int resolve_inputs(importer *im, const Tensorflow__NodeDef *nd,
                          resolved *r, tfs_status *st) {
  size_t nin = nd->n_input;
  r->data = tfs_malloc(sizeof(tfs_output) * (nin + 1));
  r->ctrl = tfs_malloc(sizeof(tfs_operation *) *
                       (nin + (size_t)im->o->ndeps + 1));
  if (!r->data || !r->ctrl) return oom(st);
  int from_graphdef = 0;
  for (size_t k = 0; k < nin; k++) {
    const char *s;
    size_t len;
    int idx, which;
    parse_input(nd->input[k], &s, &len, &idx);
    const tfs_import_mapping *m = find_mapping(im, s, len, idx, &which);
    tfs_output src;
    const char *src_name;
    int src_len;
    if (m) {
      im->map_used[which] = 1;
      src = m->dst;
      src_name = src.oper->name;
      src_len = (int)strlen(src_name);
    } else {
      gnode *gn = &im->nodes[(intptr_t)tfs_map_get(&im->names, s, len) - 1];
      src.oper = gn->op;
      src.index = idx;
      src_name = s;
      src_len = (int)len;
      from_graphdef = 1;
      if (!src.oper) { /* only a cycle leaves a producer unadded */
        if (!is_op(nd, "Merge", "RefMerge") || idx < 0) {
          tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                          "Node '%s' had a back edge, but only Merge nodes "
                          "can have back edges.", nd->name);
          return -1;
        }
        size_t cap = (size_t)im->backcap;
        if (tfs_grow((void **)&im->back, &cap, (size_t)im->nback + 1,
                     sizeof(*im->back)))
          return oom(st);
        im->backcap = (int)cap;
        /* the Merge's index is set by add_one */
        im->back[im->nback++] =
            (struct back_edge){-1, r->ndata, (int)(gn - im->nodes), idx};
        src.index = -1; /* set once the loop's NextIteration exists */
      }
    }
    if (idx < 0) {
      add_ctrl(r, src.oper);
      continue;
    }
    if (src.oper && src.index >= src.oper->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Node '%s': Connecting to invalid output %d of source "
                      "node %.*s which has %d outputs.", nd->name, src.index,
                      src_len, src_name, src.oper->noutputs);
      return -1;
    }
    r->data[r->ndata++] = src;
  }
  if (!from_graphdef)
    for (int i = 0; i < im->o->ndeps; i++) add_ctrl(r, im->o->deps[i]);
  return 0;
}

/* `_class` colocation groups: "loc:@x" must name a GraphDef node, and
 * gets the import prefix. */
static int fix_colocation(importer *im, const Tensorflow__NodeDef *nd,
                          tfs_attr_value *v, tfs_status *st) {
  if (!v->is_list || v->type != TFS_ATTR_STRING) return 0;
  tfs_bytes *b = v->u.list.v;
  for (int i = 0; i < v->u.list.n; i++) {
    if (b[i].len < 5 || memcmp(b[i].ptr, "loc:@", 5) != 0) continue;
    const char *target = b[i].ptr + 5;
    if (!tfs_map_get(&im->names, target, b[i].len - 5)) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Node '%s' expects to be colocated with unknown node "
                      "'%s'", nd->name, target);
      return -1;
    }
    if (!im->prefix.len) continue;
    char *s = tfs_asprintf("loc:@%s%s", tfs_strbuf_str(&im->prefix), target);
    if (!s) return oom(st);
    tfs_free(b[i].ptr);
    b[i].ptr = s;
    b[i].len = strlen(s);
  }
  return 0;
}

static int build_attrs(importer *im, const Tensorflow__NodeDef *nd,
                       const tfs_op_def *def, tfs_attrs *out,
                       tfs_status *st) {
  for (size_t i = 0; i < nd->n_attr; i++) {
    const Tensorflow__NodeDef__AttrEntry *e = nd->attr[i];
    if (!e || !e->value) continue;
    tfs_attr_value v;
    int rc = tfs_attr_value__from_proto(e->value, tfs_op_def_attr(def, e->key),
                                        &v, st);
    if (rc == 0 && strcmp(e->key, "_class") == 0)
      rc = fix_colocation(im, nd, &v, st);
    if (rc < 0) {
      tfs_attr_value_clear(&v);
      if (tfs_status_code(st) == TFS_INVALID_ARGUMENT &&
          strncmp(tfs_status_message(st), "Node '", 6) != 0)
        tfs_status_prependf(st, "Node '%s': attr '%s': ", nd->name, e->key);
      return -1;
    }
    if (rc == 0 && tfs_attrs_set(out, e->key, &v)) return oom(st);
  }
  return 0;
}

/* The name the node gets: the prefix, then TensorFlow's UniquifyNames. */
static char *final_name(importer *im, const char *gname, tfs_status *st) {
  char *name = tfs_asprintf("%s%s", tfs_strbuf_str(&im->prefix), gname);
  if (!name) goto fail;
  int uniquify = im->o->uniquify_names &&
                 (im->prefix.len == 0 || !im->o->uniquify_prefix);
  if (!uniquify || !in_graph(im, name, strlen(name))) return name;
  char *u = unique_name(im, name);
  size_t cap = (size_t)im->nrenamed;
  if (!u || tfs_grow((void **)&im->new_names, &cap,
                     2 * (size_t)im->nrenamed + 2, sizeof(char *))) {
    tfs_free(u);
    goto fail;
  }
  /* pairs (old, new); the map points at the new name */
  im->new_names[2 * im->nrenamed] = name;
  im->new_names[2 * im->nrenamed + 1] = u;
  im->nrenamed++;
  if (tfs_map_put_str(&im->renamed, name, u)) goto fail_kept;
  char *copy = tfs_strdup(u);
  if (!copy) goto fail_kept;
  return copy;
fail:
  tfs_free(name);
fail_kept:
  oom(st);
  return NULL;
}

static int add_one(importer *im, int o, tfs_status *st) {
  gnode *gn = &im->nodes[o];
  const Tensorflow__NodeDef *nd = gn->nd;
  resolved r = {0};
  tfs_attrs attrs;
  tfs_attrs_init(&attrs);
  char *name = NULL;
  int rc = -1, nback0 = im->nback;
  if (resolve_inputs(im, nd, &r, st)) goto done;
  for (int b = nback0; b < im->nback; b++) im->back[b].dst = o;
  /* a registered op, or a function of the library (imported first) */
  const tfs_op_def *def = tfs_graph__lookup_op(im->g, nd->op, st);
  if (!def) {
    if (tfs_status_code(st) == TFS_NOT_FOUND)
      tfs_status_prependf(st, "Node '%s': ", nd->name);
    goto done;
  }
  if (build_attrs(im, nd, def, &attrs, st)) goto done;
  name = final_name(im, nd->name, st);
  if (!name) goto done;
  const char *dev = nd->device && *nd->device ? nd->device
                                              : im->o->default_device;
  tfs_node_spec spec = {
      .name = name,
      .op_type = def->name,
      .device = dev ? dev : "",
      .attrs = &attrs,
      .ninputs = r.ndata,
      .inputs = r.data,
      .ncontrol = r.nctrl,
      .control_inputs = r.ctrl,
  };
  const Tensorflow__NodeDef__ExperimentalDebugInfo *dbg =
      nd->experimental_debug_info;
  if (dbg && dbg->n_original_node_names > 0 &&
      dbg->n_original_node_names < (size_t)INT_MAX) {
    spec.norig = (int)dbg->n_original_node_names;
    spec.orig_names = (const char *const *)dbg->original_node_names;
  }
  gn->op = tfs_graph__add_node(im->g, &spec, st);
  if (!gn->op) goto done;
  for (int i = 0; i < gn->nouts; i++)
    if (--im->nodes[gn->outs[i]].pending == 0) heap_push(im, gn->outs[i]);
  rc = 0;
done:
  tfs_attrs_clear(&attrs);
  tfs_free(r.data);
  tfs_free(r.ctrl);
  tfs_free(name);
  return rc;
}

/* ---- after the nodes ----------------------------------------------------- */

/* "N nodes in a cycle" (TensorFlow's text) and one cycle, found by
 * walking back along inputs that were never added. */
static void cycle_error(importer *im, int remaining, tfs_status *st) {
  int *pos = tfs_malloc(sizeof(int) * (size_t)im->n);
  int *path = tfs_malloc(sizeof(int) * (size_t)im->n);
  if (!pos || !path) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT, "%d nodes in a cycle",
                    remaining);
    goto done;
  }
  int cur = 0, len = 0;
  for (int i = 0; i < im->n; i++) pos[i] = -1;
  while (im->nodes[cur].op) cur++;
  while (pos[cur] < 0) {
    pos[cur] = len;
    path[len++] = cur;
    const Tensorflow__NodeDef *nd = im->nodes[cur].nd;
    for (size_t k = 0; k < nd->n_input; k++) {
      const char *s;
      size_t l;
      int idx, which;
      parse_input(nd->input[k], &s, &l, &idx);
      if (find_mapping(im, s, l, idx, &which)) continue;
      int next = (int)((intptr_t)tfs_map_get(&im->names, s, l) - 1);
      if (!im->nodes[next].op) {
        cur = next;
        break;
      }
    }
  }
  tfs_strbuf b = TFS_STRBUF_INIT;
  int first = pos[cur], shown = 0;
  tfs_strbuf_printf(&b, "%d nodes in a cycle: %s", remaining,
                    im->nodes[path[first]].nd->name);
  for (int k = len - 1; k >= first; k--, shown++) {
    const Tensorflow__NodeDef *nd = im->nodes[path[k]].nd;
    if (shown < 20 || k == first)
      tfs_strbuf_printf(&b, " -> %s", nd->name);
    else if (shown == 20)
      tfs_strbuf_puts(&b, " -> ...");
  }
  tfs_status_set(st, TFS_INVALID_ARGUMENT, b.oom ? "nodes in a cycle"
                                                 : tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
done:
  tfs_free(pos);
  tfs_free(path);
}

static gnode *gnode_named(importer *im, const char *name) {
  void *v = tfs_map_get_str(&im->names, name);
  return v ? &im->nodes[(intptr_t)v - 1] : NULL;
}

static int return_outputs(importer *im, tfs_import_results *r,
                          tfs_status *st) {
  const tfs_import_options *o = im->o;
  r->outputs = tfs_calloc((size_t)o->nret_out + 1, sizeof(tfs_output));
  if (!r->outputs) return oom(st);
  for (int i = 0; i < o->nret_out; i++) {
    const tfs_import_return *ret = &o->ret_out[i];
    int which;
    const tfs_import_mapping *m = find_mapping(
        im, ret->name, strlen(ret->name), ret->index, &which);
    if (m) {
      r->outputs[r->nout++] = m->dst;
      continue;
    }
    gnode *gn = gnode_named(im, ret->name);
    if (!gn) {
      if (ret->index < 0)
        tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Requested return tensor "
                        "'^%s' not found in graph def", ret->name);
      else
        tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Requested return tensor "
                        "'%s:%d' not found in graph def", ret->name,
                        ret->index);
      return -1;
    }
    if (ret->index < -1 || ret->index >= gn->op->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Invalid return output %d of node '%s', which has %d "
                      "output(s)", ret->index, ret->name, gn->op->noutputs);
      return -1;
    }
    r->outputs[r->nout].oper = gn->op;
    r->outputs[r->nout++].index = ret->index;
  }
  return 0;
}

static int return_ops_and_missing(importer *im, tfs_import_results *r,
                                  tfs_status *st) {
  const tfs_import_options *o = im->o;
  r->ops = tfs_calloc((size_t)o->nret_ops + 1, sizeof(tfs_operation *));
  r->missing_names = tfs_calloc((size_t)o->nmap + 1, sizeof(char *));
  r->missing_idx = tfs_calloc((size_t)o->nmap + 1, sizeof(int));
  if (!r->ops || !r->missing_names || !r->missing_idx) return oom(st);
  for (int i = 0; i < o->nret_ops; i++) {
    gnode *gn = gnode_named(im, o->ret_ops[i]);
    if (!gn) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Requested return node '%s' not found in graph def",
                      o->ret_ops[i]);
      return -1;
    }
    r->ops[r->nops++] = gn->op;
  }
  for (int i = 0; i < o->nmap; i++) {
    if (im->map_used[i]) continue;
    const tfs_import_mapping *m = &o->map[i];
    gnode *gn = gnode_named(im, m->src_name);
    if (gn && m->src_index < gn->op->noutputs) continue;
    char *nm = tfs_strdup(m->src_name);
    if (!nm) return oom(st);
    r->missing_names[r->nmissing] = nm;
    r->missing_idx[r->nmissing++] = m->src_index;
  }
  return 0;
}

/* TensorFlow's UpdateUniquifiedColocationNames: colocation groups that
 * name a renamed node follow the new name. */
static int rename_colocations(importer *im, tfs_status *st) {
  if (im->nrenamed == 0) return 0;
  for (size_t i = im->nops0; i < im->g->nops; i++) {
    tfs_operation *op = im->g->ops[i];
    tfs_attr_entry *e = NULL;
    for (int k = 0; k < op->attrs.n && !e; k++)
      if (strcmp(op->attrs.e[k].name, "_class") == 0) e = &op->attrs.e[k];
    if (!e || !e->value.is_list || e->value.type != TFS_ATTR_STRING)
      continue;
    tfs_bytes *b = e->value.u.list.v;
    for (int k = 0; k < e->value.u.list.n; k++) {
      if (b[k].len < 5 || memcmp(b[k].ptr, "loc:@", 5) != 0) continue;
      const char *to = tfs_map_get_str(&im->renamed, b[k].ptr + 5);
      if (!to) continue;
      char *s = tfs_asprintf("loc:@%s", to);
      if (!s) return oom(st);
      tfs_free(b[k].ptr);
      b[k].ptr = s;
      b[k].len = strlen(s);
    }
  }
  return 0;
}

/* TensorFlow's AddBackEdges: the inputs Merge nodes took before their
 * producers existed (a while loop's NextIteration). */
static int add_back_edges(importer *im, tfs_status *st) {
  for (int i = 0; i < im->nback; i++) {
    const struct back_edge *e = &im->back[i];
    tfs_operation *dst = im->nodes[e->dst].op;
    tfs_output src = {im->nodes[e->src].op, e->index};
    if (src.index >= src.oper->noutputs) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Output %d of node %s does not exist. Node only has "
                      "%d outputs.", src.index, src.oper->name,
                      src.oper->noutputs);
      return -1;
    }
    if (tfs_graph__set_input(dst, e->input, src, st)) return -1;
  }
  return 0;
}

/* ---- the import ---------------------------------------------------------- */

static int run_import(importer *im, tfs_status *st) {
  im->n = (int)im->gd->n_node;
  im->nodes = tfs_calloc((size_t)im->n + 1, sizeof(gnode));
  im->heap = tfs_malloc(sizeof(int) * ((size_t)im->n + 1));
  if (!im->nodes || !im->heap) return oom(st);
  for (int i = 0; i < im->n; i++) im->nodes[i].nd = im->gd->node[i];
  if (index_names(im, st) || check_options(im, st) ||
      check_node_defs(im, st) || link_edges(im, st))
    return -1;
  int processed = 0;
  while (im->nheap) {
    if (add_one(im, heap_pop(im), st)) return -1;
    processed++;
  }
  if (processed < im->n) {
    cycle_error(im, im->n - processed, st);
    return -1;
  }
  return add_back_edges(im, st);
}

static void importer_free(importer *im) {
  for (int i = 0; i < im->n && im->nodes; i++) tfs_free(im->nodes[i].outs);
  tfs_free(im->nodes);
  tfs_free(im->heap);
  tfs_free(im->back);
  tfs_map_free(&im->names);
  tfs_map_free(&im->gd_prefixes);
  tfs_map_free(&im->g_prefixes);
  tfs_map_free(&im->mapkeys);
  tfs_map_free(&im->renamed);
  tfs_free(im->map_used);
  for (int i = 0; i < 2 * im->nrenamed; i++) tfs_free(im->new_names[i]);
  tfs_free(im->new_names);
  tfs_strbuf_free(&im->prefix);
}

tfs_import_results *tfs_graph_import_graphdef(tfs_graph *g, const void *data,
                                              size_t len,
                                              const tfs_import_options *opts,
                                              tfs_status *st) {
  static const tfs_import_options defaults;
  TFS_CHECK_ARG(g != NULL && (data != NULL || len == 0), st, NULL);
  const tfs_import_options *o = opts ? opts : &defaults;
  if (o->oom) {
    TFS_OOM(st);
    return NULL;
  }
  int was_oom;
  Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)tfs_pb__unpack_nested(
      &tensorflow__graph_def__descriptor, data, len, o->max_nesting,
      &was_oom);
  if (!gd) {
    if (was_oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT, "Invalid GraphDef");
    return NULL;
  }
  tfs_import_results *r = tfs_graph__import_parsed(g, gd, opts, st);
  tfs_pb__free(&gd->base);
  return r;
}

tfs_import_results *tfs_graph__import_parsed(tfs_graph *g,
                                             const Tensorflow__GraphDef *gd,
                                             const tfs_import_options *opts,
                                             tfs_status *st) {
  static const tfs_import_options defaults;
  TFS_CHECK_ARG(g != NULL && gd != NULL, st, NULL);
  const tfs_import_options *o = opts ? opts : &defaults;
  if (o->oom) {
    TFS_OOM(st);
    return NULL;
  }
  if (gd->n_node > (size_t)INT32_MAX / 4) {
    tfs_status_set(st, TFS_INVALID_ARGUMENT, "GraphDef has too many nodes");
    return NULL;
  }
  if (o->max_nodes > 0 && (int64_t)gd->n_node > o->max_nodes) {
    tfs_status_setf(st, TFS_RESOURCE_EXHAUSTED,
                    "GraphDef has %zu nodes, over the import's limit of "
                    "%lld nodes",
                    gd->n_node, (long long)o->max_nodes);
    return NULL;
  }
  if (check_versions(gd->versions, st)) return NULL;
  importer im;
  memset(&im, 0, sizeof im);
  im.g = g;
  im.o = o;
  im.gd = gd;
  tfs_import_results *r = NULL;
  pthread_mutex_lock(&g->mu);
  im.nops0 = g->nops;
  /* the library first: nodes may call its functions */
  int nfn0 = tfs_flib__count(g), ngrad0 = g->lib ? g->lib->ngrad : 0;
  if (tfs_flib__import(g, gd->library, st) == 0 &&
      run_import(&im, st) == 0) {
    r = tfs_calloc(1, sizeof(*r));
    if (!r) {
      TFS_OOM(st);
    } else if (return_outputs(&im, r, st) ||
               return_ops_and_missing(&im, r, st) ||
               rename_colocations(&im, st)) {
      tfs_import_results_free(r);
      r = NULL;
    }
  }
  if (!r) {
    tfs_graph__truncate(g, im.nops0);
    tfs_flib__truncate(g, nfn0, ngrad0);
  } else {
    merge_versions(g, gd->versions);
  }
  pthread_mutex_unlock(&g->mu);
  importer_free(&im);
  if (r) tfs_status_clear(st);
  return r;
}

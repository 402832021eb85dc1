/*
 * tools/inspect_saved_model.c - `tfsess inspect DIR` on a SavedModel
 * directory: prints what TensorFlow's `saved_model_cli show` prints,
 * reading saved_model.pb itself (every MetaGraph, not only the one a
 * load would pick), so nothing is imported or run.
 *
 *   inspect DIR                       show --dir DIR --all
 *   inspect DIR --tag-sets            show --dir DIR
 *   inspect DIR --tags T              show --dir DIR --tag_set T
 *   inspect DIR --tags T --signature K
 *                                     show ... --tag_set T --signature_def K
 *
 * The output is saved_model_cli's byte for byte, except that the
 * "contains the following ops:" set is printed sorted (Python prints a
 * set in an order that changes from run to run).  The "Concrete
 * Functions" of a TF2 export come from inspect_functions.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config_proto/pb_util.h"
#include "core/hashmap.h"
#include "core/strbuf.h"
#include "proto/saved_model.pb-c.h"
#include "proto/types.pb-c.h"
#include "saved_model/sm_internal.h"

typedef Tensorflow__MetaGraphDef meta_graph;
typedef Tensorflow__SignatureDef signature_def;

/* MetaGraphDef.object_graph_def, which the schema here leaves unknown. */
#define OBJECT_GRAPH_FIELD 7

/* ---- Python's str() and repr() of what saved_model_cli prints ------------ */

/* repr() of a str: single quotes unless only double quotes are free. */
static void print_repr(const char *s) {
  char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
  putchar(q);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == q || *p == '\\')
      printf("\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", stdout);
    else if (*p == '\r')
      fputs("\\r", stdout);
    else if (*p == '\t')
      fputs("\\t", stdout);
    else if (*p < 0x20 || *p == 0x7f)
      printf("\\x%02x", *p);
    else
      putchar(*p);
  }
  putchar(q);
}

static size_t ntags(const meta_graph *mg) {
  return mg->meta_info_def ? mg->meta_info_def->n_tags : 0;
}
static const char *tag(const meta_graph *mg, size_t i) {
  return mg->meta_info_def->tags[i];
}

/* Python's comparison of two lists of str. */
static int cmp_tag_lists(char *const *a, size_t na, char *const *b,
                         size_t nb) {
  for (size_t i = 0; i < na && i < nb; i++) {
    int c = strcmp(a[i], b[i]);
    if (c) return c;
  }
  return na < nb ? -1 : na > nb;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A stable sort of v[0..n) (sorted() is stable). */
static void stable_sort(void **v, size_t n, int (*cmp)(const void *,
                                                       const void *)) {
  for (size_t i = 1; i < n; i++) {
    void *x = v[i];
    size_t j = i;
    while (j > 0 && cmp(v[j - 1], x) > 0) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

static int cmp_meta_graphs(const void *a, const void *b) {
  const meta_graph *x = a, *y = b;
  return cmp_tag_lists(ntags(x) ? x->meta_info_def->tags : NULL, ntags(x),
                       ntags(y) ? y->meta_info_def->tags : NULL, ntags(y));
}

/* ---- reading ------------------------------------------------------------- */

/* The SavedModel proto of dir, binary or text, read as the loader reads
 * it (its errors printed). */
static Tensorflow__SavedModel *read_saved_model(const char *dir) {
  tfs_status *st = tfs_status_new();
  if (!st) {
    tfs_cli_error("out of memory");
    return NULL;
  }
  Tensorflow__SavedModel *sm = tfs_sm__read(dir, st);
  if (!sm) tfs_cli_error("%s", tfs_status_message(st));
  tfs_status_free(st);
  return sm;
}

/* ---- signatures ---------------------------------------------------------- */

typedef struct entry {
  const char *key;
  const void *value;
} entry;

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const entry *)a)->key, ((const entry *)b)->key);
}

/* A map field's entries sorted by key, the last of equal keys kept (as a
 * parsed map does).  Entries are {key, value} message pairs: `at(i)`
 * returns entry i.  Returns a malloc'd array of *n entries. */
static entry *sorted_map(size_t count, entry (*at)(const void *, size_t),
                         const void *msg, size_t *n) {
  entry *v = calloc(count + 1, sizeof *v);
  if (!v) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    entry e = at(msg, i);
    size_t j = 0;
    while (j < k && strcmp(v[j].key, e.key)) j++;
    v[j] = e;
    if (j == k) k++;
  }
  qsort(v, k, sizeof *v, cmp_entry);
  *n = k;
  return v;
}

static entry sig_at(const void *m, size_t i) {
  const Tensorflow__MetaGraphDef__SignatureDefEntry *e =
      ((const meta_graph *)m)->signature_def[i];
  return (entry){e->key, e->value};
}
static entry input_at(const void *m, size_t i) {
  const Tensorflow__SignatureDef__InputsEntry *e =
      ((const signature_def *)m)->inputs[i];
  return (entry){e->key, e->value};
}
static entry output_at(const void *m, size_t i) {
  const Tensorflow__SignatureDef__OutputsEntry *e =
      ((const signature_def *)m)->outputs[i];
  return (entry){e->key, e->value};
}

static entry *signatures(const meta_graph *mg, size_t *n) {
  return sorted_map(mg->n_signature_def, sig_at, mg, n);
}

static const signature_def *find_signature(const meta_graph *mg,
                                           const char *key) {
  const signature_def *s = NULL;
  for (size_t i = 0; i < mg->n_signature_def; i++)
    if (strcmp(mg->signature_def[i]->key, key) == 0)
      s = mg->signature_def[i]->value;
  return s;
}

static void print_tensor_info(const Tensorflow__TensorInfo *ti,
                              const char *ind) {
  int dtype = ti ? (int)ti->dtype : 0;
  const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(
      &tensorflow__data_type__descriptor, dtype);
  if (ev)
    printf("%s    dtype: %s\n", ind, ev->name);
  else
    printf("%s    dtype: %d\n", ind, dtype);
  const Tensorflow__TensorShapeProto *sh = ti ? ti->tensor_shape : NULL;
  printf("%s    shape: ", ind);
  if (sh && sh->unknown_rank) {
    printf("unknown_rank\n");
  } else {
    putchar('(');
    for (size_t i = 0; sh && i < sh->n_dim; i++)
      printf("%s%lld", i ? ", " : "", (long long)sh->dim[i]->size);
    printf(")\n");
  }
  printf("%s    name: %s\n", ind,
         ti && ti->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_NAME
             ? ti->name
             : "");
}

/* _show_inputs_outputs_mgd: the inputs and outputs, indented by
 * 2 * indent spaces. */
static int print_inputs_outputs(const signature_def *s, int indent) {
  static const signature_def empty = TENSORFLOW__SIGNATURE_DEF__INIT;
  if (!s) s = &empty;
  char ind[64], ind1[64];
  snprintf(ind, sizeof ind, "%*s", 2 * indent, "");
  snprintf(ind1, sizeof ind1, "%*s", 2 * (indent + 1), "");
  size_t nin = 0, nout = 0;
  entry *in = sorted_map(s->n_inputs, input_at, s, &nin);
  entry *out = sorted_map(s->n_outputs, output_at, s, &nout);
  if (!in || !out) {
    free(in);
    free(out);
    return tfs_cli_error("out of memory");
  }
  printf("%sThe given SavedModel SignatureDef contains the following "
         "input(s):\n",
         ind);
  for (size_t i = 0; i < nin; i++) {
    printf("%s  inputs['%s'] tensor_info:\n", ind, in[i].key);
    print_tensor_info(in[i].value, ind1);
  }
  printf("%sThe given SavedModel SignatureDef contains the following "
         "output(s):\n",
         ind);
  for (size_t i = 0; i < nout; i++) {
    printf("%s  outputs['%s'] tensor_info:\n", ind, out[i].key);
    print_tensor_info(out[i].value, ind1);
  }
  printf("%sMethod name is: %s\n", ind, s->method_name);
  free(in);
  free(out);
  return TFS_CLI_OK;
}

/* ---- ops ----------------------------------------------------------------- */

typedef struct op_walk {
  tfs_map functions; /* name -> FunctionDef */
  tfs_map used;      /* op and function names */
  const Tensorflow__FunctionDef **pending;
  size_t npending;
} op_walk;

static const Tensorflow__AttrValue *node_attr(const Tensorflow__NodeDef *n,
                                              const char *name) {
  for (size_t i = 0; i < n->n_attr; i++)
    if (n->attr[i]->key && strcmp(n->attr[i]->key, name) == 0)
      return n->attr[i]->value;
  return NULL;
}

static int mark_used(op_walk *w, const char *op) {
  if (tfs_map_get_str(&w->used, op)) return 0;
  const Tensorflow__FunctionDef *f = tfs_map_get_str(&w->functions, op);
  if (f) w->pending[w->npending++] = f; /* each function pushed once */
  return tfs_map_put_str(&w->used, op, (void *)op);
}

static int process_node(op_walk *w, const Tensorflow__NodeDef *n) {
  if (mark_used(w, n->op)) return -1;
  if (strcmp(n->op, "PartitionedCall") &&
      strcmp(n->op, "StatefulPartitionedCall"))
    return 0;
  /* node.attr["f"].func.name: "" when there is none */
  const Tensorflow__AttrValue *f = node_attr(n, "f");
  int func = f && f->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC &&
             f->func;
  return mark_used(w, func ? f->func->name : "");
}

/* meta_graph.ops_used_by_graph_def: the ops of the graph's nodes and of
 * the functions they reach (by op name, or PartitionedCall's f), function
 * names left out; sorted, as a malloc'd array of *n borrowed names. */
static const char **ops_used(const Tensorflow__GraphDef *gd, size_t *n) {
  op_walk w = {TFS_MAP_INIT, TFS_MAP_INIT, NULL, 0};
  const Tensorflow__FunctionDefLibrary *lib = gd ? gd->library : NULL;
  size_t nfun = lib ? lib->n_function : 0;
  w.pending = calloc(nfun + 1, sizeof *w.pending);
  int rc = w.pending ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < nfun; i++)
    if (lib->function[i]->signature)
      rc = tfs_map_put_str(&w.functions, lib->function[i]->signature->name,
                           lib->function[i]);
  for (size_t i = 0; rc == 0 && gd && i < gd->n_node; i++)
    rc = process_node(&w, gd->node[i]);
  while (rc == 0 && w.npending) {
    const Tensorflow__FunctionDef *f = w.pending[--w.npending];
    for (size_t i = 0; rc == 0 && i < f->n_node_def; i++)
      rc = process_node(&w, f->node_def[i]);
  }
  const char **ops = rc ? NULL : calloc(w.used.count + 1, sizeof *ops);
  size_t k = 0;
  const tfs_map_entry *e;
  for (size_t pos = 0; ops && tfs_map_next(&w.used, &pos, &e);)
    if (!tfs_map_get_str(&w.functions, e->value)) ops[k++] = e->value;
  if (ops) qsort(ops, k, sizeof *ops, cmp_str);
  *n = k;
  free(w.pending);
  tfs_map_free(&w.functions);
  tfs_map_free(&w.used);
  return ops;
}

static int print_ops(const meta_graph *mg) {
  size_t n = 0;
  const char **ops = ops_used(mg->graph_def, &n);
  if (!ops) return tfs_cli_error("out of memory");
  printf("The MetaGraph with tag set [");
  for (size_t i = 0; i < ntags(mg); i++) {
    if (i) printf(", ");
    print_repr(tag(mg, i));
  }
  printf("] contains the following ops: ");
  if (n == 0) printf("set()");
  for (size_t i = 0; i < n; i++) {
    printf(i ? ", " : "{");
    print_repr(ops[i]);
  }
  printf(n ? "}\n" : "\n");
  free(ops);
  return TFS_CLI_OK;
}

/* ---- the show modes ------------------------------------------------------ */

static int has_object_graph(const meta_graph *mg) {
  for (size_t i = 0; i < mg->base.n_unknown_fields; i++)
    if (mg->base.unknown_fields[i].tag == OBJECT_GRAPH_FIELD) return 1;
  return 0;
}

/* show --all */
static int show_all(const Tensorflow__SavedModel *sm) {
  size_t n = sm->n_meta_graphs;
  void **order = calloc(n + 1, sizeof *order);
  if (!order) return tfs_cli_error("out of memory");
  for (size_t i = 0; i < n; i++) order[i] = sm->meta_graphs[i];
  stable_sort(order, n, cmp_meta_graphs);
  int rc = TFS_CLI_OK, object_graph = 0;
  for (size_t m = 0; rc == TFS_CLI_OK && m < n; m++) {
    const meta_graph *mg = order[m];
    object_graph |= has_object_graph(mg);
    printf("\nMetaGraphDef with tag-set: '");
    for (size_t i = 0; i < ntags(mg); i++)
      printf("%s%s", i ? ", " : "", tag(mg, i));
    printf("' contains the following SignatureDefs:\n");
    size_t ns = 0;
    entry *sigs = signatures(mg, &ns);
    if (!sigs) rc = tfs_cli_error("out of memory");
    for (size_t i = 0; rc == TFS_CLI_OK && i < ns; i++) {
      printf("\nsignature_def['%s']:\n", sigs[i].key);
      rc = print_inputs_outputs(sigs[i].value, 1);
    }
    free(sigs);
    if (rc == TFS_CLI_OK) rc = print_ops(mg);
  }
  free(order);
  if (rc == TFS_CLI_OK && object_graph)
    rc = tfs_cli_print_concrete_functions(sm);
  return rc;
}

/* One MetaGraph's tags, sorted: a malloc'd array of borrowed strings. */
static const char **sorted_tags(const meta_graph *mg) {
  const char **v = calloc(ntags(mg) + 1, sizeof *v);
  for (size_t i = 0; v && i < ntags(mg); i++) v[i] = tag(mg, i);
  if (v) qsort(v, ntags(mg), sizeof *v, cmp_str);
  return v;
}

/* show (no --tag_set): the tag sets, each with its tags sorted. */
static int show_tag_sets(const Tensorflow__SavedModel *sm) {
  size_t n = sm->n_meta_graphs;
  void **order = calloc(n + 1, sizeof *order);
  if (!order) return tfs_cli_error("out of memory");
  for (size_t i = 0; i < n; i++) order[i] = sm->meta_graphs[i];
  stable_sort(order, n, cmp_meta_graphs);
  printf("The given SavedModel contains the following tag-sets:\n");
  int rc = TFS_CLI_OK;
  for (size_t m = 0; rc == TFS_CLI_OK && m < n; m++) {
    const char **tags = sorted_tags(order[m]);
    tfs_strbuf b = TFS_STRBUF_INIT;
    for (size_t i = 0; tags && i < ntags(order[m]); i++)
      tfs_strbuf_printf(&b, "%s%s", i ? ", " : "", tags[i]);
    if (tags) {
      print_repr(tfs_strbuf_str(&b));
      putchar('\n');
    } else {
      rc = tfs_cli_error("out of memory");
    }
    tfs_strbuf_free(&b);
    free(tags);
  }
  free(order);
  return rc;
}

static int same_set(const meta_graph *mg, const tfs_cli_tags *t) {
  for (size_t i = 0; i < ntags(mg); i++) {
    int found = 0;
    for (int k = 0; !found && k < t->n; k++)
      found = !strcmp(t->v[k], tag(mg, i));
    if (!found) return 0;
  }
  for (int k = 0; k < t->n; k++) {
    int found = 0;
    for (size_t i = 0; !found && i < ntags(mg); i++)
      found = !strcmp(t->v[k], tag(mg, i));
    if (!found) return 0;
  }
  return 1;
}

/* saved_model_utils.get_meta_graph_def: the first MetaGraph whose tag set
 * is `list`'s, else NULL after saved_model_cli's error. */
static const meta_graph *find_meta_graph(const Tensorflow__SavedModel *sm,
                                         const char *list) {
  tfs_cli_tags t;
  if (tfs_cli_tags_parse(list, &t)) return NULL;
  const meta_graph *found = NULL;
  for (size_t m = 0; !found && m < sm->n_meta_graphs; m++)
    if (same_set(sm->meta_graphs[m], &t)) found = sm->meta_graphs[m];
  tfs_cli_tags_free(&t);
  if (found) return found;
  tfs_strbuf b = TFS_STRBUF_INIT;
  for (size_t m = 0; m < sm->n_meta_graphs; m++) {
    const char **tags = sorted_tags(sm->meta_graphs[m]);
    tfs_strbuf_puts(&b, m ? ", '" : "'");
    for (size_t i = 0; tags && i < ntags(sm->meta_graphs[m]); i++)
      tfs_strbuf_printf(&b, "%s%s", i ? "," : "", tags[i]);
    tfs_strbuf_putc(&b, '\'');
    free(tags);
  }
  tfs_cli_error("MetaGraphDef associated with tag-set %s could not be found "
                "in the SavedModel. Please use one of the following "
                "tag-sets: [%s]",
                list, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return NULL;
}

/* show --tag_set T [--signature_def K] */
static int show_meta_graph(const Tensorflow__SavedModel *sm, const char *tags,
                           const char *key) {
  const meta_graph *mg = find_meta_graph(sm, tags);
  if (!mg) return TFS_CLI_FAILED;
  size_t ns = 0;
  entry *sigs = signatures(mg, &ns);
  if (!sigs) return tfs_cli_error("out of memory");
  int rc = TFS_CLI_OK;
  if (!key) {
    printf("The given SavedModel MetaGraphDef contains SignatureDefs with the "
           "following keys:\n");
    for (size_t i = 0; i < ns; i++)
      printf("SignatureDef key: \"%s\"\n", sigs[i].key);
  } else if (find_signature(mg, key)) {
    rc = print_inputs_outputs(find_signature(mg, key), 0);
  } else {
    tfs_strbuf b = TFS_STRBUF_INIT;
    for (size_t i = 0; i < ns; i++)
      tfs_strbuf_printf(&b, "%s%s", i ? ", " : "", sigs[i].key);
    rc = tfs_cli_error("Could not find signature \"%s\". Please choose from: "
                       "%s",
                       key, tfs_strbuf_str(&b));
    tfs_strbuf_free(&b);
  }
  free(sigs);
  return rc;
}

/* The ops MetaGraph `mg` cannot run, on stderr under its tag set; 1 when
 * there is any. */
static int check_runnable(const meta_graph *mg) {
  if (!mg->graph_def) return 0;
  tfs_strbuf b = TFS_STRBUF_INIT;
  const char **tags = sorted_tags(mg);
  tfs_strbuf_puts(&b, "MetaGraph with tag-set '");
  for (size_t i = 0; tags && i < ntags(mg); i++)
    tfs_strbuf_printf(&b, "%s%s", i ? "," : "", tags[i]);
  tfs_strbuf_puts(&b, "': ");
  free(tags);
  fflush(stdout);
  int bad = tfs_cli_print_unrunnable(stderr, mg->graph_def, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return bad;
}

int tfs_cli_inspect_saved_model(const char *dir, int tag_sets,
                                const char *tags, const char *signature) {
  Tensorflow__SavedModel *sm = read_saved_model(dir);
  if (!sm) return TFS_CLI_FAILED;
  int rc, bad = 0;
  if (tag_sets) {
    rc = show_tag_sets(sm);
  } else if (tags || signature) {
    rc = show_meta_graph(sm, tags ? tags : "serve", signature);
    const meta_graph *mg =
        rc == TFS_CLI_OK ? find_meta_graph(sm, tags ? tags : "serve") : NULL;
    if (mg) bad = check_runnable(mg);
  } else {
    rc = show_all(sm);
    for (size_t m = 0; rc == TFS_CLI_OK && m < sm->n_meta_graphs; m++)
      bad |= check_runnable(sm->meta_graphs[m]);
  }
  tfs_pb__free(&sm->base);
  return rc == TFS_CLI_OK && bad ? TFS_CLI_FAILED : rc;
}

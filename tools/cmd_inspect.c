/*
 * tools/cmd_inspect.c - `tfsess inspect`: a summary of a GraphDef file in
 * the spirit of TensorFlow's summarize_graph: inputs, likely outputs, op
 * histogram, parameter count, and the nodes this build cannot run.  Works
 * on the raw GraphDef, so graphs that would not import still inspect.  A
 * SavedModel directory prints what saved_model_cli show prints
 * (inspect_saved_model.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config_proto/pb_text.h"
#include "config_proto/pb_util.h"
#include "core/attr_value.h"
#include "core/hashmap.h"
#include "kernels/kernel.h"
#include "ops/op_def.h"
#include "proto/graph.pb-c.h"

static const tfs_cli_help kInspectHelp = {
    "inspect MODEL.pb|MODEL.pbtxt | SAVED_MODEL_DIR "
    "[--tag-sets | --tags TAG,... "
    "[--signature KEY]]",
    "Summarizes the GraphDef in MODEL.pb (MODEL.pbtxt: a text GraphDef):\n"
    "its inputs (placeholders with\n"
    "dtype and shape), likely outputs (nodes nothing consumes), an op\n"
    "histogram, the parameter count (elements of Const nodes and of\n"
    "variables), and the nodes whose op this build does not register or\n"
    "has no CPU kernel for (also inside library functions); the exit\n"
    "status is then 1, 0 when every op can run.\n"
    "A SavedModel directory prints what TensorFlow's saved_model_cli show\n"
    "--all prints: every MetaGraph's signatures with their inputs and\n"
    "outputs, and the ops it uses (sorted).",
    1, 1};

typedef struct inspect_args {
  int tag_sets;
  const char *tags, *signature;
} inspect_args;

static int set_tag_sets(void *c, const char *v) {
  ((inspect_args *)c)->tag_sets = 1;
  return 0;
}
static int set_tags(void *c, const char *v) {
  tfs_cli_tags t; /* checked here: a bad list is a usage error */
  if (tfs_cli_tags_parse(v, &t)) return -1;
  tfs_cli_tags_free(&t);
  ((inspect_args *)c)->tags = v;
  return 0;
}
static int set_signature(void *c, const char *v) {
  ((inspect_args *)c)->signature = v;
  return 0;
}

static const tfs_cli_opt kInspectOpts[] = {
    {"tag-sets", NULL,
     "list the tag sets of the MetaGraphs (saved_model_cli show --dir)",
     set_tag_sets},
    {"tags", "TAG[,TAG...]",
     "list the signature keys of this MetaGraph (show --tag_set)", set_tags},
    {"signature", "KEY",
     "show this signature's inputs and outputs (show --signature_def; "
     "tags default to serve)",
     set_signature},
    {NULL, NULL, NULL, NULL}};

typedef Tensorflow__NodeDef node_def;

static const Tensorflow__AttrValue *node_attr(const node_def *n,
                                              const char *name) {
  for (size_t i = 0; i < n->n_attr; i++)
    if (n->attr[i]->key && strcmp(n->attr[i]->key, name) == 0)
      return n->attr[i]->value;
  return NULL;
}

static const char *shape_text(const Tensorflow__TensorShapeProto *s, char *buf,
                              size_t cap) {
  if (!s || s->unknown_rank) return "<unknown>";
  size_t used = (size_t)snprintf(buf, cap, "[");
  for (size_t i = 0; i < s->n_dim && used < cap; i++) {
    int64_t d = s->dim[i]->size;
    used += d < 0
                ? (size_t)snprintf(buf + used, cap - used, "%s?", i ? "," : "")
                : (size_t)snprintf(buf + used, cap - used, "%s%lld",
                                   i ? "," : "", (long long)d);
  }
  if (used < cap) snprintf(buf + used, cap - used, "]");
  return buf;
}

/* Elements of a fully known shape; 0 when unknown. */
static int64_t shape_elems(const Tensorflow__TensorShapeProto *s) {
  if (!s || s->unknown_rank) return 0;
  int64_t n = 1;
  for (size_t i = 0; i < s->n_dim; i++) {
    if (s->dim[i]->size < 0 || tfs_mul_overflow_i64(n, s->dim[i]->size, &n))
      return 0;
  }
  return n;
}

/* The node name an input string refers to ("^a", "a:1" -> "a"). */
static void input_node(const char *in, char *buf, size_t cap) {
  if (in[0] == '^') in++;
  snprintf(buf, cap, "%s", in);
  char *colon = strrchr(buf, ':');
  if (colon) *colon = 0;
}

static void print_inputs_outputs(const Tensorflow__GraphDef *gd) {
  tfs_map names = TFS_MAP_INIT;
  char *consumed = calloc(gd->n_node + 1, 1);
  for (size_t i = 0; i < gd->n_node; i++)
    tfs_map_put_str(&names, gd->node[i]->name, (void *)(i + 1));
  char buf[1024];
  for (size_t i = 0; consumed && i < gd->n_node; i++) {
    for (size_t k = 0; k < gd->node[i]->n_input; k++) {
      input_node(gd->node[i]->input[k], buf, sizeof buf);
      size_t idx = (size_t)tfs_map_get_str(&names, buf);
      if (idx) consumed[idx - 1] = 1;
    }
  }
  int nin = 0, nout = 0;
  for (size_t i = 0; i < gd->n_node; i++)
    nin += !strncmp(gd->node[i]->op, "Placeholder", 11);
  printf("Inputs (%d):\n", nin);
  for (size_t i = 0; i < gd->n_node; i++) {
    const node_def *n = gd->node[i];
    if (strncmp(n->op, "Placeholder", 11) != 0) continue;
    const Tensorflow__AttrValue *dt = node_attr(n, "dtype");
    const Tensorflow__AttrValue *sh = node_attr(n, "shape");
    printf(
        "  %s: %s %s%s\n", n->name,
        dt && dt->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE
            ? tfs_dtype_name((tfs_dtype)dt->type)
            : "?",
        shape_text(sh && sh->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE
                       ? sh->shape
                       : NULL,
                   buf, sizeof buf),
        strcmp(n->op, "PlaceholderWithDefault") ? "" : " (with default)");
  }
  for (size_t i = 0; consumed && i < gd->n_node; i++) nout += !consumed[i];
  printf("Likely outputs (%d):\n", nout);
  for (size_t i = 0; consumed && i < gd->n_node; i++)
    if (!consumed[i]) printf("  %s (%s)\n", gd->node[i]->name, gd->node[i]->op);
  free(consumed);
  tfs_map_free(&names);
}

typedef struct {
  const char *op;
  int count;
} op_count;

static int by_count(const void *a, const void *b) {
  const op_count *x = a, *y = b;
  if (x->count != y->count) return y->count - x->count;
  return strcmp(x->op, y->op);
}

static void print_histogram(const Tensorflow__GraphDef *gd) {
  op_count *h = calloc(gd->n_node + 1, sizeof *h);
  size_t nh = 0;
  if (!h) return;
  for (size_t i = 0; i < gd->n_node; i++) {
    size_t k = 0;
    while (k < nh && strcmp(h[k].op, gd->node[i]->op)) k++;
    if (k == nh) h[nh++].op = gd->node[i]->op;
    h[k].count++;
  }
  qsort(h, nh, sizeof *h, by_count);
  printf("Ops (%zu types):\n", nh);
  for (size_t k = 0; k < nh; k++) printf("  %6d  %s\n", h[k].count, h[k].op);
  free(h);
}

static void print_parameters(const Tensorflow__GraphDef *gd) {
  int64_t consts = 0, vars = 0;
  int nconst = 0, nvar = 0;
  for (size_t i = 0; i < gd->n_node; i++) {
    const node_def *n = gd->node[i];
    if (strcmp(n->op, "Const") == 0) {
      const Tensorflow__AttrValue *v = node_attr(n, "value");
      if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR &&
          v->tensor) {
        consts += shape_elems(v->tensor->tensor_shape);
        nconst++;
      }
    } else if (!strcmp(n->op, "VariableV2") || !strcmp(n->op, "Variable") ||
               !strcmp(n->op, "VarHandleOp")) {
      const Tensorflow__AttrValue *s = node_attr(n, "shape");
      if (s && s->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE)
        vars += shape_elems(s->shape);
      nvar++;
    }
  }
  printf("Parameters: %lld in %d Const nodes, %lld in %d variables\n",
         (long long)consts, nconst, (long long)vars, nvar);
}

/* Why `n` cannot run here (malloc'd), or NULL when it can. */
static char *cannot_run(const node_def *n) {
  const tfs_op_def *op = tfs_op_lookup(n->op);
  if (!op) return tfs_strdup("not registered in this build");
  tfs_attrs attrs;
  tfs_attrs_init(&attrs);
  tfs_strbuf why = TFS_STRBUF_INIT;
  for (int i = 0; i < op->nattrs; i++) {
    const tfs_attr_def *ad = &op->attrs[i];
    if (ad->type != TFS_ATTR_TYPE || ad->is_list) continue;
    const Tensorflow__AttrValue *v = node_attr(n, ad->name);
    tfs_attr_value av;
    if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE)
      tfs_attr_type_val(&av, (tfs_dtype)v->type);
    else if (ad->has_default)
      tfs_attr_type_val(&av, ad->def.u.type);
    else
      continue;
    tfs_strbuf_printf(&why, "%s%s=%s", why.len ? ", " : "", ad->name,
                      tfs_dtype_name(av.u.type));
    tfs_attrs_set(&attrs, ad->name, &av);
  }
  tfs_status *st = tfs_status_new();
  const tfs_kernel_def *k = tfs_kernel_find(op, "CPU", &attrs, n->name, st);
  tfs_status_free(st);
  tfs_attrs_clear(&attrs);
  char *r = NULL;
  if (!k)
    r = tfs_asprintf("no CPU kernel%s%s", why.len ? " for " : "",
                     tfs_strbuf_str(&why));
  tfs_strbuf_free(&why);
  return r;
}

/* Every node of the graph and of the library functions it can call, with
 * the name to print ("node", or "function/node" for a body's node). */
typedef struct any_node {
  const node_def *n;
  char *label;
} any_node;

/* Index of library function `name`, or -1. */
static long find_function(const Tensorflow__FunctionDefLibrary *lib,
                          const char *name) {
  for (size_t f = 0; lib && f < lib->n_function; f++)
    if (lib->function[f]->signature &&
        strcmp(lib->function[f]->signature->name, name) == 0)
      return (long)f;
  return -1;
}

/* Marks the functions node `n` calls (its op, function-valued attrs and
 * lists of them) in `reach`, pushing newly marked ones on `stack`. */
static void mark_calls(const Tensorflow__FunctionDefLibrary *lib,
                       const node_def *n, char *reach, size_t *stack,
                       size_t *top) {
  const char *names[64];
  size_t nn = 0;
  names[nn++] = n->op;
  for (size_t i = 0; i < n->n_attr; i++) {
    const Tensorflow__AttrValue *v = n->attr[i]->value;
    if (!v) continue;
    if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func &&
        nn < 64)
      names[nn++] = v->func->name;
    if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
      for (size_t j = 0; j < v->list->n_func && nn < 64; j++)
        names[nn++] = v->list->func[j]->name;
  }
  for (size_t k = 0; k < nn; k++) {
    long f = names[k] ? find_function(lib, names[k]) : -1;
    if (f >= 0 && !reach[f]) {
      reach[f] = 1;
      stack[(*top)++] = (size_t)f;
    }
  }
}

/* The library functions the graph's nodes can call, directly or through
 * other functions (calloc'd flags, one per function; NULL on OOM).
 * Functions nothing calls (gradients, another device's variant of a
 * layer) never run, so what they hold does not matter. */
static char *reachable_functions(const Tensorflow__GraphDef *gd) {
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  size_t nf = lib ? lib->n_function : 0;
  char *reach = calloc(nf + 1, 1);
  size_t *stack = calloc(nf + 1, sizeof *stack), top = 0;
  if (!reach || !stack) {
    free(reach);
    free(stack);
    return NULL;
  }
  for (size_t i = 0; i < gd->n_node; i++)
    mark_calls(lib, gd->node[i], reach, stack, &top);
  while (top > 0) {
    const Tensorflow__FunctionDef *fd = lib->function[stack[--top]];
    for (size_t i = 0; i < fd->n_node_def; i++)
      mark_calls(lib, fd->node_def[i], reach, stack, &top);
  }
  free(stack);
  return reach;
}

static any_node *all_nodes(const Tensorflow__GraphDef *gd, size_t *count) {
  size_t total = gd->n_node;
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  char *reach = reachable_functions(gd);
  if (!reach) return NULL;
  for (size_t f = 0; lib && f < lib->n_function; f++)
    if (reach[f]) total += lib->function[f]->n_node_def;
  any_node *v = calloc(total + 1, sizeof *v);
  if (!v) {
    free(reach);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < gd->n_node; i++, k++) {
    v[k].n = gd->node[i];
    v[k].label = tfs_strdup(gd->node[i]->name);
  }
  for (size_t f = 0; lib && f < lib->n_function; f++) {
    const Tensorflow__FunctionDef *fd = lib->function[f];
    const char *fname = fd->signature ? fd->signature->name : "";
    if (!reach[f]) continue;
    for (size_t i = 0; i < fd->n_node_def; i++, k++) {
      v[k].n = fd->node_def[i];
      v[k].label = tfs_asprintf("%s/%s", fname, fd->node_def[i]->name);
    }
  }
  free(reach);
  *count = total;
  return v;
}

static int is_function(const Tensorflow__GraphDef *gd, const char *op) {
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  for (size_t f = 0; lib && f < lib->n_function; f++)
    if (lib->function[f]->signature &&
        strcmp(lib->function[f]->signature->name, op) == 0)
      return 1;
  return 0;
}

int tfs_cli_print_unrunnable(FILE *out, const Tensorflow__GraphDef *gd,
                             const char *title) {
  size_t n = 0;
  any_node *v = all_nodes(gd, &n);
  char **why = calloc(n + 1, sizeof *why);
  if (!v || !why) {
    free(v);
    free(why);
    return 0;
  }
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    if (!is_function(gd, v[i].n->op))
      bad += (why[i] = cannot_run(v[i].n)) != NULL;
  if (!bad) {
    if (!title) fprintf(out, "Every op can run in this build.\n");
  } else {
    fprintf(out, "%sCannot run (%zu node%s):\n", title ? title : "", bad,
            bad == 1 ? "" : "s");
    /* One line per (op, reason), naming its nodes. */
    for (size_t i = 0; i < n; i++) {
      if (!why[i]) continue;
      fprintf(out, "  %s: %s: %s", v[i].n->op, why[i], v[i].label);
      for (size_t j = i + 1; j < n; j++) {
        if (why[j] && !strcmp(v[j].n->op, v[i].n->op) &&
            !strcmp(why[j], why[i])) {
          fprintf(out, ", %s", v[j].label);
          free(why[j]);
          why[j] = NULL;
        }
      }
      fprintf(out, "\n");
    }
  }
  for (size_t i = 0; i < n; i++) {
    free(why[i]);
    free(v[i].label);
  }
  free(why);
  free(v);
  return bad > 0;
}

/* The library: one line per function with its signature's size. */
static void print_functions(const Tensorflow__GraphDef *gd) {
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  if (!lib || lib->n_function == 0) return;
  printf("Functions (%zu):\n", lib->n_function);
  for (size_t f = 0; f < lib->n_function; f++) {
    const Tensorflow__FunctionDef *fd = lib->function[f];
    const Tensorflow__OpDef *sig = fd->signature;
    const char *grad = NULL;
    for (size_t g = 0; g < lib->n_gradient; g++)
      if (sig && !strcmp(lib->gradient[g]->function_name, sig->name))
        grad = lib->gradient[g]->gradient_func;
    printf("  %s: %zu input%s, %zu output%s, %zu node%s%s%s%s\n",
           sig ? sig->name : "?", sig ? sig->n_input_arg : 0,
           sig && sig->n_input_arg == 1 ? "" : "s",
           sig ? sig->n_output_arg : 0,
           sig && sig->n_output_arg == 1 ? "" : "s", fd->n_node_def,
           fd->n_node_def == 1 ? "" : "s", sig && sig->is_stateful
                                               ? ", stateful"
                                               : "",
           grad ? ", gradient " : "", grad ? grad : "");
  }
}

int tfs_cli_cmd_inspect(int argc, char **argv) {
  char *pos[1];
  int npos;
  inspect_args a = {0, NULL, NULL};
  tfs_cli_group groups[] = {{"SavedModel", kInspectOpts, &a}};
  int rc = tfs_cli_parse(argc, argv, &kInspectHelp, groups, 1, pos, &npos);
  if (rc) return rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
  if (a.tag_sets && (a.tags || a.signature))
    return tfs_cli_usage_error("--tag-sets lists every tag set; it takes no "
                               "--tags or --signature");
  if (tfs_cli_is_saved_model(pos[0]) || a.tag_sets || a.tags || a.signature)
    return tfs_cli_inspect_saved_model(pos[0], a.tag_sets, a.tags,
                                       a.signature);
  size_t len;
  uint8_t *bytes = tfs_cli_read_file(pos[0], &len);
  if (!bytes) return TFS_CLI_FAILED;
  /* the library's one protobuf entry point: its nesting limit keeps a
   * hostile file from overflowing protobuf-c's recursive parser */
  int oom = 0;
  Tensorflow__GraphDef *gd;
  if (tfs_cli_is_pbtxt(pos[0])) {
    tfs_status *st = tfs_status_new();
    if (!st) {
      free(bytes);
      return tfs_cli_error("%s: out of memory", pos[0]);
    }
    gd = (Tensorflow__GraphDef *)tfs_pb__parse_text(
        &tensorflow__graph_def__descriptor, (const char *)bytes, len, NULL,
        st);
    if (!gd)
      rc = tfs_cli_error("%s: Invalid GraphDef text: %s", pos[0],
                         tfs_status_message(st));
    tfs_status_free(st);
    free(bytes);
    if (!gd) return rc;
  } else {
    gd = (Tensorflow__GraphDef *)tfs_pb__unpack(
        &tensorflow__graph_def__descriptor, bytes, len, &oom);
    free(bytes);
  }
  if (!gd && oom) return tfs_cli_error("%s: out of memory", pos[0]);
  if (!gd)
    return tfs_cli_error("%s: Invalid GraphDef (the bytes do not parse as "
                         "one, or nest deeper than %d levels)",
                         pos[0], TFS_PB_MAX_DEPTH);
  printf("Graph: %s: %zu nodes", pos[0], gd->n_node);
  if (gd->versions) printf(", producer version %d", gd->versions->producer);
  if (gd->library && gd->library->n_function)
    printf(", %zu library functions", gd->library->n_function);
  printf("\n");
  print_inputs_outputs(gd);
  print_histogram(gd);
  print_parameters(gd);
  print_functions(gd);
  rc = tfs_cli_print_unrunnable(stdout, gd, NULL) ? TFS_CLI_FAILED
                                                     : TFS_CLI_OK;
  tfs_pb__free(&gd->base);
  return rc;
}

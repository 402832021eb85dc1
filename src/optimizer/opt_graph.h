/*
 * optimizer/opt_graph.h - the optimizer's mutable graph (IR): nodes with
 * inputs, control inputs and maintained fan-outs, names, flags for
 * preserved / fed / side-effecting nodes, cheap snapshots for rolling a
 * failed pass back, and conversion from and to a tfs_graph.
 *
 * Every string, attr map, dtype and shape array a node points at is
 * immutable: it lives in the source graph or in the optimization's arena,
 * both of which outlive every IR graph of one optimization.  Only the
 * input / control / fan-out arrays belong to a node.  Passes change the
 * graph only through the functions below, so fan-outs stay exact and the
 * first change after tfs_og__arm_snapshot copies the graph for rollback.
 */
#ifndef TFS_OPTIMIZER_OPT_GRAPH_H
#define TFS_OPTIMIZER_OPT_GRAPH_H

#include "core/attr_value.h"
#include "core/hashmap.h"
#include "graph_builder/graph_internal.h"

/* ---- arena: immutable data shared by every IR graph of a run ----------- */

typedef struct tfs_oarena tfs_oarena;

tfs_oarena *tfs_oarena__new(void);
void tfs_oarena__free(tfs_oarena *a);
/* Zeroed memory living as long as the arena; NULL on OOM. */
void *tfs_oarena__alloc(tfs_oarena *a, size_t n);
char *tfs_oarena__strdup(tfs_oarena *a, const char *s);
char *tfs_oarena__printf(tfs_oarena *a, const char *fmt, ...) TFS_PRINTF(2, 3);
/* Moves *attrs into the arena (cleared on return, also on failure) and
 * returns the arena's copy; NULL on OOM. */
const tfs_attrs *tfs_oarena__keep_attrs(tfs_oarena *a, tfs_attrs *attrs);

/* ---- nodes ----------------------------------------------------------------
 */

/* An edge source, or a consumer slot: node index and output port (for a
 * source) or input index (for a consumer). */
typedef struct tfs_oref {
  int node;
  int port;
} tfs_oref;

enum {
  TFS_ON_DEAD = 1u << 0,       /* removed; index never reused */
  TFS_ON_PRESERVED = 1u << 1,  /* name and output signature must stay */
  TFS_ON_FED = 1u << 2,        /* an output is fed: opaque to rewrites */
  TFS_ON_SIDE_EFFECT = 1u << 3 /* stateful, ref/resource I/O, control flow,
                                  or not foldable: never folded,
                                  deduplicated or rewritten */
};

typedef struct tfs_onode {
  const char *name;
  const tfs_op_def *def;
  const char *device;        /* "" when none */
  const tfs_attrs *attrs;    /* complete (defaults filled) */
  const tfs_dtype *in_types; /* expected dtype of each input */
  const tfs_dtype *out_types;
  const tfs_shape *out_shapes; /* inferred partial shapes */
  int nin, nout, nctrl, nfan, ncfan;
  int incap, ctrlcap, fancap, cfancap; /* < 0: array not owned */
  tfs_oref *in;                        /* producer of each data input */
  int *ctrl;                           /* control inputs (node indices) */
  tfs_oref *fan;                       /* data consumers: {node, input index} */
  int *cfan;                           /* control consumers */
  const tfs_operation *src; /* the source op when imported, else NULL */
  unsigned flags;
  /* the user's nodes this one stands for (NodeDef experimental_debug_info
   * original_node_names; immutable, shared): norig 0 means the node
   * itself when imported, none when a pass added it */
  int norig;
  const char *const *orig;
} tfs_onode;

typedef struct tfs_ograph {
  tfs_onode *n;
  int nn, cap;
  int nlive;
  int64_t nedges;    /* data + control edges of live nodes */
  tfs_map names;     /* name -> index + 1 (live nodes) */
  tfs_oarena *arena; /* borrowed */
  /* rollback: when armed, the first change copies the graph here */
  int snap_armed;
  struct tfs_ograph *snap;
  void **blocks; /* array blocks shared by cloned nodes */
  int nblocks;
  /* buffers of the last committed snapshot, reused by the next one; in a
   * snapshot: the capacities of its own two buffers */
  void *spare_n, *spare_block;
  size_t spare_n_cap, spare_block_cap;
  int oom; /* an allocation failed mid-change */
} tfs_ograph;

static inline tfs_onode *tfs_og__node(tfs_ograph *g, int i) {
  return &g->n[i];
}
static inline int tfs_og__live(const tfs_ograph *g, int i) {
  return i >= 0 && i < g->nn && !(g->n[i].flags & TFS_ON_DEAD);
}
static inline const char *tfs_og__op(const tfs_ograph *g, int i) {
  return g->n[i].def->name;
}
static inline int tfs_og__is(const tfs_ograph *g, int i, const char *op) {
  const char *name = g->n[i].def->name;
  return name[0] == op[0] && strcmp(name, op) == 0;
}

void tfs_og__init(tfs_ograph *g, tfs_oarena *arena);
void tfs_og__clear(tfs_ograph *g);

/* Index of the live node named `name`, or -1. */
int tfs_og__find(const tfs_ograph *g, const char *name);

/* Data edges plus control edges of live nodes. */
static inline int64_t tfs_og__num_edges(const tfs_ograph *g) {
  return g->nedges;
}

/* ---- import / export --------------------------------------------------- */

/* Imports the ops of `src` whose ids are marked in keep[] (NULL: all),
 * in id order, borrowing their names, attrs and shapes.  Inputs must be
 * kept too (an earlier or, rewired, a later op).  map (required, src->nops entries) maps op id -> node index:
 * on entry -1 for an op to import, or the index of a node that already
 * stands for it (which is then not imported); on return the index of
 * each imported op. */
int tfs_og__import(tfs_ograph *g, tfs_graph *src, const uint8_t *keep,
                   int *map, tfs_status *st);

/* Builds a new graph from the live nodes in a topological order (every
 * node validated and shape-inferred again by tfs_graph__add_node).
 * Returns a new graph the caller frees, or NULL with an error. */
tfs_graph *tfs_og__export(tfs_ograph *g, tfs_status *st);

/* Infers the output shapes of the live nodes again, in a topological
 * order, keeping what each shape function adds to a node's partial
 * shapes (after a rewrite such as inlining, whose nodes' consumers were
 * inferred from a call's unknown shapes); a shape function's error or a
 * disagreement keeps the node's shapes, a graph with a cycle keeps all.
 * Returns how many nodes gained, or -1 when memory runs out (in st). */
int tfs_og__refresh_shapes(tfs_ograph *g, tfs_status *st);

/* A topological order of the live nodes (data and control edges) into
 * order[] (room for g->nn); returns the count, or -1 on a cycle or OOM
 * with an error. */
int tfs_og__topo_order(tfs_ograph *g, int *order, tfs_status *st);

/* ---- adding and changing nodes ------------------------------------------ */

typedef struct tfs_onode_spec {
  const char *name; /* NULL: a unique name made from `base` */
  const char *base; /* e.g. "ConstantFolding/x" */
  const char *op;
  const char *device; /* NULL: "" */
  tfs_attrs *attrs;   /* consumed (cleared on return); NULL: none */
  int nin;
  const tfs_oref *in;
  int nctrl;
  const int *ctrl; /* fed nodes among them are dropped */
  int norig_from;  /* the new node stands for these nodes' originals */
  const int *orig_from;
} tfs_onode_spec;

/* Adds a node: fills default attrs, derives input/output dtypes, checks
 * the inputs' dtypes (INTERNAL on a mismatch: a pass bug), infers output
 * shapes.  Returns its index or -1 with an error. */
int tfs_og__add(tfs_ograph *g, const tfs_onode_spec *spec, tfs_status *st);

/* A new Const holding `value` (a new reference is taken). */
int tfs_og__add_const(tfs_ograph *g, const char *name, const char *base,
                      const char *device, tfs_tensor *value, int nctrl,
                      const int *ctrl, tfs_status *st);

/* Replaces node `old` by a node built from `spec` that takes old's name:
 * every data consumer of old:p is rewired to new:p and every control
 * consumer to new, then old is removed.  spec->name is ignored; spec's
 * inputs must not use `old`.  The new node must have an output for each
 * consumed output of old, with the same dtype (INTERNAL otherwise, naming
 * the port and both dtypes).  Returns the new index, or -1 with an error
 * and the graph as it was (but for an out-of-memory error, which sets
 * g->oom). */
int tfs_og__replace(tfs_ograph *g, int old, const tfs_onode_spec *spec,
                    tfs_status *st);

/* tfs_og__replace for a rewrite that changes output dtypes on purpose
 * (auto mixed precision): the consumers receive the new dtypes and the
 * caller makes them consistent again (Casts) before the pass ends. */
int tfs_og__replace_retyped(tfs_ograph *g, int old,
                            const tfs_onode_spec *spec, tfs_status *st);

/* Sets data input k of node i (fan-outs updated). */
int tfs_og__set_input(tfs_ograph *g, int i, int k, tfs_oref src);
/* Adds control input c to node i unless present or c is fed (a fed
 * value exists before the run starts); removes one. */
int tfs_og__add_ctrl(tfs_ograph *g, int i, int c);
void tfs_og__remove_ctrl(tfs_ograph *g, int i, int c);
void tfs_og__clear_ctrl(tfs_ograph *g, int i);
/* Rewires every data consumer of `from` to `to`.  Returns 0 or -1 (OOM). */
int tfs_og__forward(tfs_ograph *g, tfs_oref from, tfs_oref to);
/* Every control consumer of `from` gets control inputs on each of
 * to[0..n) instead (n may be 0: the edge is dropped). */
int tfs_og__forward_ctrl(tfs_ograph *g, int from, const int *to, int n);
/* Removes node i, which must have no consumers left (data or control).
 * Its own edges are unlinked. */
void tfs_og__kill(tfs_ograph *g, int i);
/* Removes node i if it has no consumer left and may be removed (see
 * tfs_og__removable), then, recursively, producers that this leaves
 * without consumers.  Returns how many nodes went. */
int tfs_og__kill_unused(tfs_ograph *g, int i);

/* ---- original node names -------------------------------------------------
 * A pass that replaces, fuses, folds or merges nodes records the user's
 * nodes the result stands for (TensorFlow's NodeDef
 * experimental_debug_info.original_node_names), so that step stats can
 * name them.  tfs_og__add takes spec->orig_from; tfs_og__replace appends
 * the replaced node's originals after those. */

/* A list grows to at most this many names (a large folded constant
 * subgraph would otherwise make lists quadratic in its size). */
#define TFS_OG_MAX_ORIG 64

/* Appends the originals of node src (its list, else its own name when it
 * was imported) to node dst's, skipping names already there, up to
 * TFS_OG_MAX_ORIG names (dst's own name among them kept).  src may be
 * dead.  Returns 0, or -1 on OOM (g->oom set). */
int tfs_og__add_origins(tfs_ograph *g, int dst, int src);

/* The original names node i exports (spec->norig / orig_names): none
 * when its list is empty or only its own name. */
void tfs_og__export_origins(const tfs_ograph *g, int i, tfs_node_spec *spec);

/* A fresh unique name from `base` (arena memory); NULL on OOM. */
const char *tfs_og__unique_name(tfs_ograph *g, const char *base);

/* ---- snapshots (rollback of a failed pass) --------------------------------
 */

/* Arms the snapshot: the next change copies the graph first. */
void tfs_og__arm_snapshot(tfs_ograph *g);
/* Drops the snapshot (the pass succeeded). */
void tfs_og__commit(tfs_ograph *g);
/* Restores the graph as it was when armed (the pass failed). */
void tfs_og__rollback(tfs_ograph *g);
/* 1 when something changed since the snapshot was armed. */
static inline int tfs_og__changed(const tfs_ograph *g) {
  return g->snap != NULL;
}

/* ---- queries ----------------------------------------------------------- */

/* The node producing data input k of node i, or -1 when it is fed (a fed
 * producer is opaque to pattern matching). */
int tfs_og__producer(const tfs_ograph *g, int i, int k);
/* The constant value behind a source, or NULL (fed Consts are not
 * constants).  Borrowed. */
const tfs_tensor *tfs_og__const_value(const tfs_ograph *g, tfs_oref src);
/* Number of consumers of output `port` of node i. */
int tfs_og__port_uses(const tfs_ograph *g, int i, int port);
/* Node may be removed / merged / fused away: live, not preserved, not
 * fed, no side effect. */
static inline int tfs_og__removable(const tfs_ograph *g, int i) {
  return !(g->n[i].flags &
           (TFS_ON_DEAD | TFS_ON_PRESERVED | TFS_ON_FED | TFS_ON_SIDE_EFFECT));
}
/* Node may be replaced by a node keeping its name and outputs: not fed,
 * no side effect (preserved is fine). */
static inline int tfs_og__replaceable(const tfs_ograph *g, int i) {
  return !(g->n[i].flags & (TFS_ON_DEAD | TFS_ON_FED | TFS_ON_SIDE_EFFECT));
}
/* dtype attr "T" (or `name`) of node i; TFS_INVALID when absent. */
tfs_dtype tfs_og__type_attr(const tfs_ograph *g, int i, const char *name);
/* Shape of a source. */
static inline const tfs_shape *tfs_og__shape(const tfs_ograph *g, tfs_oref s) {
  return &g->n[s.node].out_shapes[s.port];
}
static inline tfs_dtype tfs_og__dtype(const tfs_ograph *g, tfs_oref s) {
  return g->n[s.node].out_types[s.port];
}

/* Whether a node has the side-effect flag (computed on import/add). */
unsigned tfs_og__classify(const tfs_op_def *def, const tfs_dtype *in, int nin,
                          const tfs_dtype *out, int nout);

#endif

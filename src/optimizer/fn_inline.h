/*
 * optimizer/fn_inline.h - what the function optimizer's two halves
 * share: instantiating a library function for one optimization, copying
 * its body into the IR under a name prefix (TensorFlow's
 * InlineFunctionBody; pass_inline.c) and lowering If, Case and While to
 * TF1 control flow (TensorFlow's LowerIf/Case/WhileOpToSwitchMerge;
 * pass_lower_cf.c), plus the export of a graph that has loops.
 */
#ifndef TFS_OPTIMIZER_FN_INLINE_H
#define TFS_OPTIMIZER_FN_INLINE_H

#include "graph_builder/function_inst.h"
#include "graph_builder/function_lib.h"
#include "optimizer/optimizer.h"

/* Where an inlined body goes and what it is connected to. */
typedef struct tfs_inline_io {
  const char *prefix; /* body nodes are named "prefix/<name>" */
  const char *device; /* for body nodes that request none ("" or NULL) */
  const tfs_oref *in; /* the value of each argument */
  int anchor;         /* a node every input-less body node, every input
                         Identity and every call without control inputs
                         depends on (-1: none): TensorFlow's
                         input_control_node, which carries the caller's
                         control inputs and its frame */
  tfs_oref *out;      /* filled: the output Identity of each return value
                         (room for the body's nrets) */
  int *ctrl;          /* filled: the body's control_ret nodes (room for
                         the body's nctrl) */
} tfs_inline_io;

/* Instantiates function `f` (its attrs bound) from the source graph's
 * library for this optimization.  Returns 0, or -1 with *why set to a
 * new message (caller frees) saying why it could not be. */
int tfs_fnopt__instantiate(tfs_opt_ctx *c, const tfs_func_attr *f,
                           tfs_fn_body *out, char **why);

/* The FunctionDef named `name`, or NULL (borrowed from the private
 * library copy, valid for the optimization). */
const Tensorflow__FunctionDef *tfs_fnopt__fdef(tfs_opt_ctx *c,
                                                const char *name);

/* Whether the body holds TF1 control flow, which is not inlined. */
int tfs_fnopt__body_has_cf(const tfs_fn_body *b);

/* Copies body `b` into the IR: an Identity "Func/<prefix>/input/_k" per
 * argument fed by io->in[k], the body's nodes renamed "<prefix>/<name>"
 * (devices: their own, else io->device), an Identity
 * "Func/<prefix>/output/_k" per return value.  Returns 0, or -1 with an
 * error in c->st (the graph is then half changed: the caller fails the
 * pass, which rolls it back). */
int tfs_fnopt__inline_body(tfs_opt_ctx *c, const tfs_fn_body *b,
                           tfs_inline_io *io);

/* Moves every consumer of node i to its replacement (data consumers of
 * i:p to outs[p], control consumers to ctl[0..nctl)), then removes i or,
 * when it is preserved, puts an IdentityN of its name over outs (a NoOp
 * when nout is 0) waiting for ctl in its place (TensorFlow's
 * KeepCallerNode::kFetchable).  Returns 0 or -1 with an error. */
int tfs_fnopt__finish_node(tfs_opt_ctx *c, int i, const tfs_oref *outs,
                           int nout, const int *ctl, int nctl);

/* Node attrs saying the node is compiled by XLA or for a TPU
 * (TensorFlow's MarkedForXlaCompilation / MarkedForTpuCompilation:
 * "_xla_compile_id", "_XlaCluster", "_tpu_replicate" set, or
 * "_XlaMustCompile" true). */
int tfs_fnopt__xla_marked(const tfs_attrs *a);

/* Whether node i is an If, StatelessIf, Case, StatelessCase, While or
 * StatelessWhile that the lowering takes: attr _lower_using_switch_merge
 * true, not marked for XLA, not fed, lowering enabled. */
int tfs_lower__wants(tfs_opt_ctx *c, int i);

/* Lowers node i (tfs_lower__wants said yes) to Switch/Merge (If, Case)
 * or Enter/Merge/Switch/LoopCond/NextIteration/Exit (While), its
 * functions inlined.  Returns 1 when lowered, 0 when it was left alone
 * (a note says why), -1 with an error in c->st. */
int tfs_lower__node(tfs_opt_ctx *c, int i);

/* Whether a live node of g is TF1 control flow. */
int tfs_lower__has_cf(const tfs_ograph *g);

/* tfs_og__export for a graph with loops: orders the nodes with the
 * NextIteration -> Merge back edges left out and adds those edges at the
 * end, as the GraphDef importer does.  Returns a new graph or NULL with
 * an error. */
tfs_graph *tfs_lower__export(tfs_ograph *g, tfs_status *st);

#endif

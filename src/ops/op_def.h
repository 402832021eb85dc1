/*
 * ops/op_def.h - what an op is: its input and output arguments, its attrs
 * with kinds, defaults and allowed values, its shape function and flags.
 *
 * Op families declare ops as compact specs in TensorFlow's own signature
 * notation (tfs_op_spec); the registry parses them once into tfs_op_def.
 * Names of ops, arguments and attrs are TensorFlow's, defaults too, so a
 * GraphDef that TensorFlow wrote (with default attrs stripped) imports.
 */
#ifndef TFS_OPS_OP_DEF_H
#define TFS_OPS_OP_DEF_H

#include "core/attr_value.h"

struct tfs_shape_ctx;
typedef int (*tfs_shape_fn)(struct tfs_shape_ctx *c);

/* Flags. */
enum {
  TFS_OP_STATEFUL = 1u << 0,      /* never folded, deduplicated or pruned */
  TFS_OP_COMMUTATIVE = 1u << 1,
  TFS_OP_AGGREGATE = 1u << 2,
  TFS_OP_ELEMENTWISE = 1u << 3,   /* output i depends on input element i */
  TFS_OP_CHEAP = 1u << 4,         /* run inline by the executor */
  TFS_OP_ALLOWS_UNINIT = 1u << 5, /* may take an uninitialised ref input */
  TFS_OP_NO_FOLD = 1u << 6,       /* not constant-foldable (random, io) */
  TFS_OP_CONTROL_FLOW = 1u << 7,  /* Switch/Merge/Enter/Exit/... */
  TFS_OP_SOURCE = 1u << 8,        /* no data inputs by design (Const) */
  TFS_OP_PLACEHOLDER = 1u << 9    /* a value the caller feeds: Placeholder
                                     (must be fed), PlaceholderWithDefault
                                     (its input unless fed); the semantics
                                     live in src/placeholder/ */
};

/* One op, as written in a family table.  Lists are ';'-separated:
 *   inputs  "x: T; y: T", "values: N * T", "ref: Ref(T)", "c: bool",
 *           "args: Tin" (a list(type) attr)
 *   attrs   "T: {float, int32}; N: int >= 1; keep_dims: bool = false;
 *            padding: {'SAME', 'VALID'}; shape: shape = <unknown>;
 *            strides: list(int); dilations: list(int) = [1, 1, 1, 1]" */
typedef struct tfs_op_spec {
  const char *name;
  const char *inputs;
  const char *outputs;
  const char *attrs;
  tfs_shape_fn shape_fn;
  unsigned flags;
} tfs_op_spec;

typedef struct tfs_arg_def {
  char *name;
  tfs_dtype type;       /* fixed type, or TFS_INVALID */
  char *type_attr;      /* or NULL */
  char *number_attr;    /* "N" of "N * T", or NULL */
  char *type_list_attr; /* list(type) attr, or NULL */
  int is_ref;
} tfs_arg_def;

typedef struct tfs_attr_def {
  char *name;
  uint8_t type;    /* tfs_attr_type */
  uint8_t is_list;
  uint8_t has_default;
  uint8_t has_min;
  int64_t min;
  tfs_attr_value def;      /* when has_default */
  tfs_attr_value allowed;  /* a list; u.list.n == 0: anything */
} tfs_attr_def;

typedef struct tfs_op_def {
  char *name;
  int ninputs, noutputs, nattrs;
  tfs_arg_def *inputs;
  tfs_arg_def *outputs;
  tfs_attr_def *attrs;
  tfs_shape_fn shape_fn;
  unsigned flags;
  char *summary; /* TensorFlow's SummarizeOpDef text, for messages */
} tfs_op_def;

/* The op definition for `name`, or NULL.  The registry is built on first
 * use and never changes afterwards; pointers stay valid for the life of
 * the process.  Thread-safe. */
const tfs_op_def *tfs_op_lookup(const char *name);

/* Every registered op, sorted by name.  *n receives the count. */
const tfs_op_def *const *tfs_op_all(int *n);

/* How many ops the family tables declare.  Every declared op must be
 * registered (tfs_op_all's count): a spec that does not parse or a name
 * declared twice is a bug in tfsess, logged as an error when the
 * registry is built and caught by tests/ops/test_registry. */
int tfs_op_registry_declared(void);

const tfs_attr_def *tfs_op_def_attr(const tfs_op_def *op, const char *name);

/* Index of an input/output argument named `name`, or -1. */
int tfs_op_def_input_index(const tfs_op_def *op, const char *name);
int tfs_op_def_output_index(const tfs_op_def *op, const char *name);

/* Parses one spec into *out (used by the registry and by tests).
 * Returns 0, or -1 with INVALID_ARGUMENT naming the problem. */
int tfs_op_def_parse(const tfs_op_spec *spec, tfs_op_def *out,
                     tfs_status *st);
void tfs_op_def_clear(tfs_op_def *op);

/* TensorFlow's "Op type not registered" error for `name`. */
void tfs_op_not_registered(const char *name, tfs_status *st);

#endif

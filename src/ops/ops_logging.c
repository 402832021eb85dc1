/*
 * ops/ops_logging.c - debugging and logging ops: Assert, CheckNumerics,
 * Print (legacy), PrintV2 and StringFormat (tf.print / tf.strings.format).
 */
#include <string.h>

#include "ops/op_tables.h"
#include "ops/shape_ctx.h"

static int print_v2_shape(tfs_shape_ctx *c) {
  if (c->in_shapes[0].rank > 0)
    return tfs_sc_error(c, "input must be a scalar, but has rank: %d",
                        c->in_shapes[0].rank);
  return 0;
}

/* Non-overlapping occurrences of the placeholder in the template, as the
 * kernel splits it. */
static int string_format_shape(tfs_shape_ctx *c) {
  size_t tlen = 0, plen = 0;
  const char *tpl = tfs_attrs_get_string(c->attrs, "template", &tlen);
  const char *ph = tfs_attrs_get_string(c->attrs, "placeholder", &plen);
  int64_t n = 0;
  if (tpl && ph && plen == 0) {
    n = tlen > 0 ? (int64_t)tlen - 1 : 0;
  } else if (tpl && ph) {
    for (size_t i = 0; i + plen <= tlen;) {
      if (memcmp(tpl + i, ph, plen) == 0) {
        n++;
        i += plen;
      } else {
        i++;
      }
    }
  }
  if (n != c->ninputs)
    return tfs_sc_error(c, "num placeholders in template and num inputs "
                        "must match: %lld vs. %d", (long long)n, c->ninputs);
  c->out_shapes[0].rank = 0;
  return 0;
}

const tfs_op_spec tfs_ops_logging[] = {
    {"Assert", "condition: bool; data: T", "",
     "T: list(type) >= 1; summarize: int = 3", tfs_shape_fn_no_outputs,
     TFS_OP_STATEFUL},
    {"CheckNumerics", "tensor: T", "output: T",
     "T: {bfloat16, half, float, double}; message: string",
     tfs_shape_fn_unchanged, TFS_OP_STATEFUL},
    {"Print", "input: T; data: U", "output: T",
     "T: type; U: list(type) >= 0; message: string = ''; first_n: int = -1; "
     "summarize: int = 3",
     tfs_shape_fn_unchanged, TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"PrintV2", "input: string", "",
     "output_stream: string = 'stderr'; end: string = '\n'", print_v2_shape,
     TFS_OP_STATEFUL | TFS_OP_NO_FOLD},
    {"StringFormat", "inputs: T", "output: string",
     "T: list(type) >= 0; template: string = '%s'; placeholder: string = "
     "'%s'; summarize: int = 3",
     string_format_shape, 0},
    {NULL, NULL, NULL, NULL, NULL, 0},
};

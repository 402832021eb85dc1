/*
 * backends/cpu/compare.c - comparisons with broadcasting (bool output;
 * Equal/NotEqual with incompatible_shape_error=false answer a scalar for
 * shapes that do not broadcast) and LogicalAnd, LogicalOr, LogicalNot.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/tstring.h"
#include "backends/cpu/cpu_tables.h"
#include "backends/cpu/ew_loops.h"

#define TO_BOOL(x) ((uint8_t)(x))
#define CMP(NAME, T, LOAD, EXPR) \
  EW_BIN_GEN(NAME, T, uint8_t, LOAD, TO_BOOL, EXPR)
#define CMP_LOOPS(OP, EXPR)                                    \
  CMP(OP##_f32, float, EW_ID, EXPR)                            \
  CMP(OP##_f64, double, EW_ID, EXPR)                           \
  CMP(OP##_f16, uint16_t, H2F, EXPR)                           \
  CMP(OP##_bf16, uint16_t, B2F, EXPR)                          \
  CMP(OP##_i8, int8_t, EW_ID, EXPR)                            \
  CMP(OP##_i16, int16_t, EW_ID, EXPR)                          \
  CMP(OP##_i32, int32_t, EW_ID, EXPR)                          \
  CMP(OP##_i64, int64_t, EW_ID, EXPR)                          \
  CMP(OP##_u8, uint8_t, EW_ID, EXPR)                           \
  CMP(OP##_u16, uint16_t, EW_ID, EXPR)                         \
  CMP(OP##_u32, uint32_t, EW_ID, EXPR)                         \
  CMP(OP##_u64, uint64_t, EW_ID, EXPR)

CMP_LOOPS(eq, x == y)
CMP_LOOPS(ne, x != y)
CMP_LOOPS(lt, x < y)
CMP_LOOPS(le, x <= y)
CMP_LOOPS(gt, x > y)
CMP_LOOPS(ge, x >= y)
CMP(eq_c64, tfs_c64, EW_ID, x == y)
CMP(eq_c128, tfs_c128, EW_ID, x == y)
CMP(ne_c64, tfs_c64, EW_ID, x != y)
CMP(ne_c128, tfs_c128, EW_ID, x != y)
CMP(eq_bool, uint8_t, EW_ID, x == y)
CMP(ne_bool, uint8_t, EW_ID, x != y)
CMP(and_bool, uint8_t, EW_ID, x && y)
CMP(or_bool, uint8_t, EW_ID, x || y)

static int str_equal(const tfs_tstring *x, const tfs_tstring *y) {
  size_t lx = tfs_tstring_size(x);
  return lx == tfs_tstring_size(y) &&
         memcmp(tfs_tstring_data(x), tfs_tstring_data(y), lx) == 0;
}

static int eq_str(const void *A, const void *B, void *O, int64_t n,
                  int mode) {
  const tfs_tstring *a = A, *b = B;
  uint8_t *o = O;
  for (int64_t i = 0; i < n; i++)
    o[i] = (uint8_t)str_equal(&a[mode == TFS_BIN_SV ? 0 : i],
                              &b[mode == TFS_BIN_VS ? 0 : i]);
  return 0;
}

static int ne_str(const void *A, const void *B, void *O, int64_t n,
                  int mode) {
  eq_str(A, B, O, n, mode);
  uint8_t *o = O;
  for (int64_t i = 0; i < n; i++) o[i] = !o[i];
  return 0;
}

#define ENTRIES(OP) EW_FLOAT_ENTRIES(OP), EW_INT_ENTRIES(OP)
static const tfs_bin_table kEq = {
    {ENTRIES(eq), EW_COMPLEX_ENTRIES(eq), [TFS_BOOL] = eq_bool,
     [TFS_STRING] = eq_str},
    "", 1, 0};
static const tfs_bin_table kNe = {
    {ENTRIES(ne), EW_COMPLEX_ENTRIES(ne), [TFS_BOOL] = ne_bool,
     [TFS_STRING] = ne_str},
    "", 1, 0};
static const tfs_bin_table kLt = {{ENTRIES(lt)}, "", 1, 0};
static const tfs_bin_table kLe = {{ENTRIES(le)}, "", 1, 0};
static const tfs_bin_table kGt = {{ENTRIES(gt)}, "", 1, 0};
static const tfs_bin_table kGe = {{ENTRIES(ge)}, "", 1, 0};
static const tfs_bin_table kAnd = {{[TFS_BOOL] = and_bool}, "", 1, 0};
static const tfs_bin_table kOr = {{[TFS_BOOL] = or_bool}, "", 1, 0};

/* ---- Equal / NotEqual with incompatible_shape_error ------------------ */

typedef struct {
  void *inner;  /* the elementwise engine's state */
  int strict;   /* incompatible_shape_error */
  uint8_t mismatch_value;
} eq_state;

static int eq_prepare(tfs_kernel_init *ki) {
  if (tfs_binary_prepare(ki)) return -1;
  eq_state *s = tfs_calloc(1, sizeof(*s));
  if (!s) {
    free(ki->state);
    ki->state = NULL;
    return tfs_ki_error(ki, TFS_RESOURCE_EXHAUSTED, "out of memory");
  }
  s->inner = ki->state;
  s->strict = 1;
  tfs_attrs_get_bool(ki->attrs, "incompatible_shape_error", &s->strict);
  s->mismatch_value = strcmp(ki->op->name, "NotEqual") == 0;
  ki->state = s;
  return 0;
}

static void eq_release(void *p) {
  eq_state *s = p;
  if (!s) return;
  free(s->inner);
  tfs_free(s);
}

static void eq_compute(tfs_kernel_ctx *c) {
  eq_state *s = c->state;
  tfs_shape os;
  if (!s->strict &&
      tfs_shape_broadcast(&c->inputs[0]->shape, &c->inputs[1]->shape,
                          &os) != 0) {
    tfs_shape scalar;
    tfs_shape_scalar(&scalar);
    tfs_tensor *o = tfs_kctx_alloc_output(c, 0, &scalar);
    if (o) *(uint8_t *)o->data = s->mismatch_value;
    return;
  }
  c->state = s->inner;
  tfs_binary_compute(c);
  c->state = s;
}

/* ---- LogicalNot ------------------------------------------------------ */

EW_UN_GEN(not_bool, uint8_t, uint8_t, EW_ID, TO_BOOL, !x)
static const tfs_un_table kNot = {{[TFS_BOOL] = not_bool}, "", 1, 0};

/* bool ops have no type attr: prepare sees input dtype bool */
#define ORDER_T (TFS_DT_FLOATS | EW_DT_SIGNED | EW_DT_UNSIGNED)
#define EQ_T \
  (ORDER_T | EW_DT_COMPLEX | EW_DT(BOOL) | EW_DT(STRING))
#define BIN(OP, TYPES, TABLE)                                           \
  {OP, "CPU", "T", TYPES, tfs_binary_prepare, tfs_binary_compute,       \
   free, 0, &TABLE}

const tfs_kernel_def tfs_cpu_kernels_compare[] = {
    {"Equal", "CPU", "T", EQ_T, eq_prepare, eq_compute, eq_release, 0, &kEq},
    {"NotEqual", "CPU", "T", EQ_T, eq_prepare, eq_compute, eq_release, 0,
     &kNe},
    BIN("Less", ORDER_T, kLt),
    BIN("LessEqual", ORDER_T, kLe),
    BIN("Greater", ORDER_T, kGt),
    BIN("GreaterEqual", ORDER_T, kGe),
    {"LogicalAnd", "CPU", NULL, 0, tfs_binary_prepare, tfs_binary_compute,
     free, 0, &kAnd},
    {"LogicalOr", "CPU", NULL, 0, tfs_binary_prepare, tfs_binary_compute,
     free, 0, &kOr},
    {"LogicalNot", "CPU", NULL, 0, tfs_unary_prepare, tfs_unary_compute,
     free, 0, &kNot},
    {NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL},
};

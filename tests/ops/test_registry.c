/*
 * tests/ops/test_registry.c - the op registry: parsing op specs written in
 * TensorFlow's signature notation, summaries in TensorFlow's format,
 * lookups, and the kernel registry.
 */
#include <stdlib.h>

#include "kernels/kernel.h"
#include "ops/op_def.h"
#include "placeholder/placeholder.h"
#include "testutil.h"

static void test_lookup(void) {
  const tfs_op_def *mm = tfs_op_lookup("MatMul");
  CU_ASSERT_PTR_NOT_NULL_FATAL(mm);
  CU_ASSERT_EQUAL(mm->ninputs, 2);
  CU_ASSERT_EQUAL(mm->noutputs, 1);
  CU_ASSERT_STRING_EQUAL(mm->inputs[1].name, "b");
  CU_ASSERT_STRING_EQUAL(mm->outputs[0].name, "product");
  CU_ASSERT_EQUAL(tfs_op_def_input_index(mm, "b"), 1);
  CU_ASSERT_EQUAL(tfs_op_def_input_index(mm, "c"), -1);
  CU_ASSERT_EQUAL(tfs_op_def_output_index(mm, "product"), 0);
  const tfs_attr_def *ta = tfs_op_def_attr(mm, "transpose_a");
  CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
  CU_ASSERT_TRUE(ta->has_default);
  CU_ASSERT_EQUAL(ta->def.u.b, 0);
  CU_ASSERT_PTR_NULL(tfs_op_lookup("NoSuchOp"));
  CU_ASSERT_PTR_NULL(tfs_op_lookup(NULL));
  int n;
  const tfs_op_def *const *all = tfs_op_all(&n);
  CU_ASSERT_TRUE(n > 40);
  for (int i = 1; i < n; i++)
    CU_ASSERT_TRUE(strcmp(all[i - 1]->name, all[i]->name) < 0);
  /* every registered op has at least one CPU kernel */
  tfs_status *st = tfs_status_new();
  for (int i = 0; i < n; i++) {
    int nk, found = 0;
    const tfs_kernel_def *const *ks = tfs_kernel_all(&nk);
    for (int k = 0; k < nk; k++) found |= strcmp(ks[k]->op, all[i]->name) == 0;
    if (!found) fprintf(stderr, "\n  no kernel for %s\n", all[i]->name);
    CU_ASSERT_TRUE(found);
  }
  tfs_status_free(st);
}

static void test_summaries(void) {
  CU_ASSERT_STRING_EQUAL(tfs_op_lookup("Identity")->summary,
                         "Op<name=Identity; signature=input:T -> output:T; "
                         "attr=T:type>");
  CU_ASSERT_STRING_EQUAL(
      tfs_op_lookup("VariableV2")->summary,
      "Op<name=VariableV2; signature= -> ref:Ref(dtype); "
      "attr=shape:shape; attr=dtype:type; attr=container:string,default=\"\"; "
      "attr=shared_name:string,default=\"\"; is_stateful=true>");
  CU_ASSERT_STRING_EQUAL(
      tfs_op_lookup("Reshape")->summary,
      "Op<name=Reshape; signature=tensor:T, shape:Tshape -> output:T; "
      "attr=T:type; attr=Tshape:type,default=DT_INT32,allowed=[DT_INT32, "
      "DT_INT64]>");
  CU_ASSERT_STRING_EQUAL(
      tfs_op_lookup("AddV2")->summary,
      "Op<name=AddV2; signature=x:T, y:T -> z:T; attr=T:type,allowed=["
      "DT_BFLOAT16, DT_HALF, DT_FLOAT, DT_DOUBLE, DT_UINT8, DT_UINT16, "
      "DT_UINT32, DT_UINT64, DT_INT8, DT_INT16, DT_INT32, DT_INT64, "
      "DT_COMPLEX64, DT_COMPLEX128]; is_commutative=true; "
      "is_aggregate=true>");
}

static void test_parse_spec_forms(void) {
  tfs_status *st = tfs_status_new();
  tfs_op_spec spec = {
      "Fancy", "values: N * T; ref: Ref(T); args: Tin; flag: bool",
      "out: T; outs: Tout",
      "T: {float, int32}; N: int >= 2; Tin: list(type); Tout: list(type) "
      ">= 0; padding: {'SAME', 'VALID'} = 'SAME'; dilations: list(int) = "
      "[1, 1, 1, 1]; alpha: float = 0.2; shape: shape = [?,3]; s2: shape = "
      "<unknown>; d: type = int64; names: list(string) = ['a', 'b']; "
      "fl: list(float) = []; nt: numbertype; t: tensor; f: func",
      NULL, TFS_OP_STATEFUL};
  tfs_op_def d;
  CU_ASSERT_EQUAL_FATAL(tfs_op_def_parse(&spec, &d, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(d.inputs[0].number_attr, "N");
  CU_ASSERT_STRING_EQUAL(d.inputs[0].type_attr, "T");
  CU_ASSERT_TRUE(d.inputs[1].is_ref);
  CU_ASSERT_STRING_EQUAL(d.inputs[2].type_list_attr, "Tin");
  CU_ASSERT_EQUAL(d.inputs[3].type, TFS_BOOL);
  const tfs_attr_def *n = tfs_op_def_attr(&d, "N");
  CU_ASSERT_TRUE(n->has_min);
  CU_ASSERT_EQUAL(n->min, 2);
  const tfs_attr_def *dil = tfs_op_def_attr(&d, "dilations");
  CU_ASSERT_EQUAL(dil->def.u.list.n, 4);
  const tfs_attr_def *sh = tfs_op_def_attr(&d, "shape");
  CU_ASSERT_EQUAL(sh->def.u.shape->rank, 2);
  CU_ASSERT_EQUAL(sh->def.u.shape->dims[0], -1);
  CU_ASSERT_EQUAL(tfs_op_def_attr(&d, "s2")->def.u.shape->rank, -1);
  CU_ASSERT_EQUAL(tfs_op_def_attr(&d, "d")->def.u.type, TFS_INT64);
  CU_ASSERT_EQUAL(tfs_op_def_attr(&d, "names")->def.u.list.n, 2);
  CU_ASSERT_EQUAL(tfs_op_def_attr(&d, "nt")->allowed.u.list.n, 19);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.summary, "values:N*T, ref:Ref(T), "
                                           "args:Tin, flag:bool -> out:T, "
                                           "outs:Tout"));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.summary, "attr=padding:string,default="
                                           "\"SAME\",allowed=[\"SAME\", "
                                           "\"VALID\"]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.summary, "attr=alpha:float,default=0.2"));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.summary, "is_stateful=true"));
  tfs_op_def_clear(&d);
  tfs_status_free(st);
}

static void test_parse_spec_errors(void) {
  static const struct {
    tfs_op_spec spec;
    const char *want;
  } cases[] = {
      {{"A", "x: Q", "", "", NULL, 0},
       "argument type is neither a type attr nor a dtype"},
      {{"B", "x T", "", "", NULL, 0}, "expected ':'"},
      {{"C", "", "", "T: wobble", NULL, 0}, "unknown attr kind"},
      {{"D", "", "", "T: {float, nope}", NULL, 0}, "unknown dtype"},
      {{"E", "", "", "b: bool = maybe", NULL, 0}, "expected true or false"},
      {{"F", "", "", "s: string = 'open", NULL, 0}, "unterminated string"},
      {{"G", "x: N * T", "", "T: type; N: float", NULL, 0},
       "number attr must be an int attr"},
      {{"H", "", "", "l: list(int) = [1 2]", NULL, 0}, "expected ','"},
  };
  tfs_status *st = tfs_status_new();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tfs_op_def d;
    CU_ASSERT_EQUAL(tfs_op_def_parse(&cases[i].spec, &d, st), -1);
    TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, cases[i].want);
    TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Bad op spec for '");
  }
  tfs_status_free(st);
}

static void test_kernel_lookup(void) {
  tfs_status *st = tfs_status_new();
  tfs_attrs a;
  tfs_attrs_init(&a);
  tfs_attr_value v;
  tfs_attr_type_val(&v, TFS_FLOAT);
  tfs_attrs_set(&a, "T", &v);
  const tfs_kernel_def *k =
      tfs_kernel_find(tfs_op_lookup("AddV2"), "CPU", &a, "add", st);
  CU_ASSERT_PTR_NOT_NULL(k);
  CU_ASSERT_PTR_NULL(tfs_kernel_find(tfs_op_lookup("AddV2"), "TPU", &a, "add", st));
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "No OpKernel was registered to support Op 'AddV2' used by "
                   "{{node add}} with these attrs: [T=DT_FLOAT]");
  tfs_attrs_clear(&a);
  tfs_status_free(st);
}

static void test_not_registered_message(void) {
  tfs_status *st = tfs_status_new();
  tfs_op_not_registered("Zap", st);
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND, "Op type not registered 'Zap' in binary "
                                      "running on ");
  TFS_ASSERT_ERROR(st, TFS_NOT_FOUND,
                   "Note that if you are loading a saved graph which used ops "
                   "from tf.contrib (e.g. `tf.contrib.resampler`), accessing "
                   "should be done before importing the graph, as contrib "
                   "ops are lazily registered when the module is first "
                   "accessed.");
  tfs_status_free(st);
}

/* Every op the family tables declare is registered, and every kernel the
 * device tables declare: a bad spec or a kernel of an unknown op is
 * dropped with an error log at startup, and this catches it. */
static void test_declared_equals_registered(void) {
  int nops = 0, nkernels = 0;
  tfs_op_all(&nops);
  CU_ASSERT_TRUE(nops > 150);
  CU_ASSERT_EQUAL(nops, tfs_op_registry_declared());
  tfs_kernel_all(&nkernels);
  CU_ASSERT_TRUE(nkernels > 150);
  CU_ASSERT_EQUAL(nkernels, tfs_kernel_registry_declared());
  if (nops != tfs_op_registry_declared() ||
      nkernels != tfs_kernel_registry_declared())
    fprintf(stderr, "\n  ops %d of %d, kernels %d of %d registered\n", nops,
            tfs_op_registry_declared(), nkernels,
            tfs_kernel_registry_declared());
}

/* Placeholder semantics hang on one flag: the three placeholder ops
 * have it, with their kinds; nothing else does. */
static void test_placeholder_flag(void) {
  CU_ASSERT_EQUAL(tfs_placeholder__kind(tfs_op_lookup("Placeholder")),
                  TFS_PH_REQUIRED);
  CU_ASSERT_EQUAL(
      tfs_placeholder__kind(tfs_op_lookup("PlaceholderWithDefault")),
      TFS_PH_WITH_DEFAULT);
  int n = 0, flagged = 0;
  const tfs_op_def *const *all = tfs_op_all(&n);
  for (int i = 0; i < n; i++)
    flagged += (all[i]->flags & TFS_OP_PLACEHOLDER) != 0;
  CU_ASSERT_EQUAL(flagged, 3);
  CU_ASSERT_EQUAL(tfs_placeholder__kind(tfs_op_lookup("PlaceholderV2")),
                  TFS_PH_REQUIRED);
  CU_ASSERT_EQUAL(tfs_placeholder__kind(tfs_op_lookup("Identity")),
                  TFS_PH_NONE);
}

static const tfs_test_case cases[] = {
    {"lookup", test_lookup},
    {"summaries", test_summaries},
    {"parse_spec_forms", test_parse_spec_forms},
    {"parse_spec_errors", test_parse_spec_errors},
    {"kernel_lookup", test_kernel_lookup},
    {"not_registered_message", test_not_registered_message},
    {"declared_equals_registered", test_declared_equals_registered},
    {"placeholder_flag", test_placeholder_flag},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"registry", cases}, {NULL, NULL}};

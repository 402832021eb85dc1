/*
 * tests/tools/test_cli_gpu_pin.c - one GPU per local rank for `tfsess run`
 * under mpirun (tools/cli_gpu_pin.c): the decision for every shape of job
 * (ranks and GPUs on a host, the user's own list or memory settings), and
 * how it lands in session options and their ConfigProto.  Needs neither
 * MPI nor a GPU: the local rank, size and GPU count are arguments.
 */
#include <stdlib.h>

#include "cli.h"
#include "testutil.h"

typedef struct pin_case {
  int local_rank, local_size, ngpus, user_list, user_memory;
  const char *list; /* expected */
  int allow_growth;
} pin_case;

static const pin_case kCases[] = {
    /* not a multi-rank job on this host, no GPU, the user's list */
    {0, 1, 8, 0, 0, "", 0},
    {0, 0, 8, 0, 0, "", 0},
    {1, 2, 0, 0, 0, "", 0},
    {1, 2, -1, 0, 0, "", 0},
    {1, 2, 2, 1, 0, "", 0},
    {1, 4, 2, 1, 0, "", 0},
    /* a rank outside the host's ranks */
    {2, 2, 4, 0, 0, "", 0},
    {-1, 2, 4, 0, 0, "", 0},
    /* a GPU per rank, or more GPUs than ranks */
    {0, 2, 2, 0, 0, "0", 0},
    {1, 2, 2, 0, 0, "1", 0},
    {3, 4, 8, 0, 0, "3", 0},
    {10, 11, 16, 0, 0, "10", 0},
    /* more ranks than GPUs: only ranks whose GPU is shared grow */
    {0, 3, 2, 0, 0, "0", 1},
    {1, 3, 2, 0, 0, "1", 0},
    {2, 3, 2, 0, 0, "0", 1},
    {5, 8, 2, 0, 0, "1", 1},
    {3, 4, 1, 0, 0, "0", 1},
    {8, 9, 4, 0, 0, "0", 1},
    {7, 9, 4, 0, 0, "3", 1},
    {3, 7, 4, 0, 0, "3", 0},
    /* the user decided the memory: pinned, memory left alone */
    {5, 8, 2, 0, 1, "1", 0},
    {1, 2, 1, 0, 1, "0", 0},
};

static void test_decide(void) {
  for (size_t i = 0; i < sizeof kCases / sizeof *kCases; i++) {
    const pin_case *c = &kCases[i];
    tfs_cli_gpu_pin pin;
    memset(&pin, 0x55, sizeof pin);
    tfs_cli_gpu_pin_decide(c->local_rank, c->local_size, c->ngpus,
                           c->user_list, c->user_memory, &pin);
    int ok = strcmp(pin.list, c->list) == 0 &&
             pin.allow_growth == c->allow_growth;
    if (!ok)
      fprintf(stderr,
              "\n  case %zu (rank %d of %d, %d GPUs, list %d, memory %d): "
              "got \"%s\" growth %d, expected \"%s\" growth %d\n",
              i, c->local_rank, c->local_size, c->ngpus, c->user_list,
              c->user_memory, pin.list, pin.allow_growth, c->list,
              c->allow_growth);
    CU_ASSERT_TRUE(ok);
  }
}

/* ConfigProto bytes of `o`, then options made from them (as --config
 * reads a file), so that what the user set comes through the wire. */
static tfs_session_options *through_config(const tfs_session_options *o) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  tfs_session_options_get_config(o, b, st);
  TFS_ASSERT_OK(st);
  tfs_session_options *r = tfs_session_options_new();
  tfs_session_options_set_config(r, b->data, b->length, st);
  TFS_ASSERT_OK(st);
  tfs_buffer_free(b);
  tfs_status_free(st);
  return r;
}

/* Applies the pin for rank `rank` of `size` with `ngpus` GPUs to `o`. */
static void apply(tfs_session_options *o, int rank, int size, int ngpus,
                  const char *list, int growth) {
  tfs_status *st = tfs_status_new();
  tfs_cli_gpu_pin pin;
  CU_ASSERT_EQUAL(tfs_cli_gpu_pin_apply(o, rank, size, ngpus, &pin, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_STRING_EQUAL(pin.list, list);
  CU_ASSERT_EQUAL(pin.allow_growth, growth);
  tfs_status_free(st);
}

static void test_apply_defaults(void) {
  unsetenv("TF_FORCE_GPU_ALLOW_GROWTH");
  /* two ranks on two GPUs: each its own, memory as usual */
  tfs_session_options *o = tfs_session_options_new();
  apply(o, 1, 2, 2, "1", 0);
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(o), "1");
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 0);
  /* what the session gets is in its ConfigProto */
  tfs_session_options *back = through_config(o);
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(back), "1");
  tfs_session_options_free(back);
  tfs_session_options_free(o);
  /* four ranks on one GPU: shared, growing */
  o = tfs_session_options_new();
  apply(o, 3, 4, 1, "0", 1);
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(o), "0");
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 1);
  back = through_config(o);
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(back), 1);
  tfs_session_options_free(back);
  tfs_session_options_free(o);
  /* one rank, or no GPU: untouched */
  o = tfs_session_options_new();
  apply(o, 0, 1, 8, "", 0);
  apply(o, 1, 4, 0, "", 0);
  CU_ASSERT_PTR_NULL(tfs_session_options_visible_device_list(o));
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 0);
  tfs_session_options_free(o);
}

/* --config chose: its visible_device_list wins whole; its memory
 * settings (fraction, allow_growth) keep the growth off or on as set. */
static void test_apply_user_config(void) {
  unsetenv("TF_FORCE_GPU_ALLOW_GROWTH");
  tfs_status *st = tfs_status_new();
  tfs_session_options *u = tfs_session_options_new();
  tfs_session_options_set_visible_device_list(u, "2,3", st);
  TFS_ASSERT_OK(st);
  tfs_session_options *o = through_config(u);
  apply(o, 1, 4, 2, "", 0);
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(o), "2,3");
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 0);
  tfs_session_options_free(o);
  tfs_session_options_free(u);
  /* a memory fraction: pinned, no growth */
  u = tfs_session_options_new();
  tfs_session_options_set_per_process_gpu_memory_fraction(u, 0.3);
  o = through_config(u);
  apply(o, 2, 4, 2, "0", 0);
  CU_ASSERT_STRING_EQUAL(tfs_session_options_visible_device_list(o), "0");
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 0);
  CU_ASSERT_EQUAL(tfs_session_options_per_process_gpu_memory_fraction(o),
                  0.3);
  tfs_session_options_free(o);
  tfs_session_options_free(u);
  /* allow_growth already on: pinned, left on */
  u = tfs_session_options_new();
  tfs_session_options_set_allow_growth(u, 1);
  o = through_config(u);
  apply(o, 2, 4, 2, "0", 0);
  CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), 1);
  tfs_session_options_free(o);
  tfs_session_options_free(u);
  tfs_status_free(st);
}

/* TF_FORCE_GPU_ALLOW_GROWTH=true or false (what the CUDA allocator
 * reads) is the user's choice; other values are not. */
static void test_apply_forced_growth(void) {
  static const struct {
    const char *env;
    int growth;
  } kEnv[] = {{"false", 0}, {"true", 0}, {"1", 1}, {"", 1}};
  for (size_t i = 0; i < sizeof kEnv / sizeof *kEnv; i++) {
    setenv("TF_FORCE_GPU_ALLOW_GROWTH", kEnv[i].env, 1);
    tfs_session_options *o = tfs_session_options_new();
    apply(o, 0, 2, 1, "0", kEnv[i].growth);
    CU_ASSERT_EQUAL(tfs_session_options_allow_growth(o), kEnv[i].growth);
    tfs_session_options_free(o);
  }
  unsetenv("TF_FORCE_GPU_ALLOW_GROWTH");
}

static const tfs_test_case pin_cases[] = {
    {"decide", test_decide},
    {"apply_defaults", test_apply_defaults},
    {"apply_user_config", test_apply_user_config},
    {"apply_forced_growth", test_apply_forced_growth},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cli_gpu_pin", pin_cases},
                                          {NULL, NULL}};

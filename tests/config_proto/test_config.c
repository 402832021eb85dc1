/*
 * tests/config_proto/test_config.c - ConfigProto bytes (as TensorFlow and
 * TF C API programs write them) into session options and back, byte for
 * byte as TensorFlow serializes them, RunOptions parsing, truncated and
 * bit-flipped bytes of both, and RunMetadata step stats from traced runs
 * (tfs_session_run_ex).
 */
#include <stdlib.h>

#include "config_proto/config.h"
#include "session/run_metadata.h"
#include "core/alloc.h"
#include "proto/config.pb-c.h"
#include "session/session_internal.h"
#include "testutil.h"

static tfs_buffer *load(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "tests/data/wire/%s", name);
  static char data[1 << 16];
  size_t n = tu_read_src(path, data, sizeof data);
  return tfs_buffer_new_copy(data, n);
}

/* ---- ConfigProto --------------------------------------------------------- */

static void test_threads_as_c_programs_write_them(void) {
  /* intra_op_parallelism_threads = 1, inter_op_parallelism_threads = 1 */
  static const uint8_t bytes[] = {0x10, 0x01, 0x28, 0x01};
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_session_options_set_config(o, bytes, sizeof bytes, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 1);
  CU_ASSERT_EQUAL(tfs_session_options_inter_op_threads(o), 1);
  CU_ASSERT_EQUAL(tfs_session_options_allow_soft_placement(o), 0);
  /* the same bytes TensorFlow writes, and back out unchanged */
  tfs_buffer *tf = load("config_threads.pb");
  CU_ASSERT_EQUAL(tf->length, sizeof bytes);
  CU_ASSERT_EQUAL(memcmp(tf->data, bytes, sizeof bytes), 0);
  tfs_buffer *out = tfs_buffer_new();
  tfs_session_options_get_config(o, out, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(out->length, sizeof bytes);
  CU_ASSERT_EQUAL(memcmp(out->data, bytes, sizeof bytes), 0);
  /* a second get needs an empty buffer */
  tfs_session_options_get_config(o, out, st);
  TFS_ASSERT_MESSAGE(st, "Passing non-empty TF_Buffer is invalid.");
  tfs_buffer_free(out);
  tfs_buffer_free(tf);

  /* gpu_options {per_process_gpu_memory_fraction: 0.3 allow_growth: true}
   * allow_soft_placement: true */
  static const uint8_t gpu[] = {0x32, 0x0b, 0x09, 0x33, 0x33, 0x33, 0x33,
                                0x33, 0x33, 0xd3, 0x3f, 0x20, 0x01, 0x38,
                                0x01};
  tfs_session_options_set_config(o, gpu, sizeof gpu, st);
  TFS_ASSERT_OK(st);
  const tfs_config *c = &o->config;
  CU_ASSERT_DOUBLE_EQUAL(c->gpu_options.per_process_gpu_memory_fraction, 0.3,
                         1e-15);
  CU_ASSERT_TRUE(c->gpu_options.allow_growth);
  CU_ASSERT_TRUE(tfs_session_options_allow_soft_placement(o));
  /* the bytes replace every option, as TF_SetConfig does */
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 0);
  out = tfs_buffer_new();
  tfs_session_options_get_config(o, out, st);
  CU_ASSERT_EQUAL(out->length, sizeof gpu);
  CU_ASSERT_EQUAL(memcmp(out->data, gpu, sizeof gpu), 0);
  tfs_buffer_free(out);
  tfs_session_options_free(o);
  tfs_status_free(st);
}

static void test_full_config_from_tensorflow(void) {
  tfs_buffer *b = load("config_full.pb");
  tfs_status *st = tfs_status_new();
  tfs_config c;
  CU_ASSERT_EQUAL(tfs_config__parse(b->data, b->length, &c, st), 0);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_config__device_count(&c, "CPU"), 1);
  CU_ASSERT_EQUAL(tfs_config__device_count(&c, "GPU"), 0);
  CU_ASSERT_EQUAL(tfs_config__device_count(&c, "TPU"), -1);
  CU_ASSERT_EQUAL(c.intra_op_parallelism_threads, 4);
  CU_ASSERT_EQUAL(c.inter_op_parallelism_threads, 2);
  CU_ASSERT_TRUE(c.use_per_session_threads);
  CU_ASSERT_EQUAL_FATAL(c.nthread_pools, 2);
  CU_ASSERT_EQUAL(c.session_inter_op_thread_pool[0].num_threads, 3);
  CU_ASSERT_PTR_NULL(c.session_inter_op_thread_pool[0].global_name);
  CU_ASSERT_STRING_EQUAL(c.session_inter_op_thread_pool[1].global_name,
                         "shared");
  CU_ASSERT_TRUE(c.allow_soft_placement);
  CU_ASSERT_TRUE(c.log_device_placement);
  CU_ASSERT_EQUAL(c.operation_timeout_in_ms, 5000);
  CU_ASSERT_DOUBLE_EQUAL(c.gpu_options.per_process_gpu_memory_fraction, 0.5,
                         0);
  CU_ASSERT_TRUE(c.gpu_options.allow_growth);
  CU_ASSERT_STRING_EQUAL(c.gpu_options.visible_device_list, "0,1");
  const tfs_graph_options *go = &c.graph_options;
  CU_ASSERT_TRUE(go->place_pruned_graph);
  CU_ASSERT_TRUE(go->infer_shapes);
  CU_ASSERT_EQUAL(go->optimizer_options.opt_level, -1);
  CU_ASSERT_TRUE(go->optimizer_options.do_function_inlining);
  CU_ASSERT_EQUAL(go->optimizer_options.global_jit_level, -1);
  const tfs_rewriter_config *rw = &go->rewrite_options;
  CU_ASSERT_EQUAL(rw->layout_optimizer, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->constant_folding, TFS_TOGGLE_AGGRESSIVE);
  CU_ASSERT_EQUAL(rw->shape_optimization, TFS_TOGGLE_ON);
  CU_ASSERT_EQUAL(rw->remapping, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->arithmetic_optimization, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->dependency_optimization, TFS_TOGGLE_ON);
  CU_ASSERT_EQUAL(rw->loop_optimization, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->function_optimization, TFS_TOGGLE_ON);
  CU_ASSERT_EQUAL(rw->debug_stripper, TFS_TOGGLE_ON);
  CU_ASSERT_TRUE(rw->disable_model_pruning);
  CU_ASSERT_EQUAL(rw->scoped_allocator_optimization, TFS_TOGGLE_ON);
  CU_ASSERT_EQUAL(rw->pin_to_host_optimization, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->implementation_selector, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->auto_mixed_precision, TFS_TOGGLE_ON);
  CU_ASSERT_EQUAL(rw->common_subgraph_elimination, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->auto_mixed_precision_cpu, TFS_TOGGLE_ON);
  CU_ASSERT_EQUAL(rw->use_plugin_optimizers, TFS_TOGGLE_OFF);
  CU_ASSERT_EQUAL(rw->experimental_conditional_code_motion, TFS_TOGGLE_OFF);
  CU_ASSERT_FALSE(rw->disable_meta_optimizer);
  CU_ASSERT_EQUAL(rw->meta_optimizer_iterations, 1);
  CU_ASSERT_EQUAL(rw->min_graph_nodes, -1);
  CU_ASSERT_EQUAL(rw->memory_optimization, 2 /* MANUAL */);
  CU_ASSERT_EQUAL(rw->meta_optimizer_timeout_ms, 1500);
  CU_ASSERT_TRUE(rw->fail_on_optimizer_errors);
  CU_ASSERT_EQUAL_FATAL(rw->noptimizers, 2);
  CU_ASSERT_STRING_EQUAL(rw->optimizers[0], "constfold");
  CU_ASSERT_STRING_EQUAL(rw->optimizers[1], "arithmetic");
  CU_ASSERT_STRING_EQUAL(c.executor_type, "SINGLE_THREADED_EXECUTOR");
  CU_ASSERT_TRUE(c.disable_thread_spinning);

  /* serialize, parse again: the same config; a copy too */
  tfs_buffer *out = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_config__serialize(&c, out, st), 0);
  tfs_config c2, c3;
  CU_ASSERT_EQUAL(tfs_config__parse(out->data, out->length, &c2, st), 0);
  CU_ASSERT_EQUAL(tfs_config__copy(&c3, &c2), 0);
  tfs_buffer *out2 = tfs_buffer_new(), *out3 = tfs_buffer_new();
  tfs_config__serialize(&c2, out2, st);
  tfs_config__serialize(&c3, out3, st);
  CU_ASSERT_EQUAL_FATAL(out->length, out2->length);
  CU_ASSERT_EQUAL(memcmp(out->data, out2->data, out->length), 0);
  CU_ASSERT_EQUAL_FATAL(out->length, out3->length);
  CU_ASSERT_EQUAL(memcmp(out->data, out3->data, out->length), 0);
  /* the fields tfsess does not model were dropped, nothing else:
   * TensorFlow reads our bytes back to the same values */
  Tensorflow__ConfigProto *p =
      tensorflow__config_proto__unpack(NULL, out->length, out->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->base.n_unknown_fields, 0);
  CU_ASSERT_EQUAL(p->graph_options->rewrite_options->constant_folding,
                  TENSORFLOW__REWRITER_CONFIG__TOGGLE__AGGRESSIVE);
  CU_ASSERT_EQUAL(p->n_device_count, 2);
  CU_ASSERT_STRING_EQUAL(p->device_count[0]->key, "CPU");
  tensorflow__config_proto__free_unpacked(p, NULL);
  tfs_buffer_free(out);
  tfs_buffer_free(out2);
  tfs_buffer_free(out3);
  tfs_config__clear(&c);
  tfs_config__clear(&c2);
  tfs_config__clear(&c3);
  tfs_buffer_free(b);
  tfs_status_free(st);
}

/* ConfigProtos that TensorFlow serialized, holding only fields tfsess
 * models (every one of them set, and then sub-messages present but empty):
 * parsed and serialized again, they are the same bytes, through the
 * internal struct and through session options. */
static void test_serializes_as_tensorflow_does(void) {
  static const char *files[] = {"config_modeled.pb", "config_defaults.pb"};
  tfs_status *st = tfs_status_new();
  for (size_t k = 0; k < TFS_ARRAY_LEN(files); k++) {
    tfs_buffer *tf = load(files[k]);
    tfs_config c;
    CU_ASSERT_EQUAL_FATAL(tfs_config__parse(tf->data, tf->length, &c, st), 0);
    tfs_buffer *out = tfs_buffer_new();
    CU_ASSERT_EQUAL(tfs_config__serialize(&c, out, st), 0);
    TFS_ASSERT_OK(st);
    int same = out->length == tf->length &&
               memcmp(out->data, tf->data, tf->length) == 0;
    if (!same)
      fprintf(stderr, "\n  %s: %zu bytes written, TensorFlow wrote %zu\n",
              files[k], out->length, tf->length);
    CU_ASSERT_TRUE(same);
    tfs_buffer_free(out);
    tfs_config__clear(&c);
    tfs_session_options *o = tfs_session_options_new();
    tfs_session_options_set_config(o, tf->data, tf->length, st);
    TFS_ASSERT_OK(st);
    out = tfs_buffer_new();
    tfs_session_options_get_config(o, out, st);
    TFS_ASSERT_OK(st);
    CU_ASSERT_EQUAL_FATAL(out->length, tf->length);
    CU_ASSERT_EQUAL(memcmp(out->data, tf->data, tf->length), 0);
    tfs_buffer_free(out);
    tfs_session_options_free(o);
    tfs_buffer_free(tf);
  }
  /* a few values of the full one, to know it was read at all */
  tfs_buffer *tf = load("config_modeled.pb");
  tfs_config c;
  CU_ASSERT_EQUAL_FATAL(tfs_config__parse(tf->data, tf->length, &c, st), 0);
  CU_ASSERT_EQUAL(tfs_config__device_count(&c, "GPU"), 2);
  CU_ASSERT_EQUAL(c.inter_op_parallelism_threads, -1);
  CU_ASSERT_STRING_EQUAL(c.gpu_options.allocator_type, "BFC");
  CU_ASSERT_EQUAL(c.graph_options.rewrite_options.cpu_layout_conversion,
                  1 /* NCHW_TO_NHWC */);
  CU_ASSERT_EQUAL_FATAL(c.graph_options.rewrite_options.ncustom_optimizers, 1);
  CU_ASSERT_STRING_EQUAL(c.graph_options.rewrite_options.custom_optimizers[0],
                         "MyPass");
  CU_ASSERT_EQUAL(c.session_metadata_version, 12);
  tfs_config__clear(&c);
  tfs_buffer_free(tf);
  tfs_status_free(st);
}

static void test_unknown_fields_and_garbage(void) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  /* field 99 (varint) and field 13 (rpc_options) are skipped */
  static const uint8_t unknown[] = {0x98, 0x06, 0x07, 0x6a, 0x02, 0x10,
                                    0x01, 0x10, 0x03};
  tfs_session_options_set_config(o, unknown, sizeof unknown, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 3);
  static const uint8_t garbage[] = {0xff, 0xff, 0xff};
  tfs_session_options_set_config(o, garbage, sizeof garbage, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Unparseable ConfigProto");
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 3); /* kept */
  static const uint8_t truncated[] = {0x32, 0x0b, 0x09, 0x33};
  tfs_session_options_set_config(o, truncated, sizeof truncated, st);
  TFS_ASSERT_MESSAGE(st, "Unparseable ConfigProto");
  static const uint8_t wrong_type[] = {0x32, 0x01, 0x08}; /* cut varint */
  tfs_session_options_set_config(o, wrong_type, sizeof wrong_type, st);
  TFS_ASSERT_MESSAGE(st, "Unparseable ConfigProto");
  /* empty bytes: all defaults */
  tfs_session_options_set_config(o, NULL, 0, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(tfs_session_options_intra_op_threads(o), 0);
  tfs_buffer *out = tfs_buffer_new();
  tfs_session_options_get_config(o, out, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(out->length, 0);
  CU_ASSERT_PTR_NOT_NULL(out->data);
  tfs_buffer_free(out);
  tfs_session_options_free(o);
  tfs_status_free(st);
}

/* Every prefix and 2,000 bit-flipped copies of each TensorFlow-written
 * ConfigProto and RunOptions: each parses or gives TensorFlow's error,
 * never a crash or a leak (the sanitizer build checks), and what parses
 * serializes and parses again. */
static void test_truncated_and_flipped_bytes(void) {
  static const char *files[] = {"config_full.pb", "config_modeled.pb",
                                "config_defaults.pb", "run_options_trace.pb"};
  tfs_status *st = tfs_status_new();
  uint64_t rng = 0x2545f4914f6cdd1dULL;
  int parsed = 0, rejected = 0;
  for (size_t k = 0; k < TFS_ARRAY_LEN(files); k++) {
    tfs_buffer *src = load(files[k]);
    int is_run = strncmp(files[k], "run_", 4) == 0;
    uint8_t *buf = malloc(src->length + 1);
    for (size_t it = 0; it < src->length + 2000; it++) {
      size_t n = src->length;
      memcpy(buf, src->data, n);
      if (it < src->length) {
        n = it; /* every prefix */
      } else {
        for (int f = 0; f < 1 + (int)(it % 3); f++) {
          rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
          buf[rng % n] ^= (uint8_t)(1u << (rng >> 32) % 8);
        }
      }
      if (is_run) {
        tfs_run_options ro;
        if (tfs_run_options__parse(buf, n, 0, &ro, st) == 0) {
          parsed++;
        } else {
          rejected++;
          TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                           "Unparseable RunOptions proto");
        }
        continue;
      }
      tfs_config c;
      if (tfs_config__parse(buf, n, &c, st) != 0) {
        rejected++;
        TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT, "Unparseable ConfigProto");
        continue;
      }
      parsed++;
      tfs_buffer *out = tfs_buffer_new();
      CU_ASSERT_EQUAL(tfs_config__serialize(&c, out, st), 0);
      tfs_config again;
      CU_ASSERT_EQUAL(tfs_config__parse(out->data, out->length, &again, st),
                      0);
      tfs_config__clear(&again);
      tfs_buffer_free(out);
      tfs_config__clear(&c);
    }
    free(buf);
    tfs_buffer_free(src);
  }
  CU_ASSERT(parsed > 0 && rejected > 0);
  tfs_status_free(st);
}

static void test_setters_and_session_copy(void) {
  tfs_status *st = tfs_status_new();
  tfs_session_options *o = tfs_session_options_new();
  tfs_buffer *b = load("config_full.pb");
  tfs_session_options_set_config(o, b->data, b->length, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_set_intra_op_threads(o, 2);
  tfs_session_options_set_inter_op_threads(o, 1);
  tfs_session_options_set_log_device_placement(o, 0);
  CU_ASSERT_EQUAL(o->config.intra_op_parallelism_threads, 2);
  CU_ASSERT_EQUAL(o->config.inter_op_parallelism_threads, 1);
  /* the session keeps its own deep copy */
  tfs_graph *g = tfs_graph_new();
  tfs_session *s = tfs_session_new(g, o, st);
  TFS_ASSERT_OK(st);
  tfs_session_options_free(o);
  CU_ASSERT_STRING_EQUAL(
      s->opts.config.graph_options.rewrite_options.optimizers[0],
      "constfold");
  CU_ASSERT_STRING_EQUAL(s->opts.config.gpu_options.visible_device_list,
                         "0,1");
  CU_ASSERT_EQUAL(s->opts.config.intra_op_parallelism_threads, 2);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_buffer_free(b);
  /* a config filled in code serializes the sub-messages it sets */
  tfs_config e, f;
  tfs_config__init(&e);
  e.graph_options.rewrite_options.constant_folding = TFS_TOGGLE_OFF;
  e.gpu_options.allow_growth = 1;
  tfs_buffer *eb = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_config__serialize(&e, eb, st), 0);
  CU_ASSERT_EQUAL(tfs_config__parse(eb->data, eb->length, &f, st), 0);
  CU_ASSERT_TRUE(f.has_graph_options && f.graph_options.has_rewrite_options);
  CU_ASSERT_EQUAL(f.graph_options.rewrite_options.constant_folding,
                  TFS_TOGGLE_OFF);
  CU_ASSERT_FALSE(f.graph_options.has_optimizer_options);
  CU_ASSERT_TRUE(f.has_gpu_options && f.gpu_options.allow_growth);
  tfs_config__clear(&f);
  tfs_buffer_free(eb);
  /* copies that run out of memory leave nothing behind */
  tfs_config c, d;
  b = load("config_full.pb");
  tfs_config__parse(b->data, b->length, &c, st);
  for (long n = 1; n < 64; n++) {
    tfs_alloc_fail_at(n);
    int rc = tfs_config__copy(&d, &c);
    tfs_config d2;
    int rc2 = tfs_config__parse(b->data, b->length, &d2, st);
    long used = tfs_alloc_fail_at(0);
    if (rc == 0) tfs_config__clear(&d);
    if (rc2 == 0) tfs_config__clear(&d2);
    if (used < n) break;
  }
  tfs_config__clear(&c);
  tfs_buffer_free(b);
  tfs_status_free(st);
}

/* ---- RunOptions / RunMetadata -------------------------------------------- */

static void test_run_options(void) {
  tfs_status *st = tfs_status_new();
  tfs_run_options ro;
  tfs_buffer *b = load("run_options_trace.pb");
  CU_ASSERT_EQUAL(tfs_run_options__parse(b->data, b->length, 0, &ro, st), 0);
  CU_ASSERT_EQUAL(ro.trace_level, TFS_TRACE_FULL);
  CU_ASSERT_EQUAL(ro.timeout_in_ms, 60000);
  CU_ASSERT_EQUAL(ro.inter_op_thread_pool, 0);
  tfs_buffer_free(b);
  /* inter_op_thread_pool -1 (the caller's thread) */
  static const uint8_t caller[] = {0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0x01};
  CU_ASSERT_EQUAL(tfs_run_options__parse(caller, sizeof caller, 0, &ro, st), 0);
  CU_ASSERT_EQUAL(ro.inter_op_thread_pool, -1);
  CU_ASSERT_EQUAL(tfs_run_options__parse(NULL, 0, 0, &ro, st), 0);
  CU_ASSERT_EQUAL(ro.trace_level, 0);
  CU_ASSERT_EQUAL(tfs_run_options__parse("\x08", 1, 0, &ro, st), -1);
  TFS_ASSERT_MESSAGE(st, "Unparseable RunOptions proto");
  tfs_status_free(st);
}

/* y = x * 2 + 1 on a [2] float placeholder. */
static tfs_graph *small_graph(tfs_output *x, tfs_output *y) {
  tfs_status *st = tfs_status_new();
  tfs_graph *g = tfs_graph_new();
  tfs_op_desc *d = tfs_op_desc_new(g, "Placeholder", "x");
  tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
  x->oper = tfs_op_desc_finish(d, st);
  x->index = 0;
  tfs_tensor *two = tfs_tensor_scalar_float(2);
  tfs_tensor *one = tfs_tensor_scalar_float(1);
  tfs_output c[2];
  tfs_tensor *vals[2] = {two, one};
  for (int i = 0; i < 2; i++) {
    d = tfs_op_desc_new(g, "Const", i ? "one" : "two");
    tfs_op_desc_set_attr_type(d, "dtype", TFS_FLOAT);
    tfs_op_desc_set_attr_tensor(d, "value", vals[i], st);
    c[i].oper = tfs_op_desc_finish(d, st);
    c[i].index = 0;
  }
  d = tfs_op_desc_new(g, "Mul", "mul");
  tfs_op_desc_add_input(d, *x);
  tfs_op_desc_add_input(d, c[0]);
  tfs_output m = {tfs_op_desc_finish(d, st), 0};
  d = tfs_op_desc_new(g, "AddV2", "y");
  tfs_op_desc_add_input(d, m);
  tfs_op_desc_add_input(d, c[1]);
  y->oper = tfs_op_desc_finish(d, st);
  y->index = 0;
  TFS_ASSERT_OK(st);
  tfs_tensor_free(two);
  tfs_tensor_free(one);
  tfs_status_free(st);
  return g;
}

static void test_run_ex_traced(void) {
  tfs_status *st = tfs_status_new();
  tfs_output x, y;
  tfs_graph *g = small_graph(&x, &y);
  tfs_session *s = tfs_session_new(g, NULL, st);
  int64_t dims[1] = {2};
  float xv[2] = {1, 2};
  tfs_tensor *xt = tu_floats(dims, 1, xv), *out = NULL;
  tfs_buffer *ro = load("run_options_trace.pb");
  tfs_buffer *md = tfs_buffer_new();
  int64_t before = tfs_now_wall_us();
  tfs_session_run_ex(s, ro, &x, &xt, 1, &y, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_PTR_NOT_NULL_FATAL(out);
  CU_ASSERT_EQUAL(((float *)tfs_tensor_data(out))[1], 5.0f);
  Tensorflow__RunMetadata *m =
      tensorflow__run_metadata__unpack(NULL, md->length, md->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m->step_stats);
  CU_ASSERT_EQUAL_FATAL(m->step_stats->n_dev_stats, 1);
  Tensorflow__DeviceStepStats *dev = m->step_stats->dev_stats[0];
  CU_ASSERT_STRING_EQUAL(dev->device,
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  Tensorflow__NodeExecStats *ys = NULL;
  for (size_t i = 0; i < dev->n_node_stats; i++)
    if (strcmp(dev->node_stats[i]->node_name, "y") == 0)
      ys = dev->node_stats[i];
  CU_ASSERT_PTR_NOT_NULL_FATAL(ys);
  CU_ASSERT(ys->all_start_micros >= before - 1000000);
  CU_ASSERT_EQUAL(ys->all_start_micros, ys->all_start_nanos / 1000);
  CU_ASSERT(ys->op_end_rel_nanos >= ys->op_start_rel_nanos);
  CU_ASSERT(ys->all_end_rel_nanos >= ys->op_end_rel_nanos);
  /* TensorFlow's label lists the NodeDef's inputs */
  CU_ASSERT_STRING_EQUAL(ys->timeline_label, "y = AddV2(mul, one)");
  CU_ASSERT_EQUAL_FATAL(ys->n_output, 1);
  Tensorflow__TensorDescription *td = ys->output[0]->tensor_description;
  CU_ASSERT_EQUAL(td->dtype, TENSORFLOW__DATA_TYPE__DT_FLOAT);
  CU_ASSERT_EQUAL_FATAL(td->shape->n_dim, 1);
  CU_ASSERT_EQUAL(td->shape->dim[0]->size, 2);
  CU_ASSERT_EQUAL(td->allocation_description->requested_bytes, 8);
  CU_ASSERT_STRING_EQUAL(td->allocation_description->allocator_name, "cpu");
  CU_ASSERT_NOT_EQUAL(td->allocation_description->ptr, 0);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  tfs_tensor_free(out);

  /* no tracing: an empty RunMetadata (0 bytes); NULL options are fine */
  tfs_buffer_free(md);
  md = tfs_buffer_new();
  tfs_session_run_ex(s, NULL, &x, &xt, 1, &y, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_OK(st);
  CU_ASSERT_EQUAL(md->length, 0);
  CU_ASSERT_PTR_NOT_NULL(md->data);
  tfs_tensor_free(out);
  /* a run that fails still writes metadata and reports its own error */
  tfs_buffer_free(md);
  md = tfs_buffer_new();
  tfs_session_run_ex(s, ro, NULL, NULL, 0, &y, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_ERROR(st, TFS_INVALID_ARGUMENT,
                   "You must feed a value for placeholder tensor 'x'");
  CU_ASSERT_PTR_NULL(out);
  CU_ASSERT_PTR_NOT_NULL(md->data);

  /* non-empty metadata buffer, bad options */
  tfs_session_run_ex(s, NULL, &x, &xt, 1, &y, &out, 1, NULL, 0, md, st);
  TFS_ASSERT_MESSAGE(st, "Passing non-empty run_metadata is invalid.");
  CU_ASSERT_PTR_NULL(out);
  tfs_buffer *bad = tfs_buffer_new_copy("\x08", 1);
  tfs_session_run_ex(s, bad, &x, &xt, 1, &y, &out, 1, NULL, 0, NULL, st);
  TFS_ASSERT_MESSAGE(st, "Unparseable RunOptions proto");
  tfs_buffer_free(bad);
  tfs_buffer_free(md);
  tfs_buffer_free(ro);
  tfs_tensor_free(xt);
  tfs_session_free(s);
  tfs_graph_free(g);
  tfs_status_free(st);
}

static void test_run_metadata_serializer(void) {
  tfs_status *st = tfs_status_new();
  tfs_buffer *b = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_run_metadata__serialize(NULL, b, st), 0);
  CU_ASSERT_EQUAL(b->length, 0);
  tfs_buffer_free(b);
  tfs_node_output_stats outs[1] = {{0}};
  outs[0].slot = 0;
  outs[0].dtype = TFS_INT32;
  tfs_shape_2d(&outs[0].shape, 3, 4);
  outs[0].bytes = 48;
  tfs_node_stats nodes[1] = {{0}};
  nodes[0].node_name = "n";
  nodes[0].op_type = "Op";
  nodes[0].all_start_nanos = 5000000;
  nodes[0].op_end_rel_nanos = 2500;
  nodes[0].all_end_rel_nanos = 3000;
  nodes[0].scheduled_nanos = 4999000;
  nodes[0].thread_id = 7;
  nodes[0].noutputs = 1;
  nodes[0].outputs = outs;
  tfs_step_stats ss = {0};
  ss.n = 1;
  ss.nodes = nodes;
  b = tfs_buffer_new();
  CU_ASSERT_EQUAL(tfs_run_metadata__serialize(&ss, b, st), 0);
  Tensorflow__RunMetadata *m =
      tensorflow__run_metadata__unpack(NULL, b->length, b->data);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  Tensorflow__NodeExecStats *n = m->step_stats->dev_stats[0]->node_stats[0];
  CU_ASSERT_STRING_EQUAL(m->step_stats->dev_stats[0]->device,
                         "/job:localhost/replica:0/task:0/device:CPU:0");
  CU_ASSERT_EQUAL(n->all_start_micros, 5000);
  CU_ASSERT_EQUAL(n->op_end_rel_micros, 2);
  CU_ASSERT_EQUAL(n->all_end_rel_micros, 3);
  CU_ASSERT_EQUAL(n->scheduled_micros, 4999);
  CU_ASSERT_EQUAL(n->op_end_rel_nanos, 2500);
  CU_ASSERT_EQUAL(n->thread_id, 7);
  CU_ASSERT_EQUAL(n->output[0]->tensor_description->shape->dim[1]->size, 4);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  tfs_buffer_free(b);
  tfs_status_free(st);
}

static const tfs_test_case config_cases[] = {
    {"threads_as_c_programs_write_them",
     test_threads_as_c_programs_write_them},
    {"full_config_from_tensorflow", test_full_config_from_tensorflow},
    {"serializes_as_tensorflow_does", test_serializes_as_tensorflow_does},
    {"unknown_fields_and_garbage", test_unknown_fields_and_garbage},
    {"setters_and_session_copy", test_setters_and_session_copy},
    {"truncated_and_flipped_bytes", test_truncated_and_flipped_bytes},
    {NULL, NULL}};
static const tfs_test_case run_cases[] = {
    {"run_options", test_run_options},
    {"run_ex_traced", test_run_ex_traced},
    {"run_metadata_serializer", test_run_metadata_serializer},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {
    {"config", config_cases}, {"run", run_cases}, {NULL, NULL}};

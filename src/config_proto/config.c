/*
 * config_proto/config.c - ConfigProto bytes <-> tfs_config.  Scalar fields
 * are copied through tables of (our offset, proto offset, width) so that
 * each field is named once; strings, lists and maps by hand.
 */
#include "config_proto/config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config_proto/pb_util.h"
#include "core/alloc.h"
#include "core/status.h"
#include "proto/config.pb-c.h"

/* ---- scalar field tables ------------------------------------------------- */

typedef struct scalar_field {
  size_t ours, theirs;
  uint8_t width; /* 4: int32 / enum / bool; 8: int64 / double */
} scalar_field;

#define F4(T, P, a, b) {offsetof(T, a), offsetof(P, b), 4}
#define F8(T, P, a, b) {offsetof(T, a), offsetof(P, b), 8}

_Static_assert(sizeof(protobuf_c_boolean) == 4 && sizeof(int) == 4 &&
                   sizeof(Tensorflow__RewriterConfig__Toggle) == 4 &&
                   sizeof(Tensorflow__OptimizerOptions__Level) == 4,
               "4-byte scalars");

#define RW(a) F4(tfs_rewriter_config, Tensorflow__RewriterConfig, a, a)
#define RW8(a) F8(tfs_rewriter_config, Tensorflow__RewriterConfig, a, a)
static const scalar_field kRewriter[] = {
    RW(layout_optimizer), RW(disable_model_pruning), RW(constant_folding),
    RW(memory_optimization), RW(arithmetic_optimization),
    RW(dependency_optimization), RW(loop_optimization),
    RW(function_optimization), RW(debug_stripper),
    RW(meta_optimizer_iterations), RW(shape_optimization), RW(remapping),
    RW(scoped_allocator_optimization), RW(min_graph_nodes),
    RW(pin_to_host_optimization), RW(disable_meta_optimizer),
    RW8(meta_optimizer_timeout_ms), RW(fail_on_optimizer_errors),
    RW(implementation_selector), RW(auto_mixed_precision),
    RW(common_subgraph_elimination), RW(auto_mixed_precision_mkl),
    RW(experimental_disable_compressed_tensor_optimization),
    RW(experimental_disable_folding_quantization_emulation),
    RW(use_plugin_optimizers), RW(auto_mixed_precision_cpu),
    RW(experimental_conditional_code_motion),
    RW(auto_mixed_precision_onednn_bfloat16), RW(disable_tfg_optimizer),
    RW(cpu_layout_conversion)};

#define GPU(a) F4(tfs_gpu_options, Tensorflow__GPUOptions, a, a)
static const scalar_field kGpu[] = {
    F8(tfs_gpu_options, Tensorflow__GPUOptions,
       per_process_gpu_memory_fraction, per_process_gpu_memory_fraction),
    F8(tfs_gpu_options, Tensorflow__GPUOptions, deferred_deletion_bytes,
       deferred_deletion_bytes),
    GPU(allow_growth), GPU(polling_active_delay_usecs),
    GPU(polling_inactive_delay_msecs), GPU(force_gpu_compatible)};

#define OPT(a) \
  F4(tfs_config_optimizer_options, Tensorflow__OptimizerOptions, a, a)
static const scalar_field kOptimizer[] = {
    OPT(do_common_subexpression_elimination), OPT(do_constant_folding),
    OPT(opt_level), OPT(do_function_inlining), OPT(global_jit_level),
    F8(tfs_config_optimizer_options, Tensorflow__OptimizerOptions,
       max_folded_constant_in_bytes, max_folded_constant_in_bytes),
    OPT(cpu_global_jit)};

#define GO(a) F4(tfs_graph_options, Tensorflow__GraphOptions, a, a)
#define GO8(a) F8(tfs_graph_options, Tensorflow__GraphOptions, a, a)
static const scalar_field kGraph[] = {
    GO(enable_recv_scheduling), GO8(build_cost_model), GO(infer_shapes),
    GO(place_pruned_graph), GO(enable_bfloat16_sendrecv), GO(timeline_step),
    GO8(build_cost_model_after)};

#define CP(a) F4(tfs_config, Tensorflow__ConfigProto, a, a)
static const scalar_field kConfig[] = {
    CP(intra_op_parallelism_threads), CP(placement_period),
    CP(inter_op_parallelism_threads), CP(allow_soft_placement),
    CP(log_device_placement), CP(use_per_session_threads),
    F8(tfs_config, Tensorflow__ConfigProto, operation_timeout_in_ms,
       operation_timeout_in_ms),
    CP(isolate_session_state), CP(share_cluster_devices_in_session)};

#define LIM(a) F8(tfs_config_limits, Tensorflow__TfsessLimits, a, a)
static const scalar_field kLimits[] = {
    F4(tfs_config_limits, Tensorflow__TfsessLimits, safe_mode, safe_mode),
    LIM(max_tensor_bytes), LIM(max_run_bytes), LIM(max_graph_nodes),
    LIM(max_nesting), LIM(max_op_elements)};

#define EX(a) F4(tfs_config, Tensorflow__ConfigProto__Experimental, a, a)
static const scalar_field kExperimental[] = {
    EX(use_numa_affinity), EX(disable_thread_spinning),
    EX(optimize_for_static_graph), EX(disable_functional_ops_lowering)};

/* Copies scalars; returns non-zero when any copied value is not zero. */
static int copy_scalars(const scalar_field *f, size_t n, void *dst,
                        const void *src, int to_proto) {
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    size_t d = to_proto ? f[i].theirs : f[i].ours;
    size_t s = to_proto ? f[i].ours : f[i].theirs;
    uint64_t v = 0;
    memcpy(&v, (const char *)src + s, f[i].width);
    memcpy((char *)dst + d, &v, f[i].width);
    any |= v != 0;
  }
  return any;
}

#define COPY_IN(tab, dst, src) \
  copy_scalars(tab, TFS_ARRAY_LEN(tab), dst, src, 0)
#define COPY_OUT(tab, dst, src) \
  copy_scalars(tab, TFS_ARRAY_LEN(tab), dst, src, 1)

/* ---- lifetime ------------------------------------------------------------ */

void tfs_config__init(tfs_config *c) { memset(c, 0, sizeof(*c)); }

static void free_strs(char **v, int n) {
  for (int i = 0; i < n && v; i++) tfs_free(v[i]);
  tfs_free(v);
}

void tfs_config__clear(tfs_config *c) {
  if (!c) return;
  for (int i = 0; i < c->ndevice_count; i++) tfs_free(c->device_count[i].type);
  tfs_free(c->device_count);
  free_strs(c->device_filters, c->ndevice_filters);
  tfs_free(c->gpu_options.allocator_type);
  tfs_free(c->gpu_options.visible_device_list);
  tfs_rewriter_config *rw = &c->graph_options.rewrite_options;
  tfs_free(rw->memory_optimizer_target_node_name_scope);
  free_strs(rw->scoped_allocator_enable_ops, rw->nscoped_allocator_enable_ops);
  free_strs(rw->optimizers, rw->noptimizers);
  free_strs(rw->custom_optimizers, rw->ncustom_optimizers);
  for (int i = 0; i < c->nthread_pools; i++)
    tfs_free(c->session_inter_op_thread_pool[i].global_name);
  tfs_free(c->session_inter_op_thread_pool);
  tfs_free(c->executor_type);
  tfs_free(c->session_metadata_name);
  free_strs(c->limits.allowed_ops, c->limits.nallowed_ops);
  memset(c, 0, sizeof(*c));
}

/* Duplicates a string that may be NULL; *failed is set on OOM. */
static char *dup_opt(const char *s, int *failed) {
  if (!s) return NULL;
  char *d = tfs_strdup(s);
  if (!d) *failed = 1;
  return d;
}

static char **dup_strs(char *const *v, int n, int *failed) {
  if (n <= 0) return NULL;
  char **d = tfs_calloc((size_t)n, sizeof(char *));
  if (!d) {
    *failed = 1;
    return NULL;
  }
  for (int i = 0; i < n; i++) d[i] = dup_opt(v[i], failed);
  return d;
}

int tfs_config__copy(tfs_config *dst, const tfs_config *src) {
  int failed = 0;
  *dst = *src;
  /* every pointer is replaced below, by a copy or NULL */
  dst->device_count = NULL;
  dst->session_inter_op_thread_pool = NULL;
  if (src->ndevice_count) {
    dst->device_count = tfs_calloc((size_t)src->ndevice_count,
                                   sizeof(*dst->device_count));
    if (!dst->device_count) {
      dst->ndevice_count = 0;
      failed = 1;
    }
    for (int i = 0; dst->device_count && i < src->ndevice_count; i++) {
      dst->device_count[i].count = src->device_count[i].count;
      dst->device_count[i].type = dup_opt(src->device_count[i].type, &failed);
    }
  }
  dst->device_filters =
      dup_strs(src->device_filters, src->ndevice_filters, &failed);
  if (!dst->device_filters) dst->ndevice_filters = 0;
  dst->gpu_options.allocator_type =
      dup_opt(src->gpu_options.allocator_type, &failed);
  dst->gpu_options.visible_device_list =
      dup_opt(src->gpu_options.visible_device_list, &failed);
  tfs_rewriter_config *d = &dst->graph_options.rewrite_options;
  const tfs_rewriter_config *s = &src->graph_options.rewrite_options;
  d->memory_optimizer_target_node_name_scope =
      dup_opt(s->memory_optimizer_target_node_name_scope, &failed);
  d->scoped_allocator_enable_ops = dup_strs(
      s->scoped_allocator_enable_ops, s->nscoped_allocator_enable_ops,
      &failed);
  if (!d->scoped_allocator_enable_ops) d->nscoped_allocator_enable_ops = 0;
  d->optimizers = dup_strs(s->optimizers, s->noptimizers, &failed);
  if (!d->optimizers) d->noptimizers = 0;
  d->custom_optimizers =
      dup_strs(s->custom_optimizers, s->ncustom_optimizers, &failed);
  if (!d->custom_optimizers) d->ncustom_optimizers = 0;
  if (src->nthread_pools) {
    dst->session_inter_op_thread_pool = tfs_calloc(
        (size_t)src->nthread_pools, sizeof(tfs_config_thread_pool));
    if (!dst->session_inter_op_thread_pool) {
      dst->nthread_pools = 0;
      failed = 1;
    }
    for (int i = 0; dst->session_inter_op_thread_pool &&
                    i < src->nthread_pools; i++) {
      const tfs_config_thread_pool *p = &src->session_inter_op_thread_pool[i];
      dst->session_inter_op_thread_pool[i].num_threads = p->num_threads;
      dst->session_inter_op_thread_pool[i].global_name =
          dup_opt(p->global_name, &failed);
    }
  }
  dst->executor_type = dup_opt(src->executor_type, &failed);
  dst->session_metadata_name = dup_opt(src->session_metadata_name, &failed);
  dst->limits.allowed_ops = dup_strs(src->limits.allowed_ops,
                                     src->limits.nallowed_ops, &failed);
  if (!dst->limits.allowed_ops) dst->limits.nallowed_ops = 0;
  if (failed) {
    tfs_config__clear(dst);
    return -1;
  }
  return 0;
}

int tfs_config__device_count(const tfs_config *c, const char *type) {
  for (int i = 0; c && type && i < c->ndevice_count; i++)
    if (strcmp(c->device_count[i].type, type) == 0)
      return c->device_count[i].count;
  return -1;
}

/* ---- parsing ------------------------------------------------------------- */

/* A copy of a proto string, NULL for "" (our default). */
static char *str_in(const char *s, int *failed) {
  return s && *s ? dup_opt(s, failed) : NULL;
}

static char **strs_in(char **v, size_t n, int *count, int *failed) {
  *count = 0;
  if (n == 0 || n > INT32_MAX) return NULL;
  char **d = dup_strs(v, (int)n, failed);
  if (d) *count = (int)n;
  return d;
}

static int cmp_device_count(const void *a, const void *b) {
  return strcmp(((const tfs_config_device_count *)a)->type,
                ((const tfs_config_device_count *)b)->type);
}

/* device_count: the last entry of a key wins (protobuf map semantics). */
static void device_counts_in(const Tensorflow__ConfigProto *p, tfs_config *c,
                             int *failed) {
  if (!p->n_device_count) return;
  c->device_count = tfs_calloc(p->n_device_count, sizeof(*c->device_count));
  if (!c->device_count) {
    *failed = 1;
    return;
  }
  for (size_t i = 0; i < p->n_device_count; i++) {
    const char *key = p->device_count[i]->key ? p->device_count[i]->key : "";
    int k = 0;
    while (k < c->ndevice_count && strcmp(c->device_count[k].type, key)) k++;
    if (k == c->ndevice_count) {
      c->device_count[k].type = tfs_strdup(key);
      if (!c->device_count[k].type) {
        *failed = 1;
        return;
      }
      c->ndevice_count++;
    }
    c->device_count[k].count = p->device_count[i]->value;
  }
  qsort(c->device_count, (size_t)c->ndevice_count,
        sizeof(*c->device_count), cmp_device_count);
}

static void rewriter_in(const Tensorflow__RewriterConfig *p,
                        tfs_rewriter_config *r, int *failed) {
  COPY_IN(kRewriter, r, p);
  if (p->auto_parallel) {
    r->auto_parallel_enable = p->auto_parallel->enable;
    r->auto_parallel_num_replicas = p->auto_parallel->num_replicas;
  }
  r->memory_optimizer_target_node_name_scope =
      str_in(p->memory_optimizer_target_node_name_scope, failed);
  if (p->scoped_allocator_opts)
    r->scoped_allocator_enable_ops =
        strs_in(p->scoped_allocator_opts->enable_op,
                p->scoped_allocator_opts->n_enable_op,
                &r->nscoped_allocator_enable_ops, failed);
  r->optimizers = strs_in(p->optimizers, p->n_optimizers, &r->noptimizers,
                          failed);
  if (p->n_custom_optimizers && p->n_custom_optimizers <= INT32_MAX) {
    r->custom_optimizers =
        tfs_calloc(p->n_custom_optimizers, sizeof(char *));
    if (!r->custom_optimizers) {
      *failed = 1;
    } else {
      r->ncustom_optimizers = (int)p->n_custom_optimizers;
      for (size_t i = 0; i < p->n_custom_optimizers; i++)
        r->custom_optimizers[i] = dup_opt(
            p->custom_optimizers[i]->name ? p->custom_optimizers[i]->name
                                          : "",
            failed);
    }
  }
  const Tensorflow__VerifierConfig *v[2] = {
      p->inter_optimizer_verifier_config,
      p->post_optimization_verifier_config};
  tfs_verifier_config *ours[2] = {&r->inter_optimizer_verifier,
                                  &r->post_optimization_verifier};
  uint8_t *has[2] = {&r->has_inter_optimizer_verifier,
                     &r->has_post_optimization_verifier};
  for (int i = 0; i < 2; i++) {
    if (!v[i]) continue;
    *has[i] = 1;
    ours[i]->verification_timeout_in_ms = v[i]->verification_timeout_in_ms;
    ours[i]->structure_verifier = (int32_t)v[i]->structure_verifier;
  }
}

static void config_in(const Tensorflow__ConfigProto *p, tfs_config *c,
                      int *failed) {
  COPY_IN(kConfig, c, p);
  device_counts_in(p, c, failed);
  c->device_filters = strs_in(p->device_filters, p->n_device_filters,
                              &c->ndevice_filters, failed);
  if (p->gpu_options) {
    c->has_gpu_options = 1;
    COPY_IN(kGpu, &c->gpu_options, p->gpu_options);
    c->gpu_options.allocator_type =
        str_in(p->gpu_options->allocator_type, failed);
    c->gpu_options.visible_device_list =
        str_in(p->gpu_options->visible_device_list, failed);
  }
  const Tensorflow__GraphOptions *go = p->graph_options;
  if (go) {
    c->has_graph_options = 1;
    COPY_IN(kGraph, &c->graph_options, go);
    if (go->optimizer_options) {
      c->graph_options.has_optimizer_options = 1;
      COPY_IN(kOptimizer, &c->graph_options.optimizer_options,
              go->optimizer_options);
    }
    if (go->rewrite_options) {
      c->graph_options.has_rewrite_options = 1;
      rewriter_in(go->rewrite_options, &c->graph_options.rewrite_options,
                  failed);
    }
  }
  if (p->n_session_inter_op_thread_pool &&
      p->n_session_inter_op_thread_pool <= INT32_MAX) {
    size_t n = p->n_session_inter_op_thread_pool;
    c->session_inter_op_thread_pool =
        tfs_calloc(n, sizeof(*c->session_inter_op_thread_pool));
    if (!c->session_inter_op_thread_pool) {
      *failed = 1;
    } else {
      c->nthread_pools = (int)n;
      for (size_t i = 0; i < n; i++) {
        const Tensorflow__ThreadPoolOptionProto *t =
            p->session_inter_op_thread_pool[i];
        c->session_inter_op_thread_pool[i].num_threads = t->num_threads;
        c->session_inter_op_thread_pool[i].global_name =
            str_in(t->global_name, failed);
      }
    }
  }
  if (p->tfsess_limits) {
    COPY_IN(kLimits, &c->limits, p->tfsess_limits);
    c->limits.allowed_ops =
        strs_in(p->tfsess_limits->allowed_ops, p->tfsess_limits->n_allowed_ops,
                &c->limits.nallowed_ops, failed);
  }
  const Tensorflow__ConfigProto__Experimental *ex = p->experimental;
  if (ex) {
    c->has_experimental = 1;
    COPY_IN(kExperimental, c, ex);
    c->executor_type = str_in(ex->executor_type, failed);
    if (ex->session_metadata) {
      c->has_session_metadata = 1;
      c->session_metadata_name = str_in(ex->session_metadata->name, failed);
      c->session_metadata_version = ex->session_metadata->version;
    }
  }
}

int tfs_config__parse(const void *data, size_t len, tfs_config *out,
                      tfs_status *st) {
  tfs_config__init(out);
  int oom;
  ProtobufCMessage *m =
      tfs_pb__unpack(&tensorflow__config_proto__descriptor, data, len, &oom);
  if (!m) {
    if (oom)
      TFS_OOM(st);
    else
      tfs_status_set(st, TFS_INVALID_ARGUMENT, "Unparseable ConfigProto");
    return -1;
  }
  int failed = 0;
  config_in((const Tensorflow__ConfigProto *)m, out, &failed);
  tfs_pb__free(m);
  if (failed) {
    tfs_config__clear(out);
    TFS_OOM(st);
    return -1;
  }
  tfs_status_clear(st);
  return 0;
}

/* ---- serializing --------------------------------------------------------- */

/* Each *_out builds a message in `a` into *out, leaving it NULL when
 * the message was absent and holds only defaults; -1 on OOM. */
static int rewriter_out(const tfs_rewriter_config *r, int has,
                        tfs_pb_arena *a, Tensorflow__RewriterConfig **out) {
  Tensorflow__RewriterConfig *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) return -1;
  tensorflow__rewriter_config__init(p);
  int any = COPY_OUT(kRewriter, p, r);
  if (r->auto_parallel_enable || r->auto_parallel_num_replicas) {
    p->auto_parallel = tfs_pb_arena_alloc(a, sizeof(*p->auto_parallel));
    if (!p->auto_parallel) return -1;
    tensorflow__auto_parallel_options__init(p->auto_parallel);
    p->auto_parallel->enable = r->auto_parallel_enable;
    p->auto_parallel->num_replicas = r->auto_parallel_num_replicas;
  }
  if (r->memory_optimizer_target_node_name_scope)
    p->memory_optimizer_target_node_name_scope =
        r->memory_optimizer_target_node_name_scope;
  if (r->nscoped_allocator_enable_ops) {
    p->scoped_allocator_opts =
        tfs_pb_arena_alloc(a, sizeof(*p->scoped_allocator_opts));
    if (!p->scoped_allocator_opts) return -1;
    tensorflow__scoped_allocator_options__init(p->scoped_allocator_opts);
    p->scoped_allocator_opts->enable_op = r->scoped_allocator_enable_ops;
    p->scoped_allocator_opts->n_enable_op =
        (size_t)r->nscoped_allocator_enable_ops;
  }
  p->optimizers = r->optimizers;
  p->n_optimizers = (size_t)r->noptimizers;
  if (r->ncustom_optimizers) {
    size_t n = (size_t)r->ncustom_optimizers;
    Tensorflow__RewriterConfig__CustomGraphOptimizer *c =
        tfs_pb_arena_array(a, n, sizeof(*c));
    p->custom_optimizers = tfs_pb_arena_array(a, n, sizeof(void *));
    if (!c || !p->custom_optimizers) return -1;
    for (size_t i = 0; i < n; i++) {
      tensorflow__rewriter_config__custom_graph_optimizer__init(&c[i]);
      c[i].name = r->custom_optimizers[i];
      p->custom_optimizers[i] = &c[i];
    }
    p->n_custom_optimizers = n;
  }
  const tfs_verifier_config *v[2] = {&r->inter_optimizer_verifier,
                                     &r->post_optimization_verifier};
  const uint8_t has_v[2] = {r->has_inter_optimizer_verifier,
                            r->has_post_optimization_verifier};
  Tensorflow__VerifierConfig **vout[2] = {
      &p->inter_optimizer_verifier_config,
      &p->post_optimization_verifier_config};
  for (int i = 0; i < 2; i++) {
    if (!has_v[i] && !v[i]->verification_timeout_in_ms &&
        !v[i]->structure_verifier)
      continue;
    Tensorflow__VerifierConfig *vc = tfs_pb_arena_alloc(a, sizeof(*vc));
    if (!vc) return -1;
    tensorflow__verifier_config__init(vc);
    vc->verification_timeout_in_ms = v[i]->verification_timeout_in_ms;
    vc->structure_verifier =
        (Tensorflow__VerifierConfig__Toggle)v[i]->structure_verifier;
    *vout[i] = vc;
  }
  any |= p->auto_parallel || p->scoped_allocator_opts || r->noptimizers ||
         r->ncustom_optimizers || p->inter_optimizer_verifier_config ||
         p->post_optimization_verifier_config ||
         r->memory_optimizer_target_node_name_scope;
  *out = any || has ? p : NULL;
  return 0;
}

static int graph_options_out(const tfs_config *c, tfs_pb_arena *a,
                             Tensorflow__GraphOptions **out) {
  const tfs_graph_options *g = &c->graph_options;
  Tensorflow__GraphOptions *p = tfs_pb_arena_alloc(a, sizeof(*p));
  if (!p) return -1;
  tensorflow__graph_options__init(p);
  int any = COPY_OUT(kGraph, p, g);
  Tensorflow__OptimizerOptions *o = tfs_pb_arena_alloc(a, sizeof(*o));
  if (!o) return -1;
  tensorflow__optimizer_options__init(o);
  if (COPY_OUT(kOptimizer, o, &g->optimizer_options) ||
      g->has_optimizer_options)
    p->optimizer_options = o;
  if (rewriter_out(&g->rewrite_options, g->has_rewrite_options, a,
                   &p->rewrite_options))
    return -1;
  any |= p->optimizer_options || p->rewrite_options;
  *out = any || c->has_graph_options ? p : NULL;
  return 0;
}

static int device_counts_out(const tfs_config *c, Tensorflow__ConfigProto *p,
                             tfs_pb_arena *a) {
  size_t n = (size_t)c->ndevice_count;
  if (!n) return 0;
  /* sorted by type for stable bytes; the struct keeps them sorted when
   * parsed, but callers may fill it in any order */
  tfs_config_device_count *sorted = tfs_pb_arena_array(a, n, sizeof(*sorted));
  Tensorflow__ConfigProto__DeviceCountEntry *e =
      tfs_pb_arena_array(a, n, sizeof(*e));
  p->device_count = tfs_pb_arena_array(a, n, sizeof(void *));
  if (!sorted || !e || !p->device_count) return -1;
  memcpy(sorted, c->device_count, n * sizeof(*sorted));
  qsort(sorted, n, sizeof(*sorted), cmp_device_count);
  /* TensorFlow writes a map entry's value even when it is 0 ({"GPU": 0},
   * the usual way to hide GPUs); proto3 would drop it.  The zero goes out
   * as an "unknown" field 2 after the key: the same bytes. */
  static uint8_t zero_varint[1] = {0};
  static ProtobufCMessageUnknownField zero_value = {
      2, PROTOBUF_C_WIRE_TYPE_VARINT, 1, zero_varint};
  for (size_t i = 0; i < n; i++) {
    tensorflow__config_proto__device_count_entry__init(&e[i]);
    e[i].key = sorted[i].type;
    e[i].value = sorted[i].count;
    if (e[i].value == 0) {
      e[i].base.n_unknown_fields = 1;
      e[i].base.unknown_fields = &zero_value;
    }
    p->device_count[i] = &e[i];
  }
  p->n_device_count = n;
  return 0;
}

static int experimental_out(const tfs_config *c, Tensorflow__ConfigProto *p,
                            tfs_pb_arena *a) {
  Tensorflow__ConfigProto__Experimental *ex =
      tfs_pb_arena_alloc(a, sizeof(*ex));
  if (!ex) return -1;
  tensorflow__config_proto__experimental__init(ex);
  int any = COPY_OUT(kExperimental, ex, c);
  if (c->executor_type) {
    ex->executor_type = c->executor_type;
    any = 1;
  }
  if (c->has_session_metadata || c->session_metadata_name ||
      c->session_metadata_version) {
    ex->session_metadata = tfs_pb_arena_alloc(a, sizeof(*ex->session_metadata));
    if (!ex->session_metadata) return -1;
    tensorflow__session_metadata__init(ex->session_metadata);
    if (c->session_metadata_name)
      ex->session_metadata->name = c->session_metadata_name;
    ex->session_metadata->version = c->session_metadata_version;
    any = 1;
  }
  if (any || c->has_experimental) p->experimental = ex;
  return 0;
}

static int config_out(const tfs_config *c, Tensorflow__ConfigProto *p,
                      tfs_pb_arena *a) {
  COPY_OUT(kConfig, p, c);
  if (device_counts_out(c, p, a)) return -1;
  p->device_filters = c->device_filters;
  p->n_device_filters = (size_t)c->ndevice_filters;
  Tensorflow__GPUOptions *gpu = tfs_pb_arena_alloc(a, sizeof(*gpu));
  if (!gpu) return -1;
  tensorflow__gpuoptions__init(gpu);
  int any = COPY_OUT(kGpu, gpu, &c->gpu_options);
  if (c->gpu_options.allocator_type)
    gpu->allocator_type = c->gpu_options.allocator_type;
  if (c->gpu_options.visible_device_list)
    gpu->visible_device_list = c->gpu_options.visible_device_list;
  if (any || c->has_gpu_options || c->gpu_options.allocator_type ||
      c->gpu_options.visible_device_list)
    p->gpu_options = gpu;
  if (graph_options_out(c, a, &p->graph_options)) return -1;
  if (c->nthread_pools) {
    size_t n = (size_t)c->nthread_pools;
    Tensorflow__ThreadPoolOptionProto *t = tfs_pb_arena_array(a, n, sizeof(*t));
    p->session_inter_op_thread_pool = tfs_pb_arena_array(a, n, sizeof(void *));
    if (!t || !p->session_inter_op_thread_pool) return -1;
    for (size_t i = 0; i < n; i++) {
      tensorflow__thread_pool_option_proto__init(&t[i]);
      t[i].num_threads = c->session_inter_op_thread_pool[i].num_threads;
      if (c->session_inter_op_thread_pool[i].global_name)
        t[i].global_name = c->session_inter_op_thread_pool[i].global_name;
      p->session_inter_op_thread_pool[i] = &t[i];
    }
    p->n_session_inter_op_thread_pool = n;
  }
  Tensorflow__TfsessLimits *lim = tfs_pb_arena_alloc(a, sizeof(*lim));
  if (!lim) return -1;
  tensorflow__tfsess_limits__init(lim);
  if (COPY_OUT(kLimits, lim, &c->limits) || c->limits.nallowed_ops) {
    lim->allowed_ops = c->limits.allowed_ops;
    lim->n_allowed_ops = (size_t)c->limits.nallowed_ops;
    p->tfsess_limits = lim;
  }
  return experimental_out(c, p, a);
}

int tfs_config__serialize(const tfs_config *c, tfs_buffer *out,
                          tfs_status *st) {
  if (tfs_pb__check_empty(out, st)) return -1;
  tfs_pb_arena a = TFS_PB_ARENA_INIT;
  Tensorflow__ConfigProto p = TENSORFLOW__CONFIG_PROTO__INIT;
  int rc = -1;
  if (config_out(c, &p, &a))
    TFS_OOM(st);
  else
    rc = tfs_pb__pack(&p.base, out, st);
  tfs_pb_arena_free(&a);
  return rc;
}

/*
 * config_proto/config.h - TensorFlow's ConfigProto as a plain C struct:
 * threads, placement, timeouts, GPU options and graph / optimizer /
 * rewriter options, parsed from and serialized to the bytes TensorFlow
 * writes.  Field meanings and numbers: docs/WIRE_FORMATS.md section 8-9.
 *
 * Every value defaults to 0 / false / NULL, exactly as an empty
 * ConfigProto, so "0 means TensorFlow's default" holds throughout (for
 * example min_graph_nodes 0 means 4, a Toggle 0 means DEFAULT).
 * Strings and arrays are owned by the struct: tfs_config__clear frees
 * them, tfs_config__copy duplicates them.  The has_* flags say that a
 * sub-message was present in the parsed bytes (even if empty); the
 * serializer writes a sub-message when its flag is set or it holds a
 * non-default value, so code that fills the struct needs not set them.
 */
#ifndef TFS_CONFIG_PROTO_CONFIG_H
#define TFS_CONFIG_PROTO_CONFIG_H

#include <stdint.h>

#include "tfsess/buffer.h"
#include "tfsess/status.h"

/* RewriterConfig.Toggle */
enum {
  TFS_TOGGLE_DEFAULT = 0,
  TFS_TOGGLE_ON = 1,
  TFS_TOGGLE_OFF = 2,
  TFS_TOGGLE_AGGRESSIVE = 3,
  TFS_TOGGLE_EXPERIMENTAL_MLIR = 4,
  TFS_TOGGLE_EXPERIMENTAL_BOTH = 5
};

/* RunOptions.TraceLevel */
enum {
  TFS_TRACE_NONE = 0,
  TFS_TRACE_SOFTWARE = 1,
  TFS_TRACE_HARDWARE = 2,
  TFS_TRACE_FULL = 3
};

typedef struct tfs_config_device_count {
  char *type;       /* "CPU", "GPU", ... */
  int32_t count;
} tfs_config_device_count;

typedef struct tfs_config_thread_pool {
  int32_t num_threads; /* 0: default */
  char *global_name;   /* NULL or "": a pool of this session's own */
} tfs_config_thread_pool;

typedef struct tfs_gpu_options {
  double per_process_gpu_memory_fraction;
  char *allocator_type;
  int64_t deferred_deletion_bytes;
  int allow_growth;
  char *visible_device_list;  /* "5,3" */
  int32_t polling_active_delay_usecs;
  int32_t polling_inactive_delay_msecs;
  int force_gpu_compatible;
} tfs_gpu_options;

typedef struct tfs_config_optimizer_options {
  int do_common_subexpression_elimination;
  int do_constant_folding;
  int32_t opt_level;          /* 0: L1 (CSE + folding), -1: L0 (none) */
  int do_function_inlining;
  int32_t global_jit_level;   /* 0 DEFAULT, -1 OFF, 1 ON_1, 2 ON_2 */
  int64_t max_folded_constant_in_bytes; /* 0: 10 MiB */
  int cpu_global_jit;
} tfs_config_optimizer_options;

typedef struct tfs_verifier_config {
  int64_t verification_timeout_in_ms;
  int32_t structure_verifier; /* 0 DEFAULT, 1 ON, 2 OFF */
} tfs_verifier_config;

/* RewriterConfig: every pass toggle is a TFS_TOGGLE_* value (unknown
 * values are kept as they came). */
typedef struct tfs_rewriter_config {
  int32_t layout_optimizer;                 /* 1 */
  int disable_model_pruning;                /* 2 */
  int32_t constant_folding;                 /* 3 */
  int32_t memory_optimization;              /* 4: MemOptType */
  int auto_parallel_enable;                 /* 5: AutoParallelOptions */
  int32_t auto_parallel_num_replicas;
  char *memory_optimizer_target_node_name_scope; /* 6 */
  int32_t arithmetic_optimization;          /* 7 */
  int32_t dependency_optimization;          /* 8 */
  int32_t loop_optimization;                /* 9 */
  int32_t function_optimization;            /* 10 */
  int32_t debug_stripper;                   /* 11 */
  int32_t meta_optimizer_iterations;        /* 12: 0 DEFAULT (two), 1, 2 */
  int32_t shape_optimization;               /* 13 */
  int32_t remapping;                        /* 14 */
  int32_t scoped_allocator_optimization;    /* 15 */
  int nscoped_allocator_enable_ops;         /* 16 */
  char **scoped_allocator_enable_ops;
  int32_t min_graph_nodes;                  /* 17: 0 means 4, < 0 never skip */
  int32_t pin_to_host_optimization;         /* 18 */
  int disable_meta_optimizer;               /* 19 */
  int64_t meta_optimizer_timeout_ms;        /* 20 */
  int fail_on_optimizer_errors;             /* 21 */
  int32_t implementation_selector;          /* 22 */
  int32_t auto_mixed_precision;             /* 23 */
  int32_t common_subgraph_elimination;      /* 24 */
  int32_t auto_mixed_precision_mkl;         /* 25 */
  int experimental_disable_compressed_tensor_optimization; /* 26 */
  int experimental_disable_folding_quantization_emulation; /* 27 */
  int32_t use_plugin_optimizers;            /* 28 */
  int32_t auto_mixed_precision_cpu;         /* 29 */
  int32_t experimental_conditional_code_motion; /* 30 */
  int32_t auto_mixed_precision_onednn_bfloat16; /* 31 */
  int disable_tfg_optimizer;                /* 32 */
  int32_t cpu_layout_conversion;            /* 50: CpuLayout */
  int noptimizers;                          /* 100: replaces the default */
  char **optimizers;                        /*      pipeline when set */
  int ncustom_optimizers;                   /* 200: names (parameter maps */
  char **custom_optimizers;                 /*      are not kept) */
  tfs_verifier_config inter_optimizer_verifier;   /* 300 */
  tfs_verifier_config post_optimization_verifier; /* 301 */
  uint8_t has_inter_optimizer_verifier, has_post_optimization_verifier;
} tfs_rewriter_config;

typedef struct tfs_graph_options {
  int enable_recv_scheduling;
  tfs_config_optimizer_options optimizer_options;
  int64_t build_cost_model;
  int infer_shapes;
  int place_pruned_graph;
  int enable_bfloat16_sendrecv;
  int32_t timeline_step;
  int64_t build_cost_model_after;
  tfs_rewriter_config rewrite_options;
  uint8_t has_optimizer_options, has_rewrite_options;
} tfs_graph_options;

/* tfsess's own limits (ConfigProto field 7600, TfsessLimits): 0 = the
 * default, < 0 = no limit, > 0 = the limit (session/limits.c applies
 * them). */
typedef struct tfs_config_limits {
  int safe_mode;
  int64_t max_tensor_bytes;
  int64_t max_run_bytes;
  int64_t max_graph_nodes;
  int64_t max_nesting;
  int64_t max_op_elements;
  int nallowed_ops;
  char **allowed_ops;
} tfs_config_limits;

typedef struct tfs_config {
  int ndevice_count;
  tfs_config_device_count *device_count;   /* 1: sorted by type */
  int32_t intra_op_parallelism_threads;    /* 2: 0 = one per core */
  int32_t placement_period;                /* 3 */
  int ndevice_filters;                     /* 4 */
  char **device_filters;
  int32_t inter_op_parallelism_threads;    /* 5: 0 = one per core, < 0 =
                                              the caller's thread */
  tfs_gpu_options gpu_options;             /* 6 */
  int allow_soft_placement;                /* 7 */
  int log_device_placement;                /* 8 */
  int use_per_session_threads;             /* 9 */
  tfs_graph_options graph_options;         /* 10 */
  int64_t operation_timeout_in_ms;         /* 11: 0 = none */
  int nthread_pools;                       /* 12 */
  tfs_config_thread_pool *session_inter_op_thread_pool;
  int isolate_session_state;               /* 15 */
  int share_cluster_devices_in_session;    /* 17 */
  /* 16: ConfigProto.Experimental, the fields a single process uses */
  char *executor_type;                     /* "", "DEFAULT", ... */
  int use_numa_affinity;
  int disable_thread_spinning;
  int optimize_for_static_graph;
  int disable_functional_ops_lowering;
  char *session_metadata_name;
  int64_t session_metadata_version;
  tfs_config_limits limits;                /* 7600: tfsess's own */
  uint8_t has_gpu_options, has_graph_options, has_experimental,
      has_session_metadata;
} tfs_config;

/* An empty config (all defaults).  tfs_config__clear frees what a config
 * owns and leaves it empty; tfs_config__copy makes dst (which must be
 * empty or cleared) a deep copy, returning -1 when memory runs out (dst is
 * then empty). */
void tfs_config__init(tfs_config *c);
void tfs_config__clear(tfs_config *c);
int tfs_config__copy(tfs_config *dst, const tfs_config *src);

/* Parses ConfigProto bytes into *out (initialized here; clear it after
 * use).  Unknown fields are ignored.  INVALID_ARGUMENT "Unparseable
 * ConfigProto" when the bytes do not parse; *out is then empty. */
int tfs_config__parse(const void *data, size_t len, tfs_config *out,
                      tfs_status *st);

/* Serializes as ConfigProto bytes into the empty buffer `out`
 * (tfs_buffer_free releases).  Default-valued fields are left out, and
 * device_count is written sorted by type, so equal configs give equal
 * bytes. */
int tfs_config__serialize(const tfs_config *c, tfs_buffer *out,
                          tfs_status *st);

/* device_count[type], or -1 when the config does not say. */
int tfs_config__device_count(const tfs_config *c, const char *type);

#endif

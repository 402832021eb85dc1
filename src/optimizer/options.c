/*
 * optimizer/options.c - the process-wide experimental options
 * (tf.config.optimizer.set_experimental_options) and the resolution of a
 * RewriterConfig plus those options into the pipeline a run uses.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/log.h"
#include "core/status.h"
#include "optimizer/optimizer.h"

/* ---- the option table ------------------------------------------------------
 */

enum { KIND_TOGGLE, KIND_BOOL, KIND_INT };

typedef struct opt_key {
  const char *name;
  int kind;
  size_t offset; /* into tfs_rewriter_config */
} opt_key;

#define RC(f) offsetof(tfs_rewriter_config, f)
static const opt_key kKeys[] = {
    {"layout_optimizer", KIND_TOGGLE, RC(layout_optimizer)},
    {"constant_folding", KIND_TOGGLE, RC(constant_folding)},
    {"shape_optimization", KIND_TOGGLE, RC(shape_optimization)},
    {"remapping", KIND_TOGGLE, RC(remapping)},
    {"arithmetic_optimization", KIND_TOGGLE, RC(arithmetic_optimization)},
    {"dependency_optimization", KIND_TOGGLE, RC(dependency_optimization)},
    {"loop_optimization", KIND_TOGGLE, RC(loop_optimization)},
    {"function_optimization", KIND_TOGGLE, RC(function_optimization)},
    {"debug_stripper", KIND_TOGGLE, RC(debug_stripper)},
    {"disable_model_pruning", KIND_BOOL, RC(disable_model_pruning)},
    {"scoped_allocator_optimization", KIND_TOGGLE,
     RC(scoped_allocator_optimization)},
    {"pin_to_host_optimization", KIND_TOGGLE, RC(pin_to_host_optimization)},
    {"implementation_selector", KIND_TOGGLE, RC(implementation_selector)},
    {"auto_mixed_precision", KIND_TOGGLE, RC(auto_mixed_precision)},
    {"use_plugin_optimizers", KIND_TOGGLE, RC(use_plugin_optimizers)},
    {"disable_meta_optimizer", KIND_BOOL, RC(disable_meta_optimizer)},
    {"auto_mixed_precision_onednn_bfloat16", KIND_TOGGLE,
     RC(auto_mixed_precision_onednn_bfloat16)},
    {"auto_mixed_precision_mkl", KIND_TOGGLE, RC(auto_mixed_precision_mkl)},
    {"min_graph_nodes", KIND_INT, RC(min_graph_nodes)},
    /* tfsess extras: toggles TensorFlow's dict does not list */
    {"common_subgraph_elimination", KIND_TOGGLE,
     RC(common_subgraph_elimination)},
    {"auto_mixed_precision_cpu", KIND_TOGGLE, RC(auto_mixed_precision_cpu)},
};
#undef RC
#define NKEYS ((int)(sizeof(kKeys) / sizeof(kKeys[0])))

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t g_set[NKEYS];   /* guarded by: g_mu */
static int64_t g_value[NKEYS]; /* guarded by: g_mu */

static int key_index(const char *name) {
  for (int i = 0; name && i < NKEYS; i++)
    if (strcmp(kKeys[i].name, name) == 0) return i;
  return -1;
}

static void unknown_key(const char *name, tfs_status *st) {
  tfs_status_setf(st, TFS_INVALID_ARGUMENT, "Unknown optimizer option '%s'",
                  name ? name : "(null)");
}

void tfs_optimizer_set_experimental_option(const char *name, int64_t value,
                                           tfs_status *st) {
  tfs_optimizer_set_experimental_options(&name, &value, 1, st);
}

void tfs_optimizer_set_experimental_options(const char *const *names,
                                            const int64_t *values, int n,
                                            tfs_status *st) {
  TFS_CHECK_ARG(n >= 0 && (n == 0 || (names && values)), st, );
  for (int i = 0; i < n; i++) {
    if (key_index(names[i]) < 0) {
      unknown_key(names[i], st);
      return;
    }
  }
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < n; i++) {
    int k = key_index(names[i]);
    g_set[k] = 1;
    g_value[k] = values[i];
  }
  pthread_mutex_unlock(&g_mu);
  tfs_status_clear(st);
}

int tfs_optimizer_get_experimental_option(const char *name, int64_t *value) {
  int k = key_index(name);
  if (k < 0) return -1;
  pthread_mutex_lock(&g_mu);
  int set = g_set[k];
  if (set && value) *value = g_value[k];
  pthread_mutex_unlock(&g_mu);
  return set;
}

void tfs_optimizer_reset_experimental_options(void) {
  pthread_mutex_lock(&g_mu);
  memset(g_set, 0, sizeof g_set);
  pthread_mutex_unlock(&g_mu);
}

void tfs_optimizer__apply_experimental(tfs_rewriter_config *rc) {
  pthread_mutex_lock(&g_mu);
  for (int k = 0; k < NKEYS; k++) {
    if (!g_set[k]) continue;
    char *field = (char *)rc + kKeys[k].offset;
    switch (kKeys[k].kind) {
      case KIND_TOGGLE: {
        int32_t t = g_value[k] ? TFS_TOGGLE_ON : TFS_TOGGLE_OFF;
        memcpy(field, &t, sizeof t);
        break;
      }
      case KIND_BOOL: {
        int b = g_value[k] != 0;
        memcpy(field, &b, sizeof b);
        break;
      }
      default: {
        int32_t v = (int32_t)g_value[k];
        memcpy(field, &v, sizeof v);
      }
    }
  }
  pthread_mutex_unlock(&g_mu);
}

/* ---- resolution
 * -------------------------------------------------------------- */

/* Names tfsess recognises, mapped to passes.  amp: the TFS_AMP_* mode. */
typedef struct pass_name {
  const char *name;
  int pass; /* tfs_pass_id, or -1: TensorFlow has it, tfsess does not */
  int amp;
} pass_name;

static const pass_name kNames[] = {
    {"pruning", TFS_PASS_PRUNING, 0},
    {"model_pruner", TFS_PASS_PRUNING, 0},
    {"common_subgraph_elimination", TFS_PASS_CSE, 0},
    {"debug_stripper", TFS_PASS_DEBUG_STRIPPER, 0},
    {"constfold", TFS_PASS_CONSTFOLD, 0},
    {"constant_folding", TFS_PASS_CONSTFOLD, 0},
    {"auto_mixed_precision", TFS_PASS_AMP, TFS_AMP_DEVICE},
    {"auto_mixed_precision_mkl", TFS_PASS_AMP, TFS_AMP_BF16},
    {"auto_mixed_precision_onednn_bfloat16", TFS_PASS_AMP, TFS_AMP_BF16},
    {"auto_mixed_precision_cpu", TFS_PASS_AMP, TFS_AMP_FP16_CPU},
    {"arithmetic", TFS_PASS_ARITHMETIC, 0},
    {"arithmetic_optimizer", TFS_PASS_ARITHMETIC, 0},
    {"layout", TFS_PASS_LAYOUT, 0},
    {"remap", TFS_PASS_REMAP, 0},
    {"remapper", TFS_PASS_REMAP, 0},
    {"dependency", TFS_PASS_DEPENDENCY, 0},
    {"dependency_optimizer", TFS_PASS_DEPENDENCY, 0},
    {"function", TFS_PASS_FUNCTION, 0},
    {"function_optimizer", TFS_PASS_FUNCTION, 0},
    {"shape", -1, 0},
    {"loop", -1, 0},
    {"memory", -1, 0},
    {"autoparallel", -1, 0},
    {"scoped_allocator", -1, 0},
    {"pin_to_host", -1, 0},
};

static const pass_name *find_name(const char *s, size_t len) {
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); i++)
    if (strlen(kNames[i].name) == len && memcmp(kNames[i].name, s, len) == 0)
      return &kNames[i];
  return NULL;
}

static void add_note(tfs_opt_config *out, const char *s, size_t len) {
  size_t used = strlen(out->notes);
  if (used + len + 3 >= sizeof out->notes) return;
  if (used) {
    memcpy(out->notes + used, ", ", 2);
    used += 2;
  }
  memcpy(out->notes + used, s, len);
  out->notes[used + len] = '\0';
}

static int push_pass(tfs_opt_config *out, int pass, int amp) {
  for (int i = 0; i < out->npasses; i++)
    if ((int)out->passes[i] == pass) return 0; /* each pass once */
  if (out->npasses >= TFS_OPT_MAX_PASSES) return 0;
  out->passes[out->npasses++] = (tfs_pass_id)pass;
  if (amp) out->amp_mode = amp;
  return 0;
}

/* Parses a comma-separated list; strict: unknown names are errors. */
static int parse_list(const char *list, tfs_opt_config *out, tfs_status *st) {
  out->npasses = 0;
  out->amp_mode = TFS_AMP_NONE;
  if (strcmp(list, "none") == 0) return 0;
  for (const char *p = list; *p;) {
    while (*p == ',' || isspace((unsigned char)*p)) p++;
    const char *e = p;
    while (*e && *e != ',' && !isspace((unsigned char)*e)) e++;
    if (e == p) break;
    const pass_name *pn = find_name(p, (size_t)(e - p));
    if (!pn) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Unknown optimizer '%.*s'; known: pruning, "
                      "common_subgraph_elimination, debug_stripper, "
                      "constfold, auto_mixed_precision, "
                      "auto_mixed_precision_onednn_bfloat16, "
                      "auto_mixed_precision_mkl, auto_mixed_precision_cpu, "
                      "arithmetic, layout, remap, dependency, function",
                      (int)(e - p), p);
      return -1;
    }
    if (pn->pass < 0)
      add_note(out, p, (size_t)(e - p));
    else
      push_pass(out, pn->pass, pn->amp);
    p = e;
  }
  return 0;
}

static int toggle_on(int32_t t) {
  return t != TFS_TOGGLE_OFF && t != TFS_TOGGLE_EXPERIMENTAL_MLIR;
}
static int toggle_explicit(int32_t t) {
  return t == TFS_TOGGLE_ON || t == TFS_TOGGLE_AGGRESSIVE ||
         t == TFS_TOGGLE_EXPERIMENTAL_BOTH;
}

static void default_pipeline(const tfs_rewriter_config *rc,
                             tfs_opt_config *out) {
  out->npasses = 0;
  if (!rc->disable_model_pruning) push_pass(out, TFS_PASS_PRUNING, 0);
  if (toggle_on(rc->function_optimization))
    push_pass(out, TFS_PASS_FUNCTION, 0);
  if (toggle_on(rc->common_subgraph_elimination) &&
      toggle_on(rc->arithmetic_optimization))
    push_pass(out, TFS_PASS_CSE, 0);
  if (toggle_explicit(rc->debug_stripper))
    push_pass(out, TFS_PASS_DEBUG_STRIPPER, 0);
  if (toggle_on(rc->constant_folding)) push_pass(out, TFS_PASS_CONSTFOLD, 0);
  int amp = TFS_AMP_NONE;
  if (toggle_explicit(rc->auto_mixed_precision)) amp = TFS_AMP_DEVICE;
  if (toggle_explicit(rc->auto_mixed_precision_onednn_bfloat16) ||
      toggle_explicit(rc->auto_mixed_precision_mkl))
    amp = TFS_AMP_BF16;
  if (toggle_explicit(rc->auto_mixed_precision_cpu)) amp = TFS_AMP_FP16_CPU;
  if (amp) push_pass(out, TFS_PASS_AMP, amp);
  if (toggle_on(rc->arithmetic_optimization))
    push_pass(out, TFS_PASS_ARITHMETIC, 0);
  if (toggle_on(rc->layout_optimizer)) push_pass(out, TFS_PASS_LAYOUT, 0);
  if (toggle_on(rc->remapping)) push_pass(out, TFS_PASS_REMAP, 0);
  if (toggle_on(rc->dependency_optimization))
    push_pass(out, TFS_PASS_DEPENDENCY, 0);
}

int tfs_optimizer__resolve(const tfs_rewriter_config *rc_in, const char *passes,
                           tfs_opt_config *out, tfs_status *st) {
  tfs_rewriter_config rc;
  if (rc_in)
    rc = *rc_in;
  else
    memset(&rc, 0, sizeof rc);
  tfs_optimizer__apply_experimental(&rc);
  memset(out, 0, sizeof(*out));
  out->disabled = rc.disable_meta_optimizer;
  out->iterations = rc.meta_optimizer_iterations == 1 ? 1 : 2;
  out->min_graph_nodes = rc.min_graph_nodes == 0 ? 4 : rc.min_graph_nodes;
  out->fail_on_errors = rc.fail_on_optimizer_errors;
  out->timeout_ms = rc.meta_optimizer_timeout_ms;
  out->constfold_aggressive = rc.constant_folding == TFS_TOGGLE_AGGRESSIVE;
  out->max_constant_bytes = 10 << 20;
  out->cpu_layout = rc.cpu_layout_conversion;
  out->cpu_has_bf16 = tfs_cpu_bf16();
  /* the level the function optimizer uses when it runs (also when a
   * pass list names it); OFF only matters to the default pipeline */
  out->function_level =
      rc.function_optimization == TFS_TOGGLE_AGGRESSIVE ? 2 : 1;
  out->lower_control_flow = 1;
  if (passes && *passes) {
    if (parse_list(passes, out, st)) return -1;
  } else if (rc.noptimizers > 0) {
    out->npasses = 0;
    for (int i = 0; i < rc.noptimizers; i++) {
      const char *nm = rc.optimizers[i];
      const pass_name *pn = nm ? find_name(nm, strlen(nm)) : NULL;
      if (!pn || pn->pass < 0) {
        if (nm) add_note(out, nm, strlen(nm));
        tfs_log(TFS_LOG_INFO,
                "optimizer: '%s' is not implemented by "
                "tfsess; skipped",
                nm ? nm : "");
        continue;
      }
      push_pass(out, pn->pass, pn->amp);
    }
  } else {
    default_pipeline(&rc, out);
  }
  tfs_status_clear(st);
  return 0;
}

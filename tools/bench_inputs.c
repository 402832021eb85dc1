/*
 * tools/bench_inputs.c - random inputs for `tfsess bench`, as
 * TensorFlow's benchmark_model makes them (--input_layer_shape): each
 * Placeholder not given by --feed gets a tensor of its dtype, shaped by
 * --input-shape NAME=D0,D1,... or by the placeholder's fully defined
 * shape; floats uniform in [-1,1), integers in [0,10), bools.  The
 * numbers come from a fixed seed, so runs are repeatable.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/half.h"

/* xorshift64*: 53 bits into [0,1). */
static double next_unit(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static void fill(tfs_tensor *t, uint64_t *seed) {
  int64_t n = tfs_tensor_num_elements(t);
  void *p = tfs_tensor_data(t);
  tfs_dtype dt = tfs_tensor_dtype(t);
  for (int64_t i = 0; i < n; i++) {
    double u = next_unit(seed), f = 2.0 * u - 1.0;
    int64_t k = (int64_t)(u * 10.0);
    switch (dt) {
      case TFS_FLOAT: ((float *)p)[i] = (float)f; break;
      case TFS_DOUBLE: ((double *)p)[i] = f; break;
      case TFS_HALF: ((uint16_t *)p)[i] = tfs_float_to_half((float)f); break;
      case TFS_BFLOAT16:
        ((uint16_t *)p)[i] = tfs_float_to_bf16((float)f);
        break;
      case TFS_INT8: ((int8_t *)p)[i] = (int8_t)k; break;
      case TFS_UINT8: ((uint8_t *)p)[i] = (uint8_t)k; break;
      case TFS_INT16: ((int16_t *)p)[i] = (int16_t)k; break;
      case TFS_UINT16: ((uint16_t *)p)[i] = (uint16_t)k; break;
      case TFS_INT32: ((int32_t *)p)[i] = (int32_t)k; break;
      case TFS_UINT32: ((uint32_t *)p)[i] = (uint32_t)k; break;
      case TFS_INT64: ((int64_t *)p)[i] = k; break;
      case TFS_UINT64: ((uint64_t *)p)[i] = (uint64_t)k; break;
      case TFS_BOOL: ((uint8_t *)p)[i] = u < 0.5; break;
      default: return;
    }
  }
}

static int random_dtype_ok(tfs_dtype dt) {
  switch (dt) {
    case TFS_FLOAT: case TFS_DOUBLE: case TFS_HALF: case TFS_BFLOAT16:
    case TFS_INT8: case TFS_UINT8: case TFS_INT16: case TFS_UINT16:
    case TFS_INT32: case TFS_UINT32: case TFS_INT64: case TFS_UINT64:
    case TFS_BOOL:
      return 1;
    default:
      return 0;
  }
}

/* "[?,224,3]", "<unknown>" */
static const char *shape_text(const int64_t *d, int nd, char *buf,
                              size_t size) {
  if (nd < 0) return "<unknown>";
  size_t at = (size_t)snprintf(buf, size, "[");
  for (int i = 0; i < nd && at < size; i++) {
    if (d[i] < 0)
      at += (size_t)snprintf(buf + at, size - at, "%s?", i ? "," : "");
    else
      at += (size_t)snprintf(buf + at, size - at, "%s%lld", i ? "," : "",
                             (long long)d[i]);
  }
  if (at < size) snprintf(buf + at, size - at, "]");
  return buf;
}

/* Parses "D0,D1,..." ("" is a scalar) into dims; -1 (reported). */
static int parse_dims(const char *name, const char *text, int64_t *dims,
                      int *nd) {
  *nd = 0;
  for (const char *p = text; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char num[32];
    char *end = NULL;
    long long v = -1;
    if (len > 0 && len < sizeof num) {
      memcpy(num, p, len);
      num[len] = 0;
      v = strtoll(num, &end, 10);
    }
    if (v < 0 || !end || *end || num[0] == '+' || num[0] == '-') {
      tfs_cli_usage_error("--input-shape %s=%s: bad dimension '%.*s' (want "
                          "a non-negative integer)",
                          name, text, (int)len, p);
      return -1;
    }
    if (*nd == TFS_MAX_RANK) {
      tfs_cli_usage_error("--input-shape %s=%s: more than %d dimensions",
                          name, text, TFS_MAX_RANK);
      return -1;
    }
    dims[(*nd)++] = v;
    if (!e) break;
    p = e + 1;
    if (!*p) {
      tfs_cli_usage_error("--input-shape %s=%s: empty dimension at the end",
                          name, text);
      return -1;
    }
  }
  return 0;
}

/* Checks that every --input-shape entry names a Placeholder, once. */
static int check_shape_names(tfs_graph *g, const tfs_cli_list *shapes) {
  for (int i = 0; i < shapes->n; i++) {
    const char *spec = shapes->v[i], *eq = strchr(spec, '=');
    if (!eq || eq == spec)
      return tfs_cli_usage_error("--input-shape '%s': expected "
                                 "NAME=D0,D1,... (e.g. input=1,224,224,3)",
                                 spec);
    char name[512];
    size_t len = (size_t)(eq - spec);
    if (len >= sizeof name) len = sizeof name - 1;
    memcpy(name, spec, len);
    name[len] = 0;
    char *colon = strrchr(name, ':');
    if (colon && strcmp(colon, ":0") == 0) *colon = 0;
    tfs_operation *op = tfs_graph_operation_by_name(g, name);
    if (!op)
      return tfs_cli_usage_error("--input-shape %s: no placeholder named "
                                 "'%s' in the graph", spec, name);
    if (strcmp(tfs_operation_op_type(op), "Placeholder") != 0)
      return tfs_cli_usage_error("--input-shape %s: '%s' is a %s, not a "
                                 "Placeholder", spec, name,
                                 tfs_operation_op_type(op));
    for (int j = 0; j < i; j++)
      if (strncmp(shapes->v[j], spec, len + 1) == 0)
        return tfs_cli_usage_error("--input-shape: '%s' is given twice",
                                   name);
  }
  return 0;
}

static const char *find_shape(const tfs_cli_list *shapes, const char *name) {
  size_t len = strlen(name);
  for (int i = 0; i < shapes->n; i++) {
    const char *s = shapes->v[i];
    if (strncmp(s, name, len) != 0) continue;
    if (s[len] == '=') return s + len + 1;
    if (strncmp(s + len, ":0=", 3) == 0) return s + len + 3;
  }
  return NULL;
}

static int is_fed(const tfs_output *ports, int n, const tfs_operation *op) {
  for (int i = 0; i < n; i++)
    if (ports[i].oper == op) return 1;
  return 0;
}

/* The random tensor of one placeholder; NULL (reported). */
static tfs_tensor *make_input(tfs_graph *g, tfs_operation *op,
                              const char *given, uint64_t *seed, int *rc) {
  const char *name = tfs_operation_name(op);
  tfs_output out = {op, 0};
  tfs_dtype dt = tfs_operation_output_type(out);
  tfs_status *st = tfs_status_new();
  int64_t known[TFS_MAX_RANK], dims[TFS_MAX_RANK];
  int rank = st ? tfs_graph_tensor_num_dims(g, out, st) : -1, nd = 0;
  tfs_tensor *t = NULL;
  char buf[TFS_MAX_RANK * 24 + 8];
  *rc = TFS_CLI_USAGE;
  if (rank > TFS_MAX_RANK) rank = -1;
  if (rank >= 0) tfs_graph_tensor_shape(g, out, known, rank, st);
  if (!random_dtype_ok(dt)) {
    *rc = tfs_cli_error("input '%s': cannot make random values of dtype %s; "
                        "give it with --feed", name, tfs_dtype_name(dt));
    goto done;
  }
  if (given) {
    if (parse_dims(name, given, dims, &nd)) goto done;
    if (rank >= 0 && nd != rank) {
      tfs_cli_usage_error("--input-shape %s=%s: rank %d does not match the "
                          "placeholder's shape %s (rank %d)", name, given, nd,
                          shape_text(known, rank, buf, sizeof buf), rank);
      goto done;
    }
    for (int i = 0; rank >= 0 && i < nd; i++)
      if (known[i] >= 0 && known[i] != dims[i]) {
        tfs_cli_usage_error("--input-shape %s=%s: dimension %d is %lld but "
                            "the placeholder's shape %s says %lld", name,
                            given, i, (long long)dims[i],
                            shape_text(known, rank, buf, sizeof buf),
                            (long long)known[i]);
        goto done;
      }
  } else {
    int full = rank >= 0;
    for (int i = 0; full && i < rank; i++) full = known[i] >= 0;
    if (!full) {
      tfs_cli_usage_error("input '%s' (%s %s) has no fully defined shape: "
                          "give --input-shape %s=D0,D1,... or --feed", name,
                          tfs_dtype_name(dt),
                          shape_text(known, rank, buf, sizeof buf), name);
      goto done;
    }
    nd = rank;
    memcpy(dims, known, sizeof(int64_t) * (size_t)rank);
  }
  t = tfs_tensor_new(dt, dims, nd, st);
  if (!t) {
    *rc = tfs_cli_error("input '%s' of shape %s: %s", name,
                        shape_text(dims, nd, buf, sizeof buf),
                        tfs_status_message(st));
    goto done;
  }
  fill(t, seed);
  *rc = TFS_CLI_OK;
done:
  tfs_status_free(st);
  return t;
}

int tfs_cli_random_inputs(tfs_graph *g, const tfs_cli_list *shapes,
                          tfs_output **ports, tfs_tensor ***values, int *n) {
  int rc = check_shape_names(g, shapes);
  if (rc) return rc;
  uint64_t seed = 0x9E3779B97F4A7C15ULL;
  size_t pos = 0;
  tfs_operation *op;
  while ((op = tfs_graph_next_operation(g, &pos)) != NULL) {
    if (strcmp(tfs_operation_op_type(op), "Placeholder") != 0) continue;
    const char *given = find_shape(shapes, tfs_operation_name(op));
    if (is_fed(*ports, *n, op)) {
      if (given)
        return tfs_cli_usage_error("input '%s' is given by --feed and by "
                                   "--input-shape", tfs_operation_name(op));
      continue;
    }
    tfs_output *p = realloc(*ports, sizeof **ports * (size_t)(*n + 1));
    if (p) *ports = p;
    tfs_tensor **v = p ? realloc(*values, sizeof **values * (size_t)(*n + 1))
                       : NULL;
    if (v) *values = v;
    if (!p || !v) return tfs_cli_error("out of memory");
    tfs_tensor *t = make_input(g, op, given, &seed, &rc);
    if (!t) return rc;
    (*ports)[*n] = (tfs_output){op, 0};
    (*values)[(*n)++] = t;
  }
  return TFS_CLI_OK;
}

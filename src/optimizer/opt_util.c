/*
 * optimizer/opt_util.c - helpers the passes share: bypassing a node,
 * rebuilding a node under its own name, small constants, attr setters and
 * element access.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/half.h"
#include "core/status.h"
#include "device/device.h"
#include "graph_builder/graph_internal.h"
#include "kernels/kernel.h"
#include "optimizer/opt_util.h"

int tfs_opt__bypass(tfs_opt_ctx *c, int n, tfs_oref src) {
  return tfs_opt__bypass_port(c, n, 0, src);
}

int tfs_opt__bypass_port(tfs_opt_ctx *c, int n, int port, tfs_oref src) {
  tfs_ograph *g = c->g;
  if (!tfs_og__removable(g, n) && port == 0) {
    tfs_oref in[1] = {src};
    tfs_attrs a;
    tfs_attrs_init(&a);
    if (tfs_opt__set_type(&a, "T", tfs_og__dtype(g, src))) {
      TFS_OOM(c->st);
      return -1;
    }
    return tfs_opt__rebuild(c, n, "Identity", &a, 1, in) < 0 ? -1 : 0;
  }
  tfs_onode *node = &g->n[n];
  int nctrl = node->nctrl;
  int *ctrl = tfs_malloc(sizeof(int) * (size_t)(nctrl + 2));
  tfs_oref *fan = tfs_malloc(sizeof(tfs_oref) * (size_t)(node->nfan + 1));
  if (!ctrl || !fan) goto oom;
  if (nctrl) memcpy(ctrl, node->ctrl, sizeof(int) * (size_t)nctrl);
  int nfan = node->nfan;
  if (nfan) memcpy(fan, node->fan, sizeof(tfs_oref) * (size_t)nfan);
  /* data consumers: read src and keep n's control inputs */
  for (int j = 0; j < nfan; j++) {
    for (int k = 0; k < nctrl; k++)
      if (tfs_og__add_ctrl(g, fan[j].node, ctrl[k])) goto oom;
  }
  tfs_oref from = {n, port};
  if (tfs_og__forward(g, from, src)) goto oom;
  /* control consumers: after src's producer and n's control inputs */
  ctrl[nctrl] = src.node;
  if (tfs_og__forward_ctrl(g, n, ctrl, nctrl + 1)) goto oom;
  tfs_og__kill_unused(g, n);
  tfs_free(ctrl);
  tfs_free(fan);
  return g->oom ? (TFS_OOM(c->st), -1) : 0;
oom:
  tfs_free(ctrl);
  tfs_free(fan);
  TFS_OOM(c->st);
  return -1;
}

int tfs_opt__rebuild(tfs_opt_ctx *c, int old, const char *op, tfs_attrs *attrs,
                     int nin, const tfs_oref *in) {
  tfs_ograph *g = c->g;
  tfs_onode *o = &g->n[old];
  int nctrl = o->nctrl;
  int *ctrl = tfs_malloc(sizeof(int) * (size_t)(nctrl + 1));
  if (!ctrl) {
    if (attrs) tfs_attrs_clear(attrs);
    TFS_OOM(c->st);
    return -1;
  }
  if (nctrl) memcpy(ctrl, o->ctrl, sizeof(int) * (size_t)nctrl);
  tfs_onode_spec spec = {.op = op,
                         .device = o->device,
                         .attrs = attrs,
                         .nin = nin,
                         .in = in,
                         .nctrl = nctrl,
                         .ctrl = ctrl};
  int r = tfs_og__replace(g, old, &spec, c->st);
  tfs_free(ctrl);
  return r;
}

int tfs_opt__absorb(tfs_opt_ctx *c, int dst, int gone) {
  if (gone < 0 || tfs_og__live(c->g, gone)) return 0;
  if (tfs_og__add_origins(c->g, dst, gone) == 0) return 0;
  TFS_OOM(c->st);
  return -1;
}

tfs_tensor *tfs_opt__tensor(tfs_dtype dt, const tfs_shape *s, tfs_status *st) {
  return tfs_tensor__alloc(dt, s, st);
}

int tfs_opt__const(tfs_opt_ctx *c, tfs_tensor *t, const char *base,
                   const char *device) {
  return tfs_og__add_const(c->g, NULL, base, device, t, 0, NULL, c->st);
}

int tfs_opt__scalar_const(tfs_opt_ctx *c, tfs_dtype dtype, double v,
                          const char *base, const char *device) {
  tfs_shape s;
  tfs_shape_scalar(&s);
  tfs_tensor *t = tfs_opt__tensor(dtype, &s, c->st);
  if (!t) return -1;
  tfs_opt__set(t, 0, v);
  int r = tfs_opt__const(c, t, base, device);
  tfs_tensor_free(t);
  return r;
}

int tfs_opt__int32_const(tfs_opt_ctx *c, const int64_t *v, int n,
                         const char *base, const char *device) {
  tfs_shape s = {.rank = 1, .dims = {n}};
  tfs_tensor *t = tfs_opt__tensor(TFS_INT32, &s, c->st);
  if (!t) return -1;
  for (int i = 0; i < n; i++) ((int32_t *)t->data)[i] = (int32_t)v[i];
  int k = tfs_opt__const(c, t, base, device);
  tfs_tensor_free(t);
  return k;
}

int tfs_opt__single_use(const tfs_ograph *g, int i) {
  const tfs_onode *n = &g->n[i];
  return n->nfan == 1 && n->ncfan == 0 && tfs_og__removable(g, i);
}

double tfs_opt__get(const tfs_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFS_HALF:
      return tfs_half_to_float(((const uint16_t *)t->data)[i]);
    case TFS_BFLOAT16:
      return tfs_bf16_to_float(((const uint16_t *)t->data)[i]);
    default:
      return tfs_tensor__get_as_double(t, i);
  }
}

void tfs_opt__set(tfs_tensor *t, int64_t i, double v) {
  void *d = t->data;
  switch (t->dtype) {
    case TFS_FLOAT:
      ((float *)d)[i] = (float)v;
      break;
    case TFS_DOUBLE:
      ((double *)d)[i] = v;
      break;
    case TFS_HALF:
      ((uint16_t *)d)[i] = tfs_float_to_half((float)v);
      break;
    case TFS_BFLOAT16:
      ((uint16_t *)d)[i] = tfs_float_to_bf16((float)v);
      break;
    case TFS_INT8:
      ((int8_t *)d)[i] = (int8_t)v;
      break;
    case TFS_INT16:
      ((int16_t *)d)[i] = (int16_t)v;
      break;
    case TFS_INT32:
      ((int32_t *)d)[i] = (int32_t)v;
      break;
    case TFS_INT64:
      ((int64_t *)d)[i] = (int64_t)v;
      break;
    case TFS_UINT8:
      ((uint8_t *)d)[i] = (uint8_t)v;
      break;
    case TFS_UINT16:
      ((uint16_t *)d)[i] = (uint16_t)v;
      break;
    case TFS_UINT32:
      ((uint32_t *)d)[i] = (uint32_t)v;
      break;
    case TFS_UINT64:
      ((uint64_t *)d)[i] = (uint64_t)v;
      break;
    case TFS_BOOL:
      ((uint8_t *)d)[i] = v != 0;
      break;
    default:
      break;
  }
}

int tfs_opt__tensor_all(const tfs_tensor *t, double v) {
  switch (t->dtype) {
    case TFS_FLOAT:
    case TFS_DOUBLE:
    case TFS_HALF:
    case TFS_BFLOAT16:
    case TFS_INT8:
    case TFS_INT16:
    case TFS_INT32:
    case TFS_INT64:
    case TFS_UINT8:
    case TFS_UINT16:
    case TFS_UINT32:
    case TFS_UINT64:
      break;
    default:
      return 0;
  }
  for (int64_t i = 0; i < t->nelems; i++)
    if (tfs_opt__get(t, i) != v) return 0;
  return t->nelems > 0;
}

int tfs_opt__copy_attrs(const tfs_ograph *g, int i, tfs_attrs *out) {
  tfs_attrs_init(out);
  return tfs_attrs_copy(out, g->n[i].attrs);
}

int tfs_opt__set_type(tfs_attrs *a, const char *name, tfs_dtype t) {
  tfs_attr_value v;
  tfs_attr_type_val(&v, t);
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_int(tfs_attrs *a, const char *name, int64_t i) {
  tfs_attr_value v;
  tfs_attr_int(&v, i);
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_float(tfs_attrs *a, const char *name, float f) {
  tfs_attr_value v;
  tfs_attr_float(&v, f);
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_bool(tfs_attrs *a, const char *name, int b) {
  tfs_attr_value v;
  tfs_attr_bool(&v, b);
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_string(tfs_attrs *a, const char *name, const char *s) {
  tfs_attr_value v;
  if (tfs_attr_string(&v, s, strlen(s))) return -1;
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_strings(tfs_attrs *a, const char *name, const char *const *s,
                         int n) {
  tfs_bytes b[8];
  if (n > 8) return -1;
  for (int i = 0; i < n; i++) {
    b[i].ptr = (char *)s[i];
    b[i].len = strlen(s[i]);
  }
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_STRING, n, b)) return -1;
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_ints(tfs_attrs *a, const char *name, const int64_t *i, int n) {
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_INT, n, i)) return -1;
  return tfs_attrs_set(a, name, &v);
}
int tfs_opt__set_types(tfs_attrs *a, const char *name, const tfs_dtype *t,
                       int n) {
  tfs_attr_value v;
  if (tfs_attr_list(&v, TFS_ATTR_TYPE, n, t)) return -1;
  return tfs_attrs_set(a, name, &v);
}

int tfs_opt__attr_is(const tfs_ograph *g, int i, const char *name,
                     const char *s) {
  size_t len;
  const char *v = tfs_attrs_get_string(g->n[i].attrs, name, &len);
  return v && len == strlen(s) && memcmp(v, s, len) == 0;
}

int tfs_opt__broadcasts_into(const tfs_shape *small, const tfs_shape *big) {
  if (small->rank == 0) return 1;
  if (small->rank < 0 || big->rank < 0 || small->rank > big->rank) return 0;
  for (int k = 0; k < small->rank; k++) {
    int64_t s = small->dims[small->rank - 1 - k];
    int64_t b = big->dims[big->rank - 1 - k];
    if (s == 1) continue;
    if (s < 0 || b < 0 || s != b) return 0;
  }
  return 1;
}

const char *tfs_opt__device_type(const char *device, char *buf, size_t cap) {
  tfs_device_name n;
  const char *t = "CPU";
  if (device && device[0] && tfs_device_name__parse(device, &n) == 0 &&
      n.has_type)
    t = n.type;
  snprintf(buf, cap, "%s", t);
  return buf;
}

int tfs_opt__device_is(const char *device, const char *type) {
  char buf[TFS_DEVICE_TYPE_MAX];
  return strcmp(tfs_opt__device_type(device, buf, sizeof buf), type) == 0;
}

int tfs_opt__has_kernel(const char *device, const tfs_op_def *def,
                        const tfs_attrs *attrs, const char *node_name) {
  char type[TFS_DEVICE_TYPE_MAX];
  tfs_opt__device_type(device, type, sizeof type);
  tfs_status *st = tfs_status_new();
  int ok = st && tfs_kernel_find(def, type, attrs, node_name, st) != NULL;
  tfs_status_free(st);
  return ok;
}

int tfs_opt__kernel_accepts(const tfs_ograph *g, const char *device,
                            const char *op, const tfs_attrs *attrs, int nin,
                            const tfs_oref *in, tfs_dtype out_type,
                            const tfs_shape *out_shape, const char *node_name) {
  const tfs_op_def *def = tfs_op_lookup(op);
  char type[TFS_DEVICE_TYPE_MAX];
  tfs_opt__device_type(device, type, sizeof type);
  tfs_status *st = tfs_status_new();
  tfs_dtype *types = tfs_malloc(sizeof(tfs_dtype) * (size_t)(nin + 1));
  tfs_shape *shapes = tfs_malloc(sizeof(tfs_shape) * (size_t)(nin + 1));
  tfs_attrs a;
  tfs_attrs_init(&a);
  int ok = 0;
  if (!def || !st || !types || !shapes || tfs_attrs_copy(&a, attrs) ||
      tfs_graph__add_defaults(def, &a))
    goto done;
  const tfs_kernel_def *k = tfs_kernel_find(def, type, &a, node_name, st);
  if (!k) goto done;
  for (int i = 0; i < nin; i++) {
    types[i] = tfs_dtype_base(tfs_og__dtype(g, in[i]));
    shapes[i] = *tfs_og__shape(g, in[i]);
  }
  tfs_kernel_init ki = {
      .node_name = node_name,
      .op = def,
      .attrs = &a,
      .ninputs = nin,
      .in_types = types,
      .in_shapes = shapes,
      .noutputs = 1,
      .out_types = &out_type,
      .out_shapes = out_shape,
      .kdata = k->data,
      .st = st,
  };
  ok = !k->prepare || k->prepare(&ki) == 0;
  if (k->release && ki.state) k->release(ki.state);
done:
  tfs_attrs_clear(&a);
  tfs_free(types);
  tfs_free(shapes);
  tfs_status_free(st);
  return ok;
}

void tfs_opt__device_caps(const char *device, tfs_opt_device_caps *out) {
  char type[TFS_DEVICE_TYPE_MAX];
  tfs_opt__device_type(device, type, sizeof type);
  const tfs_device_type *t = tfs_device__type(type);
  int gpu = strcmp(type, "GPU") == 0;
  out->prefers_nchw = t ? t->prefers_nchw : gpu;
  out->fast_16bit = t ? t->fast_16bit : gpu ? TFS_HALF : TFS_BFLOAT16;
}

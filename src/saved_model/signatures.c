/*
 * saved_model/signatures.c - a loaded SavedModel's signatures: the records
 * built from the MetaGraphDef's signature_def map, their accessors, and
 * tfs_saved_model_run, which feeds and fetches a signature by its keys.
 * See tfsess/saved_model.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "graph_builder/tensor_proto.h"
#include "saved_model/sm_internal.h"

/* ---- building ------------------------------------------------------------ */

static void info_free(tfs_tensor_info *ti) {
  tfs_free(ti->key);
  tfs_free(ti->name);
  tfs_free(ti->indices);
  tfs_free(ti->dense_shape);
  for (int i = 0; i < ti->ncomp; i++) info_free(&ti->comp[i]);
  tfs_free(ti->comp);
  tfs_free(ti->dims);
}

static char *dup_or_empty(const char *s) { return tfs_strdup(s ? s : ""); }

static int info_build(tfs_tensor_info *ti, const char *key,
                      const Tensorflow__TensorInfo *p, int depth,
                      tfs_status *st) {
  int oom = !(ti->key = dup_or_empty(key));
  ti->enc = (tfs_tensor_encoding)p->encoding_case;
  ti->dtype = (tfs_dtype)p->dtype;
  const char *name = "", *ind = "", *dshape = "";
  if (p->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_NAME) {
    name = p->name;
  } else if (p->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_COO_SPARSE &&
             p->coo_sparse) {
    name = p->coo_sparse->values_tensor_name;
    ind = p->coo_sparse->indices_tensor_name;
    dshape = p->coo_sparse->dense_shape_tensor_name;
  }
  oom |= !(ti->name = dup_or_empty(name));
  oom |= !(ti->indices = dup_or_empty(ind));
  oom |= !(ti->dense_shape = dup_or_empty(dshape));
  const Tensorflow__TensorShapeProto *s = p->tensor_shape;
  ti->rank = s && s->unknown_rank ? -1 : s ? (int)s->n_dim : 0;
  if (ti->rank > 0 && !oom) {
    if (!(ti->dims = tfs_calloc((size_t)ti->rank, sizeof *ti->dims)))
      oom = 1;
    for (int i = 0; !oom && i < ti->rank; i++)
      ti->dims[i] = s->dim[i]->size < 0 ? -1 : s->dim[i]->size;
  }
  if (oom) {
    TFS_OOM(st);
    return -1;
  }
  const Tensorflow__TensorInfo__CompositeTensor *c = p->composite_tensor;
  if (p->encoding_case != TENSORFLOW__TENSOR_INFO__ENCODING_COMPOSITE_TENSOR ||
      !c || !c->n_components)
    return 0;
  if (depth >= 32) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "TensorInfo %s: composite tensors nest too deeply", key);
    return -1;
  }
  if (!(ti->comp = tfs_calloc(c->n_components, sizeof *ti->comp))) {
    TFS_OOM(st);
    return -1;
  }
  for (size_t i = 0; i < c->n_components; i++) {
    ti->ncomp = (int)i + 1;
    if (info_build(&ti->comp[i], "", c->components[i], depth + 1, st))
      return -1;
  }
  return 0;
}

static int cmp_info(const void *a, const void *b) {
  return strcmp(((const tfs_tensor_info *)a)->key,
                ((const tfs_tensor_info *)b)->key);
}

static int infos_build(Tensorflow__SignatureDef__InputsEntry *const *e,
                       size_t n, tfs_tensor_info **out, int *nout,
                       tfs_status *st) {
  if (!n) return 0;
  if (!(*out = tfs_calloc(n, sizeof **out))) {
    TFS_OOM(st);
    return -1;
  }
  static const Tensorflow__TensorInfo unset = TENSORFLOW__TENSOR_INFO__INIT;
  for (size_t i = 0; i < n; i++) {
    *nout = (int)i + 1;
    if (info_build(&(*out)[i], e[i]->key, e[i]->value ? e[i]->value : &unset,
                   0, st))
      return -1;
  }
  qsort(*out, n, sizeof **out, cmp_info);
  return 0;
}

static void sig_free(tfs_signature *s) {
  tfs_free(s->key);
  tfs_free(s->method);
  for (int i = 0; i < s->nin; i++) info_free(&s->in[i]);
  for (int i = 0; i < s->nout; i++) info_free(&s->out[i]);
  tfs_free(s->in);
  tfs_free(s->out);
  for (int i = 0; i < s->ndef; i++) {
    tfs_free(s->def_keys[i]);
    tfs_tensor_free(s->defs[i]);
  }
  tfs_free(s->def_keys);
  tfs_free(s->defs);
}

static int defaults_build(tfs_signature *s, const Tensorflow__SignatureDef *p,
                          tfs_status *st) {
  size_t n = p->n_defaults;
  if (!n) return 0;
  s->def_keys = tfs_calloc(n, sizeof *s->def_keys);
  s->defs = tfs_calloc(n, sizeof *s->defs);
  if (!s->def_keys || !s->defs) {
    TFS_OOM(st);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    s->ndef = (int)i + 1;
    if (!(s->def_keys[i] = tfs_strdup(p->defaults[i]->key))) {
      TFS_OOM(st);
      return -1;
    }
    static const Tensorflow__TensorProto empty = TENSORFLOW__TENSOR_PROTO__INIT;
    const Tensorflow__TensorProto *tp =
        p->defaults[i]->value ? p->defaults[i]->value : &empty;
    if (!(s->defs[i] = tfs_tensor__from_proto(tp, st))) return -1;
  }
  return 0;
}

static int sig_build(tfs_signature *s, const char *key,
                     const Tensorflow__SignatureDef *p, tfs_status *st) {
  if (!(s->key = tfs_strdup(key)) || !(s->method = dup_or_empty(p->method_name))) {
    TFS_OOM(st);
    return -1;
  }
  /* the inputs and outputs maps have the same entry layout */
  if (infos_build(p->inputs, p->n_inputs, &s->in, &s->nin, st) ||
      infos_build((Tensorflow__SignatureDef__InputsEntry *const *)p->outputs,
                  p->n_outputs, &s->out, &s->nout, st))
    return -1;
  return defaults_build(s, p, st);
}

static int cmp_sig(const void *a, const void *b) {
  return strcmp(((const tfs_signature *)a)->key,
                ((const tfs_signature *)b)->key);
}

int tfs_sm__build_signatures(tfs_saved_model *m,
                             const Tensorflow__MetaGraphDef *mg,
                             tfs_status *st) {
  size_t n = mg->n_signature_def;
  if (!n) return 0;
  if (!(m->sigs = tfs_calloc(n, sizeof *m->sigs))) {
    TFS_OOM(st);
    return -1;
  }
  static const Tensorflow__SignatureDef unset = TENSORFLOW__SIGNATURE_DEF__INIT;
  for (size_t i = 0; i < n; i++) {
    const Tensorflow__MetaGraphDef__SignatureDefEntry *e =
        mg->signature_def[i];
    m->nsig = (int)i + 1;
    if (sig_build(&m->sigs[i], e->key, e->value ? e->value : &unset, st))
      return -1;
  }
  qsort(m->sigs, n, sizeof *m->sigs, cmp_sig);
  return 0;
}

void tfs_sm__free_signatures(tfs_saved_model *m) {
  for (int i = 0; i < m->nsig; i++) sig_free(&m->sigs[i]);
  tfs_free(m->sigs);
  m->sigs = NULL;
  m->nsig = 0;
}

/* ---- accessors ----------------------------------------------------------- */

int tfs_saved_model_num_signatures(const tfs_saved_model *m) {
  return m ? m->nsig : 0;
}

const tfs_signature *tfs_saved_model_signature(const tfs_saved_model *m,
                                               int i) {
  return m && i >= 0 && i < m->nsig ? &m->sigs[i] : NULL;
}

const tfs_signature *tfs_saved_model_find_signature(const tfs_saved_model *m,
                                                    const char *key) {
  if (!m || !key) return NULL;
  for (int i = 0; i < m->nsig; i++)
    if (strcmp(m->sigs[i].key, key) == 0) return &m->sigs[i];
  return NULL;
}

const char *tfs_signature_key(const tfs_signature *s) {
  return s ? s->key : NULL;
}
const char *tfs_signature_method_name(const tfs_signature *s) {
  return s ? s->method : NULL;
}
int tfs_signature_num_inputs(const tfs_signature *s) { return s ? s->nin : 0; }
int tfs_signature_num_outputs(const tfs_signature *s) {
  return s ? s->nout : 0;
}
const tfs_tensor_info *tfs_signature_input(const tfs_signature *s, int i) {
  return s && i >= 0 && i < s->nin ? &s->in[i] : NULL;
}
const tfs_tensor_info *tfs_signature_output(const tfs_signature *s, int i) {
  return s && i >= 0 && i < s->nout ? &s->out[i] : NULL;
}

static const tfs_tensor_info *find_info(const tfs_tensor_info *v, int n,
                                        const char *key) {
  for (int i = 0; key && i < n; i++)
    if (strcmp(v[i].key, key) == 0) return &v[i];
  return NULL;
}

const tfs_tensor_info *tfs_signature_find_input(const tfs_signature *s,
                                                const char *key) {
  return s ? find_info(s->in, s->nin, key) : NULL;
}
const tfs_tensor_info *tfs_signature_find_output(const tfs_signature *s,
                                                 const char *key) {
  return s ? find_info(s->out, s->nout, key) : NULL;
}

const char *tfs_tensor_info_key(const tfs_tensor_info *ti) {
  return ti ? ti->key : NULL;
}
tfs_tensor_encoding tfs_tensor_info_encoding(const tfs_tensor_info *ti) {
  return ti ? ti->enc : TFS_TENSOR_ENCODING_UNSET;
}
const char *tfs_tensor_info_name(const tfs_tensor_info *ti) {
  return ti ? ti->name : NULL;
}
const char *tfs_tensor_info_indices_name(const tfs_tensor_info *ti) {
  return ti ? ti->indices : NULL;
}
const char *tfs_tensor_info_dense_shape_name(const tfs_tensor_info *ti) {
  return ti ? ti->dense_shape : NULL;
}
int tfs_tensor_info_num_components(const tfs_tensor_info *ti) {
  return ti ? ti->ncomp : 0;
}
const tfs_tensor_info *tfs_tensor_info_component(const tfs_tensor_info *ti,
                                                 int i) {
  return ti && i >= 0 && i < ti->ncomp ? &ti->comp[i] : NULL;
}
tfs_dtype tfs_tensor_info_dtype(const tfs_tensor_info *ti) {
  return ti ? ti->dtype : (tfs_dtype)0;
}
int tfs_tensor_info_rank(const tfs_tensor_info *ti) {
  return ti ? ti->rank : -1;
}
int64_t tfs_tensor_info_dim(const tfs_tensor_info *ti, int i) {
  return ti && i >= 0 && i < ti->rank ? ti->dims[i] : -1;
}

/*
 * saved_model/serve.c - tfs_saved_model_run: one call of a signature, its
 * inputs fed and its outputs fetched by key.  See tfsess/saved_model.h.
 */
#include <string.h>

#include "core/alloc.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "saved_model/sm_internal.h"

/* "a, b, c": the keys of v[0..n). */
static void key_list(tfs_strbuf *b, const tfs_tensor_info *v, int n) {
  for (int i = 0; i < n; i++) {
    if (i) tfs_strbuf_puts(b, ", ");
    tfs_strbuf_puts(b, v[i].key);
  }
}

static const tfs_signature *find_sig(const tfs_saved_model *m,
                                     const char *key, tfs_status *st) {
  const tfs_signature *s = tfs_saved_model_find_signature(m, key);
  if (s) return s;
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "Could not find signature \"%s\". Please choose from: ",
                    key);
  for (int i = 0; i < m->nsig; i++) {
    if (i) tfs_strbuf_puts(&b, ", ");
    tfs_strbuf_puts(&b, m->sigs[i].key);
  }
  tfs_status_set(st, TFS_NOT_FOUND, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return NULL;
}

/* The dense tensor a signature key names, checked for its encoding. */
static int info_tensor(const tfs_saved_model *m, const tfs_signature *s,
                       const tfs_tensor_info *ti, const char *what,
                       tfs_output *o, tfs_status *st) {
  if (ti->enc != TFS_TENSOR_NAME) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Signature \"%s\" %s \"%s\" is a %s tensor: run the "
                    "session on its component tensors",
                    s->key, what, ti->key,
                    ti->enc == TFS_TENSOR_COO_SPARSE ? "sparse"
                                                     : "composite");
    return -1;
  }
  return tfs_sm__find_tensor(m->g, ti->name, o, st);
}

static const tfs_tensor_info *lookup(const tfs_signature *s, int input,
                                     const char *key, tfs_status *st) {
  const tfs_tensor_info *ti = input ? tfs_signature_find_input(s, key)
                                    : tfs_signature_find_output(s, key);
  if (ti) return ti;
  tfs_strbuf b = TFS_STRBUF_INIT;
  tfs_strbuf_printf(&b, "Signature \"%s\" has no %s named \"%s\"; its %s: ",
                    s->key, input ? "input" : "output", key ? key : "(null)",
                    input ? "inputs" : "outputs");
  key_list(&b, input ? s->in : s->out, input ? s->nin : s->nout);
  tfs_status_set(st, TFS_NOT_FOUND, tfs_strbuf_str(&b));
  tfs_strbuf_free(&b);
  return NULL;
}

/* Feeds for every signature input: the caller's, else its default. */
static int gather_feeds(const tfs_saved_model *m, const tfs_signature *s,
                        const char *const *keys, tfs_tensor *const *inputs,
                        int n, tfs_output *fo, tfs_tensor **fv,
                        tfs_status *st) {
  for (int i = 0; i < s->nin; i++) fv[i] = NULL;
  for (int i = 0; i < n; i++) {
    const tfs_tensor_info *ti = lookup(s, 1, keys[i], st);
    if (!ti) return -1;
    int k = (int)(ti - s->in);
    if (fv[k]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Signature \"%s\" input \"%s\" is given twice", s->key,
                      ti->key);
      return -1;
    }
    if (!inputs[i]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Signature \"%s\" input \"%s\" is NULL", s->key,
                      ti->key);
      return -1;
    }
    tfs_dtype dt = tfs_tensor_dtype(inputs[i]);
    if (ti->dtype && dt != ti->dtype) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Signature \"%s\" input \"%s\" expects a %s tensor, "
                      "got %s",
                      s->key, ti->key, tfs_dtype_name(ti->dtype),
                      tfs_dtype_name(dt));
      return -1;
    }
    fv[k] = inputs[i];
  }
  for (int k = 0; k < s->nin; k++) {
    const tfs_tensor_info *ti = &s->in[k];
    for (int d = 0; !fv[k] && d < s->ndef; d++)
      if (strcmp(s->def_keys[d], ti->key) == 0) fv[k] = s->defs[d];
    if (!fv[k]) {
      tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                      "Signature \"%s\" input \"%s\" is missing and has no "
                      "default",
                      s->key, ti->key);
      return -1;
    }
    if (info_tensor(m, s, ti, "input", &fo[k], st)) return -1;
  }
  return 0;
}

void tfs_saved_model_run(tfs_saved_model *m, const char *key,
                         const char *const *input_keys,
                         tfs_tensor *const *inputs, int ninputs,
                         const char *const *output_keys,
                         tfs_tensor **outputs, int noutputs,
                         tfs_status *st) {
  tfs_saved_model_run_ex(m, key, NULL, input_keys, inputs, ninputs,
                         output_keys, outputs, noutputs, NULL, st);
}

void tfs_saved_model_run_ex(tfs_saved_model *m, const char *key,
                            const tfs_buffer *run_options,
                            const char *const *input_keys,
                            tfs_tensor *const *inputs, int ninputs,
                            const char *const *output_keys,
                            tfs_tensor **outputs, int noutputs,
                            tfs_buffer *run_metadata, tfs_status *st) {
  for (int i = 0; outputs && i < noutputs; i++) outputs[i] = NULL;
  TFS_CHECK_ARG(m != NULL && ninputs >= 0 && noutputs >= 0 &&
                    (ninputs == 0 || (input_keys && inputs)) &&
                    (noutputs == 0 || outputs),
                st, );
  const tfs_signature *s = find_sig(m, key ? key : "serving_default", st);
  if (!s) return;
  if (!output_keys && noutputs != s->nout) {
    tfs_status_setf(st, TFS_INVALID_ARGUMENT,
                    "Signature \"%s\" has %d outputs; %d were asked for",
                    s->key, s->nout, noutputs);
    return;
  }
  int nf = s->nin;
  tfs_output *fo = tfs_calloc((size_t)nf + (size_t)noutputs + 1, sizeof *fo);
  tfs_tensor **fv = tfs_calloc((size_t)nf + 1, sizeof *fv);
  if (!fo || !fv) {
    tfs_free(fo);
    tfs_free(fv);
    TFS_OOM(st);
    return;
  }
  tfs_output *out = fo + nf;
  int rc = gather_feeds(m, s, input_keys, inputs, ninputs, fo, fv, st);
  for (int i = 0; rc == 0 && i < noutputs; i++) {
    const tfs_tensor_info *ti =
        output_keys ? lookup(s, 0, output_keys[i], st) : &s->out[i];
    rc = ti ? info_tensor(m, s, ti, "output", &out[i], st) : -1;
  }
  if (rc == 0)
    tfs_session_run_ex(m->s, run_options, fo, fv, nf, out, outputs, noutputs,
                       NULL, 0, run_metadata, st);
  tfs_free(fo);
  tfs_free(fv);
}

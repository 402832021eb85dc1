/*
 * fuzz/fuzz_strings.c - libFuzzer target: the ways untrusted bytes become
 * string tensors.  Input: a path byte, a flags byte, a template length and
 * that many bytes of StringFormat template, then the payload.  Paths:
 *   0  TensorProto bytes: TF_TensorFromProto;
 *   1  a DT_STRING TensorProto made from the payload (string_val pieces,
 *      tensor_content in TensorFlow's string-list encoding, or raw);
 *   2  a TF_STRING tensor in the pre-2.4 encoding (offset table, varint
 *      lengths), raw or well formed; TF_StringDecode / TF_StringEncode;
 *   3  the TF_TString helpers (copy, view, views with an owner, append,
 *      resize, reserve, assign, move, dealloc) against a plain copy;
 *   4  .npy bytes of a byte-string or unicode dtype, written back and
 *      read again;
 *   5  strings split from the payload;
 *   6  GraphDef bytes: each string Const.
 * Every string tensor that results (at most 1024 elements) is set as a
 * Const (attr read back, GraphDef export, import, run), fed to the ops
 * that take strings in one run (Identity, Add, Equal, NotEqual, Reshape,
 * ReverseV2, Tile, Pad, PadV2, ConcatV2, Pack, Unpack, Select, SelectV2,
 * StringFormat, Transpose, ExpandDims, Squeeze, ZerosLike, Snapshot,
 * IdentityN, MatrixBandPart, and Fill, BroadcastTo, OneHot and ScatterNd
 * of a string scalar) and in one run each to those that may refuse it
 * (GatherV2, GatherNd, Slice, Split, MirrorPad, StridedSlice, Assert's
 * message), all traced into a RunMetadata; it is assigned to a ref and a
 * resource variable and read back, and given to eager ops (a tensor
 * handle, Identity, Add, a Const attr).  Values the input fixes (a Const
 * read back, Identity, Add, the variables, the round trips) are
 * compared; a difference aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"
#include "tfsess/tfsess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ELEMS 1024 /* elements of a tensor the ops get */
#define MAX_PIECES 256 /* strings split from a payload */
#define MAX_TSTR 65536 /* size of a TF_TString in path 3 */
#define NSAFE 28       /* ops fetched in one run */

/* ConfigProto { intra_op_parallelism_threads: 1,
 *               inter_op_parallelism_threads: -1 }. */
static const unsigned char kConfig[] = {0x10, 0x01, 0x28, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0x01};
/* RunOptions { timeout_in_ms: 200 }, and with trace_level FULL_TRACE. */
static const unsigned char kRunOptions[] = {0x10, 0xc8, 0x01};
static const unsigned char kTraced[] = {0x08, 0x03, 0x10, 0xc8, 0x01};

typedef struct fz {
  TF_Status *st;
  uint8_t flags;
  const uint8_t *tmpl; /* StringFormat template */
  size_t tlen;
} fz;

static void fail(const char *what) {
  fprintf(stderr, "fuzz_strings: %s\n", what);
  abort();
}

/* ---- input cursor and protobuf wire writer ------------------------------- */

typedef struct cur {
  const uint8_t *p;
  size_t n;
} cur;

static uint8_t take_u8(cur *c) {
  if (!c->n) return 0;
  c->n--;
  return *c->p++;
}

static const uint8_t *take(cur *c, size_t k, size_t *got) {
  const uint8_t *p = c->p;
  if (k > c->n) k = c->n;
  c->p += k;
  c->n -= k;
  *got = k;
  return p;
}

typedef struct wbuf {
  uint8_t *d;
  size_t len, cap;
} wbuf;

static void w_bytes(wbuf *b, const void *p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n) cap *= 2;
    uint8_t *d = realloc(b->d, cap);
    if (!d) abort();
    b->d = d;
    b->cap = cap;
  }
  if (n) memcpy(b->d + b->len, p, n);
  b->len += n;
}

static void w_varint(wbuf *b, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  w_bytes(b, tmp, n);
}

static void w_tag(wbuf *b, unsigned field, unsigned wire) {
  w_varint(b, (uint64_t)field << 3 | wire);
}

static void w_ld(wbuf *b, unsigned field, const void *p, size_t n) {
  w_tag(b, field, 2);
  w_varint(b, n);
  w_bytes(b, p, n);
}

/* Splits the rest of `c` at a delimiter (its first byte) into at most
 * MAX_PIECES pieces; returns the count. */
static int split(cur *c, const uint8_t **piece, size_t *len) {
  uint8_t delim = take_u8(c);
  int n = 0;
  size_t start = 0;
  for (size_t i = 0; i <= c->n && n < MAX_PIECES; i++) {
    if (i == c->n || c->p[i] == delim) {
      piece[n] = c->p + start;
      len[n++] = i - start;
      start = i + 1;
    }
  }
  return n;
}

/* ---- string tensors ------------------------------------------------------ */

/* A TF_STRING tensor whose byte size is not one TF_TString per element is
 * in the legacy encoding. */
static int is_legacy(const TF_Tensor *t) {
  return TF_TensorByteSize(t) !=
         (size_t)TF_TensorElementCount(t) * sizeof(TF_TString);
}

static TF_Tensor *new_strings(const int64_t *dims, int nd,
                              const uint8_t *const *p, const size_t *len,
                              int64_t n) {
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, nd,
                                   (size_t)n * sizeof(TF_TString));
  if (!t) return NULL;
  TF_TString *e = TF_TensorData(t);
  for (int64_t i = 0; i < n; i++) {
    TF_StringInit(&e[i]);
    TF_StringCopy(&e[i], (const char *)p[i], len[i]);
  }
  return t;
}

/* Aborts unless a and b are string tensors of one shape and one value. */
static void same(const TF_Tensor *a, const TF_Tensor *b, const char *what) {
  if (TF_TensorType(a) != TF_STRING || TF_TensorType(b) != TF_STRING ||
      TF_NumDims(a) != TF_NumDims(b))
    fail(what);
  for (int i = 0; i < TF_NumDims(a); i++)
    if (TF_Dim(a, i) != TF_Dim(b, i)) fail(what);
  const TF_TString *x = TF_TensorData(a), *y = TF_TensorData(b);
  for (int64_t i = 0; i < TF_TensorElementCount(a); i++) {
    size_t n = TF_StringGetSize(&x[i]);
    if (n != TF_StringGetSize(&y[i]) ||
        (n && memcmp(TF_StringGetDataPointer(&x[i]),
                     TF_StringGetDataPointer(&y[i]), n) != 0))
      fail(what);
  }
}

/* Aborts unless c[i] is a[i] a[i] for every i (Add of strings). */
static void concatenated(const TF_Tensor *a, const TF_Tensor *c) {
  const TF_TString *x = TF_TensorData(a), *y = TF_TensorData(c);
  if (TF_TensorElementCount(a) != TF_TensorElementCount(c))
    fail("Add(x, x) changed the element count");
  for (int64_t i = 0; i < TF_TensorElementCount(a); i++) {
    size_t n = TF_StringGetSize(&x[i]);
    const char *p = TF_StringGetDataPointer(&x[i]);
    const char *q = TF_StringGetDataPointer(&y[i]);
    if (TF_StringGetSize(&y[i]) != 2 * n ||
        (n && (memcmp(p, q, n) != 0 || memcmp(p, q + n, n) != 0)))
      fail("Add(x, x) is not x concatenated with itself");
  }
}

/* ---- graphs -------------------------------------------------------------- */

static TF_Output out0(TF_Operation *op) {
  TF_Output o = {op, 0};
  return o;
}

/* Finishes d; NULL when the op was refused (the reason is dropped). */
static TF_Operation *finish(TF_OperationDescription *d, TF_Status *st) {
  TF_Operation *op = TF_FinishOperation(d, st);
  if (TF_GetCode(st) != TF_OK) op = NULL;
  TF_SetStatus(st, TF_OK, "");
  return op;
}

static TF_Operation *const_i32(TF_Graph *g, const char *name,
                               const int32_t *v, const int64_t *dims, int nd,
                               TF_Status *st) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, nd, (size_t)n * 4);
  if (!t) return NULL;
  memcpy(TF_TensorData(t), v, (size_t)n * 4);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, st);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  return finish(d, st);
}

/* A two-input op; NULL when an input is missing. */
static TF_Operation *op2(TF_Graph *g, const char *type, const char *name,
                         TF_Operation *a, TF_Operation *b, TF_Status *st) {
  if (!a || !b) return NULL;
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, out0(a));
  TF_AddInput(d, out0(b));
  return finish(d, st);
}

static TF_Operation *op1(TF_Graph *g, const char *type, const char *name,
                         TF_Operation *a, TF_Status *st) {
  if (!a) return NULL;
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, out0(a));
  return finish(d, st);
}

/* A description of `type` with inputs in[0..n); NULL (nothing made)
 * when one of them is missing. */
static TF_OperationDescription *desc(TF_Graph *g, const char *type,
                                     const char *name,
                                     TF_Operation *const *in, int n) {
  for (int i = 0; i < n; i++)
    if (!in[i]) return NULL;
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, out0(in[i]));
  return d;
}

static TF_Operation *fin(TF_OperationDescription *d, TF_Status *st) {
  return d ? finish(d, st) : NULL;
}

static TF_Session *new_session(TF_Graph *g, TF_Status *st) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_SetConfig(o, kConfig, sizeof kConfig, st);
  TF_Session *s = TF_NewSession(g, o, st);
  TF_DeleteSessionOptions(o);
  if (TF_GetCode(st) != TF_OK) s = NULL;
  TF_SetStatus(st, TF_OK, "");
  return s;
}

static void close_session(TF_Session *s, TF_Status *st) {
  if (!s) return;
  TF_CloseSession(s, st);
  TF_DeleteSession(s, st);
  TF_SetStatus(st, TF_OK, "");
}

/* One run: x fed with `in`, n fetches into out[] (NULL entries where the
 * run failed); `target` is run for its effect; `trace`: with full tracing
 * into a RunMetadata.  Returns the status code; the message is read so
 * that a bad one shows. */
static int run(TF_Session *s, TF_Operation *x, TF_Tensor *in,
               TF_Operation *const *fetch, int n, TF_Tensor **out,
               TF_Operation *target, int trace, TF_Status *st) {
  TF_Output feed = out0(x), f[32];
  TF_Buffer ro = {kRunOptions, sizeof kRunOptions, NULL};
  TF_Buffer *meta = trace ? TF_NewBuffer() : NULL;
  int nf = 0;
  if (trace) {
    ro.data = kTraced;
    ro.length = sizeof kTraced;
  }
  for (int i = 0; i < n; i++) {
    out[i] = NULL;
    if (fetch[i]) f[nf++] = out0(fetch[i]);
  }
  TF_Tensor *got[32] = {NULL};
  const TF_Operation *t = target;
  TF_SessionRun(s, &ro, x ? &feed : NULL, x ? &in : NULL, x ? 1 : 0, f, got,
                nf, t ? &t : NULL, t ? 1 : 0, meta, st);
  if (meta) TF_DeleteBuffer(meta);
  int code = TF_GetCode(st);
  (void)strlen(TF_Message(st));
  TF_SetStatus(st, TF_OK, "");
  for (int i = 0, k = 0; i < n; i++)
    if (fetch[i]) out[i] = got[k++];
  return code;
}

/* ---- a string tensor as a Const ------------------------------------------ */

/* The value of Const "c" of g read back, or NULL. */
static TF_Tensor *const_value(TF_Graph *g, TF_Status *st) {
  TF_Operation *c = TF_GraphOperationByName(g, "c");
  TF_Tensor *v = NULL;
  if (!c) return NULL;
  TF_OperationGetAttrTensor(c, "value", &v, st);
  if (TF_GetCode(st) != TF_OK) {
    TF_SetStatus(st, TF_OK, "");
    return NULL;
  }
  return v;
}

/* Sets `t` as a Const, reads it back, exports the graph, imports it into
 * a new one and runs the Const there.  Returns the value read back (the
 * strings a legacy tensor decodes to), or NULL when `t` was refused. */
static TF_Tensor *as_const(fz *f, TF_Tensor *t) {
  TF_Status *st = f->st;
  TF_Graph *g = TF_NewGraph(), *g2 = TF_NewGraph();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "c");
  TF_SetAttrTensor(d, "value", t, st);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_SetStatus(st, TF_OK, "");
  TF_Tensor *v = finish(d, st) ? const_value(g, st) : NULL;
  if (v && !is_legacy(t)) same(t, v, "a Const's value read back differs");
  TF_Buffer *gd = TF_NewBuffer();
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  if (v) {
    TF_GraphToGraphDef(g, gd, st);
    if (TF_GetCode(st) != TF_OK) fail("exporting a string Const failed");
    TF_GraphImportGraphDef(g2, gd, io, st);
    if (TF_GetCode(st) != TF_OK) fail("an exported string Const is refused");
    TF_Tensor *w = const_value(g2, st);
    if (!w) fail("an imported string Const has no value");
    same(v, w, "a Const's value after export and import differs");
    TF_DeleteTensor(w);
    TF_Session *s = new_session(g2, st);
    TF_Operation *c = TF_GraphOperationByName(g2, "c");
    if (s && c && run(s, NULL, NULL, &c, 1, &w, NULL, 0, st) == TF_OK && w)
      same(v, w, "running a string Const gives another value");
    if (w) TF_DeleteTensor(w);
    close_session(s, st);
  }
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(gd);
  TF_DeleteGraph(g2);
  TF_DeleteGraph(g);
  return v;
}

/* ---- the string ops ------------------------------------------------------ */

/* Non-overlapping "{}" in the template. */
static int placeholders(const fz *f) {
  int n = 0;
  for (size_t i = 0; i + 2 <= f->tlen;) {
    if (f->tmpl[i] == '{' && f->tmpl[i + 1] == '}') {
      n++;
      i += 2;
    } else {
      i++;
    }
  }
  return n;
}

static TF_Operation *string_format(TF_Graph *g, TF_Operation *x, fz *f) {
  static const int64_t kSummarize[] = {3, -1, 1, 0};
  int k = placeholders(f);
  TF_Output in[4];
  if (k > 4) return NULL;
  for (int i = 0; i < k; i++) in[i] = out0(x);
  TF_OperationDescription *d = TF_NewOperation(g, "StringFormat", "fmt");
  TF_AddInputList(d, in, k);
  TF_SetAttrString(d, "template", f->tmpl, f->tlen);
  TF_SetAttrString(d, "placeholder", "{}", 2);
  TF_SetAttrInt(d, "summarize", kSummarize[(f->flags >> 4) & 3]);
  return finish(d, f->st);
}

typedef struct ops {
  TF_Operation *x, *flat, *zero;
  TF_Operation *safe[NSAFE]; /* 0: Identity, 1: Add; one run */
  TF_Operation *risky[7]; /* one run each; 5 is Assert, a target */
  TF_Operation *state[4]; /* x assigned to variables and read back */
} ops;

static void build_list_ops(TF_Graph *g, ops *o, TF_Status *st) {
  TF_Output two[2] = {out0(o->flat), out0(o->safe[4])};
  TF_OperationDescription *d;
  if (o->flat && o->safe[4] && o->zero) {
    d = TF_NewOperation(g, "ConcatV2", "concat");
    TF_AddInputList(d, two, 2);
    TF_AddInput(d, out0(o->zero));
    o->safe[7] = finish(d, st);
  }
  two[0] = two[1] = out0(o->x);
  d = TF_NewOperation(g, "Pack", "pack");
  TF_AddInputList(d, two, 2);
  o->safe[8] = finish(d, st);
  if (o->safe[2] && o->safe[1]) {
    d = TF_NewOperation(g, "Select", "select");
    TF_AddInput(d, out0(o->safe[2]));
    TF_AddInput(d, out0(o->x));
    TF_AddInput(d, out0(o->safe[1]));
    o->safe[9] = finish(d, st);
  }
}

static void build_risky_ops(TF_Graph *g, ops *o, TF_Status *st) {
  static const int32_t kFirst[1] = {0}, kOne[1] = {1}, kAll[1] = {-1};
  static const int32_t kMirror[2] = {1, 1}, kEnd[1] = {0};
  const int64_t one = 1, pair[2] = {1, 2};
  TF_Operation *first = const_i32(g, "first", kFirst, &one, 1, st);
  TF_Operation *begin1 = const_i32(g, "begin1", kOne, &one, 1, st);
  TF_Operation *all = const_i32(g, "all", kAll, &one, 1, st);
  TF_Operation *mirror = const_i32(g, "mirror", kMirror, pair, 2, st);
  TF_Operation *end = const_i32(g, "end", kEnd, &one, 1, st);
  TF_OperationDescription *d;
  if (o->flat && first && o->zero) {
    d = TF_NewOperation(g, "GatherV2", "gather");
    TF_AddInput(d, out0(o->flat));
    TF_AddInput(d, out0(first));
    TF_AddInput(d, out0(o->zero));
    o->risky[0] = finish(d, st);
  }
  if (o->flat && begin1 && all) {
    d = TF_NewOperation(g, "Slice", "slice");
    TF_AddInput(d, out0(o->flat));
    TF_AddInput(d, out0(begin1));
    TF_AddInput(d, out0(all));
    o->risky[1] = finish(d, st);
  }
  if (o->flat && o->zero) {
    d = TF_NewOperation(g, "Split", "split");
    TF_AddInput(d, out0(o->zero));
    TF_AddInput(d, out0(o->flat));
    TF_SetAttrInt(d, "num_split", 2);
    o->risky[2] = finish(d, st);
  }
  if (o->flat && mirror) {
    d = TF_NewOperation(g, "MirrorPad", "mirror_pad");
    TF_AddInput(d, out0(o->flat));
    TF_AddInput(d, out0(mirror));
    TF_SetAttrString(d, "mode", "REFLECT", 7);
    o->risky[3] = finish(d, st);
  }
  if (o->flat && all && end) {
    d = TF_NewOperation(g, "StridedSlice", "strided");
    TF_AddInput(d, out0(o->flat));
    TF_AddInput(d, out0(all));
    TF_AddInput(d, out0(end));
    TF_AddInput(d, out0(all));
    TF_SetAttrInt(d, "end_mask", 1);
    o->risky[4] = finish(d, st);
  }
  TF_Tensor *no = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
  if (!no) return;
  *(uint8_t *)TF_TensorData(no) = 0;
  d = TF_NewOperation(g, "Const", "false");
  TF_SetAttrTensor(d, "value", no, st);
  TF_SetAttrType(d, "dtype", TF_BOOL);
  TF_DeleteTensor(no);
  TF_Operation *cond = finish(d, st);
  if (cond) {
    TF_Output data = out0(o->x);
    d = TF_NewOperation(g, "Assert", "assert");
    TF_AddInput(d, out0(cond));
    TF_AddInputList(d, &data, 1);
    TF_SetAttrInt(d, "summarize", 5);
    o->risky[5] = finish(d, st);
  }
}

/* A string scalar Const holding the template bytes. */
static TF_Operation *const_str(TF_Graph *g, const fz *f) {
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, sizeof(TF_TString));
  if (!t) return NULL;
  TF_StringInit(TF_TensorData(t));
  TF_StringCopy(TF_TensorData(t), (const char *)f->tmpl, f->tlen);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "s");
  TF_SetAttrTensor(d, "value", t, f->st);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_DeleteTensor(t);
  return finish(d, f->st);
}

/* Ops that make string tensors of their own shape: fill values, padding,
 * one-hot and scattered values come from a string scalar. */
static void build_more_ops(TF_Graph *g, ops *o, fz *f) {
  static const int32_t kCol[2] = {-1, 1}, kPerm[2] = {1, 0};
  static const int32_t kThree[1] = {3}, kTwoTwo[2] = {2, 2};
  static const int32_t kIdx[3] = {0, 2, 1}, kAt[2] = {0, 0};
  static const int32_t kBand[1] = {-1}, kPad[2] = {1, 1};
  TF_Status *st = f->st;
  const int64_t one = 1, two = 2, three = 3, at[2] = {2, 1}, p2[2] = {1, 2};
  TF_Operation *sc = const_str(g, f);
  TF_Operation *col = const_i32(g, "col", kCol, &two, 1, st);
  TF_Operation *perm = const_i32(g, "perm", kPerm, &two, 1, st);
  TF_Operation *n3 = const_i32(g, "n3", kThree, &one, 1, st);
  TF_Operation *d3 = const_i32(g, "d3", kThree, NULL, 0, st);
  TF_Operation *s22 = const_i32(g, "s22", kTwoTwo, &two, 1, st);
  TF_Operation *idx = const_i32(g, "idx", kIdx, &three, 1, st);
  TF_Operation *nd_at = const_i32(g, "nd_at", kAt, at, 2, st);
  TF_Operation *band = const_i32(g, "band", kBand, NULL, 0, st);
  TF_Operation *pad = const_i32(g, "pad11", kPad, p2, 2, st);
  TF_Operation *t2 = op2(g, "Reshape", "col2", o->flat, col, st);
  TF_Operation *in[4] = {o->flat, pad, sc};
  o->safe[12] = fin(desc(g, "PadV2", "padv2", in, 3), st);
  o->safe[13] = op2(g, "Transpose", "transpose", t2, perm, st);
  o->safe[14] = op2(g, "Fill", "fill", n3, sc, st);
  o->safe[15] = op2(g, "BroadcastTo", "bcast", sc, s22, st);
  o->safe[16] = op2(g, "ExpandDims", "expand", o->x, o->zero, st);
  o->safe[17] = op1(g, "Squeeze", "squeeze", o->safe[16], st);
  o->safe[18] = op1(g, "ZerosLike", "zeros", o->x, st);
  o->safe[19] = op1(g, "Snapshot", "snapshot", o->x, st);
  in[0] = o->safe[2];
  in[1] = o->x;
  in[2] = o->safe[1];
  o->safe[20] = fin(desc(g, "SelectV2", "select2", in, 3), st);
  in[0] = idx;
  in[1] = d3;
  in[2] = in[3] = sc;
  o->safe[21] = fin(desc(g, "OneHot", "one_hot", in, 4), st);
  in[0] = t2;
  in[1] = in[2] = band;
  o->safe[22] = fin(desc(g, "MatrixBandPart", "band_part", in, 3), st);
  TF_OperationDescription *d = desc(g, "Unpack", "unpack", &o->safe[8], 1);
  if (d) TF_SetAttrInt(d, "num", 2);
  o->safe[23] = fin(d, st);
  TF_Output pair[2] = {out0(sc), out0(sc)};
  TF_Operation *upd = NULL;
  if (sc) {
    d = TF_NewOperation(g, "Pack", "updates");
    TF_AddInputList(d, pair, 2);
    upd = finish(d, st);
  }
  in[0] = nd_at;
  in[1] = upd;
  in[2] = n3;
  o->safe[24] = fin(desc(g, "ScatterNd", "scatter", in, 3), st);
  if (o->x) {
    pair[0] = pair[1] = out0(o->x);
    d = TF_NewOperation(g, "IdentityN", "identity_n");
    TF_AddInputList(d, pair, 2);
    o->safe[25] = finish(d, st);
  }
  in[0] = t2;
  in[1] = nd_at;
  o->risky[6] = fin(desc(g, "GatherNd", "gather_nd", in, 2), st);
  /* ops of constants only: the optimizer folds them */
  o->safe[26] = op2(g, "Add", "const_cat", sc, sc, st);
  if (sc) {
    d = TF_NewOperation(g, "StringFormat", "const_fmt");
    TF_AddInputList(d, pair, 1);
    TF_SetAttrString(d, "template", "<{}>", 4);
    TF_SetAttrString(d, "placeholder", "{}", 2);
    o->safe[27] = finish(d, st);
  }
}

/* x into a ref variable (Assign) and a resource variable, read back. */
static void build_state_ops(TF_Graph *g, ops *o, TF_Status *st) {
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "var");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_SetAttrShape(d, "shape", NULL, -1);
  TF_Operation *var = finish(d, st), *in[2] = {var, o->x};
  d = desc(g, "Assign", "assign", in, 2);
  if (d) TF_SetAttrBool(d, "validate_shape", 0);
  o->state[0] = fin(d, st);
  o->state[1] = op1(g, "Identity", "var_read", var, st);
  d = TF_NewOperation(g, "VarHandleOp", "handle");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_SetAttrShape(d, "shape", NULL, -1);
  in[0] = finish(d, st);
  d = desc(g, "AssignVariableOp", "assign_var", in, 2);
  if (d) TF_SetAttrType(d, "dtype", TF_STRING);
  o->state[2] = fin(d, st);
  d = desc(g, "ReadVariableOp", "read_var", in, 1);
  if (d) TF_SetAttrType(d, "dtype", TF_STRING);
  o->state[3] = fin(d, st);
}

static void build_ops(TF_Graph *g, ops *o, fz *f) {
  static const int32_t kFlat[1] = {-1}, kTwo[1] = {2}, kPad[2] = {1, 2};
  static const int32_t kZero[1] = {0};
  TF_Status *st = f->st;
  const int64_t one = 1, pair[2] = {1, 2};
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_STRING);
  o->x = finish(d, st);
  if (!o->x) fail("a string Placeholder is refused");
  TF_Operation *shape = const_i32(g, "shape", kFlat, &one, 1, st);
  TF_Operation *two = const_i32(g, "two", kTwo, &one, 1, st);
  TF_Operation *pad = const_i32(g, "pad", kPad, pair, 2, st);
  TF_Operation *axis = const_i32(g, "axis", kZero, &one, 1, st);
  o->zero = const_i32(g, "zero", kZero, NULL, 0, st);
  o->safe[0] = op1(g, "Identity", "id", o->x, st);
  o->safe[1] = op2(g, "Add", "cat", o->x, o->x, st);
  o->safe[2] = op2(g, "Equal", "eq", o->x, o->x, st);
  o->safe[3] = op2(g, "NotEqual", "ne", o->x, o->safe[1], st);
  o->flat = op2(g, "Reshape", "flat", o->x, shape, st);
  o->safe[4] = op2(g, "ReverseV2", "rev", o->flat, axis, st);
  o->safe[5] = op2(g, "Tile", "tile", o->flat, two, st);
  o->safe[6] = op2(g, "Pad", "padded", o->flat, pad, st);
  build_list_ops(g, o, st);
  o->safe[10] = string_format(g, o->x, f);
  o->safe[11] = o->flat;
  build_risky_ops(g, o, st);
  build_more_ops(g, o, f);
  build_state_ops(g, o, st);
}

/* The string ops on `in`; `ref` (may be NULL) holds the strings `in`
 * stands for, to check Identity and Add against. */
static void run_ops(fz *f, TF_Tensor *in, const TF_Tensor *ref) {
  TF_Graph *g = TF_NewGraph();
  ops o;
  memset(&o, 0, sizeof o);
  build_ops(g, &o, f);
  TF_Session *s = new_session(g, f->st);
  TF_Tensor *out[NSAFE];
  if (s && run(s, o.x, in, o.safe, NSAFE, out, NULL, 1, f->st) == TF_OK) {
    if (ref && out[0]) same(ref, out[0], "Identity changed a string tensor");
    if (ref && out[1]) concatenated(ref, out[1]);
    for (int i = 0; i < NSAFE; i++)
      if (out[i]) TF_DeleteTensor(out[i]);
  }
  for (int i = 0; s && i < 7; i++) {
    TF_Operation *fetch = i != 5 ? o.risky[i] : NULL;
    TF_Operation *target = i == 5 ? o.risky[i] : NULL;
    if (!fetch && !target) continue;
    run(s, o.x, in, &fetch, 1, out, target, 1, f->st);
    if (out[0]) TF_DeleteTensor(out[0]);
  }
  for (int i = 0; s && i < 4; i++) { /* assign, read; assign, read */
    TF_Operation *fetch = i != 2 ? o.state[i] : NULL;
    if (!o.state[i] ||
        run(s, o.x, in, &fetch, 1, out, i == 2 ? o.state[i] : NULL, 0,
            f->st) != TF_OK)
      break;
    if (ref && out[0] && (i == 1 || i == 3))
      same(ref, out[0], "a variable gives back another string tensor");
    if (out[0]) TF_DeleteTensor(out[0]);
  }
  close_session(s, f->st);
  TF_DeleteGraph(g);
}

/* ---- eager --------------------------------------------------------------- */

static TFE_TensorHandle *eager1(TFE_Context *ctx, const char *type,
                                TFE_TensorHandle *a, TFE_TensorHandle *b,
                                TF_Tensor *attr, TF_Status *st) {
  TFE_Op *op = TFE_NewOp(ctx, type, st);
  TFE_TensorHandle *r = NULL;
  int n = 1;
  if (TF_GetCode(st) == TF_OK) {
    if (a) TFE_OpAddInput(op, a, st);
    if (b) TFE_OpAddInput(op, b, st);
    if (attr) {
      TFE_OpSetAttrTensor(op, "value", attr, st);
      TFE_OpSetAttrType(op, "dtype", TF_STRING);
    }
    if (TF_GetCode(st) == TF_OK) TFE_Execute(op, &r, &n, st);
  }
  TFE_DeleteOp(op);
  if (TF_GetCode(st) != TF_OK) r = NULL;
  TF_SetStatus(st, TF_OK, "");
  return r;
}

/* Resolves h, checks it against want (may be NULL) and frees it. */
static void resolve(TFE_TensorHandle *h, const TF_Tensor *want, int cat,
                    TF_Status *st) {
  if (!h) return;
  TF_Tensor *t = TFE_TensorHandleResolve(h, st);
  TF_SetStatus(st, TF_OK, "");
  if (t && want && cat) concatenated(want, t);
  if (t && want && !cat) same(want, t, "an eager op changed a string");
  if (t) TF_DeleteTensor(t);
  TFE_DeleteTensorHandle(h);
}

static void eager_ops(fz *f, TF_Tensor *t, const TF_Tensor *ref) {
  TF_Status *st = f->st;
  TFE_ContextOptions *o = TFE_NewContextOptions();
  TFE_ContextOptionsSetConfig(o, kConfig, sizeof kConfig, st);
  TFE_Context *ctx = TFE_NewContext(o, st);
  TFE_DeleteContextOptions(o);
  if (TF_GetCode(st) != TF_OK || !ctx) fail("no eager context");
  TFE_TensorHandle *h = TFE_NewTensorHandle(t, st);
  if (TF_GetCode(st) != TF_OK) h = NULL;
  TF_SetStatus(st, TF_OK, "");
  if (h) {
    resolve(eager1(ctx, "Add", h, h, NULL, st), ref, 1, st);
    resolve(eager1(ctx, "Identity", h, NULL, NULL, st), ref, 0, st);
    TFE_DeleteTensorHandle(h);
  }
  resolve(eager1(ctx, "Const", NULL, NULL, t, st), ref, 0, st);
  TFE_DeleteContext(ctx);
}

/* Everything a string tensor goes through.  Takes `t` (may be NULL). */
static void use_tensor(fz *f, TF_Tensor *t) {
  if (!t) return;
  if (TF_TensorType(t) == TF_STRING &&
      TF_TensorElementCount(t) <= MAX_ELEMS) {
    TF_Tensor *ref = as_const(f, t);
    const TF_Tensor *want = ref ? ref : is_legacy(t) ? NULL : t;
    run_ops(f, t, want);
    eager_ops(f, t, want);
    if (ref) TF_DeleteTensor(ref);
  }
  TF_DeleteTensor(t);
}

/* ---- paths 0, 1, 6: protos ----------------------------------------------- */

static void from_proto(fz *f, const void *p, size_t n) {
  TF_Buffer *b = TF_NewBufferFromString(p, n);
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float));
  if (!b || !t) abort();
  TF_TensorFromProto(b, t, f->st);
  TF_DeleteBuffer(b);
  if (TF_GetCode(f->st) != TF_OK) {
    (void)strlen(TF_Message(f->st));
    TF_SetStatus(f->st, TF_OK, "");
    TF_DeleteTensor(t);
    return;
  }
  use_tensor(f, t);
}

/* A DT_STRING TensorProto: flags bits 0-1 the rank, its dims from the
 * payload (0..5 each); bit 2 tensor_content (bit 3: the payload as it
 * is, else the pieces in the string-list encoding), else string_val. */
static void string_proto(fz *f, cur *c) {
  wbuf shape = {0}, dim = {0}, out = {0}, lens = {0};
  int rank = f->flags & 3;
  for (int i = 0; i < rank; i++) {
    dim.len = 0;
    w_tag(&dim, 1, 0);
    w_varint(&dim, take_u8(c) % 6);
    w_ld(&shape, 2, dim.d, dim.len);
  }
  w_tag(&out, 1, 0);
  w_varint(&out, TF_STRING);
  w_ld(&out, 2, shape.d, shape.len);
  if ((f->flags & 12) == 12) {
    w_ld(&out, 4, c->p, c->n);
  } else {
    const uint8_t *piece[MAX_PIECES];
    size_t len[MAX_PIECES];
    int n = split(c, piece, len);
    if (f->flags & 4) {
      wbuf content = {0};
      for (int i = 0; i < n; i++) w_varint(&lens, len[i]);
      w_bytes(&content, lens.d, lens.len);
      for (int i = 0; i < n; i++) w_bytes(&content, piece[i], len[i]);
      w_ld(&out, 4, content.d, content.len);
      free(content.d);
    } else {
      for (int i = 0; i < n; i++) w_ld(&out, 8, piece[i], len[i]);
    }
  }
  from_proto(f, out.d, out.len);
  free(shape.d);
  free(dim.d);
  free(out.d);
  free(lens.d);
}

/* GraphDef bytes: each of the first four string Consts. */
static void graph_consts(fz *f, const uint8_t *p, size_t n) {
  TF_Graph *g = TF_NewGraph();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_Buffer *b = TF_NewBufferFromString(p, n);
  TF_GraphImportGraphDef(g, b, o, f->st);
  int ok = TF_GetCode(f->st) == TF_OK, k = 0;
  TF_SetStatus(f->st, TF_OK, "");
  size_t pos = 0;
  TF_Operation *op;
  while (ok && k < 4 && (op = TF_GraphNextOperation(g, &pos)) != NULL) {
    TF_Tensor *v = NULL;
    if (strcmp(TF_OperationOpType(op), "Const") != 0 ||
        TF_OperationNumOutputs(op) != 1 ||
        TF_OperationOutputType(out0(op)) != TF_STRING)
      continue;
    TF_OperationGetAttrTensor(op, "value", &v, f->st);
    TF_SetStatus(f->st, TF_OK, "");
    k++;
    use_tensor(f, v);
  }
  TF_DeleteBuffer(b);
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteGraph(g);
}

/* ---- path 2: the legacy encoding ----------------------------------------- */

static void free_bytes(void *p, size_t n, void *arg) {
  (void)n;
  (void)arg;
  free(p);
}

/* TF_StringDecode over the bytes, each string encoded and decoded again. */
static void decode_all(fz *f, const uint8_t *p, size_t n) {
  const char *s = (const char *)p;
  while (n > 0) {
    const char *dst;
    size_t len, used = TF_StringDecode(s, n, &dst, &len, f->st);
    if (TF_GetCode(f->st) != TF_OK) break;
    if (used == 0 || used > n || dst < s || len > n ||
        dst + len != s + used)
      fail("TF_StringDecode returned a string outside its input");
    size_t need = TF_StringEncodedSize(len);
    char *enc = malloc(need ? need : 1);
    const char *back;
    size_t blen;
    if (!enc) abort();
    if (TF_StringEncode(dst, len, enc, need, f->st) != need ||
        TF_StringDecode(enc, need, &back, &blen, f->st) != need ||
        blen != len || (len && memcmp(back, dst, len) != 0))
      fail("TF_StringEncode / TF_StringDecode do not round-trip");
    free(enc);
    s += used;
    n -= used;
  }
  TF_SetStatus(f->st, TF_OK, "");
}

/* flags bits 0-2: elements - 1; bit 3: shape [2, n/2]; bit 7: a well
 * formed encoding of the pieces, else the payload as it is. */
static void legacy(fz *f, cur *c) {
  int64_t n = 1 + (f->flags & 7), dims[2] = {n, 1};
  int nd = 1;
  wbuf b = {0};
  decode_all(f, c->p, c->n);
  if ((f->flags & 8) && n % 2 == 0) {
    dims[0] = 2;
    dims[1] = n / 2;
    nd = 2;
  }
  if (f->flags & 0x80) {
    const uint8_t *piece[MAX_PIECES];
    size_t len[MAX_PIECES];
    int k = split(c, piece, len);
    uint64_t off = 0;
    for (int64_t i = 0; i < n; i++) {
      size_t l = k ? len[i % k] : 0;
      w_bytes(&b, &off, sizeof off);
      off += TF_StringEncodedSize(l);
    }
    for (int64_t i = 0; i < n; i++) {
      size_t l = k ? len[i % k] : 0;
      w_varint(&b, l);
      if (l) w_bytes(&b, piece[i % k], l);
    }
  } else {
    w_bytes(&b, c->p, c->n);
  }
  /* exactly one TF_TString per element would read as records */
  if (b.len == (size_t)n * sizeof(TF_TString)) w_bytes(&b, "", 1);
  if (!b.d) {
    w_bytes(&b, "", 1); /* an empty encoding on memory of its own */
    b.len = 0;
  }
  TF_Tensor *t = TF_NewTensor(TF_STRING, dims, nd, b.d, b.len, free_bytes,
                              NULL);
  if (!t) return;
  if (!is_legacy(t)) fail("a legacy-sized TF_STRING tensor reads as records");
  use_tensor(f, t);
}

/* ---- path 3: the TF_TString helpers -------------------------------------- */

#define NSTR 4

typedef struct owner {
  TStringOwnerCApi base; /* first: the callbacks get &base */
  int refs;
} owner;

static void owner_ref(TStringOwnerCApi *o) { ((owner *)o)->refs++; }
static bool owner_unref(TStringOwnerCApi *o) {
  if (--((owner *)o)->refs < 0) fail("a view's owner lost too many refs");
  return ((owner *)o)->refs == 0;
}

/* A plain copy of what each string should hold. */
typedef struct shadow {
  char *p[NSTR];
  size_t n[NSTR];
} shadow;

static void sh_set(shadow *m, int i, const void *p, size_t n) {
  char *d = malloc(n ? n : 1);
  if (!d) abort();
  if (n) memcpy(d, p, n);
  free(m->p[i]);
  m->p[i] = d;
  m->n[i] = n;
}

static void sh_resize(shadow *m, int i, size_t n, char c) {
  char *d = realloc(m->p[i], n ? n : 1);
  if (!d) abort();
  if (n > m->n[i]) memset(d + m->n[i], c, n - m->n[i]);
  m->p[i] = d;
  m->n[i] = n;
}

static void check_tstrings(const TF_TString *s, const shadow *m) {
  for (int i = 0; i < NSTR; i++) {
    TF_TString_Type type = TF_TString_GetType(&s[i]);
    size_t n = TF_TString_GetSize(&s[i]);
    const char *p = TF_TString_GetDataPointer(&s[i]);
    if (n != m->n[i] || n != TF_StringGetSize(&s[i]) ||
        p != TF_StringGetDataPointer(&s[i]) ||
        type != TF_StringGetType(&s[i]) ||
        TF_TString_GetCapacity(&s[i]) != TF_StringGetCapacity(&s[i]))
      fail("a TF_TString's size, data or type disagree");
    if (n && memcmp(p, m->p[i], n) != 0)
      fail("a TF_TString holds other bytes than were put in");
    if ((type == TF_TSTR_SMALL || type == TF_TSTR_LARGE) &&
        (p[n] != 0 || TF_TString_GetCapacity(&s[i]) < n))
      fail("an owned TF_TString lacks its NUL or its capacity");
  }
}

/* Drops what s[i] holds and leaves it empty (the shadow too). */
static void tstr_clear(TF_TString *s, shadow *m, int i) {
  TF_TString_Dealloc(&s[i]);
  TF_StringInit(&s[i]);
  sh_set(m, i, "", 0);
}

/* One command: an op byte (op % 14, target string op / 14 % 4), then its
 * arguments. */
static void tstr_step(cur *c, TF_TString *s, shadow *m, owner *own) {
  uint8_t b = take_u8(c);
  int i = (b / 14) % NSTR, j = take_u8(c) % NSTR;
  size_t n = 0, size;
  const uint8_t *p = take(c, b % 14 < 4 ? take_u8(c) : 0, &n);
  char *w;
  TF_TString_Type type = TF_TString_GetType(&s[j]);
  switch (b % 14) {
    case 0: TF_TString_Copy(&s[i], (const char *)p, n); sh_set(m, i, p, n);
      break;
    case 1: TF_StringAssignView(&s[i], (const char *)p, n); sh_set(m, i, p, n);
      break;
    case 2:
      TF_TString_AssignViewWithOwner(&s[i], (const char *)p, n, &own->base);
      sh_set(m, i, p, n);
      break;
    case 3:
      if (m->n[i] + n > MAX_TSTR) break;
      TF_TString_AppendN(&s[i], (const char *)p, n);
      sh_resize(m, i, m->n[i] + n, 0);
      if (n) memcpy(m->p[i] + m->n[i] - n, p, n);
      break;
    case 4: /* Append of another string (appending to itself would read
             * memory the append frees, as in TensorFlow) */
      if (i == j || m->n[i] + m->n[j] > MAX_TSTR) break;
      TF_TString_Append(&s[i], &s[j]);
      sh_resize(m, i, m->n[i] + m->n[j], 0);
      if (m->n[j]) memcpy(m->p[i] + m->n[i] - m->n[j], m->p[j], m->n[j]);
      break;
    case 5:
      size = ((size_t)j << 8 | take_u8(c)) * (1 + (b & 1) * 63) % MAX_TSTR;
      if (TF_TString_Resize(&s[i], size, (char)b))
        sh_resize(m, i, size, (char)b);
      break;
    case 6:
      size = ((size_t)j << 8 | take_u8(c)) % MAX_TSTR;
      w = TF_TString_ResizeUninitialized(&s[i], size);
      if (!w) break;
      if (size > m->n[i]) memset(w + m->n[i], 'u', size - m->n[i]);
      sh_resize(m, i, size, 'u');
      break;
    case 7: TF_TString_Reserve(&s[i], (size_t)take_u8(c) * (1 + j * 40));
      break;
    case 8: TF_TString_ReserveAmortized(&s[i], (size_t)take_u8(c) * (1 + j));
      break;
    case 9: TF_TString_Assign(&s[i], &s[j]); sh_set(m, i, m->p[j], m->n[j]);
      break;
    case 10:
      if (i == j) break;
      TF_TString_Move(&s[i], &s[j]);
      sh_set(m, i, m->p[j], m->n[j]);
      if (type == TF_TSTR_LARGE || type == TF_TSTR_VIEW) sh_set(m, j, "", 0);
      break;
    case 11: /* frees a large string, drops a view's owner */
      type = TF_TString_GetType(&s[i]);
      if (type == TF_TSTR_LARGE ||
          (type == TF_TSTR_VIEW && s[i].u.view.owner_ref != NULL))
        sh_set(m, i, "", 0);
      if (b & 1) TF_StringDealloc(&s[i]); else TF_TString_Dealloc(&s[i]);
      break;
    case 12:
      w = TF_TString_GetMutableDataPointer(&s[i]);
      if (w && m->n[i]) {
        w[j % m->n[i]] = (char)b;
        m->p[i][j % m->n[i]] = (char)b;
      }
      break;
    default: /* the exported copy */
      TF_StringCopy(&s[i], m->p[j], m->n[j] / 2);
      sh_set(m, i, m->p[j], m->n[j] / 2);
      break;
  }
  check_tstrings(s, m);
}

/* Commands on four strings, then the strings (views and all) as the
 * elements of a tensor. */
static void tstrings(fz *f, cur *c) {
  TF_TString s[NSTR];
  shadow m;
  owner own = {{owner_ref, owner_unref, NULL}, 0};
  memset(&m, 0, sizeof m);
  for (int i = 0; i < NSTR; i++) {
    TF_StringInit(&s[i]);
    sh_set(&m, i, "", 0);
  }
  for (int k = 0; k < 64 && c->n > 0; k++) tstr_step(c, s, &m, &own);
  int64_t dims[1] = {NSTR};
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, 1, sizeof s);
  if (t) {
    TF_TString *e = TF_TensorData(t);
    for (int i = 0; i < NSTR; i++) {
      TF_StringInit(&e[i]);
      TF_TString_Assign(&e[i], &s[i]);
    }
    use_tensor(f, t);
  }
  for (int i = 0; i < NSTR; i++) {
    tstr_clear(s, &m, i);
    free(m.p[i]);
  }
  if (own.refs != 0) fail("a view's owner keeps references");
}

/* ---- paths 4 and 5: .npy bytes, split strings ---------------------------- */

/* The .npy header for flags: bits 0-1 the kind ('|S', '|a', '<U', 'S'),
 * bits 2-5 the width (0..14, 15 meaning 40), bits 6-7 the rank. */
static void npy_header(wbuf *b, uint8_t flags, size_t payload,
                       int fortran) {
  static const char *const kKinds[] = {"|S", "|a", "<U", "S"};
  char dict[256];
  unsigned width = flags >> 2 & 15;
  int rank = flags >> 6;
  if (width == 15) width = 40;
  size_t n = width ? payload / width : 3, a = n > 1 ? 2 : 1;
  char shape[96];
  if (rank == 0) snprintf(shape, sizeof shape, "()");
  else if (rank == 1) snprintf(shape, sizeof shape, "(%zu,)", n);
  else if (rank == 2) snprintf(shape, sizeof shape, "(%zu, %zu)", a, n / a);
  else snprintf(shape, sizeof shape, "(1, %zu, %zu)", a, n / a + 1);
  int len = snprintf(dict, sizeof dict,
                     "{'descr': '%s%u', 'fortran_order': %s, 'shape': %s, }",
                     kKinds[flags & 3], width, fortran ? "True" : "False",
                     shape);
  size_t total = 10 + (size_t)len + 1, pad = (64 - total % 64) % 64;
  uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  pre[8] = (uint8_t)((len + 1 + pad) & 0xff);
  pre[9] = (uint8_t)((len + 1 + pad) >> 8);
  w_bytes(b, pre, sizeof pre);
  w_bytes(b, dict, (size_t)len);
  for (size_t i = 0; i < pad; i++) w_bytes(b, " ", 1);
  w_bytes(b, "\n", 1);
}

/* A tfsess string tensor as a TF_Tensor (copies). */
static TF_Tensor *to_tf(const tfs_tensor *t) {
  int64_t n = tfs_tensor_num_elements(t);
  if (n > MAX_ELEMS) return NULL;
  TF_Tensor *r = TF_AllocateTensor(TF_STRING, tfs_tensor_dims(t),
                                   tfs_tensor_ndims(t),
                                   (size_t)n * sizeof(TF_TString));
  if (!r) return NULL;
  TF_TString *e = TF_TensorData(r);
  for (int64_t i = 0; i < n; i++) {
    size_t len;
    const char *p = tfs_tensor_string_at(t, i, &len);
    if (!p) fail("a string tensor's element is missing");
    TF_StringInit(&e[i]);
    TF_StringCopy(&e[i], p, len);
  }
  return r;
}

static void npy(fz *f, cur *c) {
  wbuf b = {0};
  tfs_status *st = tfs_status_new();
  npy_header(&b, f->flags, c->n, c->n & 1);
  w_bytes(&b, c->p, c->n);
  tfs_tensor *t = tfs_npy_read_buffer(b.d, b.len, NULL, st);
  free(b.d);
  if (t && tfs_tensor_dtype(t) == TFS_STRING) {
    tfs_buffer *out = tfs_buffer_new();
    free(tfs_tensor_to_string(t, (int)(f->flags & 7)));
    if (!out) abort();
    tfs_npy_write_buffer(t, out, st);
    if (!tfs_status_ok(st)) fail("a string tensor cannot be written as .npy");
    tfs_tensor *back = tfs_npy_read_buffer(out->data, out->length, NULL, st);
    if (!back || tfs_tensor_num_elements(back) != tfs_tensor_num_elements(t))
      fail("a string .npy written by tfsess does not read back");
    for (int64_t i = 0; i < tfs_tensor_num_elements(t); i++) {
      size_t n1, n2;
      const char *p1 = tfs_tensor_string_at(t, i, &n1);
      const char *p2 = tfs_tensor_string_at(back, i, &n2);
      if (n1 != n2 || (n1 && memcmp(p1, p2, n1) != 0))
        fail("a string .npy round trip changed a string");
    }
    tfs_tensor_free(back);
    tfs_buffer_free(out);
    use_tensor(f, to_tf(t));
  }
  tfs_tensor_free(t);
  tfs_status_free(st);
}

/* Pieces of the payload as a tensor: flags bits 0-1 the rank (0: the
 * first piece; 2: [2, n/2]; 3: [n, 1]). */
static void pieces(fz *f, cur *c) {
  const uint8_t *piece[MAX_PIECES];
  size_t len[MAX_PIECES];
  int n = split(c, piece, len), rank = f->flags & 3;
  int64_t dims[2] = {n, 1};
  if (rank == 2) {
    dims[0] = 2;
    dims[1] = n / 2;
  }
  int64_t count = rank == 0 ? 1 : dims[0] * dims[1];
  use_tensor(f, new_strings(dims, rank == 3 ? 2 : rank, piece, len, count));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cur c = {data, size};
  fz f;
  uint8_t path = take_u8(&c);
  f.flags = take_u8(&c);
  f.tmpl = take(&c, take_u8(&c) % 48, &f.tlen);
  f.st = TF_NewStatus();
  if (!f.st) return 0;
  switch (path % 7) {
    case 0: from_proto(&f, c.p, c.n); break;
    case 1: string_proto(&f, &c); break;
    case 2: legacy(&f, &c); break;
    case 3: tstrings(&f, &c); break;
    case 4: npy(&f, &c); break;
    case 5: pieces(&f, &c); break;
    default: graph_consts(&f, c.p, c.n); break;
  }
  TF_DeleteStatus(f.st);
  return 0;
}

/*
 * tests/tools/test_cli_saved_model.c - `tfsess run` and `tfsess inspect`
 * on the SavedModel directories TensorFlow exported
 * (tests/data/saved_models): each model's recorded calls through `run`
 * with --feed / --fetch by signature key against TensorFlow's answers,
 * `inspect` against what saved_model_cli show printed for the same
 * directory (scripts/fixtures/gen_saved_model_cli.py), session flags,
 * --batch, --runs, and the errors of a missing directory, wrong tags, an unknown
 * signature or key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_util.h"
#include "conformance.h"
#include "iotest.h"
#include "testutil.h"

#define MAXT 8
#define SM "tests/data/saved_models"

static const char *const kModels[] = {
    "keras_mlp",   "keras_cnn",  "keras_lstm",   "module",
    "tf1_simple",  "tf1_builder", "text_vocab",  "tf_keras_gru", NULL};

/* One recorded call of calls.txt. */
typedef struct call {
  char sig[128];
  int nin, nout;
  char in_key[MAXT][64], out_key[MAXT][64];
  char in_file[MAXT][128], out_file[MAXT][128];
} call;

typedef struct calls {
  char tags[256]; /* "serve,extra" */
  int n;
  call c[16];
} calls;

static void read_calls(const char *name, calls *cs) {
  char path[512], line[512];
  snprintf(path, sizeof path, SM "/%s/calls.txt", name);
  FILE *f = fopen(it_src(path), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  memset(cs, 0, sizeof *cs);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char a[128] = "", b[128] = "";
    if (strncmp(line, "tags ", 5) == 0) {
      for (char *t = strtok(line + 5, " "); t; t = strtok(NULL, " ")) {
        size_t used = strlen(cs->tags);
        snprintf(cs->tags + used, sizeof cs->tags - used, "%s%s",
                 used ? "," : "", t);
      }
    } else if (sscanf(line, "call %127s", a) == 1 && cs->n < 16) {
      snprintf(cs->c[cs->n++].sig, sizeof cs->c[0].sig, "%s", a);
    } else if (sscanf(line, "in %127s %127s", a, b) == 2 && cs->n) {
      call *c = &cs->c[cs->n - 1];
      snprintf(c->in_key[c->nin], 64, "%.63s", a);
      snprintf(c->in_file[c->nin++], 128, "%s", b);
    } else if (sscanf(line, "out %127s %127s", a, b) == 2 && cs->n) {
      call *c = &cs->c[cs->n - 1];
      snprintf(c->out_key[c->nout], 64, "%.63s", a);
      snprintf(c->out_file[c->nout++], 128, "%s", b);
    }
  }
  fclose(f);
  CU_ASSERT_TRUE_FATAL(cs->n > 0 && cs->tags[0]);
}

/* Compares OUT/<key>.npy with the recorded output of each of c's keys. */
static void check_outputs(const char *name, const call *c, const char *out) {
  for (int k = 0; k < c->nout; k++) {
    char path[4200], rel[512], err[512];
    snprintf(path, sizeof path, "%s/%s.npy", out, c->out_key[k]);
    tfs_tensor *got = load(path);
    snprintf(rel, sizeof rel, SM "/%s/%s", name, c->out_file[k]);
    tfs_tensor *want = load(it_src(rel));
    int rc = got && want ? tc_compare(got, want, 1e-5, 1e-5, err, sizeof err)
                         : -1;
    if (rc)
      fprintf(stderr, "\n  %s %s output %s: %s\n", name, c->sig, c->out_key[k],
              got && want ? err : "missing");
    CU_ASSERT_EQUAL(rc, 0);
    tfs_tensor_free(got);
    tfs_tensor_free(want);
  }
}

/* `tfsess run` for call c of `name` in a process of its own; extra
 * arguments appended.  Returns the exit status (0 checked). */
static int run_call(const char *name, const calls *cs, const call *c,
                    const char *out_dir, const char *extra, int fetch) {
  char args[6000], out[4096];
  snprintf(out, sizeof out, "%s", out_dir); /* it_tmp's buffers rotate */
  int n = snprintf(args, sizeof args,
                   "run " SM "/%s/model --tags %s --signature %s --force "
                   "--out '%s'",
                   name, cs->tags, c->sig, out);
  for (int k = 0; k < c->nin; k++)
    n += snprintf(args + n, sizeof args - (size_t)n,
                  " --feed %s=" SM "/%s/%s", c->in_key[k], name,
                  c->in_file[k]);
  for (int k = 0; fetch && k < c->nout; k++)
    n += snprintf(args + n, sizeof args - (size_t)n, " --fetch %s",
                  c->out_key[k]);
  snprintf(args + n, sizeof args - (size_t)n, " %s", extra);
  result r = tfsess("%s", args);
  if (r.status != 0)
    fprintf(stderr, "\n  tfsess %s\n  exit %d: %s\n", args, r.status, r.err);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  /* one summary line per fetch, naming its key and file */
  int quiet = strstr(extra, "--quiet") != NULL;
  CU_ASSERT_EQUAL(count_lines(r.out), quiet ? 0 : c->nout);
  for (int k = 0; !quiet && k < c->nout; k++) {
    char want[4400];
    snprintf(want, sizeof want, "%s: ", c->out_key[k]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
    snprintf(want, sizeof want, " -> %s/%s.npy\n", out, c->out_key[k]);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, want));
  }
  int status = r.status;
  result_free(&r);
  return status;
}

/* ---- run ----------------------------------------------------------------- */

/* Every recorded call, each in a fresh process.  A call that follows one
 * changing the model's state cannot be replayed so: in `module`,
 * "accumulate" adds to the variable "predict" reads, so only its first
 * call of each signature (predict, then the first accumulate) is run. */
static void test_run_recorded_calls(void) {
  for (int m = 0; kModels[m]; m++) {
    calls cs;
    read_calls(kModels[m], &cs);
    int stateful = strcmp(kModels[m], "module") == 0;
    for (int i = 0; i < cs.n; i++) {
      int seen = 0;
      for (int j = 0; j < i; j++) seen |= !strcmp(cs.c[j].sig, cs.c[i].sig);
      if (stateful && seen) continue;
      char name[64], out[4096];
      snprintf(name, sizeof name, "%s_%d", kModels[m], i);
      snprintf(out, sizeof out, "%s", it_tmp(name));
      if (run_call(kModels[m], &cs, &cs.c[i], out, "", 1) == 0)
        check_outputs(kModels[m], &cs.c[i], out);
    }
  }
}

/* Without --fetch every output of the signature, in key order; session
 * flags apply to the SavedModel's session; --batch cuts the feeds. */
static void test_run_defaults_and_flags(void) {
  calls cs;
  read_calls("keras_mlp", &cs);
  const call *c = &cs.c[0];
  char out[4096], cfg_path[4096], b2[4096];
  snprintf(out, sizeof out, "%s", it_tmp("all"));
  snprintf(cfg_path, sizeof cfg_path, "%s", it_tmp("cfg.pb"));
  snprintf(b2, sizeof b2, "%s", it_tmp("b2"));
  result r = tfsess("run " SM "/keras_mlp/model --feed extra=" SM
                    "/keras_mlp/%s --feed features=" SM
                    "/keras_mlp/%s --out '%s' --intra 3 --inter 2 "
                    "--save-config '%s'",
                    c->in_file[0], c->in_file[1], out, cfg_path);
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  CU_ASSERT_EQUAL(count_lines(r.out), 2);
  char *o0 = strstr(r.out, "output_0: float [");
  char *o1 = strstr(r.out, "output_1:");
  CU_ASSERT_TRUE(o0 == r.out && o1 > o0);
  result_free(&r);
  check_outputs("keras_mlp", c, out);
  size_t n;
  uint8_t *cfg = it_read_file(cfg_path, &n);
  /* intra_op_parallelism_threads: 3, inter_op_parallelism_threads: 2 */
  CU_ASSERT_EQUAL_FATAL(n, 4);
  CU_ASSERT_EQUAL(memcmp(cfg, "\x10\x03\x28\x02", 4), 0);
  free(cfg);
  /* two rows at a time, the fetches appended; --quiet prints nothing */
  if (run_call("keras_mlp", &cs, c, b2, "--batch 2 --quiet", 1) == 0)
    check_outputs("keras_mlp", c, b2);
}

/* --runs N keeps the loaded model between runs: accumulating the first
 * recorded delta twice gives TensorFlow's first total plus that delta. */
static void test_run_state_carries_over(void) {
  char out[4096], path[4200];
  snprintf(out, sizeof out, "%s", it_tmp("acc"));
  result r = tfsess("run " SM "/module/model --signature accumulate --feed "
                    "delta=" SM "/module/1_in_delta.npy --runs 2 --out '%s' "
                    "--quiet",
                    out);
  CU_ASSERT_EQUAL_FATAL(r.status, 0);
  result_free(&r);
  snprintf(path, sizeof path, "%s/total.npy", out);
  tfs_tensor *got = load(path);
  tfs_tensor *want = load(it_src(SM "/module/1_out_total.npy"));
  tfs_tensor *delta = load(it_src(SM "/module/1_in_delta.npy"));
  CU_ASSERT_EQUAL_FATAL(tfs_tensor_num_elements(want),
                        tfs_tensor_num_elements(delta));
  for (int64_t i = 0; i < tfs_tensor_num_elements(want); i++)
    ((float *)tfs_tensor_data(want))[i] +=
        ((const float *)tfs_tensor_data(delta))[i];
  char err[512];
  int rc = tc_compare(got, want, 1e-5, 1e-5, err, sizeof err);
  if (rc) fprintf(stderr, "\n  accumulate twice: %s\n", err);
  CU_ASSERT_EQUAL(rc, 0);
  tfs_tensor_free(got);
  tfs_tensor_free(want);
  tfs_tensor_free(delta);
}

static void test_run_errors(void) {
  const char *mlp = SM "/keras_mlp/model";
  const char *feeds = "--feed extra=" SM "/keras_mlp/0_in_extra.npy --feed "
                      "features=" SM "/keras_mlp/0_in_features.npy";
  result r = tfsess("run no/such/dir --tags serve");
  assert_fails(&r, 1,
               "tfsess run: Could not find SavedModel .pb or .pbtxt at "
               "supplied export directory path: no/such/dir. Check that "
               "the directory exists");
  r = tfsess("run " SM "/keras_mlp");
  assert_fails(&r, 1, "at supplied export directory path: " SM "/keras_mlp.");
  r = tfsess("run %s --tags serve,gpu %s", mlp, feeds);
  assert_fails(&r, 1,
               "tfsess run: Could not find meta graph def matching "
               "supplied tags: { serve gpu }.");
  r = tfsess("run %s --signature nope %s", mlp, feeds);
  assert_fails(&r, 1,
               "tfsess run: Could not find signature \"nope\". Please "
               "choose from: __saved_model_init_op, serve, "
               "serving_default\n");
  r = tfsess("run %s %s --feed nope=" SM "/keras_mlp/0_in_extra.npy", mlp,
             feeds);
  assert_fails(&r, 1,
               "tfsess run: Signature \"serving_default\" has no input "
               "named \"nope\"; its inputs: extra, features\n");
  r = tfsess("run %s %s --fetch output_0 --fetch nope", mlp, feeds);
  assert_fails(&r, 1,
               "Signature \"serving_default\" has no output named "
               "\"nope\"; its outputs: output_0, output_1\n");
  r = tfsess("run %s --feed extra=" SM "/keras_mlp/0_in_extra.npy", mlp);
  assert_fails(&r, 1,
               "Signature \"serving_default\" input \"features\" is "
               "missing and has no default");
  r = tfsess("run %s --feed extra", mlp);
  assert_fails(&r, 2, "--feed 'extra': expected KEY=FILE.npy");
  r = tfsess("run %s %s --fetch output_0 --fetch output_0", mlp, feeds);
  assert_fails(&r, 2, "fetch 'output_0' is given twice");
  r = tfsess("run %s %s --target NoOp", mlp, feeds);
  assert_fails(&r, 2, "a SavedModel directory runs a signature");
  r = tfsess("run %s --tags ,", mlp);
  assert_fails(&r, 2, "--tags ',': expected TAG[,TAG...]");
}

/* ---- inspect ------------------------------------------------------------- */

static char *read_text(const char *rel) {
  size_t n;
  char *s = (char *)it_read_file(it_src(rel), &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  s = realloc(s, n + 1);
  s[n] = 0;
  return s;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The items of a Python set's repr "{'a', 'b'}", sorted and re-joined. */
static void sorted_set(const char *s, char *buf, size_t cap) {
  char tmp[8192];
  snprintf(tmp, sizeof tmp, "%s", s);
  char *items[512];
  int n = 0;
  char *body = tmp[0] == '{' ? tmp + 1 : tmp;
  body[strcspn(body, "}")] = 0;
  for (char *t = strtok(body, ", "); t && n < 512; t = strtok(NULL, ", "))
    items[n++] = t;
  qsort(items, (size_t)n, sizeof *items, cmp_str);
  size_t used = 0;
  buf[0] = 0;
  for (int i = 0; i < n && used < cap; i++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "," : "",
                             items[i]);
}

/* Compares line by line; "contains the following ops:" lines as sets.
 * Returns the number of differing lines (printed). */
static int compare_show(const char *name, const char *got, const char *want) {
  static const char kOps[] = "contains the following ops: ";
  int bad = 0, line = 1;
  while (*got || *want) {
    size_t lg = strcspn(got, "\n"), lw = strcspn(want, "\n");
    char g[8192], w[8192];
    snprintf(g, sizeof g, "%.*s", (int)lg, got);
    snprintf(w, sizeof w, "%.*s", (int)lw, want);
    char *og = strstr(g, kOps), *ow = strstr(w, kOps);
    int same;
    if (og && ow && og - g == ow - w && !strncmp(g, w, (size_t)(og - g))) {
      char sg[8192], sw[8192];
      sorted_set(og + sizeof kOps - 1, sg, sizeof sg);
      sorted_set(ow + sizeof kOps - 1, sw, sizeof sw);
      same = strcmp(sg, sw) == 0;
    } else {
      same = strcmp(g, w) == 0 && (got[lg] == '\n') == (want[lw] == '\n');
    }
    if (!same && bad++ < 3)
      fprintf(stderr, "\n  %s line %d:\n    got  %s\n    want %s\n", name,
              line, g, w);
    got += lg + (got[lg] == '\n');
    want += lw + (want[lw] == '\n');
    line++;
  }
  return bad;
}

/* `inspect DIR` is `saved_model_cli show --dir DIR --all`, the "Concrete
 * Functions" of the TF2 exports included. */
static void test_inspect_show_all(void) {
  for (int m = 0; kModels[m]; m++) {
    char rel[256];
    snprintf(rel, sizeof rel, SM "/%s/show_all.txt", kModels[m]);
    char *want = read_text(rel);
    result r = tfsess("inspect " SM "/%s/model", kModels[m]);
    CU_ASSERT_EQUAL(r.status, 0);
    CU_ASSERT_STRING_EQUAL(r.err, "");
    CU_ASSERT_EQUAL(compare_show(kModels[m], r.out, want), 0);
    result_free(&r);
    free(want);
  }
}

/* ---- object graphs written here ----------------------------------------- */

typedef struct pbuf {
  uint8_t b[16384];
  size_t n;
} pbuf;

static pbuf *pb_new(void) {
  pbuf *p = calloc(1, sizeof *p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  return p;
}

static void pb_varint(pbuf *p, uint64_t v) {
  do {
    CU_ASSERT_FATAL(p->n < sizeof p->b);
    p->b[p->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
}

static void pb_bytes(pbuf *p, int field, const void *d, size_t n) {
  pb_varint(p, (uint64_t)field << 3 | 2);
  pb_varint(p, n);
  CU_ASSERT_FATAL(p->n + n <= sizeof p->b);
  if (n) memcpy(p->b + p->n, d, n);
  p->n += n;
}

static void pb_str(pbuf *p, int field, const char *s) {
  pb_bytes(p, field, s, strlen(s));
}

static void pb_int(pbuf *p, int field, uint64_t v) {
  pb_varint(p, (uint64_t)field << 3);
  pb_varint(p, v);
}

/* Appends `m` as message field `field` of `p` and frees it. */
static void pb_msg(pbuf *p, int field, pbuf *m) {
  pb_bytes(p, field, m->b, m->n);
  free(m);
}

/* A MetaGraphDef whose library holds one function, `fn`, and whose
 * object graph (field 7) is `og` (freed). */
static pbuf *meta_graph(const char *fn, pbuf *og) {
  pbuf *sig = pb_new(), *fdef = pb_new(), *lib = pb_new(), *gd = pb_new();
  pbuf *mg = pb_new();
  pb_str(sig, 1, fn);
  pb_msg(fdef, 1, sig);
  pb_msg(lib, 1, fdef);
  pb_msg(gd, 2, lib);
  pb_msg(mg, 2, gd);
  if (og) pb_msg(mg, 7, og);
  return mg;
}

/* Writes a SavedModel of MetaGraph `mg` (freed) and returns what
 * `inspect` prints from "\nConcrete Functions:" on (malloc'd). */
static char *concrete_functions(const char *name, pbuf *mg) {
  pbuf *sm = pb_new();
  pb_msg(sm, 2, mg);
  char dir[4096], path[4200];
  snprintf(dir, sizeof dir, "%s", it_tmp(name));
  CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
  snprintf(path, sizeof path, "%s/saved_model.pb", dir);
  FILE *f = fopen(path, "wb");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL(fwrite(sm->b, 1, sm->n, f), sm->n);
  fclose(f);
  free(sm);
  result r = tfsess("inspect %s", dir);
  CU_ASSERT_EQUAL(r.status, 0);
  CU_ASSERT_STRING_EQUAL(r.err, "");
  const char *c = strstr(r.out, "\nConcrete Functions:");
  char *got = strdup(c ? c : "");
  result_free(&r);
  return got;
}

/* StructuredValue helpers: each returns a new StructuredValue. */
static pbuf *sv_empty(int field) {
  pbuf *v = pb_new();
  pb_bytes(v, field, "", 0);
  return v;
}

static pbuf *sv_int(int field, uint64_t x) {
  pbuf *v = pb_new();
  pb_int(v, field, x);
  return v;
}

static pbuf *sv_str(const char *s) {
  pbuf *v = pb_new();
  pb_str(v, 13, s);
  return v;
}

/* A list (51) or tuple (52) of n values (freed). */
static pbuf *sv_seq(int field, int n, pbuf **items) {
  pbuf *l = pb_new(), *v = pb_new();
  for (int i = 0; i < n; i++) pb_msg(l, 1, items[i]);
  pb_msg(v, field, l);
  return v;
}

/* An object graph: root node 0 with child `child` -> node 1, a function
 * with concrete function "cf" of input signature `sig` (freed). */
static pbuf *object_graph(const char *child, pbuf *sig) {
  pbuf *og = pb_new(), *root = pb_new(), *ref = pb_new(), *fn = pb_new();
  pbuf *node = pb_new(), *entry = pb_new(), *cf = pb_new();
  pb_int(ref, 1, 1);
  pb_str(ref, 2, child);
  pb_msg(root, 1, ref);
  pb_bytes(root, 4, "", 0); /* user_object */
  pb_msg(og, 1, root);
  pb_str(fn, 1, "cf");
  pb_msg(node, 6, fn);
  pb_msg(og, 1, node);
  pb_msg(cf, 3, sig);
  pb_msg(cf, 4, sv_empty(1)); /* output None */
  pb_str(entry, 1, "cf");
  pb_msg(entry, 2, cf);
  pb_msg(og, 2, entry);
  return og;
}

/* The values saved_model_cli prints for each kind of argument, written
 * as Python's str() and repr() write them. */
static void test_inspect_concrete_function_values(void) {
  pbuf *spec = pb_new(), *shape = pb_new(), *dim = pb_new(), *tsv = pb_new();
  pb_int(dim, 1, (uint64_t)-1);
  pb_msg(shape, 2, dim);
  dim = pb_new();
  pb_int(dim, 1, 2);
  pb_msg(shape, 2, dim);
  pb_str(spec, 1, "x");
  pb_msg(spec, 2, shape);
  pb_int(spec, 3, 1);
  pb_msg(tsv, 33, spec);
  pbuf *half = pb_new();
  pb_varint(half, 11 << 3 | 1);
  static const uint8_t k05[8] = {0, 0, 0, 0, 0, 0, 0xe0, 0x3f}; /* 0.5 */
  memcpy(half->b + half->n, k05, 8);
  half->n += 8;
  pbuf *list[] = {sv_str("a"), sv_int(12, 6) /* zigzag 3 */, half};
  pbuf *dict = pb_new(), *fields = pb_new(), *dv = pb_new();
  pb_str(fields, 1, "k");
  pb_msg(fields, 2, sv_int(32, 3));
  pb_msg(dict, 1, fields);
  pb_msg(dv, 53, dict);
  pbuf *nt = pb_new(), *pair = pb_new(), *ntv = pb_new();
  pb_str(nt, 1, "Pt");
  pb_str(pair, 1, "x");
  pb_msg(pair, 2, sv_int(14, 1));
  pb_msg(nt, 2, pair);
  pb_msg(ntv, 54, nt);
  pbuf *args[] = {tsv,         sv_int(14, 1), sv_empty(1),
                  sv_seq(51, 3, list), dv,     ntv};
  pbuf *sig[] = {sv_seq(52, 6, args), sv_empty(53)};
  char *got = concrete_functions(
      "values", meta_graph("cf", object_graph("f", sv_seq(52, 2, sig))));
  CU_ASSERT_STRING_EQUAL(
      got,
      "\nConcrete Functions:\n  Function Name: 'f'\n"
      "    Option #1\n      Callable with:\n"
      "        Argument #1\n"
      "          x: TensorSpec(shape=(None, 2), dtype=tf.float32, "
      "name='x')\n"
      "        Argument #2\n          DType: bool\n          Value: True\n"
      "        Argument #3\n          DType: NoneType\n"
      "          Value: None\n"
      "        Argument #4\n          DType: list\n"
      "          Value: ['a', 3, 0.5, \b\b]\n"
      "        Argument #5\n          DType: dict\n"
      "          Value: {'k': <dtype: 'int32'>, \b\b}\n"
      "        Argument #6\n          DType: Pt\n"
      "          Value: [True, \b\b]\n");
  free(got);
}

/* An object graph Python could not load is reported, never crashes. */
static void test_inspect_object_graph_hostile(void) {
  static const char kNA[] = "\nConcrete Functions: N/A (could not be listed "
                            "due to unknown reasons)\n";
  /* bytes that do not parse */
  pbuf *junk = pb_new();
  memcpy(junk->b, "\x0a\xff\xff\x01", 4);
  junk->n = 4;
  char *got = concrete_functions("junk", meta_graph("cf", junk));
  CU_ASSERT_STRING_EQUAL(got, kNA);
  free(got);
  /* field 7 as a varint */
  pbuf *mg = meta_graph("cf", NULL);
  pb_int(mg, 7, 5);
  got = concrete_functions("varint", mg);
  CU_ASSERT_STRING_EQUAL(got, kNA);
  free(got);
  /* a signature nested past the parse limit */
  pbuf *deep = sv_empty(1);
  for (int i = 0; i < 300; i++) deep = sv_seq(51, 1, &deep);
  got = concrete_functions("deep", meta_graph("cf", object_graph("f", deep)));
  CU_ASSERT_STRING_EQUAL(got, kNA);
  free(got);
  /* a concrete function the library does not hold */
  pbuf *sig[] = {sv_seq(52, 0, NULL), sv_empty(53)};
  got = concrete_functions(
      "missing", meta_graph("other", object_graph("f", sv_seq(52, 2, sig))));
  CU_ASSERT_STRING_EQUAL(got, kNA);
  free(got);
  /* a signature with no value set */
  got = concrete_functions("unset",
                           meta_graph("cf", object_graph("f", pb_new())));
  CU_ASSERT_STRING_EQUAL(got, kNA);
  free(got);
  /* no nodes at all */
  got = concrete_functions("empty", meta_graph("cf", pb_new()));
  CU_ASSERT_STRING_EQUAL(got, kNA);
  free(got);
  /* a ragged tensor's type spec: decoded by Python, not printed here */
  pbuf *ts = pb_new(), *tsv = pb_new();
  pb_int(ts, 1, 3);
  pb_msg(tsv, 34, ts);
  pbuf *args[] = {tsv};
  pbuf *sig2[] = {sv_seq(52, 1, args), sv_empty(53)};
  got = concrete_functions(
      "type_spec", meta_graph("cf", object_graph("f", sv_seq(52, 2, sig2))));
  CU_ASSERT_PTR_NOT_NULL(strstr(got, "Concrete Functions: N/A (tfsess does "
                                     "not print some values"));
  free(got);
}

/* The other show modes are matched byte for byte. */
static void test_inspect_show_modes(void) {
  for (int m = 0; kModels[m]; m++) {
    calls cs;
    read_calls(kModels[m], &cs);
    static const char *const files[] = {"show.txt", "show_tag_set.txt",
                                        "show_signature.txt"};
    for (int k = 0; k < 3; k++) {
      char rel[256];
      snprintf(rel, sizeof rel, SM "/%s/%s", kModels[m], files[k]);
      char *want = read_text(rel);
      result r = k == 0   ? tfsess("inspect " SM "/%s/model --tag-sets",
                                   kModels[m])
                 : k == 1 ? tfsess("inspect " SM "/%s/model --tags %s",
                                   kModels[m], cs.tags)
                          : tfsess("inspect " SM
                                   "/%s/model --tags %s --signature %s",
                                   kModels[m], cs.tags, cs.c[0].sig);
      CU_ASSERT_EQUAL(r.status, 0);
      if (strcmp(r.out, want) != 0)
        fprintf(stderr, "\n  %s %s:\n--- got\n%s--- want\n%s", kModels[m],
                files[k], r.out, want);
      CU_ASSERT_STRING_EQUAL(r.out, want);
      result_free(&r);
      free(want);
    }
  }
}

static void test_inspect_errors(void) {
  const char *mlp = SM "/keras_mlp/model";
  result r = tfsess("inspect no/such/dir --tag-sets");
  assert_fails(&r, 1,
               "tfsess inspect: Could not find SavedModel .pb or .pbtxt at "
               "supplied export directory path: no/such/dir.");
  r = tfsess("inspect %s --tags serve,gpu", mlp);
  assert_fails(&r, 1,
               "MetaGraphDef associated with tag-set serve,gpu could not be "
               "found in the SavedModel. Please use one of the following "
               "tag-sets: ['serve']\n");
  r = tfsess("inspect %s --signature nope", mlp);
  assert_fails(&r, 1,
               "Could not find signature \"nope\". Please choose from: "
               "__saved_model_init_op, serve, serving_default\n");
  r = tfsess("inspect %s --tag-sets --tags serve", mlp);
  assert_fails(&r, 2, "--tag-sets lists every tag set");
}

/* A MetaGraph whose graph (or a library function) has an op this build
 * does not have: inspect prints saved_model_cli's listing on stdout, the
 * nodes on stderr, and exits 1. */
static void test_inspect_unrunnable(void) {
  for (int in_fn = 0; in_fn < 2; in_fn++) {
    pbuf *node = pb_new(), *gd = pb_new(), *info = pb_new(), *mg = pb_new();
    pbuf *sm = pb_new();
    pb_str(node, 1, "odd");
    pb_str(node, 2, "NoSuchOp");
    if (in_fn) {
      pbuf *lib = pb_new(), *fd = pb_new(), *sig = pb_new();
      pb_str(sig, 1, "fn");
      pb_msg(fd, 1, sig);
      pb_msg(fd, 3, node);
      pb_msg(lib, 1, fd);
      pb_msg(gd, 2, lib);
      pbuf *call = pb_new(); /* the graph calls it */
      pb_str(call, 1, "call");
      pb_str(call, 2, "fn");
      pb_msg(gd, 1, call);
    } else {
      pb_msg(gd, 1, node);
    }
    pb_str(info, 4, "serve");
    pb_msg(mg, 1, info);
    pb_msg(mg, 2, gd);
    pb_msg(sm, 2, mg);
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s", it_tmp(in_fn ? "unrun_fn" : "unrun"));
    CU_ASSERT_FATAL(mkdir(dir, 0755) == 0);
    snprintf(path, sizeof path, "%s/saved_model.pb", dir);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(sm->b, 1, sm->n, f), sm->n);
    fclose(f);
    free(sm);
    const char *want = in_fn ? "MetaGraph with tag-set 'serve': Cannot run "
                               "(1 node):\n  NoSuchOp: not registered in "
                               "this build: fn/odd\n"
                             : "MetaGraph with tag-set 'serve': Cannot run "
                               "(1 node):\n  NoSuchOp: not registered in "
                               "this build: odd\n";
    for (int mode = 0; mode < 3; mode++) {
      result r = tfsess(mode == 0   ? "inspect %s"
                        : mode == 1 ? "inspect %s --tags serve"
                                    : "inspect %s --tag-sets",
                        dir);
      CU_ASSERT_EQUAL(r.status, mode == 2 ? 0 : 1);
      CU_ASSERT_STRING_EQUAL(r.err, mode == 2 ? "" : want);
      CU_ASSERT_PTR_NOT_NULL(
          strstr(r.out, mode == 1 ? "SignatureDefs" : "serve"));
      result_free(&r);
    }
  }
}

static const tfs_test_case cli_sm_cases[] = {
    {"run_recorded_calls", test_run_recorded_calls},
    {"run_defaults_and_flags", test_run_defaults_and_flags},
    {"run_state_carries_over", test_run_state_carries_over},
    {"run_errors", test_run_errors},
    {"inspect_show_all", test_inspect_show_all},
    {"inspect_show_modes", test_inspect_show_modes},
    {"inspect_concrete_function_values",
     test_inspect_concrete_function_values},
    {"inspect_object_graph_hostile", test_inspect_object_graph_hostile},
    {"inspect_errors", test_inspect_errors},
    {"inspect_unrunnable", test_inspect_unrunnable},
    {NULL, NULL}};

const tfs_test_suite tfs_test_suites[] = {{"cli_saved_model", cli_sm_cases},
                                          {NULL, NULL}};

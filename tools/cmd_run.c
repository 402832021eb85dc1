/*
 * tools/cmd_run.c - `tfsess run`: runs a GraphDef with feeds from .npy
 * (or .npz) files, writes every fetch to DIR/<name>_<index>.npy and prints
 * a summary line per fetch.  With --batch N the feeds are read N rows at a
 * time (seeking in the .npy files) and the fetches appended row-wise to
 * their output files, so inputs larger than memory go through.  --init
 * runs operations once first (variable initialisers); --runs N repeats
 * the run (state such as variables carries over) and keeps the last
 * outputs.
 *
 * MODEL may also be a SavedModel directory: it is loaded for --tags
 * (default serve) and signature --signature (default serving_default) is
 * run, feeds and fetches named by the signature's keys (every output in
 * key order without --fetch), each fetch written to DIR/<key>.npy.
 *
 * Under mpirun, --batch shares the rows out among the ranks (cli_mpi.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct run_args {
  tfs_cli_list feeds, fetches, targets, inits;
  const char *out_dir;
  int64_t batch; /* 0: one run over the whole feeds */
  int64_t runs;  /* 0: once */
  int quiet;
  int force;             /* --force: overwrite existing outputs */
  int strict_dtypes;     /* --strict-dtypes */
  tfs_cli_progress progress;
  const char *tags;      /* SavedModel: --tags, or NULL (serve) */
  const char *signature; /* SavedModel: --signature, or NULL */
  const char *trace;     /* --trace FILE.json, or NULL */
  int mpi_output;        /* --mpi-output: TFS_CLI_MPI_GATHER or PER_RANK */
} run_args;

typedef struct run_state {
  run_args *a;
  tfs_graph *g;
  tfs_session *s;
  tfs_cli_feed *feeds;
  tfs_output *feed_ports;
  tfs_output *fetch_ports;
  tfs_operation **targets;
  char **paths;         /* output file per fetch, or NULL without --out */
  tfs_cli_stats *stats; /* per fetch */
  tfs_saved_model *sm;  /* a SavedModel directory: runs go through it */
  const char **feed_keys; /* SavedModel: the feeds' signature keys */
  int config_only;      /* --save-config with nothing to run: done */
  char **tmps;          /* --batch: the temporary file per fetch */
  tfs_cli_mpi *mpi;     /* an MPI job (--batch under mpirun), or NULL */
} run_state;

static int add_feed(void *c, const char *v) {
  return tfs_cli_list_add(&((run_args *)c)->feeds, v);
}
static int add_fetch(void *c, const char *v) {
  return tfs_cli_list_add(&((run_args *)c)->fetches, v);
}
static int add_target(void *c, const char *v) {
  return tfs_cli_list_add(&((run_args *)c)->targets, v);
}
static int add_init(void *c, const char *v) {
  return tfs_cli_list_add(&((run_args *)c)->inits, v);
}
static int set_runs(void *c, const char *v) {
  return tfs_cli_parse_int("runs", v, 1, 1000000, &((run_args *)c)->runs);
}
static int set_out(void *c, const char *v) {
  ((run_args *)c)->out_dir = v;
  return 0;
}
static int set_batch(void *c, const char *v) {
  return tfs_cli_parse_int("batch", v, 1, INT64_MAX / 2,
                           &((run_args *)c)->batch);
}
static int set_quiet(void *c, const char *v) {
  ((run_args *)c)->quiet = 1;
  return 0;
}
static int set_force(void *c, const char *v) {
  ((run_args *)c)->force = 1;
  return 0;
}
static int set_strict_dtypes(void *c, const char *v) {
  ((run_args *)c)->strict_dtypes = 1;
  return 0;
}
static int set_tags(void *c, const char *v) {
  tfs_cli_tags t; /* checked here: a bad list is a usage error */
  if (tfs_cli_tags_parse(v, &t)) return -1;
  tfs_cli_tags_free(&t);
  ((run_args *)c)->tags = v;
  return 0;
}
static int set_signature(void *c, const char *v) {
  ((run_args *)c)->signature = v;
  return 0;
}

static int set_trace(void *c, const char *v) {
  ((run_args *)c)->trace = v;
  return 0;
}

static const tfs_cli_opt kRunOpts[] = {
    {"feed", "NAME[:i]=FILE",
     "feed a tensor from FILE.npy, FILE.npz or FILE.npz:KEY (repeatable)",
     add_feed},
    {"fetch", "NAME[:i]", "fetch a tensor (repeatable)", add_fetch},
    {"target", "NODE", "run an operation for its effects (repeatable)",
     add_target},
    {"init", "NODE",
     "run an operation once before the runs, e.g. a variable initialiser "
     "(repeatable)",
     add_init},
    {"runs", "N",
     "run N times (variables keep their values between runs); the last "
     "run's fetches are written",
     set_runs},
    {"out", "DIR", "write each fetch to DIR/<name>_<i>.npy ('/' -> '__')",
     set_out},
    {"batch", "N",
     "run the feeds N rows at a time (first dimension) and concatenate the "
     "fetches; .npy feeds are read a batch at a time",
     set_batch},
    {"quiet", NULL, "do not print the summary line of each fetch", set_quiet},
    {"force", NULL,
     "overwrite output files that exist (outputs are written to a "
     "temporary file and renamed when the run succeeded)",
     set_force},
    {"strict-dtypes", NULL,
     "refuse a feed whose dtype differs from the tensor's instead of "
     "converting it (as feed_dict does; a lossy conversion warns)",
     set_strict_dtypes},
    {"tags", "TAG[,TAG...]",
     "SavedModel: the tag set of the MetaGraph to load (default serve)",
     set_tags},
    {"signature", "KEY",
     "SavedModel: the signature to run (default serving_default); --feed "
     "and --fetch name its input and output keys, each fetch is written "
     "to DIR/<key>.npy",
     set_signature},
    {"trace", "FILE.json",
     "write the run's step statistics as Chrome trace JSON (chrome://tracing"
     ", ui.perfetto.dev); with --runs or --batch, of the last run",
     set_trace},
    {NULL, NULL, NULL, NULL}};

static const tfs_cli_help kRunHelp = {
    "run MODEL.pb|MODEL.pbtxt|SAVED_MODEL_DIR [--feed NAME[:i]=FILE.npy ...] "
    "[--fetch NAME[:i] ...] "
    "[--target NODE ...] [--init NODE ...] [--runs N] [--out DIR] "
    "[--batch N] [--tags TAG,... --signature KEY] [options]",
    "Runs the graph in MODEL.pb (a GraphDef, e.g. a frozen TensorFlow model;\n"
    "MODEL.pbtxt: a text GraphDef)\n"
    "once with the given feeds, or once per batch with --batch, and prints\n"
    "dtype, shape, min, mean and max of every fetched tensor.  A SavedModel\n"
    "directory (saved_model.pb) runs one of its signatures: feeds and\n"
    "fetches are the signature's input and output keys (--feed KEY=FILE,\n"
    "--fetch KEY), without --fetch every output is fetched, and --out\n"
    "writes DIR/<key>.npy.  A feed of another numeric dtype is converted\n"
    "(float64 into a float placeholder); outputs appear only when the run\n"
    "succeeds and do not overwrite files without --force.  With\n"
    "--save-config and nothing to run, only the config is written.",
    1, 1};

/* ---- setup --------------------------------------------------------------- */

/* Takes `path` (malloc'd or NULL) as the output of fetch i: in an MPI
 * job, this rank's file (per-rank), or rank 0's file that the others only
 * buffer next to (gather: only rank 0 checks it). */
static int set_path(run_state *r, int i, char *path) {
  if (!path) return tfs_cli_error("out of memory");
  r->paths[i] = tfs_cli_mpi_rank_path(r->mpi, path, 0);
  free(path);
  if (!r->paths[i]) return tfs_cli_error("out of memory");
  if (tfs_cli_mpi_rank(r->mpi) && !tfs_cli_mpi_per_rank(r->mpi))
    return TFS_CLI_OK;
  return tfs_cli_output_check(r->paths[i], r->a->force) ? TFS_CLI_FAILED
                                                        : TFS_CLI_OK;
}

/* Runs each --init operation once, in the order given. */
static int run_inits(run_state *r) {
  run_args *a = r->a;
  if (a->inits.n == 0) return TFS_CLI_OK;
  tfs_operation **ops = calloc((size_t)a->inits.n, sizeof *ops);
  if (!ops) return tfs_cli_error("out of memory");
  int rc = tfs_cli_resolve_targets(r->g, &a->inits, ops) ? TFS_CLI_FAILED
                                                         : TFS_CLI_OK;
  tfs_status *st = tfs_status_new();
  for (int i = 0; rc == TFS_CLI_OK && i < a->inits.n; i++) {
    tfs_session_run(r->s, NULL, NULL, 0, NULL, NULL, 0, &ops[i], 1, st);
    if (!tfs_status_ok(st))
      rc = tfs_cli_error("init '%s': %s", a->inits.v[i],
                         tfs_status_message(st));
  }
  tfs_status_free(st);
  free(ops);
  return rc;
}

/* The per-feed and per-fetch arrays, once their counts are known. */
static int alloc_arrays(run_state *r) {
  run_args *a = r->a;
  r->feeds = calloc((size_t)a->feeds.n + 1, sizeof *r->feeds);
  r->feed_ports = calloc((size_t)a->feeds.n + 1, sizeof *r->feed_ports);
  r->feed_keys = calloc((size_t)a->feeds.n + 1, sizeof *r->feed_keys);
  r->fetch_ports = calloc((size_t)a->fetches.n + 1, sizeof *r->fetch_ports);
  r->targets = calloc((size_t)a->targets.n + 1, sizeof *r->targets);
  r->paths = calloc((size_t)a->fetches.n + 1, sizeof *r->paths);
  r->stats = calloc((size_t)a->fetches.n + 1, sizeof *r->stats);
  if (!r->feeds || !r->feed_ports || !r->feed_keys || !r->fetch_ports ||
      !r->targets || !r->paths || !r->stats)
    return tfs_cli_error("out of memory");
  return TFS_CLI_OK;
}

/* A SavedModel directory: load it, pick the signature, take the feeds and
 * fetches as its keys (checked by tfs_saved_model_run). */
static int setup_saved_model(run_state *r, const char *dir,
                             tfs_cli_session *sess) {
  run_args *a = r->a;
  int rc;
  if (a->targets.n || a->inits.n)
    return tfs_cli_usage_error(
        "--target and --init name graph operations; a SavedModel directory "
        "runs a signature (--signature KEY)");
  r->sm = tfs_cli_load_saved_model(dir, a->tags, sess);
  if (!r->sm) return TFS_CLI_FAILED;
  const char *key = a->signature ? a->signature : "serving_default";
  const tfs_signature *sig = tfs_saved_model_find_signature(r->sm, key);
  if (!sig) {
    /* the loader's message, which lists the signatures there are */
    tfs_status *st = tfs_status_new();
    tfs_saved_model_run(r->sm, key, NULL, NULL, 0, NULL, NULL, 0, st);
    rc = tfs_cli_status_error(st);
    tfs_status_free(st);
    return rc;
  }
  int all = a->fetches.n == 0;
  for (int i = 0; all && i < tfs_signature_num_outputs(sig); i++)
    if (tfs_cli_list_add(&a->fetches,
                         tfs_tensor_info_key(tfs_signature_output(sig, i))))
      return TFS_CLI_FAILED;
  if ((rc = alloc_arrays(r))) return rc;
  for (int i = 0; i < a->feeds.n; i++) {
    if ((rc = tfs_cli_feed_split(a->feeds.v[i], "KEY", &r->feeds[i])))
      return rc;
    r->feed_keys[i] = r->feeds[i].name;
    const tfs_tensor_info *ti = tfs_signature_find_input(sig, r->feeds[i].name);
    if (ti) tfs_cli_feed_expect_info(ti, &r->feeds[i]);
  }
  for (int i = 0; i < a->fetches.n; i++) {
    for (int j = 0; j < i; j++)
      if (strcmp(a->fetches.v[j], a->fetches.v[i]) == 0)
        return tfs_cli_usage_error("fetch '%s' is given twice",
                                   a->fetches.v[i]);
  }
  if (a->out_dir) {
    if (tfs_cli_mkdirs(a->out_dir)) return TFS_CLI_FAILED;
    for (int i = 0; i < a->fetches.n; i++)
      if ((rc = set_path(r, i, tfs_cli_key_path(a->out_dir, a->fetches.v[i]))))
        return rc;
  }
  return TFS_CLI_OK;
}

static int setup(run_state *r, const char *model, tfs_cli_session *sess) {
  run_args *a = r->a;
  int rc;
  if (a->runs > 1 && a->batch)
    return tfs_cli_usage_error("--runs and --batch cannot be combined");
  tfs_cli_set_strict_dtypes(a->strict_dtypes);
  if (sess->save_config && !a->feeds.n && !a->fetches.n && !a->targets.n &&
      !a->inits.n) {
    /* only the config: built (and written) without loading the model */
    tfs_session_options *opts = tfs_cli_session_options(sess);
    if (!opts) return TFS_CLI_FAILED;
    tfs_session_options_free(opts);
    r->config_only = 1;
    return TFS_CLI_OK;
  }
  /* --tags or --signature: a SavedModel even where the directory is
   * missing, so that the loader's message says what it looked for */
  if (tfs_cli_is_saved_model(model) || a->tags || a->signature)
    return setup_saved_model(r, model, sess);
  if (a->fetches.n == 0 && a->targets.n == 0)
    return tfs_cli_usage_error("nothing to run: give --fetch or --target");
  r->g = tfs_cli_load_graph(model);
  if (!r->g) return TFS_CLI_FAILED;
  if ((rc = alloc_arrays(r))) return rc;
  for (int i = 0; i < a->feeds.n; i++) {
    if ((rc = tfs_cli_feed_parse(r->g, a->feeds.v[i], &r->feeds[i]))) return rc;
    r->feed_ports[i] = r->feeds[i].port;
  }
  for (int i = 0; i < a->fetches.n; i++) {
    if (tfs_cli_resolve(r->g, a->fetches.v[i], "fetch", &r->fetch_ports[i]))
      return TFS_CLI_FAILED;
    for (int j = 0; j < i; j++)
      if (r->fetch_ports[j].oper == r->fetch_ports[i].oper &&
          r->fetch_ports[j].index == r->fetch_ports[i].index)
        return tfs_cli_usage_error("fetch '%s' is given twice",
                                   a->fetches.v[i]);
  }
  if (tfs_cli_resolve_targets(r->g, &a->targets, r->targets))
    return TFS_CLI_FAILED;
  if (a->out_dir) {
    if (tfs_cli_mkdirs(a->out_dir)) return TFS_CLI_FAILED;
    for (int i = 0; i < a->fetches.n; i++)
      if ((rc = set_path(r, i, tfs_cli_fetch_path(a->out_dir,
                                                  a->fetches.v[i]))))
        return rc;
  }
  tfs_session_options *opts = tfs_cli_session_options(sess);
  if (!opts) return TFS_CLI_FAILED;
  tfs_status *st = tfs_status_new();
  r->s = tfs_session_new(r->g, opts, st);
  tfs_session_options_free(opts);
  rc = r->s ? TFS_CLI_OK : tfs_cli_status_error(st);
  tfs_status_free(st);
  if (rc == TFS_CLI_OK) rc = run_inits(r);
  return rc;
}

static void print_stats(const run_state *r) {
  if (r->a->quiet || tfs_cli_mpi_rank(r->mpi)) return;
  int per_rank = tfs_cli_mpi_per_rank(r->mpi);
  for (int i = 0; i < r->a->fetches.n; i++) {
    /* per-rank: NAME.rank-*.npy */
    char *shown = per_rank && r->paths[i]
                      ? tfs_cli_mpi_rank_path(r->mpi, r->paths[i], 1)
                      : NULL;
    tfs_cli_stats_print(stdout, r->a->fetches.v[i],
                        shown ? shown : r->paths[i], &r->stats[i]);
    free(shown);
  }
}

/* Runs once; fetched tensors go to out[] (new references). */
static int run_step(run_state *r, tfs_tensor **in, tfs_tensor **out,
                    const char *context) {
  tfs_status *st = tfs_status_new();
  if (r->sm && r->a->trace)
    tfs_cli_saved_model_run_and_trace(r->sm, r->a->signature, r->a->trace,
                                      r->feed_keys, in, r->a->feeds.n,
                                      r->a->fetches.v, out, r->a->fetches.n,
                                      st);
  else if (r->sm)
    tfs_saved_model_run(r->sm, r->a->signature, r->feed_keys, in,
                        r->a->feeds.n, r->a->fetches.v, out, r->a->fetches.n,
                        st);
  else if (r->a->trace)
    tfs_cli_run_and_trace(r->s, r->g, r->a->trace, r->feed_ports, in,
                          r->a->feeds.n, r->fetch_ports, out,
                          r->a->fetches.n, r->targets, r->a->targets.n, st);
  else
    tfs_session_run(r->s, r->feed_ports, in, r->a->feeds.n, r->fetch_ports,
                    out, r->a->fetches.n, r->targets, r->a->targets.n, st);
  int rc = TFS_CLI_OK;
  if (!tfs_status_ok(st))
    rc = tfs_cli_error("%s%s", context, tfs_status_message(st));
  tfs_status_free(st);
  return rc;
}

/* ---- one run ------------------------------------------------------------- */

static int run_whole(run_state *r) {
  int nf = r->a->feeds.n, nt = r->a->fetches.n, rc = TFS_CLI_OK;
  tfs_tensor **in = calloc((size_t)nf + 1, sizeof *in);
  tfs_tensor **out = calloc((size_t)nt + 1, sizeof *out);
  if (!in || !out) rc = tfs_cli_error("out of memory");
  for (int i = 0; rc == TFS_CLI_OK && i < nf; i++)
    if (!(in[i] = tfs_cli_feed_load(&r->feeds[i]))) rc = TFS_CLI_FAILED;
  for (int64_t k = 0; rc == TFS_CLI_OK && k < (r->a->runs ? r->a->runs : 1);
       k++) {
    for (int i = 0; k && i < nt; i++) {
      tfs_tensor_free(out[i]);
      out[i] = NULL;
    }
    rc = run_step(r, in, out, "");
  }
  char **tmp = calloc((size_t)nt + 1, sizeof *tmp);
  if (!tmp && rc == TFS_CLI_OK) rc = tfs_cli_error("out of memory");
  tfs_status *st = tfs_status_new();
  for (int i = 0; rc == TFS_CLI_OK && i < nt; i++) {
    tfs_cli_stats_add(&r->stats[i], out[i], 0);
    if (!r->paths[i]) continue;
    if (!(tmp[i] = tfs_cli_output_temp(r->paths[i]))) {
      rc = TFS_CLI_FAILED;
      break;
    }
    tfs_npy_write(tmp[i], out[i], st);
    if (!tfs_status_ok(st))
      rc = tfs_cli_error("fetch '%s': %s", r->a->fetches.v[i],
                         tfs_status_message(st));
  }
  tfs_status_free(st);
  /* every output written: only now do they replace anything */
  for (int i = 0; tmp && i < nt; i++) {
    if (!tmp[i]) continue;
    if (rc == TFS_CLI_OK)
      rc = tfs_cli_output_commit(tmp[i], r->paths[i]) ? TFS_CLI_FAILED
                                                      : TFS_CLI_OK;
    else
      tfs_cli_output_discard(tmp[i]);
  }
  free(tmp);
  if (rc == TFS_CLI_OK) print_stats(r);
  for (int i = 0; in && i < nf; i++) tfs_tensor_free(in[i]);
  for (int i = 0; out && i < nt; i++) tfs_tensor_free(out[i]);
  free(in);
  free(out);
  return rc;
}

/* ---- batches ------------------------------------------------------------- */

typedef struct batch_src {
  tfs_npy_reader *reader; /* .npy: read a batch at a time */
  tfs_tensor *whole;      /* .npz: loaded, then sliced */
  int64_t rows;
} batch_src;

/* Rows [start, start+count) of an in-memory tensor, as a new tensor. */
static tfs_tensor *slice_rows(const tfs_tensor *t, int64_t start, int64_t count,
                              tfs_status *st) {
  int nd = tfs_tensor_ndims(t);
  int64_t dims[TFS_MAX_RANK];
  for (int i = 0; i < nd; i++) dims[i] = tfs_tensor_dim(t, i);
  int64_t row = dims[0] ? tfs_tensor_num_elements(t) / dims[0] : 0;
  dims[0] = count;
  if (tfs_tensor_dtype(t) != TFS_STRING) {
    size_t es = tfs_dtype_size(tfs_tensor_dtype(t));
    return tfs_tensor_new_copy(
        tfs_tensor_dtype(t), dims, nd,
        (const char *)tfs_tensor_data(t) + (size_t)(start * row) * es,
        (size_t)(count * row) * es, st);
  }
  tfs_tensor *s = tfs_tensor_new(TFS_STRING, dims, nd, st);
  for (int64_t i = 0; s && i < count * row; i++) {
    size_t len;
    const char *p = tfs_tensor_string_at(t, start * row + i, &len);
    tfs_tensor_set_string(s, i, p, len, st);
  }
  return s;
}

static int open_sources(run_state *r, batch_src *src, int64_t *rows) {
  tfs_status *st = tfs_status_new();
  int rc = TFS_CLI_OK;
  for (int i = 0; rc == TFS_CLI_OK && i < r->a->feeds.n; i++) {
    const tfs_cli_feed *f = &r->feeds[i];
    int nd;
    if (tfs_cli_feed_is_npz(f)) { /* each batch is checked as it is cut */
      if (!(src[i].whole = tfs_cli_feed_read(f))) {
        rc = TFS_CLI_FAILED;
        break;
      }
      nd = tfs_tensor_ndims(src[i].whole);
      src[i].rows = nd ? tfs_tensor_dim(src[i].whole, 0) : 0;
    } else {
      src[i].reader = tfs_npy_reader_open(f->file, st);
      if (!src[i].reader) {
        rc = tfs_cli_error("feed '%s': %s", f->name, tfs_status_message(st));
        break;
      }
      nd = tfs_npy_reader_ndims(src[i].reader);
      src[i].rows = nd ? tfs_npy_reader_dims(src[i].reader)[0] : 0;
    }
    if (nd == 0)
      rc = tfs_cli_error(
          "--batch: feed '%s' is a scalar; batches are cut "
          "along the first dimension",
          f->name);
    else if (i > 0 && src[i].rows != src[0].rows)
      rc = tfs_cli_error(
          "--batch: feed '%s' has %lld rows but feed '%s' "
          "has %lld",
          f->name, (long long)src[i].rows, r->feeds[0].name,
          (long long)src[0].rows);
  }
  *rows = r->a->feeds.n ? src[0].rows : 0;
  tfs_status_free(st);
  return rc;
}

/* Appends fetch i of one batch to its statistics and output file. */
static int collect(run_state *r, int i, const tfs_tensor *t, int64_t rows,
                   int first, tfs_npy_writer **w, const char *ctx) {
  const char *name = r->a->fetches.v[i];
  int nd = tfs_tensor_ndims(t);
  if (nd == 0)
    return tfs_cli_error(
        "%sfetch '%s' is a scalar; with --batch every "
        "fetch needs a first dimension to concatenate on",
        ctx, name);
  if (r->a->feeds.n && tfs_tensor_dim(t, 0) != rows)
    return tfs_cli_error(
        "%sfetch '%s' has %lld rows for %lld input rows; "
        "with --batch every fetch needs one row per input "
        "row",
        ctx, name, (long long)tfs_tensor_dim(t, 0), (long long)rows);
  if (!first &&
      (tfs_tensor_dtype(t) != r->stats[i].dtype || nd != r->stats[i].ndims))
    return tfs_cli_error(
        "%sfetch '%s' changed dtype or rank between "
        "batches",
        ctx, name);
  for (int d = 1; !first && d < nd; d++)
    if (tfs_tensor_dim(t, d) != r->stats[i].dims[d])
      return tfs_cli_error(
          "%sfetch '%s' changed shape between batches "
          "(dimension %d is %lld, was %lld)",
          ctx, name, d, (long long)tfs_tensor_dim(t, d),
          (long long)r->stats[i].dims[d]);
  tfs_cli_stats_add(&r->stats[i], t, !first);
  if (!r->paths[i]) return TFS_CLI_OK;
  tfs_status *st = tfs_status_new();
  if (!*w && !r->tmps[i]) {
    /* streamed into a temporary, renamed after the last batch */
    r->tmps[i] = tfs_cli_output_temp(r->paths[i]);
    if (!r->tmps[i]) {
      tfs_status_free(st);
      return TFS_CLI_FAILED;
    }
    *w = tfs_npy_writer_open(r->tmps[i], tfs_tensor_dtype(t),
                             tfs_tensor_dims(t) + 1, nd - 1, st);
  }
  if (*w) tfs_npy_writer_append(*w, t, st);
  int rc = TFS_CLI_OK;
  if (!tfs_status_ok(st))
    rc = tfs_cli_error("%sfetch '%s': %s", ctx, name, tfs_status_message(st));
  tfs_status_free(st);
  return rc;
}

static int run_one_batch(run_state *r, batch_src *src, int64_t start,
                         int64_t count, int first, tfs_npy_writer **writers) {
  int nf = r->a->feeds.n, nt = r->a->fetches.n, rc = TFS_CLI_OK;
  char ctx[96];
  snprintf(ctx, sizeof ctx, "batch at rows %lld-%lld: ", (long long)start,
           (long long)(start + count));
  tfs_tensor **in = calloc((size_t)nf + 1, sizeof *in);
  tfs_tensor **out = calloc((size_t)nt + 1, sizeof *out);
  tfs_status *st = tfs_status_new();
  if (!in || !out || !st) rc = tfs_cli_error("out of memory");
  for (int i = 0; rc == TFS_CLI_OK && i < nf; i++) {
    in[i] = src[i].reader
                ? tfs_npy_reader_read_rows(src[i].reader, start, count, st)
                : slice_rows(src[i].whole, start, count, st);
    if (!in[i])
      rc = tfs_cli_error("%sfeed '%s': %s", ctx, r->feeds[i].name,
                         tfs_status_message(st));
    else
      rc = tfs_cli_feed_conform(&r->feeds[i], &in[i]);
  }
  if (rc == TFS_CLI_OK) rc = run_step(r, in, out, ctx);
  for (int i = 0; rc == TFS_CLI_OK && i < nt; i++)
    rc = collect(r, i, out[i], count, first, &writers[i], ctx);
  for (int i = 0; in && i < nf; i++) tfs_tensor_free(in[i]);
  for (int i = 0; out && i < nt; i++) tfs_tensor_free(out[i]);
  free(in);
  free(out);
  tfs_status_free(st);
  return rc;
}

/* Runs rows [lo, hi) a batch at a time; always at least one run, so that
 * zero rows still give outputs. */
static int run_rows(run_state *r, batch_src *src, int64_t lo, int64_t hi,
                    tfs_npy_writer **writers) {
  int64_t b = r->a->batch;
  int rc = TFS_CLI_OK;
  for (int64_t start = lo; rc == TFS_CLI_OK && (start < hi || start == lo);
       start += b) {
    int64_t count = hi - start < b ? hi - start : b;
    rc = run_one_batch(r, src, start, count, start == lo, writers);
    if (rc == TFS_CLI_OK)
      rc = tfs_cli_mpi_progress(r->mpi, start + count - lo, count,
                                &r->a->progress);
  }
  return rc;
}

/* Finishes the output files (patches their headers' row counts). */
static int close_writers(run_state *r, tfs_npy_writer **writers, int rc) {
  tfs_status *st = tfs_status_new();
  for (int i = 0; writers && i < r->a->fetches.n; i++) {
    if (!writers[i]) continue;
    if (rc == TFS_CLI_OK) {
      tfs_npy_writer_close(writers[i], st);
      if (!tfs_status_ok(st)) rc = tfs_cli_status_error(st);
    } else {
      tfs_npy_writer_free(writers[i]);
    }
    writers[i] = NULL;
  }
  tfs_status_free(st);
  return rc;
}

static int run_batched(run_state *r) {
  int nf = r->a->feeds.n, nt = r->a->fetches.n;
  batch_src *src = calloc((size_t)nf + 1, sizeof *src);
  tfs_npy_writer **writers = calloc((size_t)nt + 1, sizeof *writers);
  r->tmps = calloc((size_t)nt + 1, sizeof *r->tmps);
  int64_t rows = 0, lo = 0, hi = 0;
  int rc = src && writers && r->tmps ? open_sources(r, src, &rows)
                                     : tfs_cli_error("out of memory");
  tfs_cli_progress *p = &r->a->progress;
  if (rc == TFS_CLI_OK) {
    tfs_cli_mpi_block(r->mpi, rows, &lo, &hi);
    tfs_cli_progress_start(p, "rows", rows);
    rc = run_rows(r, src, lo, hi, writers);
  }
  /* in an MPI job gathered by rank 0, the other ranks' temporaries only
   * buffer their rows until rank 0 took them */
  int buffers = tfs_cli_mpi_rank(r->mpi) && !tfs_cli_mpi_per_rank(r->mpi);
  if (buffers) rc = close_writers(r, writers, rc);
  rc = tfs_cli_mpi_gather(r->mpi, rc, nt, r->a->fetches.v, r->stats, writers,
                          r->tmps, p);
  if (!buffers) rc = close_writers(r, writers, rc);
  tfs_cli_progress_finish(p, rc == TFS_CLI_OK);
  for (int i = 0; r->tmps && i < nt; i++) {
    if (!r->tmps[i]) continue;
    if (rc == TFS_CLI_OK && !buffers)
      rc = tfs_cli_output_commit(r->tmps[i], r->paths[i]) ? TFS_CLI_FAILED
                                                          : TFS_CLI_OK;
    else
      tfs_cli_output_discard(r->tmps[i]);
  }
  free(r->tmps);
  r->tmps = NULL;
  for (int i = 0; src && i < nf; i++) {
    tfs_npy_reader_free(src[i].reader);
    tfs_tensor_free(src[i].whole);
  }
  free(src);
  free(writers);
  if (rc == TFS_CLI_OK) print_stats(r);
  return rc;
}

int tfs_cli_cmd_run(int argc, char **argv) {
  run_args a;
  memset(&a, 0, sizeof a);
  a.progress = (tfs_cli_progress)TFS_CLI_PROGRESS_INIT;
  tfs_cli_session sess = TFS_CLI_SESSION_INIT;
  tfs_cli_group groups[] = {{"Run", kRunOpts, &a},
                            {"Progress (--batch)", tfs_cli_progress_opts,
                             &a.progress},
                            {"MPI (--batch under mpirun)", tfs_cli_mpi_opts,
                             &a.mpi_output},
                            {"Session", tfs_cli_session_opts, &sess}};
  char *pos[1];
  int npos;
  int rc = tfs_cli_parse(argc, argv, &kRunHelp, groups, 4, pos, &npos);
  if (rc) {
    rc = rc > 0 ? TFS_CLI_OK : TFS_CLI_USAGE;
    goto out_args;
  }
  run_state r;
  memset(&r, 0, sizeof r);
  r.a = &a;
  tfs_cli_output_handlers();
  if ((rc = tfs_cli_mpi_start(a.batch, a.mpi_output, &r.mpi)))
    goto out_args;
  sess.mpi = r.mpi; /* one GPU per local rank */
  if (tfs_cli_mpi_rank(r.mpi)) {
    /* rank 0 draws the job's progress and writes the trace */
    a.progress.mode = 0;
    a.trace = NULL;
  }
  rc = setup(&r, pos[0], &sess);
  if (rc == TFS_CLI_OK && !r.config_only)
    rc = a.batch ? run_batched(&r) : run_whole(&r);
  rc = tfs_cli_mpi_end(r.mpi, rc);
  tfs_session_free(r.s);
  tfs_graph_free(r.g);
  tfs_saved_model_free(r.sm);
  for (int i = 0; r.feeds && i < a.feeds.n; i++)
    tfs_cli_feed_clear(&r.feeds[i]);
  for (int i = 0; r.paths && i < a.fetches.n; i++) free(r.paths[i]);
  free(r.feeds);
  free(r.feed_ports);
  free(r.feed_keys);
  free(r.fetch_ports);
  free(r.targets);
  free(r.paths);
  free(r.stats);
out_args:
  tfs_cli_list_free(&a.feeds);
  tfs_cli_list_free(&a.fetches);
  tfs_cli_list_free(&a.targets);
  tfs_cli_list_free(&a.inits);
  return rc;
}

/*
 * tools/cli.h - what the subcommands of the `tfsess` program share: the
 * command table entry, a table-driven option parser with --help, one-line
 * error reporting, option groups (session options live in cli_session.c),
 * and graph / feed / fetch helpers (cli_graph.c).
 *
 * Adding a subcommand: write tools/cmd_NAME.c defining
 * `int tfs_cli_cmd_NAME(int argc, char **argv)` (argv[0] is "NAME"), add
 * one line to tools/commands.def and the file to tools/tools.am.
 * Adding a flag that every session-running subcommand understands: add a
 * field to tfs_cli_session and an entry to tfs_cli_session_opts
 * (cli_session.c), and apply it in tfs_cli_session_options.
 */
#ifndef TFS_TOOLS_CLI_H
#define TFS_TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "core/util.h"
#include "tfsess/tfsess.h"

/* Exit statuses. */
enum { TFS_CLI_OK = 0, TFS_CLI_FAILED = 1, TFS_CLI_USAGE = 2 };

/* ---- errors -------------------------------------------------------------- */

/* The running subcommand's name, for messages ("run"). */
extern const char *tfs_cli_command;
/* Put before every error and warning message ("rank 1: " in an MPI job),
 * or NULL. */
extern const char *tfs_cli_error_prefix;

/* Prints "tfsess CMD: MESSAGE" on one line to stderr (newlines and tabs
 * in the message become spaces).  Returns TFS_CLI_FAILED. */
int tfs_cli_error(const char *fmt, ...) TFS_PRINTF(1, 2);
/* Same with TFS_CLI_USAGE and a hint to use --help. */
int tfs_cli_usage_error(const char *fmt, ...) TFS_PRINTF(1, 2);
/* "tfsess CMD: warning: MESSAGE" on one line to stderr. */
void tfs_cli_warning(const char *fmt, ...) TFS_PRINTF(1, 2);
/* tfs_cli_error with the status message. */
int tfs_cli_status_error(const tfs_status *st);

/* ---- options ------------------------------------------------------------- */

/* One option: --NAME VALUE (or --NAME=VALUE), or a switch --NAME when
 * metavar is NULL.  `set` applies it to the group's context and returns
 * 0, or -1 after reporting the problem with tfs_cli_usage_error. */
typedef struct tfs_cli_opt {
  const char *name;
  const char *metavar;
  const char *help;
  int (*set)(void *ctx, const char *value);
} tfs_cli_opt;

/* A titled list of options (ends with {NULL}) applied to `ctx`. */
typedef struct tfs_cli_group {
  const char *title;
  const tfs_cli_opt *opts;
  void *ctx;
} tfs_cli_group;

/* What a subcommand says in --help. */
typedef struct tfs_cli_help {
  const char *usage;       /* "run MODEL.pb --feed ... [options]" */
  const char *description; /* a paragraph, may hold newlines */
  int min_positional, max_positional;
} tfs_cli_help;

/* Parses argv[1..argc) against `groups` (ngroups of them); positional
 * arguments go to pos[0..*npos).  "--help"/"-h" prints the help to stdout
 * and returns 1.  Returns 0, or -1 after a usage error was reported. */
int tfs_cli_parse(int argc, char **argv, const tfs_cli_help *help,
                  const tfs_cli_group *groups, int ngroups, char **pos,
                  int *npos);

/* Parsers for option values; report usage errors naming `opt`. */
int tfs_cli_parse_int(const char *opt, const char *value, int64_t min,
                      int64_t max, int64_t *out);

/* A growable list of strings for repeated options. */
typedef struct tfs_cli_list {
  int n, cap;
  const char **v;
} tfs_cli_list;
/* Appends (the string is borrowed from argv); -1 on OOM (reported). */
int tfs_cli_list_add(tfs_cli_list *l, const char *s);
void tfs_cli_list_free(tfs_cli_list *l);

/* ---- session options (cli_session.c) ------------------------------------- */

typedef struct tfs_cli_session {
  const char *config_path; /* --config: ConfigProto bytes */
  int64_t intra, inter;    /* --intra / --inter; TFS_CLI_UNSET if absent */
  int no_optimize;         /* --no-optimize */
  const char *passes;      /* --passes LIST, or NULL */
  const char *save_config; /* --save-config FILE, or NULL */
  int safe;                /* --safe */
  unsigned limits_set;     /* bit i: --limit set limits[i] (tfs_limit) */
  int64_t limits[TFS_LIMIT_COUNT];
  int nallow;              /* --allow-op TYPE (borrowed from argv) */
  const char *allow[32];
  /* run under mpirun (cli_mpi.c), or NULL: the options pin one GPU per
   * local rank (tfs_cli_mpi_pin_gpu) */
  const struct tfs_cli_mpi *mpi;
} tfs_cli_session;

#define TFS_CLI_UNSET INT64_MIN
#define TFS_CLI_SESSION_INIT \
  { NULL, TFS_CLI_UNSET, TFS_CLI_UNSET, 0, NULL, NULL, 0, 0, {0}, 0, {0}, \
    NULL }

/* Applies --no-optimize / --passes to session options (their ConfigProto's
 * rewrite_options; cmd_optimize.c).  Returns 0 or -1 (reported). */
int tfs_cli_optimizer_flags(tfs_session_options *o, int no_optimize,
                            const char *passes);

/* The options of the "Session" group: --config, --intra, --inter,
 * --no-optimize, --passes, --save-config. */
extern const tfs_cli_opt tfs_cli_session_opts[];

/* Builds session options: ConfigProto from --config first, then the
 * explicit flags over it; with --save-config, writes the result as
 * ConfigProto bytes; then, in an MPI job (s->mpi), this rank's GPU
 * (tfs_cli_mpi_pin_gpu; not in the saved file, which every rank shares).
 * Returns new options (caller frees) or NULL after reporting an error. */
tfs_session_options *tfs_cli_session_options(const tfs_cli_session *s);

/* ---- graphs, feeds and fetches (cli_graph.c) ----------------------------- */

/* Reads and imports a GraphDef file.  Returns a new graph (caller frees)
 * or NULL after reporting an error naming the file. */
tfs_graph *tfs_cli_load_graph(const char *path);

/* Limits every later tfs_cli_load_graph applies (--safe, --limit): the
 * deepest nesting (0: the default) and the most nodes (0: none). */
void tfs_cli_set_import_limits(int max_nesting, int64_t max_nodes);

/* Reads a whole file; returns malloc'd bytes or NULL (reported). */
uint8_t *tfs_cli_read_file(const char *path, size_t *len);

/* "name" or "name:index" in `g`; `what` ("feed", "fetch") for messages.
 * Returns 0 or -1 (reported). */
int tfs_cli_resolve(tfs_graph *g, const char *name, const char *what,
                    tfs_output *out);

/* A feed given as NAME[:i]=FILE, where FILE is FILE.npy, FILE.npz (its
 * only array) or FILE.npz:KEY. */
typedef struct tfs_cli_feed {
  const char *spec; /* as given */
  char *name;       /* tensor name part */
  char *file;       /* file part */
  char *npz_key;    /* or NULL */
  tfs_output port;
  /* What the feed takes (tfs_cli_feed_expect_*): dtype (TFS_INVALID: not
   * known, nothing checked) and shape (rank -1: any; dim -1: any). */
  tfs_dtype want_dtype;
  int want_rank;
  int64_t want_dims[TFS_MAX_RANK];
  int warned; /* the precision warning was printed */
} tfs_cli_feed;

/* Splits a --feed spec, resolves the tensor and takes its dtype and
 * inferred shape as what the feed expects.  Returns 0, or an exit
 * status (TFS_CLI_USAGE for a malformed spec) after reporting; free with
 * tfs_cli_feed_clear either way. */
int tfs_cli_feed_parse(tfs_graph *g, const char *spec, tfs_cli_feed *f);
/* Only splits a --feed spec into name, file and npz key (port unset);
 * `expect` names the left side in the usage error ("KEY").  Returns 0 or
 * an exit status after reporting; free with tfs_cli_feed_clear. */
int tfs_cli_feed_split(const char *spec, const char *expect,
                       tfs_cli_feed *f);
void tfs_cli_feed_clear(tfs_cli_feed *f);
/* Loads the whole value of a feed as its file holds it; a new tensor or
 * NULL (reported). */
tfs_tensor *tfs_cli_feed_read(const tfs_cli_feed *f);
/* Loads the whole value of a feed, made to fit it with
 * tfs_cli_feed_conform; a new tensor or NULL (reported). */
tfs_tensor *tfs_cli_feed_load(tfs_cli_feed *f);

/* ---- feed dtypes (cli_feed_dtype.c) -------------------------------------- */

/* What a feed expects: the graph tensor's dtype and inferred shape, or a
 * SavedModel signature input's. */
void tfs_cli_feed_expect_graph(tfs_graph *g, tfs_cli_feed *f);
void tfs_cli_feed_expect_info(const tfs_tensor_info *ti, tfs_cli_feed *f);
/* --strict-dtypes: refuse every dtype mismatch instead of converting. */
void tfs_cli_set_strict_dtypes(int strict);
/* Checks *t against what `f` expects and converts a numeric value of
 * another dtype in place (as np.asarray(value, dtype) does for
 * Session.run's feed_dict), warning once per feed when values round and
 * failing when one is out of the target's range.  Errors read "feed 'x'
 * (file a.npy): expected float [?,4], got double [3,5]".  Returns 0 or
 * an exit status (reported). */
int tfs_cli_feed_conform(tfs_cli_feed *f, tfs_tensor **t);
/* Non-zero when the feed's file is a .npz. */
int tfs_cli_feed_is_npz(const tfs_cli_feed *f);

/* Resolves --target names to operations.  Returns 0 or -1 (reported). */
int tfs_cli_resolve_targets(tfs_graph *g, const tfs_cli_list *names,
                            tfs_operation **out);

/* The output file name of a fetch: "<name>_<index>.npy" with '/' turned
 * into "__", under `dir`.  malloc'd (caller frees); NULL on OOM. */
char *tfs_cli_fetch_path(const char *dir, const char *fetch_name);

/* Non-zero when `path` names a text GraphDef (ends in .pbtxt). */
int tfs_cli_is_pbtxt(const char *path);

/* Creates a directory and its parents.  Returns 0 or -1 (reported). */
int tfs_cli_mkdirs(const char *dir);

/* Running statistics of a fetched tensor for the one-line summary. */
typedef struct tfs_cli_stats {
  tfs_dtype dtype;
  int ndims;
  int64_t dims[TFS_MAX_RANK];
  int64_t count;
  double min, max, sum;
  int numeric;
} tfs_cli_stats;

/* Starts statistics with `t` (or adds its rows, appending along the first
 * dimension, when `append` is non-zero). */
void tfs_cli_stats_add(tfs_cli_stats *s, const tfs_tensor *t, int append);
/* "NAME: float [2,3] min -1 mean 0.5 max 2" (+ " -> PATH" when path). */
void tfs_cli_stats_print(FILE *out, const char *name, const char *path,
                         const tfs_cli_stats *s);

/* ---- output files (cli_output.c) ----------------------------------------- */

/* Removes the registered temporaries on SIGINT, SIGTERM and SIGHUP.
 * Called by the thread that then makes and commits the temporaries (a
 * signal another thread receives is passed on to it). */
void tfs_cli_output_handlers(void);
/* 0 when `path` may be written: it does not exist, or `force`; else -1
 * after "PATH: already exists (use --force to overwrite)". */
int tfs_cli_output_check(const char *path, int force);
/* Creates DIR/.NAME.tmpXXXXXX next to `path` and registers it for
 * removal on a signal.  malloc'd name, or NULL (reported). */
char *tfs_cli_output_temp(const char *path);
/* Renames the temporary onto `path` and frees it.  Returns 0 or -1
 * (reported; the temporary is removed). */
int tfs_cli_output_commit(char *tmp, const char *path);
/* Removes and frees a temporary (NULL: nothing). */
void tfs_cli_output_discard(char *tmp);
/* Writes `len` bytes to `path` through a temporary (created, written,
 * renamed): a failed write leaves `path` as it was.  An existing file is
 * replaced (optimize -o and --save-config name one file explicitly).
 * Returns 0 or -1 (reported). */
int tfs_cli_write_file(const char *path, const void *data, size_t len);

/* ---- progress line (progress.c) ------------------------------------------ */

typedef struct tfs_cli_progress {
  int mode;            /* --progress 1, --no-progress 0, else -1: a tty */
  int enabled;
  const char *unit;    /* "rows", "runs" */
  int64_t total, done; /* done: updated atomically */
  int64_t start_ns, last_ns, interval_ns;
  int drawing, drawn, open, width;
  char note[48];       /* drawn after the line until its end, or "" */
} tfs_cli_progress;

#define TFS_CLI_PROGRESS_INIT {-1, 0, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* --progress / --no-progress, applied to a tfs_cli_progress. */
extern const tfs_cli_opt tfs_cli_progress_opts[];
/* Starts counting `total` units. */
void tfs_cli_progress_start(tfs_cli_progress *p, const char *unit,
                            int64_t total);
/* Adds n done units (thread-safe); redraws when the interval passed. */
void tfs_cli_progress_add(tfs_cli_progress *p, int64_t n);
/* Sets the done units and the note after the line (an MPI job's slowest
 * rank); redraws when the interval passed.  One thread only. */
void tfs_cli_progress_set(tfs_cli_progress *p, int64_t done,
                          const char *note);
/* Ends the line: the final totals with a newline when `ok` and anything
 * was drawn (or --progress), else only a newline where a line is open. */
void tfs_cli_progress_finish(tfs_cli_progress *p, int ok);
/* Ends an open progress line so that a message starts on its own line
 * (tfs_cli_error calls it). */
void tfs_cli_progress_break(void);

/* ---- MPI jobs (cli_mpi.c) ----------------------------------------------- */

/* `run --batch` under mpirun with more than one rank: each rank runs a
 * contiguous block of the rows; rank 0 gathers the fetches (GATHER) or
 * each rank writes its own files (PER_RANK).  Every function accepts
 * NULL (no MPI job) and then acts as a single process. */
typedef struct tfs_cli_mpi tfs_cli_mpi;
enum { TFS_CLI_MPI_GATHER = 0, TFS_CLI_MPI_PER_RANK = 1 };

/* --mpi-output gather|per-rank, applied to an int (the mode). */
extern const tfs_cli_opt tfs_cli_mpi_opts[];
/* Joins the MPI job when mpirun started this process with more than one
 * rank (*out NULL otherwise); `batch` is --batch's rows, on whose
 * boundaries the blocks are cut; 0 is refused (every rank would run the
 * same inputs: a usage error printed by rank 0).  Sets the "rank R: "
 * error prefix.  Returns an exit status. */
int tfs_cli_mpi_start(int64_t batch, int mode, tfs_cli_mpi **out);
/* This rank (0 without a job). */
int tfs_cli_mpi_rank(const tfs_cli_mpi *m);
/* Non-zero with --mpi-output=per-rank in a job. */
int tfs_cli_mpi_per_rank(const tfs_cli_mpi *m);
/* The output file of this rank for `path` (per-rank: "X.npy" becomes
 * "X.rank-R.npy"; with `all`, this rank's "X.rank-R.npy" becomes
 * "X.rank-*.npy" for messages), malloc'd; NULL on OOM. */
char *tfs_cli_mpi_rank_path(const tfs_cli_mpi *m, const char *path, int all);
/* The rows [*lo, *hi) this rank runs out of `rows`: whole batches, so
 * each batch holds the rows it holds in one process (empty past the
 * last batch). */
void tfs_cli_mpi_block(tfs_cli_mpi *m, int64_t rows, int64_t *lo,
                       int64_t *hi);
/* After a batch: `done` rows of this rank's block ran, `n` of them in
 * this batch.  Rank 0 draws the job's progress (the slowest rank), the
 * others send their count.  Returns an exit status: failed (reported)
 * when another rank failed. */
int tfs_cli_mpi_progress(tfs_cli_mpi *m, int64_t done, int64_t n,
                         tfs_cli_progress *p);
/* After this rank's block, `rc` its status so far.  Rank 0 merges every
 * rank's statistics into stats[] and, for gather, appends their rows to
 * writers[] (still open) in rank order; the others send theirs (gather:
 * from the finished temporaries tmps[]) and wait for rank 0's verdict.
 * A failure here or elsewhere is told to every rank.  Returns an exit
 * status. */
int tfs_cli_mpi_gather(tfs_cli_mpi *m, int rc, int nfetch,
                       const char *const *names, tfs_cli_stats *stats,
                       tfs_npy_writer **writers, char **tmps,
                       tfs_cli_progress *p);
/* Leaves the job (tells the others when `rc` is a failure) and frees
 * `m`.  Returns rc, or failed when another rank failed. */
int tfs_cli_mpi_end(tfs_cli_mpi *m, int rc);
/* One GPU per local rank, as Horovod's visible_device_list =
 * str(local_rank): in a job with more than one rank on this host, sets
 * o's gpu_options as tfs_cli_gpu_pin_apply decides from this rank's local
 * rank and size and the GPUs the process sees.  Prints nothing.  Returns
 * 0, or -1 after reporting an error (out of memory). */
int tfs_cli_mpi_pin_gpu(const tfs_cli_mpi *m, tfs_session_options *o);

/* ---- one GPU per local rank (cli_gpu_pin.c) ------------------------------ */

/* What a rank sets in its gpu_options. */
typedef struct tfs_cli_gpu_pin {
  char list[12];    /* visible_device_list, or "" to leave it as it is */
  int allow_growth; /* set allow_growth: the rank shares its GPU */
} tfs_cli_gpu_pin;

/* The decision, a pure function.  Rank `local_rank` of the `local_size`
 * ranks on this host, `ngpus` GPUs visible to the process, `user_list`:
 * the user set visible_device_list, `user_memory`: the user decided the
 * GPU memory (per_process_gpu_memory_fraction, allow_growth or
 * TF_FORCE_GPU_ALLOW_GROWTH).  With local_size > 1, ngpus > 0, no list
 * of the user's and local_rank in [0, local_size): list is local_rank %
 * ngpus, and allow_growth is set when another local rank lands on the
 * same GPU (the same rank % ngpus) and the user left the memory alone.
 * Otherwise *out is empty (list "", allow_growth 0). */
void tfs_cli_gpu_pin_decide(int local_rank, int local_size, int ngpus,
                            int user_list, int user_memory,
                            tfs_cli_gpu_pin *out);

/* Applies the decision to `o`: what the user set is read from `o` (and
 * TF_FORCE_GPU_ALLOW_GROWTH from the environment), the rest comes from
 * the arguments; *out receives the decision.  Errors (RESOURCE_EXHAUSTED)
 * leave `o` unchanged.  Returns 0 or -1 with st set. */
int tfs_cli_gpu_pin_apply(tfs_session_options *o, int local_rank,
                          int local_size, int ngpus, tfs_cli_gpu_pin *out,
                          tfs_status *st);

/* ---- traced runs and profiles (cli_trace.c) ------------------------------ */

/* tfs_session_run_ex with RunOptions.trace_level FULL_TRACE; `md` (an
 * empty buffer) receives the RunMetadata bytes. */
void tfs_cli_run_traced(tfs_session *s, const tfs_output *feeds,
                        tfs_tensor *const *in, int nfeeds,
                        const tfs_output *fetches, tfs_tensor **out,
                        int nfetches, tfs_operation *const *targets,
                        int ntargets, tfs_buffer *md, tfs_status *st);
/* tfs_session_run traced, its step written to `path` as Chrome trace
 * JSON (`g` names the op types); a write error is set on `st` as
 * "--trace PATH: ...". */
void tfs_cli_run_and_trace(tfs_session *s, tfs_graph *g, const char *path,
                           const tfs_output *feeds, tfs_tensor *const *in,
                           int nfeeds, const tfs_output *fetches,
                           tfs_tensor **out, int nfetches,
                           tfs_operation *const *targets, int ntargets,
                           tfs_status *st);

/* tfs_saved_model_run traced, written to `path` the same way. */
void tfs_cli_saved_model_run_and_trace(tfs_saved_model *m, const char *key,
                                       const char *path,
                                       const char *const *input_keys,
                                       tfs_tensor *const *in, int ninputs,
                                       const char *const *output_keys,
                                       tfs_tensor **out, int noutputs,
                                       tfs_status *st);

/* Per-op-type times over traced runs (bench --profile). */
typedef struct tfs_cli_profile tfs_cli_profile;
/* NULL when memory runs out. */
tfs_cli_profile *tfs_cli_profile_new(void);
void tfs_cli_profile_free(tfs_cli_profile *p);
/* Adds one traced run's RunMetadata; op types come from `g`.  Returns 0
 * or -1 (reported). */
int tfs_cli_profile_add(tfs_cli_profile *p, const tfs_buffer *md,
                        tfs_graph *g);
/* The table, sorted by total time: op type, nodes of that type, node
 * executions per run, total and mean (per execution) microseconds per
 * run, share of all node time. */
void tfs_cli_profile_print(FILE *out, tfs_cli_profile *p);

/* ---- random inputs (bench_inputs.c) -------------------------------------- */

/* bench's inputs without files: every Placeholder of `g` that no port
 * in (*ports)[0..*n) feeds gets a random tensor of its dtype (floats uniform
 * in [-1,1), integers in [0,10), bools), shaped by its --input-shape
 * NAME=D0,D1,... in `shapes` or else by its fully defined shape.  The
 * ports and tensors are appended to *ports / *values (grown with
 * realloc), *n counts them.  Returns 0 or an exit status (reported: a
 * message naming the input). */
int tfs_cli_random_inputs(tfs_graph *g, const tfs_cli_list *shapes,
                          tfs_output **ports, tfs_tensor ***values, int *n);

/* ---- SavedModel directories (cli_saved_model.c) -------------------------- */

/* Non-zero when `path` is a directory: taken as a SavedModel (the loader
 * then wants saved_model.pb in it, and says so), where a GraphDef is a
 * file. */
int tfs_cli_is_saved_model(const char *path);

/* A --tags list: "serve,extra" split on ',' with blanks and empty items
 * dropped (as saved_model_cli reads --tag_set). */
typedef struct tfs_cli_tags {
  int n;
  char **v;
} tfs_cli_tags;
/* Parses `list` (NULL: "serve").  Returns 0, or an exit status after
 * reporting (an empty list is a usage error). */
int tfs_cli_tags_parse(const char *list, tfs_cli_tags *t);
void tfs_cli_tags_free(tfs_cli_tags *t);

/* Loads the SavedModel in `dir` for the --tags list `tags` (NULL: serve)
 * with the session flags.  Returns the model (caller frees) or NULL
 * after reporting the loader's error. */
tfs_saved_model *tfs_cli_load_saved_model(const char *dir, const char *tags,
                                          const tfs_cli_session *sess);

/* The output file of a signature output: "<key>.npy" with '/' turned
 * into "__", under `dir` (saved_model_cli run's naming).  malloc'd; NULL
 * on OOM. */
char *tfs_cli_key_path(const char *dir, const char *key);

/* The nodes of `gd` and of the library functions it can call (directly,
 * through function-valued attrs, or through other functions) whose op
 * this build cannot run, one line per (op, reason) naming the nodes ("fn/node" in a
 * function), printed to `out` after "TITLECannot run (N nodes):"; with
 * title NULL, "Every op can run in this build." when there is none.
 * Returns 1 when there is any, else 0 (also on OOM). */
struct Tensorflow__GraphDef;
int tfs_cli_print_unrunnable(FILE *out, const struct Tensorflow__GraphDef *gd,
                             const char *title);

/* `inspect DIR` (inspect_saved_model.c): what saved_model_cli show
 * prints.  tag_sets: the tag-set listing (show --dir); tags (NULL: all
 * MetaGraphs, as show --all) with signature NULL: the signature keys
 * (show --tag_set); with a signature: its inputs and outputs
 * (--signature_def).  Then, on standard error, the ops that cannot run
 * in each MetaGraph shown (exit status 1 when there is any; not with
 * tag_sets).  Returns an exit status. */
int tfs_cli_inspect_saved_model(const char *dir, int tag_sets,
                                const char *tags, const char *signature);

/* The "Concrete Functions:" section of `inspect DIR` for a SavedModel
 * whose MetaGraph carries an object graph (inspect_functions.c): what
 * saved_model_cli show --all prints after loading the model in Python.
 * Returns an exit status. */
struct Tensorflow__SavedModel;
int tfs_cli_print_concrete_functions(const struct Tensorflow__SavedModel *sm);

#endif /* TFS_TOOLS_CLI_H */

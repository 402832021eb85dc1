"""bench/harness.py - runs every workload in tfsess and its peers,
interleaved (round r: workload w in tfsess, then TensorFlow, then ONNX
Runtime, ..., each in a fresh process), and prints tables of medians.

The basic rows (--models basic, the default: MLP, CNN, 1-node graph,
chain, loops, eager) run tfsess, TensorFlow and ONNX Runtime; their table
has the throughput ratios tfsess/TF and tfsess/ORT (> 1: tfsess is
faster) and each process's peak RSS, followed by GEMM 1024^3 of tfsess
against OpenBLAS's kernels.  The real-architecture rows (--models arch:
keras.applications CNNs, a BERT-style encoder, an LSTM; arch_models.py)
also run OpenVINO (its default precision, and f32) and LiteRT; every
engine's output is checked against TensorFlow's (max abs difference over
the output's max abs value <= 1e-3, else the cell says "mismatch"), and
the table has "tfsess / best peer" (the best peer's time over tfsess's:
> 1, tfsess is faster) and the best peer's name.  --models more runs a
second set the same way (MobileNetV3Small, EfficientNetV2B0, ResNet50V2,
Xception, NASNetMobile, ConvNeXtTiny, a Keras ViT with
MultiHeadAttention).  The SavedModel rows
(--models savedmodel; saved_models.py builds a Keras 3 export and a TF1
SavedModelBuilder export of a 25.2M-parameter MLP, 100 MB of float32
weights) time loading: each round starts, per SavedModel, one fresh
process per loader (tfsess's tfs_saved_model_load in bench/sm_bench,
TensorFlow's tf.compat.v1.saved_model.loader.load into a Session and
tf.saved_model.load in bench/tf_sm_bench.py; the order rotates every
round) after the files were read once into the page cache; the table has
the medians of the load's wall time (inside the process: TensorFlow's
`import` is reported on its own line), the first signature call, their
sum, a later call, the process's peak RSS and that peak over the RSS
before the load (after `import tensorflow` for TensorFlow), and each
output against TensorFlow's (docs/PERFORMANCE.md, "SavedModel loading",
has the latest table).  --models all runs every group.
Started by bench/run; only the standard library is needed here (the
engines run under --python).

  python3 bench/harness.py --build BUILD --python PY [--out DIR]
      [--models basic|arch|more|savedmodel|all] [--rounds 3]
      [--seconds 1.5]
      [--only SUBSTRING] [--batch 1,8] [--intra 1,2] [--markdown FILE]
      [--engines tfsess,tensorflow,onnxruntime,openvino,openvino-f32,litert]
      [--base-build BASE] [--json FILE] [--timeout S]

--batch and --intra keep the real-architecture rows of those batch sizes
and thread counts.

--base-build BASE also times a second tfsess build (another commit) as
the engine "tfsess-base", in the same rounds right next to tfsess (the
two swap places every round), and adds a table of the two side by side
with the spread of the per-round medians.  --json writes every cell's
per-round medians.
"""
import argparse
import array
import ast
import json
import math
import os
import platform
import signal
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from workloads import (ARCH_MORE_WORKLOADS, ARCH_WORKLOADS,  # noqa: E402
                       SM_WORKLOADS, WORKLOADS)

ENGINES = ("tfsess", "tensorflow", "onnxruntime")   # the basic rows
ARCH_ENGINES = ENGINES + ("openvino", "openvino-f32", "litert")
BASE = "tfsess-base"
LABELS = {"tfsess": "tfsess", "tensorflow": "TensorFlow",
          "onnxruntime": "ONNX Runtime", "openvino": "OpenVINO",
          "openvino-f32": "OpenVINO f32", "litert": "LiteRT",
          BASE: "tfsess-base"}
SCRIPTS = {"tensorflow": "tf_bench.py", "onnxruntime": "ort_bench.py",
           "openvino": "ov_bench.py", "openvino-f32": "ov_bench.py",
           "litert": "litert_bench.py"}
# the model file each engine loads (meta key); OpenVINO reads the ONNX
# model and falls back to the GraphDef
NEEDS = {"tfsess": "pb", BASE: "pb", "tensorflow": "pb",
         "onnxruntime": "onnx", "openvino": "pb", "openvino-f32": "pb",
         "litert": "tflite"}
MAX_REL_DIFF = 1e-3


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_json(cmd, env=None, timeout=900):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s" % timeout
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        err = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        err = err[-1].strip()[:300] if err else ""
        if p.returncode < 0:
            try:
                sig = signal.Signals(-p.returncode).name
            except ValueError:
                sig = str(-p.returncode)
            err = "killed by %s%s" % (sig, ": " + err if err else "")
        return None, err or "exit %d" % p.returncode
    return json.loads(lines[-1]), None


def thread_config(args, n):
    """A ConfigProto with intra_op_parallelism_threads (field 2) and
    inter_op_parallelism_threads (field 5) set to n, written by hand (the
    harness needs no protobuf package): tfsess's options for n threads."""
    path = os.path.join(args.out, "threads_%d.config.pb" % n)
    if not os.path.exists(path):
        def varint(v):
            out = bytearray()
            while True:
                out.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
                v >>= 7
                if not v:
                    return bytes(out)
        with open(path, "wb") as f:
            f.write(b"\x10" + varint(n) + b"\x28" + varint(n))
    return path


def output_path(args, w, engine):
    return os.path.join(args.out, "outputs", "%s.%s.t%d.npy" % (
        w["model"], engine, w.get("intra", 0)))


def engine_cmd(engine, args, meta, w):
    threads, mode = w.get("threads", 1), w.get("mode", "callable")
    build = args.base_build if engine == BASE else args.build
    if "eager" in w:
        if engine == "onnxruntime":
            return None
        if engine in ("tfsess", BASE):
            cmd = [os.path.join(build, "bench", "eager_bench")]
        else:
            cmd = [args.python, os.path.join(HERE, "tf_eager_bench.py")]
        return cmd + ["--work", w["eager"], "--seconds", str(args.seconds)]
    if engine in ("tfsess", BASE):
        cmd = [os.path.join(build, "bench", "tfs_bench"), "--pb",
               meta["pb"], "--fetch", meta["tf_fetch"], "--mode", mode]
        if meta.get("target"):
            cmd += ["--target", meta["target"], "--init", meta["init"]]
        if meta.get("config"):
            cmd += ["--config", meta["config"]]
        elif w.get("intra"):
            cmd += ["--config", thread_config(args, w["intra"])]
        for name, f in zip(meta["tf_feeds"], meta["inputs"]):
            cmd += ["--feed", "%s=%s" % (name, f)]
    else:
        cmd = [args.python, os.path.join(HERE, SCRIPTS[engine]), "--meta",
               os.path.join(args.out, w["model"] + ".json"), "--mode", mode]
        if w.get("intra"):
            cmd += ["--intra", str(w["intra"])]
        if engine == "openvino-f32":
            cmd += ["--precision", "f32"]
    if meta.get("ref") and engine != BASE:   # (an older build lacks it)
        cmd += ["--save-output", output_path(args, w, engine)]
    return cmd + ["--threads", str(threads), "--seconds", str(args.seconds)]


# ---- output check (real-architecture rows) ---------------------------------

NPY_CODES = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q"}


def read_npy(path):
    """(shape, values) of a little-endian, C-order .npy file of float32/64
    or int32/64, with the standard library only."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    code = NPY_CODES.get(header["descr"])
    if code is None or header["fortran_order"]:
        raise ValueError("%s: unsupported .npy (%s)" % (path, header))
    vals = array.array(code)
    vals.frombytes(data[start + hlen:])
    if sys.byteorder != "little":
        vals.byteswap()
    return tuple(header["shape"]), vals


def rel_diff(out_path, ref_path):
    """(max |out - ref| / max |ref|, None), or (inf, why) for a NaN or an
    output of another size."""
    shape, out = read_npy(out_path)
    rshape, ref = read_npy(ref_path)
    if len(out) != len(ref):
        return math.inf, "shape %s, TensorFlow's %s" % (shape, rshape)
    scale = max((abs(r) for r in ref), default=0.0) or 1.0
    worst = 0.0
    for a, b in zip(out, ref):
        d = abs(a - b)
        if d != d:
            return math.inf, "NaN in the output"
        worst = max(worst, d)
    return worst / scale, None


def fmt_diff(d):
    return "inf" if math.isinf(d) else "%.1e" % d


def generate(args, workloads):
    """Builds the models the rows need and that the out dir lacks: basic
    ones with models.py, real architectures with arch_models.py (its
    TensorFlow log goes to OUT/arch_models.log).  A model that fails to
    build gets a .json with the error, which its rows report."""
    def missing(group):
        return sorted({w["model"] for w in workloads
                       if "model" in w and w["group"] == group and not
                       os.path.exists(os.path.join(args.out,
                                                   w["model"] + ".json"))})
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    basic, arch = missing("basic"), missing("arch")
    sms = sorted({w["sm"] for w in workloads if "sm" in w and not
                  os.path.exists(os.path.join(args.out, w["sm"] + ".json"))})
    if sms:
        log("generating SavedModels with TensorFlow (log in %s): %s" % (
            os.path.join(args.out, "saved_models.log"), ", ".join(sms)))
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "saved_models.log"), "a") as lf:
            subprocess.run([args.python, os.path.join(HERE,
                                                      "saved_models.py"),
                            args.out] + sms, env=env, stdout=lf,
                           stderr=subprocess.STDOUT)
    if basic:
        log("generating models with TensorFlow: " + ", ".join(basic))
        subprocess.run([args.python, os.path.join(HERE, "models.py"),
                        args.out] + basic, check=True, env=env)
    if arch:
        log("generating real-architecture models (Keras, tf2onnx, TFLite "
            "converter; log in %s): %s" % (
                os.path.join(args.out, "arch_models.log"), ", ".join(arch)))
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "arch_models.log"), "a") as lf:
            p = subprocess.Popen([args.python,
                                  os.path.join(HERE, "arch_models.py"),
                                  args.out] + arch, env=env, text=True,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT)
            for line in p.stdout:
                lf.write(line)
                if line.startswith("arch_models:"):
                    log("  " + line.rstrip()[len("arch_models: "):])
            p.wait()


def load_meta(args, w):
    if "model" not in w:
        return None
    path = os.path.join(args.out, w["model"] + ".json")
    if not os.path.exists(path):
        return dict(errors=dict(pb="model not generated (see %s)" %
                                os.path.join(args.out, "arch_models.log")))
    return json.load(open(path))


def missing_model(engine, meta):
    """Why engine cannot run this real-architecture model, or None."""
    key = NEEDS.get(engine, "pb")
    if key in meta:
        return None
    errs = meta.get("errors", {})
    return errs.get(key) or errs.get("pb") or "no %s model" % key


def engines_of(w):
    return ARCH_ENGINES if w["group"] == "arch" else ENGINES


def round_order(args, r, w):
    """The engines of row w in round r: tfsess and tfsess-base swap every
    round."""
    order = [e for e in engines_of(w) if e in args.engines]
    if args.base_build:
        at = order.index("tfsess") + 1 if "tfsess" in order else 0
        order.insert(at, BASE)
        if r % 2 and "tfsess" in order:
            i, j = order.index("tfsess"), order.index(BASE)
            order[i], order[j] = order[j], order[i]
    return order


def check_output(args, w, e, meta, cell):
    """Compares the engine's saved output with TensorFlow's (once per
    cell); a mismatch stops the cell's later rounds."""
    try:
        d, note = rel_diff(output_path(args, w, e), meta["ref"])
    except (OSError, ValueError) as ex:
        d, note = math.inf, str(ex)[:200]
    cell["rel_diff"] = d
    if not d <= MAX_REL_DIFF:
        cell["mismatch"] = "mismatch (%s%s)" % (
            fmt_diff(d), ", " + note if note else "")
        log("  %s / %s: output %s" % (w["name"], e, cell["mismatch"]))


def measure_all(args, workloads):
    res = {(w["name"], e): dict(us=[], rounds=[], rss=0, checksum=None,
                                error=None, rel_diff=None, mismatch=None)
           for w in workloads for e in ARCH_ENGINES + (BASE,)}
    if any(w["group"] == "arch" for w in workloads):
        os.makedirs(os.path.join(args.out, "outputs"), exist_ok=True)
    for r in range(args.rounds):
        for w in workloads:
            meta = load_meta(args, w)
            for e in round_order(args, r, w):
                cell = res[(w["name"], e)]
                if cell["error"] or cell["mismatch"]:
                    continue
                if e in w.get("skip", ()):
                    cell["error"] = w["skip"][e]
                    continue
                if w["group"] == "arch":
                    cell["error"] = missing_model(e, meta)
                    if cell["error"]:
                        log("  %s / %s: %s" % (w["name"], e, cell["error"]))
                        continue
                cmd = engine_cmd(e, args, meta, w)
                if cmd is None:
                    cell["error"] = "no eager mode"
                    continue
                out, err = run_json(cmd, timeout=args.timeout)
                if err:
                    cell["error"] = err
                    log("  %s / %s: %s" % (w["name"], e, err))
                    continue
                per = w.get("per", 1)
                cell["us"] += [u / per for u in out["us"]]
                cell["rounds"].append(statistics.median(out["us"]) / per)
                cell["rss"] = max(cell["rss"], out["rss_kb"])
                cell["checksum"] = out["checksum"]
                cell["version"] = out.get("version")
                log("round %d  %-48s %-12s %10.3f us" %
                    (r + 1, w["name"], e, statistics.median(out["us"]) / per))
                if (meta and meta.get("ref") and e != BASE and
                        cell["rel_diff"] is None):
                    check_output(args, w, e, meta, cell)
    return res


def fmt_us(us):
    if us >= 1000:
        return "%.2f ms" % (us / 1000)
    return "%.3g us" % us if us < 10 else "%.1f us" % us


def table(res, workloads):
    rows = ["| workload | tfsess | TensorFlow | ONNX Runtime | tfsess/TF | "
            "tfsess/ORT | peak RSS MB (tfsess / TF / ORT) | outputs |",
            "|---|---|---|---|---|---|---|---|"]
    for w in workloads:
        cells, med = [], {}
        for e in ENGINES:
            c = res[(w["name"], e)]
            if c["us"]:
                med[e] = statistics.median(c["us"])
                cells.append(fmt_us(med[e]))
            else:
                cells.append("n/a (%s)" % (c["error"] or "not run"))
        ratios = []
        for e in ENGINES[1:]:
            ratios.append("%.2fx" % (med[e] / med["tfsess"])
                          if e in med and "tfsess" in med else "-")
        rss = " / ".join("%.0f" % (res[(w["name"], e)]["rss"] / 1024.0)
                         if res[(w["name"], e)]["rss"] else "-"
                         for e in ENGINES)
        sums = [res[(w["name"], e)]["checksum"] for e in ENGINES
                if res[(w["name"], e)]["checksum"] is not None]
        agree = "-"
        if len(sums) > 1:
            ref = sums[0]
            agree = "agree" if all(abs(s - ref) <= 1e-3 * max(1, abs(ref))
                                   for s in sums) else "DIFFER"
        rows.append("| %s | %s | %s | %s | %s |" % (
            w["name"], " | ".join(cells), " | ".join(ratios), rss, agree))
    rows += overhead_rows(res, workloads)
    return "\n".join(rows)


def overhead_rows(res, workloads):
    """The fixed cost of a traced function call: the median of fn10 minus
    the median of the same graph run through a callable, per engine."""
    names = {w.get("eager"): w["name"] for w in workloads if "eager" in w}
    if "fn10" not in names or "fn10_graph" not in names:
        return []
    cells = []
    for e in ENGINES:
        fn, gr = res[(names["fn10"], e)]["us"], res[(names["fn10_graph"], e)]["us"]
        cells.append(fmt_us(statistics.median(fn) - statistics.median(gr))
                     if fn and gr else "-")
    return ["| function call overhead (10-op function minus its graph) | %s "
            "| - | - | - | - |" % " | ".join(cells)]


def arch_table(res, workloads, args):
    """The real-architecture rows: each engine's median, "mismatch (d)"
    when its output is off TensorFlow's by more than MAX_REL_DIFF, or
    "n/a [eN]" with the error in a list below; then the best peer's time
    over tfsess's, the best peer, and the largest output difference among
    the engines that agree."""
    engines = [e for e in ARCH_ENGINES if e in args.engines]
    peers = [e for e in engines if e != "tfsess"]
    rows = ["| model | %s | tfsess / best peer | best peer | outputs |" %
            " | ".join(LABELS[e] for e in engines),
            "|---|%s---|---|---|" % ("---|" * len(engines))]
    errors = {}                 # error text -> (id, [(engine, row)])
    for w in workloads:
        cells, med, diffs = [], {}, []
        for e in engines:
            c = res[(w["name"], e)]
            if c["mismatch"]:
                cells.append(c["mismatch"])
            elif c["us"]:
                med[e] = statistics.median(c["us"])
                cells.append(fmt_us(med[e]))
                if c["rel_diff"] is not None:
                    diffs.append(c["rel_diff"])
            else:
                err = c["error"] or "not run"
                ent = errors.setdefault(err, ("e%d" % (len(errors) + 1), []))
                ent[1].append((e, w["name"]))
                cells.append("n/a [%s]" % ent[0])
        best = min((e for e in peers if e in med), key=med.get, default=None)
        ratio = ("%.2fx" % (med[best] / med["tfsess"])
                 if best and "tfsess" in med else "-")
        agree = ("agree (<= %s)" % fmt_diff(max(diffs))) if diffs else "-"
        rows.append("| %s | %s | %s | %s | %s |" % (
            w["name"], " | ".join(cells), ratio,
            LABELS[best] if best else "-", agree))
    if errors:
        rows.append("")
        for err, (eid, where) in errors.items():
            engines_ = sorted({e for e, _ in where}, key=ARCH_ENGINES.index)
            rows.append("- %s (%s; %d row%s): %s" % (
                eid, ", ".join(LABELS[e] for e in engines_), len(where),
                "s" * (len(where) > 1), err.replace("|", "\\|")))
    return "\n".join(rows)


def base_table(res, workloads, args):
    """tfsess against tfsess-base: medians of all samples, the ratio, and
    the range of the per-round medians."""
    rows = ["| workload | tfsess (%s) | tfsess-base (%s) | base/tfsess | "
            "per-round medians, tfsess | per-round medians, base |" % (
                args.build_label, args.base_label),
            "|---|---|---|---|---|---|"]

    def spread(c):
        if not c["rounds"]:
            return "-"
        return "%s - %s" % (fmt_us(min(c["rounds"])), fmt_us(max(c["rounds"])))

    def na(c):
        err = c["error"] or "not run"
        return "n/a (%s)" % (err if len(err) <= 60 else err[:57] + "...")

    for w in workloads:
        a, b = res[(w["name"], "tfsess")], res[(w["name"], BASE)]
        ma = statistics.median(a["us"]) if a["us"] else None
        mb = statistics.median(b["us"]) if b["us"] else None
        rows.append("| %s | %s | %s | %s | %s | %s |" % (
            w["name"], fmt_us(ma) if ma else na(a),
            fmt_us(mb) if mb else na(b),
            "%.3fx" % (mb / ma) if ma and mb else "-", spread(a), spread(b)))
    return "\n".join(rows)


# ---- SavedModel load rows (--models savedmodel) ----------------------------

SM_ENGINES = ("tfsess", "tf1-loader", "tf2-loader")
SM_LABELS = {"tfsess": "tfsess (tfs_saved_model_load)",
             "tf1-loader": "TF1 loader (tf.compat.v1.saved_model.loader."
                           "load in a Session)",
             "tf2-loader": "TF2 loader (tf.saved_model.load)"}
SM_FIELDS = ("load_us", "first_call_us", "call_us", "import_us",
             "rss_kb", "rss_kb_base", "rss_kb_loaded")


def sm_engines(args):
    """tfsess's loader when tfsess is selected, TensorFlow's two loaders
    when tensorflow is."""
    return [e for e in SM_ENGINES
            if ("tfsess" if e == "tfsess" else "tensorflow") in args.engines]


def sm_cmd(engine, args, meta, w):
    out = os.path.join(args.out, "outputs", "%s.%s.npy" % (w["sm"], engine))
    if engine == "tfsess":
        cmd = [os.path.join(args.build, "bench", "sm_bench"), "--dir",
               meta["dir"], "--signature", meta["signature"], "--input",
               "%s=%s" % (meta["input_key"], meta["input"]), "--output",
               meta["output_key"]]
        for t in meta["tags"]:
            cmd += ["--tag", t]
    else:
        cmd = [args.python, os.path.join(HERE, "tf_sm_bench.py"), "--meta",
               os.path.join(args.out, w["sm"] + ".json"), "--loader",
               engine[:3]]
    return cmd + ["--save-output", out], out


def warm_page_cache(meta):
    """Reads every file of the SavedModel once, so that every engine's
    loads read it from the page cache alike."""
    for d, _, files in os.walk(meta["dir"]):
        for f in files:
            with open(os.path.join(d, f), "rb") as fh:
                while fh.read(1 << 24):
                    pass


def measure_sm(args, workloads):
    """Round r: every SavedModel row, each loader in a fresh process (the
    loaders' order rotates by one every round)."""
    engines = sm_engines(args)
    res = {(w["name"], e): dict({k: [] for k in SM_FIELDS}, error=None,
                                rel_diff=None, version=None)
           for w in workloads for e in engines}
    os.makedirs(os.path.join(args.out, "outputs"), exist_ok=True)
    metas = {w["name"]: load_sm_meta(args, w) for w in workloads}
    for w in workloads:
        if "dir" in metas[w["name"]]:
            warm_page_cache(metas[w["name"]])
    for r in range(args.rounds):
        order = engines[r % len(engines):] + engines[:r % len(engines)]
        for w in workloads:
            meta = metas[w["name"]]
            for e in order:
                cell = res[(w["name"], e)]
                if cell["error"]:
                    continue
                if "dir" not in meta:
                    cell["error"] = meta.get("error", "no SavedModel")
                    continue
                cmd, out_path = sm_cmd(e, args, meta, w)
                out, err = run_json(cmd, timeout=args.timeout)
                if err:
                    cell["error"] = err
                    log("  %s / %s: %s" % (w["name"], e, err))
                    continue
                for k in SM_FIELDS:
                    if k in out:
                        cell[k].append(out[k])
                cell["version"] = out.get("version")
                if cell["rel_diff"] is None:
                    try:
                        cell["rel_diff"], _ = rel_diff(out_path, meta["ref"])
                    except (OSError, ValueError) as ex:
                        cell["error"] = "output: %s" % str(ex)[:200]
                log("round %d  %-48s %-10s load %s, first call %s, "
                    "peak RSS %.0f MB" % (
                        r + 1, w["name"], e, fmt_us(out["load_us"]),
                        fmt_us(out["first_call_us"]),
                        out["rss_kb"] / 1024.0))
    return res


def load_sm_meta(args, w):
    path = os.path.join(args.out, w["sm"] + ".json")
    if not os.path.exists(path):
        return dict(error="SavedModel not generated (see %s)" %
                    os.path.join(args.out, "saved_models.log"))
    return json.load(open(path))


def sm_table(res, workloads, args):
    """Medians over the rounds of each loader's fresh processes: load wall
    time, the first call, their sum (time to the first answer), a later
    call, peak RSS (absolute, and over the process's RSS before the load:
    after `import tensorflow` for TensorFlow), the RSS right after the
    load over that base, and the output against TensorFlow's."""
    def med(c, k):
        return statistics.median(c[k]) if c[k] else None

    rows = ["| SavedModel | loader | load | first call | load + first call "
            "| later call | peak RSS MB | peak RSS over base MB | RSS after "
            "load over base MB | output |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    imports = []
    for w in workloads:
        for e in sm_engines(args):
            c = res[(w["name"], e)]
            if not c["load_us"]:
                rows.append("| %s | %s | n/a (%s) | | | | | | | |" % (
                    w["name"], SM_LABELS[e],
                    (c["error"] or "not run").replace("|", "\\|")))
                continue
            imports += c["import_us"]
            load, first = med(c, "load_us"), med(c, "first_call_us")
            base, peak = med(c, "rss_kb_base"), med(c, "rss_kb")
            d = c["rel_diff"]
            ok = ("matches TF (%s)" % fmt_diff(d) if d is not None and
                  d <= MAX_REL_DIFF else "MISMATCH (%s)" % fmt_diff(d)
                  if d is not None else "-")
            rows.append("| %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f "
                        "| %s |" % (
                            w["name"], SM_LABELS[e], fmt_us(load),
                            fmt_us(first), fmt_us(load + first),
                            fmt_us(med(c, "call_us")), peak / 1024.0,
                            (peak - base) / 1024.0,
                            (med(c, "rss_kb_loaded") - base) / 1024.0, ok))
    if imports:
        rows.append("")
        rows.append("`import tensorflow` (not in TensorFlow's load times): "
                    "median %s over %d processes." % (
                        fmt_us(statistics.median(imports)), len(imports)))
    return "\n".join(rows)


def cpu_flags():
    try:
        for ln in open("/proc/cpuinfo"):
            if ln.startswith("flags"):
                return set(ln.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def gemm_section(args):
    """tfsess's GEMM against OpenBLAS as loaded and, unless the environment
    already chose one, each OpenBLAS kernel set this CPU can run (the
    OPENBLAS_CORETYPE override is set only in these benchmark children)."""
    exe = os.path.join(args.build, "bench", "tfs_bench")
    base, err = run_json([exe, "--gemm", "1024"])
    if err:
        return "GEMM: %s" % err
    rows = [("OpenBLAS, its own choice (%s)" % base["openblas_core"],
             base["openblas_1t"], base["openblas_nt"])]
    # every process times tfsess too: the best of them, as for OpenBLAS
    tfs = [(base["tfsess_1t"], base["tfsess_nt"])]
    if "OPENBLAS_CORETYPE" not in os.environ:
        flags = cpu_flags()
        cands = []
        if "avx2" in flags:
            cands += ["Haswell", "Zen"]
        if "avx512f" in flags:
            cands += ["SkylakeX", "Cooperlake", "SapphireRapids"]
        for c in cands:
            out, err = run_json([exe, "--gemm", "1024"],
                                env=dict(os.environ, OPENBLAS_CORETYPE=c))
            if out:
                tfs.append((out["tfsess_1t"], out["tfsess_nt"]))
            if out and out["openblas_core"].lower() == c.lower():
                rows.append(("OpenBLAS, %s kernels" % c, out["openblas_1t"],
                             out["openblas_nt"]))
    best1 = max(r[1] for r in rows)
    bestn = max(r[2] for r in rows)
    out = ["| SGEMM 1024^3, GFLOP/s | 1 thread | %d threads |" %
           base["cores"], "|---|---|---|"]
    for name, g1, gn in rows:
        out.append("| %s | %.1f | %.1f |" % (name, g1, gn))
    t1 = max(t[0] for t in tfs)
    tn = max(t[1] for t in tfs)
    out.append("| tfsess: %s | %.1f (%.0f%% of best) | %.1f (%.0f%% of best) |"
               % (base["tfsess_path"], t1, 100 * t1 / best1, tn,
                  100 * tn / bestn))
    return "\n".join(out)


def commit_of(build):
    """The source commit a build tree was configured from ("?" if not
    known), "+" when that tree has uncommitted changes."""
    try:
        mk = open(os.path.join(build, "Makefile")).read()
        src = next(ln.split("=", 1)[1].strip() for ln in mk.splitlines()
                   if ln.startswith("abs_top_srcdir"))
        rev = subprocess.run(["git", "-C", src, "rev-parse", "--short",
                              "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", src, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True)
        return rev.stdout.strip() + ("+" if dirty.stdout.strip() else "")
    except (OSError, StopIteration):
        return "?"


def machine():
    model = "unknown CPU"
    try:
        for ln in open("/proc/cpuinfo"):
            if ln.startswith("model name"):
                model = ln.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d CPUs, %s %s" % (model, os.cpu_count() or 0,
                                  platform.system(), platform.release())


def int_list(text):
    return [int(v) for v in text.split(",") if v]


def select(args):
    """The rows: the groups --models names, then --only, --batch and
    --intra."""
    rows = []
    if args.models in ("basic", "all"):
        rows += WORKLOADS
    if args.models in ("arch", "all"):
        rows += [w for w in ARCH_WORKLOADS
                 if w["batch"] in args.batch and w["intra"] in args.intra]
    if args.models in ("more", "all"):
        rows += [w for w in ARCH_MORE_WORKLOADS
                 if w["batch"] in args.batch and w["intra"] in args.intra]
    if args.models in ("savedmodel", "all"):
        rows += SM_WORKLOADS
    return [w for w in rows if args.only in w["name"]]


def versions_line(res, workloads, args, sm_res=None):
    found = {}
    for (_, e), c in res.items():
        if c.get("version") and e != BASE:
            found.setdefault(e, c["version"])
    for c in (sm_res or {}).values():   # TensorFlow's loaders
        if c.get("version"):
            found.setdefault("tensorflow", c["version"])
    names = [e for e in ARCH_ENGINES if e in found and e != "tfsess" and
             e != "openvino-f32"]
    return "Versions: %s; %d round%s, interleaved; medians of all " \
        "samples" % (", ".join("%s %s" % (LABELS[e], found[e])
                               for e in names) or "-",
                     args.rounds, "s" * (args.rounds != 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--out")
    p.add_argument("--models", default="basic",
                   choices=("basic", "arch", "more", "savedmodel",
                            "all"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--only", default="")
    p.add_argument("--batch", type=int_list, default=[1, 8])
    p.add_argument("--intra", type=int_list, default=[1, 2])
    p.add_argument("--no-gemm", action="store_true")
    p.add_argument("--markdown")
    p.add_argument("--engines", default=",".join(ARCH_ENGINES))
    p.add_argument("--base-build")
    p.add_argument("--json")
    p.add_argument("--timeout", type=int, default=900,
                   help="seconds one engine process may take")
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
    args.engines = [e for e in args.engines.split(",") if e]
    bad = [e for e in args.engines if e not in ARCH_ENGINES]
    if bad:
        p.error("unknown engine %s (one of %s)" % (
            bad[0], ", ".join(ARCH_ENGINES)))
    if args.base_build:
        args.base_build = os.path.abspath(args.base_build)
        args.build_label = commit_of(args.build)
        args.base_label = commit_of(args.base_build)
    args.out = os.path.abspath(args.out or
                               os.path.join(args.build, "bench-data"))
    workloads = select(args)
    if not workloads:
        p.error("no rows selected")
    basic = [w for w in workloads if w["group"] == "basic"]
    arch = [w for w in workloads if w["group"] == "arch"]
    sm = [w for w in workloads if w["group"] == "savedmodel"]
    generate(args, workloads)
    t0, load0 = time.time(), os.getloadavg()[0]
    res = measure_all(args, basic + arch)
    sm_res = measure_sm(args, sm) if sm else {}
    load1 = os.getloadavg()[0]
    text = ["Machine: " + machine(),
            "%s (%.0f s; load average %.1f at the start, %.1f at the "
            "end)" % (versions_line(res, workloads, args, sm_res),
                      time.time() - t0,
                      load0, load1)]
    if basic:
        text += ["", table(res, basic)]
    if arch:
        text += ["", arch_table(res, arch, args)]
    if sm:
        text += ["", sm_table(sm_res, sm, args)]
    if args.base_build:
        text += ["", base_table(res, workloads, args)]
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(workload=w, engine=e, us_per_round=c["rounds"],
                            median_us=(statistics.median(c["us"])
                                       if c["us"] else None),
                            error=c["error"], mismatch=c["mismatch"],
                            max_rel_diff=(c["rel_diff"] if c["rel_diff"]
                                          is None or
                                          math.isfinite(c["rel_diff"])
                                          else "inf"),
                            rss_kb=c["rss"] or None,
                            version=c.get("version"))
                       for (w, e), c in res.items()
                       if c["us"] or c["error"] or c["mismatch"]] +
                      [dict(workload=w, engine=e, error=c["error"],
                            max_rel_diff=c["rel_diff"],
                            **{k: c[k] for k in SM_FIELDS})
                       for (w, e), c in sm_res.items()],
                      f, indent=1)
    if basic and not args.no_gemm:
        text += ["", gemm_section(args)]
    text = "\n".join(text)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()

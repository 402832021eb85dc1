"""bench/harness.py - runs every workload in tfsess, TensorFlow and ONNX
Runtime, interleaved (round r: workload w in tfsess, then TensorFlow, then
ONNX Runtime, each in a fresh process), and prints one table of medians
with the throughput ratios tfsess/TF and tfsess/ORT (> 1: tfsess is
faster) and each process's peak RSS; then GEMM 1024^3 of tfsess against
OpenBLAS's kernels.  Started by bench/run; only the standard library is
needed here (the engines run under --python).

  python3 bench/harness.py --build BUILD --python PY [--out DIR]
      [--rounds 3] [--seconds 1.5] [--only SUBSTRING] [--markdown FILE]
      [--engines tfsess,tensorflow,onnxruntime] [--base-build BASE]
      [--json FILE]

--base-build BASE also times a second tfsess build (another commit) as
the engine "tfsess-base", in the same rounds right next to tfsess (the
two swap places every round), and adds a table of the two side by side
with the spread of the per-round medians.  --json writes every cell's
per-round medians.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from workloads import WORKLOADS  # noqa: E402

ENGINES = ("tfsess", "tensorflow", "onnxruntime")
BASE = "tfsess-base"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_json(cmd, env=None, timeout=900):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])
        return None, err[-1][:200]
    return json.loads(lines[-1]), None


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
        if meta.get("config"):
            cmd += ["--config", meta["config"]]
        for name, f in zip(meta["tf_feeds"], meta["inputs"]):
            cmd += ["--feed", "%s=%s" % (name, f)]
    else:
        script = "tf_bench.py" if engine == "tensorflow" else "ort_bench.py"
        cmd = [args.python, os.path.join(HERE, script), "--meta",
               os.path.join(args.out, w["model"] + ".json"), "--mode", mode]
    return cmd + ["--threads", str(threads), "--seconds", str(args.seconds)]


def generate(args, workloads):
    models = sorted({w["model"] for w in workloads if "model" in w})
    missing = [m for m in models
               if not os.path.exists(os.path.join(args.out, m + ".json"))]
    if missing:
        log("generating models with TensorFlow: " + ", ".join(missing))
        subprocess.run([args.python, os.path.join(HERE, "models.py"),
                        args.out] + missing, check=True,
                       env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))


def round_order(args, r):
    """The engines in round r: tfsess and tfsess-base swap every round."""
    order = [e for e in ENGINES if e in args.engines]
    if args.base_build:
        at = order.index("tfsess") + 1 if "tfsess" in order else 0
        order.insert(at, BASE)
        if r % 2 and "tfsess" in order:
            i, j = order.index("tfsess"), order.index(BASE)
            order[i], order[j] = order[j], order[i]
    return order


def measure_all(args, workloads):
    res = {(w["name"], e): dict(us=[], rounds=[], rss=0, checksum=None,
                                error=None)
           for w in workloads for e in ENGINES + (BASE,)}
    for r in range(args.rounds):
        for w in workloads:
            meta = (json.load(open(os.path.join(args.out,
                                                w["model"] + ".json")))
                    if "model" in w else None)
            for e in round_order(args, r):
                cell = res[(w["name"], e)]
                if cell["error"]:
                    continue
                if e in w.get("skip", ()):
                    cell["error"] = w["skip"][e]
                    continue
                cmd = engine_cmd(e, args, meta, w)
                if cmd is None:
                    cell["error"] = "no eager mode"
                    continue
                out, err = run_json(cmd)
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--out")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--only", default="")
    p.add_argument("--no-gemm", action="store_true")
    p.add_argument("--markdown")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--base-build")
    p.add_argument("--json")
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
    args.engines = [e for e in args.engines.split(",") if e]
    bad = [e for e in args.engines if e not in ENGINES]
    if bad:
        p.error("unknown engine %s (one of %s)" % (bad[0], ", ".join(ENGINES)))
    if args.base_build:
        args.base_build = os.path.abspath(args.base_build)
        args.build_label = commit_of(args.build)
        args.base_label = commit_of(args.base_build)
    args.out = os.path.abspath(args.out or
                               os.path.join(args.build, "bench-data"))
    workloads = [w for w in WORKLOADS if args.only in w["name"]]
    generate(args, workloads)
    t0, load0 = time.time(), os.getloadavg()[0]
    res = measure_all(args, workloads)
    load1 = os.getloadavg()[0]
    versions = {e: next((res[(w["name"], e)].get("version")
                         for w in workloads
                         if res[(w["name"], e)].get("version")), None)
                for e in ENGINES}
    text = ["Machine: " + machine(),
            "Versions: TensorFlow %s, ONNX Runtime %s; %d rounds, "
            "interleaved; medians of all samples (%.0f s; load average "
            "%.1f at the start, %.1f at the end)" % (
                versions["tensorflow"], versions["onnxruntime"],
                args.rounds, time.time() - t0, load0, load1),
            "", table(res, workloads)]
    if args.base_build:
        text += ["", base_table(res, workloads, args)]
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(workload=w, engine=e, us_per_round=c["rounds"],
                            error=c["error"])
                       for (w, e), c in res.items()], f, indent=1)
    if not args.no_gemm:
        text += ["", gemm_section(args)]
    text = "\n".join(text)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()

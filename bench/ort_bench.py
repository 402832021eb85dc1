"""bench/ort_bench.py - ONNX Runtime's side of the benchmark: an
InferenceSession on the equivalent ONNX model with default SessionOptions
(all graph optimizations, intra-op threads = cores) on the CPU provider,
timing InferenceSession.run.  ONNX Runtime has no separate callable API,
so both modes time run().  --intra N sets intra_op_num_threads to N
(and runs sequentially, the default); --save-output FILE.npy keeps the
first run's output.  Protocol: benchlib.py."""
import argparse
import json
import os
import sys

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import emit, measure  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    p.add_argument("--mode", default="callable")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--intra", type=int, default=0)
    p.add_argument("--save-output")
    a = p.parse_args()
    meta = json.load(open(a.meta))
    if "onnx" not in meta:
        sys.exit("no ONNX model: " + meta.get("errors", {}).get("onnx", "?"))
    so = ort.SessionOptions()
    if a.intra > 0:
        so.intra_op_num_threads = a.intra
    sess = ort.InferenceSession(meta["onnx"], so,
                                providers=["CPUExecutionProvider"])
    feeds = {n: np.load(f)
             for n, f in zip(meta["onnx_feeds"], meta["onnx_inputs"])}
    fetch = [meta["onnx_fetch"]]
    run_once = lambda: sess.run(fetch, feeds)  # noqa: E731
    out = run_once()[0]
    if a.save_output:
        np.save(a.save_output, out)
    checksum = float(np.sum(out, dtype=np.float64))
    samples, k = measure(run_once, a.threads, a.seconds)
    emit("onnxruntime", samples, k, checksum, version=ort.__version__)


if __name__ == "__main__":
    main()

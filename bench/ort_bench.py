"""bench/ort_bench.py - ONNX Runtime's side of the benchmark: an
InferenceSession on the equivalent ONNX model with default SessionOptions
(all graph optimizations, intra-op threads = cores) on the CPU provider,
timing InferenceSession.run.  ONNX Runtime has no separate callable API,
so both modes time run().  Protocol: benchlib.py."""
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
    a = p.parse_args()
    meta = json.load(open(a.meta))
    sess = ort.InferenceSession(meta["onnx"], ort.SessionOptions(),
                                providers=["CPUExecutionProvider"])
    feeds = {n: np.load(f)
             for n, f in zip(meta["onnx_feeds"], meta["onnx_inputs"])}
    fetch = [meta["onnx_fetch"]]
    run_once = lambda: sess.run(fetch, feeds)  # noqa: E731
    checksum = float(np.sum(run_once()[0], dtype=np.float64))
    samples, k = measure(run_once, a.threads, a.seconds)
    emit("onnxruntime", samples, k, checksum, version=ort.__version__)


if __name__ == "__main__":
    main()

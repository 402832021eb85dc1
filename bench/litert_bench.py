"""bench/litert_bench.py - LiteRT's side of the benchmark: the float32
.tflite model that the TFLite converter made from the benchmark's frozen
function, in ai_edge_litert's Interpreter with --intra N threads and its
default delegate (XNNPACK); one run sets the inputs, invokes and copies
the output out.  An interpreter serves one caller at a time, so each
calling thread has its own.  --save-output FILE.npy keeps the first
run's output.  Protocol: benchlib.py."""
import argparse
import importlib.metadata
import json
import os
import sys
import threading

import numpy as np
from ai_edge_litert.interpreter import Interpreter

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
    if "tflite" not in meta:
        sys.exit("no TFLite model: " +
                 meta.get("errors", {}).get("tflite", "?"))
    arrays = [np.load(f) for f in meta["inputs"]]
    local = threading.local()

    def interpreter():
        it = Interpreter(model_path=meta["tflite"],
                         num_threads=a.intra if a.intra > 0 else None)
        it.allocate_tensors()
        ins = [d["index"] for d in it.get_input_details()]
        return it, ins, it.get_output_details()[0]["index"]

    def run_once():
        st = getattr(local, "st", None)
        if st is None:
            st = local.st = interpreter()
        it, ins, out = st
        for i, x in zip(ins, arrays):
            it.set_tensor(i, x)
        it.invoke()
        return it.get_tensor(out)

    out = run_once()
    if a.save_output:
        np.save(a.save_output, out)
    checksum = float(np.sum(out, dtype=np.float64))
    samples, k = measure(run_once, a.threads, a.seconds)
    emit("litert", samples, k, checksum,
         version=importlib.metadata.version("ai-edge-litert"))


if __name__ == "__main__":
    main()

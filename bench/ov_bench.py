"""bench/ov_bench.py - OpenVINO's side of the benchmark: reads the ONNX model
that tf2onnx made from the benchmark's frozen GraphDef (or, when there is
none or OpenVINO cannot read it, imports the GraphDef itself with
openvino.convert_model), compiles
it for the CPU with a latency hint, one stream and --intra N inference
threads, and times InferRequest.infer.  --precision f32 sets
INFERENCE_PRECISION_HINT to f32; without it the CPU plugin picks its
default (bf16 on CPUs with AMX or AVX-512 BF16).  --save-output FILE.npy
keeps the first run's output.  Protocol: benchlib.py."""
import argparse
import json
import os
import sys
import threading

import numpy as np
import openvino as ov

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import emit, measure  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    p.add_argument("--mode", default="callable")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--intra", type=int, default=0)
    p.add_argument("--precision", choices=("default", "f32"),
                   default="default")
    p.add_argument("--save-output")
    a = p.parse_args()
    meta = json.load(open(a.meta))
    core = ov.Core()
    model, source, why = None, None, []
    if "onnx" in meta:
        try:
            model, source = core.read_model(meta["onnx"]), "onnx"
            inputs = [np.load(f) for f in meta["onnx_inputs"]]
        except RuntimeError as e:
            why.append("ONNX: " + " ".join(str(e).split())[-160:])
    else:
        why.append(meta.get("errors", {}).get("onnx", "no ONNX model"))
    if model is None and "pb" in meta:
        model, source = ov.convert_model(meta["pb"]), "graphdef"
        inputs = [np.load(f) for f in meta["inputs"]]
    if model is None:
        sys.exit("no model: " + "; ".join(why))
    config = {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1"}
    if a.intra > 0:
        config["INFERENCE_NUM_THREADS"] = str(a.intra)
    if a.precision == "f32":
        config["INFERENCE_PRECISION_HINT"] = "f32"
    compiled = core.compile_model(model, "CPU", config)
    feeds = dict(enumerate(inputs))
    local = threading.local()   # an infer request per calling thread

    def run_once():
        req = getattr(local, "req", None)
        if req is None:
            req = local.req = compiled.create_infer_request()
        return req.infer(feeds)[0]

    out = np.asarray(run_once())
    if a.save_output:
        np.save(a.save_output, out)
    checksum = float(np.sum(out, dtype=np.float64))
    samples, k = measure(run_once, a.threads, a.seconds)
    emit("openvino-f32" if a.precision == "f32" else "openvino", samples, k,
         checksum, version=ov.get_version().split("-")[0], source=source,
         source_note="; ".join(why),
         precision=compiled.get_property(
             "INFERENCE_PRECISION_HINT").get_type_name())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bench/ov_layers.py - OpenVINO's time per layer of a harness model, to set
beside tfsess's (`tfsess bench --trace`, bench/trace_diff.py): the model's
ONNX file is compiled for the CPU in float32 with performance counters on,
run a number of times, and each layer's median time is printed in execution
order with its output shape and running total, or, with --by-type, the time
per layer and kernel type.  Where tfsess loses a row, the layers on both
sides in order show which stage loses (a stem, a block, the classifier).

  python3 bench/ov_layers.py OUT/mobilenet_v2_b1 --threads 1
  python3 bench/ov_layers.py OUT/bert_encoder_b8 --by-type

OUT/NAME is the harness's output prefix (NAME.onnx and NAME.in0.npy, ...).
Needs openvino and numpy (the harness's virtualenv).  The counters cost a
little: compare the layers against each other, the totals against the
harness's."""
import argparse
import collections
import glob

import numpy as np
import openvino as ov


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="the harness's OUT/NAME")
    ap.add_argument("--threads", default="1", help="inference threads")
    ap.add_argument("--runs", type=int, default=50, help="timed runs")
    ap.add_argument("--by-type", action="store_true",
                    help="totals per layer and kernel type")
    ap.add_argument("--min-us", type=float, default=1.0,
                    help="leave out layers under this many us")
    opt = ap.parse_args()
    core = ov.Core()
    try:
        model = core.read_model(opt.prefix + ".onnx")
    except RuntimeError:    # as ov_bench.py: the GraphDef when tf2onnx failed
        model = ov.convert_model(opt.prefix + ".pb")
    compiled = core.compile_model(
        model, "CPU",
        {"INFERENCE_PRECISION_HINT": "f32",
         "INFERENCE_NUM_THREADS": opt.threads, "PERF_COUNT": "YES",
         "NUM_STREAMS": "1", "PERFORMANCE_HINT": "LATENCY"})
    feeds = {i: np.load(f) for i, f in
             enumerate(sorted(glob.glob(opt.prefix + ".in*.npy")))}
    req = compiled.create_infer_request()
    for _ in range(10):
        req.infer(feeds)
    times = collections.defaultdict(list)
    kinds, order = {}, []
    for r in range(opt.runs):
        req.infer(feeds)
        for p in req.get_profiling_info():
            if r == 0:
                order.append(p.node_name)
            times[p.node_name].append(p.real_time.total_seconds() * 1e6)
            kinds[p.node_name] = (p.node_type, p.exec_type)
    shapes = {}
    for op in compiled.get_runtime_model().get_ordered_ops():
        try:
            shapes[op.get_friendly_name()] = str(
                op.get_output_partial_shape(0))
        except RuntimeError:
            pass
    med = {n: float(np.median(v)) for n, v in times.items()}
    if opt.by_type:
        per = collections.defaultdict(float)
        for n, t in med.items():
            per[kinds[n]] += t
        for (node_type, exec_type), t in sorted(per.items(),
                                                key=lambda x: -x[1]):
            print("%9.0f  %-20s %s" % (t, node_type, exec_type))
        print("%9.0f  total (us)" % sum(med.values()))
        return
    total = 0.0
    for n in order:
        total += med[n]
        if med[n] >= opt.min_us:
            print("%7.0f %8.0f  %-16s %-22s %s" % (
                med[n], total, kinds[n][0][:16], shapes.get(n, "?")[:22],
                n[-40:]))


if __name__ == "__main__":
    main()

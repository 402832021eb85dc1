"""bench/tf_bench.py - TensorFlow's side of the benchmark: imports the same
GraphDef into a tf.compat.v1.Session with the default ConfigProto (or the
model's own, meta "config"; --intra N sets both intra- and inter-op
threads to N) and times Session.run (mode "run") or a callable from
Session.make_callable (mode "callable").  --save-output FILE.npy keeps
the first run's output.  A model with meta "target" runs that op with
every fetch (a training step), after its "init" op once.  Protocol:
benchlib.py."""
import argparse
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

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
    gd = tf.compat.v1.GraphDef()
    with open(meta["pb"], "rb") as f:
        gd.ParseFromString(f.read())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    config = None
    if meta.get("config"):
        config = tf.compat.v1.ConfigProto()
        with open(meta["config"], "rb") as f:
            config.ParseFromString(f.read())
    if a.intra > 0:
        config = config or tf.compat.v1.ConfigProto()
        config.intra_op_parallelism_threads = a.intra
        config.inter_op_parallelism_threads = a.intra
    sess = tf.compat.v1.Session(graph=g, config=config)
    feeds = [g.get_tensor_by_name(n) for n in meta["tf_feeds"]]
    arrays = [np.load(f) for f in meta["inputs"]]
    fetch = g.get_tensor_by_name(meta["tf_fetch"])
    if meta.get("init"):
        sess.run(g.get_operation_by_name(meta["init"]))
    fetches = fetch
    if meta.get("target"):      # a training step: the fetch and the update
        fetches = [fetch, g.get_operation_by_name(meta["target"])]
    if a.mode == "callable":
        fn = sess.make_callable(fetches, feed_list=feeds)
        run_once = lambda: fn(*arrays)  # noqa: E731
    else:
        fd = dict(zip(feeds, arrays))
        run_once = lambda: sess.run(fetches, fd)  # noqa: E731
    out = run_once()
    if meta.get("target"):
        out = out[0]
    if a.save_output:
        np.save(a.save_output, out)
    checksum = float(np.sum(out, dtype=np.float64))
    samples, k = measure(run_once, a.threads, a.seconds)
    emit("tensorflow", samples, k, checksum, version=tf.__version__)


if __name__ == "__main__":
    main()

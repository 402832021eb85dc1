"""bench/tf_sm_bench.py - TensorFlow's side of the harness's SavedModel rows:
one load of a SavedModel in this (fresh) process with one of TensorFlow's
loaders, then the first call of a signature and 5 more; one JSON line with
the same fields as bench/sm_bench.c, plus import_us.

  --loader tf1  tf.compat.v1.saved_model.loader.load(sess, tags, dir) into
                a new tf.compat.v1.Session (the session is created inside
                the timed load, as TF_LoadSessionFromSavedModel does);
                calls are Session.run of the signature's tensors
  --loader tf2  tf.saved_model.load(dir), then .signatures[KEY]; calls are
                the concrete function on a tf.constant

import_us is `import tensorflow` (not part of load_us); rss_kb_base is the
resident set after that import, rss_kb_loaded right after the load, rss_kb
the process's peak (getrusage), which includes the first calls.

  python bench/tf_sm_bench.py --meta NAME.json --loader tf1|tf2
      [--save-output FILE.npy]
"""
import argparse
import json
import os
import resource
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

CALLS = 5


def rss_now_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1e6, out


def load_tf1(tf, meta):
    tf1 = tf.compat.v1
    g = tf.Graph()
    sess = tf1.Session(graph=g)
    mg = tf1.saved_model.loader.load(sess, meta["tags"], meta["dir"])
    sig = mg.signature_def[meta["signature"]]
    x = g.get_tensor_by_name(sig.inputs[meta["input_key"]].name)
    y = g.get_tensor_by_name(sig.outputs[meta["output_key"]].name)
    return lambda v: sess.run(y, {x: v})


def load_tf2(tf, meta):
    fn = tf.saved_model.load(meta["dir"]).signatures[meta["signature"]]
    key, out = meta["input_key"], meta["output_key"]
    return lambda v: fn(**{key: tf.constant(v)})[out].numpy()


def main():
    t_start = time.perf_counter()
    import numpy as np
    import tensorflow as tf
    import_us = (time.perf_counter() - t_start) * 1e6
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    p.add_argument("--loader", choices=("tf1", "tf2"), required=True)
    p.add_argument("--save-output")
    a = p.parse_args()
    meta = json.load(open(a.meta))
    x = np.load(meta["input"])
    base_kb = rss_now_kb()
    loader = load_tf1 if a.loader == "tf1" else load_tf2
    load_us, run = timed(lambda: loader(tf, meta))
    loaded_kb = rss_now_kb()
    first_us, out = timed(lambda: run(x))
    if a.save_output:
        np.save(a.save_output, out)
    us = sorted(timed(lambda: run(x))[0] for _ in range(CALLS))
    print(json.dumps(dict(
        engine="tensorflow-" + a.loader, loader=a.loader, load_us=load_us,
        first_call_us=first_us, call_us=statistics.median(us),
        import_us=import_us, rss_kb_base=base_kb, rss_kb_loaded=loaded_kb,
        rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        checksum=float(np.sum(out, dtype=np.float64)),
        version=tf.__version__)), flush=True)


if __name__ == "__main__":
    main()

"""bench/tf_eager_bench.py - TensorFlow's side of the eager rows of the
benchmark (eager_bench.c is tfsess's): the same work, timed with the
protocol of benchlib.py.

  add         tf.add of two float32 [2,2] eager tensors
  fn10        a tf.function of the same 10 elementwise ops, called with
              eager tensors (traced once in the warm-up)
  fn10_graph  the same 10 ops imported into a tf.compat.v1.Session and
              run through Session.make_callable: the graph's own work
  py_call     a plain Python function call with two arguments returning
              one: the floor of any Python-side API call
"""
import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import emit, measure  # noqa: E402


def ten_ops(x, y):
    v = x * y
    for i in range(1, 10):
        r = i % 5
        if r == 0:
            v = v * y
        elif r == 1:
            v = v + x
        elif r == 2:
            v = v - y
        elif r == 3:
            v = tf.maximum(v, x)
        else:
            v = tf.minimum(v, y)
    return v


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", default="add")
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    xa = (1.0 + 0.25 * np.arange(4, dtype=np.float32)).reshape(2, 2)
    ya = (-0.5 + 0.25 * np.arange(4, dtype=np.float32)).reshape(2, 2)
    x, y = tf.constant(xa), tf.constant(ya)
    if a.work == "add":
        run_once = lambda: tf.add(x, y)  # noqa: E731
    elif a.work == "fn10":
        f = tf.function(ten_ops)
        run_once = lambda: f(x, y)  # noqa: E731
    elif a.work == "fn10_graph":
        g = tf.Graph()
        with g.as_default():
            px = tf.compat.v1.placeholder(tf.float32, [2, 2])
            py = tf.compat.v1.placeholder(tf.float32, [2, 2])
            out = ten_ops(px, py)
        sess = tf.compat.v1.Session(graph=g)
        fn = sess.make_callable(out, feed_list=[px, py])
        run_once = lambda: fn(xa, ya)  # noqa: E731
    elif a.work == "py_call":
        def plain(u, v):
            return u
        run_once = lambda: plain(x, y)  # noqa: E731
    else:
        sys.exit("tf_eager_bench: unknown --work '%s'" % a.work)
    checksum = float(np.sum(np.asarray(run_once()), dtype=np.float64))
    samples, k = measure(run_once, a.threads, a.seconds)
    emit("tensorflow", samples, k, checksum, version=tf.__version__)


if __name__ == "__main__":
    main()

"""bench/tf_gpu_bench.py - TensorFlow's side of the GPU benchmark of
scripts/gpu-check: the models of tests/device/gpu_bench.c (the MLP
784-512-512-10 at batch 1 and 256, the CNN conv-BN-ReLU-pool x3 + dense at
batch 1 and 32; random weights) as tf.compat.v1 graphs on one device,
timed through Session.run.  Prints one JSON line per model, as gpu_bench
does: {"model", "engine": "tensorflow", "device", "median_us", "p90_us"}.

    python3 bench/tf_gpu_bench.py [--device GPU|CPU] [--seconds S]
"""
import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1


def mlp(x, rng):
    h = x
    sizes = [784, 512, 512, 10]
    for i in range(3):
        w = rng.standard_normal((sizes[i], sizes[i + 1])) / np.sqrt(sizes[i])
        b = 0.01 * rng.standard_normal(sizes[i + 1])
        h = tf.nn.bias_add(tf.matmul(h, w.astype(np.float32)),
                           b.astype(np.float32))
        if i < 2:
            h = tf.nn.relu(h)
    return tf.nn.softmax(h)


def cnn(x, rng):
    h = x
    chans = [3, 32, 64, 128]
    for i in range(3):
        a, b = chans[i], chans[i + 1]
        k = rng.standard_normal((3, 3, a, b)) / np.sqrt(9.0 * a)
        h = tf.nn.conv2d(h, k.astype(np.float32), [1, 1, 1, 1], "SAME")
        scale = (1 + 0.1 * rng.standard_normal(b)).astype(np.float32)
        offset = (0.1 * rng.standard_normal(b)).astype(np.float32)
        mean = (0.1 * rng.standard_normal(b)).astype(np.float32)
        var = (1 + 0.05 * rng.standard_normal(b)).astype(np.float32)
        h, _, _ = v1.nn.fused_batch_norm(h, scale, offset, mean, np.abs(var),
                                         epsilon=1e-3, is_training=False)
        h = tf.nn.max_pool2d(tf.nn.relu(h), 2, 2, "VALID")
    h = tf.reshape(h, [-1, 4 * 4 * 128])
    w = rng.standard_normal((2048, 10)) / np.sqrt(2048)
    b = 0.01 * rng.standard_normal(10)
    return tf.nn.softmax(tf.nn.bias_add(tf.matmul(h, w.astype(np.float32)),
                                        b.astype(np.float32)))


def bench(name, build, shape, device, seconds):
    rng = np.random.default_rng(42)
    g = tf.Graph()
    with g.as_default(), tf.device("/device:%s:0" % device):
        x = v1.placeholder(tf.float32, [None] + list(shape[1:]), name="x")
        y = build(x, rng)
    feed = rng.standard_normal(shape).astype(np.float32)
    with v1.Session(graph=g) as s:
        for _ in range(5):
            s.run(y, {x: feed})
        us = []
        t_end = time.perf_counter() + seconds
        while len(us) < 10 or time.perf_counter() < t_end:
            t0 = time.perf_counter()
            s.run(y, {x: feed})
            us.append((time.perf_counter() - t0) * 1e6)
    us.sort()
    print(json.dumps({"model": name, "engine": "tensorflow",
                      "device": device, "median_us": round(us[len(us) // 2], 1),
                      "p90_us": round(us[len(us) * 9 // 10], 1)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="GPU")
    p.add_argument("--seconds", type=float, default=2.0)
    a = p.parse_args()
    v1.disable_eager_execution()
    bench("mlp_b1", mlp, (1, 784), a.device, a.seconds)
    bench("mlp_b256", mlp, (256, 784), a.device, a.seconds)
    bench("cnn_b1", cnn, (1, 32, 32, 3), a.device, a.seconds)
    bench("cnn_b32", cnn, (32, 32, 32, 3), a.device, a.seconds)


if __name__ == "__main__":
    main()

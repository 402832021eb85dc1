"""bench/optimizer_models.py - writes the models the optimizer benchmark
runs (docs/OPTIMIZER.md): an MLP, a small CNN with batch norms and a
MobileNet-style block stack, as TensorFlow 1 GraphDefs (frozen: weights
are constants; input "x", output "y").  Usage:
    python bench/optimizer_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
tf1.disable_eager_execution()
RNG = np.random.RandomState(0)


def const(*shape, scale=0.1):
    return tf.constant((RNG.randn(*shape) * scale).astype(np.float32))


def batch_norm(h, c):
    scale = tf.constant((RNG.rand(c) + 0.5).astype(np.float32))
    offset, mean = const(c), const(c)
    var = tf.constant((RNG.rand(c) + 0.5).astype(np.float32))
    y, _, _ = tf1.nn.fused_batch_norm(h, scale, offset, mean, var,
                                      is_training=False, epsilon=1e-3)
    return y


def mlp():
    x = tf1.placeholder(tf.float32, [None, 784], name="x")
    h = x
    for n in (512, 512):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(h, const(h.shape[1], n)),
                                      const(n)))
    h = tf.nn.bias_add(tf.matmul(h, const(512, 10)), const(10))
    tf.nn.softmax(h, name="y")


def cnn_bn():
    x = tf1.placeholder(tf.float32, [None, 32, 32, 3], name="x")
    h = x
    for c in (32, 32, 64, 64):
        h = tf.nn.conv2d(h, const(3, 3, h.shape[3], c), 1, "SAME")
        h = tf.nn.relu(batch_norm(h, c))
        if c == 32 or h.shape[1] > 8:
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
    h = tf.reshape(h, [-1, int(np.prod(h.shape[1:]))])
    h = tf.nn.bias_add(tf.matmul(h, const(h.shape[1], 10)), const(10))
    tf.identity(h, name="y")


def mobilenet_block():
    x = tf1.placeholder(tf.float32, [None, 56, 56, 32], name="x")
    h = x
    for c in (64, 64, 128):
        d = tf.nn.depthwise_conv2d(h, const(3, 3, h.shape[3], 1), [1, 1, 1, 1],
                                   "SAME")
        h = tf.nn.relu6(batch_norm(d, h.shape[3]))
        h = tf.nn.conv2d(h, const(1, 1, h.shape[3], c), 1, "SAME")
        h = tf.nn.relu6(batch_norm(h, c))
    tf.identity(tf.reduce_mean(h, axis=[1, 2]), name="y")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for name, fn in (("mlp", mlp), ("cnn_bn", cnn_bn),
                     ("mobilenet_block", mobilenet_block)):
        g = tf1.Graph()
        with g.as_default():
            fn()
        path = os.path.join(out, name + ".pb")
        with open(path, "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
        print(path, len(g.as_graph_def().node), "nodes")


if __name__ == "__main__":
    main()

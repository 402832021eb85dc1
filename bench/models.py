"""bench/models.py - the benchmark models, built once with TensorFlow
(tf.compat.v1 graphs written as GraphDef .pb, which tfsess and TensorFlow
both load) and again with the onnx package (same weights) for ONNX
Runtime, plus the feeds as .npy files.

Every model is a function returning a Model: the GraphDef bytes, the ONNX
model, feeds per engine, and the fetch names.  WORKLOADS in workloads.py
refers to them by name.
"""
import json
import os
import zlib

import numpy as np

SEED = 20240611


class Model:
    def __init__(self, name, graph_def, onnx_model, tf_feeds, tf_fetch,
                 onnx_feeds, onnx_fetch, inputs, onnx_inputs=None,
                 config=None, target=None, init=None):
        self.name = name
        self.graph_def = graph_def
        self.onnx_model = onnx_model
        self.tf_feeds = tf_feeds        # list of "name:0"
        self.tf_fetch = tf_fetch        # "name:0"
        self.onnx_feeds = onnx_feeds    # list of input names
        self.onnx_fetch = onnx_fetch
        self.inputs = inputs            # list of numpy arrays (TF layout)
        self.onnx_inputs = onnx_inputs or inputs
        self.config = config            # ConfigProto bytes, or None
        self.target = target            # op run with every fetch, or None
        self.init = init                # op run once first, or None


def _tf():
    import tensorflow as tf  # heavy: only the generator imports it
    return tf


def _onnx_model(nodes, inputs, outputs, inits, name):
    import onnx
    from onnx import helper, numpy_helper
    graph = helper.make_graph(
        nodes, name, inputs, outputs,
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)],
        producer_name="tfsess-bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _vi(name, shape):
    from onnx import TensorProto, helper
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# ---- 1-node graph ------------------------------------------------------------

def one_node(rng):
    """y = Neg(x), x a fed scalar: the run overhead."""
    tf = _tf()
    from onnx import helper
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        tf.negative(x, name="y")
    om = _onnx_model([helper.make_node("Neg", ["x"], ["y"])],
                     [_vi("x", [])], [_vi("y", [])], {}, "one_node")
    return Model("one_node", g.as_graph_def().SerializeToString(), om,
                 ["x:0"], "y:0", ["x"], "y",
                 [np.array(1.5, dtype=np.float32)])


# ---- chain --------------------------------------------------------------------

def chain(rng, n=1000):
    """y = x + c + c + ... (n scalar Adds): the per-node cost."""
    tf = _tf()
    from onnx import helper
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        c = tf.constant(np.float32(1e-3), name="c")
        h = x
        for i in range(n):
            h = tf.add(h, c, name="add%d" % i)
        tf.identity(h, name="y")
    nodes, prev = [], "x"
    for i in range(n):
        out = "y" if i == n - 1 else "a%d" % i
        nodes.append(helper.make_node("Add", [prev, "c"], [out]))
        prev = out
    om = _onnx_model(nodes, [_vi("x", [])], [_vi("y", [])],
                     {"c": np.array(1e-3, dtype=np.float32)}, "chain")
    return Model("chain", g.as_graph_def().SerializeToString(), om,
                 ["x:0"], "y:0", ["x"], "y",
                 [np.array(0.5, dtype=np.float32)])


# ---- MLP ----------------------------------------------------------------------

def mlp(rng, batch):
    """784-512-512-10 with ReLU and a softmax."""
    tf = _tf()
    from onnx import helper
    sizes = [784, 512, 512, 10]
    ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
          for a, b in zip(sizes, sizes[1:])]
    bs = [(0.01 * rng.standard_normal(b)).astype(np.float32)
          for b in sizes[1:]]
    g = tf.Graph()
    with g.as_default():
        h = tf.compat.v1.placeholder(tf.float32, [None, 784], name="x")
        for i, (w, b) in enumerate(zip(ws, bs)):
            h = tf.nn.bias_add(tf.matmul(h, tf.constant(w, name="w%d" % i)),
                               tf.constant(b, name="b%d" % i))
            if i < len(ws) - 1:
                h = tf.nn.relu(h)
        tf.nn.softmax(h, name="probs")
    nodes, prev, inits = [], "x", {}
    for i, (w, b) in enumerate(zip(ws, bs)):
        inits["w%d" % i], inits["b%d" % i] = w, b
        nodes.append(helper.make_node("MatMul", [prev, "w%d" % i],
                                      ["m%d" % i]))
        nodes.append(helper.make_node("Add", ["m%d" % i, "b%d" % i],
                                      ["z%d" % i]))
        prev = "z%d" % i
        if i < len(ws) - 1:
            nodes.append(helper.make_node("Relu", [prev], ["r%d" % i]))
            prev = "r%d" % i
    nodes.append(helper.make_node("Softmax", [prev], ["probs"], axis=-1))
    om = _onnx_model(nodes, [_vi("x", ["N", 784])], [_vi("probs", ["N", 10])],
                     inits, "mlp")
    x = rng.standard_normal((batch, 784)).astype(np.float32)
    return Model("mlp_b%d" % batch, g.as_graph_def().SerializeToString(), om,
                 ["x:0"], "probs:0", ["x"], "probs", [x])


# ---- CNN ----------------------------------------------------------------------

def cnn(rng, batch):
    """(Conv3x3-BN-ReLU-MaxPool2x2) x3 on 32x32x3, then dense 10 + softmax.
    TensorFlow and tfsess run NHWC; the ONNX model is the NCHW equivalent
    (the dense weights' rows permuted to NCHW's flatten order)."""
    tf = _tf()
    from onnx import helper
    chans = [3, 32, 64, 128]
    convs = []
    for a, b in zip(chans, chans[1:]):
        w = (rng.standard_normal((3, 3, a, b)) / np.sqrt(9 * a)).astype(
            np.float32)  # HWIO
        bn = dict(scale=(1 + 0.1 * rng.standard_normal(b)).astype(np.float32),
                  offset=(0.1 * rng.standard_normal(b)).astype(np.float32),
                  mean=(0.1 * rng.standard_normal(b)).astype(np.float32),
                  var=(1 + 0.1 * rng.random(b)).astype(np.float32))
        convs.append((w, bn))
    flat = 4 * 4 * 128
    wd = (rng.standard_normal((flat, 10)) / np.sqrt(flat)).astype(np.float32)
    bd = (0.01 * rng.standard_normal(10)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        h = tf.compat.v1.placeholder(tf.float32, [None, 32, 32, 3], name="x")
        for i, (w, bn) in enumerate(convs):
            h = tf.nn.conv2d(h, tf.constant(w, name="k%d" % i), 1, "SAME")
            h, _, _ = tf.compat.v1.nn.fused_batch_norm(
                h, tf.constant(bn["scale"]), tf.constant(bn["offset"]),
                mean=tf.constant(bn["mean"]), variance=tf.constant(bn["var"]),
                epsilon=1e-3, is_training=False)
            h = tf.nn.max_pool2d(tf.nn.relu(h), 2, 2, "VALID")
        h = tf.reshape(h, tf.constant([-1, flat], dtype=tf.int32))
        h = tf.nn.bias_add(tf.matmul(h, tf.constant(wd, name="wd")),
                           tf.constant(bd))
        tf.nn.softmax(h, name="probs")
    nodes, prev, inits = [], "x", {}
    for i, (w, bn) in enumerate(convs):
        inits["k%d" % i] = np.ascontiguousarray(w.transpose(3, 2, 0, 1))
        for k in ("scale", "offset", "mean", "var"):
            inits["%s%d" % (k, i)] = bn[k]
        nodes += [
            helper.make_node("Conv", [prev, "k%d" % i], ["c%d" % i],
                             pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
            helper.make_node("BatchNormalization",
                             ["c%d" % i, "scale%d" % i, "offset%d" % i,
                              "mean%d" % i, "var%d" % i], ["n%d" % i],
                             epsilon=1e-3),
            helper.make_node("Relu", ["n%d" % i], ["r%d" % i]),
            helper.make_node("MaxPool", ["r%d" % i], ["p%d" % i],
                             kernel_shape=[2, 2], strides=[2, 2]),
        ]
        prev = "p%d" % i
    # NCHW flatten order (c, h, w) <- NHWC order (h, w, c)
    perm = np.arange(flat).reshape(4, 4, 128).transpose(2, 0, 1).reshape(-1)
    inits["wd"] = np.ascontiguousarray(wd[perm])
    inits["bd"] = bd
    inits["shape"] = np.array([-1, flat], dtype=np.int64)
    nodes += [helper.make_node("Reshape", [prev, "shape"], ["f"]),
              helper.make_node("MatMul", ["f", "wd"], ["m"]),
              helper.make_node("Add", ["m", "bd"], ["z"]),
              helper.make_node("Softmax", ["z"], ["probs"], axis=-1)]
    om = _onnx_model(nodes, [_vi("x", ["N", 3, 32, 32])],
                     [_vi("probs", ["N", 10])], inits, "cnn")
    x = rng.standard_normal((batch, 32, 32, 3)).astype(np.float32)
    return Model("cnn_b%d" % batch, g.as_graph_def().SerializeToString(), om,
                 ["x:0"], "probs:0", ["x"], "probs", [x],
                 [np.ascontiguousarray(x.transpose(0, 3, 1, 2))])


# ---- one MatMul ------------------------------------------------------------------

def matmul(rng, n=1024):
    """y = x W, both n x n (W constant)."""
    tf = _tf()
    from onnx import helper
    w = rng.standard_normal((n, n)).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [n, n], name="x")
        tf.matmul(x, tf.constant(w, name="w"), name="y")
    om = _onnx_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                     [_vi("x", [n, n])], [_vi("y", [n, n])], {"w": w},
                     "matmul")
    x = rng.standard_normal((n, n)).astype(np.float32)
    return Model("matmul_%d" % n, g.as_graph_def().SerializeToString(), om,
                 ["x:0"], "y:0", ["x"], "y", [x])


# ---- while loop -------------------------------------------------------------

def while_loop(rng, n, form, lower=True):
    """(i, x) = (0, x0); while i < n: (i, x) = (i + 1, x * 0.5 + 1); y = x.
    form "v2": the functional While that tf.while_loop writes with control
    flow v2 (cond and body in the function library); "v1": TF1 control flow
    (Enter, Merge, Switch, LoopCond, NextIteration, Exit).  The ONNX model
    is a Loop with the same loop variables and condition.  lower=False
    sets ConfigProto.experimental.disable_functional_ops_lowering for
    tfsess and TensorFlow, so that the While op runs its functions
    instead of being rewritten into TF1 control flow."""
    tf = _tf()
    from onnx import TensorProto, helper
    from tensorflow.python.ops import control_flow_util
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = form == "v2"
    try:
        g = tf.Graph()
        with g.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [], name="x")
            limit = tf.constant(n, dtype=tf.int32, name="n")
            _, h = tf.while_loop(
                lambda i, v: i < limit,
                lambda i, v: (i + 1, v * 0.5 + 1.0),
                (tf.constant(0, dtype=tf.int32), x), name="loop")
            tf.identity(h, name="y")
        gd = g.as_graph_def()
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    ops = {nd.op for nd in gd.node}
    want = {"v2": {"While", "StatelessWhile"}, "v1": {"NextIteration"}}[form]
    assert ops & want, sorted(ops)
    body = helper.make_graph(
        [helper.make_node("Add", ["i", "one"], ["i1"]),
         helper.make_node("Mul", ["v", "half"], ["m"]),
         helper.make_node("Add", ["m", "fone"], ["v1"]),
         helper.make_node("Less", ["i1", "n"], ["c1"])],
        "body",
        [helper.make_tensor_value_info("it", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("i", TensorProto.INT32, []),
         _vi("v", [])],
        [helper.make_tensor_value_info("c1", TensorProto.BOOL, []),
         helper.make_tensor_value_info("i1", TensorProto.INT32, []),
         _vi("v1", [])])
    nodes = [helper.make_node("Less", ["zero", "n"], ["c0"]),
             helper.make_node("Loop", ["", "c0", "zero", "x"],
                              ["i_end", "y"], body=body)]
    om = _onnx_model(nodes, [_vi("x", [])], [_vi("y", [])],
                     {"zero": np.array(0, dtype=np.int32),
                      "n": np.array(n, dtype=np.int32),
                      "one": np.array(1, dtype=np.int32),
                      "half": np.array(0.5, dtype=np.float32),
                      "fone": np.array(1.0, dtype=np.float32)},
                     "while_loop")
    config = None
    if not lower:
        cp = tf.compat.v1.ConfigProto()
        cp.experimental.disable_functional_ops_lowering = True
        config = cp.SerializeToString()
    return Model("while_%s%s_%d" % (form, "" if lower else "nolower", n),
                 gd.SerializeToString(), om, ["x:0"], "y:0", ["x"], "y",
                 [np.array(0.25, dtype=np.float32)], config=config)


BUILDERS = {
    "one_node": lambda rng: one_node(rng),
    "chain": lambda rng: chain(rng),
    "mlp_b1": lambda rng: mlp(rng, 1),
    "mlp_b256": lambda rng: mlp(rng, 256),
    "cnn_b1": lambda rng: cnn(rng, 1),
    "cnn_b32": lambda rng: cnn(rng, 32),
    "matmul_1024": lambda rng: matmul(rng, 1024),
}
for _n in (1000, 10000):
    for _form in ("v1", "v2"):
        BUILDERS["while_%s_%d" % (_form, _n)] = (
            lambda rng, n=_n, form=_form: while_loop(rng, n, form))
    BUILDERS["while_v2nolower_%d" % _n] = (
        lambda rng, n=_n: while_loop(rng, n, "v2", lower=False))


def digits_train(rng):
    """One training step of the digits MLP, batch 64: TensorFlow's own
    tf.compat.v1 training graph (models/digits/train/train.pb: forward
    pass, tf.gradients' subgraph, GradientDescentOptimizer), fetching the
    loss and running "train"; its seeded initializers run first.  No ONNX
    model: ONNX Runtime does not train."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    d = os.path.join(top, "models", "digits", "train")
    with open(os.path.join(d, "train.pb"), "rb") as f:
        gd = f.read()
    x = np.load(os.path.join(d, "x_train.npy"))[:64]
    y = np.load(os.path.join(d, "y_train.npy"))[:64]
    return Model("digits_train", gd, None, ["x:0", "y:0"], "loss:0",
                 [], None, [x, y], target="train", init="init")


BUILDERS["digits_train"] = digits_train


def write_all(outdir, names):
    """Writes MODEL.pb, MODEL.onnx, MODEL.json and feed .npy files."""
    import onnx
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        # the MLP/CNN batch sizes share their weights
        rng = np.random.default_rng(
            SEED + zlib.crc32(name.split("_b")[0].encode()) % 1000)
        m = BUILDERS[name](rng)
        base = os.path.join(outdir, name)
        with open(base + ".pb", "wb") as f:
            f.write(m.graph_def)
        if m.onnx_model is not None:
            onnx.save(m.onnx_model, base + ".onnx")
        files, ofiles = [], []
        for i, (a, b) in enumerate(zip(m.inputs, m.onnx_inputs)):
            files.append(base + ".in%d.npy" % i)
            ofiles.append(base + ".onnx_in%d.npy" % i)
            np.save(files[-1], a)
            np.save(ofiles[-1], b)
        meta = dict(name=name, pb=base + ".pb", onnx=base + ".onnx",
                    tf_feeds=m.tf_feeds, tf_fetch=m.tf_fetch,
                    onnx_feeds=m.onnx_feeds, onnx_fetch=m.onnx_fetch,
                    inputs=files, onnx_inputs=ofiles)
        if m.target:
            meta["target"], meta["init"] = m.target, m.init
        if m.config is not None:
            meta["config"] = base + ".config.pb"
            with open(meta["config"], "wb") as f:
                f.write(m.config)
        with open(base + ".json", "w") as f:
            json.dump(meta, f, indent=1)


if __name__ == "__main__":
    import sys
    write_all(sys.argv[1], sys.argv[2:])

"""bench/arch_models.py - the real-architecture models of the benchmark.

Each architecture is a Keras model (keras.applications with weights=None,
or written here: a BERT-style encoder and a small LSTM) given random,
non-trivial weights with a fixed seed: batch norm with gamma ~ U(0.5, 1.5),
beta ~ N(0, 0.1), moving mean ~ N(0, 0.1) and moving variance ~ U(0.5, 2)
(a fresh Keras batch norm, mean 0 and variance 1 with tiny activations,
would hide errors), and every convolution and dense kernel scaled so that
its output has a standard deviation of about 1 on the benchmark input
(the first example of the batch).  The classifiers end in logits (no
softmax) for the same reason.

For each batch size the model is frozen into a GraphDef
(convert_variables_to_constants_v2 of a tf.function with a fixed input
signature), which tfsess and TensorFlow load; tf2onnx converts that
GraphDef to ONNX (ONNX Runtime and OpenVINO), and the TFLite converter
converts the same frozen function to a float32 .tflite model (LiteRT).
TensorFlow's output of the frozen graph is kept as the reference every
engine's output is checked against.  A step that fails is recorded in the
model's .json ("errors": {format: text}) and the engines that need it
report it in their cell.

  python bench/arch_models.py OUTDIR NAME...   (NAME: ARCH_bBATCH,
                                               e.g. resnet50_b1)
"""
import json
import os
import sys
import time
import traceback
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

SEED = 20240611
ONNX_OPSET = 17


# ---- the architectures ------------------------------------------------------

def _app(name, size, **kw):
    """A keras.applications classifier with logits out."""
    def build():
        import keras
        cls = getattr(keras.applications, name)
        return cls(weights=None, input_shape=(size, size, 3),
                   classifier_activation=None, **kw)
    return build


def bert_encoder(layers=4, d=256, heads=4, ff=1024, seq=128, vocab=8192):
    """Token and position embeddings, layer norm, then `layers` blocks of
    multi-head self-attention and a tanh-GELU feed-forward layer, each
    with a residual connection and post layer norm (BERT's layout); the
    output is the last hidden states [batch, seq, d]."""
    import keras
    from keras import layers as L, ops

    ids = keras.Input((seq,), dtype="int32", name="ids")
    h = L.Embedding(vocab, d, name="tok_emb")(ids)
    pos = L.Embedding(seq, d, name="pos_emb")(ops.arange(seq, dtype="int32"))
    h = L.LayerNormalization(epsilon=1e-12, name="emb_ln")(h + pos)
    dh = d // heads

    def split(t):  # [b, s, d] -> [b, heads, s, dh]
        return ops.transpose(ops.reshape(t, (-1, seq, heads, dh)),
                             (0, 2, 1, 3))

    for i in range(layers):
        q = split(L.Dense(d, name="l%d_q" % i)(h))
        k = split(L.Dense(d, name="l%d_k" % i)(h))
        v = split(L.Dense(d, name="l%d_v" % i)(h))
        att = ops.softmax(ops.matmul(q, ops.transpose(k, (0, 1, 3, 2))) *
                          float(1.0 / np.sqrt(dh)), axis=-1)
        ctx = ops.reshape(ops.transpose(ops.matmul(att, v), (0, 2, 1, 3)),
                          (-1, seq, d))
        h = L.LayerNormalization(epsilon=1e-12, name="l%d_ln1" % i)(
            h + L.Dense(d, name="l%d_o" % i)(ctx))
        f = L.Dense(ff, name="l%d_ff1" % i)(h)
        f = keras.activations.gelu(f, approximate=True)
        h = L.LayerNormalization(epsilon=1e-12, name="l%d_ln2" % i)(
            h + L.Dense(d, name="l%d_ff2" % i)(f))
    return keras.Model(ids, h, name="bert_encoder")


def lstm(seq=32, features=64, units=128, classes=10):
    """keras.layers.LSTM (unroll=False: a While loop over the sequence)
    and a dense layer on the last output."""
    import keras
    from keras import layers as L
    x = keras.Input((seq, features), name="x")
    h = L.LSTM(units, unroll=False, name="lstm")(x)
    return keras.Model(x, L.Dense(classes, name="head")(h), name="lstm")


def vit(size=224, patch=16, layers=4, d=256, heads=4, ff=1024):
    """A small vision transformer as Keras users write one: patches by a
    strided Conv2D, a learned position embedding, `layers` pre-norm
    blocks of keras.layers.MultiHeadAttention (EinsumDense projections)
    and an exact-GELU MLP, then the mean of the tokens and a classifier."""
    import keras
    from keras import layers as L, ops

    x = keras.Input((size, size, 3), name="x")
    n = (size // patch) ** 2
    h = L.Conv2D(d, patch, strides=patch, name="patches")(x)
    h = L.Reshape((n, d))(h)
    h = L.Embedding(n, d, name="pos_emb")(ops.arange(n, dtype="int32")) + h
    for i in range(layers):
        a = L.LayerNormalization(epsilon=1e-6, name="l%d_ln1" % i)(h)
        a = L.MultiHeadAttention(heads, d // heads, name="l%d_mha" % i)(a, a)
        h = h + a
        f = L.LayerNormalization(epsilon=1e-6, name="l%d_ln2" % i)(h)
        f = L.Dense(ff, activation="gelu", name="l%d_ff1" % i)(f)
        h = h + L.Dense(d, name="l%d_ff2" % i)(f)
    h = L.LayerNormalization(epsilon=1e-6, name="ln")(h)
    h = L.GlobalAveragePooling1D()(h)
    return keras.Model(x, L.Dense(1000, name="head")(h), name="vit")


# name: (build, input kind, per-example input shape); the row labels are
# in workloads.py.  Input kinds: "image": uniform in [-1, 1]; "image255":
# in [0, 255] (the model has its own preprocessing layers); "ids": token
# ids; "seq": N(0, 1).
ARCHS = {
    "mobilenet_v2": (_app("MobileNetV2", 224), "image", (224, 224, 3)),
    "mobilenet_v3_large": (_app("MobileNetV3Large", 224), "image255",
                           (224, 224, 3)),
    "efficientnet_b0": (_app("EfficientNetB0", 224), "image255",
                        (224, 224, 3)),
    "resnet50": (_app("ResNet50", 224), "image", (224, 224, 3)),
    "densenet121": (_app("DenseNet121", 224), "image", (224, 224, 3)),
    "inception_v3": (_app("InceptionV3", 299), "image", (299, 299, 3)),
    "bert_encoder": (bert_encoder, "ids", (128,)),
    "lstm": (lstm, "seq", (32, 64)),
    "xception": (_app("Xception", 299), "image", (299, 299, 3)),
    "resnet50_v2": (_app("ResNet50V2", 224), "image", (224, 224, 3)),
    "efficientnet_v2_b0": (_app("EfficientNetV2B0", 224), "image255",
                           (224, 224, 3)),
    "convnext_tiny": (_app("ConvNeXtTiny", 224), "image255", (224, 224, 3)),
    "mobilenet_v3_small": (_app("MobileNetV3Small", 224), "image255",
                           (224, 224, 3)),
    "nasnet_mobile": (_app("NASNetMobile", 224), "image", (224, 224, 3)),
    "vit": (vit, "image", (224, 224, 3)),
}


def split_name(name):
    """"resnet50_b8" -> ("resnet50", 8)."""
    arch, _, b = name.rpartition("_b")
    if arch not in ARCHS or not b.isdigit():
        raise KeyError("unknown model %r (ARCH_bN, ARCH one of %s)" %
                       (name, ", ".join(ARCHS)))
    return arch, int(b)


def make_input(arch, batch):
    """The benchmark input; the first example is the calibration input, so
    every batch size sees the same first example."""
    _, kind, shape = ARCHS[arch]
    rng = np.random.default_rng(SEED + 7)
    xs = []
    for _ in range(batch):
        if kind == "ids":
            xs.append(rng.integers(0, 8192, size=shape, dtype=np.int32))
        elif kind == "image255":
            xs.append(rng.uniform(0, 255, size=shape).astype(np.float32))
        elif kind == "image":
            xs.append(rng.uniform(-1, 1, size=shape).astype(np.float32))
        else:
            xs.append(rng.standard_normal(shape).astype(np.float32))
    return np.stack(xs)


# ---- random weights ---------------------------------------------------------

def _fan_in(v):
    shape = tuple(v.shape)
    if v.name == "depthwise_kernel":      # kh, kw, cin, multiplier
        return shape[0] * shape[1]
    return int(np.prod(shape[:-1])) or 1  # kh, kw, cin, cout / in, out


def randomize(model, rng):
    """Random weights: kernels N(0, 1/fan_in), biases N(0, 0.05), batch and
    layer norm as described at the top, embeddings N(0, 1)."""
    for layer in model.layers:
        for v in layer.weights:
            shape, n = tuple(v.shape), v.name
            if n in ("kernel", "depthwise_kernel", "recurrent_kernel"):
                val = rng.standard_normal(shape) / np.sqrt(_fan_in(v))
            elif n == "bias":
                val = 0.05 * rng.standard_normal(shape)
            elif n == "gamma":
                val = rng.uniform(0.5, 1.5, shape)
            elif n == "beta":
                val = 0.1 * rng.standard_normal(shape)
            elif n == "moving_mean":
                val = 0.1 * rng.standard_normal(shape)
            elif n == "moving_variance":
                val = rng.uniform(0.5, 2.0, shape)
            elif n == "embeddings":
                val = rng.standard_normal(shape)
            else:                   # Normalization's mean/variance, ...
                continue
            v.assign(val.astype(v.dtype))


def calibrate(model, x, lo=0.7, hi=1.4):
    """Scales convolution and dense kernels (with their biases) so that
    each one's output has a standard deviation of about 1 on x.  In
    layer order: find the first layer outside [lo, hi], scale it (its
    output then is exactly 1), run again from there; each pass is one
    forward run of the model computing all those layers' outputs."""
    import keras
    import tensorflow as tf
    names = ("Conv2D", "DepthwiseConv2D", "Dense")
    layers = [l for l in model.layers if type(l).__name__ in names]
    if not layers:
        return
    probe = tf.function(keras.Model(model.inputs, [l.output for l in layers]))
    start = 0
    while start < len(layers):
        sds = [float(np.std(np.asarray(o, dtype=np.float64)))
               for o in probe(tf.constant(x))[start:]]
        bad = next((i for i, sd in enumerate(sds)
                    if np.isfinite(sd) and sd > 0 and not lo <= sd <= hi),
                   None)
        if bad is None:
            return
        layer = layers[start + bad]
        for v in layer.weights:
            if v.name in ("kernel", "depthwise_kernel", "bias"):
                v.assign(np.asarray(v) / sds[bad])
        start += bad + 1


def build_keras(arch):
    import keras
    keras.utils.set_random_seed(SEED)
    model = ARCHS[arch][0]()
    rng = np.random.default_rng(SEED + zlib.crc32(arch.encode()) % 1000)
    randomize(model, rng)
    calibrate(model, make_input(arch, 1))
    return model


# ---- freezing and conversion ------------------------------------------------

def freeze(model, x):
    """The frozen concrete function of model(x), with x's shape and dtype
    as the fixed input signature."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    fn = tf.function(lambda t: model(t, training=False))
    cf = fn.get_concrete_function(
        tf.TensorSpec(x.shape, tf.as_dtype(x.dtype), name="x"))
    return convert_variables_to_constants_v2(cf, lower_control_flow=False)


def to_onnx(gd, feed, fetch, path):
    import onnx
    import tf2onnx
    model, _ = tf2onnx.convert.from_graph_def(
        gd, input_names=[feed], output_names=[fetch], opset=ONNX_OPSET)
    onnx.save(model, path)
    return [i.name for i in model.graph.input], model.graph.output[0].name


def to_tflite(frozen, path):
    """A float32 model (no optimizations) of the frozen function: the same
    constants as the GraphDef."""
    import tensorflow as tf
    conv = tf.lite.TFLiteConverter.from_concrete_functions([frozen])
    with open(path, "wb") as f:
        f.write(conv.convert())


def _err(e):
    lines = [ln for ln in traceback.format_exception_only(type(e), e)
             if ln.strip()]
    return " ".join(lines[-1].split())[:300]


def write_arch(outdir, arch, batches):
    """Writes NAME.pb, .onnx, .tflite, .json, the input and TensorFlow's
    output (.ref.npy) for arch at each batch size."""
    import tensorflow as tf
    t0 = time.time()
    model = build_keras(arch)
    for batch in batches:
        name = "%s_b%d" % (arch, batch)
        base = os.path.join(outdir, name)
        x = make_input(arch, batch)
        np.save(base + ".in0.npy", x)
        meta = dict(name=name, batch=batch,
                    inputs=[base + ".in0.npy"], errors={})
        try:
            frozen = freeze(model, x)
            gd = frozen.graph.as_graph_def()
            with open(base + ".pb", "wb") as f:
                f.write(gd.SerializeToString())
            ref = frozen(tf.constant(x))
            ref = np.asarray(ref[0] if isinstance(ref, (list, tuple))
                             else ref)
            np.save(base + ".ref.npy", ref)
            feed, fetch = frozen.inputs[0].name, frozen.outputs[0].name
            meta.update(pb=base + ".pb", tf_feeds=[feed], tf_fetch=fetch,
                        ref=base + ".ref.npy",
                        ref_stats=dict(shape=list(ref.shape),
                                       std=float(np.std(ref)),
                                       max_abs=float(np.max(np.abs(ref)))),
                        ops=sorted({n.op for n in gd.node} |
                                   {n.op for fn in gd.library.function
                                    for n in fn.node_def}))
        except Exception as e:  # noqa: BLE001 - recorded for the table
            meta["errors"]["pb"] = "freezing failed: " + _err(e)
            with open(base + ".json", "w") as f:
                json.dump(meta, f, indent=1)
            continue
        try:
            feeds, out = to_onnx(gd, feed, fetch, base + ".onnx")
            meta.update(onnx=base + ".onnx", onnx_feeds=feeds,
                        onnx_fetch=out, onnx_inputs=meta["inputs"])
        except Exception as e:  # noqa: BLE001
            meta["errors"]["onnx"] = "tf2onnx failed: " + _err(e)
        try:
            to_tflite(frozen, base + ".tflite")
            meta["tflite"] = base + ".tflite"
        except Exception as e:  # noqa: BLE001
            meta["errors"]["tflite"] = "TFLite converter failed: " + _err(e)
        with open(base + ".json", "w") as f:
            json.dump(meta, f, indent=1)
        print("arch_models: %s: output %s, std %.3g, %s (%.0f s)" % (
            name, meta["ref_stats"]["shape"], meta["ref_stats"]["std"],
            "; ".join("%s: %s" % kv for kv in meta["errors"].items())
            or "all formats", time.time() - t0), file=sys.stderr, flush=True)


def main():
    outdir, names = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    by_arch = {}
    for n in names:
        arch, batch = split_name(n)
        by_arch.setdefault(arch, []).append(batch)
    for arch, batches in by_arch.items():
        try:
            write_arch(outdir, arch, sorted(batches))
        except Exception as e:  # noqa: BLE001 - one model does not stop all
            for b in batches:
                base = os.path.join(outdir, "%s_b%d" % (arch, b))
                with open(base + ".json", "w") as f:
                    json.dump(dict(name="%s_b%d" % (arch, b), batch=b,
                                   errors=dict(pb="building the Keras model "
                                               "failed: " + _err(e))),
                              f, indent=1)
            traceback.print_exc()


if __name__ == "__main__":
    main()

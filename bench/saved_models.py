"""bench/saved_models.py - the SavedModels of the harness's load rows
(--models savedmodel), built with TensorFlow into the model cache:

  sm_keras_mlp  a Keras 3 functional MLP of 25.2M float32 parameters
                (1024 -> Dense 4096 relu -> LayerNormalization -> Dense 4096
                gelu -> Dense 1024 relu -> Dense 10 softmax; random weights
                scaled by fan-in, random biases and LayerNorm gamma/beta),
                exported with model.export(DIR): a TF2 SavedModel (Keras
                3.15 writes each variable twice into its checkpoint, under
                variables/ and _all_variables/, so variables/ holds 202 MB)
  sm_tf1_mlp    the same layers and weights as a tf.compat.v1 graph of
                resource variables saved by SavedModelBuilder (the Saver's
                sharded restore_all, a predict signature): 101 MB

Each NAME gets OUT/NAME/ (the SavedModel), OUT/NAME.in0.npy (a batch of 8
inputs), OUT/NAME.ref.npy (TensorFlow's answer) and OUT/NAME.json (the
directory, tags, signature key, input and output keys, the input and
reference files, and the size of variables/).

  python bench/saved_models.py OUT NAME...
"""
import json
import os
import shutil
import sys

import numpy as np

SEED = 20261203
WIDTHS = (1024, 4096, 4096, 1024, 10)
BATCH = 8


def _weights():
    """[(kernel, bias)] for the four Dense layers and (gamma, beta) of the
    LayerNormalization, float32, the same for both builders."""
    r = np.random.default_rng(SEED)
    dense = []
    for fan_in, fan_out in zip(WIDTHS[:-1], WIDTHS[1:]):
        k = r.standard_normal((fan_in, fan_out), dtype=np.float32)
        k *= np.float32(1 / np.sqrt(fan_in))
        b = r.uniform(-0.1, 0.1, fan_out).astype(np.float32)
        dense.append((k, b))
    ln = (r.uniform(0.5, 1.5, WIDTHS[1]).astype(np.float32),
          r.uniform(-0.2, 0.2, WIDTHS[1]).astype(np.float32))
    x = r.standard_normal((BATCH, WIDTHS[0]), dtype=np.float32)
    return dense, ln, x


def _dir_size(d):
    return sum(os.path.getsize(os.path.join(p, f))
               for p, _, fs in os.walk(d) for f in fs)


def sm_keras_mlp(tf, out):
    keras = tf.keras
    L = keras.layers
    dense, ln, x = _weights()
    inp = keras.Input((WIDTHS[0],), name="features")
    h = L.Dense(WIDTHS[1], activation="relu", name="dense_1")(inp)
    h = L.LayerNormalization(epsilon=1e-3, name="norm")(h)
    h = L.Dense(WIDTHS[2], activation="gelu", name="dense_2")(h)
    h = L.Dense(WIDTHS[3], activation="relu", name="dense_3")(h)
    y = L.Dense(WIDTHS[4], activation="softmax", name="probs")(h)
    model = keras.Model(inp, y, name="wide_mlp")
    for i, (k, b) in enumerate(dense):
        model.get_layer(["dense_1", "dense_2", "dense_3", "probs"][i]) \
            .set_weights([k, b])
    model.get_layer("norm").set_weights(list(ln))
    model.export(out, verbose=False)
    loaded = tf.saved_model.load(out)
    fn = loaded.signatures["serving_default"]
    in_key = list(fn.structured_input_signature[1].keys())[0]
    res = fn(**{in_key: tf.constant(x)})
    out_key = sorted(res.keys())[0]
    return dict(signature="serving_default", input_key=in_key,
                output_key=out_key), x, res[out_key].numpy()


def sm_tf1_mlp(tf, out):
    tf1 = tf.compat.v1
    dense, ln, x = _weights()
    g = tf.Graph()
    with g.as_default():
        xp = tf1.placeholder(tf.float32, [None, WIDTHS[0]], name="features")
        h, loads = xp, []

        def var(name, value):
            v = tf1.get_variable(name, value.shape, tf.float32,
                                 initializer=tf1.zeros_initializer())
            loads.append((v, value))
            return v
        for i, (k, b) in enumerate(dense):
            h = tf.matmul(h, var("kernel_%d" % i, k)) + var("bias_%d" % i, b)
            if i == 0:
                h = tf.nn.relu(h)
                mean, variance = tf.nn.moments(h, [1], keepdims=True)
                h = (h - mean) * tf.math.rsqrt(variance + 1e-3)
                h = h * var("gamma", ln[0]) + var("beta", ln[1])
            elif i == 1:
                h = tf.nn.gelu(h)
            elif i == 2:
                h = tf.nn.relu(h)
        y = tf.nn.softmax(h, name="probs")
        with tf1.Session(graph=g) as sess:
            sess.run(tf1.global_variables_initializer())
            for v, value in loads:
                v.load(value, sess)
            ref = sess.run(y, {xp: x})
            b = tf1.saved_model.Builder(out)
            sig = tf1.saved_model.predict_signature_def(
                {"features": xp}, {"probs": y})
            b.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"serving_default": sig})
            b.save()
    return dict(signature="serving_default", input_key="features",
                output_key="probs"), x, ref


BUILDERS = {"sm_keras_mlp": sm_keras_mlp, "sm_tf1_mlp": sm_tf1_mlp}


def write_all(outdir, names):
    import tensorflow as tf
    os.makedirs(outdir, exist_ok=True)
    for name in names:
        d = os.path.join(outdir, name)
        shutil.rmtree(d, ignore_errors=True)
        keys, x, ref = BUILDERS[name](tf, d)
        base = os.path.join(outdir, name)
        np.save(base + ".in0.npy", x)
        np.save(base + ".ref.npy", ref)
        meta = dict(name=name, dir=d, tags=["serve"], input=base + ".in0.npy",
                    ref=base + ".ref.npy",
                    variables_bytes=_dir_size(os.path.join(d, "variables")),
                    saved_model_pb_bytes=os.path.getsize(
                        os.path.join(d, "saved_model.pb")), **keys)
        with open(base + ".json", "w") as f:
            json.dump(meta, f, indent=1)
        print("saved_models: %s: %.1f MB of variables, saved_model.pb %.0f KB"
              % (name, meta["variables_bytes"] / 1e6,
                 meta["saved_model_pb_bytes"] / 1e3), flush=True)


if __name__ == "__main__":
    write_all(sys.argv[1], sys.argv[2:])
